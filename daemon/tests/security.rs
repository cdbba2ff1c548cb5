//! The daemon as a privilege boundary, attacked by local users: each test
//! is one attack of the issue, made by unprivileged users the test creates
//! (`interstice-test-a`, `interstice-test-b`) talking to a root daemon over
//! its Unix socket (`setpriv` + `curl --unix-socket`). They need root; as
//! anyone else they say so and pass.

mod common;

use common::users::{privileged, uid_of, USER_A, USER_B};
use interstice_api::client::{Client, DEFAULT_TIMEOUT};
use interstice_api::wire::JobView;
use std::os::unix::fs::{MetadataExt, PermissionsExt};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

const BIN: &str = env!("CARGO_BIN_EXE_intersticed");

/// A root daemon in a temp dir whose socket every test user can reach (as
/// members of the daemon's group could), killed with its jobs on drop.
struct Daemon {
    dir: tempfile::TempDir,
    child: Option<Child>,
}

impl Daemon {
    /// Start with `execution` (the YAML mapping's contents), the state
    /// directory made beforehand with `state_mode` (None: the daemon makes
    /// it), under the shipped unit's UMask=0007.
    fn start(execution: &str, state_mode: Option<u32>) -> Daemon {
        Daemon::start_with(execution, state_mode, "")
    }

    /// As [`Daemon::start`], with `more` YAML after the config.
    fn start_with(execution: &str, state_mode: Option<u32>, more: &str) -> Daemon {
        let dir = tempfile::tempdir().unwrap();
        std::fs::set_permissions(dir.path(), std::fs::Permissions::from_mode(0o755)).unwrap();
        if let Some(mode) = state_mode {
            std::fs::create_dir(dir.path().join("state")).unwrap();
            std::fs::set_permissions(dir.path().join("state"), std::fs::Permissions::from_mode(mode))
                .unwrap();
        }
        let config = format!(
            "api: {{socket: {d}/d.sock}}\nstate_dir: {d}/state\n\
             engine: {{procs: 4, policy: conservative}}\nbackend: {{type: plugin}}\n\
             execution: {{grace_seconds: 1{sep}{execution}}}\nnode: {{busy_margin_cpus: 1000}}\nlog_level: info\n{more}",
            d = dir.path().display(),
            sep = if execution.is_empty() { "" } else { ", " },
            more = more.replace("{d}", &dir.path().display().to_string()),
        );
        Daemon::launch(dir, config)
    }

    /// A data center's broker (no engine), forgetting members after 30 s.
    fn broker() -> Daemon {
        let dir = tempfile::tempdir().unwrap();
        std::fs::set_permissions(dir.path(), std::fs::Permissions::from_mode(0o755)).unwrap();
        let config = format!(
            "api: {{socket: {d}/d.sock}}\nstate_dir: {d}/state\nlog_level: info\n\
             datacenter: {{role: broker, member_max_age_seconds: 30, timeout_seconds: 5}}\n",
            d = dir.path().display()
        );
        Daemon::launch(dir, config)
    }

    fn launch(dir: tempfile::TempDir, config: String) -> Daemon {
        std::fs::write(dir.path().join("d.yaml"), config).unwrap();
        let log = std::fs::File::create(dir.path().join("log")).unwrap();
        let child = Command::new("sh")
            .arg("-c")
            .arg(format!(
                "umask 0007; exec {BIN} --config {}/d.yaml",
                dir.path().display()
            ))
            .stdout(Stdio::null())
            .stderr(log)
            .spawn()
            .unwrap();
        let daemon = Daemon {
            dir,
            child: Some(child),
        };
        let deadline = Instant::now() + Duration::from_secs(10);
        while daemon.root().health().is_err() {
            assert!(
                Instant::now() < deadline,
                "daemon did not come up: {}",
                daemon.log()
            );
            std::thread::sleep(Duration::from_millis(20));
        }
        std::fs::set_permissions(daemon.socket(), std::fs::Permissions::from_mode(0o666)).unwrap();
        daemon
    }

    fn log(&self) -> String {
        std::fs::read_to_string(self.dir.path().join("log")).unwrap_or_default()
    }

    fn socket(&self) -> PathBuf {
        self.dir.path().join("d.sock")
    }

    fn state(&self) -> PathBuf {
        self.dir.path().join("state")
    }

