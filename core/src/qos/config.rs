//! What the QoS scheduler is given: the platform ([`QosConfig`], its hosts
//! and their [`Resize`]s), the service classes with their penalty bands,
//! the tenants, the requests, the eviction policy and what a preemption
//! does, and the error of a run that cannot be made ([`QosError`]).
//!
//! The other `qos` modules build on these types; `qos` re-exports them.

use crate::job::{named_options, UnknownName};
use crate::qos::ledger::meets;
use crate::rng::SplitMix64;
use crate::time::Time;
use std::collections::BTreeMap;
use std::fmt;

/// Who is preempted, and for whom.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Eviction {
    /// The papers' baseline (state of practice, Kubernetes): a request may
    /// preempt only requests of less important classes; the pending queue is
    /// served by importance then admission; victims are the least important,
    /// the most recently admitted first.
    Priority,
    /// Seeds 000/001: the pending queue by increasing `Q`; a victim is the
    /// running instance of largest `Q` that the feasibility rule allows.
    QosDriven,
    /// Seed 002 (OSEP): each tenant is entitled to `min(demand, share)`
    /// slots; a request of a tenant below its share may preempt the request
    /// that has run least of the tenant most over its share.
    OwnerShare,
    /// Seed 002, chapter 4: heterogeneous OSEP. Hosts have speeds, tenants
    /// portions of the platform's power; a periodic decision (every
    /// `period`, at most `maxt` preemptions) moves machines from the tenant
    /// most over its portion (`DifPoder`) to the one most under it when the
    /// remaining powers allow it. Simulated by [`crate::qos::osep`], not by
    /// the event-driven platform.
    Osep,
}

impl Default for Eviction {
    /// The seeds' own: qos-driven.
    fn default() -> Eviction {
        Eviction::QosDriven
    }
}

named_options!(Eviction, "eviction policy", "\"priority\", \"qos-driven\", \"owner-share\" or \"osep\"", {
    Priority => "priority",
    QosDriven => "qos-driven",
    OwnerShare => "owner-share",
    Osep => "osep",
});

/// What a preemption does to the work an instance had done.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum OnPreempt {
    /// The instance is suspended and later continues where it stopped (the
    /// papers' instances, a checkpointed job): its run time keeps counting.
    Resume,
    /// The instance is killed and later starts again from scratch (an
    /// evicted batch job): the attempt's run time becomes discarded time `d`.
    Restart,
    /// Seed 002's block checkpointing (osep only): the work done is saved
    /// in whole blocks of [`OsepSettings::block`] seconds of work; the
    /// partial block is lost (discarded time `d`).
    Checkpoint,
}

named_options!(OnPreempt, "preemption mode", "\"resume\", \"restart\" or \"checkpoint\"", {
    Resume => "resume",
    Restart => "restart",
    Checkpoint => "checkpoint",
});

/// Which OSEP decision [`Eviction::Osep`] runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum OsepRule {
    /// Chapter 4 (Algorithm 3): power-aware, `DifPoder`, `PR_Preemp`, `PR_Aloc`.
    Heterogeneous,
    /// Chapter 3 (Algorithm 2), the seed's baseline "Original": machines
    /// counted, not weighed (`f = share − running`).
    Original,
}

named_options!(OsepRule, "OSEP rule", "\"heterogeneous\" or \"original\"", {
    Heterogeneous => "heterogeneous",
    Original => "original",
});

/// Which reading of seed 002's preemption condition (§4.3.1, condition 4;
/// Algorithm 3, line 3) the heterogeneous rule applies to a swap of
/// machine `y` from tenant `j` (most over) to tenant `i` (most under).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum OsepCondition {
    /// `PR_Aloc_{i,y} ≤ PR_Preemp_{j,y}`: after the swap the beneficiary
    /// is no better off than the victim (a stricter reading of §4.5, §6.1).
    After,
    /// `PR_Preemp_{j,y} > DifPoder_i`: the victim stays above where the
    /// beneficiary is now (§4.2's fairness criterion; the default).
    Before,
    /// `PR_Aloc_{i,y} > PR_Preemp_{j,y}`, the seed's symbol as printed
    /// (never preempts between equal portions of equal machines).
    Literal,
}

named_options!(OsepCondition, "OSEP condition", "\"after\", \"before\" or \"literal\"", {
    After => "after",
    Before => "before",
    Literal => "literal",
});

