"""`sim` in live.json: `interstice replay` of exactly the submissions made
live (each job at the instant sbatch was called, with the limits and run
times submitted), with the daemon's engine settings (conservative, HPC first,
reject-predicted, the whole cluster as the area, no resubmission: Slurm
cancels a preempted job). Its numbers come from the replay's own files
(`jobs.csv`, `summary.json`: core's verdicts), read as the live ones are."""

import csv
import json
import os

from analysis import busy_series, ratio, stats
from summary import BINS, delay_stats
import workload


def submitted_jobs(out_dir, run, kinds):
    """The workload's jobs of `kinds` as `run` submitted them (measured submit instants)."""
    jobs = {j["id"]: j for j in workload.read_workload(os.path.join(out_dir, "workload.json"))}
    out = []
    for s in run["record"]["submissions"]:
        if s["kind"] in kinds:
            out.append(dict(jobs[s["id"]], subtime=max(0.0, s["subtime"])))
    return out


def replay(interstice, jobs, cpus, out):
    path = out + ".json"
    workload.write_workload(path, jobs, cpus)
    workload.run_cli(interstice, [
        "replay", path, "--policy", "conservative", "--admission", "reject-predicted",
        "--max-resubmissions", "0", "--conv", str(cpus), "--out", out, "--force",
    ])
    with open(os.path.join(out, "jobs.csv")) as f:
        rows = list(csv.DictReader(f))
    with open(os.path.join(out, "summary.json")) as f:
        summary = json.load(f)
    for row in rows:
        ran = row["starting_time"] not in ("", "inf") and row["final_state"] != "REJECTED"
        row["start"] = float(row["starting_time"]) if ran else None
        row["end"] = float(row["finish_time"]) if ran and row["finish_time"] not in ("", "inf") else None
        row["procs"] = int(row["requested_number_of_resources"])
        row["id"] = int(row["job_id"].split("!")[-1])
    return {row["id"]: row for row in rows}, summary


def sim_side(interstice, out_dir, without, with_, cpus, window):
    sim_dir = os.path.join(out_dir, "sim")
    os.makedirs(sim_dir, exist_ok=True)
    rows_wo, _ = replay(interstice, submitted_jobs(out_dir, without, {"hpc"}), cpus, os.path.join(sim_dir, "without"))
    rows_w, summary = replay(interstice, submitted_jobs(out_dir, with_, {"hpc", "cloud"}), cpus,
                             os.path.join(sim_dir, "with"))
    hpc_w = {i: r for i, r in rows_w.items() if r["kind"] == "hpc"}
    hpc_wo = {i: r for i, r in rows_wo.items() if r["kind"] == "hpc"}
    wait = lambda rows: {i: r["start"] - float(r["submission_time"]) for i, r in rows.items() if r["start"] is not None}
    wait_wo, wait_w = wait(hpc_wo), wait(hpc_w)
    _, delay = delay_stats(wait_wo, wait_w)
    cloud = [r for r in rows_w.values() if r["kind"] == "cloud"]
    evicted = [r for r in cloud if int(r["evictions"] or 0) > 0]
    series_wo, util_wo = busy_series(list(rows_wo.values()), window, cpus, BINS)
    series_w, util_w = busy_series(list(rows_w.values()), window, cpus, BINS)
    _, util_cloud = busy_series(cloud, window, cpus, BINS)
    c, p = summary["cloud"], summary["prediction"]
    sim = {
        "hpc_jobs": len(hpc_w),
        "hpc_failures": sum(r["final_state"] != "COMPLETED_SUCCESSFULLY" for r in hpc_w.values()),
        "hpc_wait_without": stats(list(wait_wo.values()), ("mean", "p50", "p99")),
        "hpc_wait_with": stats(list(wait_w.values()), ("mean", "p50", "p99")),
        "hpc_start_delay": delay,
        "preemptions": len(evicted),
        "cloud_jobs": {
            "submitted": c["jobs"], "admitted": c["admitted"], "refused": c["rejected"],
            "completed": sum(r["final_state"] == "COMPLETED_SUCCESSFULLY" for r in cloud),
            "preempted": len(evicted),
        },
        "slo_violations": {
            "count": c["violations"],
            "percent_of_admitted": c["violation_percent_of_admitted"],
            "percent_of_submitted": c["violation_percent_of_submitted"],
        },
        "prediction": {k: p[k] for k in ("tp", "fp", "fn", "tn", "precision", "recall")},
        "utilisation": {"window_seconds": window, "without_cloud": util_wo, "with_cloud": util_w,
                        "cloud_share": util_cloud},
    }
    return sim, {"without": series_wo, "with": series_w}, rows_w


def agreement(with_, sim_rows, live, sim):
    """Per cloud job: admitted live (sbatch accepted) and admitted in the replay; the rates side by side."""
    pairs = []
    for s in with_["record"]["submissions"]:
        if s["kind"] == "cloud" and s["id"] in sim_rows:
            pairs.append(("refused" not in s, sim_rows[s["id"]]["final_state"] != "REJECTED"))
    equal = sum(a == b for a, b in pairs)
    # The daemon's predicted completion (its marker) against the replay's, per cloud job both admitted.
    gaps = []
    for name, live_completion in with_["predicted_completion"].items():
        row = sim_rows.get(int(name[1:])) if name.startswith("c") else None
        if row and row["predicted_completion"] not in ("", "inf"):
            gaps.append(live_completion - float(row["predicted_completion"]))
    return {
        "cloud_jobs_compared": len(pairs),
        "admission_decisions_equal": equal,
        "admission_agreement": ratio(equal, len(pairs)),
        "admitted_live_refused_sim": sum(a and not b for a, b in pairs),
        "refused_live_admitted_sim": sum(b and not a for a, b in pairs),
        "violation_percent_of_admitted": {"live": live["slo_violations"]["percent_of_admitted"],
                                          "sim": sim["slo_violations"]["percent_of_admitted"]},
        "hpc_mean_wait_with": {"live": live["hpc_wait_with"]["mean"], "sim": sim["hpc_wait_with"]["mean"]},
        "utilisation_with": {"live": live["utilisation"]["with_cloud"], "sim": sim["utilisation"]["with_cloud"]},
        "preemptions": {"live": live["preemptions"], "sim": sim["preemptions"]},
        "predicted_completion_live_minus_sim": dict(stats(gaps, ("p50", "p99", "max", "min")), jobs=len(gaps)),
    }
