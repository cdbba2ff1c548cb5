//! The availability profile: which processors are free over time.
//!
//! A [`Profile`] is a sorted map from breakpoints to the set of processors
//! free from that breakpoint until the next one (the last segment extends to
//! infinity). Jobs are rigid, so the profile keeps processor *identity*, not
//! just counts: a job fits at `s` only if the same `k` processors are free over
//! the whole `[s, s + d)`.
//!
//! Costs (`S` = breakpoints in the profile, `W` = ⌈m / 64⌉ words per set,
//! 40 for 2,560 processors, `R` = breakpoints inside the interval touched):
//!
//! | operation | cost |
//! |---|---|
//! | [`Profile::reserve`], [`Profile::release`] | `O(log S + R·W)` |
//! | [`Profile::is_free`], [`Profile::first_conflict`], [`Profile::free_over`] | `O(log S + R·W)` |
//! | [`Profile::earliest_fit`], [`Profile::fits_before`] | `O(log S + C·R·W)` for `C` candidate starts tried; a segment with fewer than `k` free processors skips every candidate up to it, so usually `O(log S + S'·W)` over the `S'` breakpoints before the fit |
//! | [`Profile::prune`] | `O(P log S)` for `P` breakpoints dropped (amortised once per breakpoint) |
//!
//! Every segment caches its free count overall and inside the convergence
//! area, so count-infeasible segments are rejected without touching the bits.

mod mask;
mod runs;

use crate::bits::Bits;
use crate::time::Time;
pub(crate) use mask::Mask;
pub(crate) use runs::FreeRuns;
use std::borrow::Cow;
use std::cell::{Ref, RefCell};
use std::collections::BTreeMap;
use std::ops::Bound::{Excluded, Unbounded};

/// The key of the first segment: "since forever".
const ORIGIN: Time = Time::from_ticks(i64::MIN);

/// A segment's free processors and their cached counts (the counts come
/// first so that comparing two segments usually stops before the sets).
#[derive(Clone, Debug, PartialEq, Eq)]
struct Seg {
    n_all: u32,
    n_area: u32,
    free: Bits,
}

impl Seg {
    fn count(&self, mask: Mask) -> u32 {
        match mask {
            Mask::All => self.n_all,
            Mask::Area => self.n_area,
        }
    }
}

/// The area's planned work over a window ([`Profile::area_work`]),
/// processor-ticks.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct AreaWork {
    /// Busy, in all.
    pub(crate) busy: i128,
    /// Busy, less the processors busy over the whole window.
    pub(crate) passing: i128,
}

/// Free processors over time (see the module docs for costs).
#[derive(Clone, Debug)]
pub(crate) struct Profile {
    area: Bits,
    segs: BTreeMap<Time, Seg>,
    /// Windows held busy for good (maintenance `J_o`): no release frees
    /// them, even one that covers them (an overdue job's hold may overlap a
    /// window, and its release must not open it).
    blocked: Vec<(Bits, Time, Time)>,
    /// Bumped by every change of the free sets, so that a result computed
    /// on the profile can be reused while it is unchanged.
    version: u64,
    /// Each processor's free runs, built the first time they are asked for
    /// ([`Profile::free_runs`]) and kept up to date from then on; profiles
    /// never asked (every policy but Algorithm 3) pay nothing for them.
    runs: RefCell<FreeRuns>,
}

impl Profile {
    /// Every processor of `0..width` free forever; `area` is the convergence area.
    pub(crate) fn new(width: u32, area: Bits) -> Profile {
        let mut p = Profile {
            area,
            segs: BTreeMap::new(),
            blocked: Vec::new(),
            version: 0,
            runs: RefCell::default(),
        };
        let seg = p.mk_seg(Bits::range(width, 0, width));
        p.segs.insert(ORIGIN, seg);
        p
    }