/// The settings of OSEP's update algorithm (seed 002, Algorithm 1).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct OsepSettings {
    /// `t`: the update (and decision) runs every `period` from the first
    /// admission (default 60 s; the seed gives no value).
    pub period: Time,
    /// `maxt`: at most this many preemptions per update (default 4).
    pub maxt: u32,
    /// The checkpoint block, seconds of work at speed 1 (the seed's
    /// 10 minutes), under [`OnPreempt::Checkpoint`].
    pub block: Time,
    /// Which decision.
    pub rule: OsepRule,
    /// Which reading of the heterogeneous rule's condition 4.
    pub condition: OsepCondition,
}

impl Default for OsepSettings {
    fn default() -> OsepSettings {
        OsepSettings {
            period: Time::from_secs(60),
            maxt: 4,
            block: Time::from_secs(600),
            rule: OsepRule::Heterogeneous,
            condition: OsepCondition::Before,
        }
    }
}

/// The credit paid back for a violated request, as a fraction of its
/// CPU-time deficit (seed 001, Table 2; AWS's service credits): bands of
/// delivered availability, each with its bonus `b`.
#[derive(Clone, Debug, PartialEq)]
pub struct CreditTable {
    /// `(lowest availability of the band, credit)`, from the band just
    /// below the SLO downwards. Below the last band the credit is 100 %.
    pub bands: Vec<(f64, f64)>,
}

impl CreditTable {
    /// The seed's bands scaled to an SLO `slo`: its gold class promises
    /// 99.99 % and pays 10 % down to 99 %, 30 % down to 95 %, 100 % below;
    /// another SLO keeps the same ratios (`slo·99/99.99`, `slo·95/99.99`).
    /// That gives the seed's bronze bands (49.50 %, 47.50 %) and its silver
    /// 89.11 %; its silver 85.56 % becomes 85.51 % (the seed's own
    /// rounding is not stated).
    pub fn scaled(slo: f64) -> CreditTable {
        CreditTable {
            bands: vec![(slo * 99.0 / 99.99, 0.10), (slo * 95.0 / 99.99, 0.30)],
        }
    }

    /// The bonus `b` for a request that received `availability` against `slo`.
    pub fn bonus(&self, availability: f64, slo: f64) -> f64 {
        if meets(availability, slo) {
            return 0.0;
        }
        self.bands
            .iter()
            .find(|&&(low, _)| availability >= low)
            .map_or(1.0, |&(_, credit)| credit)
    }
}

/// A service class: its promise and how hard the scheduler defends it.
#[derive(Clone, Debug, PartialEq)]
pub struct ServiceClass {
    /// Its name (`gold`, `silver`, …), unique.
    pub name: String,
    /// Larger is more important. The priority baseline preempts less
    /// important classes; the QoS-driven relaxation lets a more important
    /// class preempt below the margin.
    pub importance: u32,
    /// The availability SLO `O_i`, in `(0, 1]`.
    pub slo: f64,
    /// The safety margin `σ_i` on `Q`: an instance whose `Q` is below it
    /// is not preempted, except as the relaxation allows (seed default 10 s).
    pub margin: Time,
    /// The preemption-overhead limit: an instance whose overhead `C_k`
    /// exceeds it is not preempted for another instance of its class
    /// (seed default `1 − O_i`).
    pub overhead_limit: f64,
    /// Its penalty bands.
    pub credit: CreditTable,
}

impl ServiceClass {
    /// A class with the seeds' defaults: margin 10 s, overhead limit
    /// `1 − slo`, credit bands scaled to `slo`.
    pub fn new(name: &str, importance: u32, slo: f64) -> ServiceClass {
        ServiceClass {
            name: name.to_string(),
            importance,
            slo,
            margin: Time::from_secs(10),
            overhead_limit: 1.0 - slo,
            credit: CreditTable::scaled(slo),
        }
    }

    /// The seeds' three classes: gold 100 %, silver 90 %, bronze 50 %,
    /// in decreasing importance.
    pub fn paper_classes() -> Vec<ServiceClass> {
        vec![
            ServiceClass::new("gold", 3, 1.0),
            ServiceClass::new("silver", 2, 0.9),
            ServiceClass::new("bronze", 1, 0.5),
        ]
    }
}