    /// A client with root's credentials.
    fn root(&self) -> Client {
        Client::new(self.socket(), DEFAULT_TIMEOUT)
    }

    /// `method path [body]` as `user`: (HTTP status, body).
    fn as_user(&self, user: &str, method: &str, path: &str, body: Option<&str>) -> (u16, String) {
        let mut command = common::users::as_user(user);
        command
            .args(["curl", "-s", "-X", method])
            .arg("--unix-socket")
            .arg(self.socket())
            .args(["-w", "\n%{http_code}", "-H", "Content-Type: application/json"]);
        if let Some(body) = body {
            command.args(["--data-binary", body]);
        }
        command.arg(format!("http://localhost{path}"));
        let output = command.output().unwrap();
        let text = String::from_utf8_lossy(&output.stdout).to_string();
        let (body, status) = text.rsplit_once('\n').unwrap_or(("", &text));
        (
            status
                .trim()
                .parse()
                .unwrap_or_else(|_| panic!("no status from curl: {text:?} {output:?}")),
            body.to_string(),
        )
    }

    /// Submit `argv` as `user` (walltime, no workdir unless given); the job's id.
    fn submit(&self, user: &str, argv: &[&str], walltime: f64, extra: &str) -> (u16, String) {
        let body = format!(
            r#"{{"procs":1,"walltime":{walltime},"slo":600,"argv":{}{extra}}}"#,
            serde_json::to_string(argv).unwrap()
        );
        self.as_user(user, "POST", "/v1/jobs", Some(&body))
    }

    fn submitted(&self, user: &str, argv: &[&str], walltime: f64) -> u64 {
        let (status, body) = self.submit(user, argv, walltime, "");
        assert_eq!(status, 200, "{body}\n{}", self.log());
        let answer: serde_json::Value = serde_json::from_str(&body).unwrap();
        assert_eq!(answer["decision"], "accepted", "{body}");
        answer["id"].as_u64().unwrap()
    }

    fn wait_for(&self, id: u64, timeout: Duration, done: impl Fn(&JobView) -> bool) -> JobView {
        let deadline = Instant::now() + timeout;
        loop {
            let view = self.root().job(id).unwrap();
            if done(&view) {
                return view;
            }
            assert!(
                Instant::now() < deadline,
                "job {id} stuck: {view:?}\n{}",
                self.log()
            );
            std::thread::sleep(Duration::from_millis(25));
        }
    }
}

impl Drop for Daemon {
    fn drop(&mut self) {
        if let Some(mut child) = self.child.take() {
            let _ = child.kill();
            let _ = child.wait();
        }
        // Its jobs outlive it (a restarted daemon adopts them): end them.
        interstice_daemon::exec::end_all_jobs(&self.state());
    }
}

/// Pids of live processes whose command line contains `marker`.
fn processes_with(marker: &str) -> Vec<u32> {
    let mut found = Vec::new();
    for entry in std::fs::read_dir("/proc").unwrap().flatten() {
        let Ok(pid) = entry.file_name().to_string_lossy().parse::<u32>() else {
            continue;
        };
        let cmdline = std::fs::read(format!("/proc/{pid}/cmdline")).unwrap_or_default();
        let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap_or_default();
        let zombie = stat
            .rsplit(')')
            .next()
            .unwrap_or("")
            .trim_start()
            .starts_with('Z');
        if !zombie
            && String::from_utf8_lossy(&cmdline)
                .replace('\0', " ")
                .contains(marker)
        {
            found.push(pid);
        }
    }
    found
}

/// A marker no other test's processes carry (a sleep duration).
fn marker() -> String {
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .subsec_nanos();
    format!("1000.{:09}{}", nanos, std::process::id() % 10)
}

