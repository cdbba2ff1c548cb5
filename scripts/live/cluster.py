"""A real Slurm on loopback, the way the test harness starts one
(tests/slurm/harness.rs): munged, slurmctld and K slurmd, each slurmd in its
own UTS namespace whose hostname is its node's name, every daemon a child in
the foreground, stopped by its PID. Slurm's config is the harness's template
(tests/slurm/slurm.conf.in) with K nodes of C CPUs (SlurmdParameters=
config_overrides lets a node claim more CPUs than the machine has), Slurm's
job completion log (jobcomp/filetxt: the record sacct would read, without a
slurmdbd) and the scheduler settings given. intersticed runs in Slurm mode
with the plugins configured as docs/admin.md describes them."""

import os
import shutil
import socket
import subprocess
import tempfile
import time

SYSTEM_PLUGIN_DIRS = [
    "/usr/lib/x86_64-linux-gnu/slurm-wlm",
    "/usr/lib/aarch64-linux-gnu/slurm-wlm",
    "/usr/lib64/slurm",
    "/usr/lib/slurm",
]


class ClusterError(Exception):
    """A daemon of the cluster did not start or exited; the message has its log."""


def program(name):
    """A system program in PATH or the usual sbin directories."""
    dirs = os.environ.get("PATH", "").split(":") + ["/usr/sbin", "/usr/bin", "/sbin", "/usr/local/sbin"]
    for d in dirs:
        path = os.path.join(d, name)
        if os.path.isfile(path) and os.access(path, os.X_OK):
            return path
    raise ClusterError(
        f"{name} not found: install slurmctld slurmd slurm-client munge (scripts/prerequisites.sh does)"
    )


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def tail(path, lines=30):
    try:
        with open(path, errors="replace") as f:
            return "".join(f.readlines()[-lines:])
    except OSError:
        return ""


class Settings:
    """Slurm's scheduling settings of a live run (the template's by default)."""

    def __init__(self, nodes, cpus, bf_interval=1, sched_interval=1, kill_wait=2, bf_window_minutes=60):
        self.nodes = nodes
        self.cpus = cpus
        self.bf_interval = bf_interval
        self.sched_interval = sched_interval
        self.kill_wait = kill_wait
        self.bf_window_minutes = bf_window_minutes

    @property
    def total_cpus(self):
        return self.nodes * self.cpus

    def node_names(self):
        return [f"n{i}" for i in range(1, self.nodes + 1)]


