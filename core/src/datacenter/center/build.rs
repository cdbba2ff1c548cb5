//! Building a data center from its config: the members, their engines,
//! the Petri net and the first publication of every scheduler's tuple.

use super::*;

impl Datacenter {
    /// Check the config and build the schedulers; every tuple is published
    /// at time 0 (empty plans).
    pub fn new(config: DatacenterConfig) -> Result<Datacenter, DatacenterError> {
        let bad = |m: String| Err(DatacenterError::InvalidConfig(m));
        if config.schedulers.is_empty() {
            return bad("no scheduler: give at least one".into());
        }
        if !config.tau.is_finite() || config.tau < 0.0 {
            return bad(format!("tau is {}: give a finite number >= 0", config.tau));
        }
        if config.refresh < Time::ZERO || config.refresh.is_infinite() {
            return bad("refresh must be a finite duration >= 0".into());
        }
        if let Routing::Fixed(i) = config.routing {
            if i >= config.schedulers.len() {
                return bad(format!("routing names scheduler #{i}, which does not exist"));
            }
        }
        let topsis = config.topsis().copied();
        if let Some(cfg) = &config.classes {
            // Checked as a platform of one host would be (its hosts are not the data center's).
            let platform = QosConfig {
                hosts: vec![1],
                ..cfg.clone()
            };
            platform
                .validate(&[])
                .map_err(|e| DatacenterError::InvalidConfig(format!("classes: {e}")))?;
        }
        let mut members = Vec::new();
        let mut latency = Vec::new();
        let mut features = Vec::new();
        for (i, s) in config.schedulers.into_iter().enumerate() {
            if s.name.is_empty() {
                return bad(format!(
                    "schedulers[{i}].name is empty: give each scheduler a name"
                ));
            }
            if members.iter().any(|m: &Member| m.name == s.name) {
                return bad(format!(
                    "schedulers[{i}].name {:?} is used twice: names are unique",
                    s.name
                ));
            }
            if !s.overbooking.is_finite() || s.overbooking < 1.0 {
                return bad(format!(
                    "schedulers[{i}] ({}): overbooking is {}: give λ >= 1 (1 = none)",
                    s.name, s.overbooking
                ));
            }
            if s.latency < Time::ZERO || s.latency.is_infinite() {
                return bad(format!(
                    "schedulers[{i}] ({}): latency must be a finite duration >= 0",
                    s.name
                ));
            }
            if s.role == Role::Cloud && s.engine.procs > EngineConfig::MAX_PROCS {
                return bad(format!(
                    "schedulers[{i}] ({}): overbooking × processors makes {} virtual processors: at most {}",
                    s.name,
                    s.engine.procs,
                    EngineConfig::MAX_PROCS
                ));
            }
            let widest = s.widest.unwrap_or(s.engine.conv_procs).min(s.engine.conv_procs);
            let mut engine = s.engine;
            engine.admission = Admission::AdmitAll;
            engine.lifecycle = Lifecycle {
                max_resubmissions: 0,
                max_time_in_system: None,
            };
            if s.role == Role::Cloud {
                engine.scheduling = Scheduling::HpcFirst;
            }
            if let Some(eviction) = s.eviction {
                if config.classes.is_none() {
                    return bad(format!(
                        "schedulers[{i}] ({}) evicts by {eviction}: give the data center its service classes",
                        s.name
                    ));
                }
                engine.victims = crate::engine::Victims::Ranked;
            }
            let engine = Engine::new(engine).map_err(|source| DatacenterError::Engine {
                scheduler: s.name.clone(),
                source,
            })?;
            let mut engine = engine;
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
            classes: config.classes.map(|cfg| ClassBook {
                records: Vec::new(),
                windows: Windows::new(
                    Time::ZERO,
                    cfg.window,
                    cfg.classes.iter().map(|c| c.slo).collect(),
                ),
                cfg,
            }),
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
