//! End-to-end tests of `interstice swf …` and `interstice bench swf`, run on
//! the built binary, against the archive's real traces and the crate's fixtures.

use interstice_tests::{interstice_bin, repo_root, shared_dir};
use serde_json::Value;
use std::ffi::OsStr;
use std::fmt::Debug;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

fn fixture(name: &str) -> PathBuf {
    repo_root().join("swf/tests/fixtures").join(name)
}

fn trace(name: &str) -> PathBuf {
    shared_dir().join("data").join(name)
}

fn run<S: AsRef<OsStr>>(args: &[S]) -> Output {
    Command::new(interstice_bin())
        .args(args)
        .output()
        .expect("run interstice")
}

fn ok<S: AsRef<OsStr> + Debug>(args: &[S]) -> Output {
    let out = run(args);
    assert!(
        out.status.success(),
        "interstice {args:?} failed\n--- stdout\n{}\n--- stderr\n{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    out
}

fn failing<S: AsRef<OsStr> + Debug>(args: &[S]) -> String {
    let out = run(args);
    assert!(!out.status.success(), "interstice {args:?} should fail");
    String::from_utf8_lossy(&out.stderr).into_owned()
}

fn json_of(out: &Output) -> Value {
    serde_json::from_slice(&out.stdout).unwrap_or_else(|e| {
        panic!(
            "stdout is not JSON ({e}):\n{}",
            String::from_utf8_lossy(&out.stdout)
        )
    })
}

fn read_json(path: &Path) -> Value {
    serde_json::from_slice(&std::fs::read(path).expect("output written")).expect("output is JSON")
}

/// Submit times of a Batsim workload's cloud jobs, in file order.
fn cloud_submits(workload: &Value) -> Vec<f64> {
    workload["jobs"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|j| j["kind"] == "cloud")
        .map(|j| j["subtime"].as_f64().unwrap())
        .collect()
}

fn p(path: &Path) -> &str {
    path.to_str().expect("utf-8 path")
}

/// `replay TRACE` on 4 processors under EASY, then `extra`, into `out`.
fn easy_replay<'a>(trace: &'a str, extra: &[&'a str], out: &'a Path) -> Vec<&'a str> {
    let mut args = vec!["replay", trace, "--procs", "4", "--policy", "easy"];
    args.extend_from_slice(extra);
    args.extend(["--out", p(out)]);
    args
}

/// An independent count: decompress with the system's `gzip`, keep data
/// lines, and apply the skip rules with plain string splitting.
struct Recount {
    data_lines: u64,
    no_submit: u64,
    runtime: u64,
    procs: u64,
}

fn recount(path: &Path) -> Recount {
    let out = Command::new("gzip")
        .arg("-dc")
        .arg(path)
        .output()
        .expect("run gzip");
    assert!(out.status.success());
    let text = String::from_utf8(out.stdout).expect("trace is text");
    let mut r = Recount {
        data_lines: 0,
        no_submit: 0,
        runtime: 0,
        procs: 0,
    };
    for line in text
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with(';'))
    {
        r.data_lines += 1;
        let f: Vec<f64> = line
            .split_whitespace()
            .map(|t| t.parse().expect("numeric field"))
            .collect();
        assert_eq!(f.len(), 18, "{line}");
        if f[1] == -1.0 {
            r.no_submit += 1;
        } else if f[3] <= 0.0 {
            r.runtime += 1;
        } else if f[4] <= 0.0 && f[7] <= 0.0 {
            r.procs += 1;
        }
    }
    r
}