class Cluster:
    """munged, slurmctld, the slurmd and intersticed of one run; `stop()` ends them."""

    def __init__(self, repo, binaries, settings, log_dir):
        self.repo = repo
        self.binaries = binaries
        self.settings = settings
        self.log_dir = log_dir
        self.root = tempfile.mkdtemp(prefix="interstice-live-")
        os.chmod(self.root, 0o755)
        self.conf = os.path.join(self.root, "slurm.conf")
        self.socket = os.path.join(self.root, "intersticed.sock")
        self.metrics_port = free_port()
        self.jobcomp = os.path.join(self.root, "jobcomp.log")
        self.children = []  # (name, Popen, [logs])
        self.env = dict(os.environ, SLURM_CONF=self.conf)

    # ---- configuration -------------------------------------------------
    def write_configs(self):
        for sub in ["state", "spool", "plugins", "munge", "jobs", "daemon-state"]:
            os.makedirs(os.path.join(self.root, sub), exist_ok=True)
        for node in self.settings.node_names():
            os.makedirs(os.path.join(self.root, "spool", node), exist_ok=True)
        os.chmod(os.path.join(self.root, "jobs"), 0o1777)
        for lib in ["job_submit_interstice", "spank_interstice"]:
            os.symlink(
                os.path.join(self.binaries, f"lib{lib}.so"), os.path.join(self.root, "plugins", f"{lib}.so")
            )
        self.write_slurm_conf()
        self.write_plugin_confs()
        self.write_daemon_conf()

    def write_slurm_conf(self):
        s = self.settings
        with open(os.path.join(self.repo, "tests/slurm/slurm.conf.in")) as f:
            template = f.read()
        system = next((d for d in SYSTEM_PLUGIN_DIRS if os.path.exists(os.path.join(d, "select_cons_tres.so"))), None)
        if system is None:
            raise ClusterError("Slurm's plugin directory (select_cons_tres.so) not found")
        lines = [
            f"NodeName={n} NodeHostname={n} NodeAddr=127.0.0.1 Port={free_port()} CPUs={s.cpus} Sockets=1 "
            f"CoresPerSocket={s.cpus} ThreadsPerCore=1 RealMemory=500 State=UNKNOWN"
            for n in s.node_names()
        ]
        text = (
            template.replace("@CTLD_HOST@", socket.gethostname().split(".")[0])
            .replace("@DIR@", self.root)
            .replace("@CTLD_PORT@", str(free_port()))
            .replace("@NODE_LINES@", "\n".join(lines))
            .replace("@NODELIST@", f"n[1-{s.nodes}]")
            .replace("@PLUGIN_DIR@", f"{system}:{os.path.join(self.root, 'plugins')}")
            .replace("@MUNGE_SOCKET@", os.path.join(self.root, "munge/munge.socket"))
        )
        out = []
        for line in text.splitlines():
            if line.startswith("SchedulerParameters="):
                line = (
                    f"SchedulerParameters=bf_interval={s.bf_interval},bf_resolution=1,"
                    f"bf_window={s.bf_window_minutes},sched_interval={s.sched_interval}"
                )
            elif line.startswith("KillWait="):
                line = f"KillWait={s.kill_wait}"
            elif line.startswith("JobCompType="):
                line = f"JobCompType=jobcomp/filetxt\nJobCompLoc={self.jobcomp}"
            out.append(line)
        with open(self.conf, "w") as f:
            f.write("\n".join(out) + "\n")

    def write_plugin_confs(self):
        # As docs/admin.md: SPANK gives --slo/--evictable (reports off: the
        # daemon reads Slurm's plan itself), job_submit asks the daemon.
        with open(os.path.join(self.root, "plugstack.conf"), "w") as f:
            f.write(
                f"required {self.root}/plugins/spank_interstice.so socket={self.socket} report=no "
                "timeout_ms=1000 cloud_partition=cloud,cloud_gold\n"
            )
        with open(os.path.join(self.root, "interstice.conf"), "w") as f:
            f.write(
                f"socket = {self.socket}\ntimeout_ms = 1000\nfail_mode = open\ncloud_partition = cloud\n"
                "set_deadline = yes\n"
            )

    def write_daemon_conf(self):
        cpus = self.settings.total_cpus
        with open(os.path.join(self.root, "intersticed.yaml"), "w") as f:
            f.write(
                f"api:\n  socket: {self.socket}\n  listen: 127.0.0.1:{self.metrics_port}\n"
                f"state_dir: {self.root}/daemon-state\n"
                f"engine:\n  procs: {cpus}\n  conv_procs: {cpus}\n  policy: conservative\n"
                "  admission: reject-predicted\n"
                f"backend:\n  type: slurm\n  bf_interval_seconds: {self.settings.bf_interval}\n"
                f"  plan_stale_seconds: {max(15, 3 * self.settings.bf_interval)}\n"
                f"  partition_hpc: hpc\n  partition_cloud: cloud\n  slurm_conf: {self.conf}\n"
                "  slurm_user: root\n  evictions_violate: true\n"
                "execution:\n  user: nobody\nlog_level: info\n"
            )

    # ---- processes -----------------------------------------------------
    def spawn(self, name, args, logs, stderr_name, env=None):
        err = open(os.path.join(self.root, stderr_name), "w")
        child = subprocess.Popen(
            args, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=err, env=env or self.env
        )
        self.children.append((name, child, logs + [stderr_name]))
        return child

    def assert_running(self):
        for name, child, logs in self.children:
            if child.poll() is not None:
                text = "".join(f"\n--- {log}\n{tail(os.path.join(self.root, log))}" for log in logs)
                raise ClusterError(f"{name} exited ({child.returncode}){text}")

    def wait_for(self, what, timeout, check):
        deadline = time.time() + timeout
        while True:
            self.assert_running()
            value = check()
            if value:
                return value
            if time.time() > deadline:
                raise ClusterError(f"timed out after {timeout} s waiting for {what}\n{tail(self.ctld_log)}")
            time.sleep(0.2)

    @property
    def ctld_log(self):
        return os.path.join(self.root, "slurmctld.log")

    def start(self):
        self.write_configs()
        munge_dir = os.path.join(self.root, "munge")
        subprocess.run(["chown", "munge:munge", munge_dir], check=True)
        os.chmod(munge_dir, 0o711)
        munge_socket = os.path.join(munge_dir, "munge.socket")
        munged = (
            f"exec {program('munged')} -F --socket={munge_socket} --pid-file={munge_dir}/munged.pid "
            f"--log-file={munge_dir}/munged.log --seed-file={munge_dir}/munged.seed"
        )
        self.spawn(
            "munged",
            [program("setpriv"), "--reuid=munge", "--regid=munge", "--init-groups", "sh", "-c", munged],
            ["munge/munged.log"],
            "munged.stderr",
        )
        self.wait_for("munged's socket", 10, lambda: os.path.exists(munge_socket))
        ctld_env = dict(self.env, INTERSTICE_CONF=os.path.join(self.root, "interstice.conf"))
        self.spawn(
            "slurmctld", [program("slurmctld"), "-D", "-i", "-f", self.conf], ["slurmctld.log"],
            "slurmctld.stderr", ctld_env,
        )
        for node in self.settings.node_names():
            script = 'hostname "$1" && exec "$2" -D -f "$3" -N "$1"'
            self.spawn(
                f"slurmd {node}",
                [program("unshare"), "--uts", "sh", "-c", script, "sh", node, program("slurmd"), self.conf],
                [f"slurmd.{node}.log"],
                f"slurmd.{node}.stderr",
            )
        self.wait_for("every node idle", 60, self.all_idle)
        self.spawn(
            "intersticed",
            [os.path.join(self.binaries, "intersticed"), "--config", os.path.join(self.root, "intersticed.yaml")],
            [],
            "intersticed.log",
        )
        self.wait_for("intersticed's /healthz", 30, self.healthy)

    def run(self, client, args, timeout=60):
        return subprocess.run(
            [program(client)] + args, env=self.env, cwd=os.path.join(self.root, "jobs"),
            capture_output=True, text=True, timeout=timeout,
        )

    def all_idle(self):
        out = self.run("sinfo", ["-h", "-N", "-o", "%N %T"]).stdout.split("\n")
        idle = {line.split()[0] for line in out if line.strip().endswith(" idle")}
        return all(n in idle for n in self.settings.node_names())

    def healthy(self):
        return self.scrape("/healthz") is not None

    def scrape(self, path="/metrics"):
        import urllib.request

        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{self.metrics_port}{path}", timeout=5) as r:
                return r.read().decode()
        except OSError:
            return None

    def queue(self):
        """Jobs still in the queue or running: [(id, state)]."""
        out = self.run("squeue", ["-h", "-t", "PD,R,CG,S", "-o", "%i %T"]).stdout
        return [tuple(line.split()[:2]) for line in out.splitlines() if line.strip()]

    def stop(self, keep_dir):
        """Cancels what is left, stops every daemon (SIGTERM, then SIGKILL), copies the logs to `keep_dir`."""
        if any(name == "slurmctld" and c.poll() is None for name, c, _ in self.children):
            ids = [i for i, _ in self.queue()]
            if ids:
                self.run("scancel", ["--full"] + ids)
        for name, child, _ in reversed(self.children):
            if child.poll() is None:
                child.terminate()
                try:
                    child.wait(10)
                except subprocess.TimeoutExpired:
                    child.kill()
                    child.wait()
        if keep_dir:
            os.makedirs(keep_dir, exist_ok=True)
            for log in ["slurmctld.log", "jobcomp.log", "intersticed.log", "slurm.conf", "intersticed.yaml",
                        "interstice.conf", "plugstack.conf"]:
                path = os.path.join(self.root, log)
                if os.path.exists(path):
                    shutil.copy(path, os.path.join(keep_dir, log))
        shutil.rmtree(self.root, ignore_errors=True)