/// A tenant and its share of the platform (owner-share).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Tenant {
    /// Its name, unique.
    pub name: String,
    /// The slots it owns: it is entitled to `min(demand, share)`.
    pub share: u32,
}

/// One request: a single instance of `procs` slots.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Request {
    /// Its identity (unique in a run).
    pub id: u64,
    /// Admission time.
    pub submit: Time,
    /// Slots on one host (≥ 1).
    pub procs: u32,
    /// Run time that completes it; `None`: a service that runs until the
    /// end of the run.
    pub duration: Option<Time>,
    /// Index into [`QosConfig::classes`].
    pub class: usize,
    /// Index into [`QosConfig::tenants`].
    pub tenant: usize,
}

/// Host `host` has `slots` slots from `at` on (at most its size in
/// [`QosConfig::hosts`]): the owner of the processors (HPC work in a
/// convergence area) took some back or gave them back.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Resize {
    /// When.
    pub at: Time,
    /// Which host.
    pub host: usize,
    /// Its slots from then on.
    pub slots: u32,
}

/// A host's resources beyond its slots, and its labels. The slots of
/// [`QosConfig::hosts`] are its CPU (whole units); `memory` is in the
/// platform's memory unit (whole units, the same unit as the requests').
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct HostSpec {
    /// Its memory; `None`: memory is not constrained on this host (any
    /// request's memory fits, and memory does not enter its score).
    pub memory: Option<u32>,
    /// Its labels, matched by the requests' [`Constraint`]s.
    pub labels: BTreeMap<String, String>,
}

/// A placement constraint of a request on a host's labels (seed 001
/// §4.1.1: the Google trace's task constraints).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Constraint {
    /// The label's key.
    pub key: String,
    /// The value compared with.
    pub value: String,
    /// `true`: the host's label must equal `value`; `false`: it must not
    /// (a host without the label satisfies `key!=value`, not `key=value`).
    pub equal: bool,
}

impl Constraint {
    /// Does a host with `labels` satisfy it?
    pub fn holds(&self, labels: &BTreeMap<String, String>) -> bool {
        (labels.get(&self.key) == Some(&self.value)) == self.equal
    }
}

/// What a request needs beyond its slots ([`Request::procs`], its CPU):
/// memory, placement constraints, and how many instances.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Needs {
    /// Memory of each instance, in the hosts' memory unit (0: none).
    pub memory: u32,
    /// Every one must hold on the instance's host.
    pub constraints: Vec<Constraint>,
    /// Its instances (≥ 1), each of the request's CPU and memory, placed
    /// independently; the request's QoS is over all of them (seed 000
    /// eqs. 3.1–3.3).
    pub instances: u32,
}

impl Default for Needs {
    /// One instance, no memory, no constraint: the seeds' validation requests.
    fn default() -> Needs {
        Needs {
            memory: 0,
            constraints: Vec::new(),
            instances: 1,
        }
    }
}

/// Where an allocation overhead is drawn from.
#[derive(Clone, Debug, PartialEq)]
pub enum Draw {
    /// One of these values, each equally likely.
    Values(Vec<Time>),
    /// Uniform in `[lo, hi]`.
    Uniform(Time, Time),
}

impl Draw {
    /// The largest value it can give.
    pub fn max(&self) -> Time {
        match self {
            Draw::Values(v) => v.iter().copied().max().unwrap_or(Time::ZERO),
            Draw::Uniform(_, hi) => *hi,
        }
    }

    /// One value, from `rng`.
    pub fn sample(&self, rng: &mut SplitMix64) -> Time {
        match self {
            Draw::Values(v) => v[rng.below(v.len() as u64) as usize],
            Draw::Uniform(lo, hi) => {
                let ticks = rng.uniform(lo.ticks() as f64, hi.ticks() as f64 + 1.0);
                Time::from_ticks((ticks as i64).min(hi.ticks()))
            }
        }
    }

    fn valid(&self) -> bool {
        match self {
            Draw::Values(v) => !v.is_empty() && v.iter().all(|&t| t >= Time::ZERO),
            Draw::Uniform(lo, hi) => *lo >= Time::ZERO && lo <= hi,
        }
    }
}

