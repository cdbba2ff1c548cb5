//! Algorithm 3 of the thesis (§5.3.2) as written: where one job goes, in
//! three stages, on the plan of a scheduling cycle.
//!
//! * Stage 1, backfilling on the time left idle now (`V^1`, `P^1`): the
//!   processors idle now, each with its idle time `v_z` (until its next
//!   planned work), sorted `v_1 ≥ … ≥ v_y`. The job fits when `h ≤ y`,
//!   `h·wt ≤ Σ v_z` and `h` of them have `v_z ≥ wt`; it starts now on the
//!   first `h` with `v_z ≥ wt` in that order.
//! * Stage 2, backfilling between planned jobs (`V^2`, `P^2`): processors
//!   are scanned in index order for a *root*, a hole between two planned
//!   jobs strictly longer than `wt`; `σ_root` is the hole's start (now, if
//!   the hole is open now). The root's processor takes the processors after
//!   it in index order that are idle over `[σ_root, σ_root + wt)`. The first
//!   root that gathers `h` processors wins.
//! * Stage 3, after the last planned jobs (`V^3`, `P^3`): processors ordered
//!   by the end of their last planned job (`D`, earliest first). A
//!   processor's candidate start is that end, or, when a maintenance window
//!   `J_o` follows too soon to hold `wt`, the end of the window. Roots are
//!   tried in `D` order; a root at `σ_root` takes the processors before and
//!   after it in `D` that have ended their last job by `σ_root` and are idle
//!   over `[σ_root, σ_root + wt)`. Stage 3 always places the job.
//!
//! Departures from the text, each forced by it:
//! * The printed condition of `P^3` (`σ_root < σ_f + wt_f` for the later
//!   processors of `D`) admits processors still busy at `σ_root`; turned
//!   around, only ties, since `D` is sorted by that end. Members are the
//!   processors, before or after the root in `D`, whose last job has ended
//!   by `σ_root`, which is what stage 3 describes ("after the last jobs").
//! * Time is continuous (ticks): the thesis's `+1`/`−1` on discrete seconds
//!   (`σ_a + wt_a + 1`, `σ_{q,x} − ζ − 1`) become half-open intervals.
//! * A processor with nothing planned after `σ_root` may join a stage-2 root
//!   (the text only names holes between two jobs of `Q_g`).

use crate::bits::Bits;
use crate::plan::{FreeRuns, Mask, Profile};
use crate::time::Time;

/// What Algorithm 3 is asked about a job: `k` processors of `mask` (the
/// set `bits`) for `wt`, on `plan` as it stands at `now`.
#[derive(Clone, Copy)]
pub(crate) struct Ask<'a> {
    /// The plan the job is placed on.
    pub(crate) plan: &'a Profile,
    /// Which processors it may take.
    pub(crate) mask: Mask,
    /// Those processors as a set.
    pub(crate) bits: &'a Bits,
    /// How many it takes (`h`).
    pub(crate) k: u32,
    /// For how long (its walltime).
    pub(crate) wt: Time,
    /// When it is asked.
    pub(crate) now: Time,
}

/// Where Algorithm 3 places the job `ask`: its start and processors.
/// `maintenance(p, s, e)` says whether processor `p`'s busy time `[s, e)` is
/// all maintenance (`J_o`), which stage 3 looks past. `None` only if `k`
/// exceeds the mask.
///
/// Stages 2 and 3 read each processor's free runs from the profile's index
/// ([`FreeRuns`]): stage 2 only the holes longer than `wt`, stage 3 each
/// processor's last runs. Neither sweeps the plan, whose length grows with
/// the backlog.
pub(crate) fn place(ask: Ask, maintenance: impl Fn(u32, Time, Time) -> bool) -> Option<(Time, Bits)> {
    place_by_stages(ask, || {
        let runs = ask.plan.free_runs_by_length();
        stage_between(ask, &runs).or_else(|| stage_after(ask, &runs, &maintenance))
    })
}

