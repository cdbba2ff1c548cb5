//! [`Datacenter`]: several schedulers, each an [`Engine`] behind a
//! [`Driver`], joined by the global database of their tuples, with the
//! data-center scheduler's Algorithm 1 at every arrival and the cloud
//! scheduler's Algorithm 2 after every eviction.
//!
//! Like the engine it is pure: a shell owns the clock and the runs. The
//! shell applies one instant's events — ends ([`Datacenter::job_ended`]),
//! direct submissions ([`Datacenter::submit_direct`]), arrivals at the data
//! center ([`Datacenter::arrive`]) — then calls [`Datacenter::pass`] and
//! carries out each scheduler's decisions, acknowledging evictions with
//! `job_ended(.., EndReason::Evicted)`; it calls again at
//! [`Datacenter::next_time`], and takes each finished attempt with
//! [`Datacenter::take_attempts`].
//!
//! **Schedulers.** An HPC scheduler is an engine with its policy, area and
//! scheduling mode; HPC work comes to it directly (T13) and cloud jobs run
//! in its area. A cloud platform of `P` processors overbooked by λ is an
//! engine of `⌊λ·P⌋` virtual processors on which every job occupies its
//! processors λ times longer (its walltime and run time scaled by λ, the
//! thesis's `F^C = F^σ + wt·λ`); its own work is high-priority (submitted
//! directly, as HPC-kind jobs of that engine) and evicts the evictable
//! cloud jobs the data center sends there when it needs their processors,
//! exactly as HPC work evicts cloud work in an area. Every scheduler admits
//! what it is sent (the data center decided) and never re-queues an evicted
//! job itself: Algorithm 2 does.
//!
//! **The global database.** Each scheduler publishes its tuple (metadata and
//! [`Engine::slots`]): after a pass, once [`DatacenterConfig::refresh`] has
//! passed since its last publication, and otherwise as soon as it has (a
//! tuple is at most `refresh` behind its plan). In between the database is
//! stale, as the thesis wants it (not kept consistent).
//!
//! **Algorithm 1** ([`Datacenter::arrive`]): `F^J'` ranks the schedulers by
//! predicted completion from their tuples ([`super::rank`]), `F^V` decides
//! ([`super::route`] with the data center's admission): the job is sent to
//! the best (T2 to an HPC platform, T6 to a cloud platform), arriving after
//! that destination's latency `r = F^r` for the job's bytes
//! ([`super::latency`]), or refused with the counter-offer
//! `F^SLO` (a refused request never enters the net).
//!
//! **Algorithm 2** (after each eviction): the evicting scheduler publishes
//! its plan and the job reaches the resubmission evaluator L8; if
//! [`Lifecycle::allows_resubmission`] (resubmissions so far, time since its
//! first arrival), `F^J'` picks its next scheduler among all (the evicting
//! one included, without latency to itself) and the job restarts there from
//! scratch (T3 to an HPC platform, T11 to a cloud platform; a migration when
//! the scheduler differs); else it fails (T10). Its SLO deadline stays its
//! first arrival plus its SLO.
//!
//! **Service classes and eviction policies.** With
//! [`DatacenterConfig::classes`], every cloud job has a class and a tenant
//! ([`Datacenter::arrive_in`]) and what it received over its whole life —
//! `e`, `d` (the runs evictions threw away), `p` — is kept
//! ([`crate::qos::Ledger`]) and reported per class
//! ([`Datacenter::finish`]). A scheduler with an
//! [`SchedulerConfig::eviction`] policy gives way by that policy when its
//! own work needs processors: before each of its passes its running cloud
//! jobs are ranked by the policy's victim order
//! ([`crate::qos::policy::Rules::victim_key`]; owner-share counts each
//! tenant's processors on that scheduler) and its engine evicts by rank
//! ([`crate::engine::Victims::Ranked`]: fcfs or easy).

mod build;
mod ends;
mod routing;

