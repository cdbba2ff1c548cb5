//! The `engine:` section as written ([`EngineSection`]), its resolution into
//! core's [`EngineConfig`], and the rules a broker reads from it
//! ([`BrokerRules`]).

use super::admission_rules::{CandidatesSection, RegulateSection};
use interstice_core::placement::{Placement, Weights, WEIGHTS_EXAMPLE};
use interstice_core::qos::Eviction;
use interstice_core::{Admission, EngineConfig, Lifecycle, Policy, ThesisPrediction, Time, Victims};
use interstice_swf::beta::{beta_from_secs, parse_beta};
use interstice_swf::maintenance::{check_window, window};
use serde::Deserialize;

/// `engine:` section, as written. A key left out takes core's default
/// ([`EngineConfig::new`]), except the two modes the daemon chooses for
/// itself: [`DEFAULT_POLICY`] and [`DEFAULT_ADMISSION`]. Names are parsed by
/// core ([`Policy`], [`Admission`]) in [`EngineSection::resolve`].
#[derive(Clone, Debug, Default, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct EngineSection {
    /// Processors of the HPC platform the plan covers (required but for a
    /// broker; 0 when left out, which validation reports).
    #[serde(default)]
    pub procs: u32,
    /// Processors in the convergence area (default: all).
    #[serde(default)]
    pub conv_procs: Option<u32>,
    /// fcfs, easy, conservative, convergence, cars (under shared-queue).
    #[serde(default)]
    pub policy: Option<String>,
    /// admit-all or reject-predicted.
    #[serde(default)]
    pub admission: Option<String>,
    /// Overbooking risk factor λ.
    #[serde(default)]
    pub lambda: Option<f64>,
    /// Counter-offer factor τ.
    #[serde(default)]
    pub tau: Option<f64>,
    /// Resubmissions allowed after evictions (and lost runs).
    #[serde(default)]
    pub max_resubmissions: Option<u32>,
    /// No resubmission after this long in the system.
    #[serde(default)]
    pub max_time_in_system_seconds: Option<f64>,
    /// hpc-first or shared-queue.
    #[serde(default)]
    pub scheduling: Option<String>,
    /// exact, thesis or learned.
    #[serde(default)]
    pub predictor: Option<String>,
    /// Under reject-predicted, refuse a cloud job whose violation
    /// probability exceeds this (0 to 1) instead of when a violation is
    /// predicted (the learned predictor's probabilities lie between).
    #[serde(default)]
    pub reject_above: Option<f64>,
    /// How many queued jobs hold a reservation: a count or `unlimited`
    /// (the default; `interstice_core::depth`).
    #[serde(default)]
    pub reservation_depth: Option<DepthValue>,
    /// Latency `r` of the thesis predictor, seconds.
    #[serde(default)]
    pub latency: Option<f64>,
    /// `β` of the thesis predictor: seconds, or `disqualify`.
    #[serde(default)]
    pub beta: Option<BetaValue>,
    /// Which idle time the thesis predictor reads as `W_future`: `holes`
    /// (§4.5, the default) or `published` (Algorithm 3, lines 17–18).
    #[serde(default)]
    pub w_future: Option<String>,
    /// first-fit or topsis: how a cloud job's processors (a member) or its
    /// destination (a broker) are chosen.
    #[serde(default)]
    pub placement: Option<String>,
    /// TOPSIS's weights, `margin=0.5,completion=0.2,…` (default: the AHP
    /// weights of `docs/placement.md`).
    #[serde(default)]
    pub placement_weights: Option<String>,
    /// Maintenance windows. The daemon's engine runs on the wall clock
    /// ([`crate::clock`]: epoch microseconds), so `start` is a Unix time in
    /// seconds; a window already over is harmless.
    #[serde(default)]
    pub maintenance: Vec<MaintenanceEntry>,
    /// Which running cloud jobs give way when HPC work the engine plans
    /// needs processors: `priority` or `qos-driven`, by their classes
    /// (docs/qos.md; fcfs or easy, `classes:` and `default_class:`).
    /// Default: those on the processors the plan names.
    #[serde(default)]
    pub eviction: Option<String>,
    /// Which cloud jobs may be admitted at all (default: no limit;
    /// [`super::admission_rules`]).
    #[serde(default)]
    pub candidates: Option<CandidatesSection>,
    /// The submission-rate regulator (default: none).
    #[serde(default)]
    pub regulate: Option<RegulateSection>,
}

