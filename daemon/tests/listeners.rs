//! The listeners against a local attacker: the TCP listener serves only
//! `/metrics` and `/healthz` unless a bearer token opens the API; connection
//! limits per listener and per uid with root's reserve; idle connections
//! closed. Real `intersticed`, real sockets; the non-root peers are this test
//! binary re-run as other uids (the tests that need them skip when not root).

mod common;

use interstice_api::client::{Client, DEFAULT_TIMEOUT};
use std::io::{Read, Write};
use std::os::unix::fs::PermissionsExt;
use std::os::unix::net::UnixStream;
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

const BIN: &str = env!("CARGO_BIN_EXE_intersticed");

struct Daemon {
    dir: tempfile::TempDir,
    child: Child,
}

impl Drop for Daemon {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
        // Its jobs outlive it (a restarted daemon adopts them): end them.
        interstice_daemon::exec::end_all_jobs(&self.dir.path().join("state"));
    }
}

fn free_port() -> String {
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    format!("127.0.0.1:{port}")
}

fn config(dir: &Path, api: &str) -> PathBuf {
    let path = dir.join("d.yaml");
    std::fs::write(
        &path,
        format!(
            "api: {{socket: {dir}/d.sock{api}}}\nstate_dir: {dir}/state\nengine: {{procs: 4}}\n\
             backend: {{type: plugin}}\nlog_level: info\n",
            dir = dir.display()
        ),
    )
    .unwrap();
    path
}

/// Run the daemon on `api` (extra keys of the `api:` map); `None` if it exits.
fn start(api: &str, prepare: impl FnOnce(&Path)) -> Result<Daemon, String> {
    let dir = tempfile::tempdir().unwrap();
    std::fs::set_permissions(dir.path(), std::fs::Permissions::from_mode(0o755)).unwrap();
    prepare(dir.path());
    let config = config(dir.path(), api);
    let child = Command::new(BIN)
        .arg("--config")
        .arg(&config)
        .stdout(Stdio::null())
        .stderr(std::fs::File::create(dir.path().join("log")).unwrap())
        .spawn()
        .unwrap();
    let mut daemon = Daemon { dir, child };
    let client = Client::new(daemon.dir.path().join("d.sock"), DEFAULT_TIMEOUT);
    let log_path = daemon.dir.path().join("log");
    common::wait_answering(&client, &mut daemon.child, || {
        std::fs::read_to_string(&log_path).unwrap_or_default()
    })?;
    Ok(daemon)
}

impl Daemon {
    fn log(&self) -> String {
        std::fs::read_to_string(self.dir.path().join("log")).unwrap_or_default()
    }

    fn socket(&self) -> PathBuf {
        self.dir.path().join("d.sock")
    }
}

fn http(addr: &str, method: &str, path: &str, token: Option<&str>) -> (u16, String) {
    common::tcp_http(addr, method, path, token, "{}")
}

#[test]
fn tcp_serves_only_metrics_and_health_without_a_token() {
    let addr = free_port();
    let daemon = start(&format!(", listen: '{addr}'"), |_| {}).unwrap();
    for (method, path) in [
        ("GET", "/v1/jobs"),
        ("POST", "/v1/jobs"),
        ("POST", "/v1/hpc/events"),
        ("POST", "/v1/predict"),
        ("GET", "/v1/slots"),
        ("DELETE", "/v1/jobs/1"),
    ] {
        let (status, body) = http(&addr, method, path, None);
        assert_eq!(status, 403, "{method} {path}: {body}");
        assert!(body.contains("Unix socket"), "{body}");
    }
    assert_eq!(http(&addr, "GET", "/healthz", None).0, 200);
    assert_eq!(http(&addr, "GET", "/metrics", None).0, 200);
    // The socket still serves everything.
    let client = Client::new(daemon.socket(), DEFAULT_TIMEOUT);
    assert!(client.jobs().is_ok());
}

const TOKEN: &str = "0123456789abcdef0123456789abcdef";

