#!/usr/bin/env python3
"""A count-based EASY backfilling replay of an SWF trace, the reference
`interstice bench easy` times the engine against (docs/performance.md).

    scripts/easy-reference.py TRACE PROCS [--starts FILE]

Processors are counts, not identities: with only running jobs in the plan,
EASY's decisions do not depend on which processors a job holds, so the start
times equal `interstice replay TRACE --procs PROCS --policy easy`'s. The
extraction follows `swf::extract` (a record without a submit time, a positive
run time or a processor count is skipped; the walltime is the requested time,
else the run time; a job runs min(run time, walltime)); a job wider than the
machine is an error, as in `replay` without `--clip`. Prints `jobs`, `seconds`
(the simulation alone, after parsing) and the mean wait; `--starts FILE`
writes `id,start` lines.
"""
import gzip
import heapq
import sys
import time


def read_jobs(path, procs):
    opener = gzip.open if path.endswith(".gz") else open
    jobs = []
    with opener(path, "rt") as lines:
        for line in lines:
            if line.startswith(";") or not line.strip():
                continue
            f = line.split()
            job, submit, run, alloc, req, reqtime = int(f[0]), float(f[1]), float(f[3]), int(f[4]), int(f[7]), float(f[8])
            if submit < 0 or run <= 0:
                continue
            width = alloc if alloc > 0 else req
            if width <= 0:
                continue
            if width > procs:
                sys.exit(f"{path}: job {job} asks for {width} processors, the machine has {procs}")
            walltime = reqtime if reqtime > 0 else run
            jobs.append((submit, job, width, walltime, min(run, walltime)))
    jobs.sort()
    return jobs


def easy(jobs, procs):
    """Start time of each job id under EASY."""
    free = procs
    running = []  # (planned end = start + walltime, width), for the shadow time
    ends = []  # (actual end, job index)
    queue = []  # job indices in queue order
    starts = {}
    arrivals = 0
    while arrivals < len(jobs) or ends:
        now = min(jobs[arrivals][0] if arrivals < len(jobs) else float("inf"), ends[0][0] if ends else float("inf"))
        while ends and ends[0][0] == now:
            _, index = heapq.heappop(ends)
            free += jobs[index][2]
            running.remove((starts[jobs[index][1]] + jobs[index][3], jobs[index][2]))
        while arrivals < len(jobs) and jobs[arrivals][0] == now:
            queue.append(arrivals)
            arrivals += 1

        def start(index):
            nonlocal free
            _, job, width, walltime, run = jobs[index]
            free -= width
            starts[job] = now
            running.append((now + walltime, width))
            heapq.heappush(ends, (now + run, index))

        while queue and jobs[queue[0]][2] <= free:
            start(queue.pop(0))
        if not queue or free == 0:
            continue
        head_width = jobs[queue[0]][2]
        available, shadow = free, None
        for end, width in sorted(running):
            if shadow is not None and end > shadow:
                break
            available += width
            if shadow is None and available >= head_width:
                shadow = end  # every job ending then frees its processors too
        extra = available - head_width
        kept = [queue[0]]
        for index in queue[1:]:
            _, _, width, walltime, _ = jobs[index]
            if free == 0 or width > free:
                kept.append(index)
                continue
            before = now + walltime <= shadow
            if not before and width > extra:
                kept.append(index)
                continue
            start(index)
            if not before:
                extra -= width
        queue = kept
    return starts


def main():
    args = sys.argv[1:]
    if len(args) not in (2, 4) or (len(args) == 4 and args[2] != "--starts"):
        sys.exit(__doc__)
    jobs = read_jobs(args[0], int(args[1]))
    begin = time.perf_counter()
    starts = easy(jobs, int(args[1]))
    seconds = time.perf_counter() - begin
    wait = sum(starts[job] - submit for submit, job, *_ in jobs) / max(len(jobs), 1)
    print(f"jobs {len(jobs)}\nseconds {seconds:.3f}\nmean_wait {wait:.3f}")
    if len(args) == 4:
        with open(args[3], "w") as out:
            out.writelines(f"{job},{starts[job]!r}\n" for _, job, *_ in jobs)


if __name__ == "__main__":
    main()