#[test]
fn stats_json_matches_an_independent_count_on_real_traces() {
    for (name, procs) in [
        ("KTH-SP2-1996-2.1-cln.swf.gz", 100),
        ("NASA-iPSC-1993-3.1-cln.swf.gz", 128),
    ] {
        let path = trace(name);
        let s = json_of(&ok(&["swf", "stats", p(&path), "--json"]));
        let r = recount(&path);
        let skipped = r.no_submit + r.runtime + r.procs;
        assert_eq!(s["jobs"], r.data_lines - skipped, "{name}: {s}");
        assert_eq!(s["skipped"], skipped, "{name}");
        assert_eq!(s["skipped_runtime"], r.runtime, "{name}");
        assert_eq!(s["skipped_procs"], r.procs, "{name}");
        assert_eq!(s["skipped_no_submit"], r.no_submit, "{name}");
        assert_eq!(s["max_procs"], procs, "{name}");
        let (first, last) = (
            s["first_submit"].as_f64().unwrap(),
            s["last_submit"].as_f64().unwrap(),
        );
        assert!(first >= 0.0 && last > first, "{name}: {first} {last}");
        let u = s["utilization"].as_f64().unwrap();
        assert!(u > 0.05 && u < 1.5, "{name}: offered load {u}");
    }
}

#[test]
fn stats_text_and_stdin() {
    let path = trace("KTH-SP2-1996-2.1-cln.swf.gz");
    let text = String::from_utf8(ok(&["swf", "stats", p(&path)]).stdout).unwrap();
    assert!(
        text.contains("offered load:") && text.contains("(header 100"),
        "{text}"
    );
    // `-` reads stdin; gzip is detected from the bytes.
    let mut child = Command::new(interstice_bin())
        .args(["swf", "stats", "-", "--json"])
        .stdin(std::fs::File::open(&path).unwrap())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let mut out = String::new();
    std::io::Read::read_to_string(child.stdout.as_mut().unwrap(), &mut out).unwrap();
    assert!(child.wait().unwrap().success());
    let from_stdin: Value = serde_json::from_str(&out).unwrap();
    let from_file = json_of(&ok(&["swf", "stats", p(&path), "--json"]));
    assert_eq!(from_stdin["jobs"], from_file["jobs"]);
    assert_eq!(from_stdin["utilization"], from_file["utilization"]);
}

/// CTC's header writes `MaxNodes: 338 (batch partition; 512 total)`: the
/// statistics read 338, with a note naming the file, the line, the key and the value.
#[test]
fn stats_reads_a_header_with_free_text() {
    let path = trace("CTC-SP2-1996-3.1-cln.swf.gz");
    let out = ok(&["swf", "stats", p(&path)]);
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.contains("machine processors: 338 (header 338,"), "{text}");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains(
            "CTC-SP2-1996-3.1-cln.swf.gz:16: header MaxNodes: \"338 (batch partition; 512 total)\" read as 338"
        ),
        "{stderr}"
    );
}

#[test]
fn bad_lines_strict_and_lenient() {
    let bad = fixture("not_a_number.swf");
    let err = failing(&["swf", "stats", p(&bad)]);
    assert!(
        err.contains("not_a_number.swf:3: field 5 (allocated processors): \"abc\" is not a number"),
        "{err}"
    );
    let s = json_of(&ok(&["swf", "stats", p(&bad), "--json", "--lenient"]));
    assert_eq!(
        (s["jobs"].as_u64(), s["bad_lines"].as_u64(), s["skipped"].as_u64()),
        (Some(2), Some(1), Some(1))
    );
    let cat = run(&["swf", "cat", p(&bad), "--lenient"]);
    assert!(cat.status.success());
    assert!(String::from_utf8_lossy(&cat.stderr).contains("skipped 1 bad line"));
    assert!(failing(&["swf", "cat", p(&fixture("field_count.swf"))]).contains("found 15"));
}

