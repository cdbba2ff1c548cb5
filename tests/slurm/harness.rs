//! A real Slurm of three nodes on one machine for the tests: munged,
//! slurmctld and one slurmd per node (`n1 n2 n3`, 4 CPUs each) on loopback
//! with a generated config (`tests/slurm/slurm.conf.in`), both Interstice
//! plugins loaded, and `intersticed` with the `slurm` backend.
//!
//! Every daemon runs in the foreground as a child of the test (`munged -F`,
//! `slurmctld -D`, `slurmd -D`), so it is stopped by its PID when the guard is
//! dropped, also when the test fails. Each slurmd runs in its own UTS
//! namespace whose hostname is its node's name (`unshare --uts`, which execs
//! the shell that sets the name and execs slurmd: the child's PID is
//! slurmd's). Jobs still in the queue are cancelled first. Requires root and
//! the Slurm packages (CI installs them); a missing binary fails the test
//! with the package to install.

#![allow(dead_code)]

use interstice_api::client::{Client, ClientError};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::time::{Duration, Instant};

/// Finds a system program in PATH or the usual sbin directories; panics with the fix.
pub fn program(name: &str) -> PathBuf {
    let path = std::env::var("PATH").unwrap_or_default();
    for dir in path.split(':').chain([
        "/usr/sbin",
        "/usr/bin",
        "/sbin",
        "/usr/local/sbin",
        "/usr/local/bin",
    ]) {
        let candidate = Path::new(dir).join(name);
        if candidate.is_file() {
            return candidate;
        }
    }
    panic!(
        "{name} not found: the Slurm tests need a real Slurm (apt-get install slurmctld slurmd slurm-client munge \
         libslurm-dev; .ci/run installs them)"
    );
}

fn is_root() -> bool {
    Command::new("id")
        .arg("-u")
        .output()
        .map(|out| String::from_utf8_lossy(&out.stdout).trim() == "0")
        .unwrap_or(false)
}

fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|listener| listener.local_addr())
        .expect("free port")
        .port()
}

/// The cluster's nodes, in order (`Nodes=n[1-3]`).
pub const NODES: [&str; 3] = ["n1", "n2", "n3"];

/// CPUs of each node (`CPUs=4 Sockets=1 CoresPerSocket=4 ThreadsPerCore=1`).
pub const CPUS_PER_NODE: u32 = 4;

/// CPUs of the whole cluster.
pub const CLUSTER_CPUS: u32 = CPUS_PER_NODE * NODES.len() as u32;

/// Memory of each node (`RealMemory=`, MB) when Slurm does not track memory.
pub const DEFAULT_NODE_MEMORY_MB: u32 = 500;

/// The `NodeName=` line of `node` with `memory_mb` of `RealMemory`,
/// reached on loopback at its own `port`.
fn node_line(node: &str, port: u16, memory_mb: u32) -> String {
    format!(
        "NodeName={node} NodeHostname={node} NodeAddr=127.0.0.1 Port={port} CPUs={CPUS_PER_NODE} Sockets=1 \
         CoresPerSocket={CPUS_PER_NODE} ThreadsPerCore=1 RealMemory={memory_mb} State=UNKNOWN"
    )
}

fn short_hostname() -> String {
    let out = Command::new("hostname")
        .arg("-s")
        .output()
        .expect("run hostname -s");
    String::from_utf8_lossy(&out.stdout).trim().to_string()
}

