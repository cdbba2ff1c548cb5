//! The candidate rules and the submission-rate regulator end to end:
//! `interstice replay` and `interstice sweep` with `--candidate-*` and
//! `--regulate` on the first day of KTH SP2 (fast in debug builds).

use interstice_tests::{assert_success, column, kth_trace, read_summary, scratch_dir, sweep_csv};
use std::path::Path;
use std::process::{Command, Output};

/// The first day of KTH with a cloud job every 10 s of 1, 2 or 4 processors.
const COMMON: [&str; 11] = [
    "--procs",
    "100",
    "--policy",
    "easy",
    "--until",
    "86400",
    "--cloud-interval",
    "10",
    "--cloud-procs",
    "1,2,4",
    "--force",
];

fn interstice(command: &str, out: &Path, extra: &[&str]) -> Output {
    Command::new(interstice_tests::interstice_bin())
        .arg(command)
        .arg(kth_trace())
        .args(COMMON)
        .arg("--out")
        .arg(out)
        .args(extra)
        .output()
        .expect("run interstice")
}

#[test]
fn replay_refuses_wide_jobs_and_regulates_and_says_so_in_the_summary() {
    let plain = scratch_dir("admission-rules", "plain");
    assert_success(&interstice("replay", &plain, &[]));
    let plain_summary = read_summary(&plain);
    // Without the flags, nothing new is written (a run keeps its bytes).
    assert!(
        plain_summary["cloud"].get("rejected_regulated").is_none(),
        "{plain_summary}"
    );
    assert!(plain_summary["config"].get("regulate").is_none());
    assert_eq!(plain_summary["cloud"]["rejected"], 0);

    let ruled = scratch_dir("admission-rules", "ruled");
    let output = interstice(
        "replay",
        &ruled,
        &["--candidate-max-width", "2", "--regulate", "10m:0.5"],
    );
    assert_success(&output);
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(stdout.contains("not candidates (--candidate-*)"), "{stdout}");
    let summary = read_summary(&ruled);
    let cloud = &summary["cloud"];
    let count = |key: &str| {
        cloud[key]
            .as_u64()
            .unwrap_or_else(|| panic!("cloud.{key}: {cloud}"))
    };
    assert!(
        count("rejected_not_candidate") > 0 && count("rejected_regulated") > 0,
        "{cloud}"
    );
    assert_eq!(
        count("rejected"),
        count("rejected_not_candidate") + count("rejected_regulated"),
        "admit-all refuses nothing else"
    );
    assert_eq!(count("jobs"), plain_summary["cloud"]["jobs"].as_u64().unwrap());
    assert_eq!(summary["config"]["candidates"]["max_width"], 2);
    assert_eq!(summary["config"]["regulate"]["window"], 600.0);
    assert_eq!(summary["config"]["regulate"]["threshold"], 0.5);
    // HPC first: the HPC jobs' wait is what it was.
    assert_eq!(summary["hpc"]["mean_wait"], plain_summary["hpc"]["mean_wait"]);
    // No cloud job wider than 2 processors ran.
    let jobs = std::fs::read_to_string(ruled.join("jobs.csv")).unwrap();
    let mut lines = jobs.lines();
    let header: Vec<String> = lines.next().unwrap().split(',').map(String::from).collect();
    let (kind, width, state) = (
        column(&header, "kind"),
        column(&header, "requested_number_of_resources"),
        column(&header, "final_state"),
    );
    let wide_ran = lines
        .map(|line| line.split(',').collect::<Vec<_>>())
        .filter(|row| row[kind] == "cloud" && row[state] != "REJECTED")
        .any(|row| row[width].parse::<u32>().unwrap() > 2);
    assert!(!wide_ran, "a cloud job over the width limit ran");
}

#[test]
fn a_bad_regulation_names_the_flag_and_the_fix() {
    let out = scratch_dir("admission-rules", "bad");
    let output = interstice("replay", &out, &["--regulate", "1h"]);
    assert!(!output.status.success());
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains("--regulate") && stderr.contains("WINDOW:THRESHOLD"),
        "{stderr}"
    );
}

#[test]
fn sweep_takes_the_flags_and_matches_the_replay() {
    let out = scratch_dir("admission-rules", "sweep");
    let flags = ["--regulate", "10m:0.5", "--quiet"];
    assert_success(&interstice("sweep", &out, &flags));
    let settings: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("sweep.json")).unwrap()).unwrap();
    assert_eq!(settings["regulate"]["window"], 600.0, "{settings}");
    let (header, rows) = sweep_csv(&out);
    let rejected = column(&header, "rejected");
    let run = rows
        .iter()
        .find(|row| row[rejected] != "0")
        .expect("a run with cloud jobs refuses some");
    let replay = scratch_dir("admission-rules", "sweep-replay");
    assert_success(&interstice("replay", &replay, &flags[..2]));
    assert_eq!(
        run[rejected],
        read_summary(&replay)["cloud"]["rejected"].to_string(),
        "the sweep's row is the replay's run"
    );
}
