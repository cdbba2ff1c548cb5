"""What a live run submits. The trace is read by the project's own reader
(`interstice swf convert`: which SWF field is a job's width, run time and
requested time, jobs clipped to the cluster with --clip), then a slice of it
is taken in live seconds (times divided by the compression, time limits
rounded up to Slurm's minute, each run time kept strictly below its limit so
Slurm never kills an HPC job at its limit), and the cloud stream is added by
the project's one injector (`interstice swf inject`). The result,
`workload.json`, is a Batsim workload: what each run submits, and, with the
submit times measured live, what `interstice replay` replays."""

import json
import math
import os
import subprocess


def run_cli(interstice, args):
    out = subprocess.run([interstice] + args, capture_output=True, text=True)
    if out.returncode != 0:
        raise RuntimeError(f"interstice {' '.join(args)} failed ({out.returncode}):\n{out.stderr}")
    return out.stdout


def delays(workload):
    return {name: p["delay"] for name, p in workload["profiles"].items()}


def hpc_slice(full, start, window, compression):
    """The jobs of `full` submitted in [first + start, first + start + window × compression),
    in live seconds from the slice's start."""
    jobs = full["jobs"]
    if not jobs:
        raise ValueError("the trace has no job")
    first = min(j["subtime"] for j in jobs)
    lo, hi = first + start, first + start + window * compression
    runs = delays(full)
    out = []
    for job in jobs:
        if not lo <= job["subtime"] < hi:
            continue
        run = runs[job["profile"]] / compression
        requested = job["walltime"] / compression if job["walltime"] > 0 else run
        minutes = max(1, math.ceil(max(requested, run) / 60.0))
        # Slurm kills at the limit: a run time that reaches it (or exceeds
        # the request in the trace) ends just before.
        run = max(1.0, min(run, minutes * 60 - 2))
        out.append(
            {
                "id": job["id"],
                "subtime": round((job["subtime"] - lo) / compression, 3),
                "walltime": minutes * 60,
                "res": job["res"],
                "run": round(run, 3),
            }
        )
    if not out:
        raise ValueError(f"no HPC job is submitted in the slice [{lo}, {hi}) of the trace: choose another --start")
    return out


def write_workload(path, jobs, nb_res):
    """Jobs `{"id", "subtime", "walltime", "res", "run", "kind", "slo"?}` as a Batsim workload."""
    profiles = {}
    body = []
    for job in jobs:
        name = f"delay_{job['run']}"
        profiles[name] = {"type": "delay", "delay": job["run"]}
        entry = {k: job[k] for k in ["id", "subtime", "walltime", "res"]}
        entry["profile"] = name
        entry["kind"] = job.get("kind", "hpc")
        if job.get("slo") is not None:
            entry["slo"] = job["slo"]
        body.append(entry)
    with open(path, "w") as f:
        json.dump({"nb_res": nb_res, "jobs": body, "profiles": profiles}, f, indent=1)


def read_workload(path):
    """A Batsim workload as jobs `{"id", "subtime", "walltime", "res", "run", "kind", "slo"}`."""
    with open(path) as f:
        workload = json.load(f)
    runs = delays(workload)
    return [
        {
            "id": job["id"],
            "subtime": job["subtime"],
            "walltime": job["walltime"],
            "res": job["res"],
            "run": runs[job["profile"]],
            "kind": job.get("kind", "hpc"),
            "slo": job.get("slo"),
        }
        for job in workload["jobs"]
    ]


def prepare(interstice, opts, out_dir):
    """`out_dir/workload.json`: the HPC slice and the cloud stream; returns its jobs."""
    cpus = opts.nodes * opts.cpus
    full_path = os.path.join(out_dir, "trace.json")
    run_cli(interstice, ["swf", "convert", opts.trace, "--clip", str(cpus), "--procs", str(cpus), "-o", full_path])
    with open(full_path) as f:
        full = json.load(f)
    os.remove(full_path)
    hpc = hpc_slice(full, opts.start, opts.minutes * 60, opts.compression)
    hpc_path = os.path.join(out_dir, "hpc.json")
    write_workload(hpc_path, hpc, cpus)
    workload = os.path.join(out_dir, "workload.json")
    run_cli(
        interstice,
        [
            "swf", "inject", hpc_path, "-o", workload, "--procs", str(cpus),
            "--interval", str(opts.cloud_interval), "--cloud-procs", opts.cloud_procs,
            "--walltime", str(opts.cloud_walltime), "--runtime", opts.cloud_runtime,
            "--slack", str(opts.slack), "--seed", str(opts.seed),
            "--from", "0", "--to", str(opts.minutes * 60 - 1),
        ],
    )
    return read_workload(workload)
