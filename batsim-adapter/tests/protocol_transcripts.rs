//! Replays conversations recorded with a real Batsim 4.2.1 verbatim: every
//! `batsim->sched` message is sent as recorded (exact wire bytes) over a real
//! REQ socket, and each answer is compared with the recorded scheduler's.

mod protocol_support;

use interstice_core::{Policy, ProcSet};
use protocol_support::{config, events, transcript, Adapter, Peer};
use serde_json::Value;
use std::collections::BTreeSet;

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
fn walltime_kills_are_handled_and_every_job_starts_at_once() {
    // 44 one-resource jobs on 512 resources: all start in the first decision.
    // Batsim sends same-time jobs sorted by id as text (w0!1, w0!10, w0!1001…);
    // the adapter submits them by job number, so allocations may differ from
    // the recorded scheduler's, but the set of started jobs is the same.
    let pairs = replay("transcript-walltime-kills.jsonl", Policy::Fcfs);
    for (idx, (recorded, ours)) in pairs.iter().enumerate() {
        let ids = |reply: &Value| -> BTreeSet<String> {
            decisions(reply)
                .into_iter()
                .filter(|(kind, _)| kind == "EXECUTE_JOB")
                .map(|(_, data)| data["job_id"].as_str().unwrap().to_string())
                .collect()
        };
        assert_eq!(ids(ours), ids(recorded), "exchange {idx}: started jobs differ");
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
    let started: usize = pairs.iter().map(|(_, ours)| decisions(ours).len()).sum();
    assert_eq!(started, 22 + 22, "44 jobs, each started once");
}
