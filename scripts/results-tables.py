#!/usr/bin/env python3
"""The tables of docs/results.md, from the sweeps scripts/results.sh wrote.

    scripts/results-tables.py OUT_DIR [NAME ...]     (default: every sweep in OUT_DIR)

For each sweep OUT_DIR/NAME/sweep.csv, in Markdown: violations (% of the
cloud jobs) by area and slack, a cell per cloud width (h = 1 / 2 / 4), one
table per cloud run time; the HPC makespan change (h = 4, f = 1.25); and the
thesis's prediction aggregation per predictor, read from the sweep's
report/report.json (`interstice report` owns that rule: per-run mean ±
sample sd over m_conv <= 320 and over f < 5, undefined runs apart).
Standard library only.
"""
import csv
import json
import os
import sys
from collections import defaultdict

SLACKS = ["1.25", "2", "5", "15"]


def fnum(text):
    return None if text in ("", None) else float(text)


def pct(value):
    if value is None:
        return "–"
    if value == 0:
        return "0"
    if value >= 10:
        return f"{value:.1f}"
    if value >= 0.1:
        return f"{value:.2f}"
    return f"{value:.2g}"


def shown(aggregate):
    """An aggregate of `interstice report` (report.json): mean ± sample sd."""
    if not aggregate or aggregate.get("mean") is None:
        return "undefined"
    sd = aggregate.get("sd")
    return f"{aggregate['mean']:.3g}" + ("" if sd is None else f" ± {sd:.2g}")


def prediction_table(report_path, predictors, runtimes):
    """The thesis's aggregation as `interstice report` computes it (its
    report.json `prediction` rows; the rule lives in src/cli/report/stats.rs):
    each predictor scored on the runs that configured it."""
    if not os.path.exists(report_path):
        sys.exit(f"{report_path}: no report (run `interstice report` on the sweep first)")
    with open(report_path) as handle:
        rows = json.load(handle)["prediction"]
    out = ["Prediction, the thesis's aggregation (m_conv ≤ 320; in brackets f < 5):", ""]
    out += ["| predictor | cloud run time | \"accuracy\" (FP + FN) / predicted violations | \"precision\" TP / violations | runs with no violation (undefined precision) |", "|---|---|---|---|---|"]
    for predictor in predictors:
        for runtime in runtimes:
            def row(scope):
                for candidate in rows:
                    words = candidate["setting"].split()
                    if (candidate["predictor"] == predictor and candidate["scope"] == scope
                            and all(w in (f"predictor={predictor}", f"cloud_runtime={runtime}") for w in words)
                            and (len(runtimes) == 1 or f"cloud_runtime={runtime}" in words)):
                        return candidate
                return None
            every, low = row("m_conv ≤ 320"), row("m_conv ≤ 320, f < 5")
            if every is None:
                continue
            both = lambda key: f"{shown(every[key])} ({shown(low and low[key])})"
            precision = every["thesis_precision"]
            out.append(f"| {predictor} | {runtime} | {both('thesis_accuracy')} | {both('thesis_precision')} | "
                       f"{precision['undefined']} of {precision['runs'] + precision['undefined']} |")
    return out


def slack_key(text):
    return f"{float(text):g}"


def tables(path, name):
    with open(path, newline="") as handle:
        rows = list(csv.DictReader(handle))
    predictors = sorted({row["predictor"] for row in rows})
    first = predictors[0]
    out = [f"### {name}", ""]
    def runtime_key(text):
        try:
            return (0, float(text[:-1]) if text.endswith("w") else float(text))
        except ValueError:
            return (1, 0.0)

    runtimes = sorted({row["cloud_runtime"] for row in rows}, key=lambda r: (runtime_key(r), r))
    areas = sorted({int(row["procs"]) for row in rows})
    slacks = [s for s in SLACKS if any(slack_key(r["slack"]) == s for r in rows)]
    widths = sorted({row["cloud_procs"] for row in rows}, key=int)
    cell = {}
    makespan = {}
    for row in rows:
        if row["predictor"] != first:
            continue  # violations do not depend on the predictor under admit-all
        key = (row["cloud_runtime"], int(row["procs"]), slack_key(row["slack"]), row["cloud_procs"])
        cell[key] = fnum(row["violation_percent"])
        delta, total = fnum(row["hpc_makespan_delta"]), fnum(row["hpc_makespan"])
        if delta is not None and total is not None and total - delta > 0:
            makespan[key] = 100.0 * delta / (total - delta)
    for runtime in runtimes:
        head = "| m_conv | " + " | ".join(f"f = {s}: h = {' / '.join(widths)}" for s in slacks)
        head += " | HPC makespan change (h = 4, f = 1.25) |"
        out += [f"Cloud run time {runtime}:", "", head, "|---:|" + "---|" * (len(slacks) + 1)]
        for m in areas:
            cells = []
            for s in slacks:
                cells.append(" / ".join(pct(cell.get((runtime, m, s, h))) for h in widths))
            change = makespan.get((runtime, m, "1.25", widths[-1]))
            shown = "–" if change is None else ("0" if abs(change) < 0.05 else f"{change:+.1f} %")
            out.append(f"| {m} | " + " | ".join(cells) + f" | {shown} |")
        out.append("")
    out += prediction_table(os.path.join(os.path.dirname(path), "report", "report.json"), predictors, runtimes)
    out.append("")
    return "\n".join(out)


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    root = sys.argv[1]
    if not os.path.isdir(root):
        sys.exit(f"{root}: no such directory (give scripts/results.sh's OUT_DIR)")
    names = sys.argv[2:] or sorted(
        d for d in os.listdir(root) if os.path.exists(os.path.join(root, d, "sweep.csv"))
    )
    for name in names:
        path = os.path.join(root, name, "sweep.csv")
        if not os.path.exists(path):
            sys.exit(f"{path}: no such sweep table (run scripts/results.sh first)")
        print(tables(path, name))


if __name__ == "__main__":
    main()
