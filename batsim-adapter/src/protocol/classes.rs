//! `interstice batsim --eviction POLICY [--qos FILE]`: when HPC work takes
//! processors of the area, the running cloud jobs give way in an eviction
//! policy's victim order (the engine's [`Victims::Ranked`]) instead of
//! whichever hold the processors the plan names.
//!
//! Each cloud job gets a class and a tenant when the adapter submits it to
//! the engine, by swf's one rule ([`ClassDraw`]): one draw per cloud job in
//! that order (the workload's, in Batsim's order of arrival, and the
//! injected ones), its `class`/`tenant` label, which Batsim passes through
//! in `JOB_SUBMITTED`, in place of its draw. An evicted job that comes back
//! keeps them. Before every pass and before submitting a cloud job the
//! session ranks its running cloud jobs through core's
//! [`Driver::rank_running_cloud`], the ranking the daemon's engine uses.

use super::options::EngineOptions;
use interstice_core::qos::policy::RunningCloud;
use interstice_core::qos::Eviction;
use interstice_core::{Driver, EngineConfig, JobId, Policy, Time, Victims};
use interstice_swf::label::JobLabel;
use interstice_swf::qos::{ClassDraw, QosSpec, UnknownName};

/// Why an eviction policy cannot order this run's victims.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum VictimOrderError {
    /// Owner-share without tenants to weigh.
    #[error(
        "--eviction owner-share orders victims by the tenants' shares, and no tenant is defined: give --qos \
         FILE with `tenants:` (each tenant's share of the area's processors; the workload's cloud jobs name \
         theirs with \"tenant\", the others are drawn by the tenants' weights), or use priority or qos-driven"
    )]
    NoTenants,
    /// An engine option under which the processors an HPC job takes are
    /// part of its plan (core's `EngineConfig::ranked_victims_conflict`).
    #[error("--eviction {eviction} cannot go with {option}: {why}")]
    Engine {
        /// The policy asked for.
        eviction: Eviction,
        /// The option as its source names it (`--policy conservative`,
        /// `Batsim's --sched-cfg "scheduling": "shared-queue"`).
        option: String,
        /// Core's reason.
        why: String,
    },
}

/// The engine option among `policy`, `scheduling` and `maintenance` that
/// rules out evicting by rank, as (its key, the value as written, core's
/// reason); `None` when every one given allows it. Each is judged alone by
/// core's `EngineConfig::ranked_victims_conflict`, so the answer names the
/// option to change.
pub fn ranked_conflict(options: &EngineOptions) -> Option<(&'static str, String, String)> {
    let probe = |set: &dyn Fn(&mut EngineConfig)| {
        let mut config = EngineConfig::new(1, Policy::Fcfs);
        config.victims = Victims::Ranked;
        set(&mut config);
        config.ranked_victims_conflict()
    };
    if let Some(policy) = options.policy {
        if let Some(why) = probe(&|c| c.policy = policy) {
            return Some(("policy", policy.to_string(), why));
        }
    }
    if let Some(scheduling) = options.scheduling {
        if let Some(why) = probe(&|c| c.scheduling = scheduling) {
            return Some(("scheduling", scheduling.to_string(), why));
        }
    }
    if let Some(file) = &options.maintenance {
        if let Some(why) = probe(&|c| c.maintenance = file.windows().to_vec()) {
            return Some(("maintenance", file.name().to_string(), why));
        }
    }
    None
}

/// The classes and tenants whose eviction policy orders the victims.
#[derive(Clone, Debug)]
pub struct VictimOrder {
    spec: QosSpec,
}

impl VictimOrder {
    /// Evict by `spec.config.eviction`'s victim order over `spec`'s classes
    /// and tenants; owner-share needs tenants the spec names
    /// ([`QosSpec::named_tenants`]).
    pub fn new(spec: QosSpec) -> Result<VictimOrder, VictimOrderError> {
        if spec.config.eviction == Eviction::OwnerShare && !spec.named_tenants {
            return Err(VictimOrderError::NoTenants);
        }
        Ok(VictimOrder { spec })
    }

    /// The eviction policy.
    pub fn eviction(&self) -> Eviction {
        self.spec.config.eviction
    }

    /// Whether the engine options of `given` (each with where it came
    /// from) allow evicting by rank: the first that rules it out
    /// ([`ranked_conflict`]) is the error.
    pub fn check(&self, given: &[(OptionSource, &EngineOptions)]) -> Result<(), VictimOrderError> {
        for (source, options) in given {
            if let Some((key, value, why)) = ranked_conflict(options) {
                return Err(self.refused(source.name(key, &value), why));
            }
        }
        Ok(())
    }

    /// Make `config` evict by rank, or say why it cannot: the options of
    /// `given` as [`VictimOrder::check`] judges them, then whatever else in
    /// `config` rules it out.
    pub fn apply(
        &self,
        config: &mut EngineConfig,
        given: &[(OptionSource, &EngineOptions)],
    ) -> Result<(), VictimOrderError> {
        self.check(given)?;
        config.victims = Victims::Ranked;
        match config.ranked_victims_conflict() {
            Some(why) => Err(self.refused("this engine configuration".into(), why)),
            None => Ok(()),
        }
    }

    fn refused(&self, option: String, why: String) -> VictimOrderError {
        VictimOrderError::Engine {
            eviction: self.eviction(),
            option,
            why,
        }
    }
}

/// Where an engine option was given, to name it in an error.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum OptionSource {
    /// `interstice batsim`'s flags (`--policy conservative`).
    Flags,
    /// Batsim's `--sched-cfg` JSON (`"policy": "conservative"`).
    SchedConfig,
}

impl OptionSource {
    /// Option `key` with `value`, as this source writes it.
    pub fn name(self, key: &str, value: &str) -> String {
        match self {
            OptionSource::Flags => format!("--{key} {value}"),
            OptionSource::SchedConfig => format!("Batsim's --sched-cfg \"{key}\": \"{value}\""),
        }
    }
}

/// A session's classes: the draw, in the order cloud jobs are submitted.
pub(super) struct Classes {
    draw: ClassDraw<QosSpec>,
    submitted: u64,
}

impl Classes {
    /// The classes of one simulation.
    pub(super) fn new(order: &VictimOrder) -> Classes {
        Classes {
            draw: ClassDraw::new(order.spec.clone()),
            submitted: 0,
        }
    }

    /// The next cloud job to submit, first arriving at `submitted` on
    /// `procs` processors, labelled `label` by its workload: its class and
    /// tenant (the label's, else its draw) and its admission rank.
    pub(super) fn classify(
        &mut self,
        submitted: Time,
        procs: u32,
        label: Option<&JobLabel>,
    ) -> Result<RunningCloud, UnknownName> {
        let (class, tenant) = self.draw.next(label)?;
        let order = self.submitted;
        self.submitted += 1;
        Ok(RunningCloud {
            order,
            submitted,
            procs,
            class,
            tenant,
        })
    }

    /// Rank `driver`'s running cloud jobs at `now`, each as `of` knows it.
    pub(super) fn rank(&self, driver: &mut Driver, now: Time, of: impl FnMut(JobId) -> Option<RunningCloud>) {
        driver.rank_running_cloud(&self.draw.spec().config, now, of);
    }
}