/// Algorithm 3 around its stages 2 and 3 (`between_and_after`): stage 1
/// first, then those, then the earliest fit when maintenance windows leave
/// no root with `h` processors among the candidate starts (the lowest ids).
fn place_by_stages(
    ask: Ask,
    between_and_after: impl FnOnce() -> Option<(Time, Vec<u32>)>,
) -> Option<(Time, Bits)> {
    let (plan, mask, mask_bits, k, wt, now) = (ask.plan, ask.mask, ask.bits, ask.k, ask.wt, ask.now);
    if k == 0 || k > mask_bits.count() {
        return None;
    }
    if let Some(ids) = stage_immediate(plan, mask_bits, k, wt, now) {
        return Some((now, ids));
    }
    let mut chosen = mask_bits.empty_like();
    if let Some((s, ids)) = between_and_after() {
        ids.into_iter().for_each(|p| chosen.set(p));
        return Some((s, chosen));
    }
    let (s, idle) = plan.earliest_fit(k, wt, now, mask)?;
    chosen.take_lowest(&idle.and(mask_bits), k);
    Some((s, chosen))
}

/// Stage 1: `V^1` and `P^1` over the processors idle now.
///
/// The job fits when `h` of the processors idle now stay idle for `wt`
/// (then `h·wt ≤ Σ v_z` holds too), and takes the `h` that stay idle
/// longest (`v_1 ≥ … ≥ v_y`, ties to the lowest ids). So the plan is swept
/// from now only until at most `h` of them are still idle and `wt` has
/// passed: those are taken, and the rest from the ones that stopped being
/// idle last (lowest ids first). `O(B·W)` for the `B` breakpoints swept,
/// not the whole plan.
fn stage_immediate(plan: &Profile, mask: &Bits, k: u32, wt: Time, now: Time) -> Option<Bits> {
    let mut segs = plan.segments_from(now);
    let (_, first) = segs.next()?;
    // Idle since now and still idle.
    let mut idle = first.and(mask);
    if idle.count() < k {
        return None;
    }
    let mut next = idle.empty_like();
    for (t, free) in segs {
        next.assign_and(&idle, free);
        let left = next.count();
        if left >= k {
            std::mem::swap(&mut idle, &mut next);
            // Exactly `h` left, idle past `t` and for `wt` at least: them.
            if left == k && t.saturating_sub(now) >= wt {
                break;
            }
            continue;
        }
        // Fewer than `h` stay idle past `t`: those that stopped at `t` were
        // idle for `t − now`, which must hold the job.
        if t.saturating_sub(now) < wt {
            return None;
        }
        let stopped = idle.andnot(&next);
        next.take_lowest(&stopped, k - left);
        return Some(next);
    }
    // At least `h` idle until the end of the plan (or exactly `h` left):
    // the lowest ids among them, all idle at least as long as the others.
    let mut chosen = idle.empty_like();
    chosen.take_lowest(&idle, k);
    Some(chosen)
}

/// Stage 2: roots in processor order, holes strictly longer than `wt`
/// (each root's holes in time order; the first that gathers `h` wins).
///
/// The holes come in no order from the index, so the winner is the least
/// `(root, start)` that gathers `h`: a hole after the best found so far is
/// not tried, and nothing is sorted. In an overloaded plan almost every hole
/// fails, for every job of the same shape: a root that failed is remembered
/// (until a processor is freed over its window) and not tried again.
fn stage_between(ask: Ask, runs: &FreeRuns) -> Option<(Time, Vec<u32>)> {
    let (plan, mask, mask_bits, k, wt, now) = (ask.plan, ask.mask, ask.bits, ask.k, ask.wt, ask.now);
    let gather = |root: u32, start: Time| -> Option<Vec<u32>> {
        let mut ids = vec![root];
        if k > 1 {
            let members = plan.free_over(start, start.saturating_add(wt)).and(mask_bits);
            ids.extend(members.iter().filter(|&p| p > root).take(k as usize - 1));
        }
        (ids.len() == k as usize).then_some(ids)
    };
    let mut memory = runs.failed_roots();
    let failed = memory.of((k, wt, mask));
    let mut best: Option<(u32, Time, Vec<u32>)> = None;
    for (root, start) in runs.holes_longer_than(wt, now) {
        if !mask_bits.get(root)
            || best.as_ref().is_some_and(|b| (root, start) >= (b.0, b.1))
            || failed.contains(&(start, root))
        {
            continue;
        }
        match gather(root, start) {
            Some(ids) => best = Some((root, start, ids)),
            None => {
                failed.insert((start, root));
            }
        }
    }
    best.map(|(_, start, ids)| (start, ids))
}

