//! The convergence area resized on a running `intersticed` (`POST
//! /v1/area`, SIGHUP with a new `engine.conv_procs`): under load, from 64
//! processors to 32 and back, no accepted job is lost and no cloud job runs
//! outside the area.

mod common;

use interstice_api::client::{Client, ClientError, DEFAULT_TIMEOUT};
use interstice_api::wire::SubmitRequest;
use std::os::unix::fs::PermissionsExt;
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

const BIN: &str = env!("CARGO_BIN_EXE_intersticed");

/// A 64-processor daemon (plugin backend: no HPC work unless told) in a
/// temp dir, killed on drop.
struct Daemon {
    dir: tempfile::TempDir,
    child: Child,
}

impl Daemon {
    fn start(port: u16) -> Daemon {
        let dir = tempfile::tempdir().unwrap();
        std::fs::set_permissions(dir.path(), std::fs::Permissions::from_mode(0o755)).unwrap();
        std::fs::write(dir.path().join("d.yaml"), config(dir.path(), port, 64)).unwrap();
        let log = std::fs::File::create(dir.path().join("log")).unwrap();
        let mut child = Command::new(BIN)
            .current_dir(dir.path())
            .arg("--config")
            .arg(dir.path().join("d.yaml"))
            .stdout(Stdio::null())
            .stderr(log)
            .spawn()
            .unwrap();
        let client = Client::new(dir.path().join("d.sock"), DEFAULT_TIMEOUT);
        let log = || std::fs::read_to_string(dir.path().join("log")).unwrap_or_default();
        common::wait_answering(&client, &mut child, log).unwrap();
        Daemon { dir, child }
    }

    fn client(&self) -> Client {
        Client::new(self.dir.path().join("d.sock"), DEFAULT_TIMEOUT)
    }

    fn log(&self) -> String {
        std::fs::read_to_string(self.dir.path().join("log")).unwrap_or_default()
    }

    /// Rewrite the config with the area at `conv` and send SIGHUP.
    fn reload_with_area(&self, port: u16, conv: u32) {
        std::fs::write(
            self.dir.path().join("d.yaml"),
            config(self.dir.path(), port, conv),
        )
        .unwrap();
        let status = Command::new("kill")
            .args(["-HUP", &self.child.id().to_string()])
            .status()
            .unwrap();
        assert!(status.success());
    }
}

impl Drop for Daemon {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
        interstice_daemon::exec::end_all_jobs(&self.dir.path().join("state"));
    }
}

fn config(dir: &Path, port: u16, conv: u32) -> String {
    format!(
        "api: {{socket: {dir}/d.sock, listen: '127.0.0.1:{port}'}}\nstate_dir: state\n\
         engine: {{procs: 64, conv_procs: {conv}, policy: easy, admission: admit-all, max_resubmissions: 20}}\n\
         backend: {{type: plugin}}\nexecution: {{grace_seconds: 1}}\nnode: {{busy_margin_cpus: 1000}}\nlog_level: info\n",
        dir = dir.display()
    )
}

fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

/// The highest processor of a Batsim interval set (`"40-43"`, `"1 3-4"`).
fn highest(procs: &str) -> u32 {
    procs
        .split([' ', '-'])
        .filter_map(|id| id.parse::<u32>().ok())
        .max()
        .unwrap()
}

/// Every running job's processors are inside `0..area`; returns how many run.
fn check_inside(client: &Client, ids: &[u64], area: u32) -> usize {
    let mut running = 0;
    for &id in ids {
        let view = client.job(id).unwrap();
        if let Some(procs) = &view.processors {
            running += 1;
            assert!(
                highest(procs) < area,
                "job {id} runs on {procs}, outside the area 0..{area}: {view:?}"
            );
        }
    }
    running
}

