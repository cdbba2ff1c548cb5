//! The data center end to end: a broker and member daemons, each a real
//! `intersticed` on its own Unix socket (plugin backend, wall clock).

use interstice_api::client::{Client, DEFAULT_TIMEOUT};
use interstice_api::wire::{EventKind, HpcEventRequest, JobView, MemberList, PredictRequest, SubmitRequest};
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

const BIN: &str = env!("CARGO_BIN_EXE_intersticed");

/// A daemon in a temp dir, killed on drop.
struct Node {
    dir: tempfile::TempDir,
    child: Option<Child>,
}

impl Node {
    /// A broker that forgets members after `max_age` seconds.
    fn broker(max_age: f64) -> Node {
        Node::start(|dir| {
            format!(
                "api: {{socket: {dir}/d.sock}}\nstate_dir: {dir}/state\nlog_level: warn\n\
                 datacenter: {{role: broker, member_max_age_seconds: {max_age}, timeout_seconds: 2}}\n\
                 engine: {{admission: reject-predicted}}\n"
            )
        })
    }

    /// A member of 4 processors publishing to `broker` every 0.2 s.
    fn member(broker: &Node) -> Node {
        Node::member_of(&broker.socket())
    }

    /// A member of 4 processors publishing to the broker at `broker` every 0.2 s.
    fn member_of(broker: &Path) -> Node {
        Node::start(|dir| {
            format!(
                "api: {{socket: {dir}/d.sock}}\nstate_dir: {dir}/state\nlog_level: warn\n\
                 engine: {{procs: 4, policy: conservative, admission: reject-predicted}}\n\
                 backend: {{type: plugin}}\nexecution: {{grace_seconds: 1}}\nnode: {{busy_margin_cpus: 1000}}\n\
                 datacenter: {{role: member, broker: {broker}, address: {dir}/d.sock, publish_every_seconds: 0.2, \
                 timeout_seconds: 2}}\n",
                broker = broker.display()
            )
        })
    }

    fn start(config: impl FnOnce(&str) -> String) -> Node {
        let dir = tempfile::tempdir().unwrap();
        // Jobs run as an unprivileged user when the tests run as root: let it in.
        std::fs::set_permissions(dir.path(), std::fs::Permissions::from_mode(0o755)).unwrap();
        std::fs::write(
            dir.path().join("d.yaml"),
            config(&dir.path().display().to_string()),
        )
        .unwrap();
        let log = std::fs::File::create(dir.path().join("log")).unwrap();
        let child = Command::new(BIN)
            .arg("--config")
            .arg(dir.path().join("d.yaml"))
            .stdout(Stdio::null())
            .stderr(log)
            .spawn()
            .unwrap();
        let node = Node {
            dir,
            child: Some(child),
        };
        let deadline = Instant::now() + Duration::from_secs(10);
        while node.client().health().is_err() {
            assert!(
                Instant::now() < deadline,
                "daemon did not come up: {}",
                node.log()
            );
            std::thread::sleep(Duration::from_millis(20));
        }
        node
    }

    fn log(&self) -> String {
        std::fs::read_to_string(self.dir.path().join("log")).unwrap_or_default()
    }

    fn socket(&self) -> PathBuf {
        self.dir.path().join("d.sock")
    }

    fn address(&self) -> String {
        self.socket().display().to_string()
    }

    fn client(&self) -> Client {
        Client::new(self.socket(), DEFAULT_TIMEOUT)
    }

    /// Stop the process at once (SIGKILL), as a crashed member.
    fn kill(&mut self) {
        if let Some(mut child) = self.child.take() {
            child.kill().unwrap();
            child.wait().unwrap();
        }
    }

    /// An HPC job of the batch system taking all 4 processors for `walltime` seconds.
    fn hpc_takes_everything(&self, id: &str, walltime: f64) -> Vec<u64> {
        self.client()
            .hpc_event(&HpcEventRequest {
                kind: EventKind::Started,
                id: id.to_string(),
                procs: 4,
                walltime,
                time: None,
                cpus: Some("0-3".to_string()),
            })
            .unwrap()
            .evicted
    }
}

impl Drop for Node {
    fn drop(&mut self) {
        self.kill();
        // A member's jobs outlive it: end them.
        interstice_daemon::exec::end_all_jobs(&self.dir.path().join("state"));
    }
}

fn job(procs: u32, walltime: f64, slo: f64) -> SubmitRequest {
    SubmitRequest::new(&["/bin/sleep", "30"], procs, walltime, slo)
}

