//! The engine's state and the mechanics shared by every policy: job table,
//! queues, the two-layer plan, starts, evictions, resubmission, prediction.
//!
//! # Two layers
//!
//! * `hpc` — running HPC jobs plus HPC reservations. HPC planning looks only
//!   at this layer, so cloud work can never delay HPC work.
//! * `all` — `hpc` plus the cloud jobs (running, and reserved in the holes of
//!   the area). Cloud placement and prediction use this layer.
//!
//! When HPC work lands on processors the `all` layer holds for cloud work,
//! the cloud work gives way: queued cloud reservations in the way are dropped
//! and re-planned (in queue order, at the end of the HPC pass); running cloud
//! jobs in the way are evicted now if the HPC work starts now, else truncated
//! and scheduled for eviction when it starts (un-scheduled again if that HPC
//! reservation moves away and the processors stay free).

use super::{
    Admission, Decision, EndReason, EngineConfig, EngineError, FutureSlot, ImmediateSlot, JobState, Policy,
    Prediction, Slots,
};
use crate::bits::Bits;
use crate::job::{Job, JobId, JobKind};
use crate::metrics::JobRecord;
use crate::plan::{Mask, Profile};
use crate::time::Time;
use std::collections::{BTreeMap, BTreeSet, HashMap};

/// Where a job is, internally.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum St {
    /// HPC job submitted, not yet seen by a pass.
    Pending,
    Queued,
    Running,
    /// Evicted by the engine; waiting for the shell's `job_ended`.
    Evicting,
    Ended,
    Rejected,
}

#[derive(Clone, Debug)]
struct Entry {
    st: St,
    /// Queued: the reservation (start, processors). Running: (start, processors).
    res: Option<(Time, Bits)>,
    /// Running: end of the job's occupancy in the plan.
    occ_end: Time,
    /// Running cloud job: planned eviction time.
    evict_at: Option<Time>,
    resubmissions: u32,
    /// Queue order: (time it entered the queue, id).
    qkey: (Time, JobId),
}

type QKey = (Time, JobId, usize);

/// How many queued cloud jobs (from the head) a compression re-plans.
pub(crate) const CLOUD_COMPRESSION_WINDOW: usize = 256;

#[derive(Debug)]
pub(super) struct State {
    pub(super) now: Time,
    width: u32,
    area: Bits,
    pub(super) records: Vec<JobRecord>,
    jobs: Vec<Entry>,
    index: HashMap<JobId, usize>,
    hpc: Profile,
    all: Profile,
    hpc_queue: BTreeSet<QKey>,
    cloud_queue: BTreeSet<QKey>,
    hpc_timers: BTreeSet<(Time, usize)>,
    cloud_timers: BTreeSet<(Time, usize)>,
    dooms: BTreeSet<(Time, usize)>,
    running_hpc: BTreeSet<usize>,
    running_cloud: BTreeSet<usize>,
    /// Processors running a cloud job now.
    cloud_running: Bits,
    /// Owner of each processor running a cloud job.
    owner: BTreeMap<u32, usize>,
    head_res: Option<usize>,
    pending_rejects: Vec<usize>,
    pending_evicts: Vec<usize>,
    /// HPC jobs started by an HPC phase, not yet returned by `schedule`.
    pending_starts: Vec<usize>,
    /// Something changed for HPC planning since the last HPC phase.
    hpc_changed: bool,
    hpc_compress: bool,
    /// When the HPC queue was last compressed (at most once per instant).
    compressed_at: Option<Time>,
    cloud_compress: bool,
    /// Queued cloud jobs whose reservation HPC work took, to re-plan.
    displaced: Vec<usize>,
}

fn work(procs: u32, d: Time) -> Time {
    Time::from_ticks(d.ticks().saturating_mul(procs as i64))
}

impl State {
    pub(super) fn new(cfg: &EngineConfig) -> State {
        let area = Bits::range(cfg.procs, 0, cfg.conv_procs);
        let hpc = Profile::new(cfg.procs, area.clone());
        State {
            now: Time::ZERO,
            width: cfg.procs,
            all: hpc.clone(),
            hpc,
            area,
            records: Vec::new(),
            jobs: Vec::new(),
            index: HashMap::new(),
            hpc_queue: BTreeSet::new(),
            cloud_queue: BTreeSet::new(),
            hpc_timers: BTreeSet::new(),
            cloud_timers: BTreeSet::new(),
            dooms: BTreeSet::new(),
            running_hpc: BTreeSet::new(),
            running_cloud: BTreeSet::new(),
            cloud_running: Bits::empty(cfg.procs),
            owner: BTreeMap::new(),
            head_res: None,
            pending_rejects: Vec::new(),
            pending_evicts: Vec::new(),
            pending_starts: Vec::new(),
            hpc_changed: false,
            hpc_compress: false,
            compressed_at: None,
            cloud_compress: false,
            displaced: Vec::new(),
        }
    }

