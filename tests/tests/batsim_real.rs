//! Conformance with the real Batsim 4.2.1 (SimGrid 3.32), built from its
//! release source by `.ci/run` (see [`real_batsim`]).
//!
//! Each run starts `interstice batsim` and the real `batsim` on a loopback
//! port, as a researcher would, and checks that
//! * both exit 0 (Batsim aborts on any invalid decision);
//! * the schedule in Batsim's own `_jobs.csv` is valid: every run on as many
//!   hosts as it asked for, within the platform, no host running two jobs;
//! * Interstice's `jobs.csv` and `summary.json` tell the same story as
//!   Batsim's `_jobs.csv`, job by job: names, profile, requested resources
//!   and time, success, final state, allocation, and times (equal up to
//!   SimGrid's clock drift on zero-latency platforms; up to the exchanges'
//!   latencies otherwise); every other Batsim row is an evicted run;
//! * on zero-latency platforms, `interstice replay` of the same workload
//!   takes the same decisions as the real Batsim run (start, end, allocation,
//!   final state of every job).
//!
//! Workloads: the shared Batsim workloads, and the first 3,000 jobs of both
//! shared SWF traces through `interstice swf convert`/`swf inject` (KTH with
//! requested times, NASA without: unlimited walltimes), with and without
//! cloud jobs (run times around their walltime: some killed at the walltime,
//! many evicted), statically or injected by the adapter through Batsim's
//! dynamic jobs, with and without `--enable-profile-reuse`.

use interstice_tests::{
    assert_success, interstice_bin, kth_trace, nasa_trace, real_batsim, scratch_dir, shared_dir,
};
use serde_json::Value;
use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, ExitStatus, Stdio};
use std::sync::OnceLock;
use std::time::{Duration, Instant};

const POLICIES: [&str; 4] = ["fcfs", "easy", "conservative", "convergence"];

/// Time tolerance on a zero-latency platform: SimGrid's clock drifts from
/// exact sums by a few microseconds over months of simulated time.
const DRIFT: f64 = 1e-4;
/// Time tolerance on a platform with latencies: each exchange costs simulated
/// time the scheduler never sees (0.6 ms on `cluster16.xml`).
const LATENCY: f64 = 0.1;

/// Cloud jobs of the KTH workloads: every 15 minutes, 1, 2 or 4 processors,
/// 600 s walltime, run times from 60 s to 900 s (a third are killed at their
/// walltime), in a 32-processor convergence area.
const CLOUD: [&str; 8] = [
    "--cloud-procs",
    "1,2,4",
    "--walltime",
    "600",
    "--slack",
    "2",
    "--runtime",
    "uniform:60:900",
];
const CLOUD_INTERVAL: &str = "900";
const AREA: &str = "32";

/// One CSV row by column name.
type Row = HashMap<String, String>;

fn read_csv(path: &Path) -> Vec<Row> {
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let mut lines = text.lines();
    let header: Vec<&str> = lines.next().expect("a header").split(',').collect();
    lines
        .map(|line| {
            let fields: Vec<&str> = line.split(',').collect();
            assert_eq!(fields.len(), header.len(), "{}: {line}", path.display());
            header
                .iter()
                .zip(fields)
                .map(|(k, v)| (k.to_string(), v.to_string()))
                .collect()
        })
        .collect()
}

fn time(row: &Row, field: &str) -> Option<f64> {
    let text = &row[field];
    (!text.is_empty()).then(|| text.parse().unwrap_or_else(|e| panic!("{field}={text}: {e}")))
}

fn key(row: &Row) -> (String, String) {
    (row["workload_name"].clone(), row["job_id"].clone())
}

fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .map(|a| a.port())
        .expect("a free loopback port")
}

fn interstice(args: &[&str]) {
    let output = Command::new(interstice_bin())
        .args(args)
        .output()
        .expect("run interstice");
    assert_success(&output);
}

