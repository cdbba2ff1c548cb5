//! `interstice sweep` end to end on the first day of a real trace (KTH SP2):
//! one row per point of the grid, each row equal to a separate `interstice
//! replay` with the same values, the same table whatever the thread count,
//! the no-cloud baseline delta, and clear errors on bad lists.

use interstice_tests::{
    assert_failure_mentions, assert_success, column, csv_split, kth_trace, results_without_wall_time,
    runs_per_cell, scratch_dir, sweep_csv,
};
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// One day of KTH: fast in debug builds, yet thousands of cloud jobs.
const UNTIL: &str = "86400";

fn interstice(args: &[&str]) -> Output {
    Command::new(interstice_tests::interstice_bin())
        .args(args)
        .output()
        .expect("run interstice")
}

/// The settings every sweep below shares with the replays it is compared with.
const COMMON: [&str; 8] = [
    "--procs",
    "100",
    "--cloud-interval",
    "10",
    "--until",
    UNTIL,
    "--clip",
    "--quiet",
];

/// `command` on KTH with [`COMMON`], into `out`, then `extra`.
fn args_of(command: &str, out: &Path, extra: &[&str]) -> Vec<String> {
    let trace = kth_trace();
    let mut args = vec![command.to_string(), trace.to_str().unwrap().to_string()];
    args.extend(COMMON.iter().map(|arg| arg.to_string()));
    args.extend(["--out".to_string(), out.to_str().unwrap().to_string()]);
    args.extend(extra.iter().map(|arg| arg.to_string()));
    args
}

/// The common arguments of the sweeps below, then `extra`.
fn sweep_args(out: &Path, extra: &[&str]) -> Vec<String> {
    // Some tests sweep into one directory several times (replay_cli's
    // a_non_empty_out_is_refused_without_force checks the refusal).
    let mut args = args_of("sweep", out, &["--force"]);
    args.extend(extra.iter().map(|arg| arg.to_string()));
    args
}

/// The replay one row of a sweep stands for: [`COMMON`], then `extra`.
fn run_replay(out: &Path, extra: &[&str]) {
    let args = args_of("replay", out, extra);
    assert_success(&interstice(&args.iter().map(String::as_str).collect::<Vec<_>>()));
}

fn run_sweep(out: &Path, extra: &[&str]) {
    let args = sweep_args(out, extra);
    let output = interstice(&args.iter().map(String::as_str).collect::<Vec<_>>());
    assert_success(&output);
    assert!(output.stdout.is_empty(), "--quiet prints nothing");
}

/// A list of reservation depths: a column, a baseline per depth, each row
/// the replay with that depth (which echoes it in summary.json), and a
/// bounded depth refused where the policy re-plans nothing.
#[test]
fn reservation_depths_are_a_list_each_row_its_replay() {
    let out = scratch_dir("sweep-cli", "depth");
    let depths = ["--reservation-depth", "1,unlimited", "--jobs", "2"];
    run_sweep(
        &out,
        &[&["--policy", "conservative", "--conv", "10"][..], &depths].concat(),
    );
    let (header, rows) = sweep_csv(&out);
    let at = |name: &str| column(&header, name);
    let depths: Vec<&str> = rows
        .iter()
        .map(|row| row[at("reservation_depth")].as_str())
        .collect();
    assert_eq!(depths, ["1", "unlimited"]);
    let sweep_json = read_json(&out.join("sweep.json"));
    let baselines = sweep_json["baselines"].as_array().unwrap();
    assert_eq!(baselines.len(), 2, "a baseline per depth");
    assert_eq!(baselines[0]["reservation_depth"], 1);
    assert_eq!(baselines[1]["reservation_depth"], "unlimited");
    for (row, depth) in rows.iter().zip(["1", "unlimited"]) {
        let single = scratch_dir("sweep-cli", &format!("depth-replay-{depth}"));
        run_replay(
            &single,
            &[
                "--policy",
                "conservative",
                "--conv",
                "10",
                "--reservation-depth",
                depth,
                "--force",
            ],
        );
        let summary = interstice_tests::read_summary(&single);
        assert_eq!(
            summary["config"]["reservation_depth"]
                .to_string()
                .trim_matches('"'),
            depth
        );
        assert_eq!(
            row[at("violations")],
            summary["violations"].to_string(),
            "depth {depth}: the row is its replay"
        );
    }
    let easy = sweep_args(&out, &["--policy", "easy", "--reservation-depth", "5"]);
    let output = interstice(&easy.iter().map(String::as_str).collect::<Vec<_>>());
    assert_failure_mentions(&output, &["reservation depth 5 applies to conservative", "easy"]);
}