#[test]
fn a_bearer_token_opens_the_api_on_tcp() {
    let addr = free_port();
    let missing = start(
        &format!(", listen: '{addr}', token_file: /nonexistent/token"),
        |_| {},
    );
    let err = missing.err().expect("a missing token file is refused");
    assert!(err.contains("api.token_file"), "{err}");
    let dir = tempfile::tempdir().unwrap();
    let token_file = dir.path().join("token");
    std::fs::write(&token_file, format!("{TOKEN}\n")).unwrap();
    std::fs::set_permissions(&token_file, std::fs::Permissions::from_mode(0o644)).unwrap();
    let loose = start(
        &format!(", listen: '{addr}', token_file: {}", token_file.display()),
        |_| {},
    );
    let err = loose.err().expect("a token file others may read is refused");
    assert!(err.contains("chmod 600"), "{err}");

    std::fs::set_permissions(&token_file, std::fs::Permissions::from_mode(0o600)).unwrap();
    let _daemon = start(
        &format!(", listen: '{addr}', token_file: {}", token_file.display()),
        |_| {},
    )
    .unwrap();
    let (status, body) = http(&addr, "GET", "/v1/jobs", None);
    assert_eq!(status, 401, "{body}");
    assert!(body.contains("Bearer"), "{body}");
    let (status, body) = http(&addr, "GET", "/v1/jobs", Some("0123456789abcdef0123456789abcdeX"));
    assert_eq!(status, 401, "{body}");
    let (status, body) = http(&addr, "GET", "/v1/jobs", Some(TOKEN));
    assert_eq!(status, 200, "{body}");
    assert_eq!(http(&addr, "GET", "/healthz", None).0, 200);
    // The shared client (a data center's members and broker) sends it.
    let endpoint: interstice_api::Endpoint = format!("http://{addr}").parse().unwrap();
    let client = Client::at(endpoint.clone(), DEFAULT_TIMEOUT);
    assert!(client.jobs().is_err());
    let admin = client.with_token(Some(TOKEN.to_string()));
    assert!(admin.jobs().is_ok());
    // The token holder acts as root: it may submit (a broker forwarding
    // over TCP), and the job runs as execution.user.
    let answer = admin
        .submit(&interstice_api::wire::SubmitRequest {
            procs: 1,
            walltime: 30.0,
            slo: 60.0,
            argv: vec!["/bin/true".into()],
            env: None,
            workdir: None,
            class: None,
            features: Vec::new(),
            on_behalf_of: None,
            memory_mb: None,
            bytes: None,
        })
        .expect("a token holder submits over TCP");
    assert_eq!(answer.decision, "accepted");
}

#[test]
fn idle_connections_are_closed() {
    let daemon = start(", idle_timeout_seconds: 1", |_| {}).unwrap();
    let mut idle = UnixStream::connect(daemon.socket()).unwrap();
    idle.set_read_timeout(Some(Duration::from_secs(10))).unwrap();
    let started = Instant::now();
    let mut buffer = [0u8; 64];
    // Closed by the daemon (EOF), not by the read timeout.
    assert_eq!(idle.read(&mut buffer).unwrap_or(usize::MAX), 0);
    let took = started.elapsed();
    assert!(took < Duration::from_secs(5), "closed after {took:?}");
    // Half a request head is no better.
    let mut slow = UnixStream::connect(daemon.socket()).unwrap();
    slow.write_all(b"GET /healthz HTTP/1.1\r\nHost: x\r\n").unwrap();
    slow.set_read_timeout(Some(Duration::from_secs(10))).unwrap();
    let mut answer = Vec::new();
    let _ = slow.read_to_end(&mut answer);
    assert!(!String::from_utf8_lossy(&answer).contains("200 OK"));
}

/// Env var that turns this binary into a peer holding connections.
const HOLD: &str = "INTERSTICE_TEST_HOLD";

/// As a peer (`HOLD=socket,count`): open `count` connections, print how many
/// the daemon kept and how many it closed at once, then hold them until stdin closes.
#[test]
fn hold_connections_helper() {
    let Ok(spec) = std::env::var(HOLD) else {
        return;
    };
    let (socket, count) = spec.split_once(',').unwrap();
    let mut streams: Vec<Box<dyn Held>> = Vec::new();
    for _ in 0..count.parse::<usize>().unwrap() {
        match socket.strip_prefix("tcp:") {
            Some(addr) => streams.push(Box::new(std::net::TcpStream::connect(addr).unwrap())),
            None => streams.push(Box::new(UnixStream::connect(socket).unwrap())),
        }
    }
    std::thread::sleep(Duration::from_millis(500));
    let (mut kept, mut closed) = (0, 0);
    for stream in &mut streams {
        stream.timeout(Duration::from_millis(300));
        match stream.read(&mut [0u8; 16]) {
            Ok(0) => closed += 1,
            Err(err) if err.kind() == std::io::ErrorKind::WouldBlock => kept += 1,
            other => panic!("{other:?}"),
        }
    }
    println!("kept={kept} closed={closed}");
    std::io::stdout().flush().unwrap();
    let _ = std::io::stdin().read(&mut [0u8; 1]);
}

