//! Shared helpers of the protocol tests: the recorded conversations, an
//! adapter served on a private ipc:// endpoint in a background thread, a raw
//! REQ peer, and the schedule validity check.

#![allow(dead_code)]

use interstice_batsim::protocol::driver::{DriverReport, Workload};
use interstice_batsim::protocol::{serve, AdapterConfig, ServeReport, ServerError, ServerOptions, Session};
use interstice_core::{Policy, Time};
use serde_json::Value;
use std::collections::HashMap;
use std::path::PathBuf;
use std::thread::JoinHandle;
use std::time::Duration;

/// `../shared/batsim/<name>`.
pub fn shared(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../shared/batsim")
        .join(name)
}

/// One line of a recorded conversation.
pub struct Recorded {
    pub seq: u64,
    pub from_batsim: bool,
    pub msg: Value,
    pub raw: String,
}

/// Read a `transcript-*.jsonl`.
pub fn transcript(name: &str) -> Vec<Recorded> {
    let text = std::fs::read_to_string(shared(name)).expect("read transcript");
    text.lines()
        .filter(|line| !line.trim().is_empty())
        .map(|line| {
            let value: Value = serde_json::from_str(line).expect("transcript line is JSON");
            Recorded {
                seq: value["seq"].as_u64().unwrap(),
                from_batsim: value["dir"] == "batsim->sched",
                msg: value["msg"].clone(),
                raw: value["raw"].as_str().unwrap().to_string(),
            }
        })
        .collect()
}

/// A scheduler config with just a policy.
pub fn config(policy: Policy) -> AdapterConfig {
    let mut config = AdapterConfig::default();
    config.engine.policy = Some(policy);
    config
}

/// An adapter serving on a private endpoint in a background thread.
pub struct Adapter {
    pub endpoint: String,
    handle: Option<JoinHandle<(Result<ServeReport, ServerError>, Session)>>,
    _dir: tempfile::TempDir,
}

impl Adapter {
    /// Start serving (5 s timeout so a broken test never hangs).
    pub fn start(config: AdapterConfig) -> Adapter {
        Adapter::start_with_timeout(config, Duration::from_secs(5))
    }

    /// Start serving with this receive timeout.
    pub fn start_with_timeout(config: AdapterConfig, timeout: Duration) -> Adapter {
        let dir = tempfile::tempdir().expect("temp dir");
        let endpoint = format!("ipc://{}/sched.sock", dir.path().display());
        let options = ServerOptions {
            endpoint: endpoint.clone(),
            timeout: Some(timeout),
            driver_uid: None,
            allow_remote: false,
        };
        let handle = std::thread::spawn(move || {
            let mut session = Session::new(config);
            let result = serve(&options, &mut session);
            (result, session)
        });
        // ipc:// needs the bind to exist before a REQ peer's first message
        // is routed; ZeroMQ reconnects anyway, this only avoids a delay.
        let socket_path = dir.path().join("sched.sock");
        for _ in 0..200 {
            if socket_path.exists() {
                break;
            }
            std::thread::sleep(Duration::from_millis(5));
        }
        Adapter {
            endpoint,
            handle: Some(handle),
            _dir: dir,
        }
    }

    /// Wait for the server thread to finish.
    pub fn finish(mut self) -> (Result<ServeReport, ServerError>, Session) {
        self.handle
            .take()
            .unwrap()
            .join()
            .expect("server thread panicked")
    }
}

/// A raw REQ peer (the Batsim side) for hand-written messages.
pub struct Peer {
    _context: zmq::Context,
    socket: zmq::Socket,
}

impl Peer {
    pub fn connect(endpoint: &str) -> Peer {
        let context = zmq::Context::new();
        let socket = context.socket(zmq::REQ).unwrap();
        socket.set_rcvtimeo(10_000).unwrap();
        socket.set_linger(0).unwrap();
        socket.connect(endpoint).unwrap();
        Peer {
            _context: context,
            socket,
        }
    }

    /// Send raw text, return the raw reply.
    pub fn ask_raw(&self, text: &str) -> String {
        self.socket.send(text.as_bytes(), 0).unwrap();
        let bytes = self.socket.recv_bytes(0).expect("a reply within 10 s");
        String::from_utf8(bytes).unwrap()
    }

