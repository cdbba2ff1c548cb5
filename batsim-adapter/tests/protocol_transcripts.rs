//! Replays conversations recorded with a real Batsim 4.2.1 verbatim: every
//! `batsim->sched` message is sent as recorded (exact wire bytes) over a real
//! REQ socket, and each answer is compared with the recorded scheduler's.
//! Also: the final state Batsim reported for every job of the walltime
//! transcript is the one the tiny Batsim, the simulator and their shared
//! walltime rule give.

mod protocol_support;

use interstice_batsim::protocol::driver::{drive, profile_run, DriverConfig, Workload};
use interstice_batsim::sim::{simulate, SimOptions};
use interstice_core::{EndReason, EngineConfig, JobId, Policy, ProcSet, Time};
use protocol_support::{config, events, shared, transcript, Adapter, Peer};
use serde_json::Value;
use std::collections::HashMap;

/// Replay a transcript; returns (recorded reply, our reply) pairs.
fn replay(name: &str, policy: Policy) -> Vec<(Value, Value)> {
    let lines = transcript(name);
    let adapter = Adapter::start(config(policy));
    let peer = Peer::connect(&adapter.endpoint);
    let mut pairs = Vec::new();
    for pair in lines.chunks(2) {
        let [request, recorded] = pair else {
            panic!("{name}: odd number of lines")
        };
        assert!(
            request.from_batsim && !recorded.from_batsim,
            "{name}: seq {} out of order",
            request.seq
        );
        let reply = peer.ask_raw(&request.raw);
        let reply: Value =
            serde_json::from_str(&reply).unwrap_or_else(|e| panic!("seq {}: {e}: {reply}", request.seq));
        assert_eq!(
            reply["now"], request.msg["now"],
            "{name} seq {}: reply now = message now",
            request.seq
        );
        for event in reply["events"].as_array().unwrap() {
            assert!(event["timestamp"].as_f64().unwrap() <= reply["now"].as_f64().unwrap());
        }
        pairs.push((recorded.msg.clone(), reply));
    }
    let (result, session) = adapter.finish();
    let report = result.unwrap_or_else(|e| panic!("{name}: adapter failed: {e}"));
    assert_eq!(report.messages as usize, lines.len() / 2);
    assert!(session.is_finished());
    pairs
}

fn decisions(reply: &Value) -> Vec<(String, Value)> {
    events(reply)
        .into_iter()
        .filter(|(kind, _)| kind != "CALL_ME_LATER")
        .collect()
}

#[test]
fn fcfs_answers_the_zero_latency_conversation_exactly_as_recorded() {
    let pairs = replay("transcript-fcfs-cluster16-nolatency.jsonl", Policy::Fcfs);
    assert_eq!(pairs.len(), 21);
    let mut executed = 0;
    for (idx, (recorded, ours)) in pairs.iter().enumerate() {
        assert_eq!(
            decisions(ours),
            decisions(recorded),
            "exchange {idx}: decisions differ"
        );
        assert_eq!(
            ours["events"].as_array().unwrap().len(),
            recorded["events"].as_array().unwrap().len(),
            "exchange {idx}: no extra events (FCFS needs no wake-up here)"
        );
        executed += decisions(ours)
            .iter()
            .filter(|(kind, _)| kind == "EXECUTE_JOB")
            .count();
    }
    assert_eq!(executed, 10);
}

#[test]
fn fcfs_answers_the_conversation_with_latencies_as_recorded() {
    // With latencies, Batsim's times are shifted by the exchanges; decisions
    // are stamped with each message's own `now`, as the recorded scheduler did.
    let pairs = replay("transcript-fcfs-cluster16.jsonl", Policy::Fcfs);
    for (idx, (recorded, ours)) in pairs.iter().enumerate() {
        assert_eq!(
            decisions(ours),
            decisions(recorded),
            "exchange {idx}: decisions differ"
        );
        assert_eq!(ours["now"], recorded["now"], "exchange {idx}: now");
    }
}

#[test]
fn walltime_kills_are_handled_and_every_job_starts_once_on_a_free_resource() {
    // 44 one-resource jobs on 512 resources. Batsim sends same-time jobs
    // sorted by id as text (w0!1, w0!10, w0!1001…); the adapter submits them
    // by job number, so allocations may differ from the recorded scheduler's.
    // With latencies, a job's kill at its walltime is reported a few
    // milliseconds after the engine's reckoning of its walltime; the adapter
    // waits for such reports before deciding, so a start may come a few
    // exchanges (milliseconds) after the recorded scheduler's, never earlier.
    let pairs = replay("transcript-walltime-kills.jsonl", Policy::Fcfs);
    let started = |pick: fn(&(Value, Value)) -> &Value| -> HashMap<String, usize> {
        let mut at = HashMap::new();
        for (idx, pair) in pairs.iter().enumerate() {
            for (kind, data) in decisions(pick(pair)) {
                if kind == "EXECUTE_JOB" {
                    let id = data["job_id"].as_str().unwrap().to_string();
                    assert!(at.insert(id.clone(), idx).is_none(), "{id} started twice");
                }
            }
        }
        at
    };
    let ours = started(|pair| &pair.1);
    let recorded = started(|pair| &pair.0);
    assert_eq!(ours.len(), 44, "44 jobs, each started once");
    for (id, &idx) in &recorded {
        let our_idx = ours.get(id).copied();
        assert!(
            our_idx.is_some_and(|i| (idx..=idx + 3).contains(&i)),
            "{id}: recorded start at exchange {idx}, ours at {our_idx:?}"
        );
    }
    for (idx, (_, ours)) in pairs.iter().enumerate() {
        let mut used = ProcSet::new();
        for (kind, data) in decisions(ours) {
            assert_eq!(kind, "EXECUTE_JOB", "exchange {idx}: only starts expected");
            let alloc: ProcSet = data["alloc"].as_str().unwrap().parse().unwrap();
            assert_eq!(alloc.len(), 1);
            assert!(!alloc.intersects(&used), "exchange {idx}: resource used twice");
            assert!(alloc.iter().all(|p| p < 512));
            used = ProcSet::from_ids(used.iter().chain(alloc.iter()));
        }
    }
}