    fn advance(&mut self, now: Time) -> Result<(), EngineError> {
        if now < self.now {
            return Err(EngineError::TimeWentBackwards {
                now: self.now,
                given: now,
            });
        }
        self.now = now;
        Ok(())
    }

    fn lookup(&self, id: JobId) -> Result<usize, EngineError> {
        self.index.get(&id).copied().ok_or(EngineError::UnknownJob(id))
    }

    fn job(&self, idx: usize) -> &Job {
        &self.records[idx].job
    }

    // ----- public operations -------------------------------------------------

    pub(super) fn submit(&mut self, cfg: &EngineConfig, job: Job) -> Result<Option<Prediction>, EngineError> {
        if self.index.contains_key(&job.id) {
            return Err(EngineError::DuplicateJob(job.id));
        }
        let unsched = |reason: String| Err(EngineError::Unschedulable { id: job.id, reason });
        if job.procs == 0 {
            return unsched("it asks for 0 processors: a job needs at least one".into());
        }
        match job.kind {
            JobKind::Hpc if job.procs > cfg.procs => {
                return unsched(format!(
                    "it asks for {} processors, the platform has {}",
                    job.procs, cfg.procs
                ));
            }
            JobKind::Cloud if job.procs > cfg.conv_procs => {
                return unsched(format!(
                    "cloud job asks for {} processors, the convergence area has {}",
                    job.procs, cfg.conv_procs
                ));
            }
            _ => {}
        }
        if job.walltime <= Time::ZERO {
            return unsched(format!("its walltime is {} s: it must be positive", job.walltime));
        }
        if job.slo.is_some_and(|s| s < Time::ZERO) {
            return unsched(format!("its SLO is negative ({} s)", job.slo.unwrap_or_default()));
        }
        self.advance(job.submit)?;
        let idx = self.records.len();
        self.index.insert(job.id, idx);
        let qkey = (job.submit, job.id);
        self.jobs.push(Entry {
            st: St::Pending,
            res: None,
            occ_end: Time::ZERO,
            evict_at: None,
            resubmissions: 0,
            qkey,
        });
        let kind = job.kind;
        self.records.push(JobRecord {
            job,
            start: None,
            end: None,
            procs: None,
            end_reason: None,
            prediction: None,
            evictions: 0,
            lost_work: Time::ZERO,
            rejected: false,
            counter_offer_slo: None,
        });
        match kind {
            JobKind::Hpc => {
                self.hpc_queue.insert((qkey.0, qkey.1, idx));
                self.hpc_changed = true;
                Ok(None)
            }
            JobKind::Cloud => {
                // Bring the plan up to date with this instant's earlier events,
                // so that the prediction sees what the next pass will do.
                self.catch_up(cfg);
                let job = &self.records[idx].job;
                let (procs, wt, slo, a) = (job.procs, job.walltime, job.slo, job.submit);
                let fit = self.all.earliest_fit(procs, wt, self.now, Mask::Area);
                let pred = prediction(cfg, fit.as_ref().map(|f| f.0), wt, slo, a);
                self.records[idx].prediction = Some(pred.clone());
                if cfg.admission == Admission::RejectPredicted && pred.predicts_violation {
                    self.jobs[idx].st = St::Rejected;
                    self.records[idx].rejected = true;
                    self.records[idx].counter_offer_slo = pred.counter_offer_slo;
                    self.pending_rejects.push(idx);
                } else {
                    self.jobs[idx].st = St::Queued;
                    self.cloud_queue.insert((qkey.0, qkey.1, idx));
                    self.place_cloud(cfg, idx, fit);
                }
                Ok(Some(pred))
            }
        }
    }

