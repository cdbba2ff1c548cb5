//! What a sweep writes while it runs when stderr is not a terminal (a batch
//! job's log): a line at each tenth of the simulations, not one per
//! simulation, then its summary on stdout.

use interstice_tests::{assert_success, interstice_bin, kth_trace, scratch_dir};
use std::process::Command;

#[test]
fn a_logged_sweep_writes_a_line_per_tenth_not_per_simulation() {
    let out = scratch_dir("sweep_logs", "tenths").join("sweep");
    let slacks: Vec<String> = (0..30)
        .map(|i| format!("{}", 1.25 + f64::from(i) * 0.25))
        .collect();
    let output = Command::new(interstice_bin())
        .arg("sweep")
        .arg(kth_trace())
        .args(["--procs", "100", "--policy", "easy", "--until", "3600"])
        .args(["--cloud-interval", "600", "--slack", &slacks.join(",")])
        .arg("--out")
        .arg(&out)
        .output()
        .expect("run interstice sweep");
    assert_success(&output);
    let stderr = String::from_utf8_lossy(&output.stderr);
    let progress: Vec<&str> = stderr.lines().filter(|line| line.starts_with('[')).collect();
    // 31 simulations (30 runs and the no-cloud baseline): one line per tenth
    // crossed, and the last; more only if a tenth took over 30 s.
    assert!(
        (2..=11).contains(&progress.len()),
        "{} progress lines:\n{stderr}",
        progress.len()
    );
    assert!(progress.last().unwrap().starts_with("[31/31]"), "{stderr}");
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(stdout.contains("swept 30 runs"), "{stdout}");
}