use super::database::{rank, route, Choice, Metadata, Request, Role, Route, Tuple};
use super::latency::Latency;
use super::petri::{BadFiring, PetriNet, Place, Transition};
use crate::driver::{Driver, Livelock};
use crate::engine::{
    Admission, Decision, EndReason, Engine, EngineConfig, EngineError, Lifecycle, Prediction, Scheduling,
};
use crate::job::{Job, JobId, JobKind};
use crate::metrics::{violates, JobRecord};
use crate::placement::{Placement, Weights};
use crate::predict::Beta;
use crate::qos::policy::{Candidate, Rules};
use crate::qos::report::{InSystem, Windows};
use crate::qos::{ClassReport, Eviction, Ledger, QosConfig, RequestRecord};
use crate::time::Time;
use std::cmp::Reverse;
use std::collections::{BinaryHeap, HashMap};
use std::fmt;

/// One scheduler of the data center.
#[derive(Clone, Debug, PartialEq)]
pub struct SchedulerConfig {
    /// Its name (`A_e`), unique.
    pub name: String,
    /// HPC or cloud platform.
    pub role: Role,
    /// Its engine. For a cloud platform, `procs` are the virtual processors
    /// it sells (see [`SchedulerConfig::cloud`]). The data center sets
    /// `admission` to admit-all and `lifecycle` to no resubmission.
    pub engine: EngineConfig,
    /// λ ≥ 1: every job occupies its processors `λ ×` its walltime and run time.
    pub overbooking: f64,
    /// Technical features it offers.
    pub features: Vec<String>,
    /// The inputs of `F^r`: a job of `b` bytes sent there arrives
    /// `F^r(b)` after the data center's decision (also used in the
    /// predictions that send it).
    pub latency: Latency,
    /// The widest job it takes (its metadata): `None` is its engine's area
    /// (an HPC scheduler); a cloud platform's physical processors
    /// ([`SchedulerConfig::cloud`] sets them), not its virtual ones.
    pub widest: Option<u32>,
    /// Which cloud jobs give way when its own work needs their processors:
    /// `None`, those holding the processors its policy names; a policy,
    /// its victim order (needs [`DatacenterConfig::classes`], and fcfs or
    /// easy).
    pub eviction: Option<Eviction>,
}

impl SchedulerConfig {
    /// An HPC scheduler with this engine.
    pub fn hpc(name: &str, engine: EngineConfig) -> SchedulerConfig {
        SchedulerConfig {
            name: name.to_string(),
            role: Role::Hpc,
            engine,
            overbooking: 1.0,
            features: Vec::new(),
            latency: Latency::ZERO,
            widest: None,
            eviction: None,
        }
    }

    /// A cloud platform of `procs` processors overbooked by `overbooking`
    /// (λ ≥ 1): an FCFS engine of `⌊λ·procs⌋` virtual processors, all
    /// evictable by its own work.
    pub fn cloud(name: &str, procs: u32, overbooking: f64) -> SchedulerConfig {
        let virtual_procs = (f64::from(procs) * overbooking)
            .floor()
            .clamp(0.0, f64::from(u32::MAX)) as u32;
        SchedulerConfig {
            name: name.to_string(),
            role: Role::Cloud,
            engine: EngineConfig::new(virtual_procs, crate::engine::Policy::Fcfs),
            overbooking,
            features: Vec::new(),
            latency: Latency::ZERO,
            widest: Some(procs),
            eviction: None,
        }
    }
}

/// Where the data center sends cloud jobs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Routing {
    /// `F^J'`: the scheduler with the smallest predicted completion.
    Best,
    /// Always this scheduler (by index): the baseline `F^J'` is compared with.
    Fixed(usize),
}

/// The data center.
#[derive(Clone, Debug, PartialEq)]
pub struct DatacenterConfig {
    /// Its schedulers.
    pub schedulers: Vec<SchedulerConfig>,
    /// A scheduler republishes its tuple at most this often (0: after every pass).
    pub refresh: Time,
    /// Algorithm 1's admission: admit-all sends every job, reject-predicted
    /// refuses a predicted violation with a counter-offer.
    pub admission: Admission,
    /// τ of `F^SLO`.
    pub tau: f64,
    /// β of `F^σ` on the tuples.
    pub beta: Beta,
    /// Algorithm 2's bounds (maximum resubmissions, maximum time in the system).
    pub lifecycle: Lifecycle,
    /// `F^J'` or a fixed scheduler.
    pub routing: Routing,
    /// How `F^J'` orders the destinations: by predicted completion
    /// (first fit) or by TOPSIS ([`super::rank`]). Each scheduler's own
    /// choice of processors is its engine config's.
    pub placement: Placement,
    /// TOPSIS's weights (used only with [`Placement::Topsis`]).
    pub placement_weights: Weights,
    /// The cloud jobs' service classes and tenants (their `eviction`,
    /// hosts and windows unused): each job's availability is then kept and
    /// reported per class, and schedulers may evict by policy.
    pub classes: Option<QosConfig>,
}

