//! The SPANK plugin on a multi-node job, on a real Slurm of three nodes
//! (`n1 n2 n3`, 4 CPUs each; harness: `tests/slurm/harness.rs`). Each node
//! has its own `intersticed` (`plugin` backend, an engine of the node's 4
//! processors) at `DIR/intersticed.<node>.sock`, which plugstack.conf names
//! once as `socket=DIR/intersticed.%n.sock`; each runs one local cloud job
//! on all its processors. An HPC job on n2 and n3 only must reach exactly
//! those two daemons, each with its own node's 4 CPUs (not the first node's
//! ids, not the job's 8), evict their cloud jobs and, when it ends, tell them
//! so; n1's daemon hears nothing and its cloud job runs on. Runs as root
//! (CI does); fails, not skips, when Slurm is missing.

#[path = "../slurm/harness.rs"]
mod harness;

use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use harness::{metric, stop_child, tail, wait_for, Cluster, PluginSettings, SpankReports, CPUS_PER_NODE};
use interstice_api::client::Client;
use interstice_api::wire::{JobView, SubmitRequest};

const STARTED: &str = "interstice_hpc_events_total{type=\"started\"}";
const ENDED: &str = "interstice_hpc_events_total{type=\"ended\"}";

/// One node's `intersticed` with the `plugin` backend: it learns HPC jobs
/// only from that node's SPANK prolog/epilog. Stopped, and its jobs ended
/// through their cgroups, when dropped (its jobs would outlive it).
struct NodeDaemon {
    node: String,
    child: Option<Child>,
    socket: PathBuf,
    state: PathBuf,
    log: PathBuf,
}

impl NodeDaemon {
    /// Starts node `node`'s daemon on `cluster.node_socket(node)` and waits for `/healthz`.
    fn start(cluster: &Cluster, node: &str) -> NodeDaemon {
        let root = cluster.dir.path();
        let socket = cluster.node_socket(node);
        let state = root.join(format!("state-{node}"));
        let config = root.join(format!("intersticed.{node}.yaml"));
        // Jobs run as nobody; busy_margin_cpus keeps the machine's own load
        // (the test build, the other nodes' jobs) from holding a start.
        std::fs::write(
            &config,
            format!(
                "api: {{socket: {socket}}}\nstate_dir: {state}\n\
                 engine: {{procs: {CPUS_PER_NODE}, policy: conservative, admission: reject-predicted}}\n\
                 backend: {{type: plugin}}\nexecution: {{user: nobody, grace_seconds: 1}}\n\
                 node: {{busy_margin_cpus: 1000}}\nlog_level: info\n",
                socket = socket.display(),
                state = state.display(),
            ),
        )
        .expect("write a node daemon's config");
        let log = root.join(format!("intersticed.{node}.log"));
        let child = Command::new(interstice_tests::artifact("intersticed"))
            .args(["--config", &config.display().to_string()])
            .current_dir(root)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(std::fs::File::create(&log).expect("daemon log"))
            .spawn()
            .expect("start intersticed");
        let mut daemon = NodeDaemon {
            node: node.to_string(),
            child: Some(child),
            socket,
            state,
            log,
        };
        wait_for(
            &format!("{node}'s intersticed to answer /healthz"),
            Duration::from_secs(20),
            || {
                daemon.assert_running();
                daemon.client().health().ok()
            },
        );
        daemon
    }

    fn client(&self) -> Client {
        Client::new(&self.socket, Duration::from_secs(10))
    }

    /// Panics with its log if the daemon exited.
    fn assert_running(&mut self) {
        if let Some(Ok(Some(status))) = self.child.as_mut().map(Child::try_wait) {
            panic!(
                "{}'s intersticed exited with {status}:\n{}",
                self.node,
                tail(&self.log, 30)
            );
        }
    }

    /// `series` on its `/metrics` (0 if absent).
    fn metric(&self, series: &str) -> f64 {
        let text = self
            .client()
            .metrics()
            .unwrap_or_else(|err| panic!("{} /metrics: {err}", self.node));
        metric(&text, series)
    }

    /// Submits a local cloud job that sleeps on all the node's processors
    /// (as the test runs as root, it runs as `execution.user`, nobody).
    fn submit_sleeper(&self) -> u64 {
        let answer = self
            .client()
            .submit(&SubmitRequest {
                procs: CPUS_PER_NODE,
                walltime: 300.0,
                slo: 3600.0,
                argv: vec!["/bin/sleep".into(), "280".into()],
                env: None,
                workdir: None,
                class: Some("multinode-test".into()),
                features: Vec::new(),
                on_behalf_of: None,
                memory_mb: None,
                bytes: None,
            })
            .unwrap_or_else(|err| panic!("{}: submit: {err}", self.node));
        assert!(answer.accepted(), "{}: {answer:?}", self.node);
        answer.id
    }