/// Final state of every job as Batsim 4.2.1 reported it in a transcript.
fn recorded_final_states(name: &str) -> HashMap<String, String> {
    let mut states = HashMap::new();
    for line in transcript(name).iter().filter(|line| line.from_batsim) {
        for (kind, data) in events(&line.msg) {
            if kind == "JOB_COMPLETED" {
                let id = data["job_id"].as_str().unwrap().to_string();
                let state = data["job_state"].as_str().unwrap().to_string();
                assert!(states.insert(id, state).is_none(), "one completion per job");
            }
        }
    }
    states
}

/// Host speed of Batsim's cluster512 platform (`speed="1Gf"`), the platform of the walltime transcript.
const CLUSTER512_SPEED: f64 = 1e9;

#[test]
fn the_walltime_rule_predicts_every_final_state_batsim_recorded() {
    let recorded = recorded_final_states("transcript-walltime-kills.jsonl");
    let workload = Workload::load(&shared("test_walltime.json"), "w0").unwrap();
    assert_eq!(recorded.len(), workload.jobs.len());
    let mut killed_at_equality = Vec::new();
    for job in &workload.jobs {
        let (runtime, kind) =
            profile_run(&job.profile, &workload.profiles[&job.profile], CLUSTER512_SPEED).unwrap();
        let (length, state) = kind.outcome(runtime, job.walltime);
        assert_eq!(
            state, recorded[&job.id],
            "{}: {kind:?} of {runtime} with walltime {:?}",
            job.id, job.walltime
        );
        assert_eq!(
            length,
            runtime.min(job.walltime.unwrap_or(Time::INFINITY)),
            "{}",
            job.id
        );
        if Some(runtime) == job.walltime && state == "COMPLETED_WALLTIME_REACHED" {
            killed_at_equality.push(job.id.as_str());
        }
    }
    // The case the rule is about: a delay equal to the walltime is a kill
    // (w0!10), a computation taking exactly the walltime is not (w0!1010).
    assert_eq!(killed_at_equality, ["w0!10"]);
    assert_eq!(recorded["w0!1010"], "COMPLETED_SUCCESSFULLY");
    let killed = recorded
        .values()
        .filter(|s| *s == "COMPLETED_WALLTIME_REACHED")
        .count();
    assert_eq!(killed, 19, "the README's count");
}

#[test]
fn the_tiny_batsim_ends_every_job_as_batsim_did() {
    let recorded = recorded_final_states("transcript-walltime-kills.jsonl");
    let workload = Workload::load(&shared("test_walltime.json"), "w0").unwrap();
    let adapter = Adapter::start(config(Policy::Fcfs));
    let mut driver_config = DriverConfig::new(adapter.endpoint.clone());
    driver_config.resources = Some(512);
    driver_config.host_speed = CLUSTER512_SPEED;
    let result = drive(&workload, &driver_config);
    let (served, _) = adapter.finish();
    served.unwrap();
    let report = result.unwrap();
    let ours: HashMap<String, String> = report
        .executions
        .iter()
        .map(|e| (e.job_id.clone(), e.state.to_string()))
        .collect();
    assert_eq!(ours, recorded);
}

#[test]
fn the_simulator_ends_every_delay_job_with_a_walltime_as_batsim_did() {
    let recorded = recorded_final_states("transcript-walltime-kills.jsonl");
    let workload = interstice_swf::load_workload(
        &shared("test_walltime.json"),
        &interstice_swf::ExtractOptions::new(),
    )
    .unwrap();
    let driver_workload = Workload::load(&shared("test_walltime.json"), "w0").unwrap();
    // Only `delay` jobs with a walltime: the simulator runs delay profiles, and
    // a job without walltime gets its delay as walltime when read (w0!21, w0!22).
    let compared: Vec<u64> = driver_workload
        .jobs
        .iter()
        .filter(|job| job.walltime.is_some() && job.profile.starts_with("delay"))
        .map(|job| job.id.trim_start_matches("w0!").parse().unwrap())
        .collect();
    assert_eq!(compared.len(), 20);
    let result = simulate(
        EngineConfig::new(512, Policy::Fcfs),
        workload.jobs,
        &SimOptions::default(),
        |_, _| {},
    )
    .unwrap();
    for id in compared {
        let record = result.records.iter().find(|r| r.job.id == JobId(id)).unwrap();
        let expected = match recorded[&format!("w0!{id}")].as_str() {
            "COMPLETED_WALLTIME_REACHED" => EndReason::WalltimeReached,
            "COMPLETED_SUCCESSFULLY" => EndReason::Completed,
            other => panic!("w0!{id}: unexpected {other}"),
        };
        assert_eq!(record.end_reason, Some(expected), "w0!{id}");
        let run = record.end.unwrap() - record.start.unwrap();
        assert_eq!(
            run,
            record.job.runtime.unwrap().min(record.job.walltime),
            "w0!{id}"
        );
    }
}
