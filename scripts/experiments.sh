#!/usr/bin/env bash
# Regenerate the numbers of docs/experiments.md: the thesis-style grids (chapter 6 of the
# thesis, SPEC §7) on the real traces we have, with `interstice sweep`.
#
#   scripts/experiments.sh [OUT_DIR]        (default: target/experiments)
#
# Environment: UNTIL (seconds of trace replayed, default 2592000 = the first 30 days, the
# thesis's one-month span), JOBS (worker threads, default: all cores), BIN (an interstice
# binary; default: build the release one).
set -euo pipefail
cd "$(dirname "$0")/.."
OUT=${1:-target/experiments}
UNTIL=${UNTIL:-2592000}
JOBS=${JOBS:-$(nproc)}
if [[ -z "${BIN:-}" ]]; then
    cargo build --release -p interstice
    BIN=target/release/interstice
fi
DATA=../shared/data
KTH=$DATA/KTH-SP2-1996-2.1-cln.swf.gz
NASA=$DATA/NASA-iPSC-1993-3.1-cln.swf.gz
mkdir -p "$OUT"

# The thesis's cloud jobs: one every 10 s, walltime 180 s, fixed h in {1, 2, 4} per experiment,
# slack f, HPC jobs wider than the area clipped to it (--clip). The run time is not given by
# the thesis, so it is a dimension: the walltime (Batsim kills the job at its walltime), half
# and a tenth of it, and uniform 1-18 s.
COMMON=(--cloud-interval 10 --cloud-walltime 180 --cloud-procs '1;2;4' --clip --until "$UNTIL" --jobs "$JOBS")
RUNTIMES='walltime;0.5w;0.1w;uniform:1:18'
SLACKS='1.25,1.5,2,3,5,10,15'

sweep() { # name, then sweep arguments
    local name=$1
    shift
    local start=$SECONDS
    "$BIN" sweep "$@" --force --out "$OUT/$name" 2>"$OUT/$name.log"
    echo "$name: $((SECONDS - start)) s" | tee -a "$OUT/timings.txt"
}

: >"$OUT/timings.txt"
for trace in kth nasa; do
    if [[ $trace == kth ]]; then
        file=$KTH procs=100 convs='10,20,40,80,100'
    else
        file=$NASA procs=128 convs='10,20,40,80,128'
    fi
    # 1. The main grid: convergence, admit-all (as in the thesis).
    sweep "$trace-grid" "$file" --procs $procs --policy convergence --conv "$convs" \
        --admission admit-all --slack "$SLACKS" --cloud-runtime "$RUNTIMES" "${COMMON[@]}"
    # 2. Reject-predicted admission at a few points.
    sweep "$trace-reject" "$file" --procs $procs --policy convergence --conv 10,40 \
        --admission admit-all,reject-predicted --slack 1.25,2,5 --cloud-runtime 'walltime;0.1w' "${COMMON[@]}"
    # 3. Conservative and EASY backfilling at a couple of points, for comparison.
    sweep "$trace-policies" "$file" --procs $procs --policy convergence,conservative,easy --conv 10,40 \
        --admission admit-all --slack 1.25,5 --cloud-runtime 'walltime;0.1w' "${COMMON[@]}"
done
python3 scripts/experiments_tables.py "$OUT" >"$OUT/tables.md"
echo "tables: $OUT/tables.md"
