//! The CLI and the C ABI talk to a broker exactly as to a member: a real
//! broker `intersticed` in front of a real member, `interstice submit`/`jobs`
//! and a C program using `libinterstice_ffi.so` against the broker's socket.

use interstice_tests::{artifact, interstice_bin, repo_root};
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::time::{Duration, Instant};

struct Daemon(Child);

impl Drop for Daemon {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

fn start(dir: &Path, name: &str, config: String) -> (Daemon, PathBuf) {
    let path = dir.join(format!("{name}.yaml"));
    std::fs::write(&path, config).unwrap();
    let log = std::fs::File::create(dir.join(format!("{name}.log"))).unwrap();
    let child = Command::new(artifact("intersticed"))
        .arg("--config")
        .arg(&path)
        .stdout(Stdio::null())
        .stderr(log)
        .spawn()
        .unwrap();
    let socket = dir.join(format!("{name}.sock"));
    let deadline = Instant::now() + Duration::from_secs(20);
    while !socket.exists() {
        assert!(
            Instant::now() < deadline,
            "{name} did not come up: {}",
            std::fs::read_to_string(dir.join(format!("{name}.log"))).unwrap_or_default()
        );
        std::thread::sleep(Duration::from_millis(50));
    }
    (Daemon(child), socket)
}

/// `interstice COMMAND --daemon SOCKET --json ARGS…`: the answer as JSON.
fn cli(socket: &Path, args: &[&str]) -> Output {
    Command::new(interstice_bin())
        .args(&args[..1])
        .arg("--daemon")
        .arg(socket)
        .arg("--json")
        .args(&args[1..])
        .output()
        .expect("run interstice")
}

fn json(output: &Output) -> serde_json::Value {
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    serde_json::from_slice(&output.stdout).expect("JSON on stdout")
}

const C_PROGRAM: &str = r#"
#include <stdio.h>
#include "interstice.h"
int main(int argc, char **argv) {
    struct interstice_client *client = NULL;
    if (interstice_client_new(argv[1], 5000, &client) != INTERSTICE_RESULT_OK) return 2;
    if (interstice_client_health(client) != INTERSTICE_RESULT_OK) return 3;
    struct interstice_predict_request fits = {.procs = 2, .walltime_seconds = 60.0, .slo_seconds = 120.0, .admission = true};
    struct interstice_prediction p = {0};
    if (interstice_client_predict(client, &fits, &p) != INTERSTICE_RESULT_OK) return 4;
    printf("accepted=%d start=%d\n", p.accepted, p.has_predicted_start);
    struct interstice_predict_request wide = {.procs = 64, .walltime_seconds = 60.0, .slo_seconds = 120.0, .admission = true};
    interstice_result r = interstice_client_predict(client, &wide, &p);
    printf("wide=%s\n", interstice_result_name(r));
    interstice_client_free(client);
    return 0;
}
"#;

#[test]
fn the_cli_and_the_c_abi_talk_to_a_broker_as_to_a_member() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::set_permissions(dir.path(), std::fs::Permissions::from_mode(0o755)).unwrap();
    let d = dir.path().display().to_string();
    let (_broker, broker) = start(
        dir.path(),
        "broker",
        format!(
            "api: {{socket: {d}/broker.sock}}\nstate_dir: {d}/broker-state\nlog_level: warn\n\
             datacenter: {{role: broker, member_max_age_seconds: 30, timeout_seconds: 5, \
             bandwidth_bytes_per_second: 1e6}}\n"
        ),
    );
    let (_member, member) = start(
        dir.path(),
        "member",
        format!(
            "api: {{socket: {d}/member.sock}}\nstate_dir: {d}/member-state\nlog_level: warn\n\
             engine: {{procs: 4, policy: conservative}}\nbackend: {{type: plugin}}\n\
             node: {{busy_margin_cpus: 1000}}\n\
             datacenter: {{role: member, broker: {d}/broker.sock, address: {d}/member.sock, \
             publish_every_seconds: 0.2, timeout_seconds: 5}}\n"
        ),
    );
    // The member's first tuple reaches the broker.
    let deadline = Instant::now() + Duration::from_secs(20);
    let client = interstice_api::Client::new(&broker, Duration::from_secs(5));
    loop {
        if client.members().is_ok_and(|list| list.members.len() == 1) {
            break;
        }
        assert!(
            Instant::now() < deadline,
            "the member never showed up at the broker"
        );
        std::thread::sleep(Duration::from_millis(100));
    }

    // The CLI: submit through the broker, then ask the broker about the job.
    let answer = json(&cli(
        &broker,
        &[
            "submit",
            "--cloud-procs",
            "1",
            "--walltime",
            "30",
            "--slo",
            "90",
            "--",
            "/bin/true",
        ],
    ));
    assert_eq!(answer["decision"], "accepted", "{answer}");
    assert_eq!(
        answer["member"].as_str(),
        Some(member.to_str().unwrap()),
        "{answer}"
    );
    let id = answer["id"].as_u64().expect("a job id").to_string();
    let job = json(&cli(&broker, &["jobs", &id]));
    assert_eq!(job["procs"], 1, "{job}");

    // F^r: 100 MB at the broker's 1 MB/s take 100 s before the job can
    // start, so a 30 s job cannot meet an SLO of 90 s: a counter-offer of at
    // least 130 s. Without bytes it can.
    let predict = |bytes: &str| {
        let args = [
            "predict",
            "--cloud-procs",
            "1",
            "--walltime",
            "30",
            "--slo",
            "90",
            "--bytes",
            bytes,
        ];
        json(&cli(&broker, &args))
    };
    assert_eq!(predict("0")["decision"], "accepted");
    let large = predict("100000000");
    assert_eq!(large["decision"], "rejected", "{large}");
    let offer = large["counter_offer_slo"].as_f64().expect("a counter-offer");
    assert!((130.0..135.0).contains(&offer), "{large}");

    // The C ABI, compiled against the committed header.
    let library = artifact("libinterstice_ffi.so");
    let source = dir.path().join("broker_client.c");
    std::fs::write(&source, C_PROGRAM).unwrap();
    let program = dir.path().join("broker_client");
    let compile = Command::new("cc")
        .args(["-std=c11", "-Wall", "-Werror", "-o"])
        .arg(&program)
        .arg(&source)
        .arg("-I")
        .arg(repo_root().join("plugin-ffi/include"))
        .arg("-L")
        .arg(library.parent().unwrap())
        .arg("-linterstice_ffi")
        .output()
        .expect("run cc");
    assert!(
        compile.status.success(),
        "{}",
        String::from_utf8_lossy(&compile.stderr)
    );
    let run = Command::new(&program)
        .arg(&broker)
        .env("LD_LIBRARY_PATH", library.parent().unwrap())
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&run.stdout);
    assert!(run.status.success(), "exit {:?}: {stdout}", run.status.code());
    assert!(stdout.contains("accepted=1 start=1"), "{stdout}");
    // No member takes 64 processors: the broker's refusal comes back as an
    // answer, not a transport error.
    assert!(!stdout.contains("wide=INTERSTICE_RESULT_CONNECT"), "{stdout}");
    assert!(!stdout.contains("wide=INTERSTICE_RESULT_TIMEOUT"), "{stdout}");
}
