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
use crate::plan::{Mask, Profile};
use crate::time::Time;

/// A processor's idle runs from now on, in time order (`end` may be
/// [`Time::INFINITY`]; the first may have started before now).
struct Runs {
    proc: u32,
    runs: Vec<(Time, Time)>,
}

impl Runs {
    /// The idle runs from `last` on (the first cut to start there).
    fn after(&self, last: Time) -> impl Iterator<Item = (Time, Time)> + '_ {
        self.runs
            .iter()
            .filter(move |run| run.1 > last)
            .map(move |run| (run.0.max(last), run.1))
    }
}

/// The idle runs of every processor of `mask` from `now` on, from one sweep
/// of the plan: `O(S·W + changes)`.
fn idle_runs(plan: &Profile, mask: &Bits, now: Time) -> Vec<Runs> {
    let procs: Vec<u32> = mask.iter().collect();
    // Index of each processor of the mask in `procs`, by id.
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
    let mut prev = mask.empty_like();
    for (t, free) in plan.segments_from(now) {
        let free = free.and(mask);
        for p in free.andnot(&prev).iter() {
            open[slot_of[p as usize]] = Some(t);
        }
        for p in prev.andnot(&free).iter() {
            let i = slot_of[p as usize];
            if let Some(s) = open[i].take() {
                out[i].runs.push((s, t));
            }
        }
        prev = free;
    }
    for (i, start) in open.into_iter().enumerate() {
        if let Some(s) = start {
            out[i].runs.push((s, Time::INFINITY));
        }
    }
    out
}

/// Where Algorithm 3 places a job of `k` processors of `mask` (the set
/// `mask_bits`) for `wt`, planned at `now`: its start and processors.
/// `maintenance(p, s, e)` says whether processor `p`'s busy time `[s, e)` is
/// all maintenance (`J_o`), which stage 3 looks past. `None` only if `k`
/// exceeds the mask.
pub(crate) fn place(
    plan: &Profile,
    mask: Mask,
    mask_bits: &Bits,
    k: u32,
    wt: Time,
    now: Time,
    maintenance: impl Fn(u32, Time, Time) -> bool,
) -> Option<(Time, Bits)> {
    if k == 0 || k > mask_bits.count() {
        return None;
    }
    let runs = idle_runs(plan, mask_bits, now);
    let set = |ids: &[u32]| {
        let mut b = mask_bits.empty_like();
        for &p in ids {
            b.set(p);
        }
        b
    };
    if let Some(ids) = stage_immediate(&runs, k, wt, now) {
        return Some((now, set(&ids)));
    }
    if let Some((s, ids)) = stage_between(plan, mask_bits, &runs, k, wt, now) {
        return Some((s, set(&ids)));
    }
    if let Some((s, ids)) = stage_after(plan, &runs, k, wt, now, maintenance) {
        return Some((s, set(&ids)));
    }
    // Maintenance windows can leave no root with `h` processors among the
    // candidate starts: the earliest fit after them all (the lowest ids).
    let (s, idle) = plan.earliest_fit(k, wt, now, mask)?;
    let mut b = mask_bits.empty_like();
    b.take_lowest(&idle.and(mask_bits), k);
    Some((s, b))
}

/// Stage 1: `V^1` and `P^1` over the processors idle now.
fn stage_immediate(runs: &[Runs], k: u32, wt: Time, now: Time) -> Option<Vec<u32>> {
    // (v_z, processor) of the processors idle now.
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
    (chosen.len() == k as usize).then_some(chosen)
}

/// Stage 2: roots in processor order, holes strictly longer than `wt`.
fn stage_between(
    plan: &Profile,
    mask: &Bits,
    runs: &[Runs],
    k: u32,
    wt: Time,
    now: Time,
) -> Option<(Time, Vec<u32>)> {
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

/// Stage 3: after the last planned jobs, processors by earliest end.
fn stage_after(
    plan: &Profile,
    runs: &[Runs],
    k: u32,
    wt: Time,
    now: Time,
    maintenance: impl Fn(u32, Time, Time) -> bool,
) -> Option<(Time, Vec<u32>)> {
    // D: (end of the last planned job, candidate start, processor).
    let mut d: Vec<(Time, Time, u32)> = runs
        .iter()
        .filter_map(|r| {
            let last = last_job_end(r, now, &maintenance)?;
            // V^3: the end of the last job, or past the maintenance window
            // that leaves too little room before it.
            let start = r.after(last).find(|&(s, e)| s.saturating_add(wt) <= e)?.0;
            Some((last, start, r.proc))
        })
        .collect();
    d.sort();
    for &(_, root_start, root) in &d {
        let idle = plan.free_over(root_start, root_start.saturating_add(wt));
        let mut ids = vec![root];
        for &(last, _, p) in &d {
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

/// The end of processor `r`'s last planned job at or after `now` (now if it
/// has none), looking past the busy time that is all maintenance.
fn last_job_end(r: &Runs, now: Time, maintenance: &impl Fn(u32, Time, Time) -> bool) -> Option<Time> {
    let last = r.runs.last()?;
    if !last.1.is_infinite() {
        // Busy forever after: never idle again (cannot happen with finite work).
        return None;
    }
    let mut end = last.0;
    // The busy time between two runs, latest first.
    for pair in r.runs.windows(2).rev() {
        let (busy_start, busy_end) = (pair[0].1, pair[1].0);
        if busy_end != end || !maintenance(r.proc, busy_start, busy_end) {
            break;
        }
        end = pair[0].0;
    }
    Some(end.max(now))
}

/// `F^γ` over the `W_future` Algorithm 3 publishes (lines 17–18; §5.3.2,
/// "estágio de contribuição"): the stage-1 slots (each processor idle now,
/// until its next planned work) and, per processor, the time after its last
/// planned job (`D`, between maintenance windows). Holes between planned
/// jobs are not in it. The earliest `t0 > now` at which `k` processors of
/// `mask_bits` are idle over `[t0, t0 + wt)` within those slots, with
/// `t0 + wt ≤ deadline`.
pub(crate) fn published_future_fit(
    plan: &Profile,
    mask_bits: &Bits,
    k: u32,
    wt: Time,
    now: Time,
    deadline: Time,
    maintenance: impl Fn(u32, Time, Time) -> bool,
) -> Option<Time> {
    let runs = idle_runs(plan, mask_bits, now);
    // Per processor, its published slots.
    let slots: Vec<Vec<(Time, Time)>> = runs
        .iter()
        .map(|r| {
            let mut own: Vec<(Time, Time)> = r
                .runs
                .first()
                .filter(|run| run.0 <= now)
                .copied()
                .into_iter()
                .collect();
            if let Some(last) = last_job_end(r, now, &maintenance) {
                own.extend(r.after(last));
            }
            own
        })
        .collect();
    let mut starts: Vec<Time> = slots.iter().flatten().map(|s| s.0).filter(|&s| s > now).collect();
    starts.sort_unstable();
    starts.dedup();
    starts
        .into_iter()
        .take_while(|&t0| t0.saturating_add(wt) <= deadline)
        .find(|&t0| {
            let end = t0.saturating_add(wt);
            let holding = slots
                .iter()
                .filter(|own| own.iter().any(|&(s, e)| s <= t0 && end <= e))
                .count();
            holding >= k as usize
        })
}
