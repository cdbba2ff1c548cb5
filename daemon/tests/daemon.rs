//! End-to-end tests of the real `intersticed` binary: real Unix sockets, real
//! SQLite, real processes, real promtool.

mod common;

use interstice_api::client::{Client, ClientError, DEFAULT_TIMEOUT};
use interstice_api::wire::{EventKind, HpcEventRequest, JobView, PredictRequest, SubmitRequest};
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

const BIN: &str = env!("CARGO_BIN_EXE_intersticed");

/// A daemon in a temp dir, killed on drop.
struct Daemon {
    dir: tempfile::TempDir,
    child: Option<Child>,
}

impl Daemon {
    fn config_text(dir: &Path, extra_engine: &str) -> String {
        format!(
            "api: {{socket: {dir}/d.sock}}\nstate_dir: state\n\
             engine: {{procs: 4, policy: conservative, admission: reject-predicted{extra_engine}}}\n\
             backend: {{type: plugin}}\nexecution: {{grace_seconds: 1, keep_work_dirs: true}}\nnode: {{busy_margin_cpus: 1000}}\nlog_level: warn\n",
            dir = dir.display()
        )
    }

    fn start(extra_engine: &str) -> Daemon {
        Daemon::start_with(extra_engine, "")
    }

    /// [`Daemon::start`] with `sections` (top-level YAML) added to the config.
    fn start_with(extra_engine: &str, sections: &str) -> Daemon {
        let dir = tempfile::tempdir().unwrap();
        // Jobs run as an unprivileged user when the tests run as root: let it in.
        std::fs::set_permissions(dir.path(), std::fs::Permissions::from_mode(0o755)).unwrap();
        std::fs::write(
            dir.path().join("d.yaml"),
            Daemon::config_text(dir.path(), extra_engine) + sections,
        )
        .unwrap();
        let mut daemon = Daemon { dir, child: None };
        daemon.spawn();
        daemon
    }

