//! The shipped demo config runs under the real `intersticed`, and the
//! `interstice` client subcommands talk to it over its socket.

use interstice_tests::{artifact, assert_output_errors_handled, interstice_bin, repo_root};
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

fn cli(socket: &Path, args: &[&str]) -> Output {
    let mut command = Command::new(interstice_bin());
    command
        .args(&args[..1])
        .arg("--daemon")
        .arg(socket)
        .args(&args[1..]);
    command.output().expect("run interstice")
}

/// `cli` with `--json`: the daemon's answer as JSON.
fn cli_json(socket: &Path, args: &[&str]) -> Output {
    let mut with_json = args.to_vec();
    let at = with_json
        .iter()
        .position(|a| *a == "--")
        .unwrap_or(with_json.len());
    with_json.insert(at, "--json");
    cli(socket, &with_json)
}

/// `submit --wait -- /bin/sh -c SCRIPT`: the job's id once it has ended.
fn run_script(socket: &Path, script: &str) -> String {
    let answer = json(&cli_json(
        socket,
        &["submit", "--wait", "--", "/bin/sh", "-c", script],
    ));
    answer["id"].as_u64().expect("a job id").to_string()
}

fn json(output: &Output) -> serde_json::Value {
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    serde_json::from_slice(&output.stdout).expect("JSON on stdout")
}

/// The demo config (packaging/examples/demo.yaml) under the real
/// `intersticed`, on a socket and state directory of its own in `dir`,
/// once it answers `health`.
fn start_demo(dir: &tempfile::TempDir) -> (Daemon, PathBuf) {
    let daemon_bin = artifact("intersticed");
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
    let daemon = Daemon(child);
    let deadline = Instant::now() + Duration::from_secs(15);
    while !cli(&socket, &["health"]).status.success() {
        let log = std::fs::read_to_string(dir.path().join("log")).unwrap_or_default();
        assert!(Instant::now() < deadline, "demo daemon did not start: {log}");
        std::thread::sleep(Duration::from_millis(50));
    }
    (daemon, socket)
}

/// The demo answers `health`, runs a job, lists it, shows its logs, predicts,
/// cancels, schedules service classes and counts all of it in its metrics:
/// one daemon, the steps below in turn (the metrics count the jobs the steps
/// before them submitted).
#[test]
fn demo_config_serves_the_cli() {
    let dir = tempfile::tempdir().unwrap();
    let (_daemon, socket) = start_demo(&dir);
    assert_eq!(json(&cli_json(&socket, &["health"]))["backend"], "embedded");
    let id = a_submitted_job_completes_and_is_listed(&socket);
    the_jobs_table_is_dated_and_filtered_by_state_and_owner(&socket, &id);
    logs_show_a_jobs_output_but_no_planted_link(&socket);
    predict_and_slots_answer_and_handle_output_errors(&socket);
    let long_id = a_long_job_is_cancelled(&socket);
    service_classes_are_the_demos(&socket);
    the_metrics_count_the_admissions_and_each_class(&socket, &long_id);
    the_area_is_shown_and_resized(&socket);
}

/// `interstice area` shows the demo's area (the whole 100 processors);
/// `--set` resizes it when root asks (the batch system's identity here),
/// and is refused naming who may otherwise.
fn the_area_is_shown_and_resized(socket: &Path) {
    let shown = cli(socket, &["area"]);
    assert!(shown.status.success());
    let text = String::from_utf8_lossy(&shown.stdout);
    assert!(
        text.starts_with("area: processors 0..100 (configured 0..100, platform 100)"),
        "{text}"
    );
    let resized = cli_json(socket, &["area", "--set", "60"]);
    let root = std::os::unix::fs::MetadataExt::uid(&std::fs::metadata("/proc/self").unwrap()) == 0;
    if root {
        let answer = json(&resized);
        assert_eq!(
            (answer["from"].as_u64(), answer["procs"].as_u64()),
            (Some(100), Some(60))
        );
        assert_eq!(json(&cli_json(socket, &["area"]))["procs"], 60);
        assert!(cli(socket, &["area", "--set", "100"]).status.success());
    } else {
        assert!(!resized.status.success());
        assert!(String::from_utf8_lossy(&resized.stderr).contains("only the batch system"));
    }
}