/// Poll `check` every 25 ms until it holds; panics with `what` after `timeout`.
fn until<T>(what: &str, timeout: Duration, mut check: impl FnMut() -> Option<T>) -> T {
    let deadline = Instant::now() + timeout;
    loop {
        if let Some(value) = check() {
            return value;
        }
        assert!(Instant::now() < deadline, "timed out waiting until {what}");
        std::thread::sleep(Duration::from_millis(25));
    }
}

fn members(broker: &Node) -> MemberList {
    broker.client().members().unwrap()
}

/// The member's fresh entry at the broker, with its idle processors now.
fn idle_now(broker: &Node, member: &Node) -> Option<u32> {
    members(broker)
        .members
        .into_iter()
        .find(|view| view.address == member.address())
        .map(|view| view.idle_now)
}

fn wait_for_job(client: &Client, id: u64, done: impl Fn(&JobView) -> bool) -> JobView {
    until(
        &format!("job {id} is as expected"),
        Duration::from_secs(10),
        || client.job(id).ok().filter(|view| done(view)),
    )
}

#[test]
fn broker_sends_jobs_to_the_idle_member_and_stops_using_a_dead_one() {
    let broker = Node::broker(1.5);
    let busy = Node::member(&broker);
    let mut idle = Node::member(&broker);
    // The batch system fills the busy member's area for 100 s.
    busy.hpc_takes_everything("hpc-1", 100.0);
    until(
        "the broker sees one busy and one idle member",
        Duration::from_secs(5),
        || (idle_now(&broker, &busy) == Some(0) && idle_now(&broker, &idle) == Some(4)).then_some(()),
    );

    // F^J' ranks the idle member first (completion now + 60 s, against 100 s + 60 s).
    let predicted = broker
        .client()
        .predict(&PredictRequest {
            procs: 2,
            walltime: 60.0,
            slo: 1000.0,
            admission: false,
            features: Vec::new(),
            class: None,
            bytes: None,
        })
        .unwrap();
    assert!(predicted.accepted(), "{predicted:?}");
    let answer = broker.client().submit(&job(2, 60.0, 1000.0)).unwrap();
    assert!(answer.accepted(), "{answer:?}");
    assert_eq!(answer.member.as_deref(), Some(idle.address().as_str()));
    let on_idle = idle.client().jobs().unwrap().jobs;
    assert_eq!(on_idle.len(), 1, "{on_idle:?}");
    assert!(busy.client().jobs().unwrap().jobs.is_empty());
    // The broker answers for the job under its own id, from the member.
    let view = wait_for_job(&broker.client(), answer.id, |view| view.state == "running");
    assert_eq!(view.pid, idle.client().job(on_idle[0].id).unwrap().pid);

    // The idle member dies; its tuple is still fresh, so the broker tries it
    // first, fails to forward, and falls through to the busy member, whose
    // own admission accepts (it completes by its SLO after the HPC job).
    idle.kill();
    let answer = broker.client().submit(&job(1, 10.0, 1000.0)).unwrap();
    assert!(answer.accepted(), "{answer:?}");
    assert_eq!(answer.member.as_deref(), Some(busy.address().as_str()));
    let on_busy = busy.client().jobs().unwrap().jobs;
    assert_eq!(on_busy.len(), 1, "{on_busy:?}");
    assert!(on_busy[0].predicted_start.unwrap() >= on_busy[0].submitted_at + 99.0);
    // After member_max_age_seconds without a tuple, the dead member is gone.
    until(
        "the dead member is no longer listed",
        Duration::from_secs(5),
        || {
            let listed: Vec<String> = members(&broker).members.into_iter().map(|m| m.address).collect();
            (listed == [busy.address()]).then_some(())
        },
    );
    // A job nobody can take in time: every member refuses, the broker
    // answers with a counter-offer (asked once the dead member's last tuple
    // is gone: until then the broker may answer from it, a race with the
    // machine's load).
    let late = broker.client().submit(&job(4, 10.0, 20.0)).unwrap();
    assert!(!late.accepted(), "{late:?}");
    assert!(
        late.counter_offer_slo.is_some_and(|slo| slo >= 100.0),
        "{late:?} members: {:?}",
        members(&broker)
    );
    assert_eq!(late.member, None);
}

