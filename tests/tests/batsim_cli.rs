//! End-to-end: the `interstice batsim` binary as Batsim's scheduler, driven
//! by `interstice batsim drive` (a tiny Batsim) in another process over
//! ZeroMQ; exit codes on SIMULATION_ENDS and on errors; the platform generator.

use interstice_tests::{interstice_bin, shared_dir};
use std::process::{Command, Output, Stdio};
use std::time::Duration;

fn text(output: &Output) -> String {
    format!(
        "stdout:\n{}\nstderr:\n{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    )
}

/// Start the scheduler, run the driver against it, return both outputs.
fn converse(scheduler_args: &[&str], driver_args: &[&str]) -> (Output, Output, tempfile::TempDir) {
    let dir = tempfile::tempdir().unwrap();
    let endpoint = format!("ipc://{}/sched.sock", dir.path().display());
    let scheduler = Command::new(interstice_bin())
        .args(["batsim", "--socket", &endpoint, "--timeout", "20"])
        .args(scheduler_args)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // The driver connects (and ZeroMQ retries) whether or not the bind happened yet.
    std::thread::sleep(Duration::from_millis(50));
    let driver = Command::new(interstice_bin())
        .args(["batsim", "drive", "--connect", &endpoint, "--timeout", "20"])
        .args(driver_args)
        .output()
        .unwrap();
    let scheduler = scheduler.wait_with_output().unwrap();
    (scheduler, driver, dir)
}

#[test]
fn the_scheduler_exits_zero_on_simulation_ends_and_writes_the_outputs() {
    let workload = shared_dir().join("batsim/workload10.json");
    let out = tempfile::tempdir().unwrap();
    let out_arg = out.path().to_str().unwrap().to_string();
    let (scheduler, driver, _dir) = converse(
        &["--policy", "easy", "--out", &out_arg],
        &[workload.to_str().unwrap()],
    );
    assert!(driver.status.success(), "driver failed\n{}", text(&driver));
    assert!(
        scheduler.status.success(),
        "scheduler failed\n{}",
        text(&scheduler)
    );
    let report = String::from_utf8_lossy(&driver.stdout);
    assert!(
        report.contains("executions: 10 (killed 0), rejected: 0"),
        "{report}"
    );
    let jobs = std::fs::read_to_string(out.path().join("jobs.csv")).unwrap();
    assert_eq!(jobs.lines().count(), 11, "header + 10 jobs\n{jobs}");
    let summary: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out.path().join("summary.json")).unwrap()).unwrap();
    assert!(summary.is_object());
    assert!(
        String::from_utf8_lossy(&scheduler.stdout).contains("messages: "),
        "{}",
        text(&scheduler)
    );
}

#[test]
fn a_bad_sched_config_fails_both_sides_with_a_clear_message() {
    let workload = shared_dir().join("batsim/workload10.json");
    let (scheduler, driver, _dir) = converse(
        &[],
        &[workload.to_str().unwrap(), "--sched-cfg", r#"{"policy": "sjf"}"#],
    );
    assert!(
        !scheduler.status.success(),
        "scheduler must fail\n{}",
        text(&scheduler)
    );
    let stderr = String::from_utf8_lossy(&scheduler.stderr);
    assert!(
        stderr.contains("message 0") && stderr.contains("unknown policy \"sjf\""),
        "{stderr}"
    );
    assert!(
        !driver.status.success(),
        "the driver is told, not left waiting\n{}",
        text(&driver)
    );
    assert!(
        String::from_utf8_lossy(&driver.stderr).contains("interstice error"),
        "{}",
        text(&driver)
    );
}

#[test]
fn a_scheduler_nobody_talks_to_times_out_with_a_non_zero_exit() {
    let dir = tempfile::tempdir().unwrap();
    let endpoint = format!("ipc://{}/sched.sock", dir.path().display());
    let output = Command::new(interstice_bin())
        .args([
            "batsim",
            "--policy",
            "fcfs",
            "--socket",
            &endpoint,
            "--timeout",
            "0.3",
        ])
        .output()
        .unwrap();
    assert!(!output.status.success());
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains("no message from Batsim") && stderr.contains("0.3 s"),
        "{stderr}"
    );
}