#[test]
fn one_row_per_grid_point_each_equal_to_a_separate_replay() {
    let out = scratch_dir("sweep-cli", "grid");
    // 2 policies × 2 areas × 2 widths (a `;` list: fixed h per experiment) × 1 × 2 slacks = 16 runs.
    run_sweep(
        &out,
        &[
            "--policy",
            "convergence,easy",
            "--conv",
            "10",
            "--conv",
            "40",
            "--cloud-procs",
            "1;4",
            "--cloud-runtime",
            "uniform:0.1w:0.5w",
            "--slack",
            "1.25,5",
            "--jobs",
            "2",
        ],
    );
    let (header, rows) = sweep_csv(&out);
    the_table_has_the_grid_columns_and_no_class_table(&out, &header, &rows);
    the_rows_follow_the_lists_with_the_defaults_and_no_hpc_delay(&header, &rows);
    sweep_json_has_every_run_and_a_baseline_per_policy_and_conv(&out, rows.len());
    // Three points checked against `interstice replay` with the same values.
    let mut some_violations = false;
    for index in [0usize, 7, 13] {
        some_violations |= the_row_is_a_replay_with_its_values(&header, &rows[index], index);
    }
    let violations = column(&header, "violations");
    assert!(
        some_violations || rows.iter().any(|row| row[violations] != "0"),
        "a 10-processor area with 4-processor jobs every 10 s sees violations"
    );
}

/// The grid's columns first, `wall_seconds` last, one row per point (16);
/// without service classes their columns are empty and there is no class
/// table.
fn the_table_has_the_grid_columns_and_no_class_table(out: &Path, header: &[String], rows: &[Vec<String>]) {
    assert_eq!(
        header[..13],
        [
            "run",
            "policy",
            "scheduling",
            "reservation_depth",
            "predictor",
            "procs",
            "conv",
            "admission",
            "eviction",
            "cloud_procs",
            "cloud_runtime",
            "slack",
            "seed"
        ]
    );
    assert_eq!(header.last().map(String::as_str), Some("wall_seconds"));
    assert_eq!(rows.len(), 2 * 2 * 2 * 2);
    for name in ["eviction", "class_requests", "preemptions", "penalty"] {
        let at = column(header, name);
        assert!(rows.iter().all(|row| row[at].is_empty()), "{name}");
    }
    assert!(!out.join("sweep-classes.csv").exists());
}

/// Rows follow the lists (policy, then conv, …, slack innermost), numbered
/// in order, each with the default admission, scheduling, predictor and
/// seed, and no HPC delay: cloud jobs never delay HPC work.
fn the_rows_follow_the_lists_with_the_defaults_and_no_hpc_delay(header: &[String], rows: &[Vec<String>]) {
    let at = |name: &str| column(header, name);
    let points: Vec<(String, String, String, String)> = rows
        .iter()
        .map(|row| {
            (
                row[at("policy")].clone(),
                row[at("conv")].clone(),
                row[at("cloud_procs")].clone(),
                row[at("slack")].clone(),
            )
        })
        .collect();
    let mut expected = Vec::new();
    for policy in ["convergence", "easy"] {
        for conv in ["10", "40"] {
            for procs in ["1", "4"] {
                for slack in ["1.25", "5"] {
                    expected.push((
                        policy.to_string(),
                        conv.to_string(),
                        procs.to_string(),
                        slack.to_string(),
                    ));
                }
            }
        }
    }
    assert_eq!(points, expected);
    for (index, row) in rows.iter().enumerate() {
        assert_eq!(row[at("run")], index.to_string());
        assert_eq!(row[at("admission")], "admit-all", "the default admission");
        assert_eq!(row[at("scheduling")], "hpc-first", "the default scheduling");
        assert_eq!(row[at("predictor")], "exact", "the default predictor");
        assert_eq!(row[at("seed")], "1", "the default seed");
        assert_eq!(
            row[at("hpc_makespan_delta")].parse::<f64>().unwrap(),
            0.0,
            "cloud jobs never delay HPC work: {row:?}"
        );
    }
}