    /// Cloud job `id` as this daemon's API reports it.
    fn job(&self, id: u64) -> JobView {
        self.client()
            .job(id)
            .unwrap_or_else(|err| panic!("{}: job {id}: {err}", self.node))
    }

    /// Waits until cloud job `id` satisfies `done`; returns its view.
    fn wait_job(&self, id: u64, what: &str, done: impl Fn(&JobView) -> bool) -> JobView {
        wait_for(
            &format!(
                "{}'s cloud job {id} to be {what} (log:\n{})",
                self.node,
                tail(&self.log, 20)
            ),
            Duration::from_secs(30),
            || Some(self.job(id)).filter(&done),
        )
    }
}

impl Drop for NodeDaemon {
    fn drop(&mut self) {
        if let Ok(list) = self.client().jobs() {
            for job in list.jobs {
                let _ = self.client().cancel(job.id);
            }
        }
        if let Some(mut child) = self.child.take() {
            stop_child(&mut child, Duration::from_secs(10));
        }
        interstice_daemon::exec::end_all_jobs(&self.state);
    }
}

/// Waits until `daemon`'s `series` reaches 1, then checks it is exactly 1;
/// on a timeout, fails with the node's slurmd log (the SPANK plugin's
/// reports and errors) and the daemon's.
fn wait_one_event(cluster: &Cluster, daemon: &NodeDaemon, series: &str) {
    let deadline = Instant::now() + Duration::from_secs(20);
    while daemon.metric(series) < 1.0 {
        assert!(
            Instant::now() < deadline,
            "{} never got {series}\n--- slurmd.{}.log\n{}\n--- intersticed.{}.log\n{}",
            daemon.node,
            daemon.node,
            tail(
                &cluster.dir.path().join(format!("slurmd.{}.log", daemon.node)),
                40
            ),
            daemon.node,
            tail(&daemon.log, 20)
        );
        std::thread::sleep(Duration::from_millis(200));
    }
    assert_eq!(daemon.metric(series), 1.0, "{}: one {series}", daemon.node);
}

/// The SPANK plugin's own line in `node`'s slurmd log for `kind` of job `id`.
fn spank_line(cluster: &Cluster, node: &str, id: &str, kind: &str) -> Option<String> {
    let needle = format!("spank_interstice: job {id} {kind} ");
    cluster
        .slurmd_log(node)
        .lines()
        .find(|line| line.contains(&needle))
        .map(str::to_string)
}

#[test]
fn each_node_of_a_multi_node_hpc_job_reports_its_own_cpus_to_its_own_daemon() {
    let started = Instant::now();
    let cluster = Cluster::start(&PluginSettings {
        spank_reports: SpankReports::PerNode,
        ..PluginSettings::default()
    });
    let daemons: Vec<NodeDaemon> = cluster
        .nodes
        .iter()
        .map(|node| NodeDaemon::start(&cluster, node))
        .collect();
    let ids: Vec<u64> = daemons.iter().map(NodeDaemon::submit_sleeper).collect();
    let cloud: Vec<CloudJob> = daemons.iter().zip(ids).map(CloudJob::running).collect();
    let (n1, n2, n3) = (&daemons[0], &daemons[1], &daemons[2]);
    let hpc = an_hpc_job_runs_on_n2_and_n3(&cluster);
    for (daemon, job) in [(n2, &cloud[1]), (n3, &cloud[2])] {
        the_node_hears_the_start_with_its_own_cpus_and_evicts(&cluster, daemon, job, &hpc);
    }
    // n1 hears nothing; its cloud job runs on, the same process.
    n1s_cloud_job_is_untouched(n1, &cloud[0]);
    assert_eq!(n1.metric(STARTED), 0.0, "n1 is not in the job");
    assert!(spank_line(&cluster, "n1", &hpc, "started").is_none());
    // The job ends: n2 and n3 each hear it and run their cloud job again (a
    // new process), n1 still hears nothing.
    cluster.wait_state(&hpc, &["COMPLETED"], Duration::from_secs(60));
    for (daemon, job) in [(n2, &cloud[1]), (n3, &cloud[2])] {
        the_node_hears_the_end_and_runs_its_cloud_job_again(&cluster, daemon, job, &hpc);
    }
    assert_eq!((n1.metric(STARTED), n1.metric(ENDED)), (0.0, 0.0));
    n1s_cloud_job_is_untouched(n1, &cloud[0]);
    drop(daemons);
    drop(cluster);
    println!(
        "METRIC:slurm_multinode_duration:{:.1}:seconds",
        started.elapsed().as_secs_f64()
    );
}