#[test]
fn platform_writes_the_recorded_cluster_files() {
    for (extra, file) in [
        (None, "cluster16.xml"),
        (Some("--no-latency"), "cluster16_nolat.xml"),
    ] {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("platform.xml");
        let mut command = Command::new(interstice_bin());
        command.args([
            "batsim",
            "platform",
            "--hosts",
            "16",
            "-o",
            path.to_str().unwrap(),
        ]);
        command.args(extra);
        let output = command.output().unwrap();
        assert!(output.status.success(), "{}", text(&output));
        let expected = std::fs::read_to_string(shared_dir().join("batsim").join(file)).unwrap();
        assert_eq!(std::fs::read_to_string(&path).unwrap(), expected, "{file}");
    }
    let output = Command::new(interstice_bin())
        .args(["batsim", "platform", "--hosts", "0"])
        .output()
        .unwrap();
    assert!(!output.status.success());
    assert!(String::from_utf8_lossy(&output.stderr).contains("at least one host"));
}

/// An unusable `--out` fails before the adapter answers Batsim (before: it
/// was found only when writing the results at the end of the simulation).
#[test]
fn an_unusable_out_directory_fails_before_the_conversation() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("a-file");
    std::fs::write(&file, "").unwrap();
    let out = file.join("results");
    let started = std::time::Instant::now();
    let output = Command::new(interstice_bin())
        .args([
            "batsim",
            "--policy",
            "easy",
            "--socket",
            "tcp://127.0.0.1:0",
            "--timeout",
            "20",
            "--out",
        ])
        .arg(&out)
        .stdin(Stdio::null())
        .output()
        .unwrap();
    let stderr = text(&output);
    assert!(!output.status.success(), "{stderr}");
    assert!(
        started.elapsed() < Duration::from_secs(10),
        "{:?}",
        started.elapsed()
    );
    assert!(
        stderr.contains("--out is not usable") && stderr.contains(&out.display().to_string()),
        "{stderr}"
    );
}

/// `--eviction` where processors are part of the HPC plan, or owner-share
/// without tenants: a usage error (exit 2) naming the flag, before the
/// scheduler listens.
#[test]
fn eviction_by_class_is_refused_where_it_cannot_apply_naming_the_flag() {
    for (flags, named) in [
        (
            &["--policy", "conservative", "--eviction", "priority"][..],
            "--eviction priority cannot go with --policy conservative",
        ),
        (
            &["--policy", "convergence", "--eviction", "qos-driven"][..],
            "--eviction qos-driven cannot go with --policy convergence",
        ),
        (
            &["--scheduling", "shared-queue", "--eviction", "priority"][..],
            "--eviction priority cannot go with --scheduling shared-queue",
        ),
        (
            &["--policy", "easy", "--eviction", "owner-share"][..],
            "--eviction owner-share orders victims by the tenants' shares",
        ),
    ] {
        let output = Command::new(interstice_bin())
            .args(["batsim", "--socket", "tcp://127.0.0.1:0", "--timeout", "5"])
            .args(flags)
            .stdin(Stdio::null())
            .output()
            .unwrap();
        assert_eq!(output.status.code(), Some(2), "{flags:?}\n{}", text(&output));
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert!(stderr.contains(named), "{flags:?}: {stderr}");
    }
    let dir = tempfile::tempdir().unwrap();
    let maintenance = dir.path().join("maintenance.txt");
    std::fs::write(&maintenance, "100 3600 0-1\n").unwrap();
    let output = Command::new(interstice_bin())
        .args(["batsim", "--socket", "tcp://127.0.0.1:0", "--timeout", "5"])
        .args(["--policy", "easy", "--eviction", "priority", "--maintenance"])
        .arg(&maintenance)
        .stdin(Stdio::null())
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(2), "{}", text(&output));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains("--eviction priority cannot go with --maintenance"),
        "{stderr}"
    );
}