/// `sweep.json` has the table's runs (the fourth with the second slack) and
/// one baseline per (policy, scheduling, conv).
fn sweep_json_has_every_run_and_a_baseline_per_policy_and_conv(out: &Path, runs: usize) {
    let json = read_json(&out.join("sweep.json"));
    assert_eq!(json["runs"].as_array().unwrap().len(), runs);
    assert_eq!(
        json["baselines"].as_array().unwrap().len(),
        4,
        "one per (policy, scheduling, conv)"
    );
    assert_eq!(json["runs"][3]["slack"].as_f64(), Some(5.0));
}

/// A row's columns and where `interstice replay` writes the same metric in
/// its summary.json.
const REPLAY_METRICS: [(&str, &str); 19] = [
    ("jobs", "jobs"),
    ("cloud_jobs", "cloud_jobs"),
    ("violations", "violations"),
    ("violation_percent", "violation_percent"),
    ("evictions", "evictions"),
    ("rejected", "rejected"),
    ("hpc_makespan", "hpc_makespan"),
    ("utilization", "utilization"),
    ("mean_wait", "mean_wait"),
    ("tp", "prediction.tp"),
    ("fp", "prediction.fp"),
    ("fn", "prediction.fn"),
    ("tn", "prediction.tn"),
    ("precision", "prediction.precision"),
    ("recall", "prediction.recall"),
    ("accuracy", "prediction.accuracy"),
    ("f1", "prediction.f1"),
    ("thesis_accuracy", "prediction.thesis_accuracy"),
    ("thesis_precision", "prediction.thesis_precision"),
];

/// Row `index` of the grid's table has every metric of `interstice replay`
/// with the row's values (counts exactly, floats to within an ulp or two,
/// undefined ones empty); whether that replay saw violations.
fn the_row_is_a_replay_with_its_values(header: &[String], row: &[String], index: usize) -> bool {
    let at = |name: &str| column(header, name);
    let replay_out = scratch_dir("sweep-cli", &format!("replay-{index}"));
    run_replay(
        &replay_out,
        &[
            "--policy",
            &row[at("policy")],
            "--conv",
            &row[at("conv")],
            "--cloud-procs",
            &row[at("cloud_procs")],
            "--cloud-runtime",
            &row[at("cloud_runtime")],
            "--slack",
            &row[at("slack")],
        ],
    );
    let summary = read_json(&replay_out.join("summary.json"));
    for (csv_name, json_path) in REPLAY_METRICS {
        let value = json_path.split('.').fold(&summary, |value, key| &value[key]);
        let cell = &row[at(csv_name)];
        if let Some(count) = value.as_u64() {
            assert_eq!(
                cell,
                &count.to_string(),
                "{csv_name} of row {index} differs from replay's"
            );
        } else if let Some(expected) = value.as_f64() {
            let got: f64 = cell
                .parse()
                .unwrap_or_else(|_| panic!("{csv_name} {cell:?} of row {index}"));
            assert!(
                close(expected, got),
                "{csv_name} of row {index}: {got} in sweep.csv, {expected} in replay's summary.json"
            );
        } else {
            assert!(
                value.is_null() && cell.is_empty(),
                "{csv_name} of row {index}: {cell:?} vs {value}"
            );
        }
    }
    summary["violations"].as_u64().unwrap() > 0
}