#[test]
fn convert_applies_the_rules_and_writes_batsim_json() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("w.json");
    let rules = fixture("rules.swf");
    let err = failing(&["swf", "convert", p(&rules), "-o", p(&out)]);
    assert!(
        err.contains("job 9 needs 16 processors but the machine has 8 (pass --clip 8"),
        "{err}"
    );

    ok(&[
        "swf",
        "convert",
        p(&rules),
        "-o",
        p(&out),
        "--clip",
        "8",
        "--walltime-factor",
        "2",
        "--quiet",
    ]);
    let w = read_json(&out);
    assert_eq!(w["nb_res"], 8);
    let jobs = w["jobs"].as_array().unwrap();
    let ids: Vec<u64> = jobs.iter().map(|j| j["id"].as_u64().unwrap()).collect();
    assert_eq!(ids, vec![1, 2, 3, 8, 9]);
    assert_eq!(
        (jobs[0]["walltime"].as_f64(), jobs[0]["res"].as_u64()),
        (Some(600.0), Some(4))
    );
    assert_eq!(jobs[4]["res"], 8);
    for j in jobs {
        assert_eq!(j["kind"], "hpc");
        let profile = &w["profiles"][j["profile"].as_str().unwrap()];
        assert_eq!(profile["type"], "delay");
    }
    assert_eq!(
        w["profiles"][jobs[3]["profile"].as_str().unwrap()]["delay"],
        12.25
    );

    // --procs sets the machine size; nothing is too wide on 16 processors.
    ok(&["swf", "convert", p(&rules), "-o", p(&out), "--procs", "16"]);
    let w = read_json(&out);
    assert_eq!(w["nb_res"], 16);
    assert_eq!(w["jobs"][4]["res"], 16);
}

/// `swf inject` merges cloud jobs into an SWF trace's HPC jobs: sorted, with
/// ids of their own and the asked shape; the same seed writes the same
/// bytes; a second injection keeps the first one's jobs; run times may be
/// drawn from a distribution; missing flags and too-wide jobs are refused.
#[test]
fn inject_merges_cloud_jobs() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("mixed.json");
    ok(&mixed_inject(&out, "0.1w", &[]));
    injected_cloud_jobs_are_sorted_numbered_after_the_hpc_ones_and_shaped(&read_json(&out));
    // Same seed, same bytes; --from/--to choose the span.
    let again = dir.path().join("again.json");
    ok(&mixed_inject(&again, "0.1w", &[]));
    assert_eq!(std::fs::read(&out).unwrap(), std::fs::read(&again).unwrap());
    ok(&mixed_inject(&again, "0.1w", &["--from", "100", "--to", "200"]));
    let cloud = cloud_submits(&read_json(&again));
    assert_eq!(cloud, (10..=20).map(|t| f64::from(t) * 10.0).collect::<Vec<_>>());
    injecting_again_keeps_the_old_cloud_jobs_and_the_hpc_span(&again, &dir.path().join("twice.json"));
    a_run_time_distribution_is_drawn_per_job_within_its_bounds(&again);
    let err = failing(&rules_inject(&out, &[]));
    assert!(
        err.contains("--walltime"),
        "missing required flags are named: {err}"
    );
    let too_wide = ["--cloud-procs", "16", "--walltime", "180", "--slack", "2"];
    let err = failing(&rules_inject(&out, &too_wide));
    assert!(err.contains("do not fit the 8-processor machine"), "{err}");
}

/// `swf inject` of the rules fixture into `out`, clipped to 8 processors,
/// a cloud job every 10 s, then `extra`.
fn rules_inject(out: &Path, extra: &[&str]) -> Vec<String> {
    let rules = fixture("rules.swf");
    let base = [
        "swf",
        "inject",
        p(&rules),
        "-o",
        p(out),
        "--clip",
        "8",
        "--interval",
        "10",
    ];
    base.iter().chain(extra).map(|arg| arg.to_string()).collect()
}

/// [`rules_inject`] of cloud jobs of 1, 2 or 4 processors (half, 30 % and
/// 20 % of them), 180 s walltime, slack 2, run time `runtime`, seed 3; then
/// `extra`.
fn mixed_inject(out: &Path, runtime: &str, extra: &[&str]) -> Vec<String> {
    let cloud = [
        "--cloud-procs",
        "1:0.5,2:0.3,4:0.2",
        "--walltime",
        "180",
        "--slack",
        "2",
        "--runtime",
        runtime,
        "--seed",
        "3",
    ];
    rules_inject(out, &[&cloud[..], extra].concat())
}

