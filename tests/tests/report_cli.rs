//! `interstice report` end to end on small sweeps of a real trace (KTH SP2,
//! first day): every number the report shows is recomputed here from the
//! sweep's own tables, the figures are real PNG and SVG files with labelled
//! axes, and bad input is a clear error.

use interstice_tests::{assert_failure_mentions, assert_success, interstice_bin, kth_trace, scratch_dir};
use serde_json::Value;
use std::collections::HashMap;
use std::path::Path;
use std::process::{Command, Output};

fn interstice<S: AsRef<std::ffi::OsStr>>(args: &[S]) -> Output {
    Command::new(interstice_bin())
        .args(args)
        .output()
        .expect("run interstice")
}

/// The rows of a CSV table, each a map from column to text.
fn table(path: &Path) -> Vec<HashMap<String, String>> {
    let mut reader = csv::Reader::from_path(path).unwrap();
    let header = reader.headers().unwrap().clone();
    reader
        .records()
        .map(|record| {
            let record = record.unwrap();
            header
                .iter()
                .map(String::from)
                .zip(record.iter().map(String::from))
                .collect()
        })
        .collect()
}

fn number(row: &HashMap<String, String>, column: &str) -> Option<f64> {
    let text = &row[column];
    (!text.is_empty()).then(|| text.parse().unwrap())
}

fn mean(values: &[f64]) -> f64 {
    values.iter().sum::<f64>() / values.len() as f64
}

fn close(a: f64, b: f64) -> bool {
    (a - b).abs() <= 1e-9 * a.abs().max(b.abs()).max(1.0)
}

fn sweep(out: &Path, extra: &[&str]) {
    let trace = kth_trace();
    let mut args = vec![
        "sweep",
        trace.to_str().unwrap(),
        "--procs",
        "100",
        "--until",
        "86400",
        "--quiet",
        "--force",
        "--out",
        out.to_str().unwrap(),
    ];
    args.extend(extra);
    assert_success(&interstice(&args));
}

fn report(dir: &Path) -> Value {
    assert_success(&interstice(&["report", dir.to_str().unwrap(), "--quiet"]));
    let text = std::fs::read_to_string(dir.join("report/report.json")).unwrap();
    serde_json::from_str(&text).unwrap()
}

/// The figure named `name` of the report.
fn figure<'a>(report: &'a Value, name: &str) -> &'a Value {
    report["figures"]
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f["name"] == name)
        .unwrap_or_else(|| panic!("no figure {name}"))
}

#[test]
fn the_reports_numbers_are_the_sweeps_and_its_figures_are_drawn() {
    let dir = scratch_dir("report_cli", "grid");
    sweep(
        &dir,
        &[
            "--policy",
            "convergence",
            "--clip",
            "--conv",
            "10,40",
            "--cloud-interval",
            "30",
            "--cloud-procs",
            "1;4",
            "--cloud-runtime",
            "0.1w",
            "--cloud-walltime",
            "180",
            "--slack",
            "1.25,2,5",
            "--predictor",
            "exact,thesis",
        ],
    );
    let report = report(&dir);
    let runs = table(&dir.join("sweep.csv"));
    assert_eq!(report["runs"], runs.len());
    each_violations_by_width_point_is_the_mean_of_its_runs(&report, &runs);
    each_prediction_row_aggregates_its_runs_as_the_thesis_does(&report, &runs);
    the_figures_are_labelled_png_and_svg_files_in_the_page(&dir, &report);
}

/// Fig. 6.2: a point per (width, area, slack), the mean violation percent
/// over the runs there (both predictors').
fn each_violations_by_width_point_is_the_mean_of_its_runs(report: &Value, runs: &[HashMap<String, String>]) {
    let by_width = figure(report, "violations-by-width");
    let mut points = 0;
    for panel in by_width["panels"].as_array().unwrap() {
        let width = panel["title"]
            .as_str()
            .unwrap()
            .split(' ')
            .nth(3)
            .unwrap()
            .to_string();
        for series in panel["series"].as_array().unwrap() {
            let conv = series["label"]
                .as_str()
                .unwrap()
                .trim_start_matches("m_conv ")
                .to_string();
            for point in series["points"].as_array().unwrap() {
                let slack = point["x"].as_f64().unwrap();
                let values: Vec<f64> = runs
                    .iter()
                    .filter(|r| r["cloud_procs"] == width && r["conv"] == conv)
                    .filter(|r| number(r, "slack") == Some(slack))
                    .filter_map(|r| number(r, "violation_percent"))
                    .collect();
                assert_eq!(
                    values.len(),
                    2,
                    "both predictors' runs at h {width}, m {conv}, f {slack}"
                );
                assert!(
                    close(point["y"].as_f64().unwrap(), mean(&values)),
                    "{point} vs {values:?}"
                );
                points += 1;
            }
        }
    }
    assert_eq!(points, 2 * 2 * 3, "every width × area × slack is a point");
}

