//! `interstice batsim` on an `ipc://` endpoint: only Batsim's user (the
//! adapter's own by default, `--driver-uid`) can connect, whatever the
//! umask, so another local user can neither become the driver by speaking
//! first nor disturb the run later. The other user is `nobody`, speaking
//! ZeroMQ (ZMTP 3.0, a REQ socket) from a Python script under `setpriv`;
//! the tests need root to switch users and say so otherwise.

mod protocol_support;

use interstice_batsim::protocol::{serve, ServeReport, ServerError, ServerOptions, Session};
use interstice_core::Policy;
use nix::sys::stat::{umask, Mode};
use protocol_support::{begins, config, message, submitted, Peer};
use serde_json::{json, Value};
use std::io::{BufRead, Write};
use std::os::unix::fs::{MetadataExt, PermissionsExt};
use std::path::Path;
use std::process::Command;
use std::time::Duration;

/// A REQ peer in ZMTP 3.0 (NULL mechanism) over a Unix socket: sends
/// argv[2..] to the socket argv[1] one after the other on one connection,
/// prints each reply's body on a line; `--wait` waits for a line on stdin.
const ZMTP_REQ: &str = r#"
import socket, struct, sys
s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
s.settimeout(10)
s.connect(sys.argv[1])
def read(n):
    data = b""
    while len(data) < n:
        chunk = s.recv(n - len(data))
        if not chunk:
            raise SystemExit("closed")
        data += chunk
    return data
def frame(flags, body):
    if len(body) < 256:
        return bytes([flags]) + bytes([len(body)]) + body
    return bytes([flags | 2]) + struct.pack(">Q", len(body)) + body
s.sendall(b"\xff" + b"\0" * 8 + b"\x7f" + b"\x03\x00" + b"NULL".ljust(20, b"\0") + b"\0" + b"\0" * 31)
read(64)
s.sendall(frame(4, b"\x05READY" + b"\x0bSocket-Type" + struct.pack(">I", 3) + b"REQ"))
for text in sys.argv[2:]:
    if text == "--wait":
        sys.stdin.readline()
        continue
    s.sendall(frame(1, b"") + frame(0, text.encode()))
    parts = []
    while True:
        flags = read(1)[0]
        size = struct.unpack(">Q", read(8))[0] if flags & 2 else read(1)[0]
        body = read(size)
        if flags & 4:
            continue
        parts.append(body)
        if not flags & 1:
            break
    print(parts[-1].decode(), flush=True)
"#;

const PYTHON: &str = "/usr/bin/python3";

/// True if the tests can switch users (root, `setpriv`, `/usr/bin/python3`).
fn privileged() -> bool {
    let setpriv = Command::new("sh")
        .args(["-c", "command -v setpriv"])
        .output()
        .is_ok_and(|output| output.status.success());
    if !nix::unistd::geteuid().is_root() || !setpriv || !Path::new(PYTHON).exists() {
        eprintln!("SKIPPED: needs root, setpriv and {PYTHON} to speak as another user");
        return false;
    }
    true
}

/// Send `texts` to the adapter at `endpoint` as `nobody`, on one
/// connection: the replies, or why it could not (its stderr).
fn ask_as_nobody(endpoint: &str, texts: &[String]) -> Result<Vec<String>, String> {
    let path = endpoint.strip_prefix("ipc://").unwrap();
    let output = Command::new("setpriv")
        .args([
            "--reuid",
            "nobody",
            "--regid",
            "nogroup",
            "--clear-groups",
            PYTHON,
            "-c",
            ZMTP_REQ,
            path,
        ])
        .args(texts)
        .output()
        .unwrap();
    if !output.status.success() {
        return Err(String::from_utf8_lossy(&output.stderr).to_string());
    }
    let stdout = String::from_utf8(output.stdout).unwrap();
    Ok(stdout.lines().map(str::to_string).collect())
}

type Server = std::thread::JoinHandle<Result<ServeReport, ServerError>>;

/// Serve on a new `ipc://` endpoint in a directory everyone may enter,
/// under umask 0 (a socket anyone could connect to, unless the adapter
/// makes it private): its directory, the endpoint and the server thread.
fn serve_open(driver_uid: Option<u32>) -> (tempfile::TempDir, String, Server) {
    let dir = tempfile::tempdir().unwrap();
    std::fs::set_permissions(dir.path(), std::fs::Permissions::from_mode(0o755)).unwrap();
    let socket = dir.path().join("sched.sock");
    let endpoint = format!("ipc://{}", socket.display());
    let options = ServerOptions {
        endpoint: endpoint.clone(),
        timeout: Some(Duration::from_secs(10)),
        driver_uid,
        allow_remote: false,
    };
    let old = umask(Mode::empty());
    let server = std::thread::spawn(move || serve(&options, &mut Session::new(config(Policy::Fcfs))));
    while !socket.exists() {
        std::thread::sleep(Duration::from_millis(5));
    }
    std::thread::sleep(Duration::from_millis(50));
    umask(old);
    (dir, endpoint, server)
}