#[test]
fn a_symlink_planted_in_the_jobs_directory_is_not_followed() {
    if !privileged() {
        return;
    }
    // The state directory as a careless admin left it: group-writable.
    let daemon = Daemon::start("", Some(0o770));
    let state = std::fs::metadata(daemon.state()).unwrap();
    assert_eq!(
        (state.uid(), state.mode() & 0o022),
        (0, 0),
        "state dir still writable by others"
    );
    let jobs = std::fs::metadata(daemon.state().join("jobs")).unwrap();
    assert_eq!((jobs.uid(), jobs.mode() & 0o777), (0, 0o711));
    // A member of the daemon's group planted these (under the old modes).
    let victim = daemon.dir.path().join("victim");
    std::fs::create_dir(&victim).unwrap();
    std::os::unix::fs::symlink(&victim, daemon.state().join("jobs/1")).unwrap();
    let id = daemon.submitted(USER_A, &["/bin/sh", "-c", "echo owned > planted"], 10.0);
    assert_eq!(id, 1);
    let view = daemon.wait_for(id, Duration::from_secs(5), |view| view.state == "failed");
    assert_eq!(view.pid, None, "{view:?}");
    let victim_meta = std::fs::symlink_metadata(&victim).unwrap();
    assert_eq!(victim_meta.uid(), 0, "the daemon chowned through the symlink");
    assert_eq!(
        std::fs::read_dir(&victim).unwrap().count(),
        0,
        "something was written through the symlink"
    );
    // The next job gets a directory of its own, 0700, its user's.
    let id = daemon.submitted(USER_A, &["/bin/true"], 10.0);
    daemon.wait_for(id, Duration::from_secs(5), |view| view.state == "completed");
    let dir = std::fs::symlink_metadata(daemon.state().join(format!("jobs/{id}"))).unwrap();
    assert!(dir.is_dir());
    assert_eq!((dir.uid(), dir.mode() & 0o777), (uid_of(USER_A).unwrap(), 0o700));
}

#[test]
fn a_job_without_workdir_runs_under_the_shipped_units_modes() {
    if !privileged() {
        return;
    }
    let unit = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../packaging/intersticed.service"
    ))
    .unwrap();
    let mode = unit
        .lines()
        .find_map(|line| line.strip_prefix("StateDirectoryMode="))
        .map(|mode| u32::from_str_radix(mode.trim(), 8).unwrap())
        .expect("the unit sets StateDirectoryMode");
    let daemon = Daemon::start("", Some(mode));
    // Root's job runs as execution.user (nobody), a user's as that user.
    let root_job = daemon.root().submit(&interstice_api::wire::SubmitRequest::new(
        &["/bin/sh", "-c", "pwd; id -u"],
        1,
        10.0,
        600.0,
    ));
    let root_id = root_job.unwrap().id;
    let id = daemon.submitted(USER_A, &["/bin/sh", "-c", "pwd; id -u"], 10.0);
    for (id, uid) in [
        (root_id, uid_of("nobody").unwrap()),
        (id, uid_of(USER_A).unwrap()),
    ] {
        let view = daemon.wait_for(id, Duration::from_secs(5), |view| view.ended_at.is_some());
        let out =
            std::fs::read_to_string(daemon.state().join(format!("jobs/{id}/stdout"))).unwrap_or_default();
        let err =
            std::fs::read_to_string(daemon.state().join(format!("jobs/{id}/stderr"))).unwrap_or_default();
        assert_eq!(view.state, "completed", "{view:?} {out} {err}\n{}", daemon.log());
        // Its own directory beside the state directory (execution.work_root's default).
        let work_dir = daemon.dir.path().join(format!("state-work/{id}"));
        assert_eq!(out, format!("{}\n{uid}\n", work_dir.display()));
    }
}

