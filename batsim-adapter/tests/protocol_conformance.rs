//! Conformance of the adapter to Batsim 4's protocol, event type by event
//! type, with hand-written messages over a real REQ socket; and its errors on
//! bad input, silence and a vanished peer.

mod protocol_support;

use interstice_batsim::protocol::{CloudInjection, ServerError};
use interstice_core::{EndReason, Policy, Scheduling, Time};
use interstice_swf::InjectOptions;
use protocol_support::{begins, config, events, message, submitted, Adapter, Peer};
use serde_json::json;
use std::time::{Duration, Instant};

fn types(reply: &serde_json::Value) -> Vec<String> {
    events(reply).into_iter().map(|(kind, _)| kind).collect()
}

#[test]
fn simulation_begins_takes_engine_options_from_sched_config_and_ends_cleanly() {
    let out = tempfile::tempdir().unwrap();
    let adapter_config = interstice_batsim::protocol::AdapterConfig {
        out_dir: Some(out.path().to_path_buf()),
        ..Default::default()
    };
    let adapter = Adapter::start(adapter_config);
    let peer = Peer::connect(&adapter.endpoint);
    let reply = peer.ask(&begins(4, false, r#"{"policy": "easy", "max-resubmissions": 0}"#));
    assert_eq!(reply, json!({"now": 0.0, "events": []}));
    let reply = peer.ask(&message(
        0.0,
        vec![("JOB_SUBMITTED", submitted(1, 4, 100.0, "d10"))],
    ));
    assert_eq!(
        events(&reply),
        vec![(
            "EXECUTE_JOB".to_string(),
            json!({"job_id": "w0!1", "alloc": "0-3"})
        )]
    );
    let done =
        json!({"job_id": "w0!1", "job_state": "COMPLETED_SUCCESSFULLY", "return_code": 0, "alloc": "0-3"});
    let reply = peer.ask(&message(
        10.0,
        vec![
            ("JOB_COMPLETED", done),
            ("NOTIFY", json!({"type": "no_more_static_job_to_submit"})),
        ],
    ));
    assert_eq!(
        reply,
        json!({"now": 10.0, "events": []}),
        "no registration_finished without dynamic jobs"
    );
    let reply = peer.ask(&message(10.0, vec![("SIMULATION_ENDS", json!({}))]));
    assert_eq!(reply, json!({"now": 10.0, "events": []}));
    let (result, session) = adapter.finish();
    let report = result.unwrap();
    assert_eq!(report.messages, 4);
    assert_eq!(session.engine().unwrap().config().policy, Policy::Easy);
    assert!(out.path().join("summary.json").exists() && out.path().join("jobs.csv").exists());
    assert_eq!(report.summary.unwrap().jobs, 1);
}

#[test]
fn every_final_state_frees_the_processors_and_resource_ids_are_mapped() {
    let adapter = Adapter::start(config(Policy::Fcfs));
    let peer = Peer::connect(&adapter.endpoint);
    // Resource ids 10..13 (e.g. storage resources take 0..9): allocations use them.
    let mut first = begins(4, false, "");
    first["events"][0]["data"]["compute_resources"] = json!([{"id": 13}, {"id": 10}, {"id": 12}, {"id": 11}]);
    peer.ask(&first);
    let states = [
        "COMPLETED_SUCCESSFULLY",
        "COMPLETED_FAILED",
        "COMPLETED_WALLTIME_REACHED",
        "COMPLETED_KILLED",
    ];
    let jobs: Vec<_> = (1..=5)
        .map(|n| ("JOB_SUBMITTED", submitted(n, 4, 50.0, "d10")))
        .collect();
    let reply = peer.ask(&message(0.0, jobs));
    assert_eq!(
        events(&reply),
        vec![(
            "EXECUTE_JOB".to_string(),
            json!({"job_id": "w0!1", "alloc": "10-13"})
        )]
    );
    for (idx, state) in states.iter().enumerate() {
        let n = idx as u64 + 1;
        let now = 10.0 * (idx as f64 + 1.0);
        let done =
            json!({"job_id": format!("w0!{n}"), "job_state": state, "return_code": 0, "alloc": "10-13"});
        let reply = peer.ask(&message(now, vec![("JOB_COMPLETED", done)]));
        assert_eq!(
            events(&reply),
            vec![(
                "EXECUTE_JOB".to_string(),
                json!({"job_id": format!("w0!{}", n + 1), "alloc": "10-13"})
            )],
            "after {state}"
        );
        assert_eq!(reply["events"][0]["timestamp"], json!(now));
    }
    drop(peer);
    let _ = adapter.finish();
}

#[test]
fn a_job_larger_than_the_platform_is_rejected() {
    let adapter = Adapter::start(config(Policy::Conservative));
    let peer = Peer::connect(&adapter.endpoint);
    peer.ask(&begins(4, false, ""));
    let reply = peer.ask(&message(
        1.5,
        vec![("JOB_SUBMITTED", submitted(9, 5, 10.0, "d10"))],
    ));
    assert_eq!(
        events(&reply),
        vec![("REJECT_JOB".to_string(), json!({"job_id": "w0!9"}))]
    );
    assert_eq!(reply["now"], json!(1.5));
    drop(peer);
    let _ = adapter.finish();
}

fn cloud_job(n: u64, res: u32, walltime: f64, slo: f64) -> serde_json::Value {
    let id = format!("w0!{n}");
    json!({"job_id": id, "job": {"id": id, "subtime": 0, "walltime": walltime, "res": res, "profile": "d100",
        "kind": "cloud", "slo": slo}})
}

#[test]
fn an_eviction_is_a_kill_job_and_the_waiting_start_follows_job_killed() {
    let mut adapter_config = config(Policy::Convergence);
    adapter_config.engine.conv = Some(4);
    let adapter = Adapter::start(adapter_config);
    let peer = Peer::connect(&adapter.endpoint);
    peer.ask(&begins(4, false, ""));
    let reply = peer.ask(&message(
        0.0,
        vec![("JOB_SUBMITTED", cloud_job(1, 4, 100.0, 1000.0))],
    ));
    assert_eq!(
        events(&reply),
        vec![(
            "EXECUTE_JOB".to_string(),
            json!({"job_id": "w0!1", "alloc": "0-3"})
        )]
    );
    // An HPC job needs the whole machine: the cloud job is evicted, and the
    // HPC job is not executed before Batsim confirms the kill.
    let reply = peer.ask(&message(
        10.0,
        vec![("JOB_SUBMITTED", submitted(2, 4, 50.0, "d10"))],
    ));
    assert_eq!(
        events(&reply),
        vec![("KILL_JOB".to_string(), json!({"job_ids": ["w0!1"]}))]
    );
    // A JOB_KILLED for a job that was never killed is an error, tested below;
    // the real acknowledgement releases the start.
    let killed = json!({"job_ids": ["w0!1"], "job_progress": {"w0!1": {"profile": "d100", "progress": 0.1}}});
    let reply = peer.ask(&message(10.0, vec![("JOB_KILLED", killed)]));
    assert_eq!(
        events(&reply),
        vec![(
            "EXECUTE_JOB".to_string(),
            json!({"job_id": "w0!2", "alloc": "0-3"})
        )]
    );
    let reply = peer.ask(&message(20.0, vec![("SIMULATION_ENDS", json!({}))]));
    assert!(types(&reply).is_empty());
    let (result, session) = adapter.finish();
    result.unwrap();
    let record = session
        .engine()
        .unwrap()
        .records()
        .find(|r| r.job.id.0 == 1)
        .unwrap();
    assert_eq!(record.evictions, 1, "the engine counted the eviction");
}

#[test]
fn injection_registers_jobs_asks_to_be_called_and_finishes_registration() {
    let mut adapter_config = config(Policy::Fcfs);
    adapter_config.inject = Some(CloudInjection {
        jobs: InjectOptions {
            interval: Time::from_secs(10),
            procs: "2".parse().unwrap(),
            walltime: Time::from_secs(30),
            runtime: "5".parse().unwrap(),
            slack: 2.0,
            alpha: interstice_swf::defaults::ALPHA,
            seed: 1,
        },
        start: Some(Time::ZERO),
        until: None,
    });
    let adapter = Adapter::start(adapter_config);
    let peer = Peer::connect(&adapter.endpoint);
    let reply = peer.ask(&begins(4, true, ""));
    assert_eq!(
        types(&reply),
        ["REGISTER_PROFILE", "REGISTER_JOB", "EXECUTE_JOB", "CALL_ME_LATER"]
    );
    let all = events(&reply);
    assert_eq!(
        all[0].1,
        json!({"workload_name": "interstice", "profile_name": "cloud0",
        "profile": {"type": "delay", "delay": 5.0}})
    );
    assert_eq!(all[1].1["job_id"], "interstice!cloud0");
    assert_eq!(all[1].1["job"]["profile"], "cloud0");
    assert_eq!(all[1].1["job"]["res"], 2);
    assert_eq!(all[1].1["job"]["slo"], 60.0);
    assert_eq!(all[1].1["job"]["kind"], "cloud");
    assert_eq!(all[3].1, json!({"timestamp": 10.0}));
    let done = json!({"job_id": "interstice!cloud0", "job_state": "COMPLETED_SUCCESSFULLY", "return_code": 0, "alloc": "0-1"});
    let reply = peer.ask(&message(5.0, vec![("JOB_COMPLETED", done)]));
    assert!(
        types(&reply).is_empty(),
        "the call at 10 was already requested: {reply}"
    );
    // Each injected job registers its own profile: without
    // --enable-profile-reuse Batsim has discarded cloud0's with cloud0.
    let reply = peer.ask(&message(10.0, vec![("REQUESTED_CALL", json!({}))]));
    assert_eq!(
        types(&reply),
        ["REGISTER_PROFILE", "REGISTER_JOB", "EXECUTE_JOB", "CALL_ME_LATER"]
    );
    assert_eq!(events(&reply)[0].1["profile_name"], "cloud1");
    assert_eq!(events(&reply)[1].1["job"]["profile"], "cloud1");
    assert_eq!(events(&reply)[3].1, json!({"timestamp": 20.0}));
    // Static jobs are over at 12: no injection after that; registration
    // finishes once the running cloud job cannot be resubmitted any more:
    // with the default resubmissions (3) an eviction could still register
    // it again, so only when it has ended.
    let reply = peer.ask(&message(
        12.0,
        vec![("NOTIFY", json!({"type": "no_more_static_job_to_submit"}))],
    ));
    assert!(
        types(&reply).is_empty(),
        "cloud1 is still running and could be resubmitted: {reply}"
    );
    let done = json!({"job_id": "interstice!cloud1", "job_state": "COMPLETED_SUCCESSFULLY", "return_code": 0, "alloc": "0-1"});
    let reply = peer.ask(&message(15.0, vec![("JOB_COMPLETED", done)]));
    assert_eq!(
        events(&reply),
        vec![("NOTIFY".to_string(), json!({"type": "registration_finished"}))]
    );
    let reply = peer.ask(&message(20.0, vec![("REQUESTED_CALL", json!({}))]));
    assert!(
        types(&reply).is_empty(),
        "no injection after the last static job: {reply}"
    );
    peer.ask(&message(20.0, vec![("SIMULATION_ENDS", json!({}))]));
    let (result, _) = adapter.finish();
    result.unwrap();
}

#[test]
fn injection_without_dynamic_jobs_is_a_clear_error() {
    let mut adapter_config = config(Policy::Fcfs);
    adapter_config.inject = Some(CloudInjection {
        jobs: InjectOptions {
            interval: Time::from_secs(10),
            procs: "1".parse().unwrap(),
            walltime: Time::from_secs(30),
            runtime: "walltime".parse().unwrap(),
            slack: 2.0,
            alpha: interstice_swf::defaults::ALPHA,
            seed: 1,
        },
        start: None,
        until: None,
    });
    let error = expect_error(adapter_config, &[begins(4, false, "").to_string()]);
    assert!(error.contains("--enable-dynamic-jobs"), "{error}");
}

/// Send messages; the last one must be answered with a plain-text error and
/// end the server with an error, whose text is returned.
fn expect_error(adapter_config: interstice_batsim::protocol::AdapterConfig, messages: &[String]) -> String {
    let adapter = Adapter::start(adapter_config);
    let peer = Peer::connect(&adapter.endpoint);
    let (last, before) = messages.split_last().unwrap();
    for text in before {
        let reply = peer.ask_raw(text);
        assert!(reply.starts_with("{"), "unexpected error reply: {reply}");
    }
    let reply = peer.ask_raw(last);
    assert!(
        reply.starts_with("interstice error: "),
        "the peer is told, not left waiting: {reply}"
    );
    let (result, _) = adapter.finish();
    let error = result
        .expect_err("the server must stop with an error")
        .to_string();
    assert_eq!(reply, format!("interstice error: {error}"));
    error
}

/// One malformed conversation: the messages sent, and what the error the
/// last one causes must mention.
type Case = (Vec<String>, &'static [&'static str]);

#[test]
fn malformed_messages_are_errors_naming_the_message_and_the_problem() {
    let first = begins(4, false, "").to_string();
    let cases: Vec<Case> = [
        unreadable_messages(&first),
        ends_of_unknown_jobs(&first),
        unusable_event_fields(&first),
        conversations_that_cannot_go_on(&first),
        times_out_of_range(&first),
    ]
    .concat();
    // A first message that is not a Batsim message is answered and
    // ignored instead (tests/protocol_peers.rs).
    for (messages, expected) in cases {
        let error = expect_error(config(Policy::Fcfs), &messages);
        for fragment in expected {
            assert!(
                error.contains(fragment),
                "error {error:?} should mention {fragment:?}"
            );
        }
    }
}

/// Messages that are not Batsim messages: not JSON, without `now`, with an
/// unknown event type.
fn unreadable_messages(first: &str) -> Vec<Case> {
    vec![
        (
            vec![first.to_string(), "{not json".into()],
            &["message 1", "not valid JSON", "{not json"],
        ),
        (
            vec![first.to_string(), r#"{"events": []}"#.into()],
            &["message 1", "missing field `now`"],
        ),
        (
            vec![
                first.to_string(),
                message(1.0, vec![("JOB_EXPLODED", json!({}))]).to_string(),
            ],
            &[
                "message 1",
                "events[0].type",
                "unsupported event type \"JOB_EXPLODED\"",
            ],
        ),
    ]
}

/// Ends of a job that was never submitted: `JOB_COMPLETED`, `JOB_KILLED`.
fn ends_of_unknown_jobs(first: &str) -> Vec<Case> {
    vec![
        (
            vec![
                first.to_string(),
                message(
                    1.0,
                    vec![(
                        "JOB_COMPLETED",
                        json!({"job_id": "w0!77", "job_state": "COMPLETED_SUCCESSFULLY"}),
                    )],
                )
                .to_string(),
            ],
            &[
                "message 1",
                "events[0] (JOB_COMPLETED)",
                "w0!77",
                "never submitted",
            ],
        ),
        (
            vec![
                first.to_string(),
                message(1.0, vec![("JOB_KILLED", json!({"job_ids": ["w0!1"]}))]).to_string(),
            ],
            &["message 1", "w0!1"],
        ),
    ]
}

/// Events whose fields cannot be used: a timestamp after the message's
/// `now`, a `res` that is not a number, an `alpha` on a cloud job (Batsim
/// enforces the walltime as written) or on an HPC job, a `job_state` that is
/// not final.
fn unusable_event_fields(first: &str) -> Vec<Case> {
    vec![
        (
            vec![
                first.to_string(),
                json!({"now": 1.0, "events": [{"timestamp": 2.0, "type": "REQUESTED_CALL", "data": {}}]})
                    .to_string(),
            ],
            &["message 1", "events[0].timestamp", "after the message's now"],
        ),
        (
            vec![
                first.to_string(),
                message(
                    1.0,
                    vec![(
                        "JOB_SUBMITTED",
                        json!({"job_id": "w0!1", "job": {"id": "w0!1", "res": "four"}}),
                    )],
                )
                .to_string(),
            ],
            &["message 1", "job.res", "\"four\""],
        ),
        (
            vec![
                first.to_string(),
                message(
                    1.0,
                    vec![(
                        "JOB_SUBMITTED",
                        json!({"job_id": "w0!1", "job": {"id": "w0!1", "res": 1, "walltime": 100,
                            "kind": "cloud", "alpha": 2}}),
                    )],
                )
                .to_string(),
            ],
            &["message 1", "w0!1", "job.alpha is 2", "swf convert"],
        ),
        (
            vec![
                first.to_string(),
                message(
                    1.0,
                    vec![(
                        "JOB_SUBMITTED",
                        json!({"job_id": "w0!1", "job": {"id": "w0!1", "res": 1, "alpha": 2}}),
                    )],
                )
                .to_string(),
            ],
            &["message 1", "job.alpha", "no alpha on an HPC job"],
        ),
        (
            vec![
                first.to_string(),
                message(
                    1.0,
                    vec![("JOB_COMPLETED", json!({"job_id": "w0!1", "job_state": "RUNNING"}))],
                )
                .to_string(),
            ],
            &["message 1", "job_state", "not a final job state"],
        ),
    ]
}

/// Conversations that cannot go on: a first message without
/// `SIMULATION_BEGINS` or with an unusable `sched-config`, a second
/// `SIMULATION_BEGINS`, a `now` or an event before the previous message.
fn conversations_that_cannot_go_on(first: &str) -> Vec<Case> {
    vec![
        (
            vec![message(0.0, vec![("REQUESTED_CALL", json!({}))]).to_string()],
            &["message 0", "SIMULATION_BEGINS"],
        ),
        (
            vec![begins(4, false, "{\"policy\": \"sjf\"}").to_string()],
            &["message 0", "sched-config", "sjf"],
        ),
        (
            vec![first.to_string(), first.to_string()],
            &["message 1", "already begun"],
        ),
        (
            vec![
                first.to_string(),
                message(5.0, vec![]).to_string(),
                message(4.0, vec![]).to_string(),
            ],
            &["message 2", "backwards"],
        ),
        // Events of a message happened after the previous message.
        (
            vec![
                first.to_string(),
                message(5.0, vec![]).to_string(),
                json!({"now": 6.0, "events": [{"timestamp": 4.0, "type": "REQUESTED_CALL", "data": {}}]})
                    .to_string(),
            ],
            &[
                "message 2",
                "events[0].timestamp",
                "before the previous message's now 5",
            ],
        ),
    ]
}

/// A message's `now` that is not a simulation time.
fn times_out_of_range(first: &str) -> Vec<Case> {
    vec![
        (
            vec![first.to_string(), message(-100.0, vec![]).to_string()],
            &["message 1", "now", "-100 is not a simulation time"],
        ),
        (
            vec![first.to_string(), message(1e300, vec![]).to_string()],
            &["message 1", "now", "is not a simulation time"],
        ),
    ]
}

#[test]
fn a_silent_peer_is_a_timeout_not_a_hang() {
    let started = Instant::now();
    let adapter = Adapter::start_with_timeout(config(Policy::Fcfs), Duration::from_millis(300));
    let (result, _) = adapter.finish();
    match result {
        Err(error @ ServerError::Timeout { .. }) => {
            assert!(error.to_string().contains("no message from Batsim"), "{error}");
        }
        other => panic!("expected a timeout, got {other:?}"),
    }
    assert!(started.elapsed() < Duration::from_secs(3));
}

#[test]
fn a_peer_that_disconnects_is_detected_before_the_timeout() {
    let adapter = Adapter::start_with_timeout(config(Policy::Fcfs), Duration::from_secs(20));
    let started = Instant::now();
    {
        let peer = Peer::connect(&adapter.endpoint);
        peer.ask(&begins(4, false, ""));
    }
    let (result, _) = adapter.finish();
    match result {
        Err(error @ ServerError::PeerClosed { .. }) => {
            assert!(error.to_string().contains("closed the connection"), "{error}");
            assert!(error.to_string().contains("after 1 messages"), "{error}");
        }
        other => panic!("expected a closed peer, got {other:?}"),
    }
    assert!(
        started.elapsed() < Duration::from_secs(10),
        "detected well before the 20 s timeout"
    );
}

#[test]
fn a_job_that_completes_in_the_instant_it_is_evicted_is_a_success_not_an_eviction() {
    let mut adapter_config = config(Policy::Convergence);
    adapter_config.engine.conv = Some(4);
    let adapter = Adapter::start(adapter_config);
    let peer = Peer::connect(&adapter.endpoint);
    // Dynamic jobs: an evicted job would be registered again.
    peer.ask(&begins(4, true, ""));
    peer.ask(&message(
        0.0,
        vec![("JOB_SUBMITTED", cloud_job(1, 4, 100.0, 1000.0))],
    ));
    let reply = peer.ask(&message(
        10.0,
        vec![("JOB_SUBMITTED", submitted(2, 4, 50.0, "d10"))],
    ));
    assert_eq!(
        events(&reply),
        vec![("KILL_JOB".to_string(), json!({"job_ids": ["w0!1"]}))]
    );
    // Batsim had already completed w0!1 in this instant (reported in its
    // next message), so the kill finds nothing to kill.
    let done =
        json!({"job_id": "w0!1", "job_state": "COMPLETED_SUCCESSFULLY", "return_code": 0, "alloc": "0-3"});
    let reply = peer.ask(&message(10.0, vec![("JOB_COMPLETED", done)]));
    assert!(
        !types(&reply).iter().any(|t| t == "REGISTER_JOB"),
        "a completed job is not resubmitted: {reply}"
    );
    let killed = json!({"job_ids": ["w0!1"], "job_progress": {}});
    let reply = peer.ask(&message(10.0, vec![("JOB_KILLED", killed)]));
    assert_eq!(
        events(&reply),
        vec![(
            "EXECUTE_JOB".to_string(),
            json!({"job_id": "w0!2", "alloc": "0-3"})
        )]
    );
    peer.ask(&message(20.0, vec![("SIMULATION_ENDS", json!({}))]));
    let (result, session) = adapter.finish();
    result.unwrap();
    let engine = session.engine().unwrap();
    let record = engine.records().find(|r| r.job.id.0 == 1).unwrap();
    assert_eq!(record.evictions, 0, "the kill was moot");
    assert_eq!(record.end_reason, Some(EndReason::Completed));
    assert_eq!(record.end, Some(Time::from_secs(10)));
    assert_eq!(record.lost_work, Time::ZERO);
}

#[test]
fn two_walltime_kills_of_one_instant_in_two_messages_never_double_book() {
    // Real Batsim may report the two kills at t = 10 in two messages. The
    // second job's processors are busy until its report: deciding on the
    // first message would give them to job 3 while Batsim still runs job 2.
    for policy in Policy::ALL.into_iter().filter(|p| p.allows(Scheduling::HpcFirst)) {
        let adapter = Adapter::start(config(policy));
        let peer = Peer::connect(&adapter.endpoint);
        peer.ask(&begins(4, false, ""));
        let reply = peer.ask(&message(
            0.0,
            vec![
                ("JOB_SUBMITTED", submitted(1, 2, 10.0, "d100")),
                ("JOB_SUBMITTED", submitted(2, 2, 10.0, "d100")),
            ],
        ));
        assert_eq!(types(&reply), ["EXECUTE_JOB", "EXECUTE_JOB"], "{policy}");
        let reply = peer.ask(&message(
            1.0,
            vec![("JOB_SUBMITTED", submitted(3, 4, 10.0, "d10"))],
        ));
        assert!(
            !types(&reply).contains(&"EXECUTE_JOB".to_string()),
            "{policy}: {reply}"
        );
        let killed = |n: u32| {
            json!({"job_id": format!("w0!{n}"), "job_state": "COMPLETED_WALLTIME_REACHED", "return_code": -1,
                "alloc": "0-1"})
        };
        let reply = peer.ask(&message(10.0, vec![("JOB_COMPLETED", killed(1))]));
        assert!(
            !types(&reply).contains(&"EXECUTE_JOB".to_string()),
            "{policy}: job 2 is still running in Batsim: {reply}"
        );
        let reply = peer.ask(&message(10.0, vec![("JOB_COMPLETED", killed(2))]));
        assert_eq!(
            events(&reply),
            vec![(
                "EXECUTE_JOB".to_string(),
                json!({"job_id": "w0!3", "alloc": "0-3"})
            )],
            "{policy}"
        );
        drop(peer);
        let _ = adapter.finish();
    }
}
