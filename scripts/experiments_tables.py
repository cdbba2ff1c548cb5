#!/usr/bin/env python3
"""Markdown tables of docs/experiments.md from the sweep.csv files of scripts/experiments.sh.

    python3 scripts/experiments_tables.py OUT_DIR > tables.md

OUT_DIR holds one directory per sweep (kth-grid, kth-reject, kth-policies, nasa-…), each with
the sweep.csv that `interstice sweep` wrote. Standard library only.
"""
import csv
import os
import sys
from collections import defaultdict

RUNTIME_NAMES = {"1w": "walltime", "0.5w": "0.5w", "0.1w": "0.1w", "uniform:1:18": "uniform:1:18"}


def load(out, name):
    path = os.path.join(out, name, "sweep.csv")
    if not os.path.exists(path):
        return None
    with open(path, newline="") as handle:
        return list(csv.DictReader(handle))


def ordered(values, key=float):
    return sorted(set(values), key=key)


def fmt_pct(value):
    value = float(value)
    if value == 0:
        return "0"
    if value < 0.01:
        return f"{value:.4f}"
    if value < 10:
        return f"{value:.2f}"
    return f"{value:.1f}"


def ratio(num, den):
    return num / den if den else float("nan")


def fmt_ratio(value):
    return "–" if value != value else f"{value:.3f}"


def quality(rows):
    tp = sum(int(r["tp"]) for r in rows)
    fp = sum(int(r["fp"]) for r in rows)
    fn = sum(int(r["fn"]) for r in rows)
    tn = sum(int(r["tn"]) for r in rows)
    predicted, occurred = tp + fp, tp + fn
    precision, recall = ratio(tp, predicted), ratio(tp, occurred)
    return {
        "tp": tp, "fp": fp, "fn": fn, "tn": tn,
        "thesis_accuracy": ratio(fp + fn, predicted),
        "thesis_precision": ratio(tp, occurred),
        "precision": precision,
        "recall": recall,
        "accuracy": ratio(tp + tn, tp + fp + fn + tn),
        "f1": ratio(2 * precision * recall, precision + recall) if occurred and predicted else float("nan"),
    }


def grid_tables(trace, rows):
    print(f"### {trace}: violation % (cells: h = 1 / 2 / 4)\n")
    convs = ordered((r["conv"] for r in rows), int)
    slacks = ordered(r["slack"] for r in rows)
    runtimes = list(dict.fromkeys(r["cloud_runtime"] for r in rows))
    hs = ordered((r["cloud_procs"] for r in rows), int)
    cell = {(r["cloud_runtime"], r["conv"], r["slack"], r["cloud_procs"]): r for r in rows}
    for runtime in runtimes:
        print(f"Cloud run time **{RUNTIME_NAMES.get(runtime, runtime)}**:\n")
        print("| f \\ m_conv | " + " | ".join(convs) + " |")
        print("|---" * (len(convs) + 1) + "|")
        for slack in slacks:
            cells = []
            for conv in convs:
                cells.append(" / ".join(fmt_pct(cell[(runtime, conv, slack, h)]["violation_percent"]) for h in hs))
            print(f"| {slack} | " + " | ".join(cells) + " |")
        print()

    print(f"### {trace}: prediction quality (pooled confusion matrix over the runs)\n")
    print("| run time | runs | f | tp | fp | fn | tn | thesis accuracy (lower is better) | thesis precision | precision | recall | F1 | accuracy |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|---|")
    for runtime in runtimes + [None]:
        subset = [r for r in rows if runtime is None or r["cloud_runtime"] == runtime]
        for label, part in (("all", subset), ("< 5", [r for r in subset if float(r["slack"]) < 5])):
            q = quality(part)
            name = "all" if runtime is None else RUNTIME_NAMES.get(runtime, runtime)
            print(f"| {name} | {len(part)} | {label} | {q['tp']} | {q['fp']} | {q['fn']} | {q['tn']} | "
                  f"{fmt_ratio(q['thesis_accuracy'])} | {fmt_ratio(q['thesis_precision'])} | "
                  f"{fmt_ratio(q['precision'])} | {fmt_ratio(q['recall'])} | {fmt_ratio(q['f1'])} | "
                  f"{fmt_ratio(q['accuracy'])} |")
    print()

    print(f"### {trace}: evictions per run (at f = 2; cells h = 1 / 2 / 4) and cloud jobs per run\n")
    print("| run time \\ m_conv | " + " | ".join(convs) + " |")
    print("|---" * (len(convs) + 1) + "|")
    for runtime in runtimes:
        cells = [" / ".join(cell[(runtime, conv, "2", h)]["evictions"] for h in hs) for conv in convs]
        print(f"| {RUNTIME_NAMES.get(runtime, runtime)} | " + " | ".join(cells) + " |")
    print(f"\nCloud jobs per run: {rows[0]['cloud_jobs']}; HPC jobs: {int(rows[0]['jobs']) - int(rows[0]['cloud_jobs'])}.\n")


