"""What a live run's records say, as the keys of live.json (seconds, snake
case; an undefined ratio or quantile is null, never 0). Only bookkeeping:
every verdict is someone else's — an SLO violation and a prediction's outcome
are the daemon's (core's `violates`, counted on /metrics), a preemption is
Slurm's (its job state and slurmctld's log), a job's times are Slurm's
(jobcomp, whole seconds)."""

import datetime
import json
import os
import re

PREEMPTED_RE = re.compile(
    r"preempted JobId=(\d+) has been (?:killed|requeued) to reclaim resources for JobId=(\d+)"
)
COUNTER_OFFER = "resubmit with --slo="
LOG_TIME = r"^\[(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d+)\] "
SUBMIT_RE = re.compile(LOG_TIME + r"_slurm_rpc_submit_batch_job: JobId=(\d+) ", re.M)
START_RE = re.compile(LOG_TIME + r"(?:sched: Allocate JobId=(\d+) |sched/backfill: _start_job: Started JobId=(\d+) )", re.M)
PREEMPT_AT_RE = re.compile(LOG_TIME + r"preempted JobId=(\d+) has been (?:killed|requeued)", re.M)
JOB_SUBMIT_MS_RE = re.compile(r"job_submit/interstice: .* in ([0-9.]+) ms")


