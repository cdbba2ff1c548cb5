#!/usr/bin/env python3
"""How well could any predictor do on a run? An offline bound for docs/prediction.md.

    scripts/prediction-limit.py LEARNED_JOBS_CSV EXACT_JOBS_CSV

The two files are the jobs.csv of the same admit-all replay made with
`--predictor learned` and with `--predictor exact` (under admit-all the
predictor changes no decision, so the runs are the same but for the
prediction columns). The script trains a random forest on the first half of
the cloud jobs (in submission order) to tell which will violate their SLO,
from what is known when each is submitted:

  - both predictors' margins (predicted completion minus deadline);
  - HPC jobs queued, HPC processors busy, cloud jobs running and queued,
    processors idle;
  - seconds since the last HPC submission and the last HPC end, HPC
    submissions in the last 10 minutes and the last hour;
  - the time of day and the day of the week;

and scores it on the second half, at 0.5 and at the threshold that is best
on the second half itself (hindsight: an upper bound, not a predictor). The
learned predictor's own precision and recall on the second half are printed
beside it. Needs numpy and scikit-learn (`pip install scikit-learn`); not
part of CI.
"""

import csv
import sys

import numpy as np
from sklearn.ensemble import RandomForestClassifier


def read(path):
    with open(path, newline="") as f:
        return list(csv.DictReader(f))


def score(predicted, violated):
    tp = int((predicted & violated).sum())
    fp = int((predicted & ~violated).sum())
    fn = int((~predicted & violated).sum())
    precision = tp / (tp + fp) if tp + fp else float("nan")
    recall = tp / (tp + fn) if tp + fn else float("nan")
    return precision, recall, fp, fn


def features(rows, exact_completion):
    num = lambda r, k: float(r[k])
    hpc = [r for r in rows if r["kind"] == "hpc"]
    cloud = [r for r in rows if r["kind"] == "cloud"]
    machine = max(
        (int(p) for r in rows for part in r["allocated_resources"].replace(",", " ").split()
         for p in part.split("-")),
        default=0,
    ) + 1
    hpc_submits = np.sort([num(r, "submission_time") for r in hpc])
    hpc_starts = np.sort([num(r, "starting_time") for r in hpc])
    hpc_ends = np.sort([num(r, "finish_time") for r in hpc])
    events = sorted(
        [(num(r, "starting_time"), int(r["requested_number_of_resources"])) for r in hpc]
        + [(num(r, "finish_time"), -int(r["requested_number_of_resources"])) for r in hpc]
    )
    event_times = np.array([t for t, _ in events])
    busy_after = np.cumsum([d for _, d in events])
    cloud_submits = np.sort([num(r, "submission_time") for r in cloud])
    cloud_starts = np.sort([num(r, "starting_time") for r in cloud])
    cloud_ends = np.sort([num(r, "finish_time") for r in cloud])
    before = lambda a, t: int(np.searchsorted(a, t, "right"))
    x, violated, learned = [], [], []
    for r in cloud:
        t = num(r, "submission_time")
        deadline = t + num(r, "slo")
        k = before(event_times, t)
        hpc_busy = busy_after[k - 1] if k else 0
        cloud_running = before(cloud_starts, t) - before(cloud_ends, t)
        i, e = before(hpc_submits, t), before(hpc_ends, t)
        x.append([
            num(r, "predicted_completion") - deadline,
            exact_completion[r["job_id"]] - deadline,
            i - before(hpc_starts, t),
            hpc_busy,
            cloud_running,
            before(cloud_submits, t) - before(cloud_starts, t),
            machine - hpc_busy - 2 * cloud_running,
            t - hpc_submits[i - 1] if i else 1e7,
            t - hpc_ends[e - 1] if e else 1e7,
            i - before(hpc_submits, t - 600),
            i - before(hpc_submits, t - 3600),
            t % 86400,
            (t // 86400) % 7,
        ])
        violated.append(r["violated"] == "1")
        learned.append(r["predicted_violation"] == "1")
    return np.array(x), np.array(violated), np.array(learned)


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    rows = read(sys.argv[1])
    exact = {r["job_id"]: float(r["predicted_completion"]) for r in read(sys.argv[2]) if r["kind"] == "cloud"}
    x, violated, learned = features(rows, exact)
    half = len(violated) // 2
    p, r, fp, fn = score(learned[half:], violated[half:])
    print(f"learned predictor, second half: precision {p:.4f} recall {r:.4f} (fp {fp}, fn {fn})")
    forest = RandomForestClassifier(n_estimators=100, min_samples_leaf=5, n_jobs=-1, random_state=0)
    forest.fit(x[:half], violated[:half])
    probability = forest.predict_proba(x[half:])[:, 1]
    p, r, fp, fn = score(probability > 0.5, violated[half:])
    print(f"random forest at 0.5, second half: precision {p:.4f} recall {r:.4f} (fp {fp}, fn {fn})")
    best = max(
        (min(score(probability > th, violated[half:])[:2]), th) for th in np.linspace(0.05, 0.95, 37)
    )
    p, r, fp, fn = score(probability > best[1], violated[half:])
    print(
        f"random forest at the best threshold in hindsight ({best[1]:.3f}): "
        f"precision {p:.4f} recall {r:.4f} (fp {fp}, fn {fn})"
    )


if __name__ == "__main__":
    main()
