//! Output errors never panic: every command that prints ends quietly with
//! success when its stdout pipe is closed (`interstice … | head -1`) and
//! fails with an error naming stdout when stdout is a full device
//! (`> /dev/full`). The daemon client commands are covered in `daemon_cli`.

use interstice_tests::{assert_output_errors_handled, interstice_bin, kth_trace, scratch_dir};
use std::process::Command;

fn check(args: &[&str]) {
    assert_output_errors_handled(
        || {
            let mut command = Command::new(interstice_bin());
            command.args(args);
            command
        },
        &format!("interstice {}", args.join(" ")),
    );
}

#[test]
fn swf_commands() {
    let kth = kth_trace();
    let kth = kth.to_str().expect("UTF-8 path");
    check(&["swf", "stats", "--quiet", kth]);
    check(&["swf", "stats", "--quiet", "--json", kth]);
    check(&["swf", "cat", "--quiet", kth]);
    check(&["swf", "convert", "--quiet", kth, "-o", "-"]);
    check(&["bench", "swf", "--records", "1000"]);
}

#[test]
fn replay_benchmarks() {
    check(&[
        "bench",
        "hpc",
        "--jobs",
        "200",
        "--procs",
        "16",
        "--repeat",
        "1",
        "--policies",
        "easy",
    ]);
    check(&["bench", "measure", "--", "--version"]);
}

#[test]
fn replay_sweep_and_batsim_platform() {
    let kth = kth_trace();
    let kth = kth.to_str().expect("UTF-8 path");
    let dir = scratch_dir("output_errors", "replay");
    let replay_out = dir.join("replay");
    let sweep_out = dir.join("sweep");
    check(&[
        "replay",
        kth,
        "--procs",
        "100",
        "--policy",
        "easy",
        "--until",
        "86400",
        "--cloud-interval",
        "600",
        // The check runs the command twice into the same directory.
        "--force",
        "--out",
        replay_out.to_str().expect("UTF-8 path"),
    ]);
    check(&[
        "sweep",
        kth,
        "--procs",
        "100",
        "--policy",
        "easy",
        "--cloud-interval",
        "600",
        "--until",
        "86400",
        "--clip",
        // The check runs the command twice into the same directory.
        "--force",
        "--out",
        sweep_out.to_str().expect("UTF-8 path"),
    ]);
    check(&["batsim", "platform", "--hosts", "4"]);
}