    pub(super) fn job_ended(
        &mut self,
        cfg: &EngineConfig,
        id: JobId,
        now: Time,
        reason: EndReason,
    ) -> Result<(), EngineError> {
        let idx = self.lookup(id)?;
        match self.jobs[idx].st {
            St::Ended | St::Rejected => return Err(EngineError::UnknownJob(id)),
            St::Pending | St::Queued => return self.cancel(cfg, id, now),
            St::Running | St::Evicting => {}
        }
        self.advance(now)?;
        if self.jobs[idx].st == St::Running {
            if reason == EndReason::Evicted && self.job(idx).kind == JobKind::Cloud {
                // Killed for eviction by someone else: same as ours.
                self.evict(idx, now);
                self.pending_evicts.retain(|&i| i != idx);
            } else {
                self.stop_running(idx, now);
                let r = &mut self.records[idx];
                r.end = Some(now);
                r.end_reason = Some(reason);
                self.jobs[idx].st = St::Ended;
                return Ok(());
            }
        }
        // Evicting: the kill is acknowledged.
        let r = &mut self.records[idx];
        r.end = Some(now);
        r.end_reason = Some(EndReason::Evicted);
        let lc = cfg.lifecycle;
        let e = &self.jobs[idx];
        let in_system = now - r.job.submit;
        let allowed =
            e.resubmissions < lc.max_resubmissions && lc.max_time_in_system.map_or(true, |m| in_system < m);
        if allowed {
            let e = &mut self.jobs[idx];
            e.resubmissions += 1;
            e.st = St::Queued;
            e.qkey = (now, id);
            self.cloud_queue.insert((now, id, idx));
            let job = self.job(idx);
            let fit = self.all.earliest_fit(job.procs, job.walltime, now, Mask::Area);
            self.place_cloud(cfg, idx, fit);
        } else {
            self.jobs[idx].st = St::Ended;
        }
        Ok(())
    }

    pub(super) fn cancel(&mut self, cfg: &EngineConfig, id: JobId, now: Time) -> Result<(), EngineError> {
        let idx = self.lookup(id)?;
        match self.jobs[idx].st {
            St::Running => return self.job_ended(cfg, id, now, EndReason::Killed),
            St::Pending | St::Queued => {}
            St::Evicting | St::Ended | St::Rejected => return Err(EngineError::UnknownJob(id)),
        }
        self.advance(now)?;
        self.unreserve(idx);
        let e = &self.jobs[idx];
        let key = (e.qkey.0, e.qkey.1, idx);
        match self.job(idx).kind {
            JobKind::Hpc => {
                self.hpc_queue.remove(&key);
                self.hpc_compress = true;
                self.hpc_changed = true;
            }
            JobKind::Cloud => {
                self.cloud_queue.remove(&key);
            }
        }
        self.cloud_compress = true;
        if self.head_res == Some(idx) {
            self.head_res = None;
        }
        self.jobs[idx].st = St::Ended;
        self.records[idx].end_reason = Some(EndReason::Killed);
        Ok(())
    }

    pub(super) fn schedule(&mut self, cfg: &EngineConfig, now: Time) -> Vec<Decision> {
        let now = now.max(self.now);
        self.now = now;
        self.hpc.prune(now);
        self.all.prune(now);
        let mut out: Vec<Decision> = Vec::new();
        for idx in std::mem::take(&mut self.pending_rejects) {
            out.push(Decision::Reject {
                id: self.job(idx).id,
                counter_offer_slo: self.records[idx].counter_offer_slo,
            });
        }
        self.hpc_phase(cfg, now);
        if self.cloud_compress || cfg.policy == Policy::Convergence {
            self.replan_cloud(cfg, now);
        }
        self.cloud_compress = false;
        let starts = std::mem::take(&mut self.pending_starts);
        // Planned evictions that are due.
        while let Some(&(t, idx)) = self.dooms.first() {
            if t > now {
                break;
            }
            self.evict(idx, now);
        }
        // Cloud reservations that are due.
        let mut cloud_starts = Vec::new();
        while let Some(&(t, idx)) = self.cloud_timers.first() {
            if t > now {
                break;
            }
            self.cloud_timers.remove(&(t, idx));
            if t < now {
                // Missed its start (no pass at `t`): re-plan from now.
                self.unreserve_bits(idx, t);
                let job = self.job(idx);
                let fit = self.all.earliest_fit(job.procs, job.walltime, now, Mask::Area);
                self.place_cloud(cfg, idx, fit);
                if self.jobs[idx].res.as_ref().is_some_and(|r| r.0 > now) {
                    continue;
                }
                self.cloud_timers.remove(&(now, idx));
            }
            self.start_cloud(idx, now);
            cloud_starts.push(idx);
        }
        for idx in std::mem::take(&mut self.pending_evicts) {
            out.push(Decision::Evict { id: self.job(idx).id });
        }
        for idx in starts.into_iter().chain(cloud_starts) {
            let procs = self.records[idx].procs.clone().unwrap_or_default();
            out.push(Decision::Start {
                id: self.job(idx).id,
                procs,
            });
        }
        out
    }

    /// Run the HPC part of a pass now (starts are kept for the next
    /// `schedule`), then the cloud layer's compression if due.
    fn catch_up(&mut self, cfg: &EngineConfig) {
        let now = self.now;
        if self.hpc_changed || self.hpc_compress {
            self.hpc.prune(now);
            self.all.prune(now);
            self.hpc_phase(cfg, now);
        }
        if self.cloud_compress {
            self.replan_cloud(cfg, now);
            self.cloud_compress = false;
        }
    }