#[test]
fn a_setsid_child_dies_at_walltime_and_at_cancel() {
    if !privileged() {
        return;
    }
    let daemon = Daemon::start("", None);
    let containment = daemon.root().health().unwrap().containment.unwrap_or_default();
    assert!(
        containment.starts_with("cgroup"),
        "{containment}: this test needs a usable cgroup"
    );
    let at_walltime = marker();
    let script = format!("setsid -f sleep {at_walltime}; exec sleep 30");
    let id = daemon.submitted(USER_A, &["/bin/sh", "-c", &script], 1.0);
    let deadline = Instant::now() + Duration::from_secs(5);
    while processes_with(&at_walltime).is_empty() {
        assert!(
            Instant::now() < deadline,
            "the escaping child never started: {}",
            daemon.log()
        );
        std::thread::sleep(Duration::from_millis(20));
    }
    let view = daemon.wait_for(id, Duration::from_secs(6), |view| view.ended_at.is_some());
    assert_eq!(view.state, "timeout");
    std::thread::sleep(Duration::from_millis(300));
    assert_eq!(
        processes_with(&at_walltime),
        Vec::<u32>::new(),
        "a setsid child survived its walltime"
    );

    let at_cancel = marker();
    let script = format!("setsid -f sleep {at_cancel}; exec sleep 30");
    let id = daemon.submitted(USER_A, &["/bin/sh", "-c", &script], 60.0);
    let deadline = Instant::now() + Duration::from_secs(5);
    while processes_with(&at_cancel).is_empty() {
        assert!(
            Instant::now() < deadline,
            "the escaping child never started: {}",
            daemon.log()
        );
        std::thread::sleep(Duration::from_millis(20));
    }
    let (status, body) = daemon.as_user(USER_A, "DELETE", &format!("/v1/jobs/{id}"), None);
    assert_eq!(status, 200, "{body}");
    daemon.wait_for(id, Duration::from_secs(6), |view| view.state == "cancelled");
    std::thread::sleep(Duration::from_millis(300));
    assert_eq!(
        processes_with(&at_cancel),
        Vec::<u32>::new(),
        "a setsid child survived its cancel"
    );

    // A job whose main process ends leaves nothing behind either.
    let after_end = marker();
    let script = format!("setsid -f sleep {after_end}; sleep 0.3");
    let id = daemon.submitted(USER_A, &["/bin/sh", "-c", &script], 60.0);
    daemon.wait_for(id, Duration::from_secs(6), |view| view.state == "completed");
    std::thread::sleep(Duration::from_millis(300));
    assert_eq!(
        processes_with(&after_end),
        Vec::<u32>::new(),
        "a setsid child outlived its job"
    );
}

