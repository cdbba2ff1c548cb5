#!/usr/bin/env bash
# Run the reference replays with two `interstice` binaries and compare their
# outputs byte for byte: the check that an engine change keeps every decision.
#
#   scripts/compare-replays.sh OLD_BIN NEW_BIN [OUT_DIR]
#
# 48 replays: KTH-SP2 (100 processors) and NASA-iPSC (128) × fcfs, easy,
# conservative, convergence × {HPC only; cloud jobs in a 60-processor area;
# reject-predicted; shared-queue in a 50-processor area; the thesis's
# setting at --procs 10 --clip for 10 days and at --procs 40 --clip for 20
# days with 1/2/4-processor cloud jobs and resubmissions}. jobs.csv and
# summary.json must be identical. Takes about 3 minutes per binary on 2
# cores. Exit status 1 if any run differs or fails.
set -euo pipefail
shopt -s nullglob
old=${1:?usage: compare-replays.sh OLD_BIN NEW_BIN [OUT_DIR]}
new=${2:?usage: compare-replays.sh OLD_BIN NEW_BIN [OUT_DIR]}
out=${3:-$(mktemp -d)}
data="$(cd "$(dirname "$0")/../.." && pwd)/shared/data"

replays() {
  local bin=$1 dir=$2
  mkdir -p "$dir"
  run() {
    local name=$1
    shift
    "$bin" replay "$@" --out "$dir/$name" --force >/dev/null 2>"$dir/$name.err" ||
      { echo "failed: $bin replay $name (see $dir/$name.err)" >&2; touch "$dir/$name.failed"; }
  }
  for trace in KTH-SP2-1996-2.1-cln:100 NASA-iPSC-1993-3.1-cln:128; do
    local m=${trace#*:} t="$data/${trace%:*}.swf.gz" n=${trace%%-*}
    for p in fcfs easy conservative convergence; do
      run "$n-$p-hpc" "$t" --procs "$m" --policy $p &
      run "$n-$p-cloud" "$t" --procs "$m" --policy $p --conv 60 --cloud-interval 60 --cloud-procs 1,2,4 \
        --cloud-walltime 180 --cloud-runtime uniform:18:90 --slack 2 &
      wait
      run "$n-$p-reject" "$t" --procs "$m" --policy $p --cloud-interval 30 --cloud-procs 1,2,4 \
        --cloud-walltime 180 --cloud-runtime uniform:18:200 --slack 1.5 --admission reject-predicted &
      run "$n-$p-shared" "$t" --procs "$m" --policy $p --conv 50 --scheduling shared-queue --cloud-interval 60 \
        --cloud-procs 2 --cloud-walltime 180 --cloud-runtime 90 --slack 2 &
      wait
      run "$n-$p-clip10" "$t" --procs 10 --clip --policy $p --cloud-interval 10 --cloud-procs 2 \
        --cloud-walltime 180 --cloud-runtime 18 --slack 1.25 --until 864000 &
      run "$n-$p-clip40" "$t" --procs 40 --clip --policy $p --cloud-interval 10 --cloud-procs 1,2,4 \
        --cloud-walltime 180 --cloud-runtime uniform:18:180 --slack 1.25 --until 1728000 --max-resubmissions 2 &
      wait
    done
  done
}

# The keys NEW has beyond OLD (dotted paths), when every key of OLD has its
# value in NEW; exit status 1 otherwise.
added_keys() {
  python3 - "$1" "$2" <<'PY'
import json, sys
old, new = (json.load(open(path)) for path in sys.argv[1:3])
added = []
def same(a, b, path):
    if isinstance(a, dict) and isinstance(b, dict):
        added.extend(f"{path}{k}" for k in b if k not in a)
        return all(k in b and same(a[k], b[k], f"{path}{k}.") for k in a)
    return a == b
ok = same(old, new, "")
print(" ".join(added))
sys.exit(0 if ok and added else 1)
PY
}

status=0
replays "$old" "$out/old"
replays "$new" "$out/new"
if compgen -G "$out/*/*.failed" >/dev/null; then
  status=1
fi
runs=0
for dir in "$out"/old/*/; do
  name=$(basename "$dir")
  runs=$((runs + 1))
  if ! cmp -s "$dir/jobs.csv" "$out/new/$name/jobs.csv"; then
    echo "differs: $name/jobs.csv"
    status=1
  fi
  if ! cmp -s "$dir/summary.json" "$out/new/$name/summary.json"; then
    # A key the new binary adds (a new option echoed in `config`) is not a
    # decision: the summaries still agree if every old key has its old value.
    if added=$(added_keys "$dir/summary.json" "$out/new/$name/summary.json"); then
      echo "same values, keys added: $name/summary.json: $added"
    else
      echo "differs: $name/summary.json"
      status=1
    fi
  fi
done
echo "compared $runs replays in $out: $([ $status = 0 ] && echo identical || echo DIFFERENT)"
exit $status