/// The allocation overhead `α` drawn at each allocation (seed 001 §4.1.1):
/// `hot` when the instance has run on that host before, `cold` otherwise.
#[derive(Clone, Debug, PartialEq)]
pub struct Overheads {
    /// An instance that has run on the host before.
    pub hot: Draw,
    /// An instance new to the host.
    pub cold: Draw,
}

/// How ties between hosts of equal allocation score are broken.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum TieBreak {
    /// The host of smallest index (reproducible without a seed; the default).
    #[default]
    HostIndex,
    /// At random among the tied hosts, as the seeds do, drawn with
    /// [`QosConfig::seed`].
    Random,
}

/// What happens to a host at an instant (seed 001 Algorithm 1's events).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum HostChange {
    /// The host fails: its instances are preempted at once (back to the
    /// pending queue, their work as [`OnPreempt`] says), and it offers
    /// nothing until it recovers.
    Fail(usize),
    /// A failed host is back, with the size it had when it failed.
    Recover(usize),
    /// A new host joins (its index is the next one): its slots, and its
    /// memory and labels.
    Add(u32, HostSpec),
}

/// A host event of a run.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct HostEvent {
    /// When (applied with the resizes: after the instant's completions,
    /// before its arrivals).
    pub at: Time,
    /// What.
    pub change: HostChange,
}

/// A platform and its scheduler's settings.
#[derive(Clone, Debug, PartialEq)]
pub struct QosConfig {
    /// The service classes.
    pub classes: Vec<ServiceClass>,
    /// The tenants (at least one).
    pub tenants: Vec<Tenant>,
    /// Each host's slots (at most; [`Resize`] events change them).
    pub hosts: Vec<u32>,
    /// Each host's speed (work per second; a request's `duration` is its
    /// work at speed 1). Empty: every host has speed 1. Only osep models
    /// speeds.
    pub speeds: Vec<f64>,
    /// OSEP's update period, bound and checkpoint block.
    pub osep: OsepSettings,
    /// OSEP's portion `Porcao_t` of each tenant in speed units (the sum
    /// of the speeds of the machines it owns), `None` where the file gave
    /// none; empty: none given ([`QosConfig::portion`]).
    pub powers: Vec<Option<f64>>,
    /// The eviction policy.
    pub eviction: Eviction,
    /// What a preemption does to an instance's work.
    pub on_preempt: OnPreempt,
    /// `α`: time from allocation until the instance runs (pending time for
    /// its availability; after a preemption, overhead for `C_k`).
    pub allocation_time: Time,
    /// The scheduler also runs this long after its last run (seed: 10 s).
    pub watchdog: Time,
    /// Length of the windows of the fairness metrics (seed: 10 minutes);
    /// `None`: no windows. Closing a window costs one look at every
    /// request in the system, so an overloaded platform whose queue grows
    /// without bound over a long run pays for its windows.
    pub window: Option<Time>,
    /// End of the run; `None`: when every request has completed.
    pub until: Option<Time>,
    /// Each host's memory and labels (empty: no host has either; else one
    /// per host of `hosts`).
    pub host_specs: Vec<HostSpec>,
    /// `α` drawn at each allocation, hot or cold; `None`: `allocation_time`.
    pub overheads: Option<Overheads>,
    /// Ties between hosts of equal score.
    pub tie_break: TieBreak,
    /// The seed of the run's draws (overheads, random ties).
    pub seed: u64,
    /// Hosts failing, recovering and joining.
    pub events: Vec<HostEvent>,
}

impl QosConfig {
    /// The shortest watchdog period accepted (every period is a scheduler run).
    pub const MIN_WATCHDOG: Time = Time::from_secs(1);
    /// The shortest fairness window accepted (every window is a look at every request in the system).
    pub const MIN_WINDOW: Time = Time::from_secs(60);

    /// A platform of `hosts` hosts of `slots` slots with the seeds' defaults:
    /// their three classes, one tenant owning everything, no allocation
    /// time, a 10 s watchdog, 10-minute windows, instances resumed.
    pub fn new(hosts: usize, slots: u32, eviction: Eviction) -> QosConfig {
        QosConfig {
            classes: ServiceClass::paper_classes(),
            tenants: vec![Tenant {
                name: "default".to_string(),
                share: slots.saturating_mul(hosts as u32),
            }],
            hosts: vec![slots; hosts],
            speeds: Vec::new(),
            osep: OsepSettings::default(),
            powers: Vec::new(),
            eviction,
            on_preempt: OnPreempt::Resume,
            allocation_time: Time::ZERO,
            watchdog: Time::from_secs(10),
            window: Some(Time::from_secs(600)),
            until: None,
            host_specs: Vec::new(),
            overheads: None,
            tie_break: TieBreak::HostIndex,
            seed: 0,
            events: Vec::new(),
        }
    }