#[test]
fn a_daemon_resized_from_64_to_32_and_back_under_load_loses_nothing() {
    let port = free_port();
    let daemon = Daemon::start(port);
    let client = daemon.client();
    assert_eq!(client.area().unwrap().procs, 64);
    // 48 jobs of 4 processors, 2 s each: 16 run at a time, in the highest ids first.
    let accepted: Vec<u64> = (0..48)
        .map(|_| {
            let answer = client
                .submit(&SubmitRequest::new(&["/bin/sleep", "2"], 4, 30.0, 3600.0))
                .unwrap();
            assert_eq!(answer.decision, "accepted");
            answer.id
        })
        .collect();
    let deadline = Instant::now() + Duration::from_secs(10);
    while check_inside(&client, &accepted, 64) < 16 {
        assert!(
            Instant::now() < deadline,
            "16 jobs never ran at once: {}",
            daemon.log()
        );
        std::thread::sleep(Duration::from_millis(50));
    }

    // Nobody but root or the batch system resizes: a TCP client names nobody.
    let (status, body) = common::tcp_http(
        &format!("127.0.0.1:{port}"),
        "POST",
        "/v1/area",
        None,
        r#"{"procs": 8}"#,
    );
    assert_eq!(status, 403, "{body}");
    let root = nix::unistd::geteuid().is_root();
    if !root {
        // Over the Unix socket a user is not the batch system either.
        match client.resize_area(32) {
            Err(ClientError::Http { status: 403, message }) => {
                assert!(message.contains("batch system"), "{message}")
            }
            other => panic!("a user resized the area: {other:?}"),
        }
        eprintln!("not root: the resize itself needs root (the batch system's identity here)");
        return;
    }

    let shrink = client.resize_area(32).unwrap();
    assert_eq!(
        (shrink.from, shrink.procs, shrink.configured, shrink.platform),
        (Some(64), 32, 64, 64)
    );
    assert!(!shrink.evicted.is_empty(), "jobs ran on 32-63: {shrink:?}");
    // Once the evicted jobs' grace (1 s) is over, nothing runs outside
    // 0..32 while it is the area.
    std::thread::sleep(Duration::from_millis(1500));
    let until = Instant::now() + Duration::from_secs(3);
    while Instant::now() < until {
        check_inside(&client, &accepted, 32);
        std::thread::sleep(Duration::from_millis(100));
    }

    let grow = client.resize_area(64).unwrap();
    assert_eq!((grow.from, grow.procs), (Some(32), 64));
    assert!(grow.evicted.is_empty());
    // SIGHUP with a new engine.conv_procs resizes too.
    daemon.reload_with_area(port, 48);
    let deadline = Instant::now() + Duration::from_secs(10);
    while client.area().unwrap().procs != 48 {
        assert!(
            Instant::now() < deadline,
            "SIGHUP did not resize: {}",
            daemon.log()
        );
        std::thread::sleep(Duration::from_millis(50));
    }
    std::thread::sleep(Duration::from_millis(1500));
    check_inside(&client, &accepted, 48);

    every_job_completes(&daemon, &accepted);
    let evicted: u32 = accepted.iter().map(|&id| client.job(id).unwrap().evictions).sum();
    // No HPC work: only the two shrinks evicted (SIGHUP's from 48-63).
    assert!(evicted as usize >= shrink.evicted.len());
    assert!(
        daemon
            .log()
            .contains("area 64 -> 48 processors (SIGHUP, engine.conv_procs)"),
        "{}",
        daemon.log()
    );
    let metrics = client.metrics().unwrap();
    assert_eq!(
        interstice_sample(&metrics, "interstice_area_processors"),
        Some(48.0),
        "{metrics}"
    );
    assert_eq!(
        interstice_sample(&metrics, "interstice_area_resizes_total"),
        Some(3.0),
        "{metrics}"
    );
    assert!(
        daemon.log().contains("area 64 -> 32 processors (POST /v1/area)"),
        "{}",
        daemon.log()
    );
}

/// Every accepted job completes (the evicted ones ran again), within 90 s.
fn every_job_completes(daemon: &Daemon, accepted: &[u64]) {
    let client = daemon.client();
    let deadline = Instant::now() + Duration::from_secs(90);
    for &id in accepted {
        loop {
            let view = client.job(id).unwrap();
            if view.state == "completed" {
                break;
            }
            assert!(
                ["queued", "running"].contains(&view.state.as_str()) && Instant::now() < deadline,
                "job {id} is {}: {view:?}\n{}",
                view.state,
                daemon.log()
            );
            std::thread::sleep(Duration::from_millis(100));
        }
    }
}

/// A bad resize is a 422 naming the limit; the area is unchanged.
#[test]
fn a_resize_beyond_the_platform_is_refused() {
    if !nix::unistd::geteuid().is_root() {
        return;
    }
    let daemon = Daemon::start(free_port());
    let client = daemon.client();
    match client.resize_area(65) {
        Err(ClientError::Http { status: 422, message }) => {
            assert!(message.contains("give at most 64"), "{message}")
        }
        other => panic!("{other:?}"),
    }
    assert_eq!(client.area().unwrap().procs, 64);
}

/// The value of an unlabelled series in Prometheus text.
fn interstice_sample(text: &str, series: &str) -> Option<f64> {
    text.lines()
        .find_map(|line| line.strip_prefix(series)?.strip_prefix(' ')?.trim().parse().ok())
}
