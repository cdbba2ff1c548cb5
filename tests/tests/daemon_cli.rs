//! The shipped demo config runs under the real `intersticed`, and the
//! `interstice` client subcommands talk to it over its socket.

use interstice_tests::{artifact, assert_output_errors_handled, interstice_bin, repo_root};
use std::os::unix::fs::PermissionsExt;
use std::process::{Child, Command, Output, Stdio};
use std::time::{Duration, Instant};

struct Daemon(Child);

impl Drop for Daemon {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

fn cli(socket: &std::path::Path, args: &[&str]) -> Output {
    let mut command = Command::new(interstice_bin());
    command
        .args(&args[..1])
        .arg("--daemon")
        .arg(socket)
        .args(&args[1..]);
    command.output().expect("run interstice")
}

fn json(output: &Output) -> serde_json::Value {
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    serde_json::from_slice(&output.stdout).expect("JSON on stdout")
}

#[test]
fn demo_config_serves_the_cli() {
    let daemon_bin = artifact("intersticed");
    let dir = tempfile::tempdir().unwrap();
    std::fs::set_permissions(dir.path(), std::fs::Permissions::from_mode(0o755)).unwrap();
    let socket = dir.path().join("demo.sock");
    let log = std::fs::File::create(dir.path().join("log")).unwrap();
    let child = Command::new(daemon_bin)
        .current_dir(repo_root())
        .args([
            "--config",
            "packaging/examples/demo.yaml",
            "--listen",
            "127.0.0.1:0",
        ])
        .arg("--socket")
        .arg(&socket)
        .arg("--state")
        .arg(dir.path().join("state"))
        .stdout(Stdio::null())
        .stderr(log)
        .spawn()
        .unwrap();
    let _daemon = Daemon(child);
    let deadline = Instant::now() + Duration::from_secs(15);
    while !cli(&socket, &["health"]).status.success() {
        let log = std::fs::read_to_string(dir.path().join("log")).unwrap_or_default();
        assert!(Instant::now() < deadline, "demo daemon did not start: {log}");
        std::thread::sleep(Duration::from_millis(50));
    }
    assert_eq!(json(&cli(&socket, &["health"]))["backend"], "embedded");

    let submitted = json(&cli(&socket, &["submit", "--", "/bin/sleep", "0.2"]));
    assert_eq!(submitted["decision"], "accepted");
    let id_number = submitted["id"].as_u64().unwrap();
    let id = id_number.to_string();
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        let view = json(&cli(&socket, &["jobs", &id]));
        if view["state"] == "completed" {
            assert_eq!(view["exit_code"], 0);
            break;
        }
        assert!(Instant::now() < deadline, "job stuck: {view}");
        std::thread::sleep(Duration::from_millis(50));
    }
    let listed = json(&cli(&socket, &["jobs"]));
    assert!(listed["jobs"]
        .as_array()
        .unwrap()
        .iter()
        .any(|job| job["id"].as_u64() == Some(id_number)));

    let predicted = json(&cli(
        &socket,
        &["predict", "--cloud-procs", "2", "--walltime", "30"],
    ));
    assert!(
        predicted["predicted_completion"].as_f64().unwrap() >= predicted["predicted_start"].as_f64().unwrap()
    );
    let slots = json(&cli(&socket, &["slots"]));
    assert!(slots["now"].as_f64().unwrap() > 1.0e9);
    for command in ["jobs", "slots", "health"] {
        assert_output_errors_handled(
            || {
                let mut cmd = Command::new(interstice_bin());
                cmd.arg(command).arg("--daemon").arg(&socket);
                cmd
            },
            command,
        );
    }

    let long = json(&cli(
        &socket,
        &["submit", "--walltime", "60", "--", "/bin/sleep", "30"],
    ));
    let long_id = long["id"].as_u64().unwrap().to_string();
    let cancelled = json(&cli(&socket, &["cancel", &long_id]));
    assert!(
        ["cancelling", "cancelled"].contains(&cancelled["state"].as_str().unwrap()),
        "{cancelled}"
    );

    let too_wide = cli(&socket, &["submit", "-n", "1000", "--", "/bin/true"]);
    assert_eq!(too_wide.status.code(), Some(3), "refused by the daemon (422)");
    let stderr = String::from_utf8_lossy(&too_wide.stderr);
    assert!(
        stderr.contains("422") && stderr.contains("at most 100"),
        "{stderr}"
    );

    let mut stream = std::os::unix::net::UnixStream::connect(&socket).unwrap();
    use std::io::{Read, Write};
    stream
        .write_all(b"GET /metrics HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
        .unwrap();
    let mut text = String::new();
    stream.read_to_string(&mut text).unwrap();
    assert!(
        text.contains("interstice_admissions_total{decision=\"admitted\"} 2"),
        "{text}"
    );
}

/// A daemon that is not there is its own exit status (6), not a refusal (3)
/// nor an internal error (1).
#[test]
fn an_unreachable_daemon_exits_6() {
    let dir = tempfile::tempdir().unwrap();
    let socket = dir.path().join("none.sock");
    for command in [&["health"][..], &["jobs"], &["submit", "--", "/bin/true"]] {
        let output = Command::new(interstice_bin())
            .args(command)
            .arg("--daemon")
            .arg(&socket)
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert_eq!(output.status.code(), Some(6), "{command:?}: {stderr}");
        assert!(stderr.contains("cannot connect to intersticed"), "{stderr}");
    }
}
