#!/usr/bin/env bash
# Regenerate the prediction-quality table of docs/prediction.md: every
# predictor's precision, recall and Brier score per run, over all cloud jobs
# and over the foreseeable ones (all but the violations HPC work submitted
# after the job's prediction caused), on KTH-SP2 and NASA-iPSC (whole
# traces), a cloud job every 10 s (2 processors, 180 s walltime), admit-all,
# slacks 1.25, 2 and 4, cloud run times 0.5 and 0.1 × walltime, in
#   - hpc-first, conservative, convergence areas AREAS of the whole machine
#     (an area wider than the machine is the whole machine);
#   - the thesis's setting: shared-queue convergence on a machine of M
#     processors (--machine M: the area is the machine, jobs clipped).
# Every run scores the three predictors over the same cloud jobs (under
# admit-all the predictor changes no decision), so one sweep per setting.
#
#   scripts/prediction.sh [OUT_DIR]     (default: target/prediction)
#
# Environment: JOBS (worker threads, default: all cores), BIN (an interstice
# binary; default: build the release one), AREAS (default 40,80,160),
# RUNTIMES (default 0.5w,0.1w), UNTIL (seconds of each trace to replay;
# default: all). About an hour on 2 cores. Prints OUT/table.md: one line per
# run and whether it meets the goal for the learned predictor on the
# foreseeable jobs: recall >= 0.99, and precision >= 0.99 where violations
# are at least 1 % of the cloud jobs, else false alarms <= 0.01 % of them.
set -euo pipefail
cd "$(dirname "$0")/.."
OUT=${1:-target/prediction}
JOBS=${JOBS:-$(nproc)}
AREAS=${AREAS:-40,80,160}
RUNTIMES=${RUNTIMES:-0.5w,0.1w}
if [[ -z "${BIN:-}" ]]; then
    cargo build --release -p interstice
    BIN=target/release/interstice
fi
UNTIL_ARGS=()
if [[ -n "${UNTIL:-}" ]]; then
    UNTIL_ARGS=(--until "$UNTIL")
fi
DATA=../shared/data
CLOUD=(--cloud-interval 10 --cloud-procs 2 --cloud-walltime 180 --cloud-runtime "$RUNTIMES"
    --slack 1.25,2,4 --admission admit-all --jobs "$JOBS")
mkdir -p "$OUT"
for trace in KTH-SP2-1996-2.1-cln NASA-iPSC-1993-3.1-cln; do
    name=${trace%%-*}
    # hpc-first areas are parts of the machine: wider ones are the whole of it.
    procs=$(zcat "$DATA/$trace.swf.gz" | sed -n 's/^; *MaxProcs: *\([0-9]*\).*/\1/p' | head -1)
    areas=$(tr ',' '\n' <<<"$AREAS" | awk -v m="$procs" '{print ($1 > m ? m : $1)}' | sort -nu | paste -sd,)
    "$BIN" sweep "$DATA/$trace.swf.gz" "${UNTIL_ARGS[@]}" --policy conservative --scheduling hpc-first \
        --conv "$areas" "${CLOUD[@]}" --out "$OUT/$name-hpc-first" --force
    "$BIN" sweep "$DATA/$trace.swf.gz" "${UNTIL_ARGS[@]}" --policy convergence --scheduling shared-queue \
        --machine "$AREAS" "${CLOUD[@]}" --out "$OUT/$name-shared-queue" --force
done
python3 - "$OUT" <<'PY' | tee "$OUT/table.md"
import csv, pathlib, sys

out = pathlib.Path(sys.argv[1])
def cell(row, key):
    value = row.get(key, "")
    return float(value) if value not in ("", None) else None
def show(value, digits=4):
    return "n/a" if value is None else f"{value:.{digits}f}"
def pr(row, prefix):
    return f"{show(cell(row, prefix + '.precision'))} / {show(cell(row, prefix + '.recall'))}"

def judge(row):
    """The goal on the foreseeable jobs, and why a run misses it."""
    cloud = int(row["cloud_jobs"])
    violations = int(row["violations"])
    recall = cell(row, "foreseeable.learned.recall")
    precision = cell(row, "foreseeable.learned.precision")
    false_alarms = int(row["foreseeable.learned.fp"])
    misses = []
    if recall is not None and recall < 0.99:
        misses.append("recall")
    if violations >= 0.01 * cloud:
        if precision is not None and precision < 0.99:
            misses.append("precision")
    elif false_alarms > 0.0001 * cloud:
        misses.append(f"{false_alarms} false alarms")
    return "yes" if not misses else "**no** (" + ", ".join(misses) + ")"

print("| trace | scheduling | run time | area | f | cloud jobs | violations | unforeseeable | "
      "exact P / R | learned P / R | learned Brier | "
      "foreseeable: exact P / R | learned P / R | learned FP | goal |")
print("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|")
runs = passed = 0
for sweep in sorted(out.glob("*/sweep.csv")):
    trace, _, scheduling = sweep.parent.name.partition("-")
    for row in csv.DictReader(open(sweep)):
        runs += 1
        verdict = judge(row)
        passed += verdict == "yes"
        print(f"| {trace} | {scheduling} | {row['cloud_runtime']} | {row['conv']} | {row['slack']} | "
              f"{row['cloud_jobs']} | {row['violations']} | {row['unforeseeable_violations']} | "
              f"{pr(row, 'exact')} | {pr(row, 'learned')} | {show(cell(row, 'learned.brier'))} | "
              f"{pr(row, 'foreseeable.exact')} | {pr(row, 'foreseeable.learned')} | "
              f"{row['foreseeable.learned.fp']} | {verdict} |")
print(f"\n{passed} of {runs} runs meet the goal for the learned predictor on the foreseeable jobs.")
PY