/// Stage 3: after the last planned jobs, processors by earliest end.
fn stage_after(
    ask: Ask,
    runs: &FreeRuns,
    maintenance: &impl Fn(u32, Time, Time) -> bool,
) -> Option<(Time, Vec<u32>)> {
    let (plan, mask, k, wt, now) = (ask.plan, ask.bits, ask.k, ask.wt, ask.now);
    // D: (end of the last planned job, candidate start, processor).
    let mut d: Vec<(Time, Time, u32)> = mask
        .iter()
        .filter_map(|p| {
            let last = last_job_end(runs, p, now, maintenance)?;
            // V^3: the end of the last job, or past the maintenance window
            // that leaves too little room before it.
            let start = after(runs, p, last).find(|&(s, e)| s.saturating_add(wt) <= e)?.0;
            Some((last, start, p))
        })
        .collect();
    d.sort();
    root_after_last(plan, &d, k, wt)
}

/// Stage 3's roots over `D` (sorted: end of the last planned job, candidate
/// start, processor): the first root at whose start `h` processors of `D`,
/// their last job ended, are idle for `wt`.
fn root_after_last(plan: &Profile, d: &[(Time, Time, u32)], k: u32, wt: Time) -> Option<(Time, Vec<u32>)> {
    for &(_, root_start, root) in d {
        let idle = plan.free_over(root_start, root_start.saturating_add(wt));
        let mut ids = vec![root];
        for &(last, _, p) in d {
            if ids.len() == k as usize {
                break;
            }
            if p != root && last <= root_start && idle.get(p) {
                ids.push(p);
            }
        }
        if ids.len() == k as usize {
            return Some((root_start, ids));
        }
    }
    None
}

/// Processor `p`'s idle runs from `last` on (the first cut to start there).
fn after(runs: &FreeRuns, p: u32, last: Time) -> impl Iterator<Item = (Time, Time)> + '_ {
    runs.from(p, last).map(move |run| (run.0.max(last), run.1))
}

/// The end of processor `p`'s last planned job at or after `now` (now if it
/// has none), looking past the busy time that is all maintenance. `None`
/// when `p` is never idle again.
fn last_job_end(
    runs: &FreeRuns,
    p: u32,
    now: Time,
    maintenance: &impl Fn(u32, Time, Time) -> bool,
) -> Option<Time> {
    let mut latest_first = runs.from(p, now).rev();
    let (mut end, last_end) = latest_first.next()?;
    if !last_end.is_infinite() {
        // Busy forever after: never idle again (cannot happen with finite work).
        return None;
    }
    // The busy time between two runs, latest first.
    for (earlier_start, busy_start) in latest_first {
        if !maintenance(p, busy_start, end) {
            break;
        }
        end = earlier_start;
    }
    Some(end.max(now))
}

/// `F^γ` over the `W_future` Algorithm 3 publishes (lines 17–18; §5.3.2,
/// "estágio de contribuição"): the stage-1 slots (each processor idle now,
/// until its next planned work) and, per processor, the time after its last
/// planned job (`D`, between maintenance windows). Holes between planned
/// jobs are not in it. The earliest `t0 > now` at which `k` processors of
/// the asked set are idle over `[t0, t0 + wt)` within those slots, with
/// `t0 + wt ≤ deadline`.
pub(crate) fn published_future_fit(
    ask: Ask,
    deadline: Time,
    maintenance: impl Fn(u32, Time, Time) -> bool,
) -> Option<Time> {
    let (plan, mask_bits, k, wt, now) = (ask.plan, ask.bits, ask.k, ask.wt, ask.now);
    let runs = plan.free_runs();
    // Every processor's published slots, one list. They are disjoint per
    // processor once the slot after its last job, when that is the run
    // idle now cut at `last`, is left to the run it is part of; so a span is
    // held by as many processors as slots.
    let mut slots: Vec<(Time, Time)> = Vec::new();
    for p in mask_bits.iter() {
        let idle_now = runs.from(p, now).next().filter(|run| run.0 <= now);
        slots.extend(idle_now);
        if let Some(last) = last_job_end(&runs, p, now, &maintenance) {
            let within = move |run: (Time, Time)| idle_now.is_some_and(|(s, e)| s <= run.0 && run.1 <= e);
            slots.extend(after(&runs, p, last).filter(|&run| !within(run)));
        }
    }
    earliest_published_start(&slots, k, wt, now, deadline)
}

