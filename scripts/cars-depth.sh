#!/usr/bin/env bash
# What the reservation depth changes under CArS: docs/results.md's table, "What
# the reservation depth changes". One replay per cell and depth in the grid's
# setting (KTH-SP2's first 31 days, `--procs M --clip --scheduling shared-queue
# --policy cars --predictor thesis`, a cloud job every 10 s, 180 s walltime,
# 0.1 w, admit-all), one at a time so the wall times compare. Prints one line per
# run: violations, F^σ's TP / FP / FN, "accuracy", recall, HPC makespan, wall.
#
#   scripts/cars-depth.sh [INTERSTICE_BIN] [OUT_DIR]
#
# Defaults: target/release/interstice, a temporary directory. An unbounded run
# of an overloaded cell is stopped after TIMEOUT seconds (default 900) and
# reported as not finished. Takes about 40 minutes on 2 cores, most of it the
# unbounded runs that do not finish.
set -euo pipefail
bin=${1:-target/release/interstice}
out=${2:-$(mktemp -d)}
timeout_s=${TIMEOUT:-900}
trace="$(cd "$(dirname "$0")/../.." && pwd)/shared/data/KTH-SP2-1996-2.1-cln.swf.gz"

cell() { # m h f depth
    local dir="$out/m$1-h$2-f$3-d$4" start end status=0
    start=$(date +%s.%N)
    timeout "$timeout_s" "$bin" replay "$trace" --procs "$1" --clip --scheduling shared-queue \
        --policy cars --predictor thesis --admission admit-all --cloud-interval 10 \
        --cloud-walltime 180 --cloud-runtime 0.1w --cloud-procs "$2" --slack "$3" \
        --until 2678400 --reservation-depth "$4" --no-jobs-csv --out "$dir" --force \
        >/dev/null 2>&1 || status=$?
    end=$(date +%s.%N)
    if [[ $status -ne 0 ]]; then
        echo "m_conv $1, h $2, f $3, depth $4: not finished in ${timeout_s} s (status $status)"
        return
    fi
    python3 - "$dir/summary.json" "m_conv $1, h $2, f $3, depth $4" "$start" "$end" <<'PY'
import json, sys
summary = json.load(open(sys.argv[1]))
p = summary["prediction"]
print(f"{sys.argv[2]}: {summary['violation_percent']:.4f} % violations, TP/FP/FN "
      f"{p['tp']}/{p['fp']}/{p['fn']}, accuracy {p['thesis_accuracy']}, recall "
      f"{p['thesis_precision']}, HPC makespan {summary['hpc_makespan']:.0f} s, "
      f"{float(sys.argv[4]) - float(sys.argv[3]):.1f} s")
PY
}

for depth in 20 100 500 unlimited; do cell 10 1 5 "$depth"; done
for depth in 20 100 500; do cell 40 1 5 "$depth"; done
for depth in 20 100 unlimited; do cell 160 4 15 "$depth"; done