#[test]
fn a_job_runs_as_its_submitter_and_other_users_cannot_read_or_signal_it() {
    if !privileged() {
        return;
    }
    let daemon = Daemon::start("", None);
    let secret = marker();
    let (status, body) = daemon.submit(
        USER_A,
        &["/bin/sh", "-c", "id -u; exec sleep 30"],
        60.0,
        &format!(r#","env":{{"TOKEN":"{secret}"}}"#),
    );
    assert_eq!(status, 200, "{body}");
    let id = serde_json::from_str::<serde_json::Value>(&body).unwrap()["id"]
        .as_u64()
        .unwrap();
    let view = daemon.wait_for(id, Duration::from_secs(5), |view| view.pid.is_some());
    let out = daemon.state().join(format!("jobs/{id}/stdout"));
    let deadline = Instant::now() + Duration::from_secs(5);
    while std::fs::read_to_string(&out).unwrap_or_default().is_empty() {
        assert!(Instant::now() < deadline, "no output: {}", daemon.log());
        std::thread::sleep(Duration::from_millis(20));
    }
    let uid_a = uid_of(USER_A).unwrap();
    assert_eq!(std::fs::read_to_string(&out).unwrap().trim(), uid_a.to_string());
    let meta = std::fs::metadata(&out).unwrap();
    assert_eq!((meta.uid(), meta.mode() & 0o777), (uid_a, 0o600));
    // Every process of the job (the wrapper and the job) is A's, and B can
    // neither read their environment nor signal them.
    let mut pids = vec![view.pid.unwrap()];
    pids.extend(processes_with("sleep 30").into_iter().filter(|pid| {
        std::fs::read(format!("/proc/{pid}/environ"))
            .is_ok_and(|env| String::from_utf8_lossy(&env).contains(&secret))
    }));
    assert!(pids.len() >= 2, "the job's sleep not found");
    for pid in pids {
        let owner = std::fs::metadata(format!("/proc/{pid}")).unwrap().uid();
        assert_eq!(owner, uid_a, "pid {pid} does not run as A");
        let read = Command::new("setpriv")
            .args(["--reuid", USER_B, "--regid", USER_B, "--init-groups", "cat"])
            .arg(format!("/proc/{pid}/environ"))
            .output()
            .unwrap();
        assert!(!read.status.success(), "B read A's environment of pid {pid}");
        assert!(!String::from_utf8_lossy(&read.stdout).contains(&secret));
        let killed = Command::new("setpriv")
            .args([
                "--reuid",
                USER_B,
                "--regid",
                USER_B,
                "--init-groups",
                "kill",
                "-0",
            ])
            .arg(pid.to_string())
            .stderr(Stdio::null())
            .status()
            .unwrap();
        assert!(!killed.success(), "B may signal A's pid {pid}");
    }
    let read = Command::new("setpriv")
        .args(["--reuid", USER_B, "--regid", USER_B, "--init-groups", "cat"])
        .arg(&out)
        .stderr(Stdio::null())
        .output()
        .unwrap();
    assert!(!read.status.success(), "B read A's output");
}

#[test]
fn users_see_and_cancel_only_their_own_jobs() {
    if !privileged() {
        return;
    }
    let daemon = Daemon::start("", None);
    let id = daemon.submitted(USER_A, &["/bin/sleep", "30"], 60.0);
    let listed = |user: &str| {
        let (status, body) = daemon.as_user(user, "GET", "/v1/jobs", None);
        assert_eq!(status, 200, "{body}");
        let list: serde_json::Value = serde_json::from_str(&body).unwrap();
        list["jobs"]
            .as_array()
            .unwrap()
            .iter()
            .map(|job| job["id"].as_u64().unwrap())
            .collect::<Vec<_>>()
    };
    assert_eq!(listed(USER_A), vec![id]);
    assert_eq!(listed(USER_B), Vec::<u64>::new());
    assert!(daemon.root().jobs().unwrap().jobs.iter().any(|job| job.id == id));
    let (status, body) = daemon.as_user(USER_B, "GET", &format!("/v1/jobs/{id}"), None);
    assert_eq!(status, 404, "{body}");
    let (absent, absent_body) = daemon.as_user(USER_B, "GET", "/v1/jobs/999999", None);
    assert_eq!(
        (absent, absent_body.replace("999999", &id.to_string())),
        (404, body.clone())
    );
    let (status, body) = daemon.as_user(USER_B, "DELETE", &format!("/v1/jobs/{id}"), None);
    assert_eq!(status, 404, "{body}");
    assert_eq!(daemon.root().job(id).unwrap().state, "running");
    let (status, body) = daemon.as_user(USER_A, "DELETE", &format!("/v1/jobs/{id}"), None);
    assert_eq!(status, 200, "{body}");
    daemon.wait_for(id, Duration::from_secs(5), |view| view.state == "cancelled");
}

/// Reporting an HPC job evicts whoever runs on its processors, and an
/// admission recorded counts in the operators' metrics and may hold room:
/// only the batch system (root here) may say either.
#[test]
fn users_cannot_report_hpc_jobs_or_record_admissions() {
    if !privileged() {
        return;
    }
    let daemon = Daemon::start("", None);
    let id = daemon.submitted(USER_B, &["/bin/sleep", "30"], 60.0);
    daemon.wait_for(id, Duration::from_secs(10), |view| view.state == "running");
    let event = r#"{"type":"started","id":"fake","procs":4,"walltime":1000,"cpus":"0-3"}"#;
    let (status, body) = daemon.as_user(USER_A, "POST", "/v1/hpc/events", Some(event));
    assert_eq!(status, 403, "{body}");
    assert!(body.contains("only the batch system"), "{body}");
    let view = daemon.root().job(id).unwrap();
    assert_eq!((view.state.as_str(), view.evictions), ("running", 0), "{view:?}");
    let ask = r#"{"procs":1,"walltime":60,"slo":600,"admission":true}"#;
    let (status, body) = daemon.as_user(USER_A, "POST", "/v1/predict", Some(ask));
    assert_eq!(status, 403, "{body}");
    // B's submission is the one admission counted.
    let metrics = daemon.root().metrics().unwrap();
    assert!(
        metrics.contains("interstice_predicted_violation_probability_count 1\n"),
        "A's admission was counted:\n{metrics}"
    );
    // A prediction alone is anyone's.
    let (status, body) = daemon.as_user(
        USER_A,
        "POST",
        "/v1/predict",
        Some(r#"{"procs":1,"walltime":60,"slo":600}"#),
    );
    assert_eq!(status, 200, "{body}");
    // The batch system's report evicts B's job.
    let (status, body) = daemon.as_user("root", "POST", "/v1/hpc/events", Some(event));
    assert_eq!(status, 200, "{body}");
    daemon.wait_for(id, Duration::from_secs(10), |view| view.evictions == 1);
}

/// Directories the daemon creates for its state and socket are never
/// group-writable, whatever the unit's umask: a member of the socket's group
/// could otherwise swap the state directory for one of their own.
#[test]
fn directories_the_daemon_creates_are_not_group_writable() {
    if !privileged() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    std::fs::set_permissions(dir.path(), std::fs::Permissions::from_mode(0o755)).unwrap();
    let config = format!(
        "api: {{socket: {d}/run/interstice/d.sock}}\nstate_dir: {d}/srv/site/state\n\
         engine: {{procs: 4}}\nbackend: {{type: plugin}}\nlog_level: info\n",
        d = dir.path().display()
    );
    std::fs::write(dir.path().join("d.yaml"), config).unwrap();
    let mut child = Command::new("sh")
        .arg("-c")
        .arg(format!(
            "umask 0007; exec {BIN} --config {}/d.yaml",
            dir.path().display()
        ))
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let socket = dir.path().join("run/interstice/d.sock");
    let deadline = Instant::now() + Duration::from_secs(10);
    while Client::new(&socket, DEFAULT_TIMEOUT).health().is_err() && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(20));
    }
    let _ = child.kill();
    let _ = child.wait();
    for created in ["run", "run/interstice", "srv", "srv/site"] {
        let mode = std::fs::metadata(dir.path().join(created)).unwrap().mode() & 0o7777;
        assert_eq!(mode & 0o022, 0, "{created} is {mode:o}");
    }
    interstice_daemon::exec::end_all_jobs(&dir.path().join("srv/site/state"));
}

