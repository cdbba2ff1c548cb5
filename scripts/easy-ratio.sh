#!/usr/bin/env bash
# EASY's speed against a count-based Python EASY (scripts/easy-reference.py)
# on the same trace, timed in the same run, and a check that both start every
# job at the same time (docs/performance.md, "EASY against a reference").
#
#   scripts/easy-ratio.sh TRACE PROCS [INTERSTICE_BIN]
#
# Prints METRIC lines: the replay's wall seconds (parse, simulate, write:
# `interstice replay TRACE --procs PROCS --policy easy`, best of 3), the
# reference's simulation seconds (after its parsing, best of 3) and their
# ratio. Exit status 1 if a start time differs.
set -euo pipefail
trace=${1:?usage: easy-ratio.sh TRACE PROCS [INTERSTICE_BIN]}
procs=${2:?usage: easy-ratio.sh TRACE PROCS [INTERSTICE_BIN]}
bin=${3:-target/release/interstice}
here=$(dirname "$0")
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT

best() { sort -g | head -1; }
ours=$(for _ in 1 2 3; do
  start=$(date +%s.%N)
  "$bin" replay "$trace" --procs "$procs" --policy easy --out "$out/replay" --force --quiet
  echo "$(date +%s.%N) - $start" | bc
done | best)
reference=$(for _ in 1 2 3; do
  python3 "$here/easy-reference.py" "$trace" "$procs" --starts "$out/reference.csv" | awk '/^seconds/ {print $2}'
done | best)
python3 - "$out/replay/jobs.csv" "$out/reference.csv" <<'PY'
import csv, sys
ours = {row["job_id"]: float(row["starting_time"]) for row in csv.DictReader(open(sys.argv[1]))}
theirs = dict(line.strip().split(",") for line in open(sys.argv[2]))
differ = [job for job, start in theirs.items() if abs(ours.get(job, -1) - float(start)) > 1e-6]
print(f"METRIC easy_reference_jobs={len(theirs)}")
print(f"METRIC easy_reference_start_differences={len(differ)}")
if differ:
    sys.exit(f"{len(differ)} jobs start at other times, e.g. job {differ[0]}: {ours.get(differ[0])} vs {theirs[differ[0]]}")
PY
echo "METRIC easy_replay_seconds=$ours"
echo "METRIC easy_reference_seconds=$reference"
echo "METRIC easy_ratio=$(echo "scale=3; $ours / $reference" | bc)"
