//! The request traces from the command line: `interstice qos generate`
//! (reproducible samples, the parameters echoed as a usable `--params`
//! file) and `interstice qos convert-google` (a hand-written task_events
//! part, plain and gzip, into the CSV format; a wrong file refused with
//! exit 4). Each command runs in well under a second.

use interstice_tests::{assert_failure_mentions, assert_success, repo_root, scratch_dir};
use std::io::Write;
use std::path::Path;
use std::process::{Command, Output};

fn interstice(args: &[&str]) -> Output {
    Command::new(interstice_tests::interstice_bin())
        .current_dir(repo_root())
        .args(args)
        .output()
        .expect("run interstice")
}

fn read(dir: &Path, file: &str) -> String {
    std::fs::read_to_string(dir.join(file)).unwrap_or_else(|e| panic!("{file}: {e}"))
}

#[test]
fn generate_is_reproducible_and_echoes_its_parameters() {
    let dir = scratch_dir("qos_trace_cli", "generate");
    let (a, b, c) = (dir.join("a"), dir.join("b"), dir.join("c"));
    let run = |out: &Path, extra: &[&str]| {
        let mut args = vec![
            "qos",
            "generate",
            "--seed",
            "5",
            "--samples",
            "2",
            "-o",
            out.to_str().unwrap(),
        ];
        args.extend_from_slice(extra);
        interstice(&args)
    };
    assert_success(&run(&a, &[]));
    assert_success(&run(&b, &[]));
    for file in [
        "sample-01.csv",
        "sample-02.csv",
        "hosts-01.csv",
        "hosts-02.csv",
        "params.yaml",
    ] {
        assert_eq!(
            read(&a, file),
            read(&b, file),
            "{file} differs between two runs of one seed"
        );
    }
    let first = read(&a, "sample-01.csv");
    assert!(first.starts_with("submit,duration,cpu,memory,instances,class,user,constraints\n"));
    assert_ne!(first, read(&a, "sample-02.csv"), "sample 2 has its own seed");
    assert!(read(&a, "hosts-01.csv").starts_with("cpu,memory\n"));
    // params.yaml is a --params file giving the same samples.
    let params = a.join("params.yaml");
    assert_success(&run(&c, &["--params", params.to_str().unwrap()]));
    assert_eq!(read(&c, "sample-02.csv"), read(&a, "sample-02.csv"));
    // A non-empty directory needs --force.
    let again = run(&a, &[]);
    assert_eq!(
        again.status.code(),
        Some(2),
        "{}",
        String::from_utf8_lossy(&again.stderr)
    );
}

#[test]
fn generate_refuses_bad_parameters() {
    let dir = scratch_dir("qos_trace_cli", "bad-params");
    let params = dir.join("study.yaml");
    std::fs::write(&params, "sample:\n  horizon_days: -1\n").unwrap();
    let out = interstice(&[
        "qos",
        "generate",
        "--seed",
        "1",
        "--params",
        params.to_str().unwrap(),
        "-o",
        dir.join("out").to_str().unwrap(),
    ]);
    assert_eq!(out.status.code(), Some(4));
    assert_failure_mentions(
        &out,
        &["study.yaml: sample.horizon_days: -1 must be a number > 0"],
    );
}

#[test]
fn convert_google_reads_plain_and_gzip_parts_in_order() {
    let dir = scratch_dir("qos_trace_cli", "convert");
    let parts = dir.join("task_events");
    std::fs::create_dir_all(&parts).unwrap();
    // Task (1,0), priority 9: submitted at 1 s, runs 2..12, evicted, resubmitted, runs 15..45.
    std::fs::write(
        parts.join("part-00000-of-00002.csv"),
        "1000000,,1,0,,0,u1,2,9,0.125,0.0625,0,0\n2000000,,1,0,,1,u1,2,9,,,,\n\
         3000000,,2,0,,0,u2,0,5,0.25,0.5,0,0\n12000000,,1,0,,2,u1,2,9,,,,\n",
    )
    .unwrap();
    let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    gz.write_all(b"13000000,,1,0,,0,u1,2,9,,,,\n15000000,,1,0,,1,u1,2,9,,,,\n45000000,,1,0,,4,u1,2,9,,,,\n")
        .unwrap();
    std::fs::write(parts.join("part-00001-of-00002.csv.gz"), gz.finish().unwrap()).unwrap();
    let machines = dir.join("machine_events.csv");
    std::fs::write(&machines, "0,1,0,p,0.5,0.5\n0,2,0,p,1,0.25\n").unwrap();
    let trace = dir.join("trace.csv");
    let out = interstice(&[
        "qos",
        "convert-google",
        "--task-events",
        parts.to_str().unwrap(),
        "--machine-events",
        machines.to_str().unwrap(),
        "-o",
        trace.to_str().unwrap(),
    ]);
    assert_success(&out);
    assert_eq!(
        read(&dir, "trace.csv"),
        "submit,duration,cpu,memory,instances,class,user,constraints\n1,40,0.125,0.0625,1,gold,u1,\n"
    );
    assert_eq!(read(&dir, "trace.hosts.csv"), "cpu,memory\n0.5,0.5\n1,0.25\n");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        stdout.contains("1 never ran"),
        "task (2,0) only pending: {stdout}"
    );

    let wrong = interstice(&[
        "qos",
        "convert-google",
        "--task-events",
        machines.to_str().unwrap(),
        "-o",
        trace.to_str().unwrap(),
    ]);
    assert_eq!(wrong.status.code(), Some(4));
    assert_failure_mentions(&wrong, &["machine_events.csv:1: column any: 6 columns"]);
}