    /// A profile of `width` processors on which each of `busy` (processors,
    /// start, end) is occupied and each of `blocked` is held for good (as by
    /// [`Profile::block`]; blocked windows are busy too), built in one sweep
    /// over the windows' ends instead of one reservation at a time:
    /// `O(E log E + Σ|procs| + S·W)` for `E` windows, `S` breakpoints and `W`
    /// words per set, where reserving them one by one costs a pass over every
    /// breakpoint a window crosses. The result is the profile those
    /// reservations would give (the same breakpoints and sets); windows may
    /// overlap (each processor is busy while any window holding it is).
    ///
    /// Also returns how many of `busy` overlap an earlier window (by start,
    /// then order): a plan read from outside that double-books processors.
    pub(crate) fn from_windows(
        width: u32,
        area: Bits,
        busy: &[(Bits, Time, Time)],
        blocked: Vec<(Bits, Time, Time)>,
    ) -> (Profile, usize) {
        let mut p = Profile::new(width, area);
        // (time, 0 = end before 1 = start, window): ends first, so that a
        // window starting where another ends does not overlap it.
        // Blocked windows first: a job starting with a window is counted as overlapping it.
        let windows: Vec<&(Bits, Time, Time)> = blocked.iter().chain(busy.iter()).collect();
        let mut edges: Vec<(Time, u8, usize)> = Vec::with_capacity(2 * windows.len());
        for (i, (_, s, e)) in windows.iter().enumerate() {
            if e > s {
                edges.push((*s, 1, i));
                if !e.is_infinite() {
                    edges.push((*e, 0, i));
                }
            }
        }
        edges.sort_unstable();
        let mut holders = vec![0u32; width as usize];
        let mut free = Bits::range(width, 0, width);
        let mut overlapping = 0;
        let mut at = 0;
        while at < edges.len() {
            let t = edges[at].0;
            while at < edges.len() && edges[at].0 == t {
                let (_, kind, i) = edges[at];
                let bits = &windows[i].0;
                let mut overlaps = false;
                for proc in bits.iter().filter(|&proc| proc < width) {
                    let n = &mut holders[proc as usize];
                    if kind == 1 {
                        overlaps |= *n > 0;
                        if *n == 0 {
                            free.unset(proc);
                        }
                        *n += 1;
                    } else {
                        *n -= 1;
                        if *n == 0 {
                            free.set(proc);
                        }
                    }
                }
                if overlaps && i >= blocked.len() {
                    overlapping += 1;
                }
                at += 1;
            }
            let seg = p.mk_seg(free.clone());
            let same = p
                .segs
                .range(..t)
                .next_back()
                .is_some_and(|(_, prev)| *prev == seg);
            if !same {
                p.segs.insert(t, seg);
            }
        }
        p.blocked = blocked;
        (p, overlapping)
    }

    /// Make `area` the convergence area (a resize, [`crate::Engine::resize_area`]):
    /// every segment's area count follows; the free sets do not change.
    pub(crate) fn set_area(&mut self, area: Bits) {
        for seg in self.segs.values_mut() {
            seg.n_area = seg.free.and_count(&area);
        }
        self.area = area;
        self.version += 1;
    }

    /// Start this profile's versions after `other`'s, so that a result cached
    /// against the profile it replaces is never taken for one of this one.
    pub(crate) fn version_after(&mut self, other: &Profile) {
        self.version = other.version + 1;
    }

    fn mk_seg(&self, free: Bits) -> Seg {
        Seg {
            n_all: free.count(),
            n_area: free.and_count(&self.area),
            free,
        }
    }

    /// Number of breakpoints.
    #[cfg(test)]
    pub(crate) fn len(&self) -> usize {
        self.segs.len()
    }

    /// Key of the segment containing `t`.
    fn key_at(&self, t: Time) -> Time {
        self.segs
            .range(..=t)
            .next_back()
            .map(|(k, _)| *k)
            .unwrap_or(ORIGIN)
    }

    /// How many processors of `mask` are free at instant `t` (the
    /// segment's cached count, no bit work).
    pub(crate) fn free_count_at(&self, t: Time, mask: Mask) -> u32 {
        self.segs[&self.key_at(t)].count(mask)
    }

    /// The start of the `n`-th breakpoint after `s` (`None`: the plan has fewer).
    pub(crate) fn nth_breakpoint_after(&self, s: Time, n: usize) -> Option<Time> {
        self.segs
            .range((Excluded(s), Unbounded))
            .nth(n.saturating_sub(1))
            .map(|(t, _)| *t)
    }

    /// Processor-ticks of the area busy over `[s, e)` (maintenance blocks
    /// included): how much planned work lies ahead in the area.
    pub(crate) fn area_busy(&self, s: Time, e: Time) -> i128 {
        self.area_busy_over(s, e, None)
    }

    /// [`Profile::area_busy`] over `[s, e)`, and the part of it that passes:
    /// less the area processors busy over all of the window. Work that holds
    /// a processor throughout shrinks the area for the whole window instead
    /// of delaying anything in it. One walk of the window.
    pub(crate) fn area_work(&self, s: Time, e: Time) -> AreaWork {
        let mut ever_free = self.area.empty_like();
        let busy = self.area_busy_over(s, e, Some(&mut ever_free));
        let held = (self.area.count() - ever_free.and_count(&self.area)) as i128;
        AreaWork {
            busy,
            passing: busy - held * (e - s).ticks() as i128,
        }
    }

