//! Building a data center from its config: the members, their engines,
//! the Petri net and the first publication of every scheduler's tuple.

use super::*;

/// A config the data center refuses, with the message that says why.
fn invalid(message: String) -> Result<(), DatacenterError> {
    Err(DatacenterError::InvalidConfig(message))
}

impl Datacenter {
    /// Check the config and build the schedulers; every tuple is published
    /// at time 0 (empty plans).
    pub fn new(config: DatacenterConfig) -> Result<Datacenter, DatacenterError> {
        check_settings(&config)?;
        let topsis = config.topsis().copied();
        let mut members = Vec::new();
        let mut latency = Vec::new();
        let mut features = Vec::new();
        for (i, s) in config.schedulers.into_iter().enumerate() {
            check_scheduler(i, &s, &members, config.classes.is_some())?;
            let widest = s.widest.unwrap_or(s.engine.conv_procs).min(s.engine.conv_procs);
            let engine = member_engine(s.engine, s.role, s.eviction.is_some());
            let mut engine = Engine::new(engine).map_err(|source| DatacenterError::Engine {
                scheduler: s.name.clone(),
                source,
            })?;
            engine.hand_over_finished();
            latency.push(s.latency);
            features.push(s.features);
            members.push(Member {
                name: s.name,
                role: s.role,
                overbooking: s.overbooking,
                widest,
                driver: Driver::new(engine),
                published: None,
                behind: false,
                totals: SchedulerTotals::default(),
                policy: s
                    .eviction
                    .zip(config.classes.as_ref())
                    .map(|(eviction, classes)| QosConfig {
                        eviction,
                        ..classes.clone()
                    }),
            });
        }
        let mut dc = Datacenter {
            refresh: config.refresh,
            admission: config.admission,
            tau: config.tau,
            beta: config.beta,
            lifecycle: config.lifecycle,
            routing: config.routing,
            topsis,
            classes: config.classes.map(ClassBook::empty),
            latency,
            features,
            members,
            tuples: Vec::new(),
            tracked: HashMap::new(),
            given: HashMap::new(),
            transit: BinaryHeap::new(),
            next_ticket: 0,
            next_local: ATTEMPT_IDS,
            next_seq: 0,
            net: PetriNet::default(),
            totals: Totals::default(),
            done: Vec::new(),
        };
        dc.tuples = (0..dc.members.len()).map(|i| dc.tuple(i, Time::ZERO)).collect();
        for i in 0..dc.members.len() {
            dc.publish(i, Time::ZERO);
        }
        Ok(dc)
    }
}

/// The data center's own settings, before any scheduler: at least one
/// scheduler, τ, the refresh period, a fixed route to a scheduler that
/// exists, and the service classes (checked as a platform of one host
/// would be: their hosts are not the data center's).
fn check_settings(config: &DatacenterConfig) -> Result<(), DatacenterError> {
    if config.schedulers.is_empty() {
        return invalid("no scheduler: give at least one".into());
    }
    if !config.tau.is_finite() || config.tau < 0.0 {
        return invalid(format!("tau is {}: give a finite number >= 0", config.tau));
    }
    if config.refresh < Time::ZERO || config.refresh.is_infinite() {
        return invalid("refresh must be a finite duration >= 0".into());
    }
    if let Routing::Fixed(i) = config.routing {
        if i >= config.schedulers.len() {
            return invalid(format!("routing names scheduler #{i}, which does not exist"));
        }
    }
    if let Some(cfg) = &config.classes {
        let platform = QosConfig {
            hosts: vec![1],
            ..cfg.clone()
        };
        platform
            .validate(&[])
            .map_err(|e| DatacenterError::InvalidConfig(format!("classes: {e}")))?;
    }
    Ok(())
}

/// Scheduler `i`'s own settings, given the `members` built before it: a
/// unique name, λ ≥ 1, `F^r`'s inputs in range, no more virtual processors than an
/// engine takes, and an eviction policy only with the data center's
/// service classes (`has_classes`).
fn check_scheduler(
    i: usize,
    s: &SchedulerConfig,
    members: &[Member],
    has_classes: bool,
) -> Result<(), DatacenterError> {
    if s.name.is_empty() {
        return invalid(format!(
            "schedulers[{i}].name is empty: give each scheduler a name"
        ));
    }
    if members.iter().any(|m: &Member| m.name == s.name) {
        return invalid(format!(
            "schedulers[{i}].name {:?} is used twice: names are unique",
            s.name
        ));
    }
    if !s.overbooking.is_finite() || s.overbooking < 1.0 {
        return invalid(format!(
            "schedulers[{i}] ({}): overbooking is {}: give λ >= 1 (1 = none)",
            s.name, s.overbooking
        ));
    }
    if let Some(problem) = s.latency.problem() {
        return invalid(format!("schedulers[{i}] ({}): {problem}", s.name));
    }
    if s.role == Role::Cloud && s.engine.procs > EngineConfig::MAX_PROCS {
        return invalid(format!(
            "schedulers[{i}] ({}): overbooking × processors makes {} virtual processors: at most {}",
            s.name,
            s.engine.procs,
            EngineConfig::MAX_PROCS
        ));
    }
    if let Some(eviction) = s.eviction {
        if eviction == Eviction::Osep {
            return invalid(format!(
                "schedulers[{i}] ({}) evicts by osep, which only `interstice qos run` simulates (its periodic \
                 decision and host speeds): use priority, qos-driven or owner-share",
                s.name
            ));
        }
        if !has_classes {
            return invalid(format!(
                "schedulers[{i}] ({}) evicts by {eviction}: give the data center its service classes",
                s.name
            ));
        }
    }
    Ok(())
}

/// A member's engine as the data center runs it: it admits what it is sent
/// (the data center decided) and never re-queues an evicted job itself
/// (Algorithm 2 does); a cloud platform plans its own work first, and a
/// scheduler with an eviction policy (`evicts`) evicts by rank.
fn member_engine(mut engine: EngineConfig, role: Role, evicts: bool) -> EngineConfig {
    engine.admission = Admission::AdmitAll;
    engine.lifecycle = Lifecycle {
        max_resubmissions: 0,
        max_time_in_system: None,
    };
    if role == Role::Cloud {
        engine.scheduling = Scheduling::HpcFirst;
    }
    if evicts {
        engine.victims = crate::engine::Victims::Ranked;
    }
    engine
}

impl ClassBook {
    /// The classes of `cfg` before any cloud job: nothing recorded, the
    /// fairness windows opening at time 0.
    fn empty(cfg: QosConfig) -> ClassBook {
        ClassBook {
            records: Vec::new(),
            windows: Windows::new(
                Time::ZERO,
                cfg.window,
                cfg.classes.iter().map(|c| c.slo).collect(),
            ),
            cfg,
        }
    }
}