    /// The policy's HPC pass, evictions for the HPC jobs it starts, and the
    /// re-planning of the cloud reservations HPC work displaced.
    fn hpc_phase(&mut self, cfg: &EngineConfig, now: Time) {
        let event = std::mem::take(&mut self.hpc_changed);
        let mut starts: Vec<usize> = Vec::new();
        match cfg.policy {
            Policy::Fcfs => self.pass_fifo(cfg, now, false, &mut starts),
            Policy::Easy => self.pass_fifo(cfg, now, true, &mut starts),
            Policy::Conservative => self.pass_reserving(cfg, now, false, &mut starts),
            Policy::Convergence => self.pass_reserving(cfg, now, event, &mut starts),
        }
        // HPC starts evict the cloud jobs on their processors.
        for &idx in &starts {
            let bits = self.jobs[idx]
                .res
                .as_ref()
                .map(|r| r.1.clone())
                .unwrap_or_else(|| Bits::empty(self.width));
            let victims: BTreeSet<usize> = bits
                .and(&self.cloud_running)
                .iter()
                .filter_map(|p| self.owner.get(&p).copied())
                .collect();
            for v in victims {
                self.evict(v, now);
            }
        }
        self.pending_starts.extend(starts);
        let mut displaced = std::mem::take(&mut self.displaced);
        displaced.sort_by_key(|&i| self.jobs[i].qkey);
        displaced.dedup();
        for idx in displaced {
            if self.jobs[idx].st == St::Queued && self.jobs[idx].res.is_none() {
                let job = self.job(idx);
                let fit = self.all.earliest_fit(job.procs, job.walltime, now, Mask::Area);
                self.place_cloud(cfg, idx, fit);
            }
        }
    }

    pub(super) fn next_wakeup(&self) -> Option<Time> {
        [
            self.hpc_timers.first(),
            self.cloud_timers.first(),
            self.dooms.first(),
        ]
        .into_iter()
        .flatten()
        .map(|&(t, _)| t)
        .min()
    }

    pub(super) fn predict(
        &self,
        cfg: &EngineConfig,
        procs: u32,
        wt: Time,
        slo: Option<Time>,
        now: Time,
    ) -> Prediction {
        let fit = if procs == 0 || procs > cfg.conv_procs || wt < Time::ZERO {
            None
        } else {
            self.all
                .earliest_fit(procs, wt, now.max(self.now), Mask::Area)
                .map(|f| f.0)
        };
        prediction(cfg, fit, wt, slo, now)
    }

    pub(super) fn slots(&self, now: Time) -> Slots {
        let now = now.max(self.now);
        let mut segs = self.all.segments_from(now);
        let Some((_, first)) = segs.next() else {
            return Slots::default();
        };
        // W_immediate: processors of the area idle now and until when.
        let mut idle = first.and(&self.area);
        let mut immediate: Vec<ImmediateSlot> = Vec::new();
        // W_future: per-processor idle runs that start after now.
        let mut run_start: BTreeMap<u32, Time> = BTreeMap::new();
        let mut prev = first.and(&self.area);
        let mut groups: BTreeMap<(Time, Time), Vec<u32>> = BTreeMap::new();
        for (t, free) in segs {
            let free = free.and(&self.area);
            for p in idle.andnot(&free).iter() {
                immediate.push(ImmediateSlot {
                    proc: p,
                    idle_until: t,
                });
            }
            idle.and_assign(&free);
            for p in prev.andnot(&free).iter() {
                if let Some(s) = run_start.remove(&p) {
                    groups.entry((s, t)).or_default().push(p);
                }
            }
            for p in free.andnot(&prev).iter() {
                run_start.insert(p, t);
            }
            prev = free;
        }
        for p in idle.iter() {
            immediate.push(ImmediateSlot {
                proc: p,
                idle_until: Time::INFINITY,
            });
        }
        for (p, s) in run_start {
            groups.entry((s, Time::INFINITY)).or_default().push(p);
        }
        immediate.sort_by_key(|s| s.proc);
        let future = groups
            .into_iter()
            .map(|((start, end), ps)| FutureSlot {
                start,
                end,
                procs: crate::ProcSet::from_sorted_ids(ps),
            })
            .collect();
        Slots { immediate, future }
    }

    pub(super) fn job_state(&self, id: JobId) -> Option<JobState> {
        let idx = *self.index.get(&id)?;
        let e = &self.jobs[idx];
        Some(match e.st {
            St::Pending => JobState::Queued { planned_start: None },
            St::Queued => JobState::Queued {
                planned_start: e.res.as_ref().map(|r| r.0),
            },
            St::Running => JobState::Running {
                start: self.records[idx].start.unwrap_or(self.now),
                procs: self.records[idx].procs.clone().unwrap_or_default(),
            },
            St::Evicting | St::Ended => JobState::Ended,
            St::Rejected => JobState::Rejected,
        })
    }