    /// The busy processor-ticks of the area over `[s, e)`, adding each
    /// segment's free processors to `ever_free` when given.
    fn area_busy_over(&self, s: Time, e: Time, mut ever_free: Option<&mut Bits>) -> i128 {
        let size = self.area.count() as i128;
        let mut busy = 0i128;
        let mut segments = self.window(s, e).peekable();
        while let Some((t, seg)) = segments.next() {
            let end = segments.peek().map_or(e, |(next, _)| *next).min(e);
            busy += (end - t).ticks() as i128 * (size - seg.n_area as i128);
            if let Some(ever_free) = ever_free.as_deref_mut() {
                ever_free.or_assign(&seg.free);
            }
        }
        busy
    }

    /// Processors free at instant `t`.
    #[cfg(test)]
    pub(crate) fn free_at(&self, t: Time) -> &Bits {
        &self.segs[&self.key_at(t)].free
    }

    /// Hold `bits` busy over `[s, e)` for good (see `blocked`).
    pub(crate) fn block(&mut self, bits: &Bits, s: Time, e: Time) {
        self.modify(bits, s, e, true);
        self.blocked.push((bits.clone(), s, e));
    }

    /// Drop the history before the segment containing `now`.
    pub(crate) fn prune(&mut self, now: Time) {
        self.blocked.retain(|&(_, _, e)| e > now);
        let keep = self.key_at(now);
        self.runs.get_mut().trim(keep);
        while let Some((&k, _)) = self.segs.first_key_value() {
            if k >= keep {
                break;
            }
            self.segs.remove(&k);
        }
    }

    fn split(&mut self, t: Time) {
        if t.is_infinite() || self.segs.contains_key(&t) {
            return;
        }
        let seg = self.segs[&self.key_at(t)].clone();
        self.segs.insert(t, seg);
    }

    fn clamp_start(&self, s: Time) -> Time {
        s.max(*self.segs.first_key_value().map(|(k, _)| k).unwrap_or(&ORIGIN))
    }

    /// The profile's version: equal versions, equal free sets.
    pub(crate) fn version(&self) -> u64 {
        self.version
    }

    fn modify(&mut self, bits: &Bits, s: Time, e: Time, occupy: bool) {
        self.version += 1;
        let s = self.clamp_start(s);
        if e <= s {
            return;
        }
        let runs = self.runs.get_mut();
        if runs.is_built() {
            for p in bits.iter() {
                if occupy {
                    runs.occupy(p, s, e);
                } else {
                    runs.free(p, s, e);
                }
            }
        }
        self.split(s);
        self.split(e);
        let span = bits.span();
        for (_, seg) in self.segs.range_mut(s..e) {
            let (all, area) = seg.free.update_counted(bits, span.clone(), &self.area, !occupy);
            if occupy {
                seg.n_all -= all;
                seg.n_area -= area;
            } else {
                seg.n_all += all;
                seg.n_area += area;
            }
        }
        // Merge segments equal to their predecessor in [s, e].
        let mut prev: Option<&Seg> = self.segs.range(..s).next_back().map(|(_, v)| v);
        let mut dead = Vec::new();
        let upper = if e.is_infinite() {
            Unbounded
        } else {
            std::ops::Bound::Included(e)
        };
        for (k, seg) in self.segs.range((std::ops::Bound::Included(s), upper)) {
            if prev == Some(seg) {
                dead.push(*k);
            }
            prev = Some(seg);
        }
        for k in dead {
            self.segs.remove(&k);
        }
    }

    /// Mark `bits` busy over `[s, e)`. The caller guarantees they are free
    /// (check with [`Profile::is_free`] when unsure).
    pub(crate) fn reserve(&mut self, bits: &Bits, s: Time, e: Time) {
        self.modify(bits, s, e, true);
    }

    /// Mark `bits` free over `[s, e)` (a job ended early, a reservation moved).
    pub(crate) fn release(&mut self, bits: &Bits, s: Time, e: Time) {
        self.modify(bits, s, e, false);
        if self.blocked.is_empty() {
            return;
        }
        let again: Vec<(Bits, Time, Time)> = self
            .blocked
            .iter()
            .filter(|(b, bs, be)| *bs < e && s < *be && b.and_count(bits) > 0)
            .map(|(b, bs, be)| (b.and(bits), (*bs).max(s), (*be).min(e)))
            .collect();
        for (b, bs, be) in again {
            self.modify(&b, bs, be, true);
        }
    }