/// The rules fixture's HPC submits span 0 .. 70 s: cloud jobs at 0, 10, …,
/// 70, merged sorted by submit time, with ids after the HPC ids, all ids
/// unique, each of the asked walltime, SLO, width and run time (0.1 w).
fn injected_cloud_jobs_are_sorted_numbered_after_the_hpc_ones_and_shaped(w: &Value) {
    let jobs = w["jobs"].as_array().unwrap();
    let cloud: Vec<&Value> = jobs.iter().filter(|j| j["kind"] == "cloud").collect();
    assert_eq!(cloud.len(), 8);
    assert_eq!(jobs.len(), 5 + 8);
    let subtimes: Vec<f64> = jobs.iter().map(|j| j["subtime"].as_f64().unwrap()).collect();
    assert!(
        subtimes.windows(2).all(|p| p[0] <= p[1]),
        "sorted by subtime: {subtimes:?}"
    );
    let mut ids: Vec<u64> = jobs.iter().map(|j| j["id"].as_u64().unwrap()).collect();
    assert!(
        cloud.iter().all(|j| j["id"].as_u64().unwrap() > 9),
        "cloud ids after HPC ids"
    );
    ids.sort();
    ids.dedup();
    assert_eq!(ids.len(), jobs.len(), "unique ids");
    for j in &cloud {
        assert_eq!(
            (j["walltime"].as_f64(), j["slo"].as_f64()),
            (Some(180.0), Some(360.0))
        );
        assert!([1, 2, 4].contains(&j["res"].as_u64().unwrap()));
        assert_eq!(w["profiles"][j["profile"].as_str().unwrap()]["delay"], 18);
    }
}

/// Injecting into `with_cloud` (which already has cloud jobs at 100 .. 200
/// s), into `twice`: the default span is still the HPC jobs' (0 .. 70 s),
/// not stretched by the old cloud jobs, which are kept.
fn injecting_again_keeps_the_old_cloud_jobs_and_the_hpc_span(with_cloud: &Path, twice: &Path) {
    ok(&[
        "swf",
        "inject",
        p(with_cloud),
        "-o",
        p(twice),
        "--interval",
        "10",
        "--cloud-procs",
        "1",
        "--walltime",
        "180",
    ]);
    let mut cloud = cloud_submits(&read_json(twice));
    cloud.sort_by(f64::total_cmp);
    let mut expected: Vec<f64> = (0..=7).chain(10..=20).map(|t| f64::from(t) * 10.0).collect();
    expected.sort_by(f64::total_cmp);
    assert_eq!(
        cloud, expected,
        "8 new cloud jobs over the HPC span, the 11 old ones kept"
    );
}

/// A run-time distribution (into `out`): drawn per job from the seed, within
/// its bounds (0.1 and 0.5 of the 180 s walltime).
fn a_run_time_distribution_is_drawn_per_job_within_its_bounds(out: &Path) {
    ok(&mixed_inject(out, "uniform:0.1w:0.5w", &[]));
    let w = read_json(out);
    let delays: Vec<f64> = w["jobs"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|j| j["kind"] == "cloud")
        .map(|j| {
            w["profiles"][j["profile"].as_str().unwrap()]["delay"]
                .as_f64()
                .unwrap()
        })
        .collect();
    assert_eq!(delays.len(), 8);
    assert!(delays.iter().all(|d| (18.0..=90.0).contains(d)), "{delays:?}");
    assert!(
        delays.windows(2).any(|p| p[0] != p[1]),
        "run times are drawn: {delays:?}"
    );
}

