#!/usr/bin/env bash
# A real Slurm on loopback, run live on a slice of a real trace, twice: the
# same HPC submissions without and with a stream of evictable cloud jobs
# (issue 37; what it measures and a 30-minute run: docs/live.md).
#
#   scripts/slurm-live.sh --minutes N --out DIR [--nodes K] [--cpus C] [--trace FILE]
#       [--start 10d] [--compression X] [--cloud-interval S] [--cloud-procs 1,2,4]
#       [--cloud-walltime 180] [--cloud-runtime uniform:18:90] [--slack 2] [--seed 1]
#       [--drain-minutes M] [--bf-interval 1] [--sched-interval 1] [--kill-wait 2]
#       [--binaries DIR]
#   scripts/slurm-live.sh --minutes N --out DIR --analyse   # live.json and the figure again
#
# Each run starts its own cluster the way tests/slurm/harness.rs does (munged,
# slurmctld, K slurmd of C CPUs each in its own UTS namespace, intersticed in
# Slurm mode, both plugins as docs/admin.md configures them), submits the
# trace's HPC jobs with `sbatch -p hpc` (clipped to the cluster, times divided
# by X, limits rounded up to Slurm's minute) and, in the second run, the cloud
# stream with `sbatch --evictable --slo=…`, drains the queue (at most
# --drain-minutes, default max(5, N)), and keeps what Slurm and the daemon
# recorded in DIR/without and DIR/with. Then DIR/live.json (the keys of
# issue 37, seconds), DIR/sim (interstice replay of exactly those
# submissions), DIR/live-series.json and the figure DIR/live.svg, live.png
# (interstice report --live DIR).
#
# Needs root, the Slurm and munge packages (scripts/prerequisites.sh) and the
# workspace built (cargo build --workspace; --binaries names another build).
# Bad options exit 2 with the reason; a cluster that does not start exits 1
# with the daemon's log.
set -euo pipefail
exec python3 "$(dirname "$0")/live/main.py" "$@"