    pub(super) fn queued(&self, kind: JobKind) -> usize {
        match kind {
            JobKind::Hpc => self.hpc_queue.len(),
            JobKind::Cloud => self.cloud_queue.len(),
        }
    }

    pub(super) fn running(&self, kind: JobKind) -> usize {
        match kind {
            JobKind::Hpc => self.running_hpc.len(),
            JobKind::Cloud => self.running_cloud.len(),
        }
    }

    // ----- plan mechanics ----------------------------------------------------

    /// Occupy `bits` over `[s, e)` with HPC work (both layers); cloud work in
    /// the way gives way (see the module docs).
    fn hpc_occupy(&mut self, bits: &Bits, s: Time, e: Time) {
        self.hpc.reserve(bits, s, e);
        if !self.all.is_free(bits, s, e) {
            self.clear_cloud(bits, s, e);
        }
        self.all.reserve(bits, s, e);
    }

    /// Remove cloud work from `bits` over `[s, e)` in the `all` layer.
    fn clear_cloud(&mut self, bits: &Bits, s: Time, e: Time) {
        let now = self.now;
        let queued: Vec<usize> = self
            .cloud_queue
            .iter()
            .map(|k| k.2)
            .filter(|&i| {
                self.jobs[i].res.as_ref().is_some_and(|(rs, rb)| {
                    *rs < e && s < *rs + self.job(i).walltime && rb.and_count(bits) > 0
                })
            })
            .collect();
        for i in queued {
            self.unreserve(i);
            self.displaced.push(i);
        }
        let running: Vec<usize> = self
            .running_cloud
            .iter()
            .copied()
            .filter(|&i| {
                self.jobs[i].occ_end > s && self.jobs[i].res.as_ref().is_some_and(|r| r.1.and_count(bits) > 0)
            })
            .collect();
        for i in running {
            if s <= now {
                self.evict(i, now);
            } else {
                let e_old = self.jobs[i].occ_end;
                let b = self.jobs[i]
                    .res
                    .as_ref()
                    .map(|r| r.1.clone())
                    .unwrap_or_else(|| Bits::empty(self.width));
                self.all.release(&b, s, e_old);
                let entry = &mut self.jobs[i];
                entry.occ_end = s;
                if let Some(t) = entry.evict_at.replace(s) {
                    self.dooms.remove(&(t, i));
                }
                self.dooms.insert((s, i));
            }
        }
    }

    /// Free HPC work's `bits` over `[s, e)` (both layers); running cloud jobs
    /// scheduled for eviction get their full run back if it is free again.
    fn hpc_free(&mut self, bits: &Bits, s: Time, e: Time) {
        self.hpc.release(bits, s, e);
        self.all.release(bits, s, e);
        if self.dooms.is_empty() {
            return;
        }
        let doomed: Vec<(Time, usize)> = self.dooms.iter().copied().collect();
        for (t, i) in doomed {
            let Some(b) = self.jobs[i].res.as_ref().map(|r| r.1.clone()) else {
                continue;
            };
            let full_end = self.records[i].start.unwrap_or(t) + self.job(i).walltime;
            if self.all.is_free(&b, t, full_end) {
                self.all.reserve(&b, t, full_end);
                self.dooms.remove(&(t, i));
                let entry = &mut self.jobs[i];
                entry.occ_end = full_end;
                entry.evict_at = None;
            }
        }
    }

    /// Drop a queued job's reservation (if any) from the plan.
    fn unreserve(&mut self, idx: usize) {
        if let Some((s, _)) = self.jobs[idx].res {
            self.unreserve_bits(idx, s);
        }
    }

    fn unreserve_bits(&mut self, idx: usize, s: Time) {
        let Some((_, bits)) = self.jobs[idx].res.take() else {
            return;
        };
        let e = s + self.job(idx).walltime;
        match self.job(idx).kind {
            JobKind::Hpc => {
                self.hpc_timers.remove(&(s, idx));
                self.hpc_free(&bits, s, e);
            }
            JobKind::Cloud => {
                self.cloud_timers.remove(&(s, idx));
                self.all.release(&bits, s, e);
            }
        }
    }

    /// Reserve a cloud job at `fit` (from `all.earliest_fit`), choosing its processors.
    fn place_cloud(&mut self, cfg: &EngineConfig, idx: usize, fit: Option<(Time, Bits)>) {
        self.place_cloud_keep(cfg, idx, fit, None)
    }