def makespan_line(name, rows):
    deltas = [float(r["hpc_makespan_delta"]) for r in rows]
    nonzero = sum(1 for d in deltas if d != 0)
    walls = [float(r["wall_seconds"]) for r in rows]
    print(f"| {name} | {len(rows)} | {min(deltas):.0f} | {max(deltas):.0f} | {nonzero} | "
          f"{sum(walls):.0f} | {max(walls):.1f} |")


def reject_table(trace, rows):
    print(f"### {trace}: admit-all vs reject-predicted (violation % / rejected % of cloud jobs)\n")
    print("| m_conv | h | f | run time | admit-all viol. % | reject-predicted viol. % | rejected % | evictions admit / reject |")
    print("|---|---|---|---|---|---|---|---|")
    by = defaultdict(dict)
    for r in rows:
        by[(int(r["conv"]), int(r["cloud_procs"]), r["cloud_runtime"], float(r["slack"]))][r["admission"]] = r
    for (conv, h, runtime, slack), pair in sorted(by.items()):
        a, j = pair["admit-all"], pair["reject-predicted"]
        rejected = 100.0 * int(j["rejected"]) / int(j["cloud_jobs"])
        print(f"| {conv} | {h} | {slack:g} | {RUNTIME_NAMES.get(runtime, runtime)} | {fmt_pct(a['violation_percent'])} | "
              f"{fmt_pct(j['violation_percent'])} | {fmt_pct(rejected)} | {a['evictions']} / {j['evictions']} |")
    print()


def policy_table(trace, rows):
    print(f"### {trace}: convergence vs conservative vs EASY (violation % / evictions / HPC makespan delta s)\n")
    policies = list(dict.fromkeys(r["policy"] for r in rows))
    print("| m_conv | h | f | run time | " + " | ".join(policies) + " |")
    print("|---|---|---|---|" + "---|" * len(policies))
    by = defaultdict(dict)
    for r in rows:
        by[(int(r["conv"]), int(r["cloud_procs"]), r["cloud_runtime"], float(r["slack"]))][r["policy"]] = r
    for (conv, h, runtime, slack), cells in sorted(by.items()):
        text = [f"{fmt_pct(cells[p]['violation_percent'])} / {cells[p]['evictions']} / "
                f"{float(cells[p]['hpc_makespan_delta']):.0f}" for p in policies]
        print(f"| {conv} | {h} | {slack:g} | {RUNTIME_NAMES.get(runtime, runtime)} | " + " | ".join(text) + " |")
    print()


def main():
    out = sys.argv[1]
    sweeps = {}
    for trace in ("kth", "nasa"):
        for kind in ("grid", "reject", "policies"):
            rows = load(out, f"{trace}-{kind}")
            if rows:
                sweeps[f"{trace}-{kind}"] = rows
    names = {"kth": "KTH-SP2 (100 procs)", "nasa": "NASA-iPSC (128 procs)"}
    for trace in ("kth", "nasa"):
        if f"{trace}-grid" in sweeps:
            grid_tables(names[trace], sweeps[f"{trace}-grid"])
        if f"{trace}-reject" in sweeps:
            reject_table(names[trace], sweeps[f"{trace}-reject"])
        if f"{trace}-policies" in sweeps:
            policy_table(names[trace], sweeps[f"{trace}-policies"])
    print("### HPC makespan delta (run − same trace, policy and area without cloud jobs) and run times\n")
    print("| sweep | runs | min delta s | max delta s | runs with delta ≠ 0 | Σ run wall s | max run wall s |")
    print("|---|---|---|---|---|---|---|")
    for name, rows in sweeps.items():
        makespan_line(name, rows)
    print()


if __name__ == "__main__":
    main()
