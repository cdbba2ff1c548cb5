//! The adapter against the tiny Batsim of `protocol::driver` over real
//! ZeroMQ sockets: every policy on every recorded workload gives a valid
//! schedule, and the adapter makes the built-in simulator's decisions
//! (same start times, same processors), with cloud jobs and evictions.

mod protocol_support;

use interstice_batsim::protocol::driver::{drive, DriverConfig, DriverReport, Workload};
use interstice_batsim::protocol::options::DEFAULT_MAX_RESUBMISSIONS;
use interstice_batsim::protocol::{AdapterConfig, CloudInjection};
use interstice_batsim::sim::{simulate, SimOptions, SimResult};
use interstice_core::{EngineConfig, Job, JobKind, Policy, ProcSet, Scheduling, Time};
use interstice_swf::inject::{inject_cloud_jobs, InjectOptions, ProcsChoice, RuntimeSpec};
use protocol_support::{check_schedule, config, shared, Adapter};
use std::collections::HashMap;

fn run(
    workload: &Workload,
    adapter_config: AdapterConfig,
    driver: impl FnOnce(String) -> DriverConfig,
) -> DriverReport {
    let adapter = Adapter::start(adapter_config);
    let result = drive(workload, &driver(adapter.endpoint.clone()));
    let (served, session) = adapter.finish();
    let report = result.unwrap_or_else(|e| panic!("driver failed: {e}"));
    let served = served.unwrap_or_else(|e| panic!("adapter failed: {e}"));
    assert!(session.is_finished());
    assert_eq!(served.messages, report.messages, "one reply per message");
    report
}

#[test]
fn every_policy_gives_a_valid_schedule_on_every_recorded_workload() {
    for file in ["workload10.json", "test_walltime.json"] {
        let workload = Workload::load(&shared(file), "w0").unwrap();
        for policy in Policy::ALL.into_iter().filter(|p| p.allows(Scheduling::HpcFirst)) {
            let out = tempfile::tempdir().unwrap();
            let mut adapter_config = config(policy);
            adapter_config.out_dir = Some(out.path().to_path_buf());
            let report = run(&workload, adapter_config, DriverConfig::new);
            check_schedule(&workload, workload.nb_res, &report);
            assert!(
                report.rejected.is_empty(),
                "{file} {policy}: HPC jobs are never rejected"
            );
            if file == "test_walltime.json" {
                // 9 delay and 9 compute jobs run longer than their walltime,
                // and w0!10's delay equals its walltime: Batsim 4.2.1 kills
                // those 19 (a compute job that takes exactly its walltime completes).
                let killed = report
                    .executions
                    .iter()
                    .filter(|e| e.state == "COMPLETED_WALLTIME_REACHED")
                    .count();
                assert_eq!(killed, 19, "{file} {policy}: jobs killed at their walltime");
            }
            // The same outputs as `interstice replay`.
            let summary: serde_json::Value =
                serde_json::from_str(&std::fs::read_to_string(out.path().join("summary.json")).unwrap())
                    .unwrap();
            let jobs_csv = std::fs::read_to_string(out.path().join("jobs.csv")).unwrap();
            assert_eq!(
                jobs_csv.lines().count(),
                1 + workload.jobs.len(),
                "{file} {policy}: one row per job"
            );
            assert!(summary.is_object(), "{file} {policy}: summary.json is an object");
        }
    }
}

/// Start time and processors of the last run of every job, keyed by workload job number.
fn adapter_starts(report: &DriverReport) -> HashMap<u64, (Time, ProcSet)> {
    let mut starts = HashMap::new();
    for execution in &report.executions {
        starts.insert(
            job_number(&execution.job_id),
            (execution.start, execution.alloc.clone()),
        );
    }
    starts
}

/// `w0!7` → 7; a resubmission `interstice!w0_7-r2` → 7; an injected
/// `interstice!cloud3` (resubmitted: `interstice!interstice_cloud3-r1`) → BASE + 3.
fn job_number(batsim_id: &str) -> u64 {
    let name = batsim_id.split_once('!').unwrap().1;
    let name = name.split('-').next().unwrap();
    let name = name.rsplit('_').next().unwrap();
    if let Some(k) = name.strip_prefix("cloud") {
        return (1u64 << 40) + k.parse::<u64>().unwrap();
    }
    name.parse().unwrap()
}

fn sim_starts(result: &SimResult) -> HashMap<u64, (Time, ProcSet)> {
    result
        .starts()
        .map(|(id, start, procs)| (id.0, (start, procs.clone())))
        .collect()
}

fn engine_config(procs: u32, conv: u32, policy: Policy, resubmissions: u32) -> EngineConfig {
    let mut config = EngineConfig::new(procs, policy);
    config.conv_procs = conv;
    config.lifecycle.max_resubmissions = resubmissions;
    config
}