    /// Segments overlapping `[s, e)`, as `(max(start, s), free set)`.
    fn window(&self, s: Time, e: Time) -> impl Iterator<Item = (Time, &Seg)> + '_ {
        let k = self.key_at(s);
        self.segs
            .range(k..)
            .take_while(move |(t, _)| **t < e)
            .map(move |(t, seg)| ((*t).max(s), seg))
    }

    /// True if every processor of `bits` is free over `[s, e)`.
    pub(crate) fn is_free(&self, bits: &Bits, s: Time, e: Time) -> bool {
        self.first_conflict(bits, s, e).is_none()
    }

    /// The first instant of `[s, e)` at which a processor of `bits` is busy.
    pub(crate) fn first_conflict(&self, bits: &Bits, s: Time, e: Time) -> Option<Time> {
        if e <= s {
            return None;
        }
        self.window(s, e)
            .find(|(_, seg)| !bits.is_subset(&seg.free))
            .map(|(t, _)| t)
    }

    /// [`Profile::first_conflict`], not counting the blocked windows: the
    /// first instant of `[s, e)` at which a processor of `bits` is busy with
    /// something other than a blocked window.
    pub(crate) fn first_unblocked_conflict(&self, bits: &Bits, s: Time, e: Time) -> Option<Time> {
        if e <= s {
            return None;
        }
        let mut segs = self.window(s, e).peekable();
        while let Some((t, seg)) = segs.next() {
            if bits.is_subset(&seg.free) {
                continue;
            }
            let busy = bits.andnot(&seg.free);
            let until = segs.peek().map_or(e, |(next, _)| *next);
            // Segments equal on both sides of a window's end are merged:
            // the busy processors may outlast a window inside one segment.
            let mut instants: Vec<Time> = self
                .blocked
                .iter()
                .map(|(_, _, be)| *be)
                .filter(|&be| t < be && be < until)
                .collect();
            instants.push(t);
            instants.sort_unstable();
            for at in instants {
                let mut unexplained = busy.clone();
                for (blocked, bs, be) in &self.blocked {
                    if *bs <= at && at < *be {
                        unexplained.andnot_assign(blocked);
                    }
                }
                if unexplained.count() > 0 {
                    return Some(at);
                }
            }
        }
        None
    }

    /// Processors free over the whole `[s, e)`.
    pub(crate) fn free_over(&self, s: Time, e: Time) -> Bits {
        let mut it = self.window(s, e.max(s.saturating_add(Time::from_ticks(1))));
        let mut acc = it
            .next()
            .map(|(_, seg)| seg.free.clone())
            .expect("profile always has a segment");
        for (_, seg) in it {
            acc.and_assign(&seg.free);
        }
        acc
    }

    /// The earliest `s ≥ from` at which `k` processors (of `mask`) are free
    /// over `[s, s + d)`, with the set of all processors free over that window.
    /// `None` if `k` exceeds what ever becomes free.
    ///
    /// Only `from` and breakpoints are candidates: a feasible start that is
    /// neither can slide back to the previous one.
    ///
    /// A two-pointer scan with a sliding-window intersection (two stacks of
    /// partial intersections), so every segment is pushed and popped once:
    /// `O(log S + S'·W)` amortised for the `S'` segments scanned.
    pub(crate) fn earliest_fit(&self, k: u32, d: Time, from: Time, mask: Mask) -> Option<(Time, Bits)> {
        self.fit_scan(k, d, from, mask, None)
    }

    /// Whether a job of `k` processors (of `mask`) for `d`, reserved on
    /// `own` from `start` (for `d`), would fit somewhere in `[from, start)`
    /// once that reservation is released: [`Profile::earliest_fit`] on the
    /// profile without it, asked without releasing it (no change to the
    /// profile, no allocation for the segments it does not cross).
    pub(crate) fn fits_before(&self, k: u32, d: Time, from: Time, mask: Mask, own: (&Bits, Time)) -> bool {
        let (bits, start) = own;
        if from >= start || !self.count_fits_before(k, d, from, start, mask) {
            return false;
        }
        let own = Own {
            bits,
            count: match mask {
                Mask::All => bits.count(),
                Mask::Area => bits.and_count(&self.area),
            },
            start,
            end: start.saturating_add(d),
        };
        self.fit_scan(k, d, from, mask, Some(&own)).is_some()
    }

    /// The necessary condition of [`Profile::fits_before`] from the cached
    /// counts alone (no bit work, no allocation): a start `t < until` needs
    /// `k` processors free over `[t, min(t + d, until))`, where the job's
    /// own reservation plays no part, so some run of segments with `k`
    /// free, from `t ≥ from`, must last `d` or reach `until`.
    fn count_fits_before(&self, k: u32, d: Time, from: Time, until: Time, mask: Mask) -> bool {
        let mut run_start: Option<Time> = None;
        for (t, seg) in self.window(from, until) {
            // The run so far covers `[start, t)`.
            if run_start.is_some_and(|start| t >= start.saturating_add(d)) {
                return true;
            }
            if seg.count(mask) < k {
                run_start = None;
            } else {
                run_start.get_or_insert(t);
            }
        }
        // A run still open covers `[start, until)`.
        run_start.is_some()
    }

    /// [`Profile::earliest_fit`], where `own`, if given, is a reservation
    /// counted as free and only starts before its start are looked for.
    fn fit_scan(
        &self,
        k: u32,
        d: Time,
        from: Time,
        mask: Mask,
        own: Option<&Own<'_>>,
    ) -> Option<(Time, Bits)> {
        let d = d.max(Time::from_ticks(1));
        let area = match mask {
            Mask::All => None,
            Mask::Area => Some(&self.area),
        };
        let until = own.map_or(Time::INFINITY, |own| own.start);
        let count = |t: Time, seg: &Seg| seg_count(seg, t, mask, own);
        let mut it = self.segs.range(self.key_at(from)..).peekable();
        let mut win = Window::new(area);
        loop {
            if win.times.is_empty() {
                let (&t, seg) = it.next()?;
                if t >= until {
                    return None;
                }
                if count(t, seg) < k {
                    continue;
                }
                // Before any bit work: a segment short of `k` within `d` of
                // this start rules out every start up to it.
                let end = t.max(from).saturating_add(d);
                let mut ahead = it.clone();
                let short = loop {
                    match ahead.next() {
                        Some((&t, seg)) if t < end => {
                            if count(t, seg) < k {
                                break true;
                            }
                        }
                        _ => break false,
                    }
                };
                if short {
                    it = ahead;
                    continue;
                }
                win.push(t, seg_bits(seg, t, own));
            }
            let s = win.times[0].max(from);
            if s >= until {
                return None;
            }
            let end = s.saturating_add(d);
            let mut cleared = false;
            while win.count() >= k {
                match it.peek() {
                    Some((&t, seg)) if t < end => {
                        if count(t, seg) < k {
                            it.next();
                            win.clear();
                            cleared = true;
                            break;
                        }
                        win.push(t, seg_bits(seg, t, own));
                        it.next();
                    }
                    _ => return win.aggregate().map(|a| (s, a)),
                }
            }
            if !cleared {
                win.pop_front();
            }
        }
    }

    /// The first breakpoint after `t` at which a processor of the area
    /// becomes free: the earliest start of one of its idle runs after `t`.
    pub(crate) fn next_area_release_after(&self, t: Time) -> Option<Time> {
        let mut segments = self.segments_from(t);
        let mut before = segments.next()?.1;
        for (start, free) in segments {
            if !free.and(&self.area).is_subset(before) {
                return Some(start);
            }
            before = free;
        }
        None
    }

    /// Each processor's maximal free runs ([`FreeRuns`]), built from the
    /// segments the first time (`O(S·W + runs)`), then kept up to date by
    /// every change.
    pub(crate) fn free_runs(&self) -> Ref<'_, FreeRuns> {
        if !self.runs.borrow().is_built() {
            let capacity = self.segs.values().next().map_or(0, |seg| seg.free.capacity());
            let segments = self.segs.iter().map(|(t, seg)| (*t, &seg.free));
            self.runs.borrow_mut().build(capacity, segments);
        }
        self.runs.borrow()
    }

    /// [`Profile::free_runs`] with the finite runs indexed by length too
    /// (stage 2 of Algorithm 3), kept from then on.
    pub(crate) fn free_runs_by_length(&self) -> Ref<'_, FreeRuns> {
        if !self.free_runs().has_lengths() {
            self.runs.borrow_mut().index_lengths();
        }
        self.runs.borrow()
    }

    /// Segments from `t` on: `(start, free set)`, the first starting at `t`.
    pub(crate) fn segments_from(&self, t: Time) -> impl Iterator<Item = (Time, &Bits)> + '_ {
        self.window(t, Time::INFINITY).map(|(s, seg)| (s, &seg.free))
    }

    /// Segments from `t` on: `(start, free processors of the area)`, from the
    /// cached counts (no bit work), the first starting at `t`.
    pub(crate) fn area_counts_from(&self, t: Time) -> impl Iterator<Item = (Time, u32)> + '_ {
        self.window(t, Time::INFINITY).map(|(s, seg)| (s, seg.n_area))
    }
}

