//! Cloud jobs are confined to what the engine gave them (issue 42, finding
//! 2), as Slurm's `task/cgroup` confines its jobs: their CPUs (cpuset and
//! affinity), their memory (the kernel kills a job over its limit, and the
//! daemon says so), their processes (a fork bomb stops at `pids.max`). Each
//! test runs a root daemon whose jobs are submitted by a real unprivileged
//! user (`interstice-test-a`, over the Unix socket with `setpriv` +
//! `curl`), and reads what the kernel says about the job's processes. They
//! need root; as anyone else they say so and pass.

mod common;

use common::users::{privileged, USER_A as USER};
use interstice_api::client::{Client, DEFAULT_TIMEOUT};
use std::os::unix::fs::PermissionsExt;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

const BIN: &str = env!("CARGO_BIN_EXE_intersticed");

/// A root daemon in a temp dir (its jobs ended on drop).
struct Daemon {
    dir: tempfile::TempDir,
    child: Option<Child>,
}

impl Daemon {
    /// A daemon of `procs` processors with `limits` (the YAML mapping's
    /// contents of `execution.limits`).
    fn start(procs: u32, limits: &str) -> Daemon {
        let dir = tempfile::tempdir().unwrap();
        std::fs::set_permissions(dir.path(), std::fs::Permissions::from_mode(0o755)).unwrap();
        let d = dir.path().display();
        let config = format!(
            "api: {{socket: {d}/d.sock}}\nstate_dir: {d}/state\n\
             engine: {{procs: {procs}, policy: conservative}}\nbackend: {{type: plugin}}\n\
             execution: {{grace_seconds: 1{limits}}}\nnode: {{busy_margin_cpus: 1000}}\nlog_level: info\n",
            limits = if limits.is_empty() {
                String::new()
            } else {
                format!(", limits: {{{limits}}}")
            }
        );
        std::fs::write(dir.path().join("d.yaml"), config).unwrap();
        let log = std::fs::File::create(dir.path().join("log")).unwrap();
        let child = Command::new(BIN)
            .arg("--config")
            .arg(dir.path().join("d.yaml"))
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
        let socket = daemon.dir.path().join("d.sock");
        std::fs::set_permissions(socket, std::fs::Permissions::from_mode(0o666)).unwrap();
        daemon
    }

    fn log(&self) -> String {
        std::fs::read_to_string(self.dir.path().join("log")).unwrap_or_default()
    }

    fn root(&self) -> Client {
        Client::new(self.dir.path().join("d.sock"), DEFAULT_TIMEOUT)
    }

    /// `GET path` as root, as JSON.
    fn get(&self, path: &str) -> serde_json::Value {
        let answer = self.root().raw("GET", path, None).unwrap();
        serde_json::from_str(&answer.text()).unwrap_or_else(|_| panic!("{path}: {}", answer.text()))
    }

    /// Submit `argv` on `procs` processors as the test user (`extra`: more
    /// JSON fields); the job's id.
    fn submit(&self, argv: &[&str], procs: u32, extra: &str) -> u64 {
        let body = format!(
            r#"{{"procs":{procs},"walltime":60,"slo":600,"argv":{}{extra}}}"#,
            serde_json::to_string(argv).unwrap()
        );
        let output = common::users::as_user(USER)
            .args(["curl", "-s", "-X", "POST"])
            .arg("--unix-socket")
            .arg(self.dir.path().join("d.sock"))
            .args(["-H", "Content-Type: application/json", "--data-binary", &body])
            .arg("http://localhost/v1/jobs")
            .output()
            .unwrap();
        let text = String::from_utf8_lossy(&output.stdout).to_string();
        let answer: serde_json::Value =
            serde_json::from_str(&text).unwrap_or_else(|_| panic!("submit: {text}\n{}", self.log()));
        assert_eq!(answer["decision"], "accepted", "{text}");
        answer["id"].as_u64().unwrap()
    }

    /// Job `id`'s view (raw JSON) once `done` holds.
    fn wait_for(
        &self,
        id: u64,
        timeout: Duration,
        done: impl Fn(&serde_json::Value) -> bool,
    ) -> serde_json::Value {
        let deadline = Instant::now() + timeout;
        loop {
            let view = self.get(&format!("/v1/jobs/{id}"));
            if done(&view) {
                return view;
            }
            assert!(
                Instant::now() < deadline,
                "job {id} stuck: {view}\n{}",
                self.log()
            );
            std::thread::sleep(Duration::from_millis(50));
        }
    }

    /// Job `id`'s stdout.
    fn stdout(&self, id: u64) -> String {
        std::fs::read_to_string(self.dir.path().join(format!("state/jobs/{id}/stdout"))).unwrap_or_default()
    }
}

impl Drop for Daemon {
    fn drop(&mut self) {
        if let Some(mut child) = self.child.take() {
            let _ = child.kill();
            let _ = child.wait();
        }
        interstice_daemon::exec::end_all_jobs(&self.dir.path().join("state"));
    }
}