/// `engine.beta` as written: a number of seconds or a word.
#[derive(Clone, Debug, Deserialize, PartialEq)]
#[serde(untagged)]
pub enum BetaValue {
    /// Seconds.
    Seconds(f64),
    /// `disqualify` (anything else is reported by validation).
    Word(String),
}

/// `engine.reservation_depth` as written: a count or a word.
#[derive(Clone, Debug, Deserialize, PartialEq)]
#[serde(untagged)]
pub enum DepthValue {
    /// A number of jobs.
    Count(u64),
    /// `unlimited` (anything else is reported by validation).
    Word(String),
}

/// One `engine.maintenance` entry: processors `procs` out of service over
/// `[start, start + duration)`.
#[derive(Clone, Debug, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct MaintenanceEntry {
    /// When the window opens: Unix time, seconds (the daemon's engine clock).
    pub start: f64,
    /// How long it lasts, seconds.
    pub duration: f64,
    /// The processors: one id, or ids and ranges like `"0-3,8"`.
    pub procs: ProcsValue,
}

/// `procs` of a maintenance entry as written.
#[derive(Clone, Debug, Deserialize, PartialEq)]
#[serde(untagged)]
pub enum ProcsValue {
    /// One processor.
    Id(u32),
    /// Ids and inclusive ranges separated by commas.
    List(String),
}

/// The policy when `engine.policy` is not set: the daemon's promises need
/// every queued job's reservation.
pub const DEFAULT_POLICY: Policy = Policy::Conservative;

/// The admission mode when `engine.admission` is not set: a daemon answers
/// clients, so a predicted violation is rejected with a counter-offer.
pub const DEFAULT_ADMISSION: Admission = Admission::RejectPredicted;

/// Values of the `engine:` section core does not accept, each naming its key path.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
#[error("{}", .problems.join("; "))]
pub struct EngineSectionError {
    /// One line per bad key, `engine.<key>: <why>`.
    pub problems: Vec<String>,
}
impl EngineSection {
    /// `engine.eviction`, when set and valid ([`EngineSection::resolve`]
    /// reports it otherwise).
    pub fn eviction(&self) -> Option<Eviction> {
        self.eviction.as_deref()?.parse().ok()
    }

    /// The engine config: core's defaults for `procs` and the policy, with
    /// every key that is set applied over them, key group by key group in
    /// the order the problems are reported.
    pub fn resolve(&self) -> Result<EngineConfig, EngineSectionError> {
        let mut problems = Vec::new();
        let policy = parse_name("engine.policy", &self.policy, DEFAULT_POLICY, &mut problems);
        let mut config = EngineConfig::new(self.procs, policy.unwrap_or(DEFAULT_POLICY));
        self.apply_admission(&mut config, &mut problems);
        self.apply_placement(&mut config, &mut problems);
        self.apply_thesis(&mut config, &mut problems);
        self.apply_maintenance(&mut config, &mut problems);
        self.apply_numbers(&mut config);
        self.apply_reservation_depth(&mut config, &mut problems);
        self.apply_eviction(&mut config, &mut problems);
        super::admission_rules::apply(
            self.candidates.as_ref(),
            self.regulate.as_ref(),
            &mut config,
            &mut problems,
        );
        if problems.is_empty() {
            Ok(config)
        } else {
            Err(EngineSectionError { problems })
        }
    }