/// How many processors of `mask` a segment starting at `t` has free, with
/// `own`'s processors free inside its window.
fn seg_count(seg: &Seg, t: Time, mask: Mask, own: Option<&Own<'_>>) -> u32 {
    match own.filter(|own| own.covers(t)) {
        Some(own) => seg.count(mask) + own.count,
        None => seg.count(mask),
    }
}

/// The free set of a segment starting at `t`, with `own`'s processors free
/// inside its window.
fn seg_bits<'s>(seg: &'s Seg, t: Time, own: Option<&Own<'_>>) -> Cow<'s, Bits> {
    match own.filter(|own| own.covers(t)) {
        Some(own) => {
            let mut free = seg.free.clone();
            free.or_assign(own.bits);
            Cow::Owned(free)
        }
        None => Cow::Borrowed(&seg.free),
    }
}

/// A job's own reservation, counted as free by [`Profile::fits_before`].
struct Own<'a> {
    bits: &'a Bits,
    /// How many of `bits` the scan's mask holds.
    count: u32,
    start: Time,
    end: Time,
}

impl Own<'_> {
    /// Whether a segment starting at `t` lies inside the reservation.
    fn covers(&self, t: Time) -> bool {
        self.start <= t && t < self.end
    }
}

/// A sliding window of segments with its running intersection, kept as two
/// stacks (suffix intersections at the front, a running intersection at the
/// back) so that push and pop are amortised `O(W)`. Every aggregate includes
/// the mask (the area, for cloud queries).
struct Window<'a> {
    mask: Option<&'a Bits>,
    times: std::collections::VecDeque<Time>,
    back: Vec<Cow<'a, Bits>>,
    back_agg: Option<Bits>,
    front: Vec<Bits>,
}

