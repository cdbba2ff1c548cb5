//! `interstice replay` of an HPC-only SWF trace reads the trace on a thread
//! of its own while the run goes (`swf::streamed`): the same results as a
//! trace loaded whole, a trace out of submission order loaded whole after
//! all, and a bad line found once the run has started leaves no result
//! behind.

use interstice_tests::{assert_failure_mentions, assert_success, scratch_dir};
use std::fmt::Write as _;
use std::path::Path;
use std::process::{Command, Output};

/// Jobs of the generated traces: more than one batch of the reading thread
/// (2,048 jobs), so that the run is well under way when the last are read.
const JOBS: u64 = 6_000;

/// An SWF trace of `JOBS` jobs on 64 processors, in submission order,
/// with `line` (1-based among the records) replaced by `replacement`.
fn trace(replacement: Option<(u64, &str)>) -> String {
    let mut text = String::from("; MaxProcs: 64\n");
    for id in 1..=JOBS {
        if let Some((_, line)) = replacement.filter(|(at, _)| *at == id) {
            text.push_str(line);
            text.push('\n');
            continue;
        }
        let submit = id * 37;
        let procs = 1 + (id * 7919) % 48;
        let runtime = 60 + (id * 104_729) % 5_000;
        let requested = runtime + (id * 13) % 2_000;
        writeln!(
            text,
            "{id} {submit} -1 {runtime} {procs} -1 -1 {procs} {requested} -1 1 1 1 1 1 -1 -1 -1"
        )
        .unwrap();
    }
    text
}

fn replay(trace: &Path, out: &Path, extra: &[&str]) -> Output {
    Command::new(interstice_tests::interstice_bin())
        .arg("replay")
        .arg(trace)
        .args(["--policy", "easy", "--out"])
        .arg(out)
        .arg("--force")
        .args(extra)
        .output()
        .expect("run interstice")
}

/// `jobs.csv` and `summary.json` of a run, the summary without the
/// workload's file name.
fn results(out: &Path) -> (String, serde_json::Value) {
    let jobs = std::fs::read_to_string(out.join("jobs.csv")).unwrap();
    let mut summary = interstice_tests::read_summary(out);
    summary["run"]["workload"] = serde_json::Value::Null;
    (jobs, summary)
}

#[test]
fn a_trace_out_of_order_gives_what_the_same_jobs_in_order_give() {
    let dir = scratch_dir("replay-stream", "order");
    let sorted = dir.join("sorted.swf");
    std::fs::write(&sorted, trace(None)).unwrap();
    // Job 4,000 submitted before job 3,999: the trace is not in order
    // after the reading thread has handed over its first batches.
    let early = "4000 147000 -1 300 8 -1 -1 8 600 -1 1 1 1 1 1 -1 -1 -1";
    let text = trace(Some((4000, early)));
    let unsorted = dir.join("unsorted.swf");
    std::fs::write(&unsorted, &text).unwrap();
    // The same jobs, job 4,000 where its submission puts it.
    let mut lines: Vec<&str> = text.lines().collect();
    let at = lines.iter().position(|line| line.starts_with("4000 ")).unwrap();
    let moved = lines.remove(at);
    let before = lines
        .iter()
        .position(|line| line.split_whitespace().nth(1).and_then(|s| s.parse::<u64>().ok()) > Some(147_000))
        .unwrap();
    lines.insert(before, moved);
    let reordered = dir.join("reordered.swf");
    std::fs::write(&reordered, lines.join("\n") + "\n").unwrap();

    for (name, path) in [
        ("unsorted", &unsorted),
        ("reordered", &reordered),
        ("sorted", &sorted),
    ] {
        let output = replay(path, &dir.join(name), &[]);
        assert_success(&output);
    }
    let (unsorted_jobs, unsorted_summary) = results(&dir.join("unsorted"));
    let (reordered_jobs, reordered_summary) = results(&dir.join("reordered"));
    assert_eq!(unsorted_jobs.lines().count() as u64, JOBS + 1, "a row per job");
    assert_eq!(unsorted_jobs, reordered_jobs, "jobs.csv");
    assert_eq!(unsorted_summary, reordered_summary, "summary.json");
    // Job 4,000 moved: the sorted trace is another workload.
    let (sorted_jobs, _) = results(&dir.join("sorted"));
    assert_ne!(sorted_jobs, unsorted_jobs);
}