/// Workloads and platforms made once per test process.
struct Inputs {
    kth: PathBuf,
    kth_cloud: PathBuf,
    nasa: PathBuf,
    kth_platform: PathBuf,
    kth_latency_platform: PathBuf,
    nasa_platform: PathBuf,
}

/// The first `jobs` jobs of an SWF trace, with its header.
fn head_of_trace(trace: &Path, jobs: usize, out: &Path) {
    let output = Command::new(interstice_bin())
        .args(["swf", "cat", trace.to_str().unwrap()])
        .output()
        .expect("run interstice swf cat");
    assert_success(&output);
    let text = String::from_utf8(output.stdout).expect("SWF is text");
    let mut kept = 0;
    let head: String = text
        .lines()
        .filter(|line| {
            if line.starts_with(';') {
                return true;
            }
            kept += 1;
            kept <= jobs
        })
        .map(|line| format!("{line}\n"))
        .collect();
    std::fs::write(out, head).expect("write the trace's head");
}

fn inputs() -> &'static Inputs {
    static INPUTS: OnceLock<Inputs> = OnceLock::new();
    INPUTS.get_or_init(|| {
        let dir = scratch_dir("batsim_real", "inputs");
        let path = |name: &str| dir.join(name);
        head_of_trace(&kth_trace(), 3000, &path("kth.swf"));
        head_of_trace(&nasa_trace(), 3000, &path("nasa.swf"));
        let s = |p: &Path| p.to_str().unwrap().to_string();
        interstice(&[
            "swf",
            "convert",
            &s(&path("kth.swf")),
            "-o",
            &s(&path("kth.json")),
            "--quiet",
        ]);
        interstice(&[
            "swf",
            "convert",
            &s(&path("nasa.swf")),
            "-o",
            &s(&path("nasa.json")),
            "--quiet",
        ]);
        // The cloud jobs carry service classes and tenants (`class`,
        // `tenant`): Batsim passes such fields through to the adapter.
        std::fs::write(
            path("classes.yaml"),
            "classes:\n  - { name: gold, slo: 1.0 }\n  - { name: \"bronze tier\", slo: 0.5 }\n",
        )
        .expect("write the class file");
        let mut inject = vec![
            "swf".to_string(),
            "inject".into(),
            s(&path("kth.swf")),
            "-o".into(),
            s(&path("kth_cloud.json")),
            "--interval".into(),
            CLOUD_INTERVAL.into(),
            "--qos".into(),
            s(&path("classes.yaml")),
            "--quiet".into(),
        ];
        inject.extend(CLOUD.iter().map(|a| a.to_string()));
        interstice(&inject.iter().map(String::as_str).collect::<Vec<_>>());
        let labelled = std::fs::read_to_string(path("kth_cloud.json")).expect("read the workload");
        assert!(
            labelled.contains(r#""class": "bronze tier""#) && labelled.contains(r#""tenant": "default""#)
        );
        for (name, hosts, latency) in [
            ("p100.xml", "100", false),
            ("p100lat.xml", "100", true),
            ("p128.xml", "128", false),
        ] {
            let mut args = vec!["batsim", "platform", "--hosts", hosts];
            if !latency {
                args.push("--no-latency");
            }
            let out = s(&path(name));
            args.extend(["-o", &out]);
            interstice(&args);
        }
        Inputs {
            kth: path("kth.json"),
            kth_cloud: path("kth_cloud.json"),
            nasa: path("nasa.json"),
            kth_platform: path("p100.xml"),
            kth_latency_platform: path("p100lat.xml"),
            nasa_platform: path("p128.xml"),
        }
    })
}

/// One simulation against the real Batsim.
struct Run<'a> {
    name: String,
    platform: &'a Path,
    workload: &'a Path,
    /// Hosts of the platform.
    hosts: u32,
    latency: bool,
    /// `interstice batsim` options besides the socket and `--out`.
    adapter: Vec<String>,
    /// Batsim options besides `-p -w -e -s`.
    batsim: Vec<&'static str>,
}

/// What a run left behind.
struct Outcome {
    dir: PathBuf,
    batsim: Vec<Row>,
    ours: Vec<Row>,
    summary: Value,
}

