//! `interstice replay --datacenter`: the shipped example (two clusters from
//! the shared traces and a cloud platform), F^J' against a fixed cluster,
//! and clear errors on bad files.

use interstice_tests::{assert_failure_mentions, assert_success, repo_root, scratch_dir, shared_dir};
use serde_json::Value;
use std::path::Path;
use std::process::{Command, Output};

fn replay(args: &[&str]) -> Output {
    Command::new(interstice_tests::interstice_bin())
        .current_dir(repo_root())
        .arg("replay")
        .args(args)
        .output()
        .expect("run interstice")
}

fn summary(dir: &Path) -> Value {
    interstice_tests::read_summary(dir)
}

fn count(value: &Value, path: &[&str]) -> u64 {
    let mut v = value;
    for key in path {
        v = &v[key];
    }
    v.as_u64()
        .unwrap_or_else(|| panic!("{path:?} is not a count in {value}"))
}

#[test]
fn the_shipped_example_replays_two_clusters_and_a_cloud_platform() {
    let out = scratch_dir("datacenter-cli", "example");
    let output = replay(&[
        "--datacenter",
        "examples/datacenter.yaml",
        "--out",
        out.to_str().unwrap(),
    ]);
    assert_success(&output);
    let summary = summary(&out);
    let schedulers = summary["schedulers"].as_object().unwrap();
    let names: Vec<&str> = schedulers.keys().map(String::as_str).collect();
    assert_eq!(names, vec!["cloud", "kth", "nasa"]);
    assert_eq!(schedulers["cloud"]["role"], "cloud");
    assert!(count(&summary, &["schedulers", "kth", "summary", "hpc_jobs"]) > 2_000);
    let net = &summary["petri_net"];
    assert_eq!(net["conserves_tokens"], true);
    assert_eq!(count(net, &["entered"]), count(net, &["finished"]));
    let dc = &summary["datacenter"];
    let accepted = count(dc, &["accepted"]);
    assert!(accepted > 80_000, "a cloud job every 30 s for 30 days: {dc}");
    assert_eq!(count(net, &["transitions", "T0"]), accepted);
    assert!(
        count(&summary, &["migrations"]) > 0,
        "evictions lead to migrations: {dc}"
    );
    assert_eq!(count(&summary, &["migrations"]), count(dc, &["migrations"]));
    // One jobs.csv row per attempt: every scheduler's own work, every
    // routed job's first attempt and every resubmission.
    let text = std::fs::read_to_string(out.join("jobs.csv")).unwrap();
    let mut lines = text.lines();
    assert!(lines.next().unwrap().ends_with(",kind,slo,predicted_completion,predicted_violation,predicted_probability,violated,evictions,evicted_runs,scheduler,attempt,job_violated"));
    let rows: Vec<Vec<&str>> = lines.map(|l| l.split(',').collect()).collect();
    let direct: u64 = schedulers.values().map(|s| count(s, &["direct"])).sum();
    let resubmitted = count(dc, &["migrations"]) + count(dc, &["resubmissions_in_place"]);
    assert_eq!(
        rows.len() as u64,
        direct + accepted + count(dc, &["refused"]) + resubmitted
    );
    let second_attempts = rows.iter().filter(|r| r[26] == "2").count() as u64;
    assert!(second_attempts > 0 && second_attempts <= resubmitted);
    let violated = rows.iter().filter(|r| r[27] == "1").count() as u64;
    assert_eq!(violated, count(dc, &["violations"]));
    // HPC work never waits for cloud work (hpc-first): the clusters' HPC
    // makespans are those of the same replay with every cloud job elsewhere.
    let fixed = scratch_dir("datacenter-cli", "example-cloud");
    assert_success(&replay(&[
        "--datacenter",
        "examples/datacenter.yaml",
        "--route",
        "cloud",
        "--out",
        fixed.to_str().unwrap(),
        "--no-jobs-csv",
    ]));
    let fixed = self::summary(&fixed);
    for name in ["kth", "nasa"] {
        assert_eq!(
            summary["schedulers"][name]["summary"]["hpc_makespan"],
            fixed["schedulers"][name]["summary"]["hpc_makespan"]
        );
    }
    assert_eq!(count(&fixed, &["schedulers", "kth", "sent"]), 0);
    assert!(
        count(dc, &["violations"]) < count(&fixed, &["datacenter", "violations"]),
        "F^J' beats sending every job to the cloud platform"
    );
}

