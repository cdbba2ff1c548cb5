#!/usr/bin/env bash
# TOPSIS against first fit (docs/placement.md): the same replays with
# `--placement first-fit` and `--placement topsis`, on a shared trace at
# three sizes of the convergence area under three policies, then the data
# center of examples/datacenter.yaml. Prints Markdown table rows: cloud
# jobs, violations, evictions, lost work and wall seconds per run.
#
#   scripts/placement-table.sh [BIN] [TRACE] [OUT]
#
# BIN defaults to target/release/interstice, TRACE to KTH, OUT to a new
# temporary directory (each run's summary.json). Run from the repository
# root (the data center's file reads ../shared).
set -euo pipefail
bin=${1:-target/release/interstice}
trace=${2:-../shared/data/KTH-SP2-1996-2.1-cln.swf.gz}
out=${3:-$(mktemp -d)}
mkdir -p "$out"
days=30
common=(--until $((days * 86400)) --cloud-interval 300 --cloud-procs 1,2,4 --cloud-walltime 1800
        --cloud-runtime uniform:300:1800 --slack 3 --quiet --force --no-jobs-csv)
row() { # label dir seconds
  python3 - "$@" <<'PY'
import json, sys
label, path, secs = sys.argv[1], sys.argv[2], float(sys.argv[3])
s = json.load(open(path + "/summary.json"))
d = s.get("datacenter", s)
print(f"| {label} | {d['cloud_jobs']} | {d['violations']} | {d['evictions']} | "
      + (f"{s['lost_work'] / 3600:.0f} | " if "lost_work" in s else "– | ") + f"{secs:.1f} |")
PY
}
echo "| run | cloud jobs | violations | evictions | lost work (proc-h) | s |"
echo "|---|---|---|---|---|---|"
for conv in 40 60 80; do
  for policy in easy conservative convergence; do
    for placement in first-fit topsis; do
      dir="$out/$conv-$policy-$placement"
      start=$(date +%s.%N)
      "$bin" replay "$trace" --policy "$policy" --conv "$conv" "${common[@]}" --placement "$placement" --out "$dir"
      row "area $conv, $policy, $placement" "$dir" "$(echo "$(date +%s.%N) - $start" | bc)"
    done
  done
done
for placement in first-fit topsis; do
  dir="$out/datacenter-$placement"
  start=$(date +%s.%N)
  "$bin" replay --datacenter examples/datacenter.yaml --placement "$placement" --quiet --force --no-jobs-csv --out "$dir"
  row "examples/datacenter.yaml, $placement" "$dir" "$(echo "$(date +%s.%N) - $start" | bc)"
done