/// A node daemon's local cloud job, running on all the node's processors.
struct CloudJob {
    id: u64,
    /// Its process when it first ran.
    pid: u32,
}

impl CloudJob {
    /// Waits until `daemon`'s cloud job `id` runs.
    fn running((daemon, id): (&NodeDaemon, u64)) -> CloudJob {
        let pid = daemon
            .wait_job(id, "running", |view| {
                view.state == "running" && view.pid.is_some()
            })
            .pid
            .expect("running job's pid");
        CloudJob { id, pid }
    }
}

/// An HPC job on n2 and n3 only, 4 CPUs on each, without a time limit: its
/// prolog reports it all the same (planned for a year, until its epilog
/// says it ended). Slurm runs it there: its id.
fn an_hpc_job_runs_on_n2_and_n3(cluster: &Cluster) -> String {
    let hpc = cluster
        .sbatch(&[
            "-p",
            "hpc",
            "-N",
            "2",
            "-w",
            "n2,n3",
            "-n",
            "8",
            "-t",
            "UNLIMITED",
            "--wrap",
            "sleep 5",
        ])
        .expect("the HPC job is accepted");
    cluster.wait_state(&hpc, &["RUNNING", "COMPLETED"], Duration::from_secs(30));
    let nodes = cluster.run("squeue", &["-h", "-t", "all", "-j", &hpc, "-o", "%N"]);
    assert_eq!(
        String::from_utf8_lossy(&nodes.stdout).trim(),
        "n[2-3]",
        "Slurm ran the HPC job on n2 and n3"
    );
    hpc
}

/// `daemon`'s node is in HPC job `hpc`: one started event, its SPANK report
/// with the node's own 4 CPUs (0-3) to the node's own socket, and its cloud
/// job `job` evicted and, as resubmissions are allowed (the default), queued
/// again: the HPC job holds the node's processors until it ends.
fn the_node_hears_the_start_with_its_own_cpus_and_evicts(
    cluster: &Cluster,
    daemon: &NodeDaemon,
    job: &CloudJob,
    hpc: &str,
) {
    wait_one_event(cluster, daemon, STARTED);
    let view = daemon.wait_job(job.id, "evicted", |view| {
        view.evictions == 1 && view.state != "running"
    });
    assert_eq!(
        (view.state.as_str(), view.pid),
        ("queued", None),
        "{}: the evicted cloud job waits for the HPC job: {view:?}",
        daemon.node
    );
    let line = spank_line(cluster, &daemon.node, hpc, "started").unwrap_or_else(|| {
        panic!(
            "no SPANK report of job {hpc} in slurmd.{}.log:\n{}",
            daemon.node,
            cluster.slurmd_log(&daemon.node)
        )
    });
    let own = format!(
        "on node {} cpus 0-3 ({CPUS_PER_NODE}) reported to {}",
        daemon.node,
        daemon.socket.display()
    );
    assert!(
        line.contains(&own),
        "{}: expected {own:?} in {line:?}",
        daemon.node
    );
    println!("{}: {line}", daemon.node);
}

/// HPC job `hpc` has ended on `daemon`'s node: one ended event (after its
/// one started event), the epilog's report, and its cloud job `job` running
/// again in a new process, evicted once.
fn the_node_hears_the_end_and_runs_its_cloud_job_again(
    cluster: &Cluster,
    daemon: &NodeDaemon,
    job: &CloudJob,
    hpc: &str,
) {
    wait_one_event(cluster, daemon, ENDED);
    let line = spank_line(cluster, &daemon.node, hpc, "ended").expect("the epilog's report");
    println!("{}: {line}", daemon.node);
    assert_eq!(daemon.metric(STARTED), 1.0, "{}", daemon.node);
    let view = daemon.wait_job(job.id, "running again", |view| {
        view.state == "running" && view.pid.is_some()
    });
    assert_ne!(
        view.pid,
        Some(job.pid),
        "{}: a new process: {view:?}",
        daemon.node
    );
    assert_eq!(view.evictions, 1, "{}: {view:?}", daemon.node);
}

/// n1's cloud job `job` still runs, in the same process, never evicted.
fn n1s_cloud_job_is_untouched(n1: &NodeDaemon, job: &CloudJob) {
    let view = n1.job(job.id);
    assert_eq!(
        (view.state.as_str(), view.pid, view.evictions),
        ("running", Some(job.pid), 0),
        "n1's cloud job is untouched: {view:?}"
    );
}
