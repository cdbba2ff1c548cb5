//! `interstice jobs` over a daemon that answers `GET /v1/jobs` a page at a
//! time (issue 42): the CLI follows `next_cursor`, so its list is every job,
//! as when the daemon answered them all at once.

use interstice_api::client::{Client, DEFAULT_TIMEOUT};
use interstice_api::wire::{EventKind, HpcEventRequest, SubmitRequest};
use interstice_tests::{artifact, interstice_bin};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

struct Daemon(Child);

impl Drop for Daemon {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// More jobs than a default page (100) holds: three pages.
const JOBS: u64 = 250;

#[test]
fn interstice_jobs_lists_every_page() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path().display();
    std::fs::write(
        dir.path().join("d.yaml"),
        format!(
            "api: {{socket: {d}/d.sock}}\nstate_dir: {d}/state\nengine: {{procs: 4}}\n\
             backend: {{type: plugin}}\nnode: {{busy_margin_cpus: 1000}}\n"
        ),
    )
    .unwrap();
    let log = std::fs::File::create(dir.path().join("log")).unwrap();
    let _daemon = Daemon(
        Command::new(artifact("intersticed"))
            .arg("--config")
            .arg(dir.path().join("d.yaml"))
            .stdout(Stdio::null())
            .stderr(log)
            .spawn()
            .unwrap(),
    );
    let socket = dir.path().join("d.sock");
    let client = Client::new(&socket, DEFAULT_TIMEOUT);
    let deadline = Instant::now() + Duration::from_secs(15);
    while client.health().is_err() {
        let log = std::fs::read_to_string(dir.path().join("log")).unwrap_or_default();
        assert!(Instant::now() < deadline, "the daemon did not start: {log}");
        std::thread::sleep(Duration::from_millis(50));
    }
    // HPC work over the whole area for an hour: every submission is
    // rejected, and recorded (nothing runs).
    client
        .hpc_event(&HpcEventRequest {
            kind: EventKind::Submitted,
            id: "hpc-1".to_string(),
            procs: 4,
            walltime: 3600.0,
            time: None,
            cpus: None,
        })
        .unwrap();
    let request: SubmitRequest =
        serde_json::from_str(r#"{"procs": 1, "walltime": 10, "slo": 20, "argv": ["/bin/true"]}"#).unwrap();
    let ids: Vec<u64> = (0..JOBS).map(|_| client.submit(&request).unwrap().id).collect();
    assert!(
        client.jobs_page(None, None).unwrap().next_cursor.is_some(),
        "the daemon pages"
    );

    let output = Command::new(interstice_bin())
        .args(["jobs", "--daemon"])
        .arg(&socket)
        .arg("--json")
        .output()
        .unwrap();
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let listed: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
    let listed: Vec<u64> = listed["jobs"]
        .as_array()
        .unwrap()
        .iter()
        .map(|job| job["id"].as_u64().unwrap())
        .collect();
    assert_eq!(listed, ids, "every job, by id");

    let table = Command::new(interstice_bin())
        .args(["jobs", "--daemon"])
        .arg(&socket)
        .output()
        .unwrap();
    let table = String::from_utf8(table.stdout).unwrap();
    let rows = table.lines().filter(|line| line.contains("rejected")).count();
    assert_eq!(rows as u64, JOBS, "{table}");
}