    /// [`State::place_cloud`], keeping `prev`'s processors if the start is unchanged and they are free.
    fn place_cloud_keep(
        &mut self,
        cfg: &EngineConfig,
        idx: usize,
        fit: Option<(Time, Bits)>,
        prev: Option<(Time, Bits)>,
    ) {
        let Some((s, cand)) = fit else { return };
        let job = self.job(idx);
        let (k, wt) = (job.procs, job.walltime);
        let bits = if let Some((_, pb)) = prev.filter(|(ps, pb)| *ps == s && pb.is_subset(&cand)) {
            pb
        } else if cfg.policy == Policy::Convergence {
            self.stage_pick(&self.all, std::slice::from_ref(&cand), k, s, true)
        } else {
            let mut b = Bits::empty(self.width);
            b.take_highest(&cand, k);
            b
        };
        self.all.reserve(&bits, s, s + wt);
        self.cloud_timers.insert((s, idx));
        self.jobs[idx].res = Some((s, bits));
    }

    /// Processor preference of the convergence policy, applied to `tiers` in
    /// order: stage 1 (start now) takes the processors that stay idle longest
    /// first (the thesis's `v_1 ≥ … ≥ v_y`); later stages (holes between and
    /// after reservations) take them by id. Ties go to the lowest ids, or to
    /// the highest with `high_first` (cloud work), so that cloud and HPC work
    /// start from opposite ends of the area.
    ///
    /// Cost: `O(B·W)` for the `B` breakpoints until fewer than `k` of the
    /// candidates are still idle, no sorting.
    fn stage_pick(&self, profile: &Profile, tiers: &[Bits], k: u32, s: Time, high_first: bool) -> Bits {
        let mut out = Bits::empty(self.width);
        let mut need = k;
        let take = |out: &mut Bits, from: &Bits, n: u32| {
            if high_first {
                out.take_highest(from, n)
            } else {
                out.take_lowest(from, n)
            }
        };
        for tier in tiers {
            if need == 0 {
                break;
            }
            if s > self.now {
                need -= take(&mut out, tier, need);
                continue;
            }
            // Sweep while at least `need` candidates are still idle.
            let mut remaining = tier.clone();
            let mut dropped: Option<Bits> = None;
            for (_, free) in profile.segments_from(s).skip(1) {
                let next = remaining.and(free);
                if next.count() < need {
                    dropped = Some(remaining.andnot(&next));
                    remaining = next;
                    break;
                }
                remaining = next;
            }
            need -= take(&mut out, &remaining, need);
            if let Some(d) = dropped {
                need -= take(&mut out, &d, need);
            }
        }
        out
    }

    /// Choose `k` processors for HPC work starting at `s` from `cand` (all
    /// free in the HPC layer): outside the area first, then inside, lowest ids
    /// first (convergence: its stage order inside each of the two groups).
    ///
    /// The choice deliberately ignores cloud work, so HPC decisions are
    /// exactly those the policy makes with no cloud job at all. Cloud jobs
    /// take the *highest* free ids of the area, away from where HPC work lands.
    fn choose_hpc(&self, cfg: &EngineConfig, cand: &Bits, k: u32, s: Time) -> Bits {
        let tiers = [cand.andnot(&self.area), cand.and(&self.area)];
        if cfg.policy == Policy::Convergence {
            return self.stage_pick(&self.hpc, &tiers, k, s, false);
        }
        let mut b = Bits::empty(self.width);
        let mut need = k;
        for t in &tiers {
            if need == 0 {
                break;
            }
            need -= b.take_lowest(t, need);
        }
        b
    }

    /// Reserve an HPC job at its earliest fit from `now` (conservative/convergence).
    ///
    /// `prev` is the job's previous reservation when it is re-planned: if the
    /// start does not change and its processors are still free, it keeps them
    /// (so a re-plan that moves nothing changes nothing).
    fn place_hpc(&mut self, cfg: &EngineConfig, idx: usize, now: Time, prev: Option<(Time, Bits)>) {
        let job = self.job(idx);
        let (k, wt) = (job.procs, job.walltime);
        let Some((s, cand)) = self.hpc.earliest_fit(k, wt, now, Mask::All) else {
            return;
        };
        let bits = match prev {
            Some((ps, pb)) if ps == s && pb.is_subset(&cand) => pb,
            _ => self.choose_hpc(cfg, &cand, k, s),
        };
        self.hpc_occupy(&bits, s, s + wt);
        self.hpc_timers.insert((s, idx));
        self.jobs[idx].res = Some((s, bits));
    }

