"""scripts/slurm-live.sh's body: see that script for the usage."""

import argparse
import math
import json
import os
import re
import signal
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

from analysis import load_run  # noqa: E402
from cluster import ClusterError, Settings  # noqa: E402
from run import live_run  # noqa: E402
from sim import sim_side, agreement  # noqa: E402
from summary import live_side  # noqa: E402
import workload  # noqa: E402

REPO = os.path.dirname(os.path.dirname(HERE))
DATA = os.path.join(os.path.dirname(REPO), "shared", "data")


def seconds(text):
    """`90`, `1.5`, `90s`, `3m`, `1h30m`, `10d`: seconds."""
    if re.fullmatch(r"\d+(\.\d+)?", text):
        return float(text)
    parts = re.fullmatch(r"(?:(\d+(?:\.\d+)?)d)?(?:(\d+(?:\.\d+)?)h)?(?:(\d+(?:\.\d+)?)m)?(?:(\d+(?:\.\d+)?)s)?", text)
    if not text or not parts:
        raise argparse.ArgumentTypeError(f"{text!r} is not a duration (90, 1.5, 90s, 3m, 1h30m, 10d)")
    d, h, m, s = (float(x) if x else 0.0 for x in parts.groups())
    return d * 86400 + h * 3600 + m * 60 + s