/// A short job is accepted, completes with exit code 0 and is among `jobs`:
/// its id.
fn a_submitted_job_completes_and_is_listed(socket: &Path) -> String {
    let submitted = json(&cli_json(socket, &["submit", "--", "/bin/sleep", "0.2"]));
    assert_eq!(submitted["decision"], "accepted");
    let id_number = submitted["id"].as_u64().unwrap();
    let id = id_number.to_string();
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        let view = json(&cli_json(socket, &["jobs", &id]));
        if view["state"] == "completed" {
            assert_eq!(view["exit_code"], 0);
            break;
        }
        assert!(Instant::now() < deadline, "job stuck: {view}");
        std::thread::sleep(Duration::from_millis(50));
    }
    let listed = json(&cli_json(socket, &["jobs"]));
    assert!(listed["jobs"]
        .as_array()
        .unwrap()
        .iter()
        .any(|job| job["id"].as_u64() == Some(id_number)));
    id
}

/// For people: a table by default, with dates, filtered by state and owner;
/// one job (`id`, completed) as a list of its fields.
fn the_jobs_table_is_dated_and_filtered_by_state_and_owner(socket: &Path, id: &str) {
    let table = String::from_utf8(cli(socket, &["jobs", "--state", "completed"]).stdout).unwrap();
    let mut lines = table.lines();
    assert!(
        lines.next().unwrap().starts_with("ID  STATE"),
        "a header first:\n{table}"
    );
    let row = lines
        .find(|line| line.starts_with(&format!("{id} ")))
        .unwrap_or_else(|| panic!("job {id} in\n{table}"));
    assert!(
        row.contains("completed") && row.contains('T') && row.contains('Z'),
        "dates: {row}"
    );
    let queued_only = String::from_utf8(cli(socket, &["jobs", "--state", "queued"]).stdout).unwrap();
    assert!(
        !queued_only
            .lines()
            .any(|line| line.starts_with(&format!("{id} "))),
        "--state filters:\n{queued_only}"
    );
    let nobody_else = cli(socket, &["jobs", "--owner", "4242424"]);
    assert_eq!(
        String::from_utf8(nobody_else.stdout).unwrap().lines().count(),
        1,
        "--owner filters: only the header"
    );
    let one = String::from_utf8(cli(socket, &["jobs", id]).stdout).unwrap();
    assert!(one.contains("state                 completed"), "{one}");
}

/// `logs`: the end of a job's output, stdout or stderr, its tail bounded; an
/// unknown job is a 404; a job that swaps its output for a link to a file it
/// may not read gets nothing through the daemon (which reads as root).
fn logs_show_a_jobs_output_but_no_planted_link(socket: &Path) {
    let talker_id = run_script(socket, "echo to-stdout; echo to-stderr >&2");
    let logs = cli(socket, &["logs", &talker_id]);
    assert!(logs.status.success(), "{}", String::from_utf8_lossy(&logs.stderr));
    assert_eq!(String::from_utf8_lossy(&logs.stdout), "to-stdout\n");
    let errs = cli(socket, &["logs", "--stderr", &talker_id]);
    assert_eq!(String::from_utf8_lossy(&errs.stdout), "to-stderr\n");
    let tail = json(&cli_json(socket, &["logs", "--tail", "3", &talker_id]));
    assert_eq!(
        (
            tail["text"].as_str(),
            tail["size"].as_u64(),
            tail["offset"].as_u64()
        ),
        (Some("ut\n"), Some(10), Some(7))
    );
    let missing = cli(socket, &["logs", "999999"]);
    assert_eq!(missing.status.code(), Some(3), "no such job: a 404");
    // The job replaces its output file with a link: its working directory
    // is outside the state directory, so it goes to its output directory.
    let jobs = socket.parent().expect("the demo's directory").join("state/jobs");
    let planted_id = run_script(
        socket,
        &format!(
            "cd {}/$INTERSTICE_JOB_ID && rm -f stdout && ln -s /etc/shadow stdout",
            jobs.display()
        ),
    );
    let refused = cli(socket, &["logs", &planted_id]);
    assert!(!refused.status.success(), "a planted link is not followed");
    assert!(
        String::from_utf8_lossy(&refused.stderr).contains("not a file the job wrote"),
        "refused because of the link: {}",
        String::from_utf8_lossy(&refused.stderr)
    );
    assert!(
        !String::from_utf8_lossy(&refused.stdout).contains("root:"),
        "no /etc/shadow"
    );
}