def quantile(values, q):
    """The q-quantile (nearest rank, 0 < q ≤ 1) of `values`, None when empty."""
    if not values:
        return None
    ordered = sorted(values)
    rank = max(1, -(-len(ordered) * q // 1))
    return ordered[int(min(rank, len(ordered))) - 1]


def mean(values):
    return sum(values) / len(values) if values else None


def ratio(num, den):
    return num / den if den else None


def stats(values, keys=("mean", "p50", "p99", "max")):
    table = {"mean": mean(values), "p50": quantile(values, 0.5), "p99": quantile(values, 0.99),
             "max": max(values) if values else None, "min": min(values) if values else None}
    return {k: table[k] for k in keys}


def parse_time(text):
    if text in ("Unknown", "None", "", None):
        return None
    return datetime.datetime.strptime(text, "%Y-%m-%dT%H:%M:%S").timestamp()


def read_jobcomp(path, t0):
    """Slurm's completion records by job name: state, partition, procs, submit, start, end (relative to t0)."""
    jobs = {}
    if not os.path.exists(path):
        return jobs
    with open(path, errors="replace") as f:
        for line in f:
            fields = dict(part.split("=", 1) for part in line.split() if "=" in part)
            name = fields.get("Name")
            if not name:
                continue
            start, end, submit = (parse_time(fields.get(k)) for k in ("StartTime", "EndTime", "SubmitTime"))
            state = fields.get("JobState")
            # A job cancelled before it ran has no start (Slurm writes its end there, or Unknown).
            ran = start is not None and (state == "COMPLETED" or (end is not None and end > start))
            rel = lambda t: None if t is None else t - t0
            jobs[name] = {
                "slurm_id": fields.get("JobId"),
                "state": state,
                "partition": fields.get("Partition"),
                "procs": int(fields.get("ProcCnt", "0")),
                "submit": rel(submit),
                "start": rel(start) if ran else None,
                "end": rel(end),
            }
    return jobs


def read_preemptions(path):
    """(preempted Slurm id, preemptor Slurm id) pairs from slurmctld's log."""
    if not os.path.exists(path):
        return []
    with open(path, errors="replace") as f:
        return [(m.group(1), m.group(2)) for m in PREEMPTED_RE.finditer(f.read())]


def log_time(text):
    return datetime.datetime.strptime(text, "%Y-%m-%dT%H:%M:%S.%f").timestamp()


def read_ctld_times(path, t0):
    """From slurmctld's log (milliseconds, relative to t0): each Slurm job's submission and
    start, each preemption's instant by victim, and job_submit/interstice's call durations (ms)."""
    out = {"submit": {}, "start": {}, "preempted_at": {}, "job_submit_ms": []}
    if not os.path.exists(path):
        return out
    with open(path, errors="replace") as f:
        text = f.read()
    for m in SUBMIT_RE.finditer(text):
        out["submit"].setdefault(m.group(2), log_time(m.group(1)) - t0)
    for m in START_RE.finditer(text):
        out["start"].setdefault(m.group(2) or m.group(3), log_time(m.group(1)) - t0)
    for m in PREEMPT_AT_RE.finditer(text):
        out["preempted_at"].setdefault(m.group(2), log_time(m.group(1)) - t0)
    out["job_submit_ms"] = [float(x) for x in JOB_SUBMIT_MS_RE.findall(text)]
    return out


def read_metrics(text):
    """Prometheus samples: {'name{labels}': value}."""
    samples = {}
    for line in text.splitlines():
        if line.startswith("#") or not line.strip():
            continue
        key, _, value = line.rpartition(" ")
        try:
            samples[key] = float(value)
        except ValueError:
            pass
    return samples


def histogram_quantile(samples, name, q):
    """The upper bound of the bucket holding the q-quantile of a Prometheus histogram (None if empty)."""
    buckets = []
    for key, value in samples.items():
        m = re.fullmatch(name + r'_bucket\{le="([^"]+)"\}', key)
        if m:
            buckets.append((float("inf") if m.group(1) == "+Inf" else float(m.group(1)), value))
    buckets.sort()
    if not buckets or buckets[-1][1] == 0:
        return None
    target = q * buckets[-1][1]
    return next(le for le, count in buckets if count >= target)


def read_markers(path, t0):
    """The daemon's predicted completion of each cloud job, by job name, relative to t0 (squeue's comments)."""
    out = {}
    if not os.path.exists(path):
        return out
    with open(path, errors="replace") as f:
        for line in f:
            parts = line.rstrip("\n").split("|", 4)
            m = re.search(r"predicted_completion=(\d+)", parts[-1]) if len(parts) == 5 else None
            if m:
                out[parts[1]] = float(m.group(1)) - t0
    return out


def load_run(run_dir):
    with open(os.path.join(run_dir, "submissions.json")) as f:
        record = json.load(f)
    jobs = read_jobcomp(os.path.join(run_dir, "jobcomp.log"), record["t0"])
    metrics = {}
    if os.path.exists(os.path.join(run_dir, "metrics.txt")):
        with open(os.path.join(run_dir, "metrics.txt")) as f:
            metrics = read_metrics(f.read())
    return {
        "record": record,
        "jobs": jobs,
        "preemptions": read_preemptions(os.path.join(run_dir, "slurmctld.log")),
        "metrics": metrics,
        "predicted_completion": read_markers(os.path.join(run_dir, "squeue.txt"), record["t0"]),
        "ctld": read_ctld_times(os.path.join(run_dir, "slurmctld.log"), record["t0"]),
    }


def busy_series(jobs, window, cpus, bins):
    """Utilisation in each of `bins` equal bins of [0, window], and over the whole window."""
    width = window / bins
    busy = [0.0] * bins
    for job in jobs:
        if job.get("start") is None or job.get("end") is None:
            continue
        for b in range(bins):
            lo, hi = b * width, (b + 1) * width
            overlap = min(hi, job["end"]) - max(lo, job["start"])
            if overlap > 0:
                busy[b] += overlap * job["procs"]
    series = [x / (cpus * width) for x in busy]
    return series, sum(busy) / (cpus * window)


def hpc_view(run, cut):
    """HPC jobs by workload id: their Slurm record (None if sbatch refused), the failures, and the
    jobs cancelled at the drain limit (neither failed nor finished)."""
    subs = {s["id"]: s for s in run["record"]["submissions"] if s["kind"] == "hpc"}
    jobs = {i: run["jobs"].get(f"h{i}") for i in subs}
    cancelled = {i for i, j in jobs.items() if j is not None and j["slurm_id"] in cut and j["state"] != "COMPLETED"}
    failed = [i for i, j in jobs.items() if i not in cancelled and (j is None or j["state"] != "COMPLETED")]
    unfinished = sorted(cancelled)
    return jobs, failed, unfinished


def waits(jobs, ctld=None):
    """Each started job's wait: from slurmctld's log to the millisecond when it has both
    instants, else from jobcomp's whole seconds."""
    out = {}
    for i, j in jobs.items():
        if not j or j.get("start") is None:
            continue
        sid = j["slurm_id"]
        if ctld and sid in ctld["submit"] and sid in ctld["start"]:
            out[i] = ctld["start"][sid] - ctld["submit"][sid]
        else:
            out[i] = j["start"] - j["submit"]
    return out