def positive(kind, most=None):
    """A finite number above 0 (`nan` and `inf` refused), at most `most`."""
    def parse(text):
        try:
            value = kind(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{text!r} is not a number")
        if not math.isfinite(value) or value <= 0:
            raise argparse.ArgumentTypeError(f"{text} must be a finite number above 0")
        if most is not None and value > most:
            raise argparse.ArgumentTypeError(f"{text} is more than {most}: this machine runs every node itself")
        return value
    return parse


def options(argv):
    p = argparse.ArgumentParser(prog="scripts/slurm-live.sh", description=__doc__)
    p.add_argument("--minutes", type=positive(float), help="each run's submission window, minutes (required)")
    p.add_argument("--out", required=True, help="output directory (new or empty)")
    p.add_argument("--nodes", type=positive(int, 64), default=4, help="slurmd nodes (default 4, at most 64)")
    p.add_argument("--cpus", type=positive(int, 4096), default=25, help="CPUs per node (default 25: KTH's 100)")
    p.add_argument("--trace", default=os.path.join(DATA, "KTH-SP2-1996-2.1-cln.swf.gz"), help="SWF trace")
    p.add_argument("--start", type=seconds, default=10 * 86400,
                   help="where the slice starts, after the trace's first submission (default 10d)")
    p.add_argument("--compression", type=positive(float), default=60.0, help="trace times divided by X (60)")
    p.add_argument("--cloud-interval", type=positive(float), default=10.0, help="seconds between cloud jobs (10)")
    p.add_argument("--cloud-procs", default="1,2,4", help="cloud job widths (1,2,4)")
    p.add_argument("--cloud-walltime", type=positive(int), default=180, help="cloud time limit, whole minutes (180)")
    p.add_argument("--cloud-runtime", default="uniform:18:90", help="cloud run times (uniform:18:90)")
    p.add_argument("--slack", type=positive(float), default=2.0, help="SLO = slack × cloud walltime (2)")
    p.add_argument("--seed", type=int, default=1, help="the cloud stream's seed (1)")
    p.add_argument("--drain-minutes", type=positive(float), help="after the window, wait this long at most")
    p.add_argument("--bf-interval", type=positive(int), default=1, help="Slurm's bf_interval = the daemon's read")
    p.add_argument("--sched-interval", type=positive(int), default=1, help="Slurm's sched_interval (1)")
    p.add_argument("--kill-wait", type=positive(int), default=2, help="Slurm's KillWait (2)")
    p.add_argument("--binaries", default=os.environ.get("INTERSTICE_BIN_DIR", os.path.join(REPO, "target/debug")),
                   help="where interstice, intersticed and the plugins are (target/debug)")
    p.add_argument("--analyse", action="store_true",
                   help="only write live.json and the figure again from DIR's recorded runs")
    opts = p.parse_args(argv)
    if opts.minutes is None and not opts.analyse:
        p.error("--minutes is required (each run's submission window)")
    if opts.cloud_walltime % 60:
        p.error(f"--cloud-walltime {opts.cloud_walltime}: Slurm's time limits are whole minutes")
    if not opts.analyse and not os.path.isfile(opts.trace):
        p.error(f"--trace {opts.trace}: no such file")
    if opts.drain_minutes is None and not opts.analyse:
        opts.drain_minutes = max(5.0, opts.minutes)
    return opts


def check_binaries(opts):
    for name in ["interstice", "intersticed", "libjob_submit_interstice.so", "libspank_interstice.so"]:
        if not os.path.exists(os.path.join(opts.binaries, name)):
            sys.exit(f"slurm-live: {name} is not in {opts.binaries}: cargo build --workspace (or --binaries DIR)")


def log(text):
    print(f"[{time.strftime('%H:%M:%S')}] {text}", flush=True)


def record(opts):
    """The two live runs, recorded in DIR/without and DIR/with."""
    if os.path.exists(opts.out) and os.listdir(opts.out):
        sys.exit(f"slurm-live: {opts.out} is not empty (give a new directory, or --analyse to redo live.json)")
    if os.geteuid() != 0:
        sys.exit("slurm-live: must run as root (it starts munged, slurmctld and slurmd)")
    os.makedirs(opts.out, exist_ok=True)
    with open(os.path.join(opts.out, "options.json"), "w") as f:
        json.dump(vars(opts), f, indent=1)
    jobs = workload.prepare(os.path.join(opts.binaries, "interstice"), opts, opts.out)
    hpc = [j for j in jobs if j["kind"] == "hpc"]
    log(f"workload: {len(hpc)} HPC jobs, {len(jobs) - len(hpc)} cloud jobs over {opts.minutes} min")
    settings = settings_of(opts)
    for name, run_jobs in [("without", hpc), ("with", jobs)]:
        log(f"run {name} cloud jobs")
        live_run(REPO, opts.binaries, settings, run_jobs, os.path.join(opts.out, name),
                 opts.drain_minutes * 60, log)


def settings_of(opts):
    return Settings(opts.nodes, opts.cpus, opts.bf_interval, opts.sched_interval, opts.kill_wait)


def write_results(opts):
    """DIR/live.json, DIR/live-series.json and the figure, from the recorded runs."""
    options_json = os.path.join(opts.out, "options.json")
    if not os.path.exists(options_json):
        raise ValueError(f"{opts.out} holds no recorded live run ({options_json} is missing)")
    with open(options_json) as f:
        recorded = json.load(f)
    for key in ["nodes", "cpus", "minutes", "compression", "trace", "start", "bf_interval", "sched_interval",
                "kill_wait", "cloud_interval", "cloud_procs", "cloud_walltime", "cloud_runtime", "slack", "seed"]:
        setattr(opts, key, recorded[key])
    cpus, window = opts.nodes * opts.cpus, opts.minutes * 60
    without, with_ = (load_run(os.path.join(opts.out, n)) for n in ("without", "with"))
    live, series = live_side(without, with_, cpus, window)
    interstice = os.path.join(opts.binaries, "interstice")
    sim, sim_series, sim_rows = sim_side(interstice, opts.out, without, with_, cpus, window)
    result = {
        "nodes": opts.nodes, "cpus": opts.cpus, "total_cpus": cpus, "minutes": opts.minutes,
        "compression": opts.compression, "trace": os.path.basename(opts.trace), "trace_start": opts.start,
        "slurm": {"bf_interval": opts.bf_interval, "sched_interval": opts.sched_interval,
                  "kill_wait": opts.kill_wait, "daemon_read_interval": opts.bf_interval},
        "cloud_stream": {"interval": opts.cloud_interval, "procs": opts.cloud_procs,
                         "walltime": opts.cloud_walltime, "runtime": opts.cloud_runtime, "slack": opts.slack,
                         "seed": opts.seed},
    }
    result.update(live)
    result["sim"] = sim
    result["agreement"] = agreement(with_, sim_rows, live, sim)
    with open(os.path.join(opts.out, "live.json"), "w") as f:
        json.dump(result, f, indent=1)
    series.update({"bin_seconds": window / len(series["with"]), "sim_without": sim_series["without"],
                   "sim_with": sim_series["with"]})
    with open(os.path.join(opts.out, "live-series.json"), "w") as f:
        json.dump(series, f)
    workload.run_cli(interstice, ["report", "--live", opts.out, "--quiet"])
    log(f"wrote {opts.out}/live.json, live.svg, live.png")


def main(argv):
    # SIGTERM stops the clusters as Ctrl-C does (each run's `finally`).
    signal.signal(signal.SIGTERM, lambda *_: sys.exit("slurm-live: terminated"))
    opts = options(argv)
    check_binaries(opts)
    try:
        if not opts.analyse:
            record(opts)
        write_results(opts)
    except (ClusterError, RuntimeError, ValueError, OSError) as err:
        sys.exit(f"slurm-live: {err}")


if __name__ == "__main__":
    main(sys.argv[1:])