/// The thesis's aggregation: per-run mean over m_conv ≤ 320, undefined
/// values left out, for every predictor scored in every run (the setting
/// names the predictor that admitted): its accuracy, Brier score and true
/// positives, over all cloud jobs and over the foreseeable ones
/// (`<predictor> (foreseeable)`, the `foreseeable.<predictor>.*` columns);
/// 3 predictors scored × 2 job sets × 2 admitting × 2 scopes.
fn each_prediction_row_aggregates_its_runs_as_the_thesis_does(
    report: &Value,
    runs: &[HashMap<String, String>],
) {
    for row in report["prediction"].as_array().unwrap() {
        let scored = match row["predictor"].as_str().unwrap().strip_suffix(" (foreseeable)") {
            Some(predictor) => format!("foreseeable.{predictor}"),
            None => row["predictor"].as_str().unwrap().to_string(),
        };
        let admitting = row["setting"].as_str().unwrap().trim_start_matches("predictor=");
        let slack_below_5 = row["scope"].as_str().unwrap().contains("f <");
        let scoped: Vec<_> = runs
            .iter()
            .filter(|r| r["predictor"] == admitting)
            .filter(|r| !slack_below_5 || number(r, "slack").unwrap() < 5.0)
            .collect();
        let count = |r: &HashMap<String, String>, cell: &str| -> f64 {
            r[&format!("{scored}.{cell}")].parse().unwrap()
        };
        // The thesis's "accuracy", (FP + FN) / predicted, from the run's counts.
        let defined: Vec<f64> = scoped
            .iter()
            .filter(|r| count(r, "tp") + count(r, "fp") > 0.0)
            .map(|r| (count(r, "fp") + count(r, "fn")) / (count(r, "tp") + count(r, "fp")))
            .collect();
        let aggregate = &row["thesis_accuracy"];
        assert_eq!(aggregate["runs"], defined.len());
        assert_eq!(aggregate["undefined"], scoped.len() - defined.len());
        match aggregate["mean"].as_f64() {
            Some(value) => assert!(close(value, mean(&defined)), "{row}"),
            None => assert!(defined.is_empty(), "{row}"),
        }
        let briers: Vec<f64> = scoped
            .iter()
            .filter_map(|r| number(r, &format!("{scored}.brier")))
            .collect();
        assert!(
            close(row["brier"]["mean"].as_f64().unwrap(), mean(&briers)),
            "{row}"
        );
        let tp: f64 = scoped.iter().map(|r| count(r, "tp")).sum();
        assert_eq!(row["tp"], tp as u64);
    }
    assert_eq!(
        report["prediction"].as_array().unwrap().len(),
        24,
        "3 predictors scored × 2 job sets × 2 admitting × 2 scopes"
    );
}

