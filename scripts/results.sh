#!/usr/bin/env bash
# Regenerate the numbers and figures of docs/results.md: the thesis's grid
# (chapter 6, examples/thesis-grid.yaml: 432 cells x both predictors) on
# KTH-SP2, NASA-iPSC and the synthetic PIK-IPLEX-like month, each with its
# report (OUT/NAME/report/index.html, figures/*.png|svg, report.json).
#
#   scripts/results.sh [OUT_DIR]        (default: target/results)
#
# Environment: JOBS (worker threads, default: all cores), BIN (an interstice
# binary; default: build the release one), GRID (default:
# examples/thesis-grid.yaml), SUBGRID (options replacing the grid's for the
# synthetic month; default: 4 of the 16 slacks and the thesis's predictor, an
# eighth of the runs: the month's overloaded cells take 10-25 s each, and
# under admit-all neither the slack nor the predictor changes a decision;
# SUBGRID= runs it whole, for about an hour). On 2 cores KTH-SP2 takes about
# 10 minutes, NASA-iPSC about 30 (its 10-processor cells take a minute each).
# An interrupted run resumes where it stopped (the sweeps keep their finished
# cells); wall time and peak memory of each sweep go to OUT/timings.txt.
set -euo pipefail
cd "$(dirname "$0")/.."
OUT=${1:-target/results}
JOBS=${JOBS:-$(nproc)}
GRID=${GRID:-examples/thesis-grid.yaml}
if [[ -z "${BIN:-}" ]]; then
    cargo build --release -p interstice
    BIN=target/release/interstice
fi
DATA=../shared/data
mkdir -p "$OUT"
"$BIN" swf synth -o "$OUT/pik-like-month.swf"

SUBGRID=${SUBGRID---slack 1.25,2,5,15 --predictor thesis}

grid() { # name, workload, then options replacing the grid file's
    local name=$1 workload=$2
    shift 2
    local timed=()
    if [[ -x /usr/bin/time ]]; then
        timed=(/usr/bin/time -f "$name: %e s wall, %M KB peak resident memory (largest process)" -a -o "$OUT/timings.txt")
    fi
    "${timed[@]}" "$BIN" sweep "$workload" --grid "$GRID" "$@" --jobs "$JOBS" --out "$OUT/$name" 2>"$OUT/$name.log"
    "$BIN" report "$OUT/$name"
}

: >"$OUT/timings.txt"
grid kth "$DATA/KTH-SP2-1996-2.1-cln.swf.gz"
grid nasa "$DATA/NASA-iPSC-1993-3.1-cln.swf.gz"
# shellcheck disable=SC2086 # SUBGRID is a list of options
grid month "$OUT/pik-like-month.swf" $SUBGRID
cat "$OUT/timings.txt"