/// Sends SIGTERM, waits up to `grace`, then SIGKILL; always reaps.
pub fn stop_child(child: &mut Child, grace: Duration) {
    if let Ok(Some(_)) = child.try_wait() {
        return;
    }
    let _ = Command::new("kill")
        .arg("-TERM")
        .arg(child.id().to_string())
        .status();
    let deadline = Instant::now() + grace;
    while Instant::now() < deadline {
        if let Ok(Some(_)) = child.try_wait() {
            return;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    let _ = child.kill();
    let _ = child.wait();
}

/// Polls `check` every 200 ms until it returns Some or `timeout` passes.
pub fn wait_for<T>(what: &str, timeout: Duration, mut check: impl FnMut() -> Option<T>) -> T {
    let deadline = Instant::now() + timeout;
    loop {
        if let Some(value) = check() {
            return value;
        }
        assert!(
            Instant::now() < deadline,
            "timed out after {timeout:?} waiting for {what}"
        );
        std::thread::sleep(Duration::from_millis(200));
    }
}

/// Tail of a log file, for failure messages.
pub fn tail(path: &Path, lines: usize) -> String {
    let text = std::fs::read_to_string(path).unwrap_or_default();
    let all: Vec<&str> = text.lines().collect();
    all[all.len().saturating_sub(lines)..].join("\n")
}

/// The plugins' settings for this cluster.
#[derive(Clone, Debug)]
pub struct PluginSettings {
    /// `timeout_ms` of job_submit/interstice.
    pub timeout_ms: u64,
    /// `fail_mode` of job_submit/interstice.
    pub fail_mode: &'static str,
    /// Where spank_interstice's prolog/epilog reports go.
    pub spank_reports: SpankReports,
    /// `class_partitions` of job_submit/interstice (`gold:cloud_gold`; the
    /// test cluster has a `cloud_gold` partition above `cloud`).
    pub class_partitions: &'static str,
    /// `PreemptMode` of the cloud partitions: `CANCEL` (Slurm preempts
    /// them for HPC work), or `OFF` (the daemon evicts, `backend.eviction`).
    pub cloud_preempt_mode: &'static str,
    /// `None`: Slurm counts CPUs only (`SelectTypeParameters=CR_Core`, each
    /// node [`DEFAULT_NODE_MEMORY_MB`]). `Some(mb)`: memory is a consumable
    /// resource too (`CR_Core_Memory`), each node has `RealMemory=mb` and a
    /// job that asks for none gets `DefMemPerCPU` = `mb / CPUS_PER_NODE`.
    pub node_memory_mb: Option<u32>,
}

/// Where spank_interstice's prolog/epilog reports go.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SpankReports {
    /// Nowhere (`report=no`; the options still work). The one daemon at
    /// [`Cluster::daemon_socket`] has the `slurm` backend: it mirrors the
    /// whole cluster from squeue, and a prolog's report is one node's share
    /// of a job, in that node's CPU ids, not the job.
    Off,
    /// Each node's own daemon: `socket=DIR/intersticed.%n.sock` (see
    /// [`Cluster::node_socket`]).
    PerNode,
    /// The one daemon at [`Cluster::daemon_socket`], `slurm` backend: it
    /// counts the reports (Slurm's plan, not the reports, says where the
    /// jobs are).
    Central,
}

impl Default for PluginSettings {
    fn default() -> Self {
        PluginSettings {
            timeout_ms: 250,
            fail_mode: "open",
            spank_reports: SpankReports::Off,
            class_partitions: "",
            cloud_preempt_mode: "CANCEL",
            node_memory_mb: None,
        }
    }
}

/// A running three-node Slurm cluster.
pub struct Cluster {
    /// Scratch directory (config, state, logs, sockets); removed on drop.
    pub dir: tempfile::TempDir,
    /// The node names ([`NODES`]).
    pub nodes: Vec<String>,
    /// `slurm.conf` path (clients get it as `SLURM_CONF`).
    pub conf: PathBuf,
    /// Where intersticed listens (the plugins are configured for it).
    pub daemon_socket: PathBuf,
    munged: Option<Child>,
    slurmctld: Option<Child>,
    /// One slurmd per node, in the order of `nodes`.
    slurmds: Vec<(String, Child)>,
}

impl Cluster {
    /// Starts munged, slurmctld and one slurmd per node with both plugins;
    /// waits until every node is idle.
    pub fn start(settings: &PluginSettings) -> Cluster {
        assert!(
            is_root(),
            "the Slurm tests must run as root (CI runs them as root)"
        );
        let (munged, slurmctld, slurmd) = (program("munged"), program("slurmctld"), program("slurmd"));
        program("sbatch");
        program("unshare");
        program("hostname");
        let dir = scratch_with_plugins();
        let root = dir.path().to_path_buf();
        let daemon_socket = root.join("intersticed.sock");
        let munge_socket = root.join("munge/munge.socket");
        let conf = root.join("slurm.conf");
        write_slurm_conf(&conf, &root, &munge_socket, settings);
        write_plugin_confs(&root, &daemon_socket, settings);
        let mut cluster = Cluster {
            dir,
            nodes: NODES.iter().map(|node| node.to_string()).collect(),
            conf,
            daemon_socket,
            munged: None,
            slurmctld: None,
            slurmds: Vec::new(),
        };
        cluster.munged = Some(spawn_munged(&munged, &root.join("munge"), &munge_socket));
        wait_for("munged's socket", Duration::from_secs(10), || {
            cluster.assert_running();
            munge_socket.exists().then_some(())
        });
        cluster.slurmctld = Some(cluster.spawn_slurmctld(&slurmctld));
        for node in cluster.nodes.clone() {
            let child = cluster.spawn_slurmd(&slurmd, &node);
            cluster.slurmds.push((node, child));
        }
        cluster.wait_idle(Duration::from_secs(30));
        cluster
    }

    /// Starts the slurmd of `node` in the foreground, in a new UTS namespace
    /// whose hostname is the node's name (`-N` names the node; the hostname
    /// is what its jobs and prolog see, as on a real node).
    fn spawn_slurmd(&self, slurmd: &Path, node: &str) -> Child {
        Command::new(program("unshare"))
            .args([
                "--uts",
                "sh",
                "-c",
                "hostname \"$1\" && exec \"$2\" -D -f \"$3\" -N \"$1\"",
                "sh",
                node,
                &slurmd.display().to_string(),
                &self.conf.display().to_string(),
            ])
            .env("SLURM_CONF", &self.conf)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(
                std::fs::File::create(self.dir.path().join(format!("slurmd.{node}.stderr")))
                    .expect("stderr file"),
            )
            .spawn()
            .unwrap_or_else(|err| panic!("start slurmd {node}: {err}"))
    }

    /// Waits until `sinfo` lists every node, each idle; fails at once if a
    /// daemon exits, and after `timeout` with the logs.
    fn wait_idle(&mut self, timeout: Duration) {
        let ready = Instant::now() + timeout;
        loop {
            self.assert_running();
            let output = self.run("sinfo", &["-h", "-N", "-o", "%N %T"]);
            let states = String::from_utf8_lossy(&output.stdout).trim().to_string();
            let idle: Vec<&str> = states
                .lines()
                .filter_map(|line| line.strip_suffix(" idle"))
                .collect();
            if self.nodes.iter().all(|node| idle.contains(&node.as_str())) {
                return;
            }
            assert!(
                Instant::now() < ready,
                "the Slurm nodes did not become idle (sinfo: {states:?})\n--- slurmctld.log\n{}{}",
                tail(&self.dir.path().join("slurmctld.log"), 30),
                self.nodes
                    .iter()
                    .map(|node| format!(
                        "\n--- slurmd.{node}.log\n{}",
                        tail(&self.dir.path().join(format!("slurmd.{node}.log")), 15)
                    ))
                    .collect::<String>()
            );
            std::thread::sleep(Duration::from_millis(250));
        }
    }

    /// Where node `node`'s own daemon listens when the cluster runs with
    /// [`SpankReports::PerNode`] (the plugstack's `%n` replaced).
    pub fn node_socket(&self, node: &str) -> PathBuf {
        self.dir.path().join(format!("intersticed.{node}.sock"))
    }

    /// Node `node`'s slurmd log so far.
    pub fn slurmd_log(&self, node: &str) -> String {
        std::fs::read_to_string(self.dir.path().join(format!("slurmd.{node}.log"))).unwrap_or_default()
    }

    fn spawn_slurmctld(&self, slurmctld: &Path) -> Child {
        Command::new(slurmctld)
            .args(["-D", "-i", "-f", &self.conf.display().to_string()])
            .env("SLURM_CONF", &self.conf)
            .env("INTERSTICE_CONF", self.dir.path().join("interstice.conf"))
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(std::fs::File::create(self.dir.path().join("slurmctld.stderr")).expect("stderr file"))
            .spawn()
            .expect("start slurmctld")
    }

    /// Panics, with its logs, if one of the cluster's daemons has exited: a
    /// daemon that died (a plugin Slurm refused, a bad config) will never
    /// answer, so waiting for it only hides the reason.
    pub fn assert_running(&mut self) {
        let dir = self.dir.path().to_path_buf();
        let mut daemons: Vec<(String, &mut Child, Vec<String>)> = Vec::new();
        if let Some(child) = self.munged.as_mut() {
            daemons.push(("munged".into(), child, vec!["munge/munged.log".into()]));
        }
        if let Some(child) = self.slurmctld.as_mut() {
            daemons.push((
                "slurmctld".into(),
                child,
                vec!["slurmctld.log".into(), "slurmctld.stderr".into()],
            ));
        }
        for (node, child) in &mut self.slurmds {
            let logs = vec![format!("slurmd.{node}.log"), format!("slurmd.{node}.stderr")];
            daemons.push((format!("slurmd {node}"), child, logs));
        }
        for (name, child, logs) in daemons {
            if let Ok(Some(status)) = child.try_wait() {
                let logs: String = logs
                    .iter()
                    .map(|log| format!("\n--- {log}\n{}", tail(&dir.join(log), 30)))
                    .collect();
                panic!("{name} exited ({status}){logs}");
            }
        }
    }

    /// Stops slurmctld (SIGTERM, then SIGKILL); `restart_slurmctld` brings it back.
    pub fn stop_slurmctld(&mut self) {
        if let Some(mut child) = self.slurmctld.take() {
            stop_child(&mut child, Duration::from_secs(10));
        }
    }

    /// Restarts slurmctld, with or without `JobSubmitPlugins=interstice`; waits until it answers.
    pub fn restart_slurmctld(&mut self, job_submit_plugin: bool) {
        self.restart_slurmctld_with(job_submit_plugin.then_some("interstice"));
    }

    /// Restarts slurmctld with `JobSubmitPlugins=<plugins>` (commented out
    /// for `None`); waits until it answers, and fails at once if it exits.
    pub fn restart_slurmctld_with(&mut self, job_submit_plugins: Option<&str>) {
        if let Some(mut child) = self.slurmctld.take() {
            stop_child(&mut child, Duration::from_secs(10));
        }
        let text = std::fs::read_to_string(&self.conf).expect("read slurm.conf");
        let text: String = text
            .lines()
            .map(|line| {
                if line.trim_start_matches('#').starts_with("JobSubmitPlugins=") {
                    match job_submit_plugins {
                        Some(plugins) => format!("JobSubmitPlugins={plugins}"),
                        None => "#JobSubmitPlugins=interstice".to_string(),
                    }
                } else {
                    line.to_string()
                }
            })
            .map(|line| line + "\n")
            .collect();
        std::fs::write(&self.conf, text).expect("write slurm.conf");
        self.slurmctld = Some(self.spawn_slurmctld(&program("slurmctld")));
        wait_for(
            "slurmctld to answer after a restart",
            Duration::from_secs(30),
            || {
                self.assert_running();
                self.run("scontrol", &["ping"]).status.success().then_some(())
            },
        );
    }

    /// Runs a Slurm client with this cluster's `SLURM_CONF`.
    pub fn run(&self, client: &str, args: &[&str]) -> Output {
        Command::new(program(client))
            .args(args)
            .env("SLURM_CONF", &self.conf)
            .current_dir(self.dir.path().join("jobs"))
            .output()
            .unwrap_or_else(|err| panic!("run {client}: {err}"))
    }

    /// `scontrol ARGS`, which must succeed (else the test fails with its stderr).
    pub fn scontrol(&self, args: &[&str]) {
        let output = self.run("scontrol", args);
        assert!(
            output.status.success(),
            "scontrol {}: {}",
            args.join(" "),
            String::from_utf8_lossy(&output.stderr)
        );
    }

    /// Runs a Slurm client as the unprivileged user `nobody` (`setpriv`),
    /// with this cluster's `SLURM_CONF`, in its world-writable jobs directory.
    pub fn run_as_nobody(&self, client: &str, args: &[&str]) -> Output {
        Command::new(program("setpriv"))
            .args(["--reuid=nobody", "--regid=nogroup", "--clear-groups"])
            .arg(program(client))
            .args(args)
            .env("SLURM_CONF", &self.conf)
            .current_dir(self.dir.path().join("jobs"))
            .output()
            .unwrap_or_else(|err| panic!("run {client} as nobody: {err}"))
    }

    /// `sbatch --parsable ARGS`: Ok(job id), or sbatch's refusal.
    pub fn sbatch(&self, args: &[&str]) -> Result<String, SbatchRefused> {
        let out_pattern = self.dir.path().join("jobs/job-%j.out").display().to_string();
        let mut all = vec!["--parsable", "-o", &out_pattern];
        all.extend_from_slice(args);
        let output = self.run("sbatch", &all);
        if output.status.success() {
            Ok(String::from_utf8_lossy(&output.stdout)
                .trim()
                .split(';')
                .next()
                .unwrap_or_default()
                .to_string())
        } else {
            Err(SbatchRefused {
                stderr: String::from_utf8_lossy(&output.stderr).to_string(),
            })
        }
    }

    /// One job as squeue sees it: (partition, state, comment), None once it is gone.
    pub fn job(&self, id: &str) -> Option<(String, String, String)> {
        let output = self.run("squeue", &["-h", "-t", "all", "-j", id, "-o", "%P|%T|%k"]);
        let text = String::from_utf8_lossy(&output.stdout).trim().to_string();
        let mut fields = text.splitn(3, '|');
        Some((
            fields.next()?.to_string(),
            fields.next()?.to_string(),
            fields.next()?.to_string(),
        ))
    }

    /// Job `id`'s state as squeue prints it (`""` once it is gone).
    pub fn state(&self, id: &str) -> String {
        self.job(id).map(|(_, state, _)| state).unwrap_or_default()
    }

    /// Waits until job `id` is in one of `states`; returns the state.
    pub fn wait_state(&self, id: &str, states: &[&str], timeout: Duration) -> String {
        let deadline = Instant::now() + timeout;
        loop {
            let state = self.state(id);
            if states.contains(&state.as_str()) {
                return state;
            }
            assert!(
                Instant::now() < deadline,
                "job {id} is {state:?}, not one of {states:?} after {timeout:?}\n--- squeue\n{}\n--- slurmctld.log\n{}",
                String::from_utf8_lossy(&self.run("squeue", &["-t", "all", "-o", "%i %P %T %C %l %S %e %r %k"]).stdout),
                tail(&self.dir.path().join("slurmctld.log"), 25)
            );
            std::thread::sleep(Duration::from_millis(250));
        }
    }

    /// The slurmctld log so far.
    pub fn slurmctld_log(&self) -> String {
        std::fs::read_to_string(self.dir.path().join("slurmctld.log")).unwrap_or_default()
    }

    /// Cancels every job of this cluster.
    pub fn cancel_all(&self) {
        let output = self.run("squeue", &["-h", "-o", "%i"]);
        let ids: Vec<String> = String::from_utf8_lossy(&output.stdout)
            .split_whitespace()
            .map(str::to_string)
            .collect();
        if !ids.is_empty() {
            let mut args = vec!["--full"];
            args.extend(ids.iter().map(String::as_str));
            let _ = self.run("scancel", &args);
        }
    }
}

impl Drop for Cluster {
    fn drop(&mut self) {
        if self.slurmctld.is_some() {
            self.cancel_all();
            let deadline = Instant::now() + Duration::from_secs(10);
            while Instant::now() < deadline {
                let output = self.run("squeue", &["-h", "-t", "R,CG", "-o", "%i"]);
                if !output.status.success() || output.stdout.iter().all(u8::is_ascii_whitespace) {
                    break;
                }
                std::thread::sleep(Duration::from_millis(200));
            }
        }
        let slurmds = std::mem::take(&mut self.slurmds)
            .into_iter()
            .map(|(_, child)| child);
        for child in slurmds.chain([self.slurmctld.take(), self.munged.take()].into_iter().flatten()) {
            let mut child = child;
            stop_child(&mut child, Duration::from_secs(10));
        }
    }
}

/// The cluster's scratch directory (`state`, `spool` with one directory per
/// node, `plugins`, `munge`, and `jobs` writable by all), with both
/// Interstice plugins linked into `plugins` under the names Slurm looks for.
fn scratch_with_plugins() -> tempfile::TempDir {
    let job_submit = interstice_tests::artifact("libjob_submit_interstice.so");
    let spank = interstice_tests::artifact("libspank_interstice.so");
    let dir = tempfile::Builder::new()
        .prefix("interstice-slurm-")
        .tempdir()
        .expect("scratch dir");
    let root = dir.path();
    chmod(root, "755");
    for sub in ["state", "spool", "plugins", "munge", "jobs"] {
        std::fs::create_dir_all(root.join(sub)).expect("create scratch subdirectory");
    }
    for node in NODES {
        std::fs::create_dir_all(root.join("spool").join(node)).expect("create a node's spool");
    }
    chmod(&root.join("jobs"), "1777");
    // Slurm finds a plugin by file name: job_submit/interstice → job_submit_interstice.so.
    std::os::unix::fs::symlink(&job_submit, root.join("plugins/job_submit_interstice.so")).expect("symlink");
    std::os::unix::fs::symlink(&spank, root.join("plugins/spank_interstice.so")).expect("symlink");
    dir
}

/// `slurm.conf` at `conf` from `tests/slurm/slurm.conf.in`: this host as
/// the controller, the scratch directory `root`, free ports, the nodes,
/// Slurm's plugin directory then ours, munged's socket, and the cloud
/// partitions' PreemptMode from `settings` (the template's is the packaged
/// one, CANCEL).
fn write_slurm_conf(conf: &Path, root: &Path, munge_socket: &Path, settings: &PluginSettings) {
    let template = std::fs::read_to_string(interstice_tests::repo_root().join("tests/slurm/slurm.conf.in"))
        .expect("read tests/slurm/slurm.conf.in");
    let system_plugins = [
        "/usr/lib/x86_64-linux-gnu/slurm-wlm",
        "/usr/lib/aarch64-linux-gnu/slurm-wlm",
        "/usr/lib64/slurm",
        "/usr/lib/slurm",
    ]
    .into_iter()
    .find(|dir| Path::new(dir).join("select_cons_tres.so").exists())
    .expect("Slurm's plugin directory (select_cons_tres.so) not found");
    let memory = settings.node_memory_mb.unwrap_or(DEFAULT_NODE_MEMORY_MB);
    let node_lines: Vec<String> = NODES
        .iter()
        .map(|node| node_line(node, free_port(), memory))
        .collect();
    let text = template
        .replace("@CTLD_HOST@", &short_hostname())
        .replace("@DIR@", &root.display().to_string())
        .replace("@CTLD_PORT@", &free_port().to_string())
        .replace("@NODE_LINES@", &node_lines.join("\n"))
        .replace("@NODELIST@", &format!("n[1-{}]", NODES.len()))
        .replace(
            "@PLUGIN_DIR@",
            &format!("{system_plugins}:{}", root.join("plugins").display()),
        )
        .replace("@MUNGE_SOCKET@", &munge_socket.display().to_string());
    let text: String = text
        .lines()
        .map(|line| match line.starts_with("PartitionName=cloud") {
            true => {
                line.replace(
                    "PreemptMode=CANCEL",
                    &format!("PreemptMode={}", settings.cloud_preempt_mode),
                ) + "\n"
            }
            false if line == "SelectTypeParameters=CR_Core" => match settings.node_memory_mb {
                None => format!("{line}\n"),
                Some(mb) => format!(
                    "SelectTypeParameters=CR_Core_Memory\nDefMemPerCPU={}\n",
                    mb / CPUS_PER_NODE
                ),
            },
            false => format!("{line}\n"),
        })
        .collect();
    std::fs::write(conf, text).expect("write slurm.conf");
}

/// The plugins' configuration in `root`: `plugstack.conf` (spank_interstice,
/// its reports where `settings` sends them) and `interstice.conf`
/// (job_submit/interstice, asking the daemon at `daemon_socket`).
fn write_plugin_confs(root: &Path, daemon_socket: &Path, settings: &PluginSettings) {
    let spank_target = match settings.spank_reports {
        SpankReports::Off => format!("socket={} report=no", daemon_socket.display()),
        SpankReports::PerNode => format!("socket={}", root.join("intersticed.%n.sock").display()),
        SpankReports::Central => format!("socket={}", daemon_socket.display()),
    };
    std::fs::write(
        root.join("plugstack.conf"),
        format!(
            "required {} {spank_target} timeout_ms=1000 cloud_partition=cloud,cloud_gold\n",
            root.join("plugins/spank_interstice.so").display(),
        ),
    )
    .expect("write plugstack.conf");
    std::fs::write(
        root.join("interstice.conf"),
        format!(
            "# job_submit/interstice settings for the test cluster\nsocket = {}\ntimeout_ms = {}\n\
             fail_mode = {}\ncloud_partition = cloud\nclass_partitions = {}\nset_deadline = yes\n",
            daemon_socket.display(),
            settings.timeout_ms,
            settings.fail_mode,
            settings.class_partitions
        ),
    )
    .expect("write interstice.conf");
}

/// Starts munged (`munged`) in the foreground as the munge user (it owns
/// /etc/munge/munge.key), its files in `munge_dir` (handed to that user),
/// listening on `munge_socket`.
fn spawn_munged(munged: &Path, munge_dir: &Path, munge_socket: &Path) -> Child {
    let status = Command::new("chown")
        .args(["munge:munge", &munge_dir.display().to_string()])
        .status();
    assert!(
        status.is_ok_and(|s| s.success()),
        "chown munge:munge {}",
        munge_dir.display()
    );
    chmod(munge_dir, "711");
    let munged_cmd = format!(
        "exec {} -F --socket={} --pid-file={} --log-file={} --seed-file={}",
        munged.display(),
        munge_socket.display(),
        munge_dir.join("munged.pid").display(),
        munge_dir.join("munged.log").display(),
        munge_dir.join("munged.seed").display()
    );
    Command::new(program("setpriv"))
        .args([
            "--reuid=munge",
            "--regid=munge",
            "--init-groups",
            "sh",
            "-c",
            &munged_cmd,
        ])
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("start munged")
}

fn chmod(path: &Path, mode: &str) {
    let status = Command::new("chmod").arg(mode).arg(path).status();
    assert!(
        status.is_ok_and(|s| s.success()),
        "chmod {mode} {}",
        path.display()
    );
}

/// `intersticed` with the `slurm` backend reading `cluster`.
pub struct Daemon {
    child: Option<Child>,
    /// Its socket.
    pub socket: PathBuf,
    /// Its stderr log.
    pub log: PathBuf,
}

impl Daemon {
    /// Starts intersticed for `cluster` (an engine of the cluster's
    /// [`CLUSTER_CPUS`] processors) and waits for `/healthz`.
    pub fn start(cluster: &Cluster, generation: u32) -> Daemon {
        Daemon::start_config(cluster, generation, "  partition_cloud: cloud", "")
    }

    /// [`Daemon::start`] with `backend` as the rest of its `backend:`
    /// section (`partition_cloud: cloud` at least, two spaces in) and
    /// `extra` appended to its config (top-level YAML keys).
    pub fn start_config(cluster: &Cluster, generation: u32, backend: &str, extra: &str) -> Daemon {
        let binary = interstice_tests::artifact("intersticed");
        let root = cluster.dir.path();
        let config = root.join("intersticed.yaml");
        std::fs::write(
            &config,
            format!(
                "api:\n  socket: {socket}\nstate_dir: {state}\nengine:\n  procs: {CLUSTER_CPUS}\n  policy: conservative\n  \
                 admission: reject-predicted\nbackend:\n  type: slurm\n  bf_interval_seconds: 1\n  partition_hpc: hpc\n  \
                 slurm_conf: {conf}\n  evictions_violate: true\n{backend}\nexecution:\n  user: nobody\n\
                 log_level: info\n{extra}",
                socket = cluster.daemon_socket.display(),
                state = root.join("daemon-state").display(),
                conf = cluster.conf.display(),
            ),
        )
        .expect("write intersticed.yaml");
        let log = root.join(format!("intersticed-{generation}.log"));
        let child = Command::new(binary)
            .args(["--config", &config.display().to_string()])
            .env("SLURM_CONF", &cluster.conf)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(std::fs::File::create(&log).expect("daemon log"))
            .spawn()
            .expect("start intersticed");
        let mut daemon = Daemon {
            child: Some(child),
            socket: cluster.daemon_socket.clone(),
            log,
        };
        let deadline = Instant::now() + Duration::from_secs(20);
        while http(&daemon.socket, "GET", "/healthz", None).is_err() {
            if let Some(child) = daemon.child.as_mut() {
                if let Ok(Some(status)) = child.try_wait() {
                    panic!("intersticed exited with {status}:\n{}", tail(&daemon.log, 30));
                }
            }
            assert!(
                Instant::now() < deadline,
                "intersticed did not answer /healthz:\n{}",
                tail(&daemon.log, 30)
            );
            std::thread::sleep(Duration::from_millis(100));
        }
        daemon
    }

    /// GET/POST on the daemon; the body of a 2xx answer.
    pub fn request(&self, method: &str, path: &str, body: Option<&str>) -> String {
        http(&self.socket, method, path, body).unwrap_or_else(|err| panic!("{method} {path}: {err}"))
    }

    /// Its log so far.
    pub fn log_text(&self) -> String {
        std::fs::read_to_string(&self.log).unwrap_or_default()
    }

    /// Stops it (SIGTERM, then SIGKILL) and waits.
    pub fn stop(&mut self) {
        if let Some(mut child) = self.child.take() {
            stop_child(&mut child, Duration::from_secs(10));
        }
    }
}

impl Drop for Daemon {
    fn drop(&mut self) {
        self.stop();
    }
}

/// sbatch refused a job (the job_submit plugin's message is in `stderr`).
#[derive(Debug, thiserror::Error)]
#[error("{stderr}")]
pub struct SbatchRefused {
    /// What sbatch printed.
    pub stderr: String,
}

/// Why an HTTP exchange with the daemon gave no 2xx body.
#[derive(Debug, thiserror::Error)]
pub enum HttpError {
    /// The exchange itself failed (connect, i/o, timeout, not HTTP).
    #[error(transparent)]
    Client(#[from] ClientError),
    /// The daemon answered with a status other than 2xx.
    #[error("status {status}: {body}")]
    Status {
        /// The HTTP status.
        status: u16,
        /// The answer's body (the daemon's `{"error": …}`).
        body: String,
    },
}

/// One HTTP/1.1 exchange over a Unix socket, through the project's one
/// client ([`interstice_api::client`]): the body of a 2xx answer, Err otherwise.
pub fn http(socket: &Path, method: &str, path: &str, body: Option<&str>) -> Result<String, HttpError> {
    let answer = Client::new(socket, Duration::from_secs(10)).raw(method, path, body.map(str::as_bytes))?;
    if (200..300).contains(&answer.status) {
        Ok(answer.text())
    } else {
        Err(HttpError::Status {
            status: answer.status,
            body: answer.text(),
        })
    }
}

/// `/metrics` now, after `promtool check metrics` accepted it.
pub fn checked_scrape(daemon: &Daemon) -> String {
    let text = daemon.request("GET", "/metrics", None);
    use std::io::Write;
    let mut promtool = Command::new(program("promtool"))
        .args(["check", "metrics"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("run promtool (apt-get install prometheus)");
    promtool
        .stdin
        .take()
        .expect("promtool stdin")
        .write_all(text.as_bytes())
        .expect("write to promtool");
    let output = promtool.wait_with_output().expect("promtool output");
    assert!(
        output.status.success(),
        "promtool check metrics: {}{}\n--- scrape\n{text}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
    text
}

/// Waits until `series` on the daemon's `/metrics` reaches at least
/// `expected`; returns that scrape.
pub fn wait_metric_at_least(daemon: &Daemon, series: &str, expected: f64, timeout: Duration) -> String {
    wait_for(&format!("{series} to reach {expected}"), timeout, || {
        let text = daemon.request("GET", "/metrics", None);
        (metric(&text, series) >= expected).then_some(text)
    })
}

/// The value of one Prometheus sample (`name{labels}` exactly as rendered), 0 if absent.
pub fn metric(text: &str, series: &str) -> f64 {
    interstice_tests::sample(text, series).unwrap_or(0.0)
}