impl DatacenterConfig {
    /// TOPSIS's weights when `F^J'` orders by TOPSIS (`None`: by
    /// completion; [`Placement::weights`]).
    pub fn topsis(&self) -> Option<&Weights> {
        self.placement.weights(&self.placement_weights)
    }

    /// A data center of these schedulers: fresh tuples at every pass,
    /// admit-all, τ = 1, β = 0, `max_resubmissions` resubmissions, `F^J'`.
    pub fn new(schedulers: Vec<SchedulerConfig>, max_resubmissions: u32) -> DatacenterConfig {
        DatacenterConfig {
            schedulers,
            refresh: Time::ZERO,
            admission: Admission::AdmitAll,
            tau: 1.0,
            beta: Beta::Wait(Time::ZERO),
            lifecycle: Lifecycle {
                max_resubmissions,
                max_time_in_system: None,
            },
            routing: Routing::Best,
            placement: Placement::default(),
            placement_weights: Weights::default(),
            classes: None,
        }
    }
}

/// A cloud job's class and tenant (indices into
/// [`DatacenterConfig::classes`]).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Service {
    /// Its class.
    pub class: usize,
    /// Its tenant.
    pub tenant: usize,
}

/// Errors of the data center.
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub enum DatacenterError {
    /// The configuration is inconsistent; the message names the field and the fix.
    InvalidConfig(String),
    /// A scheduler's engine refused an event or its config.
    Engine {
        /// The scheduler.
        scheduler: String,
        /// The engine's error.
        source: EngineError,
    },
    /// A scheduler decided again and again at one instant.
    Livelock {
        /// The scheduler.
        scheduler: String,
        /// The driver's report.
        source: Livelock,
    },
    /// A transition fired from the wrong place: a bug, reported rather than hidden.
    Net(BadFiring),
    /// An event named a job the scheduler was not given.
    UnknownJob {
        /// The scheduler.
        scheduler: String,
        /// The job.
        job: JobId,
    },
}

impl fmt::Display for DatacenterError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            DatacenterError::InvalidConfig(m) => write!(f, "invalid data center: {m}"),
            DatacenterError::Engine { scheduler, source } => write!(f, "scheduler {scheduler}: {source}"),
            DatacenterError::Livelock { scheduler, source } => write!(f, "scheduler {scheduler}: {source}"),
            DatacenterError::Net(bad) => write!(f, "Petri net: {bad}"),
            DatacenterError::UnknownJob { scheduler, job } => {
                write!(f, "scheduler {scheduler} was not given job {job}")
            }
        }
    }
}

impl std::error::Error for DatacenterError {}

impl From<BadFiring> for DatacenterError {
    fn from(bad: BadFiring) -> Self {
        DatacenterError::Net(bad)
    }
}

/// What Algorithm 1 did with an arrival.
#[derive(Clone, Debug, PartialEq)]
pub enum Arrival {
    /// Sent to this scheduler with this prediction.
    Sent {
        /// The scheduler's index.
        scheduler: usize,
        /// `F^C`, `F^V`… there.
        prediction: Prediction,
    },
    /// Refused: a violation was predicted everywhere (reject-predicted), with
    /// the best destination's counter-offer; or no scheduler can run it
    /// (`prediction` is `None`).
    Refused {
        /// The best destination's prediction, if any.
        prediction: Option<Prediction>,
    },
}

