//! The exit statuses of `interstice` are the ones README.md's table and
//! `interstice --help` document, whichever command fails, and a failed run
//! leaves no `--out` directory it created behind. (`submit --wait`'s 8 and 9
//! and the unreachable daemon's 6 are tested with a daemon, in daemon_cli.rs.)

use interstice_tests::{interstice_bin, kth_trace, repo_root, scratch_dir};
use std::collections::BTreeSet;
use std::path::Path;
use std::process::{Command, Output};

fn interstice(args: &[&str]) -> Output {
    Command::new(interstice_bin())
        .args(args)
        .output()
        .expect("run interstice")
}

/// The statuses of README.md's "Exit status" table.
fn readme_statuses() -> BTreeSet<u8> {
    let readme = std::fs::read_to_string(repo_root().join("README.md")).unwrap();
    let table = readme
        .split("**Exit status**")
        .nth(1)
        .expect("README.md has an Exit status table");
    table
        .lines()
        .skip_while(|line| !line.trim_start().starts_with('|'))
        .take_while(|line| line.trim_start().starts_with('|'))
        .filter_map(|line| line.trim().trim_start_matches('|').split('|').next())
        .filter_map(|cell| cell.trim().parse().ok())
        .collect()
}

#[test]
fn the_readme_table_and_the_help_list_the_same_statuses() {
    let statuses = readme_statuses();
    assert_eq!(statuses, (0..=9).collect(), "README.md's table");
    let help = String::from_utf8(interstice(&["--help"]).stdout).unwrap();
    let help = help.split_whitespace().collect::<Vec<_>>().join(" ");
    for status in statuses.iter().skip(1) {
        assert!(
            help.contains(&format!(", {status} ")) || help.contains(&format!("success, {status} ")),
            "--help does not document status {status}:\n{help}"
        );
    }
}

/// `args` exits `status`, says `needle` on stderr, and leaves no `out`.
fn assert_exits(args: &[&str], status: i32, needle: &str, out: Option<&Path>) {
    let output = interstice(args);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(status), "{args:?}: {stderr}");
    assert!(stderr.contains(needle), "{args:?}: {needle:?} not in {stderr}");
    if let Some(out) = out {
        assert!(!out.exists(), "{args:?} left {}", out.display());
    }
}

#[test]
fn each_command_exits_with_the_documented_status() {
    let dir = scratch_dir("exit_codes", "documented");
    let out = dir.join("out");
    let out_text = out.to_str().unwrap();
    let missing = dir.join("no-such-trace.swf");
    let missing = missing.to_str().unwrap();
    let trace = kth_trace();
    let trace = trace.to_str().unwrap();
    // 2: a cloud job's shape without the interval that injects them.
    assert_exits(
        &[
            "replay",
            trace,
            "--procs",
            "100",
            "--policy",
            "easy",
            "--cloud-procs",
            "2",
            "--out",
            out_text,
        ],
        2,
        "--cloud-interval",
        Some(&out),
    );
    // 4: a missing input file, whichever command reads it.
    for args in [
        &["swf", "stats", missing][..],
        &[
            "swf",
            "convert",
            missing,
            "-o",
            dir.join("w.json").to_str().unwrap(),
        ],
        &[
            "replay", missing, "--procs", "10", "--policy", "easy", "--out", out_text,
        ],
        &["report", missing],
        &["sweep", "collect", missing],
    ] {
        assert_exits(args, 4, missing, Some(&out));
    }
    // 7: a sweep's cells not run yet (written as a job array, none ran).
    let sweep = dir.join("array");
    let written = interstice(&[
        "sweep",
        trace,
        "--policy",
        "easy",
        "--procs",
        "100",
        "--cloud-interval",
        "600",
        "--until",
        "3600",
        "--out",
        sweep.to_str().unwrap(),
        "--slurm-array",
    ]);
    assert!(
        written.status.success(),
        "{}",
        String::from_utf8_lossy(&written.stderr)
    );
    assert_exits(
        &["sweep", "collect", sweep.to_str().unwrap()],
        7,
        "have not finished",
        None,
    );
}