/// Wait for Batsim and the adapter. Batsim waits forever for an answer, so
/// when the adapter exits first (it failed) Batsim is stopped; both are
/// stopped after `DEADLINE`.
fn wait_for_both(batsim: &mut Child, adapter: &mut Child) -> (Option<ExitStatus>, Option<ExitStatus>) {
    const DEADLINE: Duration = Duration::from_secs(300);
    const GRACE: Duration = Duration::from_secs(5);
    let started = Instant::now();
    let mut adapter_done: Option<(ExitStatus, Instant)> = None;
    loop {
        if let Some(status) = batsim.try_wait().expect("wait for batsim") {
            let deadline = Instant::now() + GRACE;
            loop {
                if let Some(adapter_status) = adapter.try_wait().expect("wait for the adapter") {
                    return (Some(status), Some(adapter_status));
                }
                if Instant::now() > deadline {
                    let _ = adapter.kill();
                    let _ = adapter.wait();
                    return (Some(status), None);
                }
                std::thread::sleep(Duration::from_millis(20));
            }
        }
        if adapter_done.is_none() {
            if let Some(status) = adapter.try_wait().expect("wait for the adapter") {
                adapter_done = Some((status, Instant::now()));
            }
        }
        let give_up =
            started.elapsed() > DEADLINE || adapter_done.is_some_and(|(_, at)| at.elapsed() > GRACE);
        if give_up {
            let _ = batsim.kill();
            let _ = batsim.wait();
            let _ = adapter.kill();
            let _ = adapter.wait();
            return (None, adapter_done.map(|(status, _)| status));
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

fn simulate(run: &Run) -> Outcome {
    let dir = scratch_dir("batsim_real", &run.name);
    let endpoint = format!("tcp://127.0.0.1:{}", free_port());
    let out = dir.join("interstice");
    let adapter_log = dir.join("interstice.log");
    let mut adapter = Command::new(interstice_bin())
        .args([
            "batsim",
            "--socket",
            &endpoint,
            "--out",
            out.to_str().unwrap(),
            "--timeout",
            "300",
            "--quiet",
        ])
        .args(&run.adapter)
        .stdout(Stdio::null())
        .stderr(std::fs::File::create(&adapter_log).unwrap())
        .spawn()
        .expect("start interstice batsim");
    let batsim_log = dir.join("batsim.log");
    let mut batsim = Command::new(real_batsim())
        .args([
            "-p",
            run.platform.to_str().unwrap(),
            "-w",
            run.workload.to_str().unwrap(),
        ])
        .args(["-e", dir.join("b").to_str().unwrap(), "-s", &endpoint, "-q"])
        .args(&run.batsim)
        .stdout(Stdio::null())
        .stderr(std::fs::File::create(&batsim_log).unwrap())
        .spawn()
        .expect("start the real batsim");
    let (batsim_status, adapter_status) = wait_for_both(&mut batsim, &mut adapter);
    let logs = || {
        format!(
            "\n--- batsim\n{}\n--- interstice\n{}",
            std::fs::read_to_string(&batsim_log).unwrap_or_default(),
            std::fs::read_to_string(&adapter_log).unwrap_or_default()
        )
    };
    assert!(
        batsim_status.is_some_and(|s| s.success()),
        "{}: Batsim failed or hung ({batsim_status:?}){}",
        run.name,
        logs()
    );
    assert!(
        adapter_status.is_some_and(|s| s.success()),
        "{}: the adapter failed ({adapter_status:?}){}",
        run.name,
        logs()
    );
    let summary = std::fs::read_to_string(out.join("summary.json")).expect("summary.json");
    Outcome {
        batsim: read_csv(&dir.join("b_jobs.csv")),
        ours: read_csv(&out.join("jobs.csv")),
        summary: serde_json::from_str(&summary).expect("summary.json is JSON"),
        dir,
    }
}

/// Batsim's schedule is valid: each run on as many hosts as asked, inside
/// the platform, and no host runs two jobs at once.
fn check_schedule(name: &str, rows: &[Row], hosts: u32) {
    let mut by_host: BTreeMap<u32, Vec<(f64, f64, String)>> = BTreeMap::new();
    for row in rows {
        let (Some(start), Some(end)) = (time(row, "starting_time"), time(row, "finish_time")) else {
            continue;
        };
        let mut count = 0;
        for range in row["allocated_resources"].split(' ') {
            let (lo, hi) = range.split_once('-').unwrap_or((range, range));
            let (lo, hi): (u32, u32) = (lo.parse().unwrap(), hi.parse().unwrap());
            assert!(hi < hosts, "{name}: {:?} runs on host {hi} of {hosts}", key(row));
            for host in lo..=hi {
                by_host
                    .entry(host)
                    .or_default()
                    .push((start, end, row["job_id"].clone()));
                count += 1;
            }
        }
        assert_eq!(
            count.to_string(),
            row["requested_number_of_resources"],
            "{name}: {:?} got {count} hosts",
            key(row)
        );
    }
    for (host, mut runs) in by_host {
        runs.sort_by(|a, b| a.partial_cmp(b).unwrap());
        for pair in runs.windows(2) {
            assert!(
                pair[1].0 >= pair[0].1 - 1e-9,
                "{name}: host {host} runs {} and {} at once ({pair:?})",
                pair[0].2,
                pair[1].2
            );
        }
    }
}

/// Interstice's `jobs.csv` and `summary.json` against Batsim's `_jobs.csv`.
/// Returns the number of evictions.
fn check_outputs_agree(name: &str, outcome: &Outcome, tolerance: f64) -> u64 {
    let batsim: HashMap<(String, String), &Row> = outcome.batsim.iter().map(|r| (key(r), r)).collect();
    assert_eq!(
        batsim.len(),
        outcome.batsim.len(),
        "{name}: Batsim rows with one name"
    );
    let mut evictions = 0u64;
    for ours in &outcome.ours {
        let k = key(ours);
        let theirs = batsim.get(&k).unwrap_or_else(|| {
            panic!(
                "{name}: {k:?} is in our jobs.csv, not in Batsim's ({})",
                outcome.dir.display()
            )
        });
        let evicted: u64 = ours["evictions"].parse().unwrap();
        evictions += evicted;
        for field in [
            "profile",
            "requested_number_of_resources",
            "requested_time",
            "success",
            "final_state",
            "allocated_resources",
        ] {
            assert_eq!(ours[field], theirs[field], "{name}: {k:?} {field}");
        }
        let mut times = vec!["starting_time", "finish_time"];
        if evicted == 0 {
            // A resubmitted job's Batsim row has its resubmission time.
            times.push("submission_time");
        }
        for field in times {
            match (time(ours, field), time(theirs, field)) {
                (Some(a), Some(b)) => assert!(
                    (a - b).abs() <= tolerance,
                    "{name}: {k:?} {field}: ours {a}, Batsim's {b}"
                ),
                (a, b) => assert_eq!(a, b, "{name}: {k:?} {field}"),
            }
        }
    }
    let ours: std::collections::HashSet<_> = outcome.ours.iter().map(key).collect();
    let others: Vec<&&Row> = batsim
        .iter()
        .filter(|(k, _)| !ours.contains(*k))
        .map(|(_, r)| r)
        .collect();
    for row in &others {
        assert_eq!(
            row["final_state"],
            "COMPLETED_KILLED",
            "{name}: {:?} is only in Batsim's output",
            key(row)
        );
    }
    // Each eviction is a killed Batsim run: an earlier one of a resubmitted
    // job, or the job's own row when it was not resubmitted.
    let final_kills = outcome
        .ours
        .iter()
        .filter(|r| r["final_state"] == "COMPLETED_KILLED" && r["evictions"] != "0")
        .count() as u64;
    assert_eq!(
        others.len() as u64 + final_kills,
        evictions,
        "{name}: Batsim's evicted runs"
    );
    assert_eq!(
        outcome.summary["jobs"],
        outcome.ours.len(),
        "{name}: summary.json jobs"
    );
    assert_eq!(
        outcome.summary["evictions"], evictions,
        "{name}: summary.json evictions"
    );
    evictions
}

/// `interstice replay` of the same workload takes the same decisions as the
/// real Batsim run (zero-latency platform).
fn check_replay_agrees(name: &str, outcome: &Outcome, workload: &Path, hosts: u32, extra: &[&str]) {
    let out = outcome.dir.join("replay");
    let procs = hosts.to_string();
    let mut args = vec![
        "replay",
        workload.to_str().unwrap(),
        "--procs",
        &procs,
        "--out",
        out.to_str().unwrap(),
        "--quiet",
    ];
    args.extend(extra);
    interstice(&args);
    let batsim: HashMap<(String, String), &Row> = outcome.batsim.iter().map(|r| (key(r), r)).collect();
    let replay = read_csv(&out.join("jobs.csv"));
    assert!(!replay.is_empty());

    let workload_name = &outcome.batsim[0]["workload_name"];
    for ours in &replay {
        let k = (workload_name.clone(), ours["job_id"].clone());
        let theirs = batsim
            .get(&k)
            .unwrap_or_else(|| panic!("{name}: replayed job {k:?} not run by Batsim"));
        for field in ["final_state", "allocated_resources"] {
            assert_eq!(
                ours[field], theirs[field],
                "{name}: replay vs Batsim, {k:?} {field}"
            );
        }
        for field in ["starting_time", "finish_time"] {
            match (time(ours, field), time(theirs, field)) {
                (Some(a), Some(b)) => assert!(
                    (a - b).abs() <= DRIFT,
                    "{name}: replay vs Batsim, {k:?} {field}: {a} vs {b}"
                ),
                (a, b) => assert_eq!(a, b, "{name}: replay vs Batsim, {k:?} {field}"),
            }
        }
    }
}

fn count_state(rows: &[Row], state: &str) -> usize {
    rows.iter().filter(|r| r["final_state"] == state).count()
}

fn args(list: &[&str]) -> Vec<String> {
    list.iter().map(|a| a.to_string()).collect()
}

#[test]
fn shared_workloads_every_policy_latency_and_zero_latency() {
    let shared = shared_dir().join("batsim");
    for (platform, latency) in [("cluster16.xml", true), ("cluster16_nolat.xml", false)] {
        for workload in ["workload10.json", "test_walltime.json"] {
            for policy in POLICIES {
                let run = Run {
                    name: format!("{workload}-{platform}-{policy}"),
                    platform: &shared.join(platform),
                    workload: &shared.join(workload),
                    hosts: 16,
                    latency,
                    adapter: args(&["--policy", policy]),
                    batsim: vec![],
                };
                let outcome = simulate(&run);
                check_schedule(&run.name, &outcome.batsim, run.hosts);
                check_outputs_agree(&run.name, &outcome, if latency { LATENCY } else { DRIFT });
                if workload == "test_walltime.json" {
                    // 19 jobs killed at their walltime, the jobs without
                    // walltime (-1) run their whole delay.
                    assert_eq!(
                        count_state(&outcome.ours, "COMPLETED_WALLTIME_REACHED"),
                        19,
                        "{}",
                        run.name
                    );
                }
                // test_walltime.json runs parallel tasks whose run time only
                // SimGrid knows: the replay cannot play it.
                if !run.latency && workload == "workload10.json" {
                    check_replay_agrees(
                        &run.name,
                        &outcome,
                        run.workload,
                        run.hosts,
                        &["--policy", policy],
                    );
                }
            }
        }
    }
}

#[test]
fn kth_every_policy_agrees_with_replay() {
    let inputs = inputs();
    for policy in POLICIES {
        let run = Run {
            name: format!("kth-{policy}"),
            platform: &inputs.kth_platform,
            workload: &inputs.kth,
            hosts: 100,
            latency: false,
            adapter: args(&["--policy", policy]),
            batsim: vec![],
        };
        let outcome = simulate(&run);
        assert_eq!(outcome.ours.len(), outcome.batsim.len());
        check_schedule(&run.name, &outcome.batsim, run.hosts);
        check_outputs_agree(&run.name, &outcome, DRIFT);
        check_replay_agrees(
            &run.name,
            &outcome,
            run.workload,
            run.hosts,
            &["--policy", policy],
        );
    }
}

#[test]
fn nasa_without_requested_times_runs_unlimited_and_agrees_with_replay() {
    let inputs = inputs();
    for policy in POLICIES {
        let run = Run {
            name: format!("nasa-{policy}"),
            platform: &inputs.nasa_platform,
            workload: &inputs.nasa,
            hosts: 128,
            latency: false,
            adapter: args(&["--policy", policy]),
            batsim: vec![],
        };
        let outcome = simulate(&run);
        check_schedule(&run.name, &outcome.batsim, run.hosts);
        check_outputs_agree(&run.name, &outcome, DRIFT);
        // No requested time: no walltime, every job succeeds.
        assert_eq!(
            count_state(&outcome.batsim, "COMPLETED_SUCCESSFULLY"),
            outcome.batsim.len(),
            "{}",
            run.name
        );
        assert!(
            outcome.ours.iter().all(|r| r["requested_time"] == "-1.000000"),
            "{}",
            run.name
        );
        check_replay_agrees(
            &run.name,
            &outcome,
            run.workload,
            run.hosts,
            &["--policy", policy],
        );
    }
}

/// KTH with its cloud jobs through the real Batsim under `engine` (the
/// adapter's flags): Batsim's schedule is valid, the adapter's outputs agree
/// with Batsim's and with `interstice replay` under the same flags (no
/// resubmissions: an eviction is final without dynamic jobs). Returns the
/// outcome and the evictions.
fn kth_cloud_agrees(inputs: &Inputs, name: &str, engine: &[&str]) -> (Outcome, u64) {
    let run = Run {
        name: name.to_string(),
        platform: &inputs.kth_platform,
        workload: &inputs.kth_cloud,
        hosts: 100,
        latency: false,
        adapter: args(engine),
        batsim: vec![],
    };
    let outcome = simulate(&run);
    check_schedule(&run.name, &outcome.batsim, run.hosts);
    let evictions = check_outputs_agree(&run.name, &outcome, DRIFT);
    let mut replay = engine.to_vec();
    replay.extend(["--max-resubmissions", "0"]);
    check_replay_agrees(&run.name, &outcome, run.workload, run.hosts, &replay);
    (outcome, evictions)
}

#[test]
fn kth_with_cloud_jobs_evictions_and_walltime_kills_every_policy() {
    let inputs = inputs();
    for policy in POLICIES {
        let name = format!("kth-cloud-{policy}");
        let (outcome, evictions) = kth_cloud_agrees(inputs, &name, &["--policy", policy, "--conv", AREA]);
        assert!(evictions > 0, "{name}: no eviction");
        // Without dynamic jobs an eviction is final: one Batsim run per job.
        assert_eq!(outcome.ours.len(), outcome.batsim.len(), "{name}");
        assert!(
            count_state(&outcome.ours, "COMPLETED_WALLTIME_REACHED") > 0,
            "{name}: no walltime kill"
        );
    }
}

/// `--placement topsis` against the real Batsim: the adapter places cloud
/// jobs by TOPSIS as `interstice replay` does (the same decisions on a
/// zero-latency platform), and Batsim runs them where they are placed.
#[test]
fn kth_with_cloud_jobs_placed_by_topsis_agrees_with_replay() {
    let inputs = inputs();
    for policy in ["easy", "conservative"] {
        let engine = ["--policy", policy, "--conv", AREA, "--placement", "topsis"];
        kth_cloud_agrees(inputs, &format!("kth-cloud-topsis-{policy}"), &engine);
    }
}

/// The thesis's one queue against the real Batsim: nothing is evicted, and
/// the decisions are those of `interstice replay` (thesis predictor on one).
#[test]
fn kth_with_cloud_jobs_in_one_queue_never_evicts() {
    let inputs = inputs();
    for (policy, predictor) in [("easy", "exact"), ("convergence", "thesis")] {
        let engine = [
            "--policy",
            policy,
            "--conv",
            AREA,
            "--scheduling",
            "shared-queue",
            "--predictor",
            predictor,
        ];
        let name = format!("kth-cloud-shared-{policy}-{predictor}");
        let (_, evictions) = kth_cloud_agrees(inputs, &name, &engine);
        assert_eq!(evictions, 0, "{name}: shared-queue evicted");
    }
}

#[test]
fn kth_with_cloud_jobs_on_a_latency_platform() {
    let inputs = inputs();
    for policy in ["easy", "convergence"] {
        let run = Run {
            name: format!("kth-cloud-latency-{policy}"),
            platform: &inputs.kth_latency_platform,
            workload: &inputs.kth_cloud,
            hosts: 100,
            latency: true,
            adapter: args(&["--policy", policy, "--conv", AREA]),
            batsim: vec![],
        };
        let outcome = simulate(&run);
        check_schedule(&run.name, &outcome.batsim, run.hosts);
        check_outputs_agree(&run.name, &outcome, LATENCY);
    }
}

#[test]
fn dynamic_injection_with_and_without_profile_reuse_resubmits_evicted_jobs() {
    let inputs = inputs();
    // The same cloud jobs as `CLOUD`, injected by the adapter.
    let injection = [
        "--inject-cloud",
        "--cloud-interval",
        CLOUD_INTERVAL,
        "--conv",
        AREA,
        "--cloud-procs",
        "1,2,4",
        "--cloud-walltime",
        "600",
        "--slack",
        "2",
        "--cloud-runtime",
        "uniform:60:900",
    ];
    for (reuse, batsim) in [
        ("no-reuse", vec!["--enable-dynamic-jobs"]),
        ("reuse", vec!["--enable-dynamic-jobs", "--enable-profile-reuse"]),
    ] {
        for policy in ["easy", "conservative"] {
            let mut adapter = args(&["--policy", policy]);
            adapter.extend(args(&injection));
            let run = Run {
                name: format!("kth-dynamic-{reuse}-{policy}"),
                platform: &inputs.kth_platform,
                workload: &inputs.kth,
                hosts: 100,
                latency: false,
                adapter,
                batsim: batsim.clone(),
            };
            let outcome = simulate(&run);
            check_schedule(&run.name, &outcome.batsim, run.hosts);
            let evictions = check_outputs_agree(&run.name, &outcome, DRIFT);
            assert!(evictions > 0, "{}: no resubmitted eviction", run.name);
            let injected = outcome
                .ours
                .iter()
                .filter(|r| r["workload_name"] == "interstice")
                .count();
            assert!(injected > 1000, "{}: {injected} injected jobs", run.name);
            let resubmitted = outcome.ours.iter().filter(|r| r["job_id"].contains("-r")).count();
            assert!(resubmitted > 0, "{}: no resubmitted job ran", run.name);
        }
    }
}

#[test]
fn the_adapter_benchmark_runs_against_the_real_batsim() {
    let shared = shared_dir().join("batsim");
    let batsim = real_batsim();
    let output = Command::new(interstice_bin())
        .args([
            "batsim",
            "bench",
            "--policy",
            "conservative",
            "--batsim",
            batsim.to_str().unwrap(),
        ])
        .args(["--workload", shared.join("workload10.json").to_str().unwrap()])
        .args(["--platform", shared.join("cluster16_nolat.xml").to_str().unwrap()])
        .output()
        .expect("run interstice batsim bench");
    assert_success(&output);
    let text = String::from_utf8_lossy(&output.stdout);
    let metric = |name: &str| -> f64 {
        let prefix = format!("METRIC:{name}:");
        let line = text
            .lines()
            .find(|l| l.starts_with(&prefix))
            .unwrap_or_else(|| panic!("no {name} in\n{text}"));
        line[prefix.len()..].split(':').next().unwrap().parse().unwrap()
    };
    assert!(metric("batsim_messages") >= 10.0, "{text}");
    assert!(metric("batsim_adapter_cpu_per_message") > 0.0, "{text}");
    assert!(metric("batsim_real_cpu_total") > 0.0, "{text}");
    let share = metric("batsim_adapter_cpu_share");
    assert!(share > 0.0 && share < 100.0, "{text}");
}

/// `--eviction` against the real Batsim: the workload's `class` and
/// `tenant` labels reach the adapter through Batsim, and an HPC job that
/// needs processors held by cloud jobs kills bronze (w0!1), where the
/// plan's holders would kill gold (w0!2, on the processors the plan gives
/// the HPC job). Four hosts, all in the area: bronze starts at 0 on hosts
/// 2-3, gold at 1 on hosts 0-1, the HPC job arrives at 10 for two hosts.
#[test]
fn eviction_by_service_class_kills_bronze_where_the_plan_would_kill_gold() {
    let dir = scratch_dir("batsim_real", "classes-inputs");
    let cloud = |id: u32, subtime: u32, class: &str, tenant: &str| {
        serde_json::json!({"id": id, "subtime": subtime, "walltime": 2000, "res": 2, "profile": "long",
                           "kind": "cloud", "slo": 5000, "class": class, "tenant": tenant})
    };
    let workload = serde_json::json!({
        "nb_res": 4,
        "jobs": [
            cloud(1, 0, "bronze", "a"),
            cloud(2, 1, "gold", "b"),
            {"id": 3, "subtime": 10, "walltime": 200, "res": 2, "profile": "hpc"},
        ],
        "profiles": {
            "long": {"type": "delay", "delay": 1000},
            "hpc": {"type": "delay", "delay": 100},
        },
    });
    let workload_path = dir.join("classes.json");
    std::fs::write(&workload_path, workload.to_string()).expect("write the workload");
    // Tenant `a` is entitled to nothing, `b` to the whole area.
    let classes = dir.join("classes.yaml");
    std::fs::write(
        &classes,
        "tenants:\n  - { name: a, share: 0 }\n  - { name: b, share: 4 }\n",
    )
    .expect("write the class file");
    let platform = dir.join("p4.xml");
    interstice(&[
        "batsim",
        "platform",
        "--hosts",
        "4",
        "--no-latency",
        "-o",
        platform.to_str().unwrap(),
    ]);
    let qos = classes.to_str().unwrap();
    for (name, eviction, killed) in [
        ("by-plan", &[][..], "2"),
        ("priority", &["--eviction", "priority", "--qos", qos][..], "1"),
        ("qos-driven", &["--eviction", "qos-driven", "--qos", qos][..], "1"),
        (
            "owner-share",
            &["--eviction", "owner-share", "--qos", qos][..],
            "1",
        ),
    ] {
        let mut adapter = args(&["--policy", "fcfs"]);
        adapter.extend(args(eviction));
        let run = Run {
            name: format!("classes-{name}"),
            platform: &platform,
            workload: &workload_path,
            hosts: 4,
            latency: false,
            adapter,
            batsim: vec![],
        };
        let outcome = simulate(&run);
        check_schedule(&run.name, &outcome.batsim, run.hosts);
        assert_eq!(check_outputs_agree(&run.name, &outcome, DRIFT), 1, "{name}");
        let states: BTreeMap<&str, &str> = outcome
            .batsim
            .iter()
            .map(|r| (r["job_id"].as_str(), r["final_state"].as_str()))
            .collect();
        let expected: BTreeMap<&str, &str> = ["1", "2", "3"]
            .into_iter()
            .map(|id| {
                let state = if id == killed {
                    "COMPLETED_KILLED"
                } else {
                    "COMPLETED_SUCCESSFULLY"
                };
                (id, state)
            })
            .collect();
        assert_eq!(states, expected, "{name}: Batsim's final states");
    }
}