/// One run of a job on one scheduler, final: the row of `jobs.csv`.
#[derive(Clone, Debug, PartialEq)]
pub struct Attempt {
    /// The scheduler's index (`None`: refused by the data center itself).
    pub scheduler: Option<usize>,
    /// 1 for the first run, 2 after one resubmission…
    pub attempt: u32,
    /// The record, with the job's own id (its workload's) and the attempt's
    /// arrival, walltime and run time as the scheduler saw them.
    pub record: JobRecord,
    /// The id the scheduler knew the attempt by.
    pub local_id: JobId,
    /// A cloud job sent by the data center (not a scheduler's direct work).
    pub routed: bool,
    /// This was the job's last attempt: its outcome is the job's.
    pub last: bool,
    /// The job's SLO verdict against its first arrival (cloud jobs, last attempt).
    pub violated: Option<bool>,
}

impl Attempt {
    /// The only run of a scheduler's own work (outside the data center's routing).
    fn own_work(scheduler: usize, record: JobRecord) -> Attempt {
        Attempt {
            scheduler: Some(scheduler),
            attempt: 1,
            local_id: record.job.id,
            record,
            routed: false,
            last: true,
            violated: None,
        }
    }
}

/// The data center's counters.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Totals {
    /// Cloud jobs that arrived at the data center.
    pub arrived: u64,
    /// Sent to a scheduler by Algorithm 1.
    pub accepted: u64,
    /// Refused (counter-offer, or no scheduler fits).
    pub refused: u64,
    /// Cloud jobs whose last attempt ended (successfully or at walltime).
    pub completed: u64,
    /// Cloud jobs that failed for good (L9).
    pub failed: u64,
    /// Cloud jobs still in the system when the run ended (in transit,
    /// queued or running): counted as violated.
    pub unfinished: u64,
    /// Accepted cloud jobs that missed their SLO (late, failed or never ended).
    pub violations: u64,
    /// Evictions of cloud jobs, everywhere.
    pub evictions: u64,
    /// Resubmissions after an eviction to another scheduler.
    pub migrations: u64,
    /// Resubmissions after an eviction to the same scheduler.
    pub resubmissions_in_place: u64,
    /// Accepted jobs whose Algorithm-1 prediction said violation and that violated.
    pub true_positives: u64,
    /// …predicted a violation and met the SLO.
    pub false_positives: u64,
    /// …predicted no violation and violated.
    pub false_negatives: u64,
    /// …predicted no violation and met the SLO.
    pub true_negatives: u64,
}

/// What [`Datacenter::finish`] returns.
#[derive(Clone, Debug)]
pub struct Finished {
    /// The attempts not taken yet, the unfinished ones included.
    pub attempts: Vec<Attempt>,
    /// The data center's counters.
    pub totals: Totals,
    /// Each scheduler's.
    pub schedulers: Vec<SchedulerTotals>,
    /// The Petri net as it ended.
    pub net: PetriNet,
    /// With service classes, what each class's cloud jobs received (in the
    /// classes' order); else empty.
    pub classes: Vec<ClassReport>,
}

/// One scheduler's counters.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct SchedulerTotals {
    /// Cloud jobs Algorithm 1 sent here.
    pub sent: u64,
    /// Evicted jobs Algorithm 2 moved here from another scheduler.
    pub migrated_in: u64,
    /// Evicted jobs Algorithm 2 moved from here to another scheduler.
    pub migrated_out: u64,
    /// Evicted jobs Algorithm 2 sent back here.
    pub resubmitted: u64,
    /// Cloud jobs evicted here.
    pub evictions: u64,
    /// Cloud jobs whose last attempt was here.
    pub last_attempts: u64,
    /// Of those, the ones that missed their SLO.
    pub violations: u64,
    /// Direct submissions (HPC work, a cloud platform's own work).
    pub direct: u64,
    /// Tuples published.
    pub publications: u64,
}

struct Member {
    name: String,
    role: Role,
    overbooking: f64,
    /// The widest job it takes.
    widest: u32,
    driver: Driver,
    published: Option<Time>,
    /// It passed since its last publication (its tuple is behind its plan).
    behind: bool,
    totals: SchedulerTotals,
    /// The data center's classes under its eviction policy, if it evicts by one.
    policy: Option<QosConfig>,
}