/// `--alpha`: the thesis's reconciled walltime wt^c × α on every injected
/// job, its SLO and run time from wt^c; a JSON cloud job's `alpha` is applied
/// when read and gone once written back (`swf convert`), as Batsim needs.
#[test]
fn alpha_reconciles_injected_and_workload_walltimes() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("alpha.json");
    let inject = |alpha: &str| {
        let alpha = format!("--alpha={alpha}");
        run(&rules_inject(
            &out,
            &[
                "--cloud-procs",
                "1",
                "--walltime",
                "180",
                "--slack",
                "2",
                "--runtime",
                "0.1w",
                &alpha,
            ],
        ))
    };
    assert!(inject("0.5").status.success());
    let w = read_json(&out);
    let cloud: Vec<&Value> = w["jobs"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|j| j["kind"] == "cloud")
        .collect();
    assert_eq!(cloud.len(), 8);
    for j in &cloud {
        assert_eq!(
            (j["walltime"].as_f64(), j["slo"].as_f64()),
            (Some(90.0), Some(360.0))
        );
        assert_eq!(w["profiles"][j["profile"].as_str().unwrap()]["delay"], 18);
        assert!(j.get("alpha").is_none());
    }
    for bad in ["0", "-2", "nan"] {
        let output = inject(bad);
        assert!(!output.status.success(), "--alpha {bad}");
        assert!(String::from_utf8_lossy(&output.stderr).contains("--alpha"));
    }

    let with_alpha = dir.path().join("with-alpha.json");
    std::fs::write(
        &with_alpha,
        r#"{"nb_res": 4, "jobs": [
            {"id": 1, "subtime": 0, "walltime": 100, "res": 2, "profile": "d", "kind": "hpc"},
            {"id": 2, "subtime": 5, "walltime": 100, "res": 1, "profile": "d", "kind": "cloud", "slo": 300, "alpha": 1.5}
        ], "profiles": {"d": {"type": "delay", "delay": 40}}}"#,
    )
    .unwrap();
    let converted = dir.path().join("converted.json");
    ok(&["swf", "convert", p(&with_alpha), "-o", p(&converted)]);
    let w = read_json(&converted);
    assert_eq!(w["jobs"][1]["walltime"], 150);
    assert_eq!(w["jobs"][1]["slo"], 300);
    assert!(w["jobs"][1].get("alpha").is_none());
    assert_eq!(w["jobs"][0]["walltime"], 100);

    std::fs::write(
        &with_alpha,
        r#"{"nb_res": 4, "jobs": [
            {"id": 3, "subtime": 0, "walltime": 100, "res": 1, "profile": "d", "kind": "cloud", "alpha": 0}
        ], "profiles": {"d": {"type": "delay", "delay": 40}}}"#,
    )
    .unwrap();
    let err = failing(&["swf", "stats", p(&with_alpha)]);
    assert!(
        err.contains("job 3: job.alpha: expected a finite number > 0"),
        "{err}"
    );
}

#[test]
fn cat_normalises_and_round_trips() {
    let dir = tempfile::tempdir().unwrap();
    let kth = trace("KTH-SP2-1996-2.1-cln.swf.gz");
    let first = ok(&["swf", "cat", p(&kth)]).stdout;
    let normal = dir.path().join("kth.swf");
    std::fs::write(&normal, &first).unwrap();
    let second = ok(&["swf", "cat", p(&normal)]).stdout;
    assert_eq!(first, second, "cat of cat is the same");
    let text = String::from_utf8(first).unwrap();
    assert!(text.starts_with("; Version: 2.2\n"), "{}", &text[..200]);
    assert!(text.contains("; MaxProcs: 100\n"));
    let a = json_of(&ok(&["swf", "stats", p(&kth), "--json"]));
    let b = json_of(&ok(&["swf", "stats", p(&normal), "--json"]));
    assert_eq!(a["jobs"], b["jobs"]);
    assert_eq!(a["utilization"], b["utilization"]);
}

