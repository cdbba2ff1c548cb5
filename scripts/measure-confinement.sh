#!/bin/bash
# Confinement measured on a quiet machine (issue 42): a root intersticed with
# 2 processors; an "HPC" busy loop pinned to CPU 0, timed (wall seconds) five
# times each: alone; beside two busy loops pinned to CPU 1 by hand (what the
# VM itself costs); beside a cloud job granted 1 processor running the same
# two loops (the daemon's confinement); beside the two loops unconfined
# (before issue 42). Then the job's Cpus_allowed_list, a memory kill and a
# fork bomb. Run as root on a quiet machine (no build, no CI beside it):
#   sudo scripts/measure-confinement.sh target/debug/intersticed
set -u
bin=${1:?intersticed}
dir=$(mktemp -d /tmp/confine.XXXX); chmod 755 "$dir"
cat > "$dir/d.yaml" <<YAML
api: {socket: $dir/d.sock}
state_dir: $dir/state
engine: {procs: 2, policy: conservative}
backend: {type: plugin}
execution: {grace_seconds: 1, user: nobody}
node: {busy_margin_cpus: 1000}
YAML
"$bin" --config "$dir/d.yaml" 2> "$dir/log" & daemon=$!
trap 'kill $daemon; wait $daemon 2>/dev/null' EXIT
for _ in $(seq 50); do [ -S "$dir/d.sock" ] && break; sleep 0.1; done
printf 'i=0; while [ $i -lt 2000000 ]; do i=$((i+1)); done\n' > "$dir/hpc.sh"
api() { curl -s --unix-socket "$dir/d.sock" "$@"; }
submit() { api -X POST -H 'Content-Type: application/json' --data-binary "$1" http://x/v1/jobs | python3 -c 'import json,sys; print(json.load(sys.stdin)["id"])'; }
field() { api "http://x/v1/jobs/$1" | python3 -c "import json,sys; print(json.load(sys.stdin).get('$2'))"; }
t() { /usr/bin/time -f "%e" taskset -c 0 sh "$dir/hpc.sh" 2>&1 | tail -1; }
median() { sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
loops='{"procs":1,"walltime":600,"slo":1200,"argv":["/bin/sh","-c","while :; do :; done & while :; do :; done"]}'
grep -m1 'confined' "$dir/log"
alone=$(for _ in 1 2 3 4 5; do t; done | median)
taskset -c 1 sh -c 'while :; do :; done' & a=$!; taskset -c 1 sh -c 'while :; do :; done' & b=$!
by_hand=$(for _ in 1 2 3 4 5; do t; done | median); kill $a $b; wait $a $b 2>/dev/null
id=$(submit "$loops"); sleep 1
echo "cloud job $id: cpus $(field "$id" cpus)"
for p in $(pgrep -u nobody -f 'while :'); do echo "  pid $p Cpus_allowed_list $(awk '/Cpus_allowed_list/{print $2}' /proc/$p/status)"; done
confined=$(for _ in 1 2 3 4 5; do t; done | median)
api -X DELETE "http://x/v1/jobs/$id" > /dev/null; sleep 2
sh -c 'while :; do :; done' & a=$!; sh -c 'while :; do :; done' & b=$!
unconfined=$(for _ in 1 2 3 4 5; do t; done | median); kill $a $b; wait $a $b 2>/dev/null
echo "HPC loop on CPU 0, median wall s of 5: alone $alone | loops pinned to CPU 1 by hand $by_hand | confined cloud job $confined | unconfined loops $unconfined"
python3 -c "a,h,c,u=$alone,$by_hand,$confined,$unconfined; print(f'slowdown vs alone: by hand {h/a-1:+.1%}, confined {c/a-1:+.1%}, unconfined {u/a-1:+.1%}; confined vs by hand {c/h-1:+.1%}')"
id=$(submit '{"procs":1,"walltime":60,"slo":600,"memory_mb":100,"argv":["/bin/sh","-c","head -c 1000000000 /dev/zero | tail -n 1"]}')
sleep 4; echo "memory hog (memory_mb 100): state $(field "$id" state), end_reason $(field "$id" end_reason), memory_limit_bytes $(field "$id" memory_limit_bytes)"
id=$(submit '{"procs":1,"walltime":60,"slo":600,"argv":["/bin/sh","-c","i=0; while [ $i -lt 1500 ]; do sleep 30 & i=$((i+1)); done; wait"]}')
sleep 5; echo "fork bomb (1,500 sleeps): pids_limit $(field "$id" pids_limit), sleeps alive $(pgrep -u nobody -x sleep | wc -l), state $(field "$id" state)"
api -X DELETE "http://x/v1/jobs/$id" > /dev/null; sleep 2
echo "after cancel: sleeps alive $(pgrep -u nobody -x sleep | wc -l)"
api http://x/healthz; echo
