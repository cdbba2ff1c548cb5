//! The engine's state and the mechanics shared by every policy: job table,
//! queues, the two-layer plan, starts, evictions, resubmission, prediction.
//!
//! # Two layers
//!
//! * `hpc` — running HPC jobs plus HPC reservations. HPC planning looks only
//!   at this layer, so cloud work can never delay HPC work.
//! * `all` — `hpc` plus the cloud jobs (running, and reserved in the holes of
//!   the area). Cloud placement and prediction use this layer. It is kept
//!   apart only once it differs: until the first cloud job under hpc-first,
//!   and always under shared-queue (every job on `hpc`), `all` *is* `hpc`,
//!   so HPC work is planned once, not twice.
//!
//! When HPC work lands on processors the `all` layer holds for cloud work,
//! the cloud work gives way: queued cloud reservations in the way are dropped
//! and re-planned (in queue order, at the end of the HPC pass); running cloud
//! jobs in the way are evicted now if the HPC work starts now, else truncated
//! and scheduled for eviction when it starts (un-scheduled again if that HPC
//! reservation moves away and the processors stay free).
//!
//! # Where each part lives
//!
//! This file holds the state, the event operations and the pass. Its
//! children: `layers` (HPC work occupying and freeing both layers, the
//! `all` layer, reservations lifted), `queue` (the HPC layer's queue, with
//! what a pass reads of each job), `cloud` (the reservation window and
//! its backlog), `answers` (every predictor's start, the published slots),
//! `fifo` (FCFS and EASY) with `counts` (their HPC layer counted until the
//! plan is read), `reserving` (conservative, convergence, CArS, the
//! reservation depth) with `backfill` (jobs beyond the depth), `placement`
//! (which processors an HPC-layer job takes), `overdue` (jobs past their
//! walltime), `records` (job states and hand-over), `mirror` (a batch
//! system's plan), `started` (HPC work held where the batch system started
//! it), `area` (a resize of the convergence area), `topsis` and `victims`.

mod admit;
mod answers;
mod area;
mod backfill;
mod cloud;
mod counts;
mod fifo;
mod foresight;
mod layers;
mod mirror;
mod overdue;
mod placement;
mod queue;
mod records;
mod reserving;
mod running;
mod started;
mod topsis;
mod victims;

use super::bound::CompressionBounds;
use super::stages;
use super::table::JobTable;
use super::{
    Decision, EndReason, EngineConfig, EngineError, FutureSlot, ImmediateSlot, JobState, Policy, Prediction,
    Predictor, Scheduling, Slots, Submitted,
};
use crate::bits::Bits;
use crate::candidate::Request;
use crate::job::{Job, JobId, JobKind};
use crate::learn::{CalibrationBin, Learner};
use crate::metrics::{EvictedRun, JobRecord, Verdict};
use crate::plan::{Mask, Profile};
use crate::time::Time;
use std::collections::{BTreeMap, BTreeSet, HashMap, VecDeque};

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
    /// Running cloud job: planned eviction time ([`Time::INFINITY`] = none).
    evict_at: Time,
    resubmissions: u32,
    /// Evicting: the work the eviction counted as lost (given back if the
    /// job turns out to have ended on its own before the kill).
    evicted_lost: Time,
    /// Queued cloud job waiting in the backlog (no reservation).
    in_backlog: bool,
    /// Queue order: the time it entered the queue (then the id).
    qtime: Time,
    /// Cloud job: where its learned prediction fell in the calibration
    /// table, so that its outcome is counted there.
    calibration: Option<CalibrationBin>,
    /// What the foresight rule needs (`foresight`).
    marks: foresight::Marks,
}

type QKey = (Time, JobId, usize);

/// An Algorithm 3 question: processors, walltime, from, mask, plan version.
type StageQuery = (u32, Time, Time, Mask, u64);

/// Its answer: start and processors, if the job can be placed.
type StageAnswer = Option<(Time, Bits)>;

/// Default number of queued cloud jobs that hold a reservation (see
/// [`super::Engine::set_cloud_window`]).
pub(crate) const CLOUD_WINDOW: usize = 64;