    /// Mark an HPC job running from `now` on its reserved processors.
    fn start_hpc(&mut self, idx: usize, now: Time) {
        let key = {
            let e = &self.jobs[idx];
            (e.qkey.0, e.qkey.1, idx)
        };
        self.hpc_queue.remove(&key);
        let wt = self.job(idx).walltime;
        let e = &mut self.jobs[idx];
        e.st = St::Running;
        e.occ_end = now + wt;
        let procs = e.res.as_ref().map(|r| r.1.to_procset());
        if let Some(r) = e.res.as_mut() {
            r.0 = now;
        }
        self.running_hpc.insert(idx);
        let r = &mut self.records[idx];
        r.start = Some(now);
        r.procs = procs;
        r.end = None;
        r.end_reason = None;
    }

    fn start_cloud(&mut self, idx: usize, now: Time) {
        let key = {
            let e = &self.jobs[idx];
            (e.qkey.0, e.qkey.1, idx)
        };
        self.cloud_queue.remove(&key);
        let wt = self.job(idx).walltime;
        let e = &mut self.jobs[idx];
        e.st = St::Running;
        e.occ_end = now + wt;
        e.evict_at = None;
        let bits = e
            .res
            .as_ref()
            .map(|r| r.1.clone())
            .unwrap_or_else(|| Bits::empty(self.width));
        self.cloud_running.or_assign(&bits);
        for p in bits.iter() {
            self.owner.insert(p, idx);
        }
        self.running_cloud.insert(idx);
        let r = &mut self.records[idx];
        r.start = Some(now);
        r.procs = Some(bits.to_procset());
        r.end = None;
        r.end_reason = None;
    }

    /// A running job stops at `now`: free the rest of its occupancy.
    fn stop_running(&mut self, idx: usize, now: Time) {
        let e = &self.jobs[idx];
        let occ_end = e.occ_end;
        let bits = e
            .res
            .as_ref()
            .map(|r| r.1.clone())
            .unwrap_or_else(|| Bits::empty(self.width));
        match self.job(idx).kind {
            JobKind::Hpc => {
                self.running_hpc.remove(&idx);
                self.hpc_changed = true;
                if now < occ_end {
                    self.hpc_free(&bits, now, occ_end);
                    self.hpc_compress = true;
                    self.cloud_compress = true;
                }
            }
            JobKind::Cloud => {
                self.running_cloud.remove(&idx);
                self.cloud_running.andnot_assign(&bits);
                for p in bits.iter() {
                    self.owner.remove(&p);
                }
                if let Some(t) = self.jobs[idx].evict_at.take() {
                    self.dooms.remove(&(t, idx));
                }
                if now < occ_end {
                    self.all.release(&bits, now, occ_end);
                    self.cloud_compress = true;
                }
            }
        }
    }

    /// Evict a running cloud job now.
    fn evict(&mut self, idx: usize, now: Time) {
        if self.jobs[idx].st != St::Running {
            return;
        }
        self.stop_running(idx, now);
        self.jobs[idx].st = St::Evicting;
        let job = &self.records[idx].job;
        let ran = now - self.records[idx].start.unwrap_or(now);
        let lost = work(job.procs, ran);
        let r = &mut self.records[idx];
        r.evictions += 1;
        r.lost_work += lost;
        self.pending_evicts.push(idx);
    }

    /// Compression of the cloud layer: every queued cloud job, in queue
    /// order, moves to its earliest fit (never later than before).
    ///
    /// Bounded: only the first [`CLOUD_COMPRESSION_WINDOW`] queued cloud jobs
    /// are re-planned per pass, so an overloaded area (a queue of tens of
    /// thousands of cloud jobs) does not make every early end cost the whole
    /// queue. The others keep their reservations, which stay valid (they are
    /// never moved later); they are compressed once they reach the window.
    fn replan_cloud(&mut self, cfg: &EngineConfig, now: Time) {
        let queued: Vec<usize> = self
            .cloud_queue
            .iter()
            .take(CLOUD_COMPRESSION_WINDOW)
            .map(|k| k.2)
            .collect();
        for idx in queued {
            if self.jobs[idx].res.as_ref().is_some_and(|r| r.0 <= now) {
                continue;
            }
            let prev = self.jobs[idx].res.clone();
            self.unreserve(idx);
            let job = self.job(idx);
            let fit = self.all.earliest_fit(job.procs, job.walltime, now, Mask::Area);
            self.place_cloud_keep(cfg, idx, fit, prev);
        }
    }

    // ----- policies ----------------------------------------------------------