    /// `α_j` of the QoS metric: the largest allocation time expected (seed
    /// 000 §3.3, "o tempo máximo de alocação esperado"): `allocation_time`,
    /// or the largest hot or cold overhead that can be drawn.
    pub fn expected_allocation(&self) -> Time {
        match &self.overheads {
            None => self.allocation_time,
            Some(o) => o.hot.max().max(o.cold.max()),
        }
    }

    /// Host `h`'s memory and labels (none when the platform gives none).
    pub fn host_spec(&self, h: usize) -> Option<&HostSpec> {
        self.host_specs.get(h)
    }

    /// Check what `needs` asks of request `id` against the hosts at the
    /// start and those its events add: some host has the memory.
    pub fn validate_needs(&self, id: u64, needs: &Needs) -> Result<(), QosError> {
        if needs.instances == 0 {
            return Err(QosError(format!("request {id}: instances must be ≥ 1")));
        }
        let added = self.events.iter().filter_map(|e| match &e.change {
            HostChange::Add(_, spec) => Some(spec.memory),
            _ => None,
        });
        let memories = (0..self.hosts.len())
            .map(|h| self.host_spec(h).and_then(|s| s.memory))
            .chain(added);
        let most = memories.map(|m| m.unwrap_or(u32::MAX)).max().unwrap_or(0);
        if needs.memory > most {
            return Err(QosError(format!(
                "request {id}: memory {}, but hosts have at most {most}",
                needs.memory
            )));
        }
        Ok(())
    }

    /// Check the settings and the requests against them.
    pub fn validate(&self, requests: &[Request]) -> Result<(), QosError> {
        let bad = |what: String| Err(QosError(what));
        if self.classes.is_empty() {
            return bad("no service class: define at least one".into());
        }
        for (i, c) in self.classes.iter().enumerate() {
            if !(c.slo > 0.0 && c.slo <= 1.0) {
                return bad(format!("class {:?}: slo {} is not in (0, 1]", c.name, c.slo));
            }
            if !(c.overhead_limit.is_finite() && c.overhead_limit >= 0.0) {
                return bad(format!("class {:?}: overhead_limit must be ≥ 0", c.name));
            }
            if c.margin < Time::ZERO {
                return bad(format!("class {:?}: margin must be ≥ 0", c.name));
            }
            if self.classes[..i].iter().any(|o| o.name == c.name) {
                return bad(format!("class {:?} is defined twice", c.name));
            }
        }
        if self.tenants.is_empty() {
            return bad("no tenant: define at least one".into());
        }
        if self.hosts.is_empty() || self.hosts.contains(&0) {
            return bad("hosts: every host needs at least one slot, and there must be a host".into());
        }
        if self.hosts.iter().map(|&h| u64::from(h)).sum::<u64>() > u64::from(u32::MAX) {
            return bad(format!("hosts: more than {} slots in all", u32::MAX));
        }
        if self.watchdog < Self::MIN_WATCHDOG {
            return bad(format!(
                "watchdog: {} is below the minimum, {}: the scheduler would run too often",
                self.watchdog,
                Self::MIN_WATCHDOG
            ));
        }
        if self.window.is_some_and(|w| w < Self::MIN_WINDOW) {
            return bad(format!(
                "window: below the minimum, {} (0 turns the windows off)",
                Self::MIN_WINDOW
            ));
        }
        if self.allocation_time < Time::ZERO {
            return bad("allocation_time: must be ≥ 0".into());
        }
        if let Some(o) = &self.overheads {
            if !(o.hot.valid() && o.cold.valid()) {
                return bad("allocation_time: hot and cold need values ≥ 0 (uniform: lo ≤ hi)".into());
            }
        }
        if !self.host_specs.is_empty() && self.host_specs.len() != self.hosts.len() {
            return bad(format!(
                "hosts: {} hosts but {} memories and labels",
                self.hosts.len(),
                self.host_specs.len()
            ));
        }
        self.validate_osep()?;
        let widest = self.hosts.iter().copied().max().unwrap_or(0);
        for r in requests {
            if r.procs == 0 || r.procs > widest {
                return bad(format!(
                    "request {}: {} slots, but hosts have 1 to {widest}",
                    r.id, r.procs
                ));
            }
            if r.class >= self.classes.len() || r.tenant >= self.tenants.len() {
                return bad(format!("request {}: unknown class or tenant", r.id));
            }
            if r.duration.is_some_and(|d| d <= Time::ZERO) {
                return bad(format!("request {}: duration must be > 0", r.id));
            }
            if r.duration.is_none() && self.until.is_none() {
                return bad(format!(
                    "request {} runs until the end (no duration), so the run needs an end (`until`)",
                    r.id
                ));
            }
        }
        Ok(())
    }
}