/// workload10's HPC jobs plus cloud jobs every 7 s, 1 or 2 processors, 60 s, written as an Interstice workload.
fn mixed_workload(dir: &std::path::Path) -> (Vec<Job>, Workload) {
    let file = std::fs::File::open(shared("workload10.json")).unwrap();
    let hpc = interstice_swf::batsim_json::read_workload(
        file,
        "workload10.json",
        &interstice_swf::ExtractOptions::new(),
    )
    .unwrap()
    .jobs;
    let inject = InjectOptions {
        interval: Time::from_secs(7),
        procs: "1,2".parse().unwrap(),
        walltime: Time::from_secs(60),
        runtime: "0.75w".parse().unwrap(),
        slack: 2.0,
        alpha: interstice_swf::defaults::ALPHA,
        seed: 5,
    };
    let cloud = inject_cloud_jobs(&inject, Time::ZERO, Time::from_secs(120), 100).collect::<Vec<_>>();
    let mut jobs: Vec<Job> = hpc.into_iter().chain(cloud).collect();
    jobs.sort_by_key(|job| (job.submit, job.id));
    let path = dir.join("mixed.json");
    let mut text = Vec::new();
    interstice_swf::batsim_json::write_workload(&jobs, 16, &mut text).unwrap();
    std::fs::write(&path, text).unwrap();
    (jobs.clone(), Workload::load(&path, "w0").unwrap())
}

#[test]
fn adapter_and_builtin_simulator_make_the_same_decisions_with_cloud_jobs() {
    let dir = tempfile::tempdir().unwrap();
    let (jobs, workload) = mixed_workload(dir.path());
    let mut evictions = 0;
    for policy in Policy::ALL.into_iter().filter(|p| p.allows(Scheduling::HpcFirst)) {
        // Without dynamic jobs an eviction is final in Batsim: the simulator
        // is run with no resubmission to match.
        let sim = simulate(
            engine_config(16, 8, policy, 0),
            jobs.clone(),
            &SimOptions::default(),
            |_, _| {},
        )
        .unwrap();
        let mut adapter_config = config(policy);
        adapter_config.engine.conv = Some(8);
        let report = run(&workload, adapter_config, DriverConfig::new);
        check_schedule_allowing_evictions(&workload, &report);
        assert_eq!(
            adapter_starts(&report),
            sim_starts(&sim),
            "{policy}: start times and processors differ"
        );
        evictions += report
            .executions
            .iter()
            .filter(|e| e.state == "COMPLETED_KILLED")
            .count();
        let sim_evictions: u32 = sim.records.iter().map(|r| r.evictions).sum();
        assert_eq!(
            report
                .executions
                .iter()
                .filter(|e| e.state == "COMPLETED_KILLED")
                .count() as u32,
            sim_evictions,
            "{policy}: evictions"
        );
    }
    assert!(
        evictions > 0,
        "the scenario must exercise evictions (KILL_JOB/JOB_KILLED)"
    );
}

#[test]
fn evicted_jobs_are_resubmitted_through_dynamic_jobs_like_the_simulator() {
    let dir = tempfile::tempdir().unwrap();
    let (jobs, workload) = mixed_workload(dir.path());
    let policy = Policy::Convergence;
    let sim = simulate(
        engine_config(16, 8, policy, 3),
        jobs,
        &SimOptions::default(),
        |_, _| {},
    )
    .unwrap();
    let mut adapter_config = config(policy);
    adapter_config.engine.conv = Some(8);
    adapter_config.engine.max_resubmissions = Some(3);
    let report = run(&workload, adapter_config, |endpoint| {
        let mut driver = DriverConfig::new(endpoint);
        driver.dynamic_jobs = true;
        driver.acknowledge_dynamic_jobs = true;
        driver
    });
    assert!(
        !report.registered.is_empty(),
        "evicted jobs come back as registered jobs"
    );
    assert!(
        report
            .registered
            .iter()
            .all(|id| id.starts_with("interstice!w0_")),
        "{:?}",
        report.registered
    );
    assert_eq!(
        adapter_starts(&report),
        sim_starts(&sim),
        "start times and processors differ"
    );
}

fn check_schedule_allowing_evictions(workload: &Workload, report: &DriverReport) {
    // An evicted job (final eviction) has only a killed run: treat it as done.
    let killed: Vec<String> = report
        .executions
        .iter()
        .filter(|e| e.state == "COMPLETED_KILLED")
        .map(|e| e.job_id.clone())
        .collect();
    let mut copy = report.clone();
    for id in killed {
        if let Some(run) = copy.executions.iter_mut().find(|e| e.job_id == id) {
            run.state = "COMPLETED_SUCCESSFULLY";
        }
    }
    check_schedule(workload, workload.nb_res, &copy);
}