#[test]
fn bench_swf_prints_metrics() {
    let out = ok(&["bench", "swf", "--records", "20000"]);
    let text = String::from_utf8(out.stdout).unwrap();
    let line = text
        .lines()
        .find(|l| l.starts_with("METRIC:swf_parse_records_per_second:"))
        .unwrap_or_else(|| panic!("no parse metric in:\n{text}"));
    let fields: Vec<&str> = line.split(':').collect();
    assert_eq!(fields.len(), 4);
    assert!(fields[2].parse::<f64>().unwrap() > 0.0);
    assert_eq!(fields[3], "records/s");
}

#[test]
fn stats_reads_batsim_workloads_too() {
    let w10 = shared_dir().join("batsim/workload10.json");
    let s = json_of(&ok(&["swf", "stats", p(&w10), "--json"]));
    assert_eq!(
        (s["jobs"].as_u64(), s["skipped"].as_u64(), s["max_procs"].as_u64()),
        (Some(10), Some(0), Some(16))
    );
    assert_eq!(
        (s["first_submit"].as_f64(), s["last_submit"].as_f64()),
        (Some(0.0), Some(60.0))
    );
    // Σ delay × res = 400+400+240+20+320+10+180+150+120+100 = 1940; / (16 × 60)
    let u = s["utilization"].as_f64().unwrap();
    assert!((u - 1940.0 / 960.0).abs() < 1e-9, "{u}");
}

/// Values the engine cannot take and repeated job numbers are errors naming
/// the file, the line and the field with its allowed range (before: a
/// "time went backwards" or "job id appears twice" from the simulation, with
/// no line, and `--lenient` could not skip them; a submit time of 1e30 became
/// `inf`); `--lenient` skips each such line, counted by reason. A truncated
/// gzip file is an error naming the file.
#[test]
fn out_of_range_values_and_repeated_job_numbers_name_file_line_and_field() {
    let dir = interstice_tests::scratch_dir("swf_cli", "ranges");
    let good = "1 0 0 100 2 -1 -1 2 100 -1 1 1 1 1 1 -1 -1 -1\n";
    let cases = [
        (
            "negative.swf",
            "2 -50 0 100 2 -1 -1 2 100 -1 1 1 1 1 1 -1 -1 -1\n",
            "field 2 (submit time): -50",
            "out_of_range",
        ),
        (
            "huge.swf",
            "2 1e30 0 100 2 -1 -1 2 100 -1 1 1 1 1 1 -1 -1 -1\n",
            "field 2 (submit time)",
            "out_of_range",
        ),
        (
            "zero_walltime.swf",
            "2 5 0 100 2 -1 -1 2 0.0000001 -1 1 1 1 1 1 -1 -1 -1\n",
            "field 9 (requested time)",
            "out_of_range",
        ),
        (
            "repeated.swf",
            "1 5 0 100 2 -1 -1 2 100 -1 1 1 1 1 1 -1 -1 -1\n",
            "job number 1 was already used at line 1",
            "duplicate_id",
        ),
    ];
    for (name, second, message, reason) in cases {
        let path = dir.join(name);
        std::fs::write(&path, format!("{good}{second}")).unwrap();
        let path = p(&path);
        let err = failing(&["swf", "stats", path]);
        assert!(err.contains(&format!("{name}:2: {message}")), "{err}");
        assert!(err.contains("--lenient") && !err.contains("panicked"), "{err}");
        let replayed = failing(&easy_replay(path, &[], &dir.join(format!("bad-{name}"))));
        assert!(replayed.contains(&format!("{name}:2:")), "{replayed}");

        let stats = json_of(&ok(&["swf", "stats", "--json", "--lenient", "--quiet", path]));
        assert_eq!(
            (
                stats["jobs"].as_u64(),
                stats[format!("skipped_{reason}")].as_u64()
            ),
            (Some(1), Some(1)),
            "{stats}"
        );
        let out = dir.join(format!("out-{name}"));
        ok(&easy_replay(path, &["--lenient"], &out));
        let summary = read_json(&out.join("summary.json"));
        assert_eq!(
            summary["run"]["extraction"]["skipped_by_reason"][reason], 1,
            "{summary}"
        );
        assert_eq!(summary["jobs"], 1, "{summary}");
    }

    let kth = std::fs::read(trace("KTH-SP2-1996-2.1-cln.swf.gz")).unwrap();
    let truncated = dir.join("truncated.swf.gz");
    std::fs::write(&truncated, &kth[..kth.len() / 2]).unwrap();
    for command in [&["swf", "stats"][..], &["swf", "cat"][..]] {
        let mut args = command.to_vec();
        args.push(p(&truncated));
        let err = failing(&args);
        assert!(err.contains("truncated.swf.gz"), "{args:?}: {err}");
    }
}