    fn spawn(&mut self) {
        let log = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(self.dir.path().join("log"))
            .unwrap();
        // The state directory is relative to the daemon's working directory
        // (as in the README's demo): job wrappers must still find it.
        let child = Command::new(BIN)
            .current_dir(self.dir.path())
            .arg("--config")
            .arg(self.dir.path().join("d.yaml"))
            .stdout(Stdio::null())
            .stderr(log)
            .spawn()
            .unwrap();
        self.child = Some(child);
        let client = self.client();
        let deadline = Instant::now() + Duration::from_secs(10);
        while client.health().is_err() {
            assert!(
                Instant::now() < deadline,
                "daemon did not come up: {}",
                self.log()
            );
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    fn log(&self) -> String {
        std::fs::read_to_string(self.dir.path().join("log")).unwrap_or_default()
    }

    fn socket(&self) -> PathBuf {
        self.dir.path().join("d.sock")
    }

    fn client(&self) -> Client {
        Client::new(self.socket(), DEFAULT_TIMEOUT)
    }

    fn kill9(&mut self) {
        if let Some(mut child) = self.child.take() {
            child.kill().unwrap();
            child.wait().unwrap();
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
        interstice_daemon::exec::end_all_jobs(&self.dir.path().join("state"));
    }
}

fn job(argv: &[&str], procs: u32, walltime: f64, slo: f64) -> SubmitRequest {
    SubmitRequest::new(argv, procs, walltime, slo)
}

fn wait_for(client: &Client, id: u64, timeout: Duration, done: impl Fn(&JobView) -> bool) -> JobView {
    let deadline = Instant::now() + timeout;
    loop {
        let view = client.job(id).unwrap();
        if done(&view) {
            return view;
        }
        assert!(Instant::now() < deadline, "job {id} stuck: {view:?}");
        std::thread::sleep(Duration::from_millis(25));
    }
}

fn alive(pid: u32) -> bool {
    std::fs::read_to_string(format!("/proc/{pid}/stat"))
        .map(|stat| {
            !stat
                .rsplit(')')
                .next()
                .unwrap_or("")
                .trim_start()
                .starts_with('Z')
        })
        .unwrap_or(false)
}

#[test]
fn submitted_job_runs_to_completion() {
    let daemon = Daemon::start("");
    let client = daemon.client();
    let answer = client
        .submit(&job(
            &["/bin/sh", "-c", "echo hello from $INTERSTICE_JOB_ID"],
            1,
            10.0,
            60.0,
        ))
        .unwrap();
    assert_eq!(answer.decision, "accepted");
    assert!(answer.predicted_completion.unwrap() >= answer.predicted_start.unwrap());
    let view = wait_for(&client, answer.id, Duration::from_secs(5), |view| {
        view.state == "completed"
    });
    assert_eq!(view.exit_code, Some(0));
    assert_eq!(view.slo_violated, Some(false));
    let out =
        std::fs::read_to_string(daemon.dir.path().join(format!("state/jobs/{}/stdout", answer.id))).unwrap();
    assert_eq!(out.trim(), format!("hello from {}", answer.id));
    let listed = client.jobs().unwrap();
    assert!(listed.jobs.iter().any(|job| job.id == answer.id));
}

#[test]
fn walltime_kills_the_job() {
    let daemon = Daemon::start("");
    let client = daemon.client();
    let answer = client.submit(&job(&["/bin/sleep", "30"], 1, 0.5, 60.0)).unwrap();
    let started = Instant::now();
    let view = wait_for(&client, answer.id, Duration::from_secs(5), |view| {
        view.state == "timeout"
    });
    assert!(
        started.elapsed() < Duration::from_secs(4),
        "killed late: {view:?}"
    );
}

#[test]
fn hpc_job_evicts_running_cloud_job_within_grace() {
    let daemon = Daemon::start(", max_resubmissions: 0");
    let client = daemon.client();
    let answer = client
        .submit(&job(&["/bin/sleep", "30"], 2, 60.0, 600.0))
        .unwrap();
    assert_eq!(answer.decision, "accepted");
    let running = wait_for(&client, answer.id, Duration::from_secs(5), |view| {
        view.pid.is_some()
    });
    let pid = running.pid.unwrap();
    assert!(alive(pid));
    // The SPANK prolog: an HPC job takes every processor of the node now.
    let event = HpcEventRequest {
        kind: EventKind::Started,
        id: "slurm-77".to_string(),
        procs: 4,
        walltime: 120.0,
        time: None,
        cpus: Some("0-3".to_string()),
    };
    let evicted_at = Instant::now();
    let response = client.hpc_event(&event).unwrap();
    assert!(response.ok);
    assert_eq!(response.evicted, vec![answer.id]);
    let view = wait_for(&client, answer.id, Duration::from_secs(5), |view| {
        view.state == "evicted"
    });
    assert!(
        evicted_at.elapsed() < Duration::from_millis(1500),
        "eviction took {:?}",
        evicted_at.elapsed()
    );
    assert!(!alive(pid), "process {pid} survived its eviction");
    assert_eq!(view.evictions, 1);
    let metrics = client.metrics().unwrap();
    assert!(metrics.contains("interstice_evictions_total 1"), "{metrics}");
}

#[test]
fn rejected_job_gets_a_counter_offer_that_is_then_accepted() {
    let daemon = Daemon::start("");
    let client = daemon.client();
    // The whole area is taken by HPC work for the next 100 s.
    let event = HpcEventRequest {
        kind: EventKind::Submitted,
        id: "hpc-1".to_string(),
        procs: 4,
        walltime: 100.0,
        time: None,
        cpus: None,
    };
    client.hpc_event(&event).unwrap();
    let slots = client.slots().unwrap();
    assert!(slots.immediate.is_empty(), "{slots:?}");
    let predicted = client
        .predict(&PredictRequest {
            procs: 1,
            walltime: 10.0,
            slo: 20.0,
            admission: false,
            features: Vec::new(),
            class: None,
            bytes: None,
        })
        .unwrap();
    assert_eq!(predicted.decision, "rejected");
    assert_eq!(
        predicted.predicts_violation,
        Some(true),
        "the engine's verdict travels with the answer"
    );
    assert_eq!(
        predicted.violation_probability,
        Some(1.0),
        "the exact predictor holds its verdict as certain"
    );
    let answer = client.submit(&job(&["/bin/true"], 1, 10.0, 20.0)).unwrap();
    assert_eq!(answer.decision, "rejected");
    assert_eq!(answer.violation_probability, Some(1.0));
    let offer = answer.counter_offer_slo.expect("a counter-offer");
    assert!((100.0..130.0).contains(&offer), "counter-offer {offer}");
    let again = client
        .submit(&job(&["/bin/true"], 1, 10.0, offer.ceil() + 1.0))
        .unwrap();
    assert_eq!(again.decision, "accepted", "{again:?}");
    assert!(again.predicted_start.unwrap() >= slots.now + 99.0);
    assert_eq!(client.job(answer.id).unwrap().state, "rejected");
    assert_eq!(client.job(again.id).unwrap().state, "queued");
    let metrics = client.metrics().unwrap();
    assert!(
        metrics.contains("interstice_admissions_total{decision=\"rejected\"} 1"),
        "{metrics}"
    );
    assert!(
        metrics.contains("interstice_slo_counteroffers_total 1"),
        "{metrics}"
    );
}

#[test]
fn crash_and_restart_loses_no_accepted_job() {
    let mut daemon = Daemon::start(", max_resubmissions: 3");
    let client = daemon.client();
    let long = client
        .submit(&job(&["/bin/sleep", "30"], 1, 60.0, 600.0))
        .unwrap();
    let running = wait_for(&client, long.id, Duration::from_secs(5), |view| {
        view.pid.is_some()
    });
    let pid = running.pid.unwrap();
    // Keep submitting from another thread while the daemon is killed.
    let socket = daemon.socket();
    let submitter = std::thread::spawn(move || {
        let client = Client::new(socket, DEFAULT_TIMEOUT);
        let mut accepted = Vec::new();
        for index in 0..400 {
            let argv = if index % 2 == 0 {
                vec!["/bin/sleep", "0.2"]
            } else {
                vec!["/bin/true"]
            };
            match client.submit(&job(&argv, 1, 30.0, 3600.0)) {
                Ok(answer) if answer.decision == "accepted" => accepted.push(answer.id),
                Ok(_) => {}
                Err(_) => break,
            }
        }
        accepted
    });
    std::thread::sleep(Duration::from_millis(300));
    daemon.kill9();
    let accepted = submitter.join().unwrap();
    assert!(!accepted.is_empty());
    assert!(alive(pid), "the cloud job must survive the daemon's crash");
    daemon.spawn();
    let client = daemon.client();
    let adopted = client.job(long.id).unwrap();
    assert_eq!(adopted.state, "running", "{adopted:?}");
    assert_eq!(adopted.pid, Some(pid));
    let listed = client.jobs().unwrap();
    for id in accepted.iter().chain([&long.id]) {
        let view = listed
            .jobs
            .iter()
            .find(|job| job.id == *id)
            .unwrap_or_else(|| panic!("job {id} lost"));
        assert!(
            ["queued", "running", "completed"].contains(&view.state.as_str()),
            "job {id} in state {}",
            view.state
        );
    }
    // The queued ones run after the restart.
    let last = *accepted.last().unwrap();
    wait_for(&client, last, Duration::from_secs(20), |view| {
        view.state == "completed"
    });
    // The adopted job can still be cancelled by its owner (root here, or the test's uid).
    let cancelled = client.cancel(long.id).unwrap();
    assert!(["cancelling", "cancelled"].contains(&cancelled.state.as_str()));
    wait_for(&client, long.id, Duration::from_secs(5), |view| {
        view.state == "cancelled"
    });
    assert!(!alive(pid));
}

#[test]
fn metrics_pass_promtool() {
    let daemon = Daemon::start("");
    let client = daemon.client();
    // No plan age before the batch system said anything.
    assert!(!client.metrics().unwrap().contains("interstice_plan_age_seconds"));
    client
        .hpc_event(&HpcEventRequest {
            kind: EventKind::Submitted,
            id: "slurm-1".to_string(),
            procs: 1,
            walltime: 60.0,
            time: None,
            cpus: None,
        })
        .unwrap();
    let done = client.submit(&job(&["/bin/true"], 1, 5.0, 60.0)).unwrap();
    wait_for(&client, done.id, Duration::from_secs(10), |view| {
        view.state == "completed"
    });
    client
        .predict(&PredictRequest {
            procs: 1,
            walltime: 5.0,
            slo: 60.0,
            admission: true,
            features: Vec::new(),
            class: None,
            bytes: None,
        })
        .unwrap();
    // Gauges follow the engine's 100 ms tick.
    let deadline = Instant::now() + Duration::from_secs(5);
    let text = loop {
        let text = client.metrics().unwrap();
        if text.contains("interstice_plan_age_seconds") || Instant::now() > deadline {
            break text;
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    for name in [
        "interstice_idle_processor_seconds",
        "interstice_admissions_total",
        "interstice_cloud_jobs_running",
        "interstice_prediction_outcomes_total",
        "interstice_admission_duration_seconds_bucket",
        "interstice_node_cpu_usage_ratio",
        "interstice_plan_age_seconds",
        "interstice_slo_violations_total",
        "interstice_cloud_jobs_finished_total",
        "interstice_build_info",
        "process_cpu_seconds_total",
        "process_resident_memory_bytes",
        "process_start_time_seconds",
    ] {
        assert!(text.contains(name), "{name} missing");
    }
    // The job that completed in time is the ratio's denominator, not its numerator.
    assert!(
        text.contains("interstice_cloud_jobs_finished_total 1\n"),
        "{text}"
    );
    assert!(text.contains("interstice_slo_violations_total 0\n"), "{text}");
    let build_info = format!(
        "interstice_build_info{{revision=\"{}\",version=\"{}\"}} 1\n",
        interstice_daemon::metrics::REVISION,
        env!("CARGO_PKG_VERSION")
    );
    assert!(text.contains(&build_info), "{build_info} not in\n{text}");
    assert!(
        text.contains("interstice_admissions_total{decision=\"admitted\"} 2"),
        "{text}"
    );
    // Both admissions (the submission and the counted prediction) said met.
    assert!(
        text.contains("interstice_predicted_violation_probability_bucket{le=\"0.01\"} 2\n")
            && text.contains("interstice_predicted_violation_probability_count 2\n"),
        "{text}"
    );
    // The job that ran is scored by every predictor: each said met, and it was.
    // Nothing evicted or delayed it: it is foreseeable, in that series too.
    for family in ["predictor_outcomes_total", "predictor_foreseeable_outcomes_total"] {
        for predictor in ["exact", "thesis", "learned"] {
            let series = format!("interstice_{family}{{outcome=\"tn\",predictor=\"{predictor}\"}} 1\n");
            assert!(text.contains(&series), "{series} not in\n{text}");
        }
    }
    assert!(
        text.contains("interstice_unforeseeable_violations_total 0\n"),
        "{text}"
    );
    let mut promtool = Command::new("promtool")
        .args(["check", "metrics"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    use std::io::Write;
    promtool.stdin.take().unwrap().write_all(text.as_bytes()).unwrap();
    let output = promtool.wait_with_output().unwrap();
    assert!(
        output.status.success() && output.stdout.is_empty() && output.stderr.is_empty(),
        "promtool: {}{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
}

#[test]
fn bad_requests_get_clear_4xx_errors() {
    let daemon = Daemon::start("");
    let client = daemon.client();
    let cases: &[(&str, &str, &str, u16, &str)] = &[
        (
            "POST",
            "/v1/jobs",
            r#"{"procs":"two","walltime":5,"slo":9,"argv":["/bin/true"]}"#,
            400,
            "invalid type",
        ),
        (
            "POST",
            "/v1/jobs",
            r#"{"procs":1,"walltime":-5,"slo":9,"argv":["/bin/true"]}"#,
            400,
            "walltime",
        ),
        (
            "POST",
            "/v1/jobs",
            r#"{"procs":100000,"walltime":5,"slo":9,"argv":["/bin/true"]}"#,
            422,
            "at most 4",
        ),
        (
            "POST",
            "/v1/jobs",
            r#"{"procs":99999999999,"walltime":5,"slo":9,"argv":["/bin/true"]}"#,
            400,
            "u32",
        ),
        (
            "POST",
            "/v1/jobs",
            r#"{"procs":1,"walltime":5,"slo":9,"argv":["/bin/true"],"shell":true}"#,
            400,
            "unknown field `shell`",
        ),
        (
            "POST",
            "/v1/jobs",
            r#"{"procs":1,"walltime":5,"slo":9,"argv":[]}"#,
            400,
            "argv",
        ),
        (
            "POST",
            "/v1/jobs",
            r#"{"procs":1,"walltime":5,"slo":9,"argv":["no-such-program-xyz"]}"#,
            400,
            "not found or not executable",
        ),
        ("POST", "/v1/jobs", "not json", 400, "invalid request body"),
        (
            "POST",
            "/v1/predict",
            r#"{"procs":0,"walltime":5,"slo":9}"#,
            400,
            "procs",
        ),
        (
            "POST",
            "/v1/hpc/events",
            r#"{"type":"exploded","id":"1","procs":1,"walltime":5}"#,
            400,
            "submitted, started",
        ),
        (
            "POST",
            "/v1/hpc/events",
            r#"{"type":"started","id":"1","procs":1,"walltime":5,"cpus":"3-1"}"#,
            400,
            "cpus",
        ),
        ("GET", "/v1/jobs/abc", "", 400, "not a number"),
        ("GET", "/v1/jobs/424242", "", 404, "no job 424242"),
        ("DELETE", "/v1/jobs/424242", "", 404, "no job"),
        ("GET", "/v2/nothing", "", 404, "no route"),
        ("PUT", "/v1/slots", "", 405, "not allowed"),
    ];
    for (method, path, body, status, needle) in cases {
        let body = if body.is_empty() {
            None
        } else {
            Some(body.as_bytes())
        };
        let response = client.raw(method, path, body).unwrap();
        let text = response.text();
        assert_eq!(response.status, *status, "{method} {path}: {text}");
        let error: serde_json::Value =
            serde_json::from_str(&text).unwrap_or_else(|_| panic!("not JSON: {text}"));
        let message = error["error"]
            .as_str()
            .unwrap_or_else(|| panic!("no error field: {text}"));
        assert!(
            message.contains(needle),
            "{method} {path}: {message:?} lacks {needle:?}"
        );
    }
    assert_eq!(client.health().unwrap().status, "ok");
    // A finished job cannot be cancelled.
    let done = client.submit(&job(&["/bin/true"], 1, 5.0, 60.0)).unwrap();
    wait_for(&client, done.id, Duration::from_secs(5), |view| {
        view.state == "completed"
    });
    match client.cancel(done.id) {
        Err(ClientError::Http { status: 409, message }) => {
            assert!(message.contains("already ended"), "{message}")
        }
        other => panic!("expected 409, got {other:?}"),
    }
}

#[test]
fn concurrent_submissions_and_predictions_lose_nothing() {
    // One user submits as fast as it can: no per-user bound here (one is
    // tested in the actor's tests).
    let daemon = Daemon::start_with("", "quota: {max_active_per_user: null}\n");
    let deadline = Instant::now() + Duration::from_secs(2);
    let workers: Vec<_> = (0..6)
        .map(|worker| {
            let client = daemon.client();
            std::thread::spawn(move || {
                let mut accepted = Vec::new();
                let mut predictions = 0;
                while Instant::now() < deadline {
                    if worker % 2 == 0 {
                        let answer = client
                            .submit(&job(&["/bin/true"], 1, 2.0, 3600.0))
                            .expect("submit");
                        assert_eq!(answer.decision, "accepted");
                        accepted.push(answer.id);
                    } else {
                        client
                            .predict(&PredictRequest {
                                procs: 2,
                                walltime: 5.0,
                                slo: 60.0,
                                admission: false,
                                features: Vec::new(),
                                class: None,
                                bytes: None,
                            })
                            .expect("predict");
                        predictions += 1;
                    }
                }
                (accepted, predictions)
            })
        })
        .collect();
    let mut accepted = Vec::new();
    let mut predictions = 0;
    for worker in workers {
        let (ids, count) = worker.join().unwrap();
        accepted.extend(ids);
        predictions += count;
    }
    assert!(
        accepted.len() > 10 && predictions > 10,
        "{} submits, {predictions} predictions",
        accepted.len()
    );
    let client = daemon.client();
    let listed = client.jobs().unwrap();
    let known: std::collections::HashSet<u64> = listed.jobs.iter().map(|job| job.id).collect();
    for id in &accepted {
        assert!(known.contains(id), "job {id} lost");
    }
    let mut unique = accepted.clone();
    unique.sort();
    unique.dedup();
    assert_eq!(unique.len(), accepted.len(), "duplicate ids");
    assert_eq!(client.health().unwrap().status, "ok");
}

fn tcp_request(addr: &str, method: &str, path: &str) -> (u16, String) {
    common::tcp_http(addr, method, path, None, "")
}

#[test]
fn tcp_clients_neither_submit_nor_see_nor_cancel_jobs_and_signals_are_handled() {
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let addr = format!("127.0.0.1:{port}");
    let mut daemon = Daemon::start("");
    // Restart with a loopback TCP listener as well.
    daemon.kill9();
    let config = daemon.dir.path().join("d.yaml");
    let text = std::fs::read_to_string(&config).unwrap();
    let text = text.replace("api: {", &format!("api: {{listen: '{addr}', "));
    std::fs::write(&config, &text).unwrap();
    daemon.spawn();
    let client = daemon.client();
    let answer = client.submit(&job(&["/bin/sleep", "5"], 1, 10.0, 60.0)).unwrap();
    // TCP names nobody: another's job is as if absent, and no job is submitted.
    let (status, body) = tcp_request(&addr, "DELETE", &format!("/v1/jobs/{}", answer.id));
    // The job API is on the Unix socket only (daemon/tests/listeners.rs).
    assert_eq!(status, 403, "{body}");
    assert!(body.contains("Unix socket"), "{body}");
    let (status, body) = tcp_request(&addr, "GET", "/healthz");
    assert_eq!((status, body.contains("\"ok\"")), (200, true));
    let pid = daemon.child.as_ref().unwrap().id().to_string();
    // SIGHUP with a broken file keeps the old config; with a good one it reloads.
    std::fs::write(&config, "engine: {procs: 0}\n").unwrap();
    assert!(Command::new("kill")
        .args(["-HUP", &pid])
        .status()
        .unwrap()
        .success());
    std::thread::sleep(Duration::from_millis(200));
    assert_eq!(client.health().unwrap().status, "ok");
    assert!(
        daemon.log().contains("keeping the old configuration"),
        "{}",
        daemon.log()
    );
    // A good file: SIGHUP says what it applied and what needs a restart
    // (before: "configuration reloaded", also for keys it ignored).
    let changed = text
        .replace("procs: 4", "procs: 8")
        .replace("grace_seconds: 1", "grace_seconds: 2");
    assert_ne!(changed, text);
    std::fs::write(&config, changed).unwrap();
    assert!(Command::new("kill")
        .args(["-HUP", &pid])
        .status()
        .unwrap()
        .success());
    let deadline = Instant::now() + Duration::from_secs(5);
    let expected = "applied: execution.grace_seconds; changed but NOT applied until a restart: engine.procs";
    while !daemon.log().contains(expected) {
        assert!(Instant::now() < deadline, "{}", daemon.log());
        std::thread::sleep(Duration::from_millis(20));
    }
    // engine.procs is still 4: 8 processors do not fit.
    let too_wide = client.predict(&PredictRequest {
        procs: 8,
        walltime: 10.0,
        slo: 60.0,
        admission: false,
        features: Vec::new(),
        class: None,
        bytes: None,
    });
    assert!(
        matches!(&too_wide, Err(ClientError::Http { status: 422, message }) if message.contains("area's 4")),
        "{too_wide:?}"
    );
    // SIGTERM: exit 0, socket removed.
    assert!(Command::new("kill")
        .args(["-TERM", &pid])
        .status()
        .unwrap()
        .success());
    let status = daemon.child.take().unwrap().wait().unwrap();
    assert!(status.success(), "{status:?}: {}", daemon.log());
    assert!(!daemon.socket().exists());
}

#[test]
fn embedded_replay_evicts_cloud_work_when_hpc_jobs_arrive() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::set_permissions(dir.path(), std::fs::Permissions::from_mode(0o755)).unwrap();
    // A 4-processor machine: a small HPC job now, a full-width one 1.5 s later.
    let trace = "; MaxProcs: 4\n\
                 1 0 0 1 1 -1 -1 1 2 -1 1 1 1 -1 -1 -1 -1 -1\n\
                 2 1.5 0 10 4 -1 -1 4 20 -1 1 1 1 -1 -1 -1 -1 -1\n";
    std::fs::write(dir.path().join("t.swf"), trace).unwrap();
    let config = format!(
        "api: {{socket: {d}/d.sock}}\nstate_dir: {d}/state\nengine: {{procs: 4, max_resubmissions: 0}}\n\
         backend: {{type: embedded, trace: t.swf, speedup: 1, repeat: false}}\n\
         execution: {{grace_seconds: 1}}\nnode: {{busy_margin_cpus: 1000}}\nlog_level: warn\n",
        d = dir.path().display()
    );
    std::fs::write(dir.path().join("d.yaml"), config).unwrap();
    let mut daemon = Daemon { dir, child: None };
    daemon.spawn();
    let client = daemon.client();
    assert_eq!(client.health().unwrap().backend, "embedded");
    let answer = client
        .submit(&job(&["/bin/sleep", "30"], 2, 60.0, 600.0))
        .unwrap();
    assert_eq!(answer.decision, "accepted");
    let running = wait_for(&client, answer.id, Duration::from_secs(5), |view| {
        view.pid.is_some()
    });
    let view = wait_for(&client, answer.id, Duration::from_secs(6), |view| {
        view.state == "evicted"
    });
    assert!(!alive(running.pid.unwrap()));
    assert_eq!(view.evictions, 1);
}

#[test]
fn a_second_daemon_on_the_same_state_directory_refuses_to_start() {
    let daemon = Daemon::start("");
    let client = daemon.client();
    let job_id = client
        .submit(&job(&["/bin/sleep", "30"], 1, 60.0, 600.0))
        .unwrap()
        .id;
    wait_for(&client, job_id, Duration::from_secs(5), |view| view.pid.is_some());
    // Same state directory, another socket: only the lock can stop it.
    let dir = daemon.dir.path();
    let text = Daemon::config_text(dir, "").replace("d.sock", "second.sock");
    std::fs::write(dir.join("second.yaml"), text).unwrap();
    let mut second = Command::new(BIN)
        .current_dir(dir)
        .arg("--config")
        .arg(dir.join("second.yaml"))
        .stdout(Stdio::null())
        .stderr(std::fs::File::create(dir.join("second.log")).unwrap())
        .spawn()
        .unwrap();
    let deadline = Instant::now() + Duration::from_secs(5);
    let status = loop {
        if let Some(status) = second.try_wait().unwrap() {
            break status;
        }
        if Instant::now() > deadline {
            let _ = second.kill();
            let _ = second.wait();
            panic!("a second daemon is serving the same state directory");
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    let stderr = std::fs::read_to_string(dir.join("second.log")).unwrap();
    assert!(!status.success(), "{stderr}");
    let pid = daemon.child.as_ref().unwrap().id();
    assert!(
        stderr.contains(&format!("{}/state", dir.display())) && stderr.contains(&format!("pid {pid}")),
        "{stderr}"
    );
    assert!(
        !dir.join("second.sock").exists(),
        "the second daemon must not serve"
    );
    // The first one still owns its job.
    assert_eq!(client.job(job_id).unwrap().state, "running");
}

/// A backend that cannot read the plan (squeue failing, as with slurmctld
/// down) leaves the daemon not ready: `/healthz` and predictions answer 503
/// "no plan yet" (the plugins' fail mode then decides), and the plan-age gauge has no sample (before: "ok", "accepted,
/// start now", and a plan age of 0).
#[test]
fn without_a_plan_the_daemon_is_not_ready_and_says_so() {
    let dir = tempfile::tempdir().unwrap();
    let config = dir.path().join("d.yaml");
    std::fs::write(
        &config,
        format!(
            "api: {{socket: {dir}/d.sock}}\nstate_dir: {dir}/state\nengine: {{procs: 4}}\n\
             backend: {{type: slurm, squeue: /bin/false, scontrol: /bin/false, bf_interval_seconds: 0.1}}\nlog_level: warn\n",
            dir = dir.path().display()
        ),
    )
    .unwrap();
    let log = std::fs::File::create(dir.path().join("log")).unwrap();
    let mut daemon = Daemon {
        dir,
        child: Some(
            Command::new(BIN)
                .arg("--config")
                .arg(&config)
                .stdout(Stdio::null())
                .stderr(log)
                .spawn()
                .unwrap(),
        ),
    };
    let client = daemon.client();
    let deadline = Instant::now() + Duration::from_secs(10);
    let health = loop {
        match client.health() {
            Err(ClientError::Connect { .. }) if Instant::now() < deadline => {
                std::thread::sleep(Duration::from_millis(20))
            }
            other => break other,
        }
    };
    match health {
        Err(ClientError::Http { status: 503, message }) => {
            assert!(
                message.contains("no plan yet") && message.contains("slurm"),
                "{message}"
            )
        }
        other => panic!("health without a plan: {other:?}\n{}", daemon.log()),
    }
    let predicted = client.predict(&PredictRequest {
        procs: 1,
        walltime: 60.0,
        slo: 600.0,
        admission: true,
        features: Vec::new(),
        class: None,
        bytes: None,
    });
    assert!(
        matches!(&predicted, Err(ClientError::Http { status: 503, message }) if message.contains("no plan yet")),
        "{predicted:?}"
    );
    let metrics = client.metrics().unwrap();
    assert!(!metrics.contains("interstice_plan_age_seconds"), "{metrics}");
    daemon.kill9();
}

/// A job that ends while the daemon is down keeps its real outcome (exit
/// status, end time) and never runs again; before, the restarted daemon
/// counted it as a lost run and started it a second time.
#[test]
fn a_job_that_ends_while_the_daemon_is_down_is_recorded_not_rerun() {
    let mut daemon = Daemon::start(", max_resubmissions: 3");
    let client = daemon.client();
    let answer = client
        .submit(&job(
            &["/bin/sh", "-c", "echo run >> runs.txt; sleep 1; exit 3"],
            1,
            60.0,
            600.0,
        ))
        .unwrap();
    let running = wait_for(&client, answer.id, Duration::from_secs(5), |view| {
        view.pid.is_some()
    });
    let pid = running.pid.unwrap();
    daemon.kill9();
    let deadline = Instant::now() + Duration::from_secs(10);
    while alive(pid) {
        assert!(Instant::now() < deadline, "the job did not end");
        std::thread::sleep(Duration::from_millis(20));
    }
    let ended_by = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_secs_f64();
    std::thread::sleep(Duration::from_millis(300));
    daemon.spawn();
    let client = daemon.client();
    let view = client.job(answer.id).unwrap();
    assert_eq!(
        (view.state.as_str(), view.exit_code),
        ("failed", Some(3)),
        "{view:?}"
    );
    // It ran to its end within its SLO: its verdict is known, "met".
    assert_eq!(view.slo_violated, Some(false), "{view:?}");
    let ended_at = view.ended_at.expect("an end time");
    assert!(
        ended_at <= ended_by && ended_at >= running.started_at.unwrap() + 0.9,
        "{view:?}"
    );
    std::thread::sleep(Duration::from_millis(500));
    let runs = std::fs::read_to_string(
        daemon
            .dir
            .path()
            .join(format!("state-work/{}/runs.txt", answer.id)),
    )
    .unwrap();
    assert_eq!(runs, "run\n", "the job ran again");
    let metrics = client.metrics().unwrap();
    assert!(metrics.contains("interstice_lost_runs_total 0"), "{metrics}");
}

/// A job the node gate holds back (the node is busier than the plan
/// believes) is queued everywhere: `jobs`, `/healthz` and `/metrics` agree
/// (before: running in the gauges and health, queued in `jobs`).
#[test]
fn a_job_held_by_the_node_gate_is_queued_in_every_view() {
    let mut daemon = Daemon::start("");
    daemon.kill9();
    let config = daemon.dir.path().join("d.yaml");
    let text = std::fs::read_to_string(&config).unwrap();
    // Never enough free memory: every start is held back.
    let held = text.replace(
        "node: {busy_margin_cpus: 1000}",
        "node: {min_available_memory_bytes: 1000000000000000000}",
    );
    assert_ne!(held, text);
    std::fs::write(&config, held).unwrap();
    daemon.spawn();
    let client = daemon.client();
    // The gate needs a first sample of the node.
    let sampled = Instant::now() + Duration::from_secs(5);
    while client.metrics().unwrap().contains("interstice_node_cpus 0") {
        assert!(Instant::now() < sampled, "no node sample");
        std::thread::sleep(Duration::from_millis(20));
    }
    let id = client
        .submit(&job(&["/bin/sleep", "30"], 1, 60.0, 600.0))
        .unwrap()
        .id;
    let deadline = Instant::now() + Duration::from_secs(5);
    loop {
        let metrics = client.metrics().unwrap();
        // Gauges follow the 100 ms tick.
        let deferred = metrics
            .lines()
            .any(|line| line.starts_with("interstice_starts_deferred_total") && !line.ends_with(" 0"));
        if deferred && metrics.contains("interstice_cloud_jobs_queued 1") {
            assert!(metrics.contains("interstice_cloud_jobs_running 0"), "{metrics}");
            break;
        }
        assert!(
            Instant::now() < deadline,
            "a held start is not one queued job: {metrics}"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
    assert_eq!(client.job(id).unwrap().state, "queued");
    let health = client.health().unwrap();
    assert_eq!((health.running, health.queued), (0, 1), "{health:?}");
}