#[test]
fn injected_cloud_jobs_match_the_simulator_and_registration_finishes() {
    let workload = Workload::load(&shared("workload10.json"), "w0").unwrap();
    let procs: ProcsChoice = "1,2,4".parse().unwrap();
    let runtime: RuntimeSpec = "uniform:0.2w:0.8w".parse().unwrap();
    let seed = 9;
    let inject = CloudInjection {
        jobs: InjectOptions {
            interval: Time::from_secs(10),
            procs: procs.clone(),
            walltime: Time::from_secs(40),
            runtime,
            slack: 3.0,
            alpha: interstice_swf::defaults::ALPHA,
            seed,
        },
        start: None,
        until: None,
    };
    for policy in Policy::ALL.into_iter().filter(|p| p.allows(Scheduling::HpcFirst)) {
        let mut adapter_config = config(policy);
        adapter_config.engine.conv = Some(12);
        adapter_config.inject = Some(inject.clone());
        let report = run(&workload, adapter_config, |endpoint| {
            let mut driver = DriverConfig::new(endpoint);
            driver.dynamic_jobs = true;
            driver
        });
        // Injections at 0, 10, …, 60 (the last static submission).
        let cloud: Vec<&String> = report
            .registered
            .iter()
            .filter(|id| id.contains("!cloud"))
            .collect();
        assert_eq!(cloud.len(), 7, "{policy}: {:?}", report.registered);

        // The simulator with the same cloud jobs (replay's draws, which
        // `inject_cloud_jobs` makes: the adapter must draw the same run times).
        let file = std::fs::File::open(shared("workload10.json")).unwrap();
        let hpc =
            interstice_swf::batsim_json::read_workload(file, "w10", &interstice_swf::ExtractOptions::new())
                .unwrap()
                .jobs;
        let options = inject.jobs.clone();
        let cloud_jobs =
            inject_cloud_jobs(&options, Time::ZERO, Time::from_secs(60), 1 << 40).collect::<Vec<_>>();
        assert!(cloud_jobs.iter().all(|job| job.kind == JobKind::Cloud));
        let jobs: Vec<Job> = hpc.into_iter().chain(cloud_jobs).collect();
        let sim = simulate(
            // The adapter's default resubmissions (Batsim runs with dynamic jobs here).
            engine_config(16, 12, policy, DEFAULT_MAX_RESUBMISSIONS),
            jobs,
            &SimOptions::default(),
            |_, _| {},
        )
        .unwrap();
        let sim_starts = sim_starts(&sim);
        assert_eq!(
            adapter_starts(&report),
            sim_starts,
            "{policy}: start times and processors differ"
        );
        assert!(
            sim_starts.contains_key(&((1 << 40) + 6)),
            "{policy}: the last cloud job ran"
        );
    }
}

/// A synthetic HPC trace on 32 processors plus a cloud job every 2 minutes in
/// an 8-processor area: dozens of evictions. The engine's decisions depend on
/// when passes happen, so this checks that the adapter passes exactly when
/// the simulator does (including when an evicted run would have ended).
#[test]
fn adapter_matches_the_simulator_on_a_synthetic_trace_with_many_evictions() {
    use interstice_batsim::sim::synthetic::{hpc_workload, SyntheticOptions};
    let seed = 3;
    let hpc = hpc_workload(&SyntheticOptions {
        procs: 32,
        jobs: 40,
        duration: Time::from_secs(12 * 3600),
        utilization: 0.6,
        seed,
        first_id: 1,
    });
    let last_submit = hpc.iter().map(|job| job.submit).max().unwrap();
    let inject = InjectOptions {
        interval: Time::from_secs(120),
        procs: "1,2,4".parse().unwrap(),
        walltime: Time::from_secs(600),
        runtime: "0.9w".parse().unwrap(),
        slack: 2.0,
        alpha: interstice_swf::defaults::ALPHA,
        seed,
    };
    let cloud = inject_cloud_jobs(&inject, Time::ZERO, last_submit, 100_000).collect::<Vec<_>>();
    let mut jobs: Vec<Job> = hpc.into_iter().chain(cloud).collect();
    jobs.sort_by_key(|job| (job.submit, job.id));
    let mut text = Vec::new();
    interstice_swf::batsim_json::write_workload(&jobs, 32, &mut text).unwrap();
    let workload = Workload::from_json(std::str::from_utf8(&text).unwrap(), "w0", "synthetic.json").unwrap();
    for policy in Policy::ALL.into_iter().filter(|p| p.allows(Scheduling::HpcFirst)) {
        let sim = simulate(
            engine_config(32, 8, policy, 0),
            jobs.clone(),
            &SimOptions::default(),
            |_, _| {},
        )
        .unwrap();
        let mut adapter_config = config(policy);
        adapter_config.engine.conv = Some(8);
        let report = run(&workload, adapter_config, DriverConfig::new);
        check_schedule_allowing_evictions(&workload, &report);
        let evictions: u32 = sim.records.iter().map(|r| r.evictions).sum();
        if policy == Policy::Convergence {
            assert!(evictions >= 10, "the scenario must evict often ({evictions})");
        }
        let ours = adapter_starts(&report);
        let theirs = sim_starts(&sim);
        let differing = theirs
            .iter()
            .filter(|(id, start)| ours.get(id) != Some(start))
            .count();
        assert_eq!(
            (differing, ours.len()),
            (0, theirs.len()),
            "{policy}: {differing} jobs start differently"
        );
    }
}