#[test]
fn a_bad_line_read_while_the_run_goes_leaves_no_result() {
    let dir = scratch_dir("replay-stream", "bad-line");
    let bad = dir.join("bad.swf");
    let record = "5500 203500 -1 oops 8 -1 -1 8 600 -1 1 1 1 1 1 -1 -1 -1";
    std::fs::write(&bad, trace(Some((5500, record)))).unwrap();
    let out = dir.join("out");
    let output = replay(&bad, &out, &[]);
    // Line 5,501: the header's line, then the records.
    assert_failure_mentions(&output, &["bad.swf:5501", "oops"]);
    assert!(!out.join("jobs.csv").exists(), "a partial jobs.csv was left");
    assert!(!out.join("summary.json").exists(), "a summary was written");

    // --lenient skips it, and says so in the summary.
    let output = replay(&bad, &out, &["--lenient"]);
    assert_success(&output);
    let (jobs, summary) = results(&out);
    assert_eq!(jobs.lines().count() as u64, JOBS, "a row per job but the bad one");
    assert_eq!(summary["run"]["extraction"]["skipped_by_reason"]["bad_lines"], 1);
}

/// The replay of `window` (`--from`/`--until` flags) of the sorted trace,
/// streamed from its file and loaded whole through stdin: `jobs.csv` (the
/// same for both) and its rows' earliest submission time.
fn streamed_and_loaded(name: &str, window: &[&str]) -> (String, f64) {
    let dir = scratch_dir("replay-stream", name);
    let sorted = dir.join("sorted.swf");
    std::fs::write(&sorted, trace(None)).unwrap();
    let loaded = dir.join("loaded");
    let mut child = Command::new(interstice_tests::interstice_bin())
        .args(["replay", "-", "--policy", "easy", "--force", "--out"])
        .arg(&loaded)
        .args(window)
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    std::io::Write::write_all(&mut child.stdin.take().unwrap(), trace(None).as_bytes()).unwrap();
    assert_success(&child.wait_with_output().unwrap());
    assert_success(&replay(&sorted, &dir.join("streamed"), window));
    let (loaded_jobs, loaded_summary) = results(&loaded);
    let (streamed_jobs, streamed_summary) = results(&dir.join("streamed"));
    assert_eq!(streamed_jobs, loaded_jobs);
    assert_eq!(streamed_summary, loaded_summary);
    let header: Vec<&str> = streamed_jobs.lines().next().unwrap().split(',').collect();
    let column = header.iter().position(|&name| name == "submission_time").unwrap();
    let first = streamed_jobs
        .lines()
        .skip(1)
        .map(|row| row.split(',').nth(column).unwrap().parse::<f64>().unwrap())
        .fold(f64::INFINITY, f64::min);
    (streamed_jobs, first)
}

#[test]
fn until_cuts_a_streamed_trace_as_a_loaded_one() {
    let (jobs, first) = streamed_and_loaded("until", &["--until", "100000"]);
    // Submissions every 37 s from 37 s: those before 37 + 100,000 s.
    assert_eq!(jobs.lines().count(), 1 + 2703);
    assert_eq!(first, 37.0);
}

#[test]
fn from_moves_the_window_and_the_run_starts_where_the_trace_did() {
    let (jobs, first) = streamed_and_loaded("from", &["--from", "50000", "--until", "100000"]);
    // Submissions in [37 + 50,000, 37 + 150,000): jobs 1,353 (50,061 s) to
    // 4,055, moved back by 50,000 s.
    assert_eq!(jobs.lines().count(), 1 + 2703);
    assert_eq!(first, 61.0);
}
