#!/usr/bin/env bash
# Regenerate the numbers and figures of docs/results.md: the thesis's grid
# (chapter 6) under CArS (examples/thesis-grid.yaml: 432 cells per cloud run
# time, both predictors) and under Algorithm 3 (examples/algorithm3-grid.yaml:
# 432 cells, both predictors) on KTH-SP2, NASA-iPSC and the synthetic
# PIK-IPLEX-like month, each with its report (OUT/NAME/report/index.html,
# figures/*.png|svg, report.json); scripts/results-tables.py OUT prints the
# page's tables. Every workload gets CArS's whole grid at 0.1 w; KTH-SP2 also
# Algorithm 3's whole grid, CArS's longer run times on SUBGRID's slacks and
# CArS without the depth bound at m_conv 160 and 320; NASA-iPSC and the month
# Algorithm 3's whole grid too. About 75 minutes on 2 cores.
#
#   scripts/results.sh [OUT_DIR]        (default: target/results)
#
# Environment: JOBS (worker threads, default: all cores), BIN (an interstice
# binary; default: build the release one), GRID (default:
# examples/thesis-grid.yaml), ALGORITHM3 (default:
# examples/algorithm3-grid.yaml), SUBGRID (options replacing the grids' for
# KTH-SP2's longer run times under CArS; default: 4 of
# the 16 slacks, a quarter of the cells: overloaded cells cost the most, and
# under admit-all the slack changes no decision; SUBGRID= runs them whole), ONLY (a space-separated
# list of the sweeps to run, e.g. "kth-cars kth-algorithm3"; default: all eight).
# OUT/timings.txt gets each sweep's wall time and peak memory; the costs
# measured on 2 cores are in docs/results.md ("What the grids cost"). An
# interrupted run resumes where it stopped (the sweeps keep their finished
# cells).
set -euo pipefail
cd "$(dirname "$0")/.."
OUT=${1:-target/results}
JOBS=${JOBS:-$(nproc)}
GRID=${GRID:-examples/thesis-grid.yaml}
ALGORITHM3=${ALGORITHM3:-examples/algorithm3-grid.yaml}
ONLY=${ONLY:-kth-cars kth-cars-runtimes kth-cars-unbounded kth-algorithm3 nasa-cars nasa-algorithm3 month-cars month-algorithm3}
if [[ -z "${BIN:-}" ]]; then
    cargo build --release -p interstice
    BIN=target/release/interstice
fi
DATA=../shared/data
mkdir -p "$OUT"
"$BIN" swf synth -o "$OUT/pik-like-month.swf"

SUBGRID=${SUBGRID---slack 1.25,2,5,15}

grid() { # name, workload, grid file, then options replacing the grid file's
    local name=$1 workload=$2 file=$3
    shift 3
    [[ " $ONLY " == *" $name "* ]] || return 0
    local timed=()
    if [[ -x /usr/bin/time ]]; then
        timed=(/usr/bin/time -f "$name: %e s wall, %M KB peak resident memory (largest process)" -a -o "$OUT/timings.txt")
    fi
    "${timed[@]}" "$BIN" sweep "$workload" --grid "$file" "$@" --jobs "$JOBS" --out "$OUT/$name" 2>"$OUT/$name.log"
    "$BIN" report "$OUT/$name"
}

touch "$OUT/timings.txt"
KTH=$DATA/KTH-SP2-1996-2.1-cln.swf.gz
NASA=$DATA/NASA-iPSC-1993-3.1-cln.swf.gz
# CArS on KTH-SP2: the 432 cells at 0.1 w (the thesis's grid), then the
# longer cloud run times on 4 slacks.
grid kth-cars "$KTH" "$GRID" --cloud-runtime 0.1w
# shellcheck disable=SC2086 # SUBGRID is a list of options
grid kth-cars-runtimes "$KTH" "$GRID" --cloud-runtime '0.5w;1w' $SUBGRID
# CArS without the depth bound where it finishes: the prediction under CArS itself.
grid kth-cars-unbounded "$KTH" "$GRID" --cloud-runtime 0.1w --machine 160,320 --reservation-depth unlimited
grid kth-algorithm3 "$KTH" "$ALGORITHM3"
grid nasa-cars "$NASA" "$GRID" --cloud-runtime 0.1w
grid nasa-algorithm3 "$NASA" "$ALGORITHM3"
grid month-cars "$OUT/pik-like-month.swf" "$GRID" --cloud-runtime 0.1w
grid month-algorithm3 "$OUT/pik-like-month.swf" "$ALGORITHM3"
cat "$OUT/timings.txt"
