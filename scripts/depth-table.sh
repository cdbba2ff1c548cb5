#!/usr/bin/env bash
# What the reservation depth changes: docs/performance.md's table, "Reservation
# depth". One replay per trace, policy and depth in the thesis's setting
# (`--procs 40 --clip`, a 2-processor cloud job every 10 s, 180 s walltime,
# 18 s run time, slack 1.25, admit-all), the first DAYS days of KTH-SP2 and
# NASA-iPSC. Prints a Markdown table: wall seconds, HPC mean wait (HPC jobs
# only, from jobs.csv), HPC makespan, cloud violations and the exact
# predictor's precision and recall.
#
#   scripts/depth-table.sh [INTERSTICE_BIN] [DAYS] [OUT_DIR]
#
# Defaults: target/release/interstice, 60 days, a temporary directory. Takes
# about 10 minutes on 2 cores (one run at a time, so the wall times compare).
set -euo pipefail
bin=${1:-target/release/interstice}
days=${2:-60}
out=${3:-$(mktemp -d)}
data="$(cd "$(dirname "$0")/../.." && pwd)/shared/data"
until=$((days * 86400))

echo "| trace | policy | depth | wall s | HPC mean wait (h) | HPC makespan (d) | violations % | precision | recall |"
echo "|---|---|---|---|---|---|---|---|---|"
for trace in KTH-SP2-1996-2.1-cln NASA-iPSC-1993-3.1-cln; do
  for policy in conservative convergence; do
    for depth in 1 10 100 500 unlimited; do
      dir="$out/${trace%%-*}-$policy-$depth"
      start=$(date +%s.%N)
      "$bin" replay "$data/$trace.swf.gz" --procs 40 --clip --policy "$policy" --reservation-depth "$depth" \
        --cloud-interval 10 --cloud-procs 2 --cloud-walltime 180 --cloud-runtime 18 --slack 1.25 \
        --until "$until" --out "$dir" --force --quiet
      end=$(date +%s.%N)
      python3 - "$dir" "${trace%%-*}" "$policy" "$depth" "$start" "$end" <<'PY'
import csv, json, sys
out, trace, policy, depth, start, end = sys.argv[1:7]
summary = json.load(open(f"{out}/summary.json"))
waits = [float(row["waiting_time"]) for row in csv.DictReader(open(f"{out}/jobs.csv")) if row["kind"] == "hpc"]
quality = summary["prediction"]
def num(value, fmt):
    return "—" if value is None else format(value, fmt)
print(f"| {trace} | {policy} | {depth} | {float(end) - float(start):.1f} | {sum(waits) / len(waits) / 3600:.2f} "
      f"| {summary['hpc_makespan'] / 86400:.2f} | {num(summary['violation_percent'], '.2f')} "
      f"| {num(quality['precision'], '.4f')} | {num(quality['recall'], '.4f')} |")
PY
    done
  done
done