/// The same checks for Batsim workload JSON: a value out of range or a
/// repeated id names the job; `--lenient` skips it, counted by reason.
#[test]
fn batsim_json_values_are_range_checked_and_ids_unique() {
    let dir = interstice_tests::scratch_dir("swf_cli", "json_ranges");
    let path = dir.join("w.json");
    std::fs::write(
        &path,
        r#"{"nb_res": 4, "jobs": [
            {"id": 1, "subtime": 0, "walltime": 100, "res": 1, "profile": "d"},
            {"id": 2, "subtime": -5, "walltime": 100, "res": 1, "profile": "d"},
            {"id": 1, "subtime": 3, "walltime": 100, "res": 1, "profile": "d"}],
          "profiles": {"d": {"type": "delay", "delay": 10}}}"#,
    )
    .unwrap();
    let err = failing(&["swf", "stats", p(&path)]);
    assert!(
        err.contains("w.json: job 2: subtime -5 is outside its allowed range"),
        "{err}"
    );
    let stats = json_of(&ok(&["swf", "stats", "--json", "--lenient", "--quiet", p(&path)]));
    assert_eq!(
        (
            stats["jobs"].as_u64(),
            stats["skipped_out_of_range"].as_u64(),
            stats["skipped_duplicate_id"].as_u64()
        ),
        (Some(1), Some(1), Some(1)),
        "{stats}"
    );
}

/// Injection options beyond the engine's time range are refused up front
/// (before: `--from 1e30` aborted the process, SIGABRT).
#[test]
fn injection_times_beyond_the_time_range_are_refused() {
    let kth = trace("KTH-SP2-1996-2.1-cln.swf.gz");
    let out = interstice_tests::scratch_dir("swf_cli", "inject_range").join("w.json");
    for (flag, value) in [("--from", "1e30"), ("--to", "-5"), ("--interval", "1e30")] {
        let mut args = vec![
            "swf",
            "inject",
            p(&kth),
            "--cloud-procs",
            "1",
            "--walltime",
            "60",
            "--slack",
            "2",
            "-o",
            p(&out),
        ];
        if flag != "--interval" {
            args.extend(["--interval", "100"]);
        }
        args.extend([flag, value]);
        let output = run(&args);
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert_eq!(output.status.code(), Some(2), "{flag} {value}: {stderr}");
        assert!(stderr.contains(flag) && stderr.contains(value), "{stderr}");
    }
}

/// One meaning per flag name: in `swf inject` `--procs` is the machine (as in
/// every command) and `--cloud-procs` the cloud jobs' width. The old
/// spellings (`--procs H` for the width, `--machine-procs M`) are refused
/// with the new names, never reinterpreted.
#[test]
fn inject_procs_is_the_machine_and_old_spellings_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("w.json");
    let with = |extra: &[&str]| rules_inject(&out, &[&["--walltime", "180"][..], extra].concat());
    ok(&with(&["--cloud-procs", "1,2", "--procs", "16"]));
    assert_eq!(read_json(&out)["nb_res"], 16, "--procs is the machine");
    for (old, says) in [
        (&["--procs", "2"][..], "needs --cloud-procs H"),
        (
            &["--procs", "1,2,4"],
            "the cloud jobs' width (a count, a list or weights) is --cloud-procs",
        ),
        (
            &["--cloud-procs", "1", "--machine-procs", "16"],
            "--machine-procs is now --procs",
        ),
    ] {
        let err = failing(&with(old));
        assert!(err.contains(says), "{old:?}: {err}");
    }
}