impl<'a> Window<'a> {
    fn new(mask: Option<&'a Bits>) -> Window<'a> {
        Window {
            mask,
            times: Default::default(),
            back: Vec::new(),
            back_agg: None,
            front: Vec::new(),
        }
    }

    /// Empty the window, keeping its buffers.
    fn clear(&mut self) {
        self.times.clear();
        self.back.clear();
        self.back_agg = None;
        self.front.clear();
    }

    fn masked(&self, b: &Bits) -> Bits {
        match self.mask {
            Some(m) => b.and(m),
            None => b.clone(),
        }
    }

    fn push(&mut self, t: Time, free: Cow<'a, Bits>) {
        self.times.push_back(t);
        match &mut self.back_agg {
            None => self.back_agg = Some(self.masked(&free)),
            Some(a) => a.and_assign(&free),
        }
        self.back.push(free);
    }

    fn pop_front(&mut self) {
        if self.front.is_empty() {
            let back = std::mem::take(&mut self.back);
            let mut acc: Option<Bits> = None;
            for b in back.into_iter().rev() {
                let next = match acc {
                    None => self.masked(&b),
                    Some(mut a) => {
                        a.and_assign(&b);
                        a
                    }
                };
                self.front.push(next.clone());
                acc = Some(next);
            }
            self.back_agg = None;
        }
        self.front.pop();
        self.times.pop_front();
    }

    fn count(&self) -> u32 {
        match (self.front.last(), &self.back_agg) {
            (Some(f), Some(b)) => f.and_count(b),
            (Some(f), None) => f.count(),
            (None, Some(b)) => b.count(),
            (None, None) => 0,
        }
    }

    fn aggregate(&self) -> Option<Bits> {
        match (self.front.last(), &self.back_agg) {
            (Some(f), Some(b)) => Some(f.and(b)),
            (Some(f), None) => Some(f.clone()),
            (None, Some(b)) => Some(b.clone()),
            (None, None) => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn t(s: i64) -> Time {
        Time::from_secs(s)
    }

    #[test]
    fn reserve_release_round_trip_merges() {
        let mut p = Profile::new(8, Bits::range(8, 0, 8));
        let b = Bits::range(8, 0, 4);
        p.reserve(&b, t(10), t(20));
        assert_eq!(p.len(), 3);
        assert_eq!(p.free_at(t(15)).count(), 4);
        assert_eq!(p.free_at(t(20)).count(), 8);
        p.release(&b, t(10), t(20));
        assert_eq!(p.len(), 1);
    }

    #[test]
    fn earliest_fit_respects_identity() {
        // proc 0 busy [10, 20), proc 1 busy [0, 10): one free at any time, never the same for 20 s.
        let mut p = Profile::new(2, Bits::range(2, 0, 2));
        p.reserve(&Bits::range(2, 0, 1), t(10), t(20));
        p.reserve(&Bits::range(2, 1, 2), t(0), t(10));
        let (s, set) = p.earliest_fit(1, t(20), t(0), Mask::All).unwrap();
        assert_eq!(s, t(10));
        assert_eq!(set.iter().collect::<Vec<_>>(), vec![1]);
        let (s, _) = p.earliest_fit(1, t(5), t(0), Mask::All).unwrap();
        assert_eq!(s, t(0));
        let (s, _) = p.earliest_fit(2, t(5), t(0), Mask::All).unwrap();
        assert_eq!(s, t(20));
        assert!(p.earliest_fit(3, t(5), t(0), Mask::All).is_none());
    }

    /// The reference: try `from` and every later breakpoint, intersect naively.
    fn brute_fit(p: &Profile, k: u32, d: Time, from: Time, mask: Mask) -> Option<(Time, Bits)> {
        let cands = std::iter::once(from).chain(p.segs.keys().copied().filter(|&t| t > from));
        for s in cands {
            let mut f = p.free_over(s, s + d);
            if mask == Mask::Area {
                f.and_assign(&p.area);
            }
            if f.count() >= k {
                return Some((s, f));
            }
        }
        None
    }

    /// A 6-processor profile (area `0..area`) with each of `ops` (first
    /// processor, count, start, length) reserved where it is free, and the
    /// windows reserved.
    fn reserved_profile(ops: &[(u32, u32, i64, i64)], area: u32) -> (Profile, Vec<(Bits, Time, Time)>) {
        let mut p = Profile::new(6, Bits::range(6, 0, area));
        let mut occ = Vec::new();
        for &(lo, n, s, len) in ops {
            let b = Bits::range(6, lo, (lo + n).min(6));
            if p.is_free(&b, t(s), t(s + len)) {
                p.reserve(&b, t(s), t(s + len));
                occ.push((b, t(s), t(s + len)));
            }
        }
        (p, occ)
    }

    proptest::proptest! {
        #[test]
        fn earliest_fit_matches_brute_force(
            ops in proptest::collection::vec((0u32..6, 1u32..6, 0i64..50, 1i64..30), 0..25),
            k in 1u32..6, d in 1i64..40, from in 0i64..40, area in 1u32..6,
        ) {
            let (mut p, occ) = reserved_profile(&ops, area);
            for mask in [Mask::All, Mask::Area] {
                proptest::prop_assert_eq!(p.earliest_fit(k, t(d), t(from), mask), brute_fit(&p, k, t(d), t(from), mask));
            }
            // Releasing everything restores a single segment.
            for (b, s, e) in occ {
                p.release(&b, s, e);
            }
            proptest::prop_assert_eq!(p.len(), 1);
        }
    }

    proptest::proptest! {
        /// `fits_before` asked of the plan as it is answers what releasing
        /// the job's reservation and asking for its earliest fit answers.
        #[test]
        fn fits_before_is_an_earliest_fit_after_release(
            ops in proptest::collection::vec((0u32..6, 1u32..6, 0i64..50, 1i64..30), 1..25),
            pick in 0usize..25, from in 0i64..60, area in 1u32..6,
        ) {
            let (p, occ) = reserved_profile(&ops, area);
            let (own, s, e) = occ[pick % occ.len()].clone();
            let k = own.count();
            let mut released = p.clone();
            released.release(&own, s, e);
            for mask in [Mask::All, Mask::Area] {
                if mask == Mask::Area && !own.is_subset(&Bits::range(6, 0, area)) {
                    continue;
                }
                let expected = released
                    .earliest_fit(k, e - s, t(from), mask)
                    .is_some_and(|(start, _)| start < s);
                proptest::prop_assert_eq!(p.fits_before(k, e - s, t(from), mask, (&own, s)), expected);
            }
        }
    }

    proptest::proptest! {
        /// One sweep gives the profile that reserving and blocking the same
        /// windows one at a time gives, overlaps included.
        #[test]
        fn a_profile_built_in_one_sweep_is_the_reserved_one(
            windows in proptest::collection::vec((0u32..6, 1u32..6, 0i64..50, 1i64..30, proptest::bool::ANY), 0..20),
            area in 1u32..6,
        ) {
            let mut one_by_one = Profile::new(6, Bits::range(6, 0, area));
            let (mut busy, mut blocked) = (Vec::new(), Vec::new());
            let mut overlapping = 0;
            for (lo, n, s, len, hold) in windows {
                let b = Bits::range(6, lo, (lo + n).min(6));
                let (s, e) = (t(s), if len == 29 { Time::INFINITY } else { t(s + len) });
                if hold {
                    one_by_one.block(&b, s, e);
                    blocked.push((b, s, e));
                } else {
                    one_by_one.reserve(&b, s, e);
                    busy.push((b, s, e));
                }
            }
            let (swept, counted) = Profile::from_windows(6, Bits::range(6, 0, area), &busy, blocked.clone());
            proptest::prop_assert_eq!(&swept.segs, &one_by_one.segs);
            proptest::prop_assert_eq!(&swept.blocked, &blocked);
            // A busy window overlaps when, at its start, a window before it
            // (blocked ones first, then busy ones in order) holds one of its processors.
            let all: Vec<&(Bits, Time, Time)> = blocked.iter().chain(busy.iter()).collect();
            for (i, (b, s, e)) in all.iter().enumerate().skip(blocked.len()) {
                let held = all.iter().enumerate().any(|(j, (bj, sj, ej))| {
                    j != i && sj < ej && (sj < s || (sj == s && j < i)) && s < ej && bj.and_count(b) > 0
                });
                overlapping += usize::from(s < e && held);
            }
            proptest::prop_assert_eq!(counted, overlapping);
        }
    }

    #[test]
    fn passing_work_leaves_out_the_processors_held_throughout() {
        let mut p = Profile::new(4, Bits::range(4, 0, 3));
        let ticks = |s: i64| t(s).ticks() as i128;
        // Processors 0-1 held over the whole window, 2 busy for 20 s of it,
        // 3 (outside the area) busy throughout.
        p.reserve(&Bits::range(4, 0, 2), t(0), t(100));
        p.reserve(&Bits::range(4, 2, 3), t(10), t(30));
        p.reserve(&Bits::range(4, 3, 4), t(0), t(100));
        assert_eq!(p.area_busy(t(0), t(50)), 2 * ticks(50) + ticks(20));
        assert_eq!(p.area_work(t(0), t(50)).busy, 2 * ticks(50) + ticks(20));
        assert_eq!(p.area_work(t(0), t(50)).passing, ticks(20));
        // Over a window they leave inside, they pass too.
        assert_eq!(p.area_work(t(50), t(150)).passing, 2 * ticks(50));
    }

    #[test]
    fn area_mask_and_conflicts() {
        let mut p = Profile::new(4, Bits::range(4, 0, 2));
        p.reserve(&Bits::range(4, 0, 2), t(0), t(30));
        let (s, set) = p.earliest_fit(2, t(10), t(0), Mask::Area).unwrap();
        assert_eq!((s, set.count()), (t(30), 2));
        assert_eq!(p.earliest_fit(2, t(10), t(0), Mask::All).unwrap().0, t(0));
        assert_eq!(p.first_conflict(&Bits::range(4, 1, 3), t(-5), t(40)), Some(t(0)));
        assert!(p.is_free(&Bits::range(4, 2, 4), t(0), t(100)));
        assert_eq!(p.free_over(t(0), t(40)).count(), 2);
        p.prune(t(35));
        assert_eq!(p.len(), 1);
    }

    #[test]
    fn a_blocked_window_survives_the_release_of_work_over_it() {
        let mut p = Profile::new(4, Bits::range(4, 0, 4));
        let two = Bits::range(4, 0, 2);
        p.block(&Bits::range(4, 1, 2), t(10), t(20));
        // An overdue job's hold over the window, then its release.
        p.reserve(&two, t(5), t(15));
        p.release(&two, t(5), t(15));
        assert_eq!(p.free_at(t(7)).count(), 4);
        assert_eq!(p.free_at(t(12)).count(), 3);
        assert!(!p.free_at(t(12)).get(1));
        assert_eq!(p.earliest_fit(4, t(5), t(0), Mask::All).map(|f| f.0), Some(t(0)));
        assert_eq!(
            p.earliest_fit(4, t(11), t(0), Mask::All).map(|f| f.0),
            Some(t(20))
        );
        p.prune(t(25));
        assert_eq!(p.free_at(t(25)).count(), 4);
    }

    #[test]
    fn conflicts_outside_blocked_windows() {
        let mut p = Profile::new(2, Bits::range(2, 0, 2));
        let p0 = Bits::range(2, 0, 1);
        p.block(&p0, t(10), t(20));
        assert_eq!(p.first_conflict(&p0, t(0), t(40)), Some(t(10)));
        assert_eq!(p.first_unblocked_conflict(&p0, t(0), t(40)), None);
        // Work right after the window merges with it into one segment.
        p.reserve(&p0, t(20), t(30));
        assert_eq!(p.first_unblocked_conflict(&p0, t(0), t(40)), Some(t(20)));
        assert_eq!(p.first_unblocked_conflict(&p0, t(0), t(20)), None);
    }
}