/// Every job is stored and listed with its text: one user's submissions
/// are bounded in size before anything is stored or looked up.
#[test]
fn a_submissions_text_is_bounded() {
    if !privileged() {
        return;
    }
    let daemon = Daemon::start("", None);
    let big = "x".repeat(70_000);
    let (status, body) = daemon.submit(USER_A, &["/bin/true", &big], 10.0, "");
    assert_eq!(status, 400, "{body}");
    assert!(body.contains("more than the 65536 a job may carry"), "{body}");
    let path = vec!["/nonexistent"; 100].join(":");
    let (status, body) = daemon.submit(USER_A, &["true"], 10.0, &format!(r#","env":{{"PATH":"{path}"}}"#));
    assert_eq!(status, 400, "{body}");
    assert!(body.contains("PATH has 100 entries"), "{body}");
    assert!(
        daemon.root().jobs().unwrap().jobs.is_empty(),
        "nothing was stored"
    );
}

#[test]
fn workdir_and_program_are_checked_as_the_submitter() {
    if !privileged() {
        return;
    }
    let daemon = Daemon::start("", None);
    // Root can see this; user A cannot.
    let secret = daemon.dir.path().join("secret");
    std::fs::create_dir(&secret).unwrap();
    std::fs::set_permissions(&secret, std::fs::Permissions::from_mode(0o700)).unwrap();
    std::fs::copy("/bin/true", secret.join("prog")).unwrap();
    let missing = daemon.dir.path().join("missing");
    let workdir = |dir: &Path| format!(r#","workdir":"{}""#, dir.display());
    let (status, hidden) = daemon.submit(USER_A, &["/bin/true"], 10.0, &workdir(&secret));
    assert_eq!(status, 400, "{hidden}");
    assert!(hidden.contains("not found or not accessible"), "{hidden}");
    let (status, absent) = daemon.submit(USER_A, &["/bin/true"], 10.0, &workdir(&missing));
    assert_eq!(status, 400, "{absent}");
    // The answer says nothing more about a hidden path than about an absent one.
    assert_eq!(hidden.replace("secret", "X"), absent.replace("missing", "X"));
    let program = secret.join("prog").display().to_string();
    let (status, body) = daemon.submit(USER_A, &[&program], 10.0, "");
    assert_eq!(status, 400, "{body}");
    assert!(body.contains("not found or not executable"), "{body}");
    let (status, body) = daemon.submit(USER_A, &["true"], 10.0, r#","env":{"PATH":"/nonexistent"}"#);
    assert_eq!(status, 400, "{body}");
    // What A may use is accepted.
    let (status, body) = daemon.submit(USER_A, &["true"], 10.0, &workdir(Path::new("/tmp")));
    assert_eq!(status, 200, "{body}");
}

#[test]
fn output_is_capped_and_denied_users_are_refused() {
    if !privileged() {
        return;
    }
    let daemon = Daemon::start(&format!("max_output_bytes: 4096, deny_users: [{USER_B}]"), None);
    let id = daemon.submitted(USER_A, &["/usr/bin/yes"], 30.0);
    let view = daemon.wait_for(id, Duration::from_secs(10), |view| view.ended_at.is_some());
    assert_eq!(view.state, "failed", "{view:?}");
    // The cap holds stdout and stderr together (stderr ends with the note).
    let size = |name: &str| {
        std::fs::metadata(daemon.state().join(format!("jobs/{id}/{name}")))
            .unwrap()
            .len()
    };
    assert_eq!(size("stdout") + size("stderr"), 4096);
    let (status, body) = daemon.submit(USER_B, &["/bin/true"], 10.0, "");
    assert_eq!(status, 403, "{body}");
    assert!(body.contains("execution.deny_users"), "{body}");
}

#[test]
fn a_job_placed_through_a_broker_runs_as_its_submitter_and_only_daemons_feed_the_broker() {
    if !privileged() {
        return;
    }
    let broker = Daemon::broker();
    // The test users are system users: the member's rule must list A.
    let member = Daemon::start_with(
        "",
        None,
        &format!(
            "datacenter: {{role: member, broker: {}, address: {{d}}/d.sock, publish_every_seconds: 0.2, \
             timeout_seconds: 5, on_behalf_of: {{allow: [{}]}}}}\n",
            broker.socket().display(),
            uid_of(USER_A).unwrap()
        ),
    );
    let deadline = Instant::now() + Duration::from_secs(10);
    while !broker.root().members().is_ok_and(|list| list.members.len() == 1) {
        assert!(
            Instant::now() < deadline,
            "the member never reached the broker: {}",
            member.log()
        );
        std::thread::sleep(Duration::from_millis(50));
    }
    // A submits to the broker; the job runs on the member as A, and is A's.
    let (status, body) = broker.submit(USER_A, &["/bin/sh", "-c", "id -u"], 30.0, "");
    assert_eq!(status, 200, "{body}\n{}", broker.log());
    let answer: serde_json::Value = serde_json::from_str(&body).unwrap();
    assert_eq!(answer["decision"], "accepted", "{body}");
    let jobs = member.root().jobs().unwrap().jobs;
    assert_eq!(jobs.len(), 1);
    let id = jobs[0].id;
    let uid_a = uid_of(USER_A).unwrap();
    assert_eq!(jobs[0].owner_uid, Some(uid_a));
    member.wait_for(id, Duration::from_secs(10), |view| view.ended_at.is_some());
    let out = member.state().join(format!("jobs/{id}/stdout"));
    assert_eq!(std::fs::read_to_string(&out).unwrap().trim(), uid_a.to_string());
    // B cannot see it through the broker, nor submit for A, to the broker or the member.
    let broker_id = answer["id"].as_u64().unwrap();
    let (status, _) = broker.as_user(USER_B, "GET", &format!("/v1/jobs/{broker_id}"), None);
    assert_eq!(status, 404);
    let (status, _) = broker.as_user(USER_A, "GET", &format!("/v1/jobs/{broker_id}"), None);
    assert_eq!(status, 200);
    let for_a = format!(r#","on_behalf_of":{uid_a}"#);
    for daemon in [&broker, &member] {
        let (status, body) = daemon.submit(USER_B, &["/bin/true"], 30.0, &for_a);
        assert_eq!(status, 403, "{body}");
        assert!(body.contains("on_behalf_of"), "{body}");
    }
    // With the member gone, A learns it is unreachable; B still learns nothing.
    drop(member);
    let (status, body) = broker.as_user(USER_A, "GET", &format!("/v1/jobs/{broker_id}"), None);
    assert_eq!(status, 503, "{body}");
    let (status, body) = broker.as_user(USER_B, "GET", &format!("/v1/jobs/{broker_id}"), None);
    assert_eq!(status, 404, "{body}");
    // Nor can a user publish tuples or hand jobs over to the broker.
    let (status, body) = broker.as_user(USER_B, "POST", "/v1/datacenter/tuples", Some("{}"));
    assert_eq!(status, 403, "{body}");
    let (status, body) = broker.as_user(USER_B, "POST", "/v1/datacenter/evicted", Some("{}"));
    assert_eq!(status, 403, "{body}");
}

#[test]
fn the_submitters_environment_never_reaches_the_root_wrapper() {
    if !privileged() {
        return;
    }
    // A library that, when loaded, leaves a file named after its euid.
    let lab = tempfile::tempdir().unwrap();
    std::fs::set_permissions(lab.path(), std::fs::Permissions::from_mode(0o755)).unwrap();
    let out = lab.path().join("out");
    std::fs::create_dir(&out).unwrap();
    std::fs::set_permissions(&out, std::fs::Permissions::from_mode(0o777)).unwrap();
    std::fs::write(
        lab.path().join("evil.c"),
        "#include <stdio.h>\n#include <stdlib.h>\n#include <unistd.h>\n\
         __attribute__((constructor)) static void evil(void) {\n\
           const char *dir = getenv(\"EVIL_DIR\"); char path[512];\n\
           if (!dir) return;\n\
           snprintf(path, sizeof path, \"%s/euid-%d\", dir, (int)geteuid());\n\
           FILE *f = fopen(path, \"w\"); if (f) fclose(f);\n}\n",
    )
    .unwrap();
    let compiled = Command::new("cc")
        .args(["-shared", "-fPIC", "-o"])
        .arg(lab.path().join("evil.so"))
        .arg(lab.path().join("evil.c"))
        .status();
    if !compiled.is_ok_and(|status| status.success()) {
        eprintln!("SKIPPED: no C compiler to build the preload library");
        return;
    }
    let daemon = Daemon::start("", None);
    let env = format!(
        r#","env":{{"LD_PRELOAD":"{}","EVIL_DIR":"{}"}}"#,
        lab.path().join("evil.so").display(),
        out.display()
    );
    let (status, body) = daemon.submit(USER_A, &["/bin/true"], 30.0, &env);
    assert_eq!(status, 200, "{body}");
    let id = serde_json::from_str::<serde_json::Value>(&body).unwrap()["id"]
        .as_u64()
        .unwrap();
    daemon.wait_for(id, Duration::from_secs(10), |view| view.ended_at.is_some());
    let mut left: Vec<String> = std::fs::read_dir(&out)
        .unwrap()
        .map(|entry| entry.unwrap().file_name().to_string_lossy().to_string())
        .collect();
    left.sort();
    // The job got its variables (the library ran as A), the root wrapper did not.
    let uid_a = uid_of(USER_A).unwrap();
    assert_eq!(left, vec![format!("euid-{uid_a}")], "{}", daemon.log());
    // Nothing of the environment is left behind in the state directory.
    assert!(!daemon.state().join(format!("jobs/{id}.env")).exists());
}

#[test]
fn a_queued_job_of_a_user_denied_since_does_not_run() {
    if !privileged() {
        return;
    }
    let daemon = Daemon::start("", None);
    // HPC work holds the 4 processors: A's job waits.
    let event = interstice_api::wire::HpcEventRequest {
        kind: interstice_api::wire::EventKind::Started,
        id: "hpc-1".to_string(),
        procs: 4,
        walltime: 100.0,
        time: None,
        cpus: Some("0-3".to_string()),
    };
    daemon.root().hpc_event(&event).unwrap();
    let id = daemon.submitted(USER_A, &["/bin/true"], 30.0);
    assert!(daemon.root().job(id).unwrap().started_at.is_none());
    // The admin denies A and reloads; then the processors free up.
    let config = std::fs::read_to_string(daemon.dir.path().join("d.yaml"))
        .unwrap()
        .replace(
            "grace_seconds: 1",
            &format!("grace_seconds: 1, deny_users: [{USER_A}]"),
        );
    std::fs::write(daemon.dir.path().join("d.yaml"), config).unwrap();
    let pid = daemon.child.as_ref().unwrap().id().to_string();
    assert!(Command::new("kill")
        .args(["-HUP", &pid])
        .status()
        .unwrap()
        .success());
    let deadline = Instant::now() + Duration::from_secs(5);
    while !daemon.log().contains("execution.deny_users") {
        assert!(
            Instant::now() < deadline,
            "the reload was not applied: {}",
            daemon.log()
        );
        std::thread::sleep(Duration::from_millis(20));
    }
    let ended = interstice_api::wire::HpcEventRequest {
        kind: interstice_api::wire::EventKind::Ended,
        ..event
    };
    daemon.root().hpc_event(&ended).unwrap();
    let view = daemon.wait_for(id, Duration::from_secs(5), |view| view.ended_at.is_some());
    assert_eq!(view.state, "failed", "{view:?}\n{}", daemon.log());
    assert_eq!(view.pid, None, "it never ran: {view:?}");
}
