#!/usr/bin/env bash
# Seed 003's four experiments with the container scheduler (docs/placement.md,
# "Seed 003's container scheduler"), one command each, results under OUT.
# Each takes under 5 minutes on 2 cores with the release build:
#   cargo build --release -p interstice
#   scripts/mcdm-experiments.sh target/release/interstice out/mcdm
set -euo pipefail
BIN=${1:?usage: $0 INTERSTICE_BINARY OUT_DIR}
OUT=${2:?usage: $0 INTERSTICE_BINARY OUT_DIR}
mkdir -p "$OUT"

# (1) Scalability (§4.1, Figs. 16-18): AHP and TOPSIS placing one request of
# N small containers on fat-trees up to the seed's k = 46.
"$BIN" bench placement --fat-tree-k 4,8,16,24,32,40,46 --containers 1,16,256,4096,65536 --budget 20 \
    | tee "$OUT/scalability.txt"

# (2) Quality (§4.2.1, Table 8): Flat against Clustering weights on k = 20,
# a light set (Set 1) and a loaded one (Set 2); Set 1 on k = 44.
"$BIN" mcdm run --fat-tree 20 --generate quality1 --count 20000 --span 3600 \
    --rank ahp,topsis --profile flat,clustering --out "$OUT/quality1" --force
"$BIN" mcdm run --fat-tree 20 --generate quality2 --count 40000 --span 3600 --resubmit 60 \
    --rank ahp,topsis --profile flat,clustering --out "$OUT/quality2" --force
"$BIN" mcdm run --fat-tree 44 --generate quality1 --count 20000 --span 3600 \
    --rank ahp,topsis --profile flat,clustering --out "$OUT/quality1-k44" --force

# (3) Network (§4.2.2, Table 10): BF, WF, AHP, TOPSIS under Table 7's profiles,
# k = 20, 1 Gbps links, 6,000 requests of 4 containers, up to 50 Mbps per pair.
"$BIN" mcdm run --fat-tree 20 --generate network --count 6000 --span 100 \
    --rank bf,wf,ahp,topsis --profile flat,clustering,network --out "$OUT/network" --force

# (4) Resubmission (§5.2-5.3, Tables 13-14): AHP with and without resubmission
# under Table 6's seven queue orders, k = 12, Table 11's containers.
"$BIN" mcdm run --fat-tree 12 --generate temporal --count 20000 --span 600 --rank ahp \
    --queue fcfs,spf,sqf-min,sqf-max,saf-min,saf-max,sdaf --resubmit none,1 --out "$OUT/resubmission" --force