/// The earliest `t0 > now` among the slots' starts at which `k` of the
/// slots (each processor's published slots, disjoint per processor) hold
/// `[t0, t0 + wt)`, with `t0 + wt ≤ deadline`.
fn earliest_published_start(
    slots: &[(Time, Time)],
    k: u32,
    wt: Time,
    now: Time,
    deadline: Time,
) -> Option<Time> {
    let mut starts: Vec<Time> = slots.iter().map(|s| s.0).filter(|&s| s > now).collect();
    starts.sort_unstable();
    starts.dedup();
    starts
        .into_iter()
        .take_while(|&t0| t0.saturating_add(wt) <= deadline)
        .find(|&t0| {
            let end = t0.saturating_add(wt);
            let holding = slots.iter().filter(|&&(s, e)| s <= t0 && end <= e).count();
            holding >= k as usize
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn t(s: i64) -> Time {
        Time::from_secs(s)
    }

    /// A processor's idle runs from now on, in time order (`end` may be
    /// [`Time::INFINITY`]; the first may have started before now).
    struct Runs {
        proc: u32,
        runs: Vec<(Time, Time)>,
    }

    impl Runs {
        fn after(&self, last: Time) -> impl Iterator<Item = (Time, Time)> + '_ {
            self.runs
                .iter()
                .filter(move |run| run.1 > last)
                .map(move |run| (run.0.max(last), run.1))
        }
    }

    /// The idle runs of every processor of `mask` from `now` on, from one
    /// sweep of the plan: what stages 2 and 3 read before the index.
    fn idle_runs(plan: &Profile, mask: &Bits, now: Time) -> Vec<Runs> {
        let procs: Vec<u32> = mask.iter().collect();
        let mut slot_of = vec![usize::MAX; procs.last().map_or(0, |&p| p as usize + 1)];
        let mut out: Vec<Runs> = procs
            .iter()
            .enumerate()
            .map(|(i, &p)| {
                slot_of[p as usize] = i;
                Runs {
                    proc: p,
                    runs: Vec::new(),
                }
            })
            .collect();
        let mut open: Vec<Option<Time>> = vec![None; procs.len()];
        let (mut prev, mut free) = (mask.empty_like(), mask.empty_like());
        for (t, seg) in plan.segments_from(now) {
            free.assign_and(seg, mask);
            free.for_each_change(&prev, |p, joined| {
                let i = slot_of[p as usize];
                if joined {
                    open[i] = Some(t);
                } else if let Some(s) = open[i].take() {
                    out[i].runs.push((s, t));
                }
            });
            std::mem::swap(&mut prev, &mut free);
        }
        for (i, start) in open.into_iter().enumerate() {
            if let Some(s) = start {
                out[i].runs.push((s, Time::INFINITY));
            }
        }
        out
    }

    /// Stages 2 and 3 and the published fit on runs swept from the plan at
    /// every call: the reference the index must agree with.
    mod swept {
        use super::*;

        pub(super) fn place(ask: Ask, maintenance: impl Fn(u32, Time, Time) -> bool) -> Option<(Time, Bits)> {
            place_by_stages(ask, || {
                let runs = idle_runs(ask.plan, ask.bits, ask.now);
                between(ask, &runs).or_else(|| after_last(ask, &runs, &maintenance))
            })
        }

        fn between(ask: Ask, runs: &[Runs]) -> Option<(Time, Vec<u32>)> {
            let (plan, mask, k, wt, now) = (ask.plan, ask.bits, ask.k, ask.wt, ask.now);
            for root in runs {
                for &(s, e) in &root.runs {
                    if e.is_infinite() {
                        continue;
                    }
                    let start = s.max(now);
                    if e - start <= wt {
                        continue;
                    }
                    let members = plan.free_over(start, start.saturating_add(wt)).and(mask);
                    let mut ids = vec![root.proc];
                    ids.extend(members.iter().filter(|&p| p > root.proc).take(k as usize - 1));
                    if ids.len() == k as usize {
                        return Some((start, ids));
                    }
                }
            }
            None
        }

        fn after_last(
            ask: Ask,
            runs: &[Runs],
            maintenance: &impl Fn(u32, Time, Time) -> bool,
        ) -> Option<(Time, Vec<u32>)> {
            let (plan, k, wt, now) = (ask.plan, ask.k, ask.wt, ask.now);
            let mut d: Vec<(Time, Time, u32)> = runs
                .iter()
                .filter_map(|r| {
                    let last = last_end(r, now, maintenance)?;
                    let start = r.after(last).find(|&(s, e)| s.saturating_add(wt) <= e)?.0;
                    Some((last, start, r.proc))
                })
                .collect();
            d.sort();
            root_after_last(plan, &d, k, wt)
        }

        fn last_end(r: &Runs, now: Time, maintenance: &impl Fn(u32, Time, Time) -> bool) -> Option<Time> {
            let last = r.runs.last()?;
            if !last.1.is_infinite() {
                return None;
            }
            let mut end = last.0;
            for pair in r.runs.windows(2).rev() {
                let (busy_start, busy_end) = (pair[0].1, pair[1].0);
                if busy_end != end || !maintenance(r.proc, busy_start, busy_end) {
                    break;
                }
                end = pair[0].0;
            }
            Some(end.max(now))
        }

        pub(super) fn published_future_fit(
            ask: Ask,
            deadline: Time,
            maintenance: impl Fn(u32, Time, Time) -> bool,
        ) -> Option<Time> {
            let (plan, mask_bits, k, wt, now) = (ask.plan, ask.bits, ask.k, ask.wt, ask.now);
            let runs = idle_runs(plan, mask_bits, now);
            // Per processor, its slots; one inside another is the same
            // idle time, counted once.
            let mut slots: Vec<(Time, Time)> = Vec::new();
            for r in &runs {
                let mut own: Vec<(Time, Time)> = r
                    .runs
                    .first()
                    .filter(|run| run.0 <= now)
                    .copied()
                    .into_iter()
                    .collect();
                if let Some(last) = last_end(r, now, &maintenance) {
                    own.extend(r.after(last));
                }
                own.sort_unstable();
                own.dedup();
                let inside =
                    |&(s, e): &(Time, Time)| own.iter().any(|&o| o != (s, e) && o.0 <= s && e <= o.1);
                slots.extend(own.iter().copied().filter(|slot| !inside(slot)));
            }
            earliest_published_start(&slots, k, wt, now, deadline)
        }
    }

    /// Stage 1 as the thesis states it, on every processor's idle runs:
    /// `h ≤ y`, `h·wt ≤ Σ v_z`, then the first `h` with `v_z ≥ wt` in
    /// `v_1 ≥ … ≥ v_y` order (ties to the lowest ids).
    fn stage_immediate_as_written(plan: &Profile, mask: &Bits, k: u32, wt: Time, now: Time) -> Option<Bits> {
        let runs = idle_runs(plan, mask, now);
        let mut idle: Vec<(Time, u32)> = runs
            .iter()
            .filter_map(|r| {
                r.runs
                    .first()
                    .filter(|run| run.0 <= now)
                    .map(|run| (run.1, r.proc))
            })
            .map(|(until, p)| (until.saturating_sub(now), p))
            .collect();
        let total: i128 = idle.iter().map(|(v, _)| v.ticks() as i128).sum();
        if (idle.len() as u64) < k as u64 || (k as i128) * (wt.ticks() as i128) > total {
            return None;
        }
        idle.sort_by(|a, b| b.0.cmp(&a.0).then(a.1.cmp(&b.1)));
        let chosen: Vec<u32> = idle
            .iter()
            .take_while(|(v, _)| *v >= wt)
            .take(k as usize)
            .map(|&(_, p)| p)
            .collect();
        (chosen.len() == k as usize).then(|| {
            let mut b = mask.empty_like();
            chosen.iter().for_each(|&p| b.set(p));
            b
        })
    }

    /// Stage 2 roots on a hole strictly longer than `wt`: processor 0's
    /// hole of exactly `wt` is passed over for processor 1's longer one,
    /// which is found from the index however it was built.
    #[test]
    fn a_hole_of_exactly_wt_is_no_root() {
        let width = 2;
        let all = Bits::range(width, 0, width);
        for built_first in [false, true] {
            let mut plan = Profile::new(width, all.clone());
            if built_first {
                drop(plan.free_runs());
            }
            // Processor 0: busy [0, 10), idle [10, 20), busy [20, 40).
            // Processor 1: busy [0, 12), idle [12, 23), busy [23, 40).
            let (p0, p1) = (Bits::range(width, 0, 1), Bits::range(width, 1, 2));
            plan.reserve(&p0, t(0), t(10));
            plan.reserve(&p0, t(20), t(40));
            plan.reserve(&p1, t(0), t(12));
            plan.reserve(&p1, t(23), t(40));
            let ask = Ask {
                plan: &plan,
                mask: Mask::All,
                bits: &all,
                k: 1,
                wt: t(10),
                now: t(0),
            };
            let placed = place(ask, |_, _, _| false);
            assert_eq!(
                placed,
                Some((t(12), p1.clone())),
                "index built first: {built_first}"
            );
            assert_eq!(placed, swept::place(ask, |_, _, _| false));
        }
    }

    proptest::proptest! {
        /// The early-stopping sweep chooses what stage 1 as written chooses.
        #[test]
        fn stage_one_sweeps_only_as_far_as_it_must(
            work in proptest::collection::vec((0u32..8, 1u32..4, 0i64..60, 1i64..40), 0..20),
            k in 1u32..9, wt in 1i64..50, now in 0i64..30, area in 1u32..9,
        ) {
            let width = 8;
            let mask = Bits::range(width, 0, area);
            let mut plan = Profile::new(width, mask.clone());
            for (lo, n, s, len) in work {
                let bits = Bits::range(width, lo, (lo + n).min(width));
                if plan.is_free(&bits, t(s), t(s + len)) {
                    plan.reserve(&bits, t(s), t(s + len));
                }
            }
            plan.prune(t(now));
            proptest::prop_assert_eq!(
                stage_immediate(&plan, &mask, k, t(wt), t(now)),
                stage_immediate_as_written(&plan, &mask, k, t(wt), t(now))
            );
        }

        /// Stages 2 and 3 and the published fit read from the index choose
        /// what they chose from runs swept off the plan at every call, over
        /// a history of reservations, releases, maintenance windows and
        /// pruning with queries in between (the index is built midway, and
        /// the roots it remembers as failed meet the releases that follow).
        #[test]
        fn the_run_index_places_as_the_sweep_did(
            ops in proptest::collection::vec((0u8..8, 0u32..8, 1u32..4, 0i64..60, 1i64..30), 0..60),
            build_after in 0usize..60, area in 1u32..9,
        ) {
            let width = 8;
            let mask_bits = Bits::range(width, 0, area);
            let every = Bits::range(width, 0, width);
            let mut plan = Profile::new(width, mask_bits.clone());
            let mut held: Vec<(Bits, Time, Time)> = Vec::new();
            let mut windows: Vec<(u32, Time, Time)> = Vec::new();
            let mut now = t(0);
            for (i, (op, lo, n, s, len)) in ops.into_iter().enumerate() {
                if i == build_after {
                    drop(plan.free_runs());
                }
                let bits = Bits::range(width, lo, (lo + n).min(width));
                let (start, end) = (now + t(s), now + t(s + len));
                match op {
                    0..=2 if plan.is_free(&bits, start, end) => {
                        plan.reserve(&bits, start, end);
                        held.push((bits, start, end));
                    }
                    3 if !held.is_empty() => {
                        let (b, hs, he) = held.swap_remove(lo as usize % held.len());
                        plan.release(&b, hs, he);
                    }
                    4 => {
                        plan.block(&bits, start, end);
                        windows.extend(bits.iter().map(|p| (p, start, end)));
                    }
                    5 => {
                        now += t(len / 4);
                        plan.prune(now);
                    }
                    _ => {
                        // A query: k from 1 to 8, the same few shapes again and again.
                        let (k, wt, deadline) = (1 + (lo + n) % 8, t(1 + len % 3 * 10), now + t(s + 40));
                        let maintenance = |p: u32, s: Time, e: Time| windows.iter().any(|&(q, ws, we)| q == p && ws <= s && e <= we);
                        for (mask, bits) in [(Mask::Area, &mask_bits), (Mask::All, &every)] {
                            let ask = Ask { plan: &plan, mask, bits, k, wt, now };
                            proptest::prop_assert_eq!(
                                place(ask, maintenance),
                                swept::place(ask, maintenance)
                            );
                            proptest::prop_assert_eq!(
                                published_future_fit(ask, deadline, maintenance),
                                swept::published_future_fit(ask, deadline, maintenance)
                            );
                        }
                    }
                }
            }
        }
    }
}
