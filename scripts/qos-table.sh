#!/usr/bin/env bash
# The service-class comparison of docs/qos.md: the three eviction policies
# at three sizes of the convergence area, on a shared trace, with evicted
# cloud jobs restarting from scratch (batch jobs) and resuming (checkpointed
# jobs). The seeds' classes (gold 100 %, silver 90 %, bronze 50 %) drawn
# equally; three tenants owning 50/30/20 % of the area and sending equal
# demand; a 1 s allocation time. Prints one Markdown table row per run:
# penalty (slot-hours), SLO fulfilment and mean Gini per class.
#
#   scripts/qos-table.sh [BIN] [TRACE] [OUT] [INTERVAL]
#
# BIN defaults to target/release/interstice, TRACE to KTH, OUT to a new
# temporary directory (each run's requests.csv, windows.csv, summary.json),
# INTERVAL (seconds between two cloud jobs) to 120.
set -euo pipefail
bin=${1:-target/release/interstice}
trace=${2:-../shared/data/KTH-SP2-1996-2.1-cln.swf.gz}
out=${3:-$(mktemp -d)}
mkdir -p "$out"
interval=${4:-120}
days=30
common=(--policy easy --until $((days * 86400)) --cloud-interval "$interval" --cloud-procs 1,2,4
        --cloud-runtime uniform:60:1800 --cloud-walltime 1800 --quiet --force)
echo "| on eviction | area | policy | penalty (slot-h) | gold A % (met %) | silver A % (met %) | bronze A % (met %) | gold Gini | silver Gini | bronze Gini | preemptions (for HPC) | s |"
echo "|---|---|---|---|---|---|---|---|---|---|---|---|"
for mode in restart resume; do
  for conv in 40 60 80; do
    qos="$out/$mode-$conv.yaml"
    cat >"$qos" <<YAML
on_preempt: $mode
allocation_time: 1
tenants:
  - { name: physics, share: $((conv * 5 / 10)) }
  - { name: biology, share: $((conv * 3 / 10)) }
  - { name: chemistry, share: $((conv * 2 / 10)) }
YAML
    for policy in priority qos-driven owner-share; do
      dir="$out/$mode-$conv-$policy"
      start=$(date +%s.%N)
      "$bin" replay "$trace" --conv "$conv" "${common[@]}" --eviction "$policy" --qos "$qos" --out "$dir"
      secs=$(echo "$(date +%s.%N) - $start" | bc)
      jq -r --arg mode "$mode" --arg conv "$conv" --arg policy "$policy" --arg secs "$secs" '
        def pct: if . == null then "–" else (. * 1000 | round / 10 | tostring) end;
        def g: if . == null then "–" else (. * 1000 | round / 1000 | tostring) end;
        def cls: "\(.availability.mean | pct) (\(.slo_fulfilment | pct))";
        (.classes | map({(.name): .}) | add) as $c
        | "| \($mode) | \($conv) | \($policy) | \(.qos.penalty | round) | \($c.gold | cls) | \($c.silver | cls) | \($c.bronze | cls) | \($c.gold.gini_mean | g) | \($c.silver.gini_mean | g) | \($c.bronze.gini_mean | g) | \(.qos.preemptions) (\(.qos.preemptions_for_capacity)) | \($secs | tonumber | . * 10 | round / 10) |"' \
        "$dir/summary.json"
    done
  done
done