/// The figures: PNG (at least 500 px wide) and SVG files, axes labelled,
/// linked from the page, which reads the thesis's 0.0018 both ways; every
/// panel drawn once with values, no raw number on an axis.
fn the_figures_are_labelled_png_and_svg_files_in_the_page(dir: &Path, report: &Value) {
    let html = std::fs::read_to_string(dir.join("report/index.html")).unwrap();
    for f in report["figures"].as_array().unwrap() {
        let name = f["name"].as_str().unwrap();
        let png = std::fs::read(dir.join(format!("report/figures/{name}.png"))).unwrap();
        assert_eq!(&png[..8], b"\x89PNG\r\n\x1a\n", "{name}.png is a PNG");
        let width = u32::from_be_bytes(png[16..20].try_into().unwrap());
        assert!(width >= 500, "{name}.png is {width} px wide");
        let svg = std::fs::read_to_string(dir.join(format!("report/figures/{name}.svg"))).unwrap();
        let x_label = f["panels"][0]["x_label"].as_str().unwrap();
        assert!(svg.contains(x_label), "{name}.svg labels its x axis {x_label:?}");
        assert!(
            html.contains(&format!("figures/{name}.png")),
            "the page links {name}.png"
        );
    }
    assert!(
        html.contains("0.0018") && html.contains("0.18 %"),
        "both readings of the thesis's 0.0018"
    );
    assert_every_panel_drawn_once_with_values(report);
    assert_no_raw_number(&dir.join("report/figures"));
}

#[test]
fn the_class_table_and_figure_are_the_sweeps_classes() {
    let dir = scratch_dir("report_cli", "classes");
    sweep(
        &dir,
        &[
            "--policy",
            "easy",
            "--conv",
            "40,80",
            "--cloud-interval",
            "300",
            "--cloud-procs",
            "1,2",
            "--cloud-runtime",
            "uniform:60:1800",
            "--cloud-walltime",
            "1800",
            "--eviction",
            "priority,qos-driven",
        ],
    );
    let report = report(&dir);
    let classes = table(&dir.join("sweep-classes.csv"));
    let rows = report["classes"].as_array().unwrap();
    assert_eq!(
        rows.len(),
        classes.len(),
        "one run per (eviction, area): one line per class row"
    );
    for row in rows {
        let matching: Vec<f64> = classes
            .iter()
            .filter(|c| c["eviction"] == row["eviction"].as_str().unwrap())
            .filter(|c| c["conv"].parse::<u64>().ok() == row["conv"].as_u64())
            .filter(|c| c["class"] == row["class"].as_str().unwrap())
            .map(|c| number(c, "penalty").unwrap())
            .collect();
        assert_eq!(matching.len(), 1, "{row}");
        assert!(
            close(row["penalty"]["mean"].as_f64().unwrap(), matching[0]),
            "{row}"
        );
    }
    let figure = figure(&report, "classes");
    let gini = &figure["panels"][1];
    assert!(gini["title"].as_str().unwrap().contains("Gini"));
    assert_eq!(
        gini["series"].as_array().unwrap().len(),
        3 * 2,
        "a line per class and eviction policy"
    );
}

#[test]
fn bad_input_is_a_clear_error() {
    let dir = scratch_dir("report_cli", "bad");
    std::fs::create_dir_all(&dir).unwrap();
    let output = interstice(&["report", dir.to_str().unwrap()]);
    assert_failure_mentions(&output, &["sweep.csv", "sweep's output directory"]);

    let header = "run,policy,scheduling,predictor,procs,conv,admission,eviction,cloud_procs,cloud_runtime,\
slack,seed,jobs,cloud_jobs,violations,violation_percent,evictions,rejected,hpc_makespan,hpc_makespan_delta,\
utilization,mean_wait,tp,fp,fn,tn,precision,recall,accuracy,f1,thesis_accuracy,thesis_precision";
    let good = "0,easy,hpc-first,exact,100,10,admit-all,,1,1w,1.25,1,5,4,0,0,0,0,100,0,0.5,1,0,0,0,4,,,1,,,";
    let bad = good.replace(",1.25,", ",fast,");
    std::fs::write(dir.join("sweep.csv"), format!("{header}\n{good}\n{bad}\n")).unwrap();
    let output = interstice(&["report", dir.to_str().unwrap()]);
    assert_failure_mentions(&output, &["sweep.csv:3", "slack"]);
    assert!(!dir.join("report").exists(), "nothing written from a bad table");
}

/// Processor ranges in a `0-3 8` list.
fn range_count(procs: &str) -> usize {
    procs.split_whitespace().count()
}