    /// `engine.admission`, `scheduling`, `predictor` and `reject_above`
    /// (which only reject-predicted reads).
    fn apply_admission(&self, config: &mut EngineConfig, problems: &mut Vec<String>) {
        if let Some(admission) = parse_name("engine.admission", &self.admission, DEFAULT_ADMISSION, problems)
        {
            config.admission = admission;
        }
        if let Some(scheduling) =
            parse_name("engine.scheduling", &self.scheduling, config.scheduling, problems)
        {
            config.scheduling = scheduling;
        }
        if let Some(predictor) = parse_name("engine.predictor", &self.predictor, config.predictor, problems) {
            config.predictor = predictor;
        }
        if let Some(p) = self.reject_above {
            if !(0.0..=1.0).contains(&p) {
                problems.push(format!(
                    "engine.reject_above: {p} is not a probability: give a number from 0 to 1"
                ));
            } else if config.admission != interstice_core::Admission::RejectPredicted {
                problems.push(
                    "engine.reject_above: it applies under engine.admission: reject-predicted; set that, or remove it"
                        .to_string(),
                );
            } else {
                config.reject_above = Some(p);
            }
        }
    }

    /// `engine.placement` and `placement_weights` (topsis only).
    fn apply_placement(&self, config: &mut EngineConfig, problems: &mut Vec<String>) {
        if let Some(placement) = parse_name("engine.placement", &self.placement, config.placement, problems) {
            config.placement = placement;
        }
        if self.placement_weights.is_some() && config.placement != Placement::Topsis {
            problems.push(
                "engine.placement_weights: the placement is first-fit: set engine.placement: topsis, or remove them"
                    .to_string(),
            );
        }
        if let Some(weights) = &self.placement_weights {
            match weights.parse() {
                Ok(weights) => config.placement_weights = weights,
                Err(err) => problems.push(format!(
                    "engine.placement_weights: {err} (write e.g. {WEIGHTS_EXAMPLE})"
                )),
            }
        }
    }

    /// The thesis predictor's `engine.latency` (`r`), `beta` and `w_future`.
    fn apply_thesis(&self, config: &mut EngineConfig, problems: &mut Vec<String>) {
        if let Some(secs) = self.latency {
            match Time::instant_from_secs_f64(secs) {
                Some(latency) => config.thesis.latency = latency,
                None => problems.push(format!(
                    "engine.latency: {secs} must be a number of seconds from 0 to {:e} (the delay r before a \
                     predicted start; 0 by default)",
                    Time::MAX_INSTANT_SECS
                )),
            }
        }
        let beta = match &self.beta {
            None => Ok(config.thesis.beta),
            Some(BetaValue::Seconds(secs)) => beta_from_secs(*secs),
            Some(BetaValue::Word(word)) => parse_beta(word),
        };
        match beta {
            Ok(beta) => config.thesis.beta = beta,
            Err(err) => problems.push(format!("engine.beta: {err}")),
        }
        if let Some(w_future) = parse_name(
            "engine.w_future",
            &self.w_future,
            config.thesis.w_future,
            problems,
        ) {
            config.thesis.w_future = w_future;
        }
    }

    /// `engine.maintenance`: each window checked against `engine.procs`.
    fn apply_maintenance(&self, config: &mut EngineConfig, problems: &mut Vec<String>) {
        for (index, entry) in self.maintenance.iter().enumerate() {
            let procs = match &entry.procs {
                ProcsValue::Id(id) => id.to_string(),
                ProcsValue::List(list) => list.clone(),
            };
            match window(entry.start, entry.duration, &procs)
                .and_then(|window| check_window(&window, self.procs).map(|()| window))
            {
                Ok(window) => config.maintenance.push(window),
                Err(err) => problems.push(format!("engine.maintenance[{index}]: {err}")),
            }
        }
    }

    /// The keys that take any value serde accepts: `conv_procs`, `lambda`,
    /// `tau`, `max_resubmissions` (the product's default when unset) and
    /// `max_time_in_system_seconds`.
    fn apply_numbers(&self, config: &mut EngineConfig) {
        if let Some(conv_procs) = self.conv_procs {
            config.conv_procs = conv_procs;
        }
        if let Some(lambda) = self.lambda {
            config.lambda = lambda;
        }
        if let Some(tau) = self.tau {
            config.tau = tau;
        }
        // The product's default (the one table of defaults), not the bare engine's 0.
        config.lifecycle.max_resubmissions = interstice_swf::defaults::MAX_RESUBMISSIONS;
        if let Some(max_resubmissions) = self.max_resubmissions {
            config.lifecycle.max_resubmissions = max_resubmissions;
        }
        if let Some(max) = self.max_time_in_system_seconds {
            config.lifecycle.max_time_in_system = Some(Time::from_secs_f64(max));
        }
    }

