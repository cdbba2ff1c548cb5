//! `SIMULATION_BEGINS`: the engine built from the command line's options and
//! Batsim's `--sched-cfg`, and the simulation's initial state.

use super::{BeginError, Running, Session, SessionError, DYNAMIC_WORKLOAD, SYNTHETIC_ID_BASE};
use crate::protocol::classes::{Classes, OptionSource};
use crate::protocol::messages::{EventKind, Message, SimulationBegins};
use crate::protocol::options::EngineOptions;
use interstice_core::{Driver, Engine, Time};
use std::collections::{BTreeSet, HashMap, HashSet};

impl Session {
    /// The message's `SIMULATION_BEGINS`, if any, starts the simulation: the
    /// first message must have one, and no later message may.
    pub(super) fn begin_once(&mut self, message: &Message) -> Result<(), SessionError> {
        let begins_at = message
            .events
            .iter()
            .position(|e| matches!(e.kind, EventKind::SimulationBegins(_)));
        match (begins_at, self.running.is_some()) {
            (Some(index), true) => {
                return Err(SessionError::Begin {
                    index,
                    problem: Box::new(BeginError::AlreadyBegun),
                })
            }
            (Some(index), false) => {
                if let EventKind::SimulationBegins(begins) = &message.events[index].kind {
                    let running = self
                        .begin(begins, message.now)
                        .map_err(|problem| SessionError::Begin {
                            index,
                            problem: Box::new(problem),
                        })?;
                    self.running = Some(running);
                }
            }
            (None, false) => return Err(SessionError::NotBegun),
            (None, true) => {}
        }
        Ok(())
    }

    pub(super) fn begin(&self, begins: &SimulationBegins, now: f64) -> Result<Running, BeginError> {
        let from_batsim =
            EngineOptions::from_sched_config(&begins.sched_config).map_err(BeginError::Options)?;
        let flags = &self.config.engine;
        // What ranking victims depends on that Batsim's --sched-cfg decides
        // (the keys the flags leave to it).
        let from_sched = EngineOptions {
            policy: from_batsim.policy.filter(|_| flags.policy.is_none()),
            scheduling: from_batsim.scheduling.filter(|_| flags.scheduling.is_none()),
            maintenance: from_batsim
                .maintenance
                .clone()
                .filter(|_| flags.maintenance.is_none()),
            ..EngineOptions::default()
        };
        let options = flags.clone().or(from_batsim);
        let procs =
            u32::try_from(begins.compute_resources.len()).map_err(|_| BeginError::TooManyResources)?;
        let mut config = options.to_config(procs).map_err(BeginError::Options)?;
        if !begins.dynamic_jobs_enabled {
            if self.config.inject.is_some() {
                return Err(BeginError::InjectionNeedsDynamicJobs);
            }
            // A killed Batsim job cannot be executed again: without dynamic
            // jobs there is no way to resubmit, so evictions are final.
            config.lifecycle.max_resubmissions = 0;
        }
        if let Some(inject) = &self.config.inject {
            inject.validate().map_err(BeginError::Injection)?;
        }
        if let Some(order) = &self.config.victim_order {
            let given = [
                (OptionSource::Flags, flags),
                (OptionSource::SchedConfig, &from_sched),
            ];
            order
                .apply(&mut config, &given)
                .map_err(BeginError::VictimOrder)?;
        }
        let engine = Engine::new(config).map_err(BeginError::Engine)?;
        let identity_resources = begins
            .compute_resources
            .iter()
            .enumerate()
            .all(|(i, &r)| i as u32 == r);
        let workload_name = begins
            .workloads
            .first()
            .map_or_else(|| DYNAMIC_WORKLOAD.to_string(), |(name, _)| name.clone());
        Ok(Running {
            driver: Driver::new(engine),
            resources: begins.compute_resources.clone(),
            identity_resources,
            dynamic_jobs: begins.dynamic_jobs_enabled,
            workload_name,
            profiles: begins.profiles.clone(),
            by_batsim: HashMap::new(),
            entries: HashMap::new(),
            used_ids: HashSet::new(),
            next_synthetic: SYNTHETIC_ID_BASE,
            expected_ends: BTreeSet::new(),
            arrivals: Vec::new(),
            latency: Time::ZERO,
            killing: HashMap::new(),
            held: Vec::new(),
            requested_calls: BTreeSet::new(),
            static_done: false,
            registration_finished: false,
            starts: 0,
            schedule_time: std::time::Duration::ZERO,
            inject: self.config.inject.clone(),
            injector: self
                .config
                .inject
                .as_ref()
                .and_then(|inject| Some(inject.injector(inject.start?))),
            clock: Time::from_secs_f64(now).max(Time::ZERO),
            last_now: now,
            classes: self.config.victim_order.as_ref().map(Classes::new),
        })
    }
}
