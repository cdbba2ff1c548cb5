//! The broker against fake members on Unix sockets: a member that answers
//! slowly is measured, and its measured latency moves the next job.

use super::broker::Broker;
use super::slots_view;
use crate::actor::Owner;
use crate::clock::{Clock, ManualClock};
use crate::config::{BrokerConfig, BrokerRules};
use crate::metrics::Metrics;
use crate::store::Store;
use interstice_api::wire::{SubmitRequest, SubmitResponse, TupleRequest};
use interstice_core::{EngineConfig, ImmediateSlot, Policy, Slots, Time};
use std::io::{Read, Write};
use std::os::unix::net::UnixListener;
use std::path::Path;
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::Arc;
use std::time::Duration;

const NOW: i64 = 1_700_000_000;

/// A member at `path` that accepts every job after `delay`; counts them.
fn fake_member(path: &Path, delay: Duration) -> Arc<AtomicU32> {
    let listener = UnixListener::bind(path).unwrap();
    let taken = Arc::new(AtomicU32::new(0));
    let count = Arc::clone(&taken);
    std::thread::spawn(move || {
        for stream in listener.incoming() {
            let Ok(mut stream) = stream else { return };
            // The request: headers, then Content-Length bytes of body.
            let mut read = Vec::new();
            let mut buf = [0u8; 4096];
            loop {
                let n = stream.read(&mut buf).unwrap_or(0);
                read.extend_from_slice(&buf[..n]);
                let text = String::from_utf8_lossy(&read).to_string();
                if let Some(end) = text.find("\r\n\r\n") {
                    let length: usize = text
                        .lines()
                        .find_map(|l| l.strip_prefix("Content-Length: "))
                        .map_or(0, |v| v.trim().parse().unwrap());
                    if read.len() >= end + 4 + length || n == 0 {
                        break;
                    }
                }
                if n == 0 {
                    break;
                }
            }
            std::thread::sleep(delay);
            let id = count.fetch_add(1, Ordering::SeqCst) + 1;
            let body = serde_json::to_string(&SubmitResponse {
                id: u64::from(id),
                decision: "accepted".into(),
                predicted_start: Some(NOW as f64),
                predicted_completion: Some(NOW as f64 + 60.0),
                violation_seconds: None,
                counter_offer_slo: None,
                violation_probability: None,
                member: None,
                refusal: None,
            })
            .unwrap();
            let _ = write!(
                stream,
                "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
                body.len()
            );
        }
    });
    taken
}

/// Four processors idle for ever, published at `NOW`.
fn idle_tuple(address: &str) -> TupleRequest {
    let now = Time::from_secs(NOW);
    let slots = Slots {
        immediate: (0..4)
            .map(|proc| ImmediateSlot {
                proc,
                idle_until: Time::INFINITY,
            })
            .collect(),
        future: vec![],
    };
    TupleRequest {
        address: address.to_string(),
        procs: 4,
        features: vec![],
        overbooking: 1.0,
        slots: slots_view(now, &slots),
    }
}

fn broker(dir: &Path, yaml: &str) -> Broker {
    let config: BrokerConfig = serde_yaml::from_str(yaml).unwrap();
    let store = Store::open(&dir.join("broker.sqlite")).unwrap();
    let rules = BrokerRules::of(&EngineConfig::new(4, Policy::Fcfs));
    let clock = Clock::Manual(ManualClock::new(Time::from_secs(NOW)));
    Broker::new(store, &config, rules, clock)
}

const ROOT: Owner = Owner {
    uid: Some(0),
    gid: Some(0),
    pid: None,
};

#[test]
fn a_slow_member_s_measured_round_trip_sends_the_next_job_elsewhere() {
    let dir = tempfile::tempdir().unwrap();
    // "a" answers after 300 ms, "b" at once; both idle, "a" first by address.
    let (a, b) = (dir.path().join("a.sock"), dir.path().join("b.sock"));
    let on_a = fake_member(&a, Duration::from_millis(300));
    let on_b = fake_member(&b, Duration::ZERO);
    let broker = broker(dir.path(), "{member_max_age_seconds: 1e9}");
    let (a, b) = (a.display().to_string(), b.display().to_string());
    broker.publish(idle_tuple(&a)).unwrap();
    broker.publish(idle_tuple(&b)).unwrap();
    let job = || SubmitRequest::new(&["/bin/true"], 1, 60.0, 600.0);

    // Nothing measured: r = engine.latency = 0 on both, completion NOW + 60
    // on both, the tie kept in address order: "a".
    let first = broker.submit(job(), ROOT).unwrap();
    assert_eq!(first.member.as_deref(), Some(a.as_str()));
    let listed = broker.members().unwrap().members;
    let rtt_a = listed[0].rtt_seconds.expect("a's forward was timed");
    assert!((0.3..5.0).contains(&rtt_a), "{listed:?}");
    assert_eq!(listed[0].latency_seconds, rtt_a);
    assert_eq!((listed[1].rtt_seconds, listed[1].latency_seconds), (None, 0.0));

    // Now F^r(a) = its round trip (≥ 0.3 s), F^r(b) = 0: "b" completes first.
    let second = broker.submit(job(), ROOT).unwrap();
    assert_eq!(second.member.as_deref(), Some(b.as_str()));
    assert_eq!((on_a.load(Ordering::SeqCst), on_b.load(Ordering::SeqCst)), (1, 1));

    // The metrics show both members' links.
    let metrics = Metrics::new();
    metrics.set_members(&broker.members().unwrap().members);
    let text = metrics.render();
    assert!(
        text.contains(&format!(
            "interstice_datacenter_member_rtt_seconds{{member=\"{a}\"}} {rtt_a}"
        )),
        "{text}"
    );
    assert!(
        text.contains(&format!(
            "interstice_datacenter_member_latency_seconds{{member=\"{a}\"}} {rtt_a}"
        )),
        "{text}"
    );
}

#[test]
fn a_large_job_s_transfer_time_counts_against_every_member() {
    let dir = tempfile::tempdir().unwrap();
    let a = dir.path().join("a.sock");
    let _on_a = fake_member(&a, Duration::ZERO);
    // 1 MB/s to the members and a 5 s monitoring delay.
    let broker = broker(
        dir.path(),
        "{member_max_age_seconds: 1e9, bandwidth_bytes_per_second: 1e6, monitoring_seconds: 5}",
    );
    broker.publish(idle_tuple(&a.display().to_string())).unwrap();
    let predict = |bytes: Option<u64>| {
        broker
            .predict(interstice_api::wire::PredictRequest {
                procs: 1,
                walltime: 60.0,
                slo: 100.0,
                admission: false,
                features: vec![],
                class: None,
                bytes,
            })
            .unwrap()
    };
    // 0 bytes: r = 0 + 0 + 5 s: start NOW + 5, complete NOW + 65, within the SLO.
    let small = predict(None);
    assert_eq!(small.predicted_start, Some(NOW as f64 + 5.0));
    assert_eq!(small.predicted_completion, Some(NOW as f64 + 65.0));
    assert_eq!(small.predicts_violation, Some(false));
    // 50 MB: r = 0 + 50 + 5 = 55 s: start NOW + 55, complete NOW + 115,
    // 15 s past the deadline; the SLO it can meet is 115 s.
    let large = predict(Some(50_000_000));
    assert_eq!(large.predicted_start, Some(NOW as f64 + 55.0));
    assert_eq!(large.predicted_completion, Some(NOW as f64 + 115.0));
    assert_eq!(large.predicts_violation, Some(true));
    assert_eq!(large.counter_offer_slo, Some(115.0));
}