#[test]
fn f_j_prime_beats_a_fixed_cluster_on_the_shared_traces() {
    let dir = scratch_dir("datacenter-cli", "fixed");
    let data = shared_dir().join("data");
    let file = dir.join("dc.yaml");
    std::fs::write(
        &file,
        format!(
            "refresh: 30\nschedulers:\n  \
             - {{name: kth, role: hpc, trace: {kth}, until: 432000, policy: conservative, conv: 20}}\n  \
             - {{name: nasa, role: hpc, trace: {nasa}, until: 432000, policy: easy, conv: 32}}\n\
             streams:\n  - {{interval: 20, procs: '1,2,4', walltime: 180, runtime: 'uniform:18:90', slack: 2}}\n",
            kth = data.join("KTH-SP2-1996-2.1-cln.swf.gz").display(),
            nasa = data.join("NASA-iPSC-1993-3.1-cln.swf.gz").display(),
        ),
    )
    .unwrap();
    let mut violations = Vec::new();
    for route in ["best", "kth", "nasa"] {
        let out = dir.join(route);
        let output = replay(&[
            "--datacenter",
            file.to_str().unwrap(),
            "--route",
            route,
            "--out",
            out.to_str().unwrap(),
            "--quiet",
        ]);
        assert_success(&output);
        let summary = summary(&out);
        assert_eq!(summary["datacenter"]["settings"]["routing"], route);
        violations.push(count(&summary, &["datacenter", "violations"]));
    }
    assert!(
        violations[0] < violations[1] && violations[0] < violations[2],
        "violations best/kth/nasa: {violations:?}"
    );
}

#[test]
fn bad_files_are_refused_with_the_file_line_and_key() {
    let dir = scratch_dir("datacenter-cli", "bad");
    let file = dir.join("dc.yaml");
    std::fs::write(
        &file,
        "schedulers:\n  - {name: a, role: hpc, trace: t.swf, policy: easy}\n  - {name: b, role: hpc, trace: t.swf, polcy: easy}\n",
    )
    .unwrap();
    let out = dir.join("out");
    let output = replay(&[
        "--datacenter",
        file.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
    ]);
    assert_failure_mentions(&output, &[&format!("{}:3:", file.display()), "polcy"]);
    std::fs::write(
        &file,
        "schedulers:\n  - {name: a, role: hpc, trace: t.swf, policy: easy}\n",
    )
    .unwrap();
    let output = replay(&[
        "--datacenter",
        file.to_str().unwrap(),
        "--route",
        "b",
        "--out",
        out.to_str().unwrap(),
    ]);
    assert_failure_mentions(&output, &["--route b"]);
    let output = replay(&[
        "--datacenter",
        file.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
    ]);
    assert_failure_mentions(&output, &["scheduler a", "t.swf"]);
    // A workload and a data center do not mix.
    let output = replay(&[
        "x.swf",
        "--datacenter",
        file.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
    ]);
    assert!(!output.status.success());
}

/// The shipped example with service classes, every job sent to the cloud
/// platform (which evicts by class priority): each class's report is in
/// `summary.json`, every accepted job in one class, every eviction in the
/// class that suffered it, bronze far more than gold; the same platform
/// evicting the holders of the processors its plan names evicts more, and
/// not by class. An eviction policy on a scheduler that cannot choose its
/// victims is bad input naming it.
#[test]
fn a_data_center_with_classes_evicts_by_policy_and_reports_each_class() {
    let out = scratch_dir("datacenter-cli", "classes");
    let run = |file: &Path, out: &Path| {
        let output = replay(&[
            "--datacenter",
            file.to_str().unwrap(),
            "--route",
            "cloud",
            "--no-jobs-csv",
            "--out",
            out.to_str().unwrap(),
        ]);
        assert_success(&output);
        summary(out)
    };
    let example = repo_root().join("examples/datacenter-classes.yaml");
    let ranked = run(&example, &out.join("priority"));
    let classes = ranked["classes"].as_array().expect("a classes array");
    let names: Vec<&str> = classes.iter().map(|c| c["name"].as_str().unwrap()).collect();
    assert_eq!(names, ["gold", "silver", "bronze"]);
    let dc = &ranked["datacenter"];
    let total = |key: &str| classes.iter().map(|c| c[key].as_u64().unwrap()).sum::<u64>();
    assert_eq!(total("requests"), count(dc, &["accepted"]));
    assert_eq!(total("preemptions"), count(dc, &["evictions"]));
    let evicted = |c: usize| classes[c]["preemptions"].as_u64().unwrap();
    assert!(evicted(2) > 2 * evicted(0), "bronze gives way first: {classes:?}");
    assert_eq!(dc["settings"]["evictions"][2], "priority");
    // The same platform without an eviction policy.
    let text: String = std::fs::read_to_string(&example)
        .unwrap()
        .replace("../../shared", shared_dir().to_str().unwrap())
        .lines()
        .filter(|line| !line.trim_start().starts_with("eviction:"))
        .map(|line| format!("{line}\n"))
        .collect();
    let holders_file = out.join("holders.yaml");
    std::fs::write(&holders_file, text).unwrap();
    let holders = run(&holders_file, &out.join("holders"));
    assert!(count(&holders, &["datacenter", "evictions"]) > count(dc, &["evictions"]));
    // kth (conservative) cannot choose its victims.
    let text = std::fs::read_to_string(&holders_file)
        .unwrap()
        .replace("    conv: 60\n", "    conv: 60\n    eviction: qos-driven\n");
    let bad = out.join("bad.yaml");
    std::fs::write(&bad, text).unwrap();
    let output = replay(&[
        "--datacenter",
        bad.to_str().unwrap(),
        "--out",
        out.join("bad").to_str().unwrap(),
    ]);
    assert_failure_mentions(&output, &["bad.yaml", "kth", "fcfs or easy"]);
    assert_eq!(output.status.code(), Some(4));
}

