"""One live run: a fresh cluster, the submissions at their live instants
(`sbatch -p hpc` for HPC jobs, `sbatch --evictable --slo=…` for cloud jobs),
the queue drained, then what Slurm and the daemon recorded, kept in the
run's directory:

- `submissions.json`: each submission (job, kind, when, the Slurm id or
  sbatch's refusal, how long sbatch took);
- `jobcomp.log`: Slurm's job completion records (jobcomp/filetxt);
- `slurmctld.log` (its preemption lines say who preempted whom),
  `intersticed.log`, the configs;
- `metrics.txt`: the daemon's `/metrics` after the drain;
- `squeue.txt`: every job Slurm still lists then, with its comment (the
  daemon's marker: `predicted_completion=`, epoch seconds).
"""

import json
import os
import time

from cluster import Cluster

POLL = 2.0


def sbatch_args(job):
    minutes = max(1, int(round(job["walltime"] / 60.0)))
    common = ["--parsable", "-o", "/dev/null", "-n", str(job["res"]), "-t", str(minutes)]
    wrap = ["--wrap", f"exec sleep {job['run']}"]
    if job["kind"] == "cloud":
        return common + ["-J", f"c{job['id']}", "--evictable", f"--slo={int(round(job['slo']))}"] + wrap
    return common + ["-J", f"h{job['id']}", "-p", "hpc"] + wrap


def submit_all(cluster, jobs, t0, log):
    """Submits `jobs` (sorted by subtime) at t0 + subtime; returns the submission records."""
    records = []
    for job in jobs:
        delay = t0 + job["subtime"] - time.time()
        if delay > 0:
            time.sleep(delay)
        cluster.assert_running()
        before = time.time()
        out = cluster.run("sbatch", sbatch_args(job))
        after = time.time()
        record = {
            "id": job["id"],
            "kind": job["kind"],
            "subtime": round(before - t0, 3),
            "planned_subtime": job["subtime"],
            "sbatch_ms": round((after - before) * 1000.0, 2),
        }
        if out.returncode == 0:
            record["slurm_id"] = out.stdout.strip().split(";")[0]
        else:
            record["refused"] = out.stderr.strip()
        records.append(record)
    log(f"  {len(records)} submissions in {time.time() - t0:.0f} s")
    return records


def drain(cluster, deadline, log):
    """Waits until the queue is empty or `deadline`; returns the jobs left (cancelled by stop)."""
    while time.time() < deadline:
        cluster.assert_running()
        left = cluster.queue()
        if not left:
            return []
        time.sleep(POLL)
    left = cluster.queue()
    if left:
        log(f"  drain limit reached: {len(left)} jobs cancelled ({', '.join(i for i, _ in left[:10])}…)")
    return left


def live_run(repo, binaries, settings, jobs, run_dir, drain_seconds, log):
    """Runs `jobs` on a fresh cluster; everything it recorded goes to `run_dir`."""
    os.makedirs(run_dir, exist_ok=True)
    cluster = Cluster(repo, binaries, settings, run_dir)
    try:
        cluster.start()
        # The daemon reads the plan every bf_interval: let it read an idle one first.
        time.sleep(2 * settings.bf_interval + 1)
        t0 = time.time()
        log(f"  cluster up ({settings.nodes} nodes × {settings.cpus} CPUs, {cluster.root}); submitting")
        records = submit_all(cluster, sorted(jobs, key=lambda j: (j["subtime"], j["id"])), t0, log)
        submitted_until = time.time()
        left = drain(cluster, submitted_until + drain_seconds, log)
        ended = time.time()
        # The daemon reads the finished jobs' outcomes at its next plan reads.
        time.sleep(3 * settings.bf_interval + 2)
        metrics = cluster.scrape() or ""
        # Every job Slurm still lists (MinJobAge): its comment holds the daemon's marker.
        queue = cluster.run("squeue", ["-h", "-t", "all", "-o", "%i|%j|%P|%T|%k"]).stdout
        with open(os.path.join(run_dir, "squeue.txt"), "w") as f:
            f.write(queue)
        with open(os.path.join(run_dir, "metrics.txt"), "w") as f:
            f.write(metrics)
        with open(os.path.join(run_dir, "submissions.json"), "w") as f:
            json.dump(
                {
                    "t0": t0,
                    "submitted_until": submitted_until - t0,
                    "ended": ended - t0,
                    "cancelled_at_drain_limit": [i for i, _ in left],
                    "submissions": records,
                },
                f,
                indent=1,
            )
    finally:
        cluster.stop(run_dir)