/// A connection the helper holds: Unix or TCP.
trait Held: Read {
    fn timeout(&self, timeout: Duration);
}

impl Held for UnixStream {
    fn timeout(&self, timeout: Duration) {
        self.set_read_timeout(Some(timeout)).unwrap();
    }
}

impl Held for std::net::TcpStream {
    fn timeout(&self, timeout: Duration) {
        self.set_read_timeout(Some(timeout)).unwrap();
    }
}

/// Open `count` connections as `uid` (to a Unix socket, or `tcp:ADDR`); the
/// helper's report and the process (holding them).
fn hold_as(uid: u32, socket: &Path, count: usize) -> (String, Child) {
    let mut child = Command::new(std::env::current_exe().unwrap())
        .args([
            "--exact",
            "hold_connections_helper",
            "--nocapture",
            "--test-threads",
            "1",
        ])
        .env(HOLD, format!("{},{count}", socket.display()))
        .uid(uid)
        .gid(65534)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let out = std::io::BufReader::new(child.stdout.take().unwrap());
    let report = std::io::BufRead::lines(out)
        .map_while(Result::ok)
        .find_map(|line| line.find("kept=").map(|at| line[at..].to_string()))
        .unwrap_or_default();
    (report, child)
}

#[test]
fn connection_limits_per_uid_and_listener_keep_room_for_root() {
    if !nix_is_root() {
        eprintln!("skipped: needs root to connect as other uids");
        return;
    }
    let daemon = start(
        ", max_connections: 4, max_connections_per_uid: 2, idle_timeout_seconds: 30",
        |_| {},
    )
    .unwrap();
    std::fs::set_permissions(daemon.socket(), std::fs::Permissions::from_mode(0o666)).unwrap();
    // One uid: 2 kept, the rest closed at once.
    let (report, first) = hold_as(65534, &daemon.socket(), 4);
    assert_eq!(report, "kept=2 closed=2", "{}", daemon.log());
    // Another uid: 1 more fits (4 - 1 kept for root), then the listener is full for non-root.
    let (report, second) = hold_as(65533, &daemon.socket(), 2);
    assert_eq!(report, "kept=1 closed=1", "{}", daemon.log());
    // Root still gets in.
    let client = Client::new(daemon.socket(), Duration::from_secs(5));
    assert_eq!(client.health().unwrap().status, "ok");
    let log = daemon.log();
    assert!(
        log.contains("connection refused") && log.contains("65534"),
        "{log}"
    );
    assert!(log.contains("unix socket"), "{log}");
    for mut child in [first, second] {
        drop(child.stdin.take());
        let _ = child.wait();
    }
}

fn nix_is_root() -> bool {
    std::fs::metadata("/proc/self")
        .map(|meta| std::os::unix::fs::MetadataExt::uid(&meta) == 0)
        .unwrap_or(false)
}

#[test]
fn loopback_tcp_peers_are_counted_by_uid_and_root_keeps_its_room() {
    if !nix_is_root() {
        eprintln!("skipped: needs root to connect as other uids");
        return;
    }
    let addr = free_port();
    let daemon = start(
        &format!(
            ", listen: '{addr}', max_connections: 4, max_connections_per_uid: 2, idle_timeout_seconds: 30"
        ),
        |_| {},
    )
    .unwrap();
    let tcp = std::path::PathBuf::from(format!("tcp:{addr}"));
    // One local user: 2 kept, the rest closed at once.
    let (report, first) = hold_as(65534, &tcp, 4);
    assert_eq!(report, "kept=2 closed=2", "{}", daemon.log());
    // Another: 1 more fits (4 - 1 kept for root).
    let (report, second) = hold_as(65533, &tcp, 2);
    assert_eq!(report, "kept=1 closed=1", "{}", daemon.log());
    // Root (a broker, a member, an admin) still gets in over TCP.
    let (status, body) = http(&addr, "GET", "/healthz", None);
    assert_eq!(status, 200, "{body}");
    let log = daemon.log();
    assert!(log.contains("tcp") && log.contains("65534"), "{log}");
    for mut child in [first, second] {
        drop(child.stdin.take());
        let _ = child.wait();
    }
}