/// At most this many plan segments are scanned for a backlog job's prediction.
pub(crate) const TAIL_SCAN: usize = 4096;

/// The processors a job of `kind` may use: the area for cloud jobs.
fn mask_of_kind(kind: JobKind) -> Mask {
    match kind {
        JobKind::Hpc => Mask::All,
        JobKind::Cloud => Mask::Area,
    }
}

/// `ceil(work / procs)` ticks, saturating.
fn ticks_ceil(work: i128, procs: i128) -> Time {
    let t = (work + procs - 1).div_euclid(procs.max(1));
    Time::from_ticks(t.clamp(0, i64::MAX as i128 / 2) as i64)
}

#[derive(Debug)]
pub(super) struct State {
    pub(super) now: Time,
    width: u32,
    area: Bits,
    /// Processors in `area` (its count, kept: placement asks at every start).
    area_count: u32,
    /// The widest the area has been (its configured size, or a larger
    /// resize): a cloud job wider than that can never run; one wider than
    /// the area now waits until it grows back (`area`).
    widest_area: u32,
    /// The first of [`EngineConfig::area_schedule`]'s changes still to come.
    next_area_change: usize,
    /// Every processor.
    every: Bits,
    /// `shared-queue`: every job on the HPC layer, in one queue, never evicted.
    shared: bool,
    /// The last Algorithm 3 placement, keyed by its question and the HPC
    /// layer's version: a cloud job's exact prediction is reused when the
    /// job is placed on the unchanged plan.
    stage_cache: std::cell::RefCell<Option<(StageQuery, StageAnswer)>>,
    /// Each job's record, boxed: it is handed over to the shell (and on to a
    /// writer thread) as one pointer, not copied at every step.
    pub(super) records: JobTable<Box<JobRecord>>,
    jobs: JobTable<Entry>,
    index: crate::IdMap<JobId, usize>,
    hpc: Profile,
    /// FCFS and EASY before anything else reads the plan: the HPC layer as
    /// the processors free now, `hpc` left empty (`counts`).
    counted: Option<counts::Counted>,
    /// While counting: the profile the counts stand for and the head's
    /// start, built when something reads it, dropped at the next change.
    counted_plan: std::cell::OnceCell<(Profile, Option<Time>)>,
    /// The `all` layer (HPC work and cloud work), once it differs from
    /// `hpc`: `None` until the first cloud job under hpc-first, and always
    /// under shared-queue, where every job is on `hpc` (see [`State::all`]).
    cloud_layer: Option<Profile>,
    hpc_queue: queue::Queue,
    /// HPC jobs submitted since the last HPC phase.
    new_hpc: Vec<usize>,
    /// The reservation window: queued cloud jobs holding a reservation
    /// (at most `cloud_window`).
    cloud_queue: BTreeSet<QKey>,
    /// Queued cloud jobs without reservation, FIFO (lazily deleted: an
    /// entry counts only while its job's `in_backlog` is set).
    backlog: VecDeque<usize>,
    /// Live entries of `backlog`.
    backlog_len: usize,
    /// Their work (processor-ticks).
    backlog_work: i128,
    cloud_window: usize,
    /// An event (submit, end, cancel) happened since the last pass.
    dirty: bool,
    hpc_timers: BTreeSet<(Time, usize)>,
    /// Ends of maintenance windows still to come: each frees processors
    /// with no job event, so the engine wakes up for it.
    maintenance_ends: BTreeSet<Time>,
    cloud_timers: BTreeSet<(Time, usize)>,
    dooms: BTreeSet<(Time, usize)>,
    running_hpc: running::RunningSet,
    running_cloud: BTreeSet<usize>,
    /// Running jobs by the end of their walltime (`start + walltime`): those
    /// at or before now are overdue until the shell reports their end.
    deadlines: BTreeSet<(Time, usize)>,
    /// Processors running a cloud job now.
    cloud_running: Bits,
    /// Owner of each processor running a cloud job.
    owner: BTreeMap<u32, usize>,
    head_res: Option<usize>,
    /// [`super::Victims::Ranked`]: the shell's ranks of running cloud jobs.
    victim_ranks: HashMap<JobId, crate::qos::policy::Key>,
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
    /// Keep final jobs for [`State::take_finished`].
    hand_over: bool,
    /// Jobs that became final since the last pass ended.
    newly_final: Vec<usize>,
    /// Jobs final as of the last pass, not handed over yet.
    final_ready: Vec<usize>,
    /// What the learned predictor knows from the jobs that ended.
    learner: Learner,
    /// HPC starts, for the shared-queue foresight rule.
    hpc_starts: foresight::HpcStarts,
    /// Queued jobs beyond the reservation depth, for backfilling (empty
    /// while the depth is unlimited).
    tail: backfill::Tail,
    /// `cars`: plan from scratch at every session, even one that changed
    /// nothing the plan rests on (the reference its tests compare with).
    pub(super) cars_every_session: bool,
    /// The cloud work admitted over the regulator's window.
    rate: crate::regulate::RateWindow,
}