impl QosConfig {
    /// Host `h`'s speed (1 unless [`QosConfig::speeds`] says otherwise).
    pub fn speed(&self, h: usize) -> f64 {
        self.speeds.get(h).copied().unwrap_or(1.0)
    }

    /// The platform's power: `Σ slots × speed`.
    pub fn total_power(&self) -> f64 {
        (0..self.hosts.len())
            .map(|h| f64::from(self.hosts[h]) * self.speed(h))
            .sum()
    }

    /// Tenant `t`'s portion `Porcao_t` in speed units: its `power` when
    /// given, else its share of all the tenants' slots times the
    /// platform's power (`share_t / Σ share × Σ slots × speed`).
    pub fn portion(&self, t: usize) -> f64 {
        if let Some(p) = self.powers.get(t).copied().flatten() {
            return p;
        }
        let shares: f64 = self.tenants.iter().map(|t| f64::from(t.share)).sum();
        if shares > 0.0 {
            f64::from(self.tenants[t].share) / shares * self.total_power()
        } else {
            0.0
        }
    }

    /// The speeds, the modes and the settings only osep reads, checked.
    fn validate_osep(&self) -> Result<(), QosError> {
        let bad = |what: String| Err(QosError(what));
        if !self.speeds.is_empty() && self.speeds.len() != self.hosts.len() {
            return bad(format!(
                "speeds: {} for {} hosts",
                self.speeds.len(),
                self.hosts.len()
            ));
        }
        if let Some(h) = self.speeds.iter().position(|s| !(s.is_finite() && *s > 0.0)) {
            return bad(format!(
                "host {h}: speed {} is not a speed: give a number > 0",
                self.speeds[h]
            ));
        }
        let osep = self.eviction == Eviction::Osep;
        if !osep && self.powers.iter().any(Option::is_some) {
            return bad(
                "tenants: power: only eviction osep reads the tenants' power: remove it, or use osep".into(),
            );
        }
        if !osep && self.speeds.iter().any(|&s| s != 1.0) {
            return bad(
                "speed: only eviction osep models host speeds: remove the speeds, or use osep".into(),
            );
        }
        if !osep && self.on_preempt == OnPreempt::Checkpoint {
            return bad("on_preempt: checkpoint is osep's block checkpointing: use resume or restart".into());
        }
        if !osep {
            return Ok(());
        }
        if self.osep.period <= Time::ZERO {
            return bad("osep.period: must be > 0".into());
        }
        if self.on_preempt == OnPreempt::Checkpoint && self.osep.block <= Time::ZERO {
            return bad(
                "osep.block: must be > 0 under on_preempt: checkpoint (restart loses every block)".into(),
            );
        }
        if self.allocation_time != Time::ZERO {
            return bad(
                "allocation_time: osep allocates at once (the seed has no allocation time): remove it".into(),
            );
        }
        for (t, tenant) in self.tenants.iter().enumerate() {
            let given = self.powers.get(t).copied().flatten();
            let portion = self.portion(t);
            if given.is_some_and(|p| !(p.is_finite() && p > 0.0)) || portion.is_nan() || portion <= 0.0 {
                return bad(format!(
                    "tenant {:?}: osep needs a portion > 0 (a share > 0, or a power > 0)",
                    tenant.name
                ));
            }
        }
        Ok(())
    }
}

/// A platform or request set the scheduler cannot run.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct QosError(pub String);

impl fmt::Display for QosError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for QosError {}

impl From<UnknownName> for QosError {
    fn from(e: UnknownName) -> QosError {
        QosError(e.to_string())
    }
}