/// The service classes of a data center and what each received.
struct ClassBook {
    cfg: QosConfig,
    /// One per concluded cloud job: what it received over its life.
    records: Vec<RequestRecord>,
    /// The fairness windows (the classes' `window`, the seeds' 10 minutes
    /// by default): each class's Gini over the availabilities of its jobs
    /// in the system during each window.
    windows: Windows,
}

/// The data center's cloud jobs in the system, for a window's close.
struct CloudJobs<'a>(&'a HashMap<u64, Tracked>);

impl InSystem for CloudJobs<'_> {
    fn any(&self) -> bool {
        self.0.values().any(|t| t.routed)
    }

    fn each(&self, f: &mut dyn FnMut(usize, &Ledger)) {
        for t in self.0.values().filter(|t| t.routed) {
            f(t.service.class, &t.ledger);
        }
    }
}

/// A job the data center follows.
struct Tracked {
    /// The job as it arrived (its own id, first arrival, walltime, run time).
    job: Job,
    features: Vec<String>,
    /// Its size in bytes (`F^r`'s transfer).
    bytes: u64,
    place: Place,
    /// Attempts started so far (1 after the first send).
    attempts: u32,
    resubmissions: u32,
    /// Sent by the data center (a cloud job), not direct work.
    routed: bool,
    /// Algorithm 1's prediction at its arrival (the confusion matrix's).
    admitted: Option<Prediction>,
    /// The prediction that sent its current attempt (Algorithm 1's, then
    /// Algorithm 2's): the attempt's `jobs.csv` prediction.
    prediction: Option<Prediction>,
    /// Where its current attempt is.
    scheduler: usize,
    /// Its class and tenant.
    service: Service,
    /// What it received since its first arrival (restart: an evicted run
    /// is thrown away).
    ledger: Ledger,
    /// Times it was evicted.
    evictions: u32,
}

impl Tracked {
    /// The job as its class's accounts see it.
    fn request(&self) -> crate::qos::Request {
        crate::qos::Request {
            id: self.job.id.0,
            submit: self.job.submit,
            procs: self.job.procs,
            duration: None,
            class: self.service.class,
            tenant: self.service.tenant,
        }
    }
}

/// An attempt on its way to a scheduler.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
struct Delivery {
    time: Time,
    seq: u64,
    scheduler: usize,
    ticket: u64,
}

/// The data center (see the module docs).
pub struct Datacenter {
    refresh: Time,
    admission: Admission,
    tau: f64,
    beta: Beta,
    lifecycle: Lifecycle,
    routing: Routing,
    /// TOPSIS's weights when `F^J'` orders by TOPSIS.
    topsis: Option<Weights>,
    /// The classes and tenants, and what each class received so far.
    classes: Option<ClassBook>,
    latency: Vec<Latency>,
    features: Vec<Vec<String>>,
    members: Vec<Member>,
    tuples: Vec<Tuple>,
    /// Jobs in the system, by ticket.
    tracked: HashMap<u64, Tracked>,
    /// (scheduler, the id it knows) → (ticket, the job it was given); a
    /// ticket of `None` is a cloud platform's own work, outside the net.
    given: HashMap<(usize, JobId), (Option<u64>, Job)>,
    transit: BinaryHeap<Reverse<Delivery>>,
    next_ticket: u64,
    next_local: u64,
    next_seq: u64,
    net: PetriNet,
    totals: Totals,
    done: Vec<Attempt>,
}

/// Ids the data center gives cloud attempts inside a scheduler, above any
/// workload's own ids (direct work keeps its ids).
const ATTEMPT_IDS: u64 = 1 << 62;