/// `args` fails within a few seconds (it used to hang on a FIFO, or read
/// `/dev/zero` until memory ran out); its exit status and stderr.
fn fails_fast(args: &[&str]) -> (Option<i32>, String) {
    let mut child = Command::new(interstice_bin())
        .args(args)
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("run interstice");
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(20);
    while child.try_wait().unwrap().is_none() {
        if std::time::Instant::now() > deadline {
            let _ = child.kill();
            panic!("{args:?} did not end within 20 s");
        }
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    let output = child.wait_with_output().unwrap();
    (
        output.status.code(),
        String::from_utf8_lossy(&output.stderr).into_owned(),
    )
}

/// One input rule for every file the CLI reads: a regular file only (a
/// FIFO, a device or a directory refused with the reason, at once), no
/// line without end, text inputs and counts bounded before anything is
/// allocated; never a panic or an abort.
#[test]
fn inputs_that_are_not_files_or_have_no_bound_are_refused_at_once() {
    let dir = scratch_dir("exit_codes", "inputs");
    let fifo = dir.join("fifo");
    assert!(Command::new("mkfifo").arg(&fifo).status().unwrap().success());
    let fifo = fifo.to_str().unwrap();
    let folder = dir.to_str().unwrap();
    let zeros = dir.join("zeros.swf.gz");
    {
        use std::io::Write;
        let mut gz = flate2::write::GzEncoder::new(
            std::fs::File::create(&zeros).unwrap(),
            flate2::Compression::fast(),
        );
        gz.write_all(&vec![0u8; 8 << 20]).unwrap();
        gz.finish().unwrap();
    }
    let zeros = zeros.to_str().unwrap();
    let big = dir.join("judgements.yaml");
    std::fs::write(
        &big,
        format!(
            "criteria: [a, b]\nmatrix: [[1, 1], [1, 1]]\n#{}\n",
            "x".repeat(2 << 20)
        ),
    )
    .unwrap();
    let big = big.to_str().unwrap();
    let out = dir.join("out");
    let out = out.to_str().unwrap();
    for (args, needle) in [
        (vec!["swf", "stats", "/dev/zero"], "a character device"),
        (vec!["swf", "stats", fifo], "a FIFO"),
        (
            vec!["replay", fifo, "--procs", "10", "--policy", "easy", "--out", out],
            "a FIFO",
        ),
        (
            vec![
                "replay", folder, "--procs", "10", "--policy", "easy", "--out", out,
            ],
            "a directory",
        ),
        (vec!["swf", "stats", zeros], "longer than"),
        (
            vec!["mcdm", "weights", "--judgements", "/dev/zero"],
            "a character device",
        ),
        (
            vec!["mcdm", "weights", "--judgements", big],
            "more than the 1048576",
        ),
    ] {
        let (status, stderr) = fails_fast(&args);
        assert_eq!(status, Some(4), "{args:?}: {stderr}");
        assert!(stderr.contains(needle), "{args:?}: {needle:?} not in {stderr}");
    }
    let (status, stderr) = fails_fast(&["mcdm", "fat-tree", "--k", "4000000"]);
    assert!(matches!(status, Some(2 | 4)), "{stderr}");
    assert!(
        stderr.contains("even k from 2 to 128") && !stderr.contains("panicked"),
        "{stderr}"
    );
}

/// `scripts/fuzz-cli.py`, a few hostile runs per subcommand (the note runs
/// it with more): no panic, no abort, no endless input read.
#[test]
fn hostile_arguments_to_every_subcommand_neither_panic_nor_abort() {
    let script = repo_root().join("scripts/fuzz-cli.py");
    let output = Command::new("python3")
        .arg(&script)
        .args([
            "--bin",
            interstice_bin().to_str().unwrap(),
            "--per-command",
            "6",
            "--seconds",
            "10",
        ])
        .output()
        .expect("run scripts/fuzz-cli.py");
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(
        output.status.success(),
        "{stdout}\n{}",
        String::from_utf8_lossy(&output.stderr)
    );
    assert!(stdout.contains(", 0 failed,"), "{stdout}");
}
