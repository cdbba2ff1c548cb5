#!/usr/bin/env bash
# Regenerate the prediction-quality table of docs/prediction.md: every
# predictor's precision, recall and Brier score per run, on KTH-SP2 and
# NASA-iPSC (whole traces), a cloud job every 10 s (2 processors, 180 s
# walltime, 90 s run time), admit-all, slacks 1.25, 1.5, 2, 3 and 4, in
#   - hpc-first, conservative, convergence areas AREAS of the whole machine;
#   - the thesis's setting: shared-queue convergence on a machine of M
#     processors (--machine M: the area is the machine, jobs clipped).
# Every run scores the three predictors over the same cloud jobs (under
# admit-all the predictor changes no decision), so one sweep per setting.
#
#   scripts/prediction.sh [OUT_DIR]     (default: target/prediction)
#
# Environment: JOBS (worker threads, default: all cores), BIN (an interstice
# binary; default: build the release one), AREAS (default 20,40,80),
# UNTIL (seconds of each trace to replay; default: all). About 40 minutes
# on 2 cores. Prints OUT/table.md: one line per run, and whether the
# learned predictor's precision and recall are both at least 0.99 (runs
# with fewer than 10 violations are not judged).
set -euo pipefail
cd "$(dirname "$0")/.."
OUT=${1:-target/prediction}
JOBS=${JOBS:-$(nproc)}
AREAS=${AREAS:-20,40,80}
if [[ -z "${BIN:-}" ]]; then
    cargo build --release -p interstice
    BIN=target/release/interstice
fi
UNTIL_ARGS=()
if [[ -n "${UNTIL:-}" ]]; then
    UNTIL_ARGS=(--until "$UNTIL")
fi
DATA=../shared/data
CLOUD=(--cloud-interval 10 --cloud-procs 2 --cloud-walltime 180 --cloud-runtime 0.5w
    --slack 1.25,1.5,2,3,4 --admission admit-all --jobs "$JOBS")
mkdir -p "$OUT"
for trace in KTH-SP2-1996-2.1-cln NASA-iPSC-1993-3.1-cln; do
    name=${trace%%-*}
    "$BIN" sweep "$DATA/$trace.swf.gz" "${UNTIL_ARGS[@]}" --policy conservative --scheduling hpc-first \
        --conv "$AREAS" "${CLOUD[@]}" --out "$OUT/$name-hpc-first" --force
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

print("| trace | scheduling | area | f | violations | exact P / R | thesis P / R | learned P / R | learned Brier | learned ≥ 0.99 |")
print("|---|---|---|---|---|---|---|---|---|---|")
judged = passed = 0
for sweep in sorted(out.glob("*/sweep.csv")):
    trace, _, scheduling = sweep.parent.name.partition("-")
    for row in csv.DictReader(open(sweep)):
        pr = {p: (cell(row, f"{p}.precision"), cell(row, f"{p}.recall")) for p in ("exact", "thesis", "learned")}
        violations = int(row["violations"])
        verdict = "not judged (< 10 violations)"
        if violations >= 10:
            judged += 1
            ok = all(v is not None and v >= 0.99 for v in pr["learned"])
            passed += ok
            verdict = "yes" if ok else "**no**"
        print(f"| {trace} | {scheduling} | {row['conv']} | {row['slack']} | {violations} | "
              + " | ".join(f"{show(p)} / {show(r)}" for p, r in pr.values())
              + f" | {show(cell(row, 'learned.brier'))} | {verdict} |")
print(f"\n{passed} of {judged} judged runs have the learned predictor's precision and recall both at least 0.99.")
PY