/// The CPUs of a kernel CPU list (`0-2,5` has 4).
fn cpu_count(list: &str) -> usize {
    list.split(',')
        .map(|part| match part.split_once('-') {
            Some((lo, hi)) => hi.parse::<usize>().unwrap() - lo.parse::<usize>().unwrap() + 1,
            None => 1,
        })
        .sum()
}

/// The CPUs this test may use, a CPU list (at least two, or the test proves nothing).
fn node_cpus() -> String {
    let status = std::fs::read_to_string("/proc/self/status").unwrap();
    let list = status
        .lines()
        .find_map(|line| line.strip_prefix("Cpus_allowed_list:"))
        .unwrap()
        .trim()
        .to_string();
    assert!(
        cpu_count(&list) >= 2,
        "the confinement tests need 2 CPUs, have {list}"
    );
    list
}

/// A job granted 1 of the node's processors runs on one CPU, and so does
/// the child it forks, even when it asks the kernel for every CPU.
#[test]
fn a_job_granted_one_processor_stays_on_its_cpu() {
    if !privileged() {
        return;
    }
    let all = node_cpus();
    let daemon = Daemon::start(cpu_count(&all) as u32, "");
    let script = format!(
        "grep Cpus_allowed_list /proc/self/status; sleep 0.3 & grep Cpus_allowed_list /proc/$!/status; \
         wait; taskset -c {all} grep Cpus_allowed_list /proc/self/status || echo widening refused"
    );
    let id = daemon.submit(&["/bin/sh", "-c", &script], 1, "");
    let view = daemon.wait_for(id, Duration::from_secs(10), |view| {
        view["state"] != "queued" && view["state"] != "running"
    });
    assert_eq!(view["state"], "completed", "{view}\n{}", daemon.log());
    let lists: Vec<String> = daemon
        .stdout(id)
        .lines()
        .filter_map(|line| line.strip_prefix("Cpus_allowed_list:"))
        .map(|list| list.trim().to_string())
        .collect();
    assert!(lists.len() >= 2, "{}", daemon.stdout(id));
    assert_eq!(
        cpu_count(&lists[0]),
        1,
        "the job runs on {:?}, not on one CPU",
        lists[0]
    );
    assert!(
        lists.iter().all(|list| *list == lists[0]),
        "the job, its child and its widened self must stay on one CPU: {lists:?}"
    );
    assert_eq!(view["cpus"], lists[0].as_str(), "{view}");
}

