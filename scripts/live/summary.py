"""live.json's numbers from the two live runs (without and with cloud jobs)."""

from analysis import (COUNTER_OFFER, busy_series, histogram_quantile, hpc_view, quantile, ratio, stats, waits)

BINS = 60


def delay_stats(wait_without, wait_with):
    """Per HPC job started in both runs: its wait with cloud jobs minus its wait without."""
    delays = {i: wait_with[i] - wait_without[i] for i in wait_with if i in wait_without}
    return delays, dict(stats(list(delays.values()), ("p50", "p99", "max", "min")), jobs=len(delays))


def cloud_counts(run):
    subs = [s for s in run["record"]["submissions"] if s["kind"] == "cloud"]
    refused = [s for s in subs if "refused" in s]
    states = {}
    for s in subs:
        job = run["jobs"].get(f"c{s['id']}")
        if "refused" not in s:
            state = job["state"] if job else "NOT_RECORDED"
            states[state] = states.get(state, 0) + 1
    return subs, {
        "submitted": len(subs),
        "admitted": len(subs) - len(refused),
        "refused": len(refused),
        "refused_with_counter_offer": sum(COUNTER_OFFER in s["refused"] for s in refused),
        "completed": states.get("COMPLETED", 0),
        "preempted": states.get("PREEMPTED", 0),
        "states": states,
    }


def metric(run, key):
    return run["metrics"].get(key)


def prediction(run):
    counts = {o: int(metric(run, f'interstice_prediction_outcomes_total{{outcome="{o}"}}') or 0)
              for o in ("tp", "fp", "fn", "tn")}
    return dict(counts, precision=ratio(counts["tp"], counts["tp"] + counts["fp"]),
                recall=ratio(counts["tp"], counts["tp"] + counts["fn"]))


def preemption_latency(run):
    """Each preemption Slurm logged: the preemptor's start minus the victim's end (slurmctld's
    log, ms; else jobcomp's seconds), and the path in slurmctld's log (ms): preemptor submitted → victims signalled →
    preemptor started."""
    by_slurm = {j["slurm_id"]: j for j in run["jobs"].values()}
    ctld = run["ctld"]
    latencies, decide, start = [], [], []
    for victim, preemptor in run["preemptions"]:
        v, p = by_slurm.get(victim), by_slurm.get(preemptor)
        if victim in ctld["preempted_at"] and preemptor in ctld["start"]:
            # Slurm ends a preempted job when it signals it (its jobcomp EndTime): to the ms here.
            latencies.append(ctld["start"][preemptor] - ctld["preempted_at"][victim])
        elif v and p and v.get("end") is not None and p.get("start") is not None:
            latencies.append(p["start"] - v["end"])
    for preemptor in {p for _, p in run["preemptions"]}:
        signalled = [ctld["preempted_at"][v] for v, p in run["preemptions"]
                     if p == preemptor and v in ctld["preempted_at"]]
        if signalled and preemptor in ctld["submit"] and preemptor in ctld["start"]:
            decide.append(min(signalled) - ctld["submit"][preemptor])
            start.append(ctld["start"][preemptor] - max(signalled))
    path = {"hpc_jobs": len(decide),
            "submitted_to_victims_signalled": stats(decide, ("p50", "p99", "max")),
            "victims_signalled_to_hpc_start": stats(start, ("p50", "p99", "max"))}
    return len({v for v, _ in run["preemptions"]}), latencies, path


def admission_latency(run, subs):
    cloud_ms = [s["sbatch_ms"] for s in subs]
    hpc_ms = [s["sbatch_ms"] for s in run["record"]["submissions"] if s["kind"] == "hpc"]
    daemon = {q: histogram_quantile(run["metrics"], "interstice_admission_duration_seconds", q / 100)
              for q in (50, 99)}
    job_submit = run["ctld"]["job_submit_ms"]
    return {
        "job_submit_p50_ms": quantile(job_submit, 0.5),
        "job_submit_p99_ms": quantile(job_submit, 0.99),
        "sbatch_evictable_p50_ms": quantile(cloud_ms, 0.5),
        "sbatch_evictable_p99_ms": quantile(cloud_ms, 0.99),
        "sbatch_hpc_p50_ms": quantile(hpc_ms, 0.5),
        "daemon_p50_ms_at_most": None if daemon[50] is None else daemon[50] * 1000,
        "daemon_p99_ms_at_most": None if daemon[99] is None else daemon[99] * 1000,
    }