    /// `engine.reservation_depth`, a count or a word, checked against the policy.
    fn apply_reservation_depth(&self, config: &mut EngineConfig, problems: &mut Vec<String>) {
        if let Some(depth) = &self.reservation_depth {
            let text = match depth {
                DepthValue::Count(count) => count.to_string(),
                DepthValue::Word(word) => word.clone(),
            };
            match text.parse() {
                Ok(depth) => {
                    config.reservation_depth = depth;
                    if let Some(conflict) = config.depth_conflict() {
                        problems.push(format!("engine.reservation_depth: {conflict}"));
                    }
                }
                Err(err) => problems.push(format!("engine.reservation_depth: {err}")),
            }
        }
    }

    /// `engine.eviction`: a ranked victim order (never owner-share, which
    /// only the Slurm backend knows), checked against the rest of the config.
    fn apply_eviction(&self, config: &mut EngineConfig, problems: &mut Vec<String>) {
        if let Some(name) = &self.eviction {
            match name.parse::<Eviction>() {
                Ok(Eviction::Osep) => problems.push(
                    "engine.eviction: osep is simulated by `interstice qos run` only: use priority or qos-driven"
                        .to_string(),
                ),
                Ok(Eviction::OwnerShare) => problems.push(
                    "engine.eviction: owner-share orders by the tenants' shares, which only the Slurm backend \
                     knows (backend.eviction, backend.tenants): use priority or qos-driven"
                        .to_string(),
                ),
                Ok(_) => {
                    config.victims = Victims::Ranked;
                    if let Some(conflict) = config.ranked_victims_conflict() {
                        problems.push(format!("engine.eviction: {conflict}"));
                    }
                }
                Err(err) => problems.push(format!("engine.eviction: {err}")),
            }
        }
    }
}

/// The engine rules a broker applies to the jobs it places: Algorithm 1's
/// admission with τ for its counter-offers, the thesis predictor's `r` and
/// `β` for `F^σ` over the members' tuples, and the resubmission bounds of
/// Algorithm 2. Read from the `engine:` section by [`EngineSection::resolve`],
/// so a broker and a member spell and default them alike.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct BrokerRules {
    /// `engine.admission`.
    pub admission: Admission,
    /// `engine.tau`.
    pub tau: f64,
    /// `engine.latency` (the `r` of every member's tuple) and `engine.beta`.
    pub thesis: ThesisPrediction,
    /// `engine.max_resubmissions`, `engine.max_time_in_system_seconds`.
    pub lifecycle: Lifecycle,
    /// `engine.placement_weights` when `engine.placement` is `topsis`:
    /// `F^J'` orders the members by TOPSIS.
    pub topsis: Option<Weights>,
}

impl BrokerRules {
    /// The rules of a resolved `engine:` section.
    pub fn of(engine: &EngineConfig) -> BrokerRules {
        BrokerRules {
            admission: engine.admission,
            tau: engine.tau,
            thesis: engine.thesis,
            lifecycle: engine.lifecycle,
            topsis: engine.topsis().copied(),
        }
    }
}

/// A name parsed by core's `FromStr` (`default` when unset); a bad name is a
/// problem naming `key`.
fn parse_name<T: std::str::FromStr<Err = interstice_core::UnknownName>>(
    key: &str,
    value: &Option<String>,
    default: T,
    problems: &mut Vec<String>,
) -> Option<T> {
    match value.as_deref().map(str::parse) {
        None => Some(default),
        Some(Ok(parsed)) => Some(parsed),
        Some(Err(err)) => {
            problems.push(format!("{key}: {err}"));
            None
        }
    }
}