/// A job evicted from its processor and started again on another runs on
/// the new one's CPU, not on the HPC job's.
#[test]
fn a_job_placed_again_after_an_eviction_moves_to_its_new_cpu() {
    if !privileged() {
        return;
    }
    let all = node_cpus();
    let cpus: Vec<String> = (0..cpu_count(&all)).map(|index| nth_cpu(&all, index)).collect();
    let daemon = Daemon::start(cpus.len() as u32, "");
    let script = "grep Cpus_allowed_list /proc/self/status; exec sleep 60";
    let id = daemon.submit(&["/bin/sh", "-c", script], 1, "");
    let lines = |count: usize| {
        let deadline = Instant::now() + Duration::from_secs(15);
        loop {
            let seen: Vec<String> = daemon
                .stdout(id)
                .lines()
                .filter_map(|line| line.strip_prefix("Cpus_allowed_list:"))
                .map(|list| list.trim().to_string())
                .collect();
            if seen.len() >= count {
                return seen;
            }
            assert!(Instant::now() < deadline, "{seen:?}\n{}", daemon.log());
            std::thread::sleep(Duration::from_millis(50));
        }
    };
    let first = lines(1)[0].clone();
    // The engine's processors of that CPU and of another (processor i is
    // the i-th allowed CPU).
    let processor = cpus
        .iter()
        .position(|cpu| *cpu == first)
        .expect("one of the node's CPUs");
    let other = (processor + 1) % cpus.len();
    let hpc = |kind: &str, name: &str, cpus: usize| {
        let event = format!(r#"{{"type":"{kind}","id":"{name}","procs":1,"walltime":300,"cpus":"{cpus}"}}"#);
        daemon
            .root()
            .raw("POST", "/v1/hpc/events", Some(event.as_bytes()))
            .unwrap()
            .text()
    };
    // HPC job A takes the other processor; HPC job B takes the job's, which
    // is evicted and waits; A ends, and the job starts again on A's.
    hpc("started", "hpc-a", other);
    let answer = hpc("started", "hpc-b", processor);
    assert!(answer.contains(&format!("[{id}]")), "not evicted: {answer}");
    daemon.wait_for(id, Duration::from_secs(10), |view| view["state"] == "queued");
    hpc("ended", "hpc-a", other);
    let seen = lines(2);
    assert_ne!(
        seen[1],
        first,
        "started again on the HPC job's CPU: {seen:?}\n{}",
        daemon.log()
    );
    let view = daemon.wait_for(id, Duration::from_secs(5), |view| view["state"] == "running");
    assert_eq!(
        (view["cpus"].as_str(), view["evictions"].as_u64()),
        (Some(seen[1].as_str()), Some(1)),
        "{view}"
    );
}

/// The `index`-th CPU of a kernel CPU list.
fn nth_cpu(list: &str, index: usize) -> String {
    let mut cpus = Vec::new();
    for part in list.split(',') {
        match part.split_once('-') {
            Some((lo, hi)) => cpus.extend(lo.parse::<usize>().unwrap()..=hi.parse::<usize>().unwrap()),
            None => cpus.push(part.parse().unwrap()),
        }
    }
    cpus[index].to_string()
}

/// A job over its memory limit is killed by the kernel, and its view says
/// so: `failed`, reason `memory`, and the metric counts it.
#[test]
fn a_job_over_its_memory_limit_is_killed_and_recorded() {
    if !privileged() {
        return;
    }
    let daemon = Daemon::start(2, "");
    // 400 MiB in one line tail keeps whole: a bounded hog.
    let hog = [
        "/bin/sh",
        "-c",
        "head -c 400000000 /dev/zero | tail -n 1 > /dev/null",
    ];
    let id = daemon.submit(&hog, 1, r#","memory_mb":64"#);
    let view = daemon.wait_for(id, Duration::from_secs(30), |view| view["ended_at"].is_number());
    assert_eq!(view["state"], "failed", "{view}\n{}", daemon.log());
    assert!(
        view["end_reason"]
            .as_str()
            .is_some_and(|why| why.starts_with("memory")),
        "{view}"
    );
    assert_eq!(view["memory_limit_bytes"], 64 << 20, "{view}");
    let metrics = daemon.root().metrics().unwrap();
    assert!(
        metrics.contains("interstice_cloud_jobs_killed_memory_total 1"),
        "{metrics}"
    );
    // The same job under its limit completes.
    let fits = [
        "/bin/sh",
        "-c",
        "head -c 20000000 /dev/zero | tail -n 1 > /dev/null",
    ];
    let id = daemon.submit(&fits, 1, r#","memory_mb":64"#);
    let view = daemon.wait_for(id, Duration::from_secs(30), |view| view["ended_at"].is_number());
    assert_eq!(view["state"], "completed", "{view}");
}

/// A job asking for more memory than the node allows is refused, with the
/// field and the fix named.
#[test]
fn memory_above_the_ceiling_is_refused() {
    if !privileged() {
        return;
    }
    let daemon = Daemon::start(2, "max_memory_mb: 256");
    let body = r#"{"procs":1,"walltime":60,"slo":600,"argv":["/bin/true"],"memory_mb":512}"#;
    let answer = daemon
        .root()
        .raw("POST", "/v1/jobs", Some(body.as_bytes()))
        .unwrap();
    let text = answer.text();
    assert!(
        text.contains("memory_mb: 512 MiB") && text.contains("max_memory_mb"),
        "{text}"
    );
}

/// A fork bomb (bounded: 300 sleeps) stops at the job's `pids.max`: the
/// shell cannot fork the 40th process and gives up, the job ends, and
/// nothing of it is left.
#[test]
fn a_fork_bomb_stops_at_the_process_limit() {
    if !privileged() {
        return;
    }
    let daemon = Daemon::start(2, "pids: 40");
    let marker = format!("97.{}", std::process::id());
    let bomb = format!("i=0; while [ $i -lt 300 ]; do sleep {marker} & i=$((i+1)); echo $i; done; wait");
    let id = daemon.submit(&["/bin/sh", "-c", &bomb], 1, "");
    let view = daemon.wait_for(id, Duration::from_secs(20), |view| view["ended_at"].is_number());
    let started: u32 = daemon.stdout(id).lines().last().unwrap_or("0").parse().unwrap();
    assert!(
        (10..40).contains(&started),
        "the bomb started {started} sleeps; pids.max 40 allows fewer\n{view}"
    );
    assert_eq!(view["pids_limit"], 40, "{view}");
    let deadline = Instant::now() + Duration::from_secs(5);
    while !processes_with(&marker).is_empty() {
        assert!(Instant::now() < deadline, "sleeps of the bomb outlived it");
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// `/healthz` and the metrics say what is enforced on this node.
#[test]
fn health_reports_what_is_enforced() {
    if !privileged() {
        return;
    }
    let daemon = Daemon::start(2, "");
    let health = daemon.get("/healthz");
    let confinement = &health["confinement"];
    for limit in ["cpuset", "memory", "pids"] {
        assert_eq!(confinement[limit], true, "{health}\n{}", daemon.log());
    }
    assert_eq!(confinement["cpu"], false, "cpu_quota is off by default: {health}");
    let metrics = daemon.root().metrics().unwrap();
    assert!(
        metrics.contains("interstice_confinement_enforced{limit=\"memory\"} 1"),
        "{metrics}"
    );
    assert!(
        daemon.log().contains("jobs are confined: cpuset true"),
        "{}",
        daemon.log()
    );
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