#[test]
fn an_evicted_job_is_handed_to_the_broker_and_migrates_to_another_member() {
    let broker = Node::broker(5.0);
    let first = Node::member(&broker);
    let second = Node::member(&broker);
    until("both members are listed", Duration::from_secs(5), || {
        (members(&broker).members.len() == 2).then_some(())
    });
    let answer = broker.client().submit(&job(2, 60.0, 600.0)).unwrap();
    assert!(answer.accepted(), "{answer:?}");
    let (from, to) = if answer.member.as_deref() == Some(first.address().as_str()) {
        (&first, &second)
    } else {
        (&second, &first)
    };
    let local_id = from.client().jobs().unwrap().jobs[0].id;
    wait_for_job(&from.client(), local_id, |view| view.pid.is_some());
    let arrival = broker.client().job(answer.id).unwrap().submitted_at;

    // An HPC job takes the whole area for longer than the job's SLO: the
    // member evicts the cloud job and hands it to the broker, which places
    // it on the other member (the evicting one refuses it by its own
    // admission even if its new tuple is not in yet).
    let evicted = from.hpc_takes_everything("hpc-9", 10_000.0);
    assert_eq!(evicted, vec![local_id]);
    let gone = wait_for_job(&from.client(), local_id, |view| view.state == "migrated");
    assert!(gone.ended_at.is_some() && gone.pid.is_none(), "{gone:?}");
    let moved = until(
        "the job runs on the other member",
        Duration::from_secs(10),
        || {
            to.client()
                .jobs()
                .unwrap()
                .jobs
                .into_iter()
                .find(|view| view.state == "running")
        },
    );
    // Its SLO deadline is still the first arrival's: the member got what
    // remained of it when the broker forwarded it, and arrived that much
    // later (the forwarding's latency: milliseconds, more on a loaded
    // machine; a deadline started afresh would be off by the job's whole
    // first run).
    assert!(moved.slo < 600.0, "{moved:?}");
    assert!(
        (moved.submitted_at + moved.slo - (arrival + 600.0)).abs() < 0.5,
        "deadline moved: {moved:?}, first arrival {arrival}"
    );
    // The broker's id now follows the job to its new member.
    let view = broker.client().job(answer.id).unwrap();
    assert_eq!((view.pid, view.state.as_str()), (moved.pid, "running"));
    assert_eq!((view.submitted_at, view.slo), (arrival, 600.0));
}

#[test]
fn without_its_broker_a_member_warns_once_and_keeps_its_evicted_jobs() {
    let nowhere = tempfile::tempdir().unwrap();
    let member = Node::member_of(&nowhere.path().join("no-broker.sock"));
    let client = member.client();
    // It serves as a daemon alone would.
    let answer = client.submit(&job(2, 60.0, 600.0)).unwrap();
    assert!(answer.accepted() && answer.member.is_none(), "{answer:?}");
    wait_for_job(&client, answer.id, |view| view.pid.is_some());
    // The HPC job ends before the SLO: the local lifecycle re-queues the job.
    assert_eq!(member.hpc_takes_everything("hpc-3", 100.0), vec![answer.id]);
    let requeued = wait_for_job(&client, answer.id, |view| {
        view.state == "queued" && view.evictions == 1
    });
    assert!(requeued.ended_at.is_none(), "{requeued:?}");
    // Several publications failed (every 0.2 s), one warning.
    std::thread::sleep(Duration::from_millis(600));
    let log = member.log();
    assert_eq!(log.matches("cannot publish to the broker").count(), 1, "{log}");
    assert!(log.contains("cannot hand the evicted job to the broker"), "{log}");
    let kept = client.job(answer.id).unwrap();
    assert_eq!((kept.state.as_str(), kept.evictions), ("queued", 1), "{kept:?}");
}

#[test]
fn a_broker_config_that_plans_jobs_is_refused_with_key_paths() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("broker.yaml");
    std::fs::write(
        &path,
        "datacenter: {role: broker, member_max_age_seconds: 0}\nengine: {procs: 4}\nbackend: {type: plugin}\n",
    )
    .unwrap();
    let output = Command::new(BIN)
        .arg("--config")
        .arg(&path)
        .arg("--check-config")
        .output()
        .unwrap();
    assert!(!output.status.success());
    let stderr = String::from_utf8_lossy(&output.stderr);
    for needle in [
        "engine.procs: a broker plans no jobs",
        "backend: a broker has no HPC plan",
        "datacenter.member_max_age_seconds",
    ] {
        assert!(stderr.contains(needle), "{needle} missing in {stderr}");
    }
}