    /// FCFS (`backfill = false`) and EASY (`backfill = true`).
    fn pass_fifo(&mut self, cfg: &EngineConfig, now: Time, backfill: bool, starts: &mut Vec<usize>) {
        if let Some(h) = self.head_res.take() {
            self.unreserve(h);
        }
        let order: Vec<usize> = self.hpc_queue.iter().map(|k| k.2).collect();
        for &idx in &order {
            self.jobs[idx].st = St::Queued;
        }
        let mut i = 0;
        while i < order.len() && self.try_start_now(cfg, order[i], now) {
            starts.push(order[i]);
            i += 1;
        }
        let Some(&head) = order.get(i) else { return };
        if backfill {
            let (k, wt) = (self.job(head).procs, self.job(head).walltime);
            if let Some((shadow, _)) = self.hpc.earliest_fit(k, wt, now, Mask::All) {
                let mut extra = self.hpc.free_at(shadow).count().saturating_sub(k);
                for &idx in &order[i + 1..] {
                    let job = self.job(idx);
                    let (kj, ends) = (job.procs, now + job.walltime);
                    if self.hpc.free_at(now).count() < kj {
                        continue;
                    }
                    let fits_before = ends <= shadow;
                    if !fits_before && kj > extra {
                        continue;
                    }
                    if self.try_start_now(cfg, idx, now) {
                        if !fits_before {
                            extra -= kj;
                        }
                        starts.push(idx);
                    }
                }
            }
        }
        // The head's reservation, so that cloud work keeps off it.
        self.place_hpc(cfg, head, now, None);
        if let Some((s, _)) = self.jobs[head].res {
            self.hpc_timers.remove(&(s, head));
        }
        self.head_res = Some(head);
    }

    /// Start an HPC job now if enough processors are free now and until its walltime.
    fn try_start_now(&mut self, cfg: &EngineConfig, idx: usize, now: Time) -> bool {
        let job = self.job(idx);
        let (k, wt) = (job.procs, job.walltime);
        if self.hpc.free_at(now).count() < k {
            return false;
        }
        let cand = self.hpc.free_over(now, now + wt);
        if cand.count() < k {
            return false;
        }
        let bits = self.choose_hpc(cfg, &cand, k, now);
        self.hpc_occupy(&bits, now, now + wt);
        self.jobs[idx].res = Some((now, bits));
        self.start_hpc(idx, now);
        true
    }

    /// Conservative (`every_event = false`: compression only after an early
    /// end or a cancellation) and convergence (`every_event = true` when an
    /// HPC job arrived or ended: all planned jobs are re-planned, as
    /// CArS/OAR do at every scheduling event).
    ///
    /// Compression happens at most once per instant: one round of queue-order
    /// compression is not a fixpoint, so compressing again at the same instant
    /// (or at instants with only cloud events) could move HPC jobs, and HPC
    /// decisions must not depend on cloud traffic.
    fn pass_reserving(&mut self, cfg: &EngineConfig, now: Time, every_event: bool, starts: &mut Vec<usize>) {
        let order: Vec<usize> = self.hpc_queue.iter().map(|k| k.2).collect();
        if (every_event || self.hpc_compress) && self.compressed_at != Some(now) {
            self.compressed_at = Some(now);
            for &idx in &order {
                if self.jobs[idx].st == St::Queued {
                    let prev = self.jobs[idx].res.clone();
                    self.unreserve(idx);
                    self.place_hpc(cfg, idx, now, prev.clone());
                    debug_assert!(self.jobs[idx].res.as_ref().map(|r| r.0) <= prev.map(|p| p.0));
                }
            }
        }
        self.hpc_compress = false;
        for &idx in &order {
            if self.jobs[idx].st == St::Pending {
                self.jobs[idx].st = St::Queued;
                self.place_hpc(cfg, idx, now, None);
            }
        }
        while let Some(&(t, idx)) = self.hpc_timers.first() {
            if t > now {
                break;
            }
            self.hpc_timers.remove(&(t, idx));
            if t < now {
                // Missed its start (no pass at `t`): re-plan from now.
                self.unreserve_bits(idx, t);
                self.place_hpc(cfg, idx, now, None);
                if self.jobs[idx].res.as_ref().is_some_and(|r| r.0 > now) {
                    continue;
                }
                self.hpc_timers.remove(&(now, idx));
            }
            self.start_hpc(idx, now);
            starts.push(idx);
        }
    }
}

/// Algorithm 1's prediction from a predicted start (`None` = ∞).
pub(super) fn prediction(
    cfg: &EngineConfig,
    start: Option<Time>,
    wt: Time,
    slo: Option<Time>,
    arrival: Time,
) -> Prediction {
    let completion = start.map(|s| s + wt.mul_f64(cfg.lambda));
    let violation_seconds = match (completion, slo) {
        (Some(c), Some(slo)) => Some((c - (arrival + slo)).as_secs_f64()),
        _ => None,
    };
    let predicts_violation = match slo {
        None => false,
        Some(slo) => completion.map_or(true, |c| c > arrival + slo),
    };
    let counter_offer_slo = completion.map(|c| (c - arrival).mul_f64(cfg.tau));
    Prediction {
        start,
        completion,
        violation_seconds,
        predicts_violation,
        counter_offer_slo,
    }
}