def checks(run, cloud, preempted):
    """The daemon's counters against Slurm's own records (each pair should be equal)."""
    m = lambda key: metric(run, key)
    pairs = {
        "admitted": (m('interstice_admissions_total{decision="admitted"}'), cloud["admitted"]),
        "rejected": (m('interstice_admissions_total{decision="rejected"}'), cloud["refused"]),
        "counter_offers": (m("interstice_slo_counteroffers_total"), cloud["refused_with_counter_offer"]),
        "evictions": (m("interstice_evictions_total"), cloud["preempted"]),
        "completed": (sum(m(f'interstice_slurm_cloud_job_outcomes_total{{outcome="{o}"}}') or 0
                          for o in ("met", "violated")), cloud["completed"]),
        # After the drain no admission hold may stand (each is settled when Slurm lists its job).
        "holds_left": (m("interstice_admission_holds"), 0),
        "preemptions_logged": (preempted, cloud["preempted"]),
    }
    return {k: {"daemon": a, "slurm": b, "equal": a is not None and int(a) == int(b)} for k, (a, b) in pairs.items()}


def live_side(without, with_, cpus, window):
    """The live half of live.json, and the figure's series."""
    cut_wo = set(without["record"]["cancelled_at_drain_limit"])
    cut_w = set(with_["record"]["cancelled_at_drain_limit"])
    hpc_wo, failed_wo, unfinished_wo = hpc_view(without, cut_wo)
    hpc_w, failed_w, unfinished_w = hpc_view(with_, cut_w)
    wait_wo, wait_w = waits(hpc_wo, without["ctld"]), waits(hpc_w, with_["ctld"])
    delays, delay = delay_stats(wait_wo, wait_w)
    subs, cloud = cloud_counts(with_)
    preempted, latencies, path = preemption_latency(with_)
    series_wo, util_wo = busy_series(list(without["jobs"].values()), window, cpus, BINS)
    series_w, util_w = busy_series(list(with_["jobs"].values()), window, cpus, BINS)
    cloud_jobs = [j for n, j in with_["jobs"].items() if n.startswith("c")]
    _, util_cloud = busy_series(cloud_jobs, window, cpus, BINS)
    sold = sum((j["end"] - j["start"]) * j["procs"] for j in cloud_jobs if j.get("start") is not None)
    violations = metric(with_, "interstice_slo_violations_total")
    finished = metric(with_, "interstice_cloud_jobs_finished_total")
    out = {
        "hpc_jobs": len(hpc_w),
        "hpc_failures": len(failed_w),
        "hpc_failures_without_cloud": len(failed_wo),
        "hpc_failed_jobs": sorted(failed_w),
        "hpc_unfinished_at_drain_limit": {"without": len(unfinished_wo), "with": len(unfinished_w)},
        "hpc_wait_without": stats(list(wait_wo.values()), ("mean", "p50", "p99")),
        "hpc_wait_with": stats(list(wait_w.values()), ("mean", "p50", "p99")),
        "hpc_start_delay": delay,
        "preemptions": preempted,
        "preemption_latency": stats(latencies, ("p50", "p99", "max")),
        "preemption_path": path,
        "cloud_jobs": cloud,
        "slo_violations": {
            "count": violations,
            "cloud_jobs_finished": finished,
            "percent_of_admitted": None if violations is None else ratio(100 * violations, cloud["admitted"]),
            "percent_of_submitted": None if violations is None else ratio(100 * violations, cloud["submitted"]),
        },
        "prediction": prediction(with_),
        "admission_latency": admission_latency(with_, subs),
        "utilisation": {
            "window_seconds": window,
            "without_cloud": util_wo,
            "with_cloud": util_w,
            "cloud_share": util_cloud,
            "idle_cpu_hours_sold": sold / 3600.0,
        },
        "checks": checks(with_, cloud, preempted),
    }
    series = {"without": series_wo, "with": series_w,
              "delays": sorted((hpc_w[i]["submit"], d) for i, d in delays.items())}
    return out, series