/// Exit statuses per class (README, "Command-line conventions"): 2 usage, 4 a
/// bad input file, 5 an output that cannot be written.
#[test]
fn exit_statuses_tell_usage_input_and_output_errors_apart() {
    let dir = tempfile::tempdir().unwrap();
    let bad = dir.path().join("bad.swf");
    std::fs::write(
        &bad,
        "1 0 0 100 2 -1 -1 2 100 -1 1 1 1 1 1 -1 -1 -1\n2 -50 0 100 2 -1 -1 2 100 -1 1 1 1 1 1 -1 -1 -1\n",
    )
    .unwrap();
    let status = |args: &[&str]| {
        let out = run(args);
        (
            out.status.code(),
            String::from_utf8_lossy(&out.stderr).into_owned(),
        )
    };
    let (code, stderr) = status(&["swf", "stats", p(&bad)]);
    assert_eq!(code, Some(4), "bad input: {stderr}");
    let rules = fixture("rules.swf");
    let out = dir.path().join("w.json");
    let (code, stderr) = status(&[
        "swf",
        "inject",
        p(&rules),
        "-o",
        p(&out),
        "--interval",
        "10",
        "--walltime",
        "60",
    ]);
    assert_eq!(code, Some(2), "usage (no --cloud-procs): {stderr}");
    let (code, stderr) = status(&[
        "swf",
        "convert",
        p(&rules),
        "-o",
        "/nonexistent/dir/w.json",
        "--procs",
        "16",
    ]);
    assert_eq!(code, Some(5), "output: {stderr}");
}

/// `swf synth` writes the thesis-size month as an SWF trace that the readers
/// take back as written: the asked size, machine and load, the same bytes for
/// the same seed, other bytes for another; a bad load is refused.
#[test]
fn synth_writes_the_month_it_is_asked_for() {
    let dir = tempfile::tempdir().unwrap();
    let (a, b, c) = (
        dir.path().join("a.swf"),
        dir.path().join("b.swf"),
        dir.path().join("c.swf"),
    );
    let synth = |out: &Path, extra: &[&str]| {
        let mut args = vec![
            "swf",
            "synth",
            "-o",
            p(out),
            "--procs",
            "512",
            "--jobs",
            "2000",
            "--duration",
            "10d",
        ];
        args.extend_from_slice(extra);
        ok(&args);
    };
    synth(&a, &[]);
    synth(&b, &[]);
    synth(&c, &["--seed", "3"]);
    assert_eq!(
        std::fs::read(&a).unwrap(),
        std::fs::read(&b).unwrap(),
        "same seed, same trace"
    );
    assert_ne!(
        std::fs::read(&a).unwrap(),
        std::fs::read(&c).unwrap(),
        "another seed, another trace"
    );
    let stats = json_of(&ok(&["swf", "stats", "--json", p(&a)]));
    assert_eq!(stats["jobs"], 2000, "{stats}");
    assert_eq!(stats["skipped"], 0, "{stats}");
    assert_eq!(stats["header_max_procs"], 512, "{stats}");
    assert!(stats["observed_max_procs"].as_f64().unwrap() <= 512.0, "{stats}");
    let load = stats["utilization"].as_f64().unwrap();
    assert!((load - 0.38).abs() < 0.01, "offered load {load}");
    assert!(stats["span"].as_f64().unwrap() <= 10.0 * 86_400.0, "{stats}");
    let err = failing(&["swf", "synth", "-o", p(&a), "--utilization", "1.5"]);
    assert!(err.contains("--utilization") && err.contains("(0, 1]"), "{err}");
}