fn socket_of(endpoint: &str) -> &Path {
    Path::new(endpoint.strip_prefix("ipc://").unwrap())
}

fn completed(now: f64) -> Value {
    let done =
        json!({"job_id": "w0!1", "job_state": "COMPLETED_SUCCESSFULLY", "return_code": 0, "alloc": "0-3"});
    message(now, vec![("JOB_COMPLETED", done)])
}

#[test]
fn another_user_can_neither_drive_nor_disturb_the_run() {
    if !privileged() {
        return;
    }
    let (_dir, endpoint, server) = serve_open(None);
    // nobody tries first, with a perfect SIMULATION_BEGINS.
    let stray = ask_as_nobody(&endpoint, &[begins(4, false, "").to_string()]);
    assert!(
        stray.as_ref().is_err_and(|err| err.contains("Permission denied")),
        "another user reached the scheduler: {stray:?}"
    );
    // The kernel kept it out: the socket is the driver's alone.
    let meta = std::fs::metadata(socket_of(&endpoint)).unwrap();
    assert_eq!(
        (meta.uid(), meta.mode() & 0o777),
        (0, 0o600),
        "the socket is not the driver's alone"
    );
    // Batsim (this process's user) drives.
    let batsim = Peer::connect(&endpoint);
    assert_eq!(
        batsim.ask(&begins(4, false, "")),
        json!({"now": 0.0, "events": []})
    );
    let reply = batsim.ask(&message(
        1.0,
        vec![("JOB_SUBMITTED", submitted(1, 4, 100.0, "d10"))],
    ));
    assert_eq!(reply["events"][0]["type"], "EXECUTE_JOB", "{reply}");
    // Mid-run, nobody tries to end the simulation: it cannot even connect.
    let ends = message(2.0, vec![("SIMULATION_ENDS", json!({}))]).to_string();
    assert!(ask_as_nobody(&endpoint, &[ends]).is_err());
    batsim.ask(&completed(11.0));
    batsim.ask(&message(11.0, vec![("SIMULATION_ENDS", json!({}))]));
    let report = server.join().unwrap().expect("nobody did not end the run");
    assert_eq!(report.messages, 4);
    assert!(!socket_of(&endpoint).exists(), "the socket was left behind");
}

#[test]
fn the_driver_uid_given_drives_and_a_second_peer_is_ignored() {
    if !privileged() {
        return;
    }
    let nobody = nix::unistd::User::from_name("nobody")
        .unwrap()
        .unwrap()
        .uid
        .as_raw();
    let (_dir, endpoint, server) = serve_open(Some(nobody));
    assert_eq!(std::fs::metadata(socket_of(&endpoint)).unwrap().uid(), nobody);
    let texts = [
        begins(4, false, "").to_string(),
        message(1.0, vec![("JOB_SUBMITTED", submitted(1, 4, 100.0, "d10"))]).to_string(),
        "--wait".to_string(),
        completed(11.0).to_string(),
        message(11.0, vec![("SIMULATION_ENDS", json!({}))]).to_string(),
    ];
    let mut driver = Command::new("setpriv")
        .args([
            "--reuid",
            "nobody",
            "--regid",
            "nogroup",
            "--clear-groups",
            PYTHON,
            "-c",
            ZMTP_REQ,
        ])
        .arg(socket_of(&endpoint))
        .args(&texts)
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let mut replies = std::io::BufReader::new(driver.stdout.take().unwrap()).lines();
    let mut next = || replies.next().unwrap().unwrap();
    let first: Value = serde_json::from_str(&next()).unwrap();
    assert_eq!(first, json!({"now": 0.0, "events": []}));
    assert!(next().contains("EXECUTE_JOB"));
    // Mid-run, root (the kernel lets it connect) tries to end the run.
    let reply =
        Peer::connect(&endpoint).ask_raw(&message(2.0, vec![("SIMULATION_ENDS", json!({}))]).to_string());
    assert!(reply.starts_with("interstice error: another Batsim"), "{reply}");
    writeln!(driver.stdin.take().unwrap()).unwrap();
    assert!(next().contains(r#""events":[]"#));
    assert!(driver.wait().unwrap().success());
    let report = server.join().unwrap().expect("nobody drove the run to its end");
    assert_eq!(report.messages, 4);
}

#[test]
fn a_driver_uid_on_tcp_is_refused_with_the_way_out() {
    let options = ServerOptions {
        endpoint: "tcp://127.0.0.1:0".to_string(),
        timeout: Some(Duration::from_secs(1)),
        driver_uid: Some(1000),
        allow_remote: false,
    };
    let mut session = Session::new(config(Policy::Fcfs));
    let error = serve(&options, &mut session).unwrap_err();
    assert!(
        matches!(error, ServerError::DriverUidNeedsIpc { uid: 1000, .. }),
        "{error}"
    );
    assert!(error.to_string().contains("ipc://"), "{error}");
}