/// Breakpoints of each layer the learned predictor reads for the cloud
/// share of the work ahead.
const SHARE_SEGMENTS: usize = 256;

fn work(procs: u32, d: Time) -> Time {
    Time::from_ticks(d.ticks().saturating_mul(procs as i64))
}

impl State {
    pub(super) fn new(cfg: &EngineConfig) -> State {
        let area = Bits::range(cfg.procs, 0, cfg.conv_procs);
        let mut hpc = Profile::new(cfg.procs, area.clone());
        for window in &cfg.maintenance {
            hpc.block(
                &Bits::from_procset(cfg.procs, &window.procs),
                window.start,
                window.end(),
            );
        }
        State {
            now: Time::ZERO,
            width: cfg.procs,
            every: Bits::range(cfg.procs, 0, cfg.procs),
            shared: cfg.scheduling == Scheduling::SharedQueue,
            stage_cache: std::cell::RefCell::new(None),
            cloud_layer: None,
            hpc,
            counted: State::counts_from_start(cfg).then(|| State::new_counted(cfg.procs)),
            counted_plan: std::cell::OnceCell::new(),
            area_count: area.count(),
            area,
            widest_area: cfg.conv_procs,
            next_area_change: 0,
            records: JobTable::default(),
            jobs: JobTable::default(),
            index: crate::IdMap::default(),
            hpc_queue: queue::Queue::default(),
            new_hpc: Vec::new(),
            cloud_queue: BTreeSet::new(),
            backlog: VecDeque::new(),
            backlog_len: 0,
            backlog_work: 0,
            cloud_window: cfg.reservation_depth.cloud_window(CLOUD_WINDOW),
            dirty: false,
            hpc_timers: BTreeSet::new(),
            maintenance_ends: cfg.maintenance.iter().map(|w| w.end()).collect(),
            cloud_timers: BTreeSet::new(),
            dooms: BTreeSet::new(),
            running_hpc: running::RunningSet::default(),
            running_cloud: BTreeSet::new(),
            deadlines: BTreeSet::new(),
            cloud_running: Bits::empty(cfg.procs),
            owner: BTreeMap::new(),
            head_res: None,
            victim_ranks: HashMap::new(),
            pending_rejects: Vec::new(),
            pending_evicts: Vec::new(),
            pending_starts: Vec::new(),
            hpc_changed: false,
            hpc_compress: false,
            compressed_at: None,
            cloud_compress: false,
            displaced: Vec::new(),
            hand_over: false,
            newly_final: Vec::new(),
            final_ready: Vec::new(),
            learner: Learner::default(),
            hpc_starts: foresight::HpcStarts::default(),
            tail: backfill::Tail::default(),
            cars_every_session: false,
            rate: Default::default(),
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
        self.dirty = true;
        Ok(())
    }

    /// Change the reservation window (at least 1).
    pub(super) fn set_cloud_window(&mut self, k: usize) {
        self.cloud_window = k.max(1);
    }

    /// A queued job's key in its queue.
    fn qkey(&self, idx: usize) -> QKey {
        (self.jobs[idx].qtime, self.records[idx].job.id, idx)
    }

    fn lookup(&self, id: JobId) -> Result<usize, EngineError> {
        self.index.get(&id).copied().ok_or(EngineError::UnknownJob(id))
    }

    pub(super) fn verdicts(&self, id: JobId) -> Option<[Verdict; Predictor::ALL.len()]> {
        self.records[self.lookup(id).ok()?].verdicts
    }

    pub(super) fn hit_by_later_hpc(&self, id: JobId) -> Option<bool> {
        Some(self.records[self.lookup(id).ok()?].hit_by_later_hpc)
    }

    fn job(&self, idx: usize) -> &Job {
        &self.records[idx].job
    }

    /// Is the job planned on the HPC layer (HPC jobs; every job under
    /// `shared-queue`)?
    fn on_hpc_layer(&self, idx: usize) -> bool {
        self.shared || self.job(idx).kind == JobKind::Hpc
    }

    /// The processors a job may use: the area for cloud jobs.
    fn mask_of(&self, idx: usize) -> Mask {
        mask_of_kind(self.job(idx).kind)
    }

    fn mask_bits(&self, mask: Mask) -> &Bits {
        match mask {
            Mask::All => &self.every,
            Mask::Area => &self.area,
        }
    }

    // ----- public operations -------------------------------------------------

    pub(super) fn submit(
        &mut self,
        cfg: &EngineConfig,
        job: Job,
        owner: Option<u32>,
    ) -> Result<Submitted, EngineError> {
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
            JobKind::Cloud if job.procs > self.widest_area => {
                return unsched(format!(
                    "cloud job asks for {} processors, the convergence area has {}",
                    job.procs, self.widest_area
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
        let idx = self.records.next_index();
        self.index.insert(job.id, idx);
        let qkey = (job.submit, job.id);
        self.jobs.push(Entry {
            st: St::Pending,
            res: None,
            occ_end: Time::ZERO,
            evict_at: Time::INFINITY,
            resubmissions: 0,
            evicted_lost: Time::ZERO,
            in_backlog: false,
            qtime: qkey.0,
            calibration: None,
            marks: foresight::Marks::default(),
        });
        let kind = job.kind;
        let shape = queue::Shape::of(&job);
        self.records.push(Box::new(JobRecord::new(job)));
        match kind {
            JobKind::Hpc => {
                self.hpc_queue.insert((qkey.0, qkey.1, idx), shape);
                self.new_hpc.push(idx);
                self.hpc_changed = true;
                Ok(Submitted::Queued)
            }
            JobKind::Cloud => {
                // Cloud work reads the HPC layer's plan from now on.
                self.materialize(cfg);
                // Bring the plan up to date with this instant's earlier events,
                // so that the prediction sees what the next pass will do.
                self.catch_up(cfg);
                let job = &self.records[idx].job;
                let (procs, wt, slo, a) = (job.procs, job.walltime, job.slo, job.submit);
                let backlog = !self.shared && self.window_full();
                // Where the job goes in the cloud layer (hpc-first, window not full).
                let fit = if self.shared || backlog {
                    None
                } else {
                    self.all().earliest_fit(procs, wt, self.now, Mask::Area)
                };
                let now = self.now;
                let exact = if self.shared || backlog {
                    self.exact_start(cfg, procs, wt, now)
                } else {
                    fit.as_ref().map(|f| f.0)
                };
                // Under hpc-first the exact start is the earliest fit in the plan.
                let earliest = !self.shared && !backlog;
                let (answers, bin) = self.answers(cfg, (exact, earliest), procs, wt, slo, a, now);
                let pred = answers[cfg.predictor.index()].clone();
                self.jobs[idx].calibration = Some(bin);
                if self.shared {
                    self.jobs[idx].marks.planned_start = exact;
                }
                self.records[idx].verdicts = Some(answers.each_ref().map(Verdict::from));
                self.records[idx].prediction = Some(pred.clone());
                if let Some(refusal) = self.refusal(
                    cfg,
                    Request {
                        procs,
                        walltime: wt,
                        slo,
                    },
                    &pred,
                    now,
                    owner,
                ) {
                    let offer = refusal.counter_offer_slo(&pred);
                    self.jobs[idx].st = St::Rejected;
                    self.records[idx].rejected = true;
                    self.records[idx].counter_offer_slo = offer;
                    self.records[idx].refusal = Some(refusal);
                    self.pending_rejects.push(idx);
                    Ok(Submitted::Rejected(Prediction {
                        counter_offer_slo: offer,
                        ..pred
                    }))
                } else {
                    self.count_admitted(cfg, idx, owner, now);
                    self.enqueue_cloud(cfg, idx, fit, backlog);
                    Ok(Submitted::Admitted(pred))
                }
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
            // Under shared-queue nothing evicts: a kill reported as an
            // eviction is a kill from outside.
            if reason == EndReason::Evicted && self.job(idx).kind == JobKind::Cloud && !self.shared {
                // Killed for eviction by someone else: same as ours.
                self.evict(idx, now, None);
                self.pending_evicts.retain(|&i| i != idx);
            } else {
                self.stop_running(idx, now);
                let r = &mut self.records[idx];
                r.end = Some(now);
                r.end_reason = Some(reason);
                self.jobs[idx].st = St::Ended;
                self.jobs[idx].res = None;
                self.finished(idx);
                return Ok(());
            }
        }
        if matches!(reason, EndReason::Completed | EndReason::WalltimeReached) {
            // Evicting, but the job ended on its own before the kill reached
            // it: the eviction was moot. It ran to its end, lost nothing and
            // is not resubmitted.
            let e = &mut self.jobs[idx];
            e.st = St::Ended;
            e.res = None;
            let lost = std::mem::replace(&mut e.evicted_lost, Time::ZERO);
            let r = &mut self.records[idx];
            r.evictions = r.evictions.saturating_sub(1);
            r.lost_work -= lost;
            r.end = Some(now);
            r.end_reason = Some(reason);
            self.finished(idx);
            return Ok(());
        }
        // Evicting: the kill is acknowledged.
        let r = &mut self.records[idx];
        r.end = Some(now);
        r.end_reason = Some(EndReason::Evicted);
        let lc = cfg.lifecycle;
        let e = &self.jobs[idx];
        let in_system = now - r.job.submit;
        if lc.allows_resubmission(e.resubmissions, in_system) {
            // The evicted run is kept apart; the next run replaces start and procs.
            if let (Some(start), Some(procs)) = (r.start, r.procs.clone()) {
                r.evicted_runs.push(EvictedRun {
                    start,
                    end: now,
                    procs,
                });
            }
            let e = &mut self.jobs[idx];
            e.resubmissions += 1;
            e.res = None;
            e.qtime = now;
            let backlog = self.window_full();
            let fit = if backlog {
                None
            } else {
                let job = self.job(idx);
                self.all().earliest_fit(job.procs, job.walltime, now, Mask::Area)
            };
            self.enqueue_cloud(cfg, idx, fit, backlog);
        } else {
            self.jobs[idx].st = St::Ended;
            self.jobs[idx].res = None;
            self.finished(idx);
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
        let key = self.qkey(idx);
        if self.on_hpc_layer(idx) {
            self.hpc_queue.remove(&key);
            self.tail_remove(idx);
            self.hpc_compress = true;
            self.hpc_changed = true;
        } else if self.jobs[idx].in_backlog {
            self.jobs[idx].in_backlog = false;
            self.backlog_len -= 1;
            self.backlog_work -= self.work_of(idx);
        } else {
            self.cloud_queue.remove(&key);
        }
        self.cloud_compress = true;
        if self.head_res == Some(idx) {
            self.head_res = None;
        }
        self.jobs[idx].st = St::Ended;
        self.records[idx].end_reason = Some(EndReason::Killed);
        self.finished(idx);
        self.promote(cfg);
        Ok(())
    }

    pub(super) fn schedule(&mut self, cfg: &EngineConfig, now: Time) -> Vec<Decision> {
        let decisions = self.pass(cfg, now);
        // What became final up to and during this pass is no longer needed
        // by any queue or timer: it can be handed over.
        self.final_ready.append(&mut self.newly_final);
        decisions
    }

    fn pass(&mut self, cfg: &EngineConfig, now: Time) -> Vec<Decision> {
        let now = now.max(self.now);
        self.now = now;
        // A pass with no event since the last one and nothing due is a
        // no-op: it must not change any later decision.
        if !self.dirty && self.next_wakeup(cfg).map_or(true, |t| t > now) {
            return Vec::new();
        }
        self.dirty = false;
        self.prune_plan(now);
        self.apply_area_changes(cfg, now);
        self.hold_overdue(cfg, now);
        let mut out: Vec<Decision> = Vec::new();
        for idx in std::mem::take(&mut self.pending_rejects) {
            out.push(Decision::Reject {
                id: self.job(idx).id,
                counter_offer_slo: self.records[idx].counter_offer_slo,
            });
            self.finished(idx);
        }
        self.end_maintenance(now);
        if self.hpc_due(now) {
            self.hpc_phase(cfg, now);
        }
        if self.cloud_compress {
            self.replan_cloud(cfg, now);
        }
        self.cloud_compress = false;
        let mut starts = std::mem::take(&mut self.pending_starts);
        // Planned evictions that are due.
        while let Some(&(t, idx)) = self.dooms.first() {
            if t > now {
                break;
            }
            self.evict(idx, now, None);
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
                let fit = self.all().earliest_fit(job.procs, job.walltime, now, Mask::Area);
                self.place_cloud(cfg, idx, fit);
                if self.jobs[idx].res.as_ref().is_some_and(|r| r.0 > now) {
                    continue;
                }
                self.cloud_timers.remove(&(now, idx));
            }
            self.start_cloud(idx, now);
            cloud_starts.push(idx);
            self.promote(cfg);
        }
        // One allocation for the pass's decisions (none for a pass without).
        out.reserve_exact(self.pending_evicts.len() + starts.len() + cloud_starts.len());
        for idx in std::mem::take(&mut self.pending_evicts) {
            out.push(Decision::Evict { id: self.job(idx).id });
        }
        for &idx in starts.iter().chain(&cloud_starts) {
            let procs = self.records[idx].procs.clone().unwrap_or_default();
            out.push(Decision::Start {
                id: self.job(idx).id,
                procs,
            });
        }
        // The vector's room serves the next pass.
        starts.clear();
        if self.pending_starts.is_empty() {
            self.pending_starts = starts;
        }
        out
    }

    /// Run the HPC part of a pass now (starts are kept for the next
    /// `schedule`), then the cloud layer's compression if due.
    fn catch_up(&mut self, cfg: &EngineConfig) {
        let now = self.now;
        self.apply_area_changes(cfg, now);
        if self.deadlines.first().is_some_and(|&(t, _)| t <= now) {
            self.prune_plan(now);
            self.hold_overdue(cfg, now);
        }
        if self.hpc_due(now) {
            self.prune_plan(now);
            self.hpc_phase(cfg, now);
        }
        if self.cloud_compress {
            self.replan_cloud(cfg, now);
            self.cloud_compress = false;
        }
    }

    /// Maintenance windows that ended by `now` gave processors back: the
    /// policies look again (FCFS and EASY hold no timer for them).
    fn end_maintenance(&mut self, now: Time) {
        while let Some(&end) = self.maintenance_ends.first() {
            if end > now {
                break;
            }
            self.maintenance_ends.remove(&end);
            self.hpc_changed = true;
            self.cloud_compress = true;
        }
    }

    /// Does the HPC phase have anything to do at `now`? Only HPC events
    /// (arrivals, ends, cancellations) and due HPC reservations change HPC
    /// decisions: between them the free processors of the HPC layer only
    /// shrink as time passes, so a pass could start nothing new.
    fn hpc_due(&self, now: Time) -> bool {
        self.hpc_changed || self.hpc_compress || self.hpc_timers.first().is_some_and(|&(t, _)| t <= now)
    }

    /// The policy's HPC pass, evictions for the HPC jobs it starts, and the
    /// re-planning of the cloud reservations HPC work displaced.
    fn hpc_phase(&mut self, cfg: &EngineConfig, now: Time) {
        let event = std::mem::take(&mut self.hpc_changed);
        // This phase's starts go after those still pending (one vector,
        // whose room every phase reuses).
        let mut starts = std::mem::take(&mut self.pending_starts);
        let earlier = starts.len();
        match cfg.policy {
            Policy::Fcfs | Policy::Easy => {
                // No reservations to compress: each pass starts from scratch.
                self.hpc_compress = false;
                self.pass_fifo(cfg, now, cfg.policy == Policy::Easy, &mut starts)
            }
            Policy::Conservative => self.pass_reserving(cfg, now, self.hpc_compress, &mut starts),
            // Algorithm 3 as written places each job once (shared-queue);
            // CArS re-plans every planned job at each event (hpc-first).
            Policy::Convergence if cfg.places_once() => self.pass_reserving(cfg, now, false, &mut starts),
            Policy::Convergence => self.pass_reserving(cfg, now, event || self.hpc_compress, &mut starts),
            Policy::Cars => self.pass_cars(cfg, now, &mut starts),
        }
        // An overdue cloud job whose hold a moved HPC reservation gave back
        // during the pass is held again before anything is planned there.
        self.hold_overdue(cfg, now);
        // HPC starts evict the cloud jobs on their processors.
        let evicting = !self.running_cloud.is_empty();
        for &idx in starts[earlier..].iter().filter(|_| evicting) {
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
                self.evict(v, now, Some(idx));
            }
        }
        self.pending_starts = starts;
        self.replace_displaced(cfg, now);
    }

    /// Re-plan, in queue order, the queued cloud jobs whose reservation HPC
    /// work (or a held overdue job) took.
    fn replace_displaced(&mut self, cfg: &EngineConfig, now: Time) {
        let mut displaced = std::mem::take(&mut self.displaced);
        displaced.sort_by_key(|&i| self.qkey(i));
        displaced.dedup();
        for idx in displaced {
            if self.jobs[idx].st == St::Queued && self.jobs[idx].res.is_none() {
                let job = self.job(idx);
                let fit = self.all().earliest_fit(job.procs, job.walltime, now, Mask::Area);
                self.place_cloud(cfg, idx, fit);
            }
            self.blame_displacement(idx);
        }
    }

    pub(super) fn next_wakeup(&self, cfg: &EngineConfig) -> Option<Time> {
        [
            self.hpc_timers.first(),
            self.cloud_timers.first(),
            self.dooms.first(),
        ]
        .into_iter()
        .flatten()
        .map(|&(t, _)| t)
        .chain(self.maintenance_ends.first().copied())
        .chain(
            cfg.area_schedule
                .get(self.next_area_change)
                .map(|change| change.at),
        )
        .min()
    }

    /// Mark an HPC job running from `now` on its reserved processors.
    fn start_hpc(&mut self, idx: usize, now: Time) {
        let key = self.qkey(idx);
        self.hpc_queue.remove(&key);
        self.tail_remove(idx);
        let wt = self.job(idx).walltime;
        let e = &mut self.jobs[idx];
        e.st = St::Running;
        e.occ_end = now + wt;
        let procs = e.res.as_ref().map(|r| r.1.to_procset());
        if let Some(r) = e.res.as_mut() {
            r.0 = now;
        }
        let kind = self.job(idx).kind;
        match kind {
            JobKind::Hpc => self.hpc_starts.started(idx, now),
            JobKind::Cloud => self.blame_overtaking(idx, now),
        }
        match kind {
            JobKind::Hpc => self.running_hpc.insert(idx),
            JobKind::Cloud => self.running_cloud.insert(idx),
        };
        self.deadlines.insert((now + wt, idx));
        let r = &mut self.records[idx];
        r.start = Some(now);
        r.procs = procs;
        r.end = None;
        r.end_reason = None;
    }

    /// A running job stops at `now`: free the rest of its occupancy.
    fn stop_running(&mut self, idx: usize, now: Time) {
        if let Some(start) = self.records[idx].start {
            self.deadlines.remove(&(start + self.job(idx).walltime, idx));
        }
        let occ_end = self.jobs[idx].occ_end;
        // The reservation's processors, lent out of the entry for the
        // updates below and put back after (no copy per job end).
        let lent = self.jobs[idx]
            .res
            .as_mut()
            .map(|res| std::mem::replace(&mut res.1, Bits::placeholder()));
        let bits = lent.unwrap_or_else(|| Bits::empty(self.width));
        self.release_held(idx, &bits, now, occ_end);
        if let Some(res) = self.jobs[idx].res.as_mut() {
            res.1 = bits;
        }
    }

    /// [`State::stop_running`]'s updates of the plan and the maps, with the
    /// job's processors `bits` lent.
    fn release_held(&mut self, idx: usize, bits: &Bits, now: Time, occ_end: Time) {
        let kind = self.job(idx).kind;
        match kind {
            JobKind::Hpc => self.running_hpc.remove(idx),
            JobKind::Cloud => self.running_cloud.remove(&idx),
        };
        if self.on_hpc_layer(idx) {
            self.hpc_changed = true;
            // Counted, the processors are free from now whenever it ends.
            self.count_change(bits, false);
            if now < occ_end {
                self.hpc_free(bits, now, occ_end);
                self.hpc_compress = true;
                self.cloud_compress = true;
            }
        } else {
            self.cloud_running.andnot_assign(bits);
            for p in bits.iter() {
                self.owner.remove(&p);
            }
            let t = std::mem::replace(&mut self.jobs[idx].evict_at, Time::INFINITY);
            if !t.is_infinite() {
                self.dooms.remove(&(t, idx));
            }
            if now < occ_end {
                self.cloud_mut().release(bits, now, occ_end);
                self.cloud_compress = true;
            }
        }
    }

    /// Evict a running cloud job now, for HPC-layer job `cause` (`None`:
    /// see [`State::blame_eviction`]).
    fn evict(&mut self, idx: usize, now: Time, cause: Option<usize>) {
        if self.jobs[idx].st != St::Running {
            return;
        }
        self.blame_eviction(idx, cause);
        self.stop_running(idx, now);
        self.jobs[idx].st = St::Evicting;
        let job = &self.records[idx].job;
        let ran = now - self.records[idx].start.unwrap_or(now);
        let lost = work(job.procs, ran);
        self.jobs[idx].evicted_lost = lost;
        let r = &mut self.records[idx];
        r.evictions += 1;
        r.lost_work += lost;
        self.pending_evicts.push(idx);
    }
}

/// Is processor `p`'s busy time `[s, e)` all maintenance (covered by the
/// union of its windows, which may overlap or follow each other)?
fn in_maintenance(cfg: &EngineConfig, p: u32, s: Time, e: Time) -> bool {
    let mut windows: Vec<(Time, Time)> = cfg
        .maintenance
        .iter()
        .filter(|w| w.procs.contains(p) && w.start < e && s < w.end())
        .map(|w| (w.start, w.end()))
        .collect();
    windows.sort_unstable();
    let mut covered = s;
    for (start, end) in windows {
        if start > covered {
            break;
        }
        covered = covered.max(end);
    }
    covered >= e
}

/// Algorithm 1's prediction from a predicted start (`None` = ∞), with the
/// engine's λ and τ.
pub(super) fn prediction(
    cfg: &EngineConfig,
    start: Option<Time>,
    wt: Time,
    slo: Option<Time>,
    arrival: Time,
) -> Prediction {
    Prediction::from_start(start, wt, slo, arrival, cfg.lambda, cfg.tau)
}