/// Whether `other` is `reference` to within an ulp or two of `reference`'s
/// scale (serde_json's default float parser may be one ulp off the written
/// text).
fn close(reference: f64, other: f64) -> bool {
    (reference - other).abs() <= 1e-12 * reference.abs().max(1.0)
}

/// A JSON file, parsed.
fn read_json(path: &Path) -> Value {
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

#[test]
fn the_table_does_not_depend_on_the_thread_count() {
    let one = scratch_dir("sweep-cli", "threads-1");
    let two = scratch_dir("sweep-cli", "threads-2");
    let grid = [
        "--policy",
        "convergence",
        "--conv",
        "20",
        "--cloud-procs",
        "2",
        "--cloud-procs",
        "1,2,4",
        "--cloud-runtime",
        "0.1w;walltime",
        "--slack",
        "2",
        "--admission",
        "admit-all,reject-predicted",
        "--seed",
        "1,7",
    ];
    run_sweep(&one, &[&grid[..], &["--jobs", "1"]].concat());
    run_sweep(&two, &[&grid[..], &["--jobs", "2"]].concat());
    let (header, rows_one) = sweep_csv(&one);
    let (_, rows_two) = sweep_csv(&two);
    assert_eq!(
        rows_one.len(),
        2 * 2 * 2 * 2,
        "cloud-procs × runtime × admission × seed"
    );
    let wall = column(&header, "wall_seconds");
    let strip = |rows: &[Vec<String>]| -> Vec<Vec<String>> {
        rows.iter()
            .map(|row| {
                row.iter()
                    .enumerate()
                    .filter(|(i, _)| *i != wall)
                    .map(|(_, cell)| cell.clone())
                    .collect()
            })
            .collect()
    };
    assert_eq!(strip(&rows_one), strip(&rows_two), "only wall_seconds may differ");
    let procs = column(&header, "cloud_procs");
    assert_eq!(rows_one[0][procs], "2");
    assert_eq!(
        rows_one[4][procs], "1:1,2:1,4:1",
        "a comma list is one mixed experiment"
    );
    assert_eq!(rows_one[8][procs], "2");
    let rejected = column(&header, "rejected");
    let admission = column(&header, "admission");
    assert!(rows_one
        .iter()
        .filter(|row| row[admission] == "admit-all")
        .all(|row| row[rejected] == "0"));
    let seeds = column(&header, "seed");
    let cloud_jobs = column(&header, "cloud_jobs");
    let violations = column(&header, "violations");
    let utilization = column(&header, "utilization");
    // Seeds 1 and 7 of a mixed-width run draw different widths: the same number of
    // cloud jobs, a different use of the machine.
    let mixed: Vec<&Vec<String>> = rows_one.iter().filter(|row| row[procs] != "2").collect();
    assert_eq!(mixed.len(), 8);
    assert!(mixed.iter().all(|row| row[cloud_jobs] == mixed[0][cloud_jobs]));
    for pair in mixed.chunks(2) {
        assert_eq!((pair[0][seeds].as_str(), pair[1][seeds].as_str()), ("1", "7"));
        assert_ne!(pair[0][utilization], pair[1][utilization], "{pair:?}");
    }
    assert!(rows_one
        .iter()
        .all(|row| row[violations].parse::<u64>().unwrap() <= row[cloud_jobs].parse::<u64>().unwrap()));
}

/// Under admit-all the predictor decides nothing, so the runs that differ
/// only in it are one simulation, each row relabelled with its predictor's
/// quality: the table equals simulating every run (`--keep-runs` does), and
/// the cells store one simulation per predictor group.
#[test]
fn admit_all_runs_share_one_simulation_across_predictors() {
    let shared = scratch_dir("sweep-cli", "shared-predictors");
    let each = scratch_dir("sweep-cli", "each-predictor");
    let grid = [
        "--policy",
        "convergence",
        "--conv",
        "20",
        "--scheduling",
        "hpc-first,shared-queue",
        "--predictor",
        "exact,thesis,learned",
        "--cloud-runtime",
        "0.5w",
        "--slack",
        "1.25,3",
        "--admission",
        "admit-all,reject-predicted",
    ];
    run_sweep(&shared, &grid);
    run_sweep(&each, &[&grid[..], &["--keep-runs", "--no-jobs-csv"]].concat());
    assert_eq!(
        results_without_wall_time(&shared),
        results_without_wall_time(&each)
    );
    let simulated = |dir: &Path| runs_per_cell(dir).len();
    let baselines = 2;
    assert_eq!(simulated(&each), baselines + 2 * 3 * 2 * 2);
    assert_eq!(
        simulated(&shared),
        baselines + 2 * 2 * (1 + 3),
        "admit-all: one simulation per predictor group; reject-predicted: one per run"
    );
    // The relabelling is not vacuous: the predictors' headlines differ.
    let (header, rows) = sweep_csv(&shared);
    let at = |name: &str| column(&header, name);
    let headlines: std::collections::BTreeSet<(String, String)> = rows
        .iter()
        .filter(|row| row[at("admission")] == "admit-all")
        .map(|row| (row[at("fp")].clone(), row[at("fn")].clone()))
        .collect();
    assert!(headlines.len() > 2, "{headlines:?}");
}

#[test]
fn scheduling_and_predictor_are_lists_and_the_thesis_knobs_reach_every_run() {
    let dir = scratch_dir("sweep-cli", "thesis");
    // Beside --out, not in it: a non-empty --out is refused without --force.
    let maintenance = dir.join("maintenance.txt");
    let out = dir.join("out");
    std::fs::write(&maintenance, "600000 3600 0-4\n").unwrap();
    run_sweep(
        &out,
        &[
            "--policy",
            "conservative",
            "--conv",
            "20",
            "--scheduling",
            "hpc-first,shared-queue",
            "--predictor",
            "exact;thesis",
            "--latency",
            "5",
            "--beta",
            "30",
            "--maintenance",
            maintenance.to_str().unwrap(),
            "--alpha",
            "0.5",
            "--keep-runs",
            "--no-jobs-csv",
        ],
    );
    let (header, rows) = sweep_csv(&out);
    let at = |name: &str| column(&header, name);
    let cells: Vec<(&str, &str)> = rows
        .iter()
        .map(|row| (row[at("scheduling")].as_str(), row[at("predictor")].as_str()))
        .collect();
    assert_eq!(
        cells,
        [
            ("hpc-first", "exact"),
            ("hpc-first", "thesis"),
            ("shared-queue", "exact"),
            ("shared-queue", "thesis")
        ]
    );
    let json = read_json(&out.join("sweep.json"));
    assert_eq!(
        json["baselines"].as_array().unwrap().len(),
        2,
        "one per scheduling mode"
    );
    assert_eq!(json["baselines"][1]["scheduling"], "shared-queue");
    assert_eq!(
        (&json["latency"], &json["beta"], &json["alpha"]),
        (&5.0.into(), &30.0.into(), &0.5.into())
    );
    assert_eq!(json["grid"]["predictor"], serde_json::json!(["exact", "thesis"]));
    for (index, (scheduling, predictor)) in cells.iter().enumerate() {
        let summary = read_json(
            &out.join("runs")
                .join(format!("run-{index:04}"))
                .join("summary.json"),
        );
        let config = &summary["config"];
        assert_eq!(
            (config["scheduling"].as_str(), config["predictor"].as_str()),
            (Some(*scheduling), Some(*predictor))
        );
        assert_eq!((&config["latency"], &config["beta"]), (&5.0.into(), &30.0.into()));
        assert_eq!(config["maintenance"][0]["procs"], "0-4");
        assert_eq!(summary["run"]["cloud"]["alpha"], 0.5);
    }
    let bad = sweep_args(&out, &["--policy", "easy", "--scheduling", "hpc-first,together"]);
    assert_failure_mentions(
        &interstice(&bad.iter().map(String::as_str).collect::<Vec<_>>()),
        &["--scheduling", "together", "hpc-first or shared-queue"],
    );
}

#[test]
fn bad_lists_are_clear_errors() {
    let out = scratch_dir("sweep-cli", "errors");
    let run = |extra: &[&str]| {
        let args = sweep_args(&out, extra);
        interstice(&args.iter().map(String::as_str).collect::<Vec<_>>())
    };
    assert_failure_mentions(
        &run(&["--policy", "convergence,fastest"]),
        &["--policy", "fastest"],
    );
    assert_failure_mentions(
        &run(&["--policy", "easy", "--slack", "1.5,-2"]),
        &["--slack", "-2", "not a positive number"],
    );
    assert_failure_mentions(
        &run(&["--policy", "easy", "--conv", "10,,20"]),
        &["--conv", "empty item"],
    );
    assert_failure_mentions(
        &run(&["--policy", "easy", "--conv", "10;10"]),
        &["--conv", "twice"],
    );
    assert_failure_mentions(
        &run(&["--policy", "easy", "--conv", "200"]),
        &["--conv 200", "--procs 100"],
    );
    assert_failure_mentions(
        &run(&["--policy", "easy", "--cloud-runtime", "walltime;soon"]),
        &["--cloud-runtime", "soon"],
    );
    assert_failure_mentions(
        &run(&["--policy", "convergence", "--conv", "2", "--cloud-procs", "1;4"]),
        &["--cloud-procs 4", "convergence area has 2"],
    );
    assert_failure_mentions(&run(&["--policy", "easy", "--jobs", "0"]), &["--jobs"]);
    assert!(!out.join("sweep.csv").exists(), "no table after an error");
}

#[test]
fn kept_runs_without_jobs_csv_keep_their_summaries() {
    let out = scratch_dir("sweep-cli", "no-jobs-csv");
    run_sweep(
        &out,
        &["--policy", "easy", "--conv", "10", "--keep-runs", "--no-jobs-csv"],
    );
    let (header, rows) = sweep_csv(&out);
    assert_eq!(rows.len(), 1);
    let run = out.join("runs").join("run-0000");
    assert!(!run.join("jobs.csv").exists(), "--no-jobs-csv writes no jobs.csv");
    let summary = read_json(&run.join("summary.json"));
    for name in ["jobs", "cloud_jobs", "violations", "evictions"] {
        assert_eq!(
            rows[0][column(&header, name)],
            summary[name].as_u64().unwrap().to_string(),
            "{name}: the kept summary is the row's run"
        );
    }
    let refused = interstice(
        &sweep_args(&out, &["--policy", "easy", "--no-jobs-csv"])
            .iter()
            .map(String::as_str)
            .collect::<Vec<_>>(),
    );
    assert!(!refused.status.success(), "--no-jobs-csv needs --keep-runs");
}

/// `sweep --eviction --qos`: every run schedules its cloud jobs with service
/// classes; each run's classes in `sweep-classes.csv` and `sweep.json` are
/// those of the `replay --eviction` with the same values (and of the run it
/// keeps), the row's penalty their sum; flags a class run cannot use are
/// refused as `replay` refuses them.
#[test]
fn runs_with_service_classes_report_each_class_as_replay_does() {
    let out = scratch_dir("sweep-cli", "classes");
    let classes = out.join("classes.yaml");
    std::fs::write(
        &classes,
        "classes:\n  - { name: gold, slo: 1.0 }\n  - { name: bronze, slo: 0.5, weight: 2 }\n\
         tenants:\n  - { name: a, share: 10 }\n  - { name: b, share: 30 }\n",
    )
    .unwrap();
    let classes = classes.to_str().unwrap();
    let cloud = [
        "--cloud-procs",
        "1,2",
        "--cloud-runtime",
        "uniform:60:1800",
        "--cloud-walltime",
        "1800",
        "--qos",
        classes,
    ];
    let dir = out.join("sweep");
    let grid = [
        "--policy",
        "easy",
        "--conv",
        "40;60",
        "--eviction",
        "priority,owner-share",
    ];
    run_sweep(&dir, &[&grid[..], &["--keep-runs"], &cloud].concat());
    let tables = ClassTables::read(&dir);
    assert_eq!(tables.rows.len(), 4);
    assert_eq!(tables.class_rows.len(), 4 * 2, "one row per run and class");
    for run in 0..tables.rows.len() {
        the_runs_classes_are_its_replays(&tables, run, &out.join(format!("replay-{run}")), &cloud);
    }
    // Without --keep-runs (runs summed as they stream): the same tables.
    let streamed = out.join("streamed");
    run_sweep(&streamed, &[&grid[..], &cloud].concat());
    assert_eq!(
        std::fs::read(streamed.join("sweep-classes.csv")).unwrap(),
        std::fs::read(dir.join("sweep-classes.csv")).unwrap()
    );
    let errors = out.join("errors");
    what_a_class_run_cannot_use_is_refused_before_any_run(&errors);
    // The same directory swept again without classes keeps no class table.
    run_sweep(&dir, &["--policy", "easy", "--conv", "40"]);
    assert!(!dir.join("sweep-classes.csv").exists());
    an_eviction_without_classes_and_an_unknown_class_label_are_refused(&out, &errors);
}

/// A class sweep's `sweep.csv`, `sweep-classes.csv` and `sweep.json`.
struct ClassTables {
    dir: PathBuf,
    header: Vec<String>,
    rows: Vec<Vec<String>>,
    class_header: Vec<String>,
    class_rows: Vec<Vec<String>>,
    sweep: Value,
}

impl ClassTables {
    fn read(dir: &Path) -> ClassTables {
        let (header, rows) = sweep_csv(dir);
        let text = std::fs::read_to_string(dir.join("sweep-classes.csv")).unwrap();
        let mut lines = text.lines();
        let class_header = csv_split(lines.next().unwrap());
        let class_rows = lines.map(csv_split).collect();
        let sweep = read_json(&dir.join("sweep.json"));
        ClassTables {
            dir: dir.to_path_buf(),
            header,
            rows,
            class_header,
            class_rows,
            sweep,
        }
    }
}

/// Run `run` of the class sweep (evictions alternating priority and
/// owner-share) has two class rows, each that of the replay with its values
/// (into `replayed`) and of the run it kept, in `sweep-classes.csv` and
/// `sweep.json`; its row's penalty is their sum, its class requests and
/// preemptions the replay's.
fn the_runs_classes_are_its_replays(tables: &ClassTables, run: usize, replayed: &Path, cloud: &[&str]) {
    let ClassTables {
        dir,
        header,
        rows,
        class_header,
        class_rows,
        sweep,
    } = tables;
    let row = &rows[run];
    let number = |text: &str| text.parse::<f64>().unwrap();
    let (conv, eviction) = (&row[column(header, "conv")], &row[column(header, "eviction")]);
    assert_eq!(eviction, ["priority", "owner-share"][run % 2]);
    let mine: Vec<&Vec<String>> = class_rows
        .iter()
        .filter(|r| r[column(class_header, "run")] == run.to_string())
        .collect();
    assert_eq!(mine.len(), 2);
    // The run as a replay of its own.
    let policy = [
        "--policy",
        "easy",
        "--conv",
        conv.as_str(),
        "--eviction",
        eviction.as_str(),
    ];
    run_replay(replayed, &[&policy[..], cloud].concat());
    let summary = interstice_tests::read_summary(replayed);
    let kept = interstice_tests::read_summary(&dir.join("runs").join(format!("run-{run:04}")));
    let mut penalty = 0.0;
    for (class, (csv, json)) in mine
        .iter()
        .zip(sweep["runs"][run]["classes"].as_array().unwrap())
        .enumerate()
    {
        let want = &summary["classes"][class];
        assert_eq!(want, &kept["classes"][class], "the kept run is the replay");
        let cell = |name: &str| &csv[column(class_header, name)];
        assert_eq!(cell("class"), want["name"].as_str().unwrap());
        assert_eq!(*cell("requests"), want["requests"].to_string());
        for (column, field) in [
            ("penalty", &want["penalty"]),
            ("slo_fulfilment", &want["slo_fulfilment"]),
            ("mean_deficit", &want["mean_deficit"]),
            ("availability_mean", &want["availability"]["mean"]),
            ("availability_p10", &want["availability"]["p10"]),
            ("gini_mean", &want["gini_mean"]),
        ] {
            let want = field.as_f64().unwrap();
            assert!(close(number(cell(column)), want), "run {run} {column}");
            assert!(
                close(json[column].as_f64().unwrap(), want),
                "run {run} {column} in sweep.json"
            );
        }
        penalty += number(cell("penalty"));
    }
    let total = number(&row[column(header, "penalty")]);
    assert!(
        (total - penalty).abs() <= 1e-9 * total.max(1.0),
        "{total} {penalty}"
    );
    assert_eq!(
        row[column(header, "class_requests")],
        summary["qos"]["requests"].to_string()
    );
    assert_eq!(
        row[column(header, "preemptions")],
        summary["qos"]["preemptions"].to_string()
    );
}

/// What a class run cannot use (shared-queue scheduling, a predictor, an
/// admission policy, a lambda) is a usage error (status 2), refused before
/// any run.
fn what_a_class_run_cannot_use_is_refused_before_any_run(errors: &Path) {
    for (flags, needle) in [
        (&["--scheduling", "shared-queue"][..], "hpc-first"),
        (&["--predictor", "thesis"][..], "--predictor"),
        (&["--admission", "reject-predicted"][..], "--admission"),
        (&["--lambda", "1.5"][..], "--lambda"),
    ] {
        let mut extra = vec!["--policy", "easy", "--conv", "40", "--eviction", "priority"];
        extra.extend_from_slice(flags);
        let args = sweep_args(errors, &extra);
        let output = interstice(&args.iter().map(String::as_str).collect::<Vec<_>>());
        assert_failure_mentions(&output, &[needle]);
        assert_eq!(output.status.code(), Some(2), "{flags:?}");
    }
}

/// `--eviction random` (not a qos-driven policy), and a workload label the
/// class file lacks (bad input, status 4), are refused before any run: no
/// table in `errors`.
fn an_eviction_without_classes_and_an_unknown_class_label_are_refused(out: &Path, errors: &Path) {
    let args = sweep_args(errors, &["--policy", "easy", "--eviction", "random"]);
    let output = interstice(&args.iter().map(String::as_str).collect::<Vec<_>>());
    assert_failure_mentions(&output, &["--eviction", "random", "qos-driven"]);
    assert!(!errors.join("sweep.csv").exists());
    let workload = out.join("labelled.json");
    std::fs::write(
        &workload,
        r#"{"nb_res": 4, "profiles": {"d": {"type": "delay", "delay": 50}}, "jobs": [
            {"id": 1, "subtime": 0, "walltime": 100, "res": 2, "profile": "d"},
            {"id": 2, "subtime": 10, "walltime": 100, "res": 1, "profile": "d", "kind": "cloud", "slo": 200,
             "class": "platinum"}]}"#,
    )
    .unwrap();
    let output = interstice(&[
        "sweep",
        workload.to_str().unwrap(),
        "--policy",
        "easy",
        "--cloud-interval",
        "10",
        "--eviction",
        "priority",
        "--quiet",
        "--out",
        errors.to_str().unwrap(),
    ]);
    assert_failure_mentions(
        &output,
        &[
            "labelled.json",
            "cloud job 2",
            "platinum",
            "give a --qos file that defines it",
        ],
    );
    assert_eq!(output.status.code(), Some(4));
    assert!(!errors.join("sweep.csv").exists());
}