/// `predict` completes after it starts, `slots` answers with today's clock,
/// and `jobs`, `slots` and `health` handle errors writing their output.
fn predict_and_slots_answer_and_handle_output_errors(socket: &Path) {
    let predicted = json(&cli_json(
        socket,
        &["predict", "--cloud-procs", "2", "--walltime", "30"],
    ));
    assert!(
        predicted["predicted_completion"].as_f64().unwrap() >= predicted["predicted_start"].as_f64().unwrap()
    );
    let slots = json(&cli_json(socket, &["slots"]));
    assert!(slots["now"].as_f64().unwrap() > 1.0e9);
    for command in ["jobs", "slots", "health"] {
        assert_output_errors_handled(
            || {
                let mut cmd = Command::new(interstice_bin());
                cmd.arg(command).arg("--daemon").arg(socket);
                cmd
            },
            command,
        );
    }
}

/// A 30-second job is cancelled (`cancel` answers cancelling or
/// cancelled): its id.
fn a_long_job_is_cancelled(socket: &Path) -> String {
    let long = json(&cli_json(
        socket,
        &["submit", "--walltime", "60", "--", "/bin/sleep", "30"],
    ));
    let long_id = long["id"].as_u64().unwrap().to_string();
    let cancelled = json(&cli_json(socket, &["cancel", &long_id]));
    assert!(
        ["cancelling", "cancelled"].contains(&cancelled["state"].as_str().unwrap()),
        "{cancelled}"
    );
    long_id
}

/// Service classes (the demo config's gold, silver, bronze; bronze by
/// default): a gold job runs, an unknown class is refused with the known
/// ones named.
fn service_classes_are_the_demos(socket: &Path) {
    let gold = cli(
        socket,
        &["submit", "--class", "gold", "--wait", "--", "/bin/true"],
    );
    assert!(gold.status.success(), "{}", String::from_utf8_lossy(&gold.stderr));
    let unknown = cli(socket, &["submit", "--class", "platinum", "--", "/bin/true"]);
    assert_eq!(unknown.status.code(), Some(3), "refused by the daemon (400)");
    let stderr = String::from_utf8_lossy(&unknown.stderr);
    assert!(
        stderr.contains("unknown class \"platinum\"") && stderr.contains("gold, silver, bronze"),
        "{stderr}"
    );
}

/// The five jobs the steps above submitted are admitted. Each job is counted
/// in its class once the engine hands its record over (at the pass after its
/// end): gold's one job, and in bronze, the default, the three jobs without a
/// class that ran to their end (the cancelled one, `long_id`, is counted
/// nowhere: its user stopped it).
fn the_metrics_count_the_admissions_and_each_class(socket: &Path, long_id: &str) {
    let text = scrape(socket);
    assert!(
        text.contains("interstice_admissions_total{decision=\"admitted\"} 5"),
        "{text}"
    );
    let deadline = Instant::now() + Duration::from_secs(10);
    while json(&cli_json(socket, &["jobs", long_id]))["state"] != "cancelled" {
        assert!(Instant::now() < deadline, "job {long_id} not cancelled");
        std::thread::sleep(Duration::from_millis(100));
    }
    loop {
        // A pass or two after the cancel, so that its record was handed over.
        std::thread::sleep(Duration::from_millis(300));
        let text = scrape(socket);
        let finished = |class: &str| {
            series(
                &text,
                &format!("interstice_class_cloud_jobs_finished_total{{class=\"{class}\"}}"),
            )
        };
        let (gold, bronze) = (finished("gold"), finished("bronze"));
        if gold == 1.0 && bronze >= 3.0 {
            assert_eq!(
                series(&text, "interstice_class_availability_count{class=\"gold\"}"),
                1.0
            );
            assert_eq!(finished("silver"), 0.0);
            assert_eq!(bronze, 3.0, "{text}");
            break;
        }
        assert!(Instant::now() < deadline, "gold {gold}, bronze {bronze}:\n{text}");
    }
}