impl Datacenter {
    /// The schedulers' names, by index.
    pub fn names(&self) -> impl Iterator<Item = &str> + '_ {
        self.members.iter().map(|m| m.name.as_str())
    }

    /// A scheduler's role.
    pub fn role(&self, scheduler: usize) -> Option<Role> {
        self.members.get(scheduler).map(|m| m.role)
    }

    /// A scheduler's engine config (as the data center built it).
    pub fn engine_config(&self, scheduler: usize) -> Option<&EngineConfig> {
        self.members.get(scheduler).map(|m| m.driver.engine().config())
    }

    /// The job a scheduler was given under `id` (for its run length).
    pub fn job(&self, scheduler: usize, id: JobId) -> Option<&Job> {
        self.given.get(&(scheduler, id)).map(|(_, job)| job)
    }

    /// The global database as it stands.
    pub fn tuples(&self) -> &[Tuple] {
        &self.tuples
    }

    /// The Petri net's counts.
    pub fn net(&self) -> &PetriNet {
        &self.net
    }

    /// The data center's counters.
    pub fn totals(&self) -> &Totals {
        &self.totals
    }

    /// One scheduler's counters.
    pub fn scheduler_totals(&self, scheduler: usize) -> Option<&SchedulerTotals> {
        self.members.get(scheduler).map(|m| &m.totals)
    }

    /// Jobs the data center follows that are not in a final place yet.
    pub fn in_system(&self) -> usize {
        self.tracked.len()
    }

    /// Work submitted straight to a scheduler at `job.submit`: HPC work to an
    /// HPC platform (T13 → L2), or a cloud platform's own high-priority work
    /// (submitted as HPC-kind work of its engine, scaled by λ; outside the
    /// net). The job keeps its id.
    pub fn submit_direct(&mut self, scheduler: usize, job: Job) -> Result<(), DatacenterError> {
        let member = self.member(scheduler)?;
        let role = member.role;
        let lambda = member.overbooking;
        let mut job = job;
        job.kind = JobKind::Hpc;
        let ticket = if role == Role::Hpc {
            let place = self.net.fire(Transition::T13, None)?;
            let ticket = self.ticket();
            self.tracked.insert(
                ticket,
                Tracked {
                    job: job.clone(),
                    features: Vec::new(),
                    bytes: 0,
                    place,
                    attempts: 1,
                    resubmissions: 0,
                    routed: false,
                    admitted: None,
                    prediction: None,
                    scheduler,
                    service: Service::default(),
                    ledger: Ledger::admitted(job.submit),
                    evictions: 0,
                },
            );
            Some(ticket)
        } else {
            job = occupy(job, lambda);
            None
        };
        self.members[scheduler].totals.direct += 1;
        self.give(scheduler, ticket, job)
    }

    /// A cloud job arrives at the data-center scheduler at `job.submit`
    /// (T0): Algorithm 1 sends it (T2/T6) or refuses it. `job.id` is its
    /// own id; it must be unique among the cloud jobs in the system. With
    /// service classes it is of the first class and tenant
    /// ([`Datacenter::arrive_in`] names them), and of 0 bytes.
    pub fn arrive(&mut self, job: Job, features: Vec<String>) -> Result<Arrival, DatacenterError> {
        self.arrive_in(job, features, Service::default(), 0)
    }

    /// [`Datacenter::arrive`] for a job of `service`'s class and tenant, of
    /// `bytes` to move to its destination (`F^r`).
    pub fn arrive_in(
        &mut self,
        job: Job,
        features: Vec<String>,
        service: Service,
        bytes: u64,
    ) -> Result<Arrival, DatacenterError> {
        if let Some(ClassBook { cfg, .. }) = &self.classes {
            if service.class >= cfg.classes.len() || service.tenant >= cfg.tenants.len() {
                return Err(DatacenterError::InvalidConfig(format!(
                    "job {}: class #{} or tenant #{} does not exist ({} classes, {} tenants)",
                    job.id,
                    service.class,
                    service.tenant,
                    cfg.classes.len(),
                    cfg.tenants.len()
                )));
            }
        }
        let now = job.submit;
        self.totals.arrived += 1;
        let request = Request {
            procs: job.procs,
            walltime: job.walltime,
            slo: job.slo,
            arrival: job.submit,
            features: features.clone(),
            bytes,
        };
        let ranked = self.rank(&request, now, None);
        let choice = match route(&ranked, self.admission) {
            Route::Send(choice) => choice,
            Route::Offer(choice) => {
                return Ok(self.refuse(job, Some(choice.prediction)));
            }
            Route::Nowhere => return Ok(self.refuse(job, None)),
        };
        self.totals.accepted += 1;
        let place = self.net.fire(Transition::T0, None)?;
        let ticket = self.ticket();
        let prediction = choice.prediction.clone();
        let ledger = Ledger::admitted(job.submit);
        self.tracked.insert(
            ticket,
            Tracked {
                job,
                features,
                bytes,
                place,
                attempts: 0,
                resubmissions: 0,
                routed: true,
                admitted: Some(prediction.clone()),
                prediction: Some(prediction.clone()),
                scheduler: choice.index,
                service,
                ledger,
                evictions: 0,
            },
        );
        let transition = match self.members[choice.index].role {
            Role::Hpc => Transition::T2,
            Role::Cloud => Transition::T6,
        };
        self.members[choice.index].totals.sent += 1;
        let latency = self.latency[choice.index].of(bytes);
        self.send(ticket, choice.index, transition, now.saturating_add(latency))?;
        Ok(Arrival::Sent {
            scheduler: choice.index,
            prediction,
        })
    }

    /// A run on `scheduler` stopped (the shell's report; an eviction's
    /// acknowledgement is `EndReason::Evicted`).
    pub fn job_ended(
        &mut self,
        scheduler: usize,
        id: JobId,
        now: Time,
        reason: EndReason,
    ) -> Result<(), DatacenterError> {
        let member = self.member_mut(scheduler)?;
        member
            .driver
            .job_ended(id, now, reason)
            .map_err(|source| DatacenterError::Engine {
                scheduler: member.name.clone(),
                source,
            })
    }

    /// When the data center must pass again if no event comes before: a
    /// delivery, a scheduler's wake-up, or now for a scheduler with events
    /// not passed yet.
    pub fn next_time(&self) -> Option<Time> {
        let deliveries = self.transit.peek().map(|Reverse(d)| d.time);
        let members = self.members.iter().filter_map(|m| {
            if m.driver.events_pending() {
                Some(m.driver.engine().now())
            } else {
                m.driver.next_pass()
            }
        });
        let publications = self
            .members
            .iter()
            .filter(|m| m.behind)
            .filter_map(|m| m.published.map(|t| t.saturating_add(self.refresh)));
        deliveries.into_iter().chain(members).chain(publications).min()
    }

    /// One pass at `now`: deliver the attempts due, pass every scheduler with
    /// events or a due wake-up, follow finished attempts through the net
    /// (Algorithm 2 after evictions) and republish the tuples due: a
    /// scheduler whose plan changed since its last publication publishes
    /// once `refresh` has passed since it (at its next pass, or at the time
    /// [`Datacenter::next_time`] names for it). Returns each scheduler's
    /// decisions, to carry out in order.
    pub fn pass(&mut self, now: Time) -> Result<Vec<(usize, Decision)>, DatacenterError> {
        if let Some(book) = &mut self.classes {
            book.windows.close_until(now, &CloudJobs(&self.tracked));
        }
        // Ranked before the deliveries: submitting a cloud job brings its
        // scheduler's plan up to date, which may start HPC work (and evict).
        for i in 0..self.members.len() {
            self.rank_victims(i, now);
        }
        while let Some(Reverse(d)) = self.transit.peek().copied() {
            if d.time > now {
                break;
            }
            self.transit.pop();
            self.deliver(d)?;
        }
        let mut decisions = Vec::new();
        for i in 0..self.members.len() {
            let member = &mut self.members[i];
            let refresh = self.refresh;
            let publication_due = |m: &Member| m.published.map_or(true, |t| now >= t.saturating_add(refresh));
            if !member.driver.events_pending() && member.driver.due(now).is_none() {
                if member.behind && publication_due(member) {
                    self.publish(i, now);
                }
                continue;
            }
            let passed = member
                .driver
                .pass(now)
                .map_err(|source| DatacenterError::Livelock {
                    scheduler: member.name.clone(),
                    source,
                })?;
            for decision in &passed {
                if let Decision::Start { id, .. } = decision {
                    self.started(i, *id, now)?;
                }
            }
            decisions.extend(passed.into_iter().map(|d| (i, d)));
            let finished: Vec<_> = self.members[i].driver.take_finished().collect();
            for record in finished {
                self.finished(i, *record, now)?;
            }
            if publication_due(&self.members[i]) {
                self.publish(i, now);
            } else {
                self.members[i].behind = true;
            }
        }
        Ok(decisions)
    }

    /// The attempts that became final since the last call, in that order.
    pub fn take_attempts(&mut self) -> Vec<Attempt> {
        std::mem::take(&mut self.done)
    }

    /// End the run: the attempts of the jobs still in the system (queued,
    /// running or in transit) as rows that never ended, their jobs counted
    /// as unfinished and violated (they stay in their places in the net).
    pub fn finish(mut self) -> Finished {
        let mut rest = std::mem::take(&mut self.done);
        // The run ended at the last instant any scheduler reached.
        let end = self
            .members
            .iter()
            .map(|m| m.driver.engine().now())
            .max()
            .unwrap_or(Time::ZERO);
        if let Some(book) = &mut self.classes {
            book.windows.close_until(end, &CloudJobs(&self.tracked));
            book.windows.close_last(end, &CloudJobs(&self.tracked));
        }
        for i in 0..self.members.len() {
            let records: Vec<JobRecord> = self.members[i].driver.engine().records().cloned().collect();
            for record in records {
                let Some((ticket, _)) = self.given.remove(&(i, record.job.id)) else {
                    continue;
                };
                let Some(mut tracked) = ticket.and_then(|t| self.tracked.remove(&t)) else {
                    rest.push(Attempt::own_work(i, record));
                    continue;
                };
                // A run that ended without a pass taking it over ended then.
                let at = match record.end {
                    Some(_) => close_run(&mut tracked.ledger, &record, end),
                    None => end,
                };
                let mut attempt = self.attempt_of(i, &tracked, record);
                self.conclude(i, &tracked, &mut attempt, at);
                rest.push(attempt);
            }
        }
        // In transit: never delivered.
        let mut in_transit: Vec<(u64, Tracked)> = self.tracked.drain().collect();
        in_transit.sort_by_key(|(ticket, _)| *ticket);
        for (_, tracked) in in_transit {
            let record = JobRecord::new(tracked.job.clone());
            let mut attempt = self.attempt_of(tracked.scheduler, &tracked, record);
            attempt.attempt = tracked.attempts + 1;
            self.conclude(tracked.scheduler, &tracked, &mut attempt, end);
            rest.push(attempt);
        }
        let classes = self.class_reports();
        let schedulers = self.members.into_iter().map(|m| m.totals).collect();
        Finished {
            attempts: rest,
            totals: self.totals,
            schedulers,
            net: self.net,
            classes,
        }
    }

    fn member(&self, scheduler: usize) -> Result<&Member, DatacenterError> {
        self.members
            .get(scheduler)
            .ok_or_else(|| DatacenterError::InvalidConfig(format!("no scheduler #{scheduler}")))
    }

    fn member_mut(&mut self, scheduler: usize) -> Result<&mut Member, DatacenterError> {
        self.members
            .get_mut(scheduler)
            .ok_or_else(|| DatacenterError::InvalidConfig(format!("no scheduler #{scheduler}")))
    }

    fn ticket(&mut self) -> u64 {
        self.next_ticket += 1;
        self.next_ticket
    }
}

/// A job's run ended (at `record.end`, else `now`): an evicted run is thrown
/// away (the job restarts from scratch elsewhere), any other stops its
/// accounts. Returns when it ended.
fn close_run(ledger: &mut Ledger, record: &JobRecord, now: Time) -> Time {
    let ended = record.end.unwrap_or(now);
    if record.end_reason == Some(EndReason::Evicted) {
        ledger.preempt(ended, true);
    } else {
        ledger.stop(ended);
    }
    ended
}

/// A job on a platform overbooked by λ: its walltime and run time scaled by
/// λ ([`super::database::occupied`]).
fn occupy(job: Job, lambda: f64) -> Job {
    if lambda == 1.0 {
        return job;
    }
    Job {
        walltime: super::database::occupied(job.walltime, lambda),
        runtime: job.runtime.map(|r| super::database::occupied(r, lambda)),
        ..job
    }
}