/// `F^r` from the file: "near" (no latency, busy with HPC work until 100 s)
/// and "far" (idle, a 10 s link of 1 MB/s, a 5 s monitoring delay); one
/// cloud job of 60 s with an SLO of 240 s arrives at 1 s. Without bytes far
/// gets it at 1 + 15 s and completes it at 76 s, before near's 160 s; with
/// 200 MB far's `F^r` is 10 + 200 + 5 = 215 s (completion 276 s, past the
/// deadline of 241 s), and near runs it from 100 s to 160 s.
#[test]
fn a_stream_s_bytes_and_a_scheduler_s_bandwidth_decide_where_a_job_goes() {
    let dir = scratch_dir("datacenter-cli", "latency");
    let swf = |name: &str, line: &str| std::fs::write(dir.join(name), format!("{line}\n")).unwrap();
    // job submit wait run procs cpu mem req_procs req_time req_mem status user group exe queue partition prev think
    swf("near.swf", "1 0 0 100 2 -1 -1 2 100 -1 1 1 1 -1 1 -1 -1 -1");
    swf("far.swf", "1 100000 0 1 1 -1 -1 1 1 -1 1 1 1 -1 1 -1 -1 -1");
    let run = |bytes: u64| {
        let file = dir.join(format!("dc-{bytes}.yaml"));
        std::fs::write(
            &file,
            format!(
                "schedulers:\n  - {{name: near, role: hpc, trace: near.swf, procs: 2, policy: easy}}\n  \
                 - {{name: far, role: hpc, trace: far.swf, procs: 2, policy: easy, latency: 10, bandwidth: 1e6, \
                 monitoring: 5}}\n\
                 streams:\n  - {{interval: 1000, procs: 1, walltime: 60, runtime: 'uniform:60:60', slack: 4, \
                 alpha: 1, from: 1, until: 10, bytes: {bytes}}}\n"
            ),
        )
        .unwrap();
        let out = dir.join(format!("out-{bytes}"));
        assert_success(&replay(&[
            "--datacenter",
            file.to_str().unwrap(),
            "--out",
            out.to_str().unwrap(),
        ]));
        // The cloud job's row (id 2): submission at its scheduler, start, end.
        let jobs = std::fs::read_to_string(out.join("jobs.csv")).unwrap();
        let row: Vec<String> = jobs
            .lines()
            .map(|l| l.split(',').map(String::from).collect::<Vec<_>>())
            .find(|r| r[0] == "2")
            .unwrap();
        let times = [&row[3], &row[8], &row[10]].map(|t| t.parse::<f64>().unwrap());
        (summary(&out), times)
    };
    let (small, times) = run(0);
    assert_eq!(times, [16.0, 16.0, 76.0]);
    assert_eq!(count(&small, &["datacenter", "accepted"]), 1, "{small}");
    assert_eq!(count(&small, &["schedulers", "far", "sent"]), 1);
    let (large, times) = run(200_000_000);
    assert_eq!(times, [1.0, 100.0, 160.0]);
    assert_eq!(count(&large, &["schedulers", "near", "sent"]), 1, "{large}");
    assert_eq!(count(&large, &["datacenter", "violations"]), 0);
    let settings = &large["datacenter"]["settings"];
    assert_eq!(settings["streams"][0]["bytes"], 200_000_000);
    assert_eq!(settings["latency"][1]["bandwidth"], 1e6);
    assert_eq!(settings["latency"][1]["monitoring"], 5.0);
}