/// CPUs of this machine, as the daemon counts them (`/proc/stat`'s `cpuN` lines).
fn node_cpus() -> u32 {
    let stat = std::fs::read_to_string("/proc/stat").expect("read /proc/stat");
    stat.lines()
        .filter(|line| line.starts_with("cpu") && line.as_bytes().get(3).is_some_and(u8::is_ascii_digit))
        .count() as u32
}

/// What the demo cannot run is refused at once, and `submit --wait` says
/// how a job ended in a status of its own, never one of the command's own
/// (a job exiting 3 is not a refusal).
#[test]
fn the_demo_refuses_jobs_it_cannot_run_and_wait_tells_how_jobs_ended() {
    let dir = tempfile::tempdir().unwrap();
    let (_daemon, socket) = start_demo(&dir);
    let cpus = node_cpus();
    // Wider than this node and the margin the demo tolerates (its area is
    // 100): it could never start here.
    let margin = 2;
    let demo = std::fs::read_to_string(repo_root().join("packaging/examples/demo.yaml")).unwrap();
    assert!(demo.contains(&format!("busy_margin_cpus: {margin}\n")), "{demo}");
    if cpus + margin < 100 {
        let widest = (cpus + margin).to_string();
        let wider = (cpus + margin + 1).to_string();
        let refused = cli(&socket, &["submit", "-n", &wider, "--", "/bin/true"]);
        assert_eq!(refused.status.code(), Some(3), "refused by the daemon (422)");
        let stderr = String::from_utf8_lossy(&refused.stderr);
        assert!(
            stderr.contains("422")
                && stderr.contains(&format!("more than this node's {cpus} CPUs"))
                && stderr.contains(&format!("ask for at most {widest}")),
            "{stderr}"
        );
        let predicted = cli(&socket, &["predict", "-n", &wider, "--walltime", "30"]);
        assert_eq!(
            predicted.status.code(),
            Some(3),
            "a user's prediction is for a job run here"
        );
    }
    let too_wide = cli(&socket, &["submit", "-n", "1000", "--", "/bin/true"]);
    assert_eq!(too_wide.status.code(), Some(3), "refused by the daemon (422)");
    let stderr = String::from_utf8_lossy(&too_wide.stderr);
    assert!(stderr.contains("422") && stderr.contains("at most"), "{stderr}");

    for (script, status, said) in [
        ("exit 3", 8, "failed with exit code 3"),
        ("exit 7", 8, "failed with exit code 7"),
        ("true", 0, "completed"),
    ] {
        let waited = cli(&socket, &["submit", "--wait", "--", "/bin/sh", "-c", script]);
        let text = format!(
            "{}{}",
            String::from_utf8_lossy(&waited.stdout),
            String::from_utf8_lossy(&waited.stderr)
        );
        assert_eq!(waited.status.code(), Some(status), "{script}: {text}");
        assert!(text.contains(said), "{script}: {text}");
    }
    let killed = cli(
        &socket,
        &["submit", "--wait", "--walltime", "1", "--", "/bin/sleep", "30"],
    );
    let stderr = String::from_utf8_lossy(&killed.stderr);
    assert_eq!(
        killed.status.code(),
        Some(9),
        "ended without completing: {stderr}"
    );
    assert!(stderr.contains("ended timeout"), "{stderr}");
}

/// `GET /metrics` over the socket.
fn scrape(socket: &Path) -> String {
    interstice_api::Client::new(socket, Duration::from_secs(10))
        .metrics()
        .expect("GET /metrics")
}

/// The value of one series in a scrape.
fn series(text: &str, name: &str) -> f64 {
    interstice_tests::sample(text, name).unwrap_or_else(|| panic!("no {name} in\n{text}"))
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