#[test]
fn the_gantt_chart_draws_every_evicted_run() {
    let dir = scratch_dir("report_cli", "gantt");
    let trace = kth_trace();
    let run = dir.join("run");
    assert_success(&interstice(&[
        "replay",
        trace.to_str().unwrap(),
        "--procs",
        "100",
        "--conv",
        "40",
        "--policy",
        "easy",
        "--cloud-interval",
        "120",
        "--cloud-procs",
        "1,2,4",
        "--cloud-runtime",
        "uniform:60:1800",
        "--cloud-walltime",
        "1800",
        "--until",
        "172800",
        "--max-resubmissions",
        "3",
        "--quiet",
        "--out",
        run.to_str().unwrap(),
    ]));
    // The runs evictions ended: earlier runs (evicted_runs) and killed last runs.
    let jobs = table(&run.join("jobs.csv"));
    let mut evicted_ranges = 0;
    let mut resubmitted = 0;
    for job in &jobs {
        for evicted in job["evicted_runs"].split(';').filter(|r| !r.is_empty()) {
            evicted_ranges += range_count(evicted.split_once('@').unwrap().1);
            resubmitted += 1;
        }
        if job["kind"] == "cloud" && job["final_state"] == "COMPLETED_KILLED" {
            evicted_ranges += range_count(&job["allocated_resources"]);
        }
    }
    assert!(
        resubmitted > 0,
        "the run has evicted-then-resubmitted jobs to draw"
    );
    let output = interstice(&[
        "report",
        "--gantt",
        run.to_str().unwrap(),
        "--from",
        "0",
        "--to",
        "1000000000",
    ]);
    assert_success(&output);
    let svg = std::fs::read_to_string(run.join("gantt.svg")).unwrap();
    // Each run's processor ranges are rectangles of its colour (the legend's is opaque).
    let red = svg.matches(r##"opacity="0.85" fill="#DC2828""##).count();
    assert_eq!(
        red, evicted_ranges,
        "every evicted run on every processor range is drawn"
    );
    // Every job's rectangle is outlined, in a darker shade of its colour (the
    // legend's swatches in black).
    let filled = svg.matches(r#"opacity="0.85""#).count();
    let outlines = svg.matches(r##"fill="none" stroke="#"##).count()
        - svg.matches(r##"fill="none" stroke="#000000""##).count();
    assert_eq!(outlines, filled, "each job outlined");
    let png = std::fs::read(run.join("gantt.png")).unwrap();
    assert_eq!(&png[..8], b"\x89PNG\r\n\x1a\n");
    assert!(
        svg.contains("processor") && svg.contains("hours since"),
        "axes labelled"
    );

    let bad = interstice(&["report", "--gantt", dir.to_str().unwrap()]);
    assert_failure_mentions(&bad, &["jobs.csv"]);
}

/// The texts of an SVG document (tick labels, titles, axis labels), trimmed.
fn svg_texts(svg: &str) -> Vec<String> {
    svg.split("<text")
        .skip(1)
        .filter_map(|element| {
            let (_, rest) = element.split_once('>')?;
            let (text, _) = rest.split_once("</text>")?;
            Some(text.trim().to_string())
        })
        .collect()
}

/// A tick label as plotters writes a raw number (`600000.0`, `20.0`), not as people do.
fn raw_number(text: &str) -> bool {
    let digits = text.trim_start_matches('-');
    digits.ends_with(".0") && digits[..digits.len() - 2].chars().all(|c| c.is_ascii_digit())
        || (digits.len() > 4 && digits.chars().all(|c| c.is_ascii_digit()))
}

/// No figure of the report has a panel without a value, with 0 everywhere,
/// or the same as another panel of it.
fn assert_every_panel_drawn_once_with_values(report: &Value) {
    for f in report["figures"].as_array().unwrap() {
        let panels = f["panels"].as_array().unwrap();
        for (i, a) in panels.iter().enumerate() {
            let points: Vec<&Value> = a["series"]
                .as_array()
                .unwrap()
                .iter()
                .flat_map(|s| s["points"].as_array().unwrap())
                .collect();
            assert!(
                points.iter().any(|p| p["y"].as_f64() != Some(0.0)),
                "{}: {} is empty or 0 everywhere",
                f["name"],
                a["title"]
            );
            for b in &panels[i + 1..] {
                assert_ne!(
                    a["series"], b["series"],
                    "{}: {} drawn twice",
                    f["name"], b["title"]
                );
            }
        }
    }
}

/// No SVG figure in `dir` has a tick label such as `600000.0`.
fn assert_no_raw_number(dir: &Path) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_some_and(|e| e == "svg") {
            let svg = std::fs::read_to_string(&path).unwrap();
            let raw: Vec<String> = svg_texts(&svg).into_iter().filter(|t| raw_number(t)).collect();
            assert!(raw.is_empty(), "{}: tick labels {raw:?}", path.display());
        }
    }
}

#[test]
fn a_policy_comparison_is_drawn_as_bars_per_policy_in_human_units() {
    let dir = scratch_dir("report_cli", "policies");
    sweep(
        &dir,
        &[
            "--policy",
            "fcfs,easy,conservative",
            "--cloud-interval",
            "60",
            "--cloud-procs",
            "1,2",
            "--cloud-runtime",
            "0.5w",
            "--cloud-walltime",
            "180",
            "--slack",
            "2",
        ],
    );
    let report = report(&dir);
    let runs = table(&dir.join("sweep.csv"));
    let policies = ["conservative", "easy", "fcfs"];

    // A figure of bars: a panel per metric, a bar per policy (the mean of its runs).
    let bars = figure(&report, "by-policy");
    let panels = bars["panels"].as_array().unwrap();
    assert!(panels.len() >= 4, "wait, makespan, utilisation, violations…");
    for panel in panels {
        assert_eq!(
            panel["categories"],
            serde_json::json!(policies),
            "{}",
            panel["title"]
        );
        let series = panel["series"].as_array().unwrap();
        assert_eq!(series.len(), 1, "one bar per policy, no other setting varies");
        assert_eq!(series[0]["points"].as_array().unwrap().len(), policies.len());
    }
    let wait = panels
        .iter()
        .find(|p| p["title"].as_str().unwrap().starts_with("HPC mean wait"))
        .expect("an HPC mean wait panel");
    assert_eq!(wait["y_unit"], "seconds", "report.json keeps the sweep's seconds");
    for (index, policy) in policies.iter().enumerate() {
        let waits: Vec<f64> = runs
            .iter()
            .filter(|r| r["policy"] == *policy)
            .filter_map(|r| number(r, "hpc_mean_wait"))
            .collect();
        let point = &wait["series"][0]["points"][index];
        assert_eq!(point["x"].as_f64(), Some(index as f64));
        assert!(
            close(point["y"].as_f64().unwrap(), mean(&waits)),
            "{policy}: {point}"
        );
    }
    assert_every_panel_drawn_once_with_values(&report);

    // The SVG: a filled, outlined bar per policy in every panel, policies named,
    // durations in minutes, hours or days and utilisation in %, no raw seconds.
    let svg = std::fs::read_to_string(dir.join("report/figures/by-policy.svg")).unwrap();
    let first_colour = r##"opacity="1" fill="#4E79A7""##;
    assert_eq!(svg.matches(first_colour).count(), panels.len() * policies.len());
    let texts = svg_texts(&svg);
    for policy in policies {
        assert!(texts.iter().any(|t| t == policy), "{policy} names its bars");
    }
    assert!(
        texts
            .iter()
            .any(|t| t.starts_with("HPC makespan (") && (t.ends_with("(hours)") || t.ends_with("(days)"))),
        "the makespan in hours or days: {texts:?}"
    );
    assert!(texts.iter().any(|t| t == "utilisation (%)"), "{texts:?}");
    assert_no_raw_number(&dir.join("report/figures"));

    // The page: what the sweep does not vary is said once, no row of points it has no run at.
    let html = std::fs::read_to_string(dir.join("report/index.html")).unwrap();
    assert!(
        !html.contains("not in this sweep"),
        "no row for points the sweep has no run at"
    );
    assert!(html.contains("figures/by-policy.png"));
    assert!(
        report["figures_left_out"]
            .as_array()
            .unwrap()
            .iter()
            .any(|why| why.as_str().unwrap().contains("every run has slack 2")),
        "{}",
        report["figures_left_out"]
    );
    for name in ["violations-by-width", "violations-by-area", "hpc-makespan"] {
        assert!(
            !dir.join(format!("report/figures/{name}.svg")).exists(),
            "{name}: one slack, one area: nothing to draw by them"
        );
    }
}