    /// Send a message, return the reply parsed (panics if not JSON).
    pub fn ask(&self, message: &Value) -> Value {
        let reply = self.ask_raw(&message.to_string());
        serde_json::from_str(&reply).unwrap_or_else(|e| panic!("reply is not JSON ({e}): {reply}"))
    }
}

/// `SIMULATION_BEGINS` for `n` resources with Batsim's config keys.
pub fn begins(n: u32, dynamic: bool, sched_config: &str) -> Value {
    let resources: Vec<Value> = (0..n)
        .map(|id| serde_json::json!({"id": id, "name": format!("host{id}")}))
        .collect();
    serde_json::json!({"now": 0.0, "events": [{"timestamp": 0.0, "type": "SIMULATION_BEGINS", "data": {
        "nb_resources": n, "nb_compute_resources": n,
        "config": {"dynamic-jobs-enabled": dynamic, "dynamic-jobs-acknowledged": false, "sched-config": sched_config},
        "compute_resources": resources, "storage_resources": [],
        "workloads": {"w0": "/data/test.json"},
        "profiles": {"w0": {"d10": {"type": "delay", "delay": 10}, "d100": {"type": "delay", "delay": 100}}}
    }}]})
}

/// A message at `now` with these events (each stamped `now`).
pub fn message(now: f64, events: Vec<(&str, Value)>) -> Value {
    let events: Vec<Value> = events
        .into_iter()
        .map(|(kind, data)| serde_json::json!({"timestamp": now, "type": kind, "data": data}))
        .collect();
    serde_json::json!({"now": now, "events": events})
}

/// `JOB_SUBMITTED` data for `w0!<n>`.
pub fn submitted(n: u64, res: u32, walltime: f64, profile: &str) -> Value {
    let id = format!("w0!{n}");
    serde_json::json!({"job_id": id, "job": {"id": id, "subtime": 0, "walltime": walltime, "res": res, "profile": profile}})
}

/// The events of a reply, as (type, data).
pub fn events(reply: &Value) -> Vec<(String, Value)> {
    reply["events"]
        .as_array()
        .expect("events array")
        .iter()
        .map(|e| (e["type"].as_str().unwrap().to_string(), e["data"].clone()))
        .collect()
}

/// Check a driven run: every static job ran to completion once (or was
/// rejected), on exactly `res` existing resources, not before its
/// submission, and no resource ran two jobs at once.
pub fn check_schedule(workload: &Workload, nb_res: u32, report: &DriverReport) {
    let mut finals: HashMap<&str, usize> = HashMap::new();
    for execution in &report.executions {
        assert_eq!(
            execution.alloc.len(),
            execution.res,
            "{}: alloc size",
            execution.job_id
        );
        assert!(
            execution.alloc.iter().all(|p| p < nb_res),
            "{}: alloc within the platform",
            execution.job_id
        );
        assert!(
            execution.start >= execution.submit,
            "{}: started before submission",
            execution.job_id
        );
        assert!(
            execution.end >= execution.start,
            "{}: ends before it starts",
            execution.job_id
        );
        if execution.state != "COMPLETED_KILLED" {
            *finals.entry(execution.job_id.as_str()).or_default() += 1;
        }
    }
    for job in &workload.jobs {
        let runs = finals.get(job.id.as_str()).copied().unwrap_or(0);
        let rejected = report.rejected.iter().filter(|id| **id == job.id).count();
        assert_eq!(
            runs + rejected,
            1,
            "job {} must complete exactly once or be rejected",
            job.id
        );
    }
    // No double booking: per resource, runs do not overlap.
    let mut per_resource: HashMap<u32, Vec<(Time, Time, &str)>> = HashMap::new();
    for execution in &report.executions {
        for p in execution.alloc.iter() {
            per_resource
                .entry(p)
                .or_default()
                .push((execution.start, execution.end, &execution.job_id));
        }
    }
    for (resource, mut runs) in per_resource {
        runs.sort();
        for pair in runs.windows(2) {
            assert!(
                pair[1].0 >= pair[0].1,
                "resource {resource}: {} [{}, {}) overlaps {} [{}, {})",
                pair[0].2,
                pair[0].0,
                pair[0].1,
                pair[1].2,
                pair[1].0,
                pair[1].1
            );
        }
    }
}
