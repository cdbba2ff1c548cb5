//! The service-class file of `interstice qos run FILE` and `interstice
//! replay --qos FILE`: classes, tenants, the scheduler's settings, and (for
//! `qos run`) the platform's hosts and its requests. Unknown keys are
//! errors; every error names the file, the line where YAML knows it, and
//! the key. Every key is optional except what a `qos run` needs (`hosts`,
//! `requests`).
//!
//! ```yaml
//! eviction: qos-driven      # priority | qos-driven | owner-share | osep (--eviction overrides)
//! on_preempt: resume        # resume | restart | checkpoint (replay: restart; osep: checkpoint)
//! allocation_time: 1        # s: α, from allocation until the instance runs
//! watchdog: 10              # s: the scheduler also runs this long after its last run
//! window: 600               # s: the fairness windows (0: none)
//! until: 3600               # s: end of the run (qos run; needed if a request has no duration)
//! seed: 7                   # the class/tenant draw of injected jobs, the shuffle of requests
//! classes:                  # default: the seeds' gold 100 %, silver 90 %, bronze 50 %
//!   - { name: gold, importance: 3, slo: 1.0, margin: 10, weight: 1 }
//!   - { name: silver, importance: 2, slo: 0.9, overhead_limit: 0.1, credit: [[0.8911, 0.1], [0.8556, 0.3]] }
//! tenants:                  # default: one tenant owning every slot
//!   - { name: physics, share: 30, weight: 2 }   # osep: `power`, its machines' speeds summed
//! hosts: { count: 20, slots: 10 }   # or a list of slots per host (qos run); with memory,
//!                                   # labels, a speed (osep), overheads, events: see `qos/platform.rs`
//! osep: { period: 60, maxt: 4, block: 600, rule: heterogeneous, condition: before }   # osep only
//! shuffle: true             # shuffle the requests' order over their arrival times (qos run)
//! requests:                 # qos run
//!   - { class: gold, tenant: physics, count: 80, start: 0, every: 1, procs: 1, duration: null }
//! ```

mod platform;

use crate::label::{check_name, JobLabel, JobLabels};
use crate::rng::SplitMix64;
use interstice_core::qos::{
    CreditTable, Eviction, Needs, OnPreempt, QosConfig, Request, ServiceClass, Tenant, TieBreak,
};
use interstice_core::Time;
use serde::Deserialize;
use std::borrow::Borrow;
use std::path::Path;

/// A bad service-class file: the message names the file, line and key.
#[derive(Debug, thiserror::Error)]
#[error("{0}")]
pub struct QosFileError(pub String);

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct File {
    #[serde(default)]
    eviction: Option<String>,
    #[serde(default)]
    on_preempt: Option<String>,
    #[serde(default)]
    allocation_time: Option<serde_yaml::Value>,
    #[serde(default)]
    tie_break: Option<String>,
    #[serde(default)]
    events: Vec<platform::EventEntry>,
    #[serde(default)]
    watchdog: Option<f64>,
    #[serde(default)]
    window: Option<f64>,
    #[serde(default)]
    until: Option<f64>,
    #[serde(default)]
    seed: Option<u64>,
    #[serde(default)]
    classes: Vec<ClassEntry>,
    #[serde(default)]
    tenants: Vec<TenantEntry>,
    #[serde(default)]
    hosts: Option<serde_yaml::Value>,
    #[serde(default)]
    shuffle: bool,
    #[serde(default)]
    requests: Vec<RequestEntry>,
    /// `interstice qos study`'s sections (`crate::qos_study`); other commands ignore them.
    #[serde(default, rename = "study")]
    _study: Option<serde::de::IgnoredAny>,
    #[serde(default, rename = "sample")]
    _sample: Option<serde::de::IgnoredAny>,
    #[serde(default)]
    osep: Option<OsepEntry>,
}

/// `osep:`, the settings of seed 002's OSEP.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct OsepEntry {
    /// `t`, seconds between updates.
    #[serde(default)]
    period: Option<f64>,
    /// Preemptions per update at most.
    #[serde(default)]
    maxt: Option<u32>,
    /// The checkpoint block, seconds of work at speed 1.
    #[serde(default)]
    block: Option<f64>,
    /// heterogeneous | original.
    #[serde(default)]
    rule: Option<String>,
    /// before | after | literal.
    #[serde(default)]
    condition: Option<String>,
}

/// One `classes:` entry as written, in a service-class file or in the
/// daemon's config ([`service_classes`] checks it).
#[derive(Clone, Debug, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct ClassEntry {
    /// Unique, non-empty.
    pub name: String,
    /// Default: the order of the list, first most important.
    #[serde(default)]
    pub importance: Option<u32>,
    /// The availability SLO, in `(0, 1]`.
    pub slo: f64,
    /// Safety margin, seconds (default 10).
    #[serde(default)]
    pub margin: Option<f64>,
    /// Preemption-overhead limit in `[0, 1]` (default `1 − slo`).
    #[serde(default)]
    pub overhead_limit: Option<f64>,
    /// Penalty bands `[lowest availability, credit]`, downwards (default:
    /// the seed's, scaled to the SLO).
    #[serde(default)]
    pub credit: Option<Vec<(f64, f64)>>,
    /// Share of the injected jobs drawn into the class (a replay's file only).
    #[serde(default)]
    pub weight: Option<f64>,
}

/// The classes of `entries`, in order; an error is `(key, message)`, the key
/// relative to the list (`classes[1].slo`). The one reader of a class's
/// fields, for the service-class file and the daemon's config.
pub fn service_classes(entries: &[ClassEntry]) -> Result<Vec<ServiceClass>, (String, String)> {
    let n = entries.len() as u32;
    let mut classes: Vec<ServiceClass> = Vec::new();
    for (i, c) in entries.iter().enumerate() {
        let key = |k: &str| format!("classes[{i}].{k}");
        if !(c.slo > 0.0 && c.slo <= 1.0) {
            return Err((key("slo"), format!("{} is not an availability in (0, 1]", c.slo)));
        }
        if classes.iter().any(|o| o.name == c.name) {
            return Err((key("name"), format!("{:?} is used twice", c.name)));
        }
        check_name(&c.name).map_err(|expected| (key("name"), format!("{:?}: give {expected}", c.name)))?;
        let mut class = ServiceClass::new(&c.name, c.importance.unwrap_or(n - i as u32), c.slo);
        if let Some(m) = c.margin {
            class.margin = Time::instant_from_secs_f64(m)
                .ok_or_else(|| (key("margin"), format!("{m} is not a duration: give seconds >= 0")))?;
        }
        if let Some(l) = c.overhead_limit {
            if !(l.is_finite() && (0.0..=1.0).contains(&l)) {
                return Err((key("overhead_limit"), format!("{l} is not a ratio in [0, 1]")));
            }
            class.overhead_limit = l;
        }
        if let Some(bands) = &c.credit {
            if bands
                .iter()
                .any(|&(low, credit)| !(low.is_finite() && credit.is_finite() && credit >= 0.0))
                || bands.windows(2).any(|w| w[1].0 > w[0].0)
            {
                return Err((
                    key("credit"),
                    "give [lowest availability, credit] pairs, from the band just below the SLO downwards"
                        .into(),
                ));
            }
            class.credit = CreditTable { bands: bands.clone() };
        }
        classes.push(class);
    }
    Ok(classes)
}

/// One `tenants:` entry as written, in a service-class file or in the
/// daemon's Slurm backend ([`tenants`] checks it).
#[derive(Clone, Debug, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct TenantEntry {
    /// Unique, non-empty (in the daemon: a Slurm user name).
    pub name: String,
    /// Processors (slots) the tenant is entitled to.
    pub share: u32,
    /// Share of the injected jobs drawn into the tenant (a replay's file only).
    #[serde(default)]
    pub weight: Option<f64>,
    /// OSEP's portion in speed units, the sum of the speeds of the
    /// machines the tenant owns (a `qos run` file under osep only;
    /// default: its share of the slots times the mean speed).
    #[serde(default)]
    pub power: Option<f64>,
}

/// The tenants of `entries`, in order; an error is `(key, message)`, the
/// key relative to the list (`tenants[1].name`). The one reader of a
/// tenant's fields, for the service-class file and the daemon's config.
pub fn tenants(entries: &[TenantEntry]) -> Result<Vec<Tenant>, (String, String)> {
    let mut tenants: Vec<Tenant> = Vec::new();
    for (i, t) in entries.iter().enumerate() {
        if tenants.iter().any(|o| o.name == t.name) {
            return Err((
                format!("tenants[{i}].name"),
                format!("{:?} is used twice", t.name),
            ));
        }
        check_name(&t.name).map_err(|expected| {
            (
                format!("tenants[{i}].name"),
                format!("{:?}: give {expected}", t.name),
            )
        })?;
        if let Some(p) = t.power.filter(|p| !(p.is_finite() && *p > 0.0)) {
            return Err((
                format!("tenants[{i}].power"),
                format!("{p} is not a power: give the sum of the speeds of the machines it owns, > 0"),
            ));
        }
        tenants.push(Tenant {
            name: t.name.clone(),
            share: t.share,
        });
    }
    Ok(tenants)
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RequestEntry {
    #[serde(default)]
    class: Option<String>,
    #[serde(default)]
    tenant: Option<String>,
    #[serde(default)]
    count: Option<u32>,
    #[serde(default)]
    start: Option<f64>,
    #[serde(default)]
    every: Option<f64>,
    #[serde(default)]
    procs: Option<u32>,
    #[serde(default)]
    cpu: Option<f64>,
    #[serde(default)]
    memory: Option<f64>,
    #[serde(default)]
    constraints: std::collections::BTreeMap<String, String>,
    #[serde(default)]
    instances: Option<u32>,
    #[serde(default)]
    duration: Option<f64>,
}

/// A read service-class file.
#[derive(Clone, Debug)]
pub struct QosSpec {
    /// The platform and scheduler (hosts empty unless the file gave them).
    pub config: QosConfig,
    /// How injected cloud jobs are spread over the classes (one weight per class).
    pub class_weights: Vec<f64>,
    /// …and over the tenants.
    pub tenant_weights: Vec<f64>,
    /// The seed of that draw and of the shuffle.
    pub seed: u64,
    /// `on_preempt` as the file gave it (each command has its default).
    pub on_preempt: Option<OnPreempt>,
    /// The requests of a `qos run` (empty when the file has none).
    pub requests: Vec<Request>,
    /// What each of `requests` needs beyond its slots (same order).
    pub needs: Vec<Needs>,
    /// The file names its tenants (`tenants:`); otherwise one default
    /// tenant owns every slot, and owner-share has nobody to weigh.
    pub named_tenants: bool,
}

impl QosSpec {
    /// The most requests a file may expand to.
    pub const MAX_REQUESTS: u64 = 10_000_000;

    /// The seeds' defaults: their three classes drawn equally, one tenant
    /// owning `slots` slots, on no host.
    pub fn defaults(eviction: Eviction, slots: u32) -> QosSpec {
        let mut config = QosConfig::new(0, 0, eviction);
        config.tenants[0].share = slots;
        QosSpec {
            class_weights: vec![1.0; config.classes.len()],
            tenant_weights: vec![1.0],
            config,
            seed: crate::defaults::SEED,
            on_preempt: None,
            requests: Vec::new(),
            needs: Vec::new(),
            named_tenants: false,
        }
    }

    /// Evict by `eviction` (the file's, or `--eviction`'s): what a
    /// preemption does is the file's `on_preempt` if it gave one, else
    /// osep's block checkpointing under osep, else resume.
    pub fn set_eviction(&mut self, eviction: Eviction) {
        self.config.eviction = eviction;
        self.config.on_preempt = self.on_preempt.unwrap_or(if eviction == Eviction::Osep {
            OnPreempt::Checkpoint
        } else {
            OnPreempt::Resume
        });
    }

    /// Read and check `path`; `slots` is what the default tenant owns when
    /// the file names none (the platform's size).
    pub fn load(path: &Path, slots: u32) -> Result<QosSpec, QosFileError> {
        let text = crate::input_file::read_text(path, crate::input_file::MAX_TEXT_BYTES)
            .map_err(|e| QosFileError(format!("{}: cannot read: {e}", path.display())))?;
        Self::parse(&text, path, slots)
    }

    /// Parse the text of `path`.
    pub fn parse(text: &str, path: &Path, slots: u32) -> Result<QosSpec, QosFileError> {
        let place = path.display().to_string();
        let file: File = crate::error::from_yaml(text, &place).map_err(QosFileError)?;
        let errors = QosErrors { place, text };
        let err = |key: String, msg: String| errors.err(key, msg);
        let eviction = match &file.eviction {
            Some(e) => e.parse().map_err(|e| err("eviction".into(), format!("{e}")))?,
            None => Eviction::default(),
        };
        let mut spec = QosSpec::defaults(eviction, slots);
        if let Some(m) = &file.on_preempt {
            let mode: OnPreempt = m.parse().map_err(|e| err("on_preempt".into(), format!("{e}")))?;
            spec.config.on_preempt = mode;
            spec.on_preempt = Some(mode);
        }
        spec.set_eviction(eviction);
        let cfg = &mut spec.config;
        if let Some(a) = file.allocation_time {
            let (constant, overheads) = platform::parse_allocation(a, &errors)?;
            cfg.allocation_time = constant.unwrap_or(Time::ZERO);
            cfg.overheads = overheads;
        }
        cfg.tie_break = match file.tie_break.as_deref() {
            None | Some("host-index") => TieBreak::HostIndex,
            Some("random") => TieBreak::Random,
            Some(other) => {
                return Err(err(
                    "tie_break".into(),
                    format!("{other:?}: give host-index or random"),
                ))
            }
        };
        if let Some(w) = file.watchdog {
            cfg.watchdog = errors.seconds("watchdog".into(), w)?;
        }
        if let Some(w) = file.window {
            // 0: no fairness windows.
            cfg.window = Some(errors.seconds("window".into(), w)?).filter(|&w| w > Time::ZERO);
        }
        if let Some(u) = file.until {
            cfg.until = Some(errors.seconds("until".into(), u)?);
        }
        if let Some(seed) = file.seed {
            spec.seed = seed;
        }
        spec.config.seed = spec.seed;
        spec.set_classes_and_tenants(&file.classes, &file.tenants, &errors)?;
        if let Some(o) = &file.osep {
            spec.set_osep(o, &errors)?;
        }
        if let Some(hosts) = file.hosts {
            let hosts = platform::parse_hosts(hosts, &errors)?;
            spec.config.hosts = hosts.slots;
            spec.config.host_specs = hosts.specs;
            if hosts.speeds.iter().any(|&s| s != 1.0) {
                spec.config.speeds = hosts.speeds;
            }
            let total = spec
                .config
                .hosts
                .iter()
                .try_fold(0u32, |sum, &h| sum.checked_add(h));
            match total {
                None => {
                    return Err(err(
                        "hosts".into(),
                        format!("more than {} slots in all", u32::MAX),
                    ))
                }
                Some(total) if !spec.named_tenants => spec.config.tenants[0].share = total,
                Some(_) => {}
            }
        }
        spec.config.events = platform::parse_events(file.events, &errors)?;
        let mut requests = Vec::new();
        for (i, r) in file.requests.iter().enumerate() {
            push_requests(&mut requests, i, r, &spec.config, &errors)?;
        }
        if file.shuffle {
            shuffle_order(&mut requests, spec.seed);
        }
        (spec.requests, spec.needs) = requests.into_iter().unzip();
        Ok(spec)
    }

    /// `osep:`: the update period, the bound, the block, the rule.
    fn set_osep(&mut self, o: &OsepEntry, errors: &QosErrors) -> Result<(), QosFileError> {
        let osep = &mut self.config.osep;
        if let Some(p) = o.period {
            osep.period = errors.seconds("osep.period".into(), p)?;
            if osep.period <= Time::ZERO {
                return Err(errors.err(
                    "osep.period".into(),
                    "0: give the seconds between updates, > 0".into(),
                ));
            }
        }
        if let Some(m) = o.maxt {
            osep.maxt = m;
        }
        if let Some(b) = o.block {
            osep.block = errors.seconds("osep.block".into(), b)?;
            if osep.block <= Time::ZERO {
                return Err(errors.err(
                    "osep.block".into(),
                    "0: give the seconds of work a checkpoint keeps, > 0 (no checkpoint: on_preempt: restart)"
                        .into(),
                ));
            }
        }
        if let Some(c) = &o.condition {
            osep.condition = c
                .parse()
                .map_err(|e| errors.err("osep.condition".into(), format!("{e}")))?;
        }
        if let Some(r) = &o.rule {
            osep.rule = r
                .parse()
                .map_err(|e| errors.err("osep.rule".into(), format!("{e}")))?;
        }
        Ok(())
    }

    /// The file's classes and tenants (when it names any) with their
    /// weights in the draw; every weight 0 is an error.
    fn set_classes_and_tenants(
        &mut self,
        classes: &[ClassEntry],
        named: &[TenantEntry],
        errors: &QosErrors,
    ) -> Result<(), QosFileError> {
        let err = |key: String, msg: String| errors.err(key, msg);
        if !classes.is_empty() {
            self.config.classes = service_classes(classes).map_err(|(key, message)| err(key, message))?;
            self.class_weights.clear();
            for (i, c) in classes.iter().enumerate() {
                self.class_weights
                    .push(errors.weight(format!("classes[{i}].weight"), c.weight)?);
            }
        }
        if !named.is_empty() {
            self.named_tenants = true;
            self.tenant_weights.clear();
            self.config.tenants = tenants(named).map_err(|(key, message)| err(key, message))?;
            self.config.powers = named.iter().map(|t| t.power).collect();
            for (i, t) in named.iter().enumerate() {
                self.tenant_weights
                    .push(errors.weight(format!("tenants[{i}].weight"), t.weight)?);
            }
        }
        for (what, weights) in [
            ("classes", &self.class_weights),
            ("tenants", &self.tenant_weights),
        ] {
            if weights.iter().sum::<f64>() <= 0.0 {
                return Err(err(
                    what.into(),
                    "every weight is 0: give one a weight > 0".into(),
                ));
            }
        }
        Ok(())
    }

    /// Every label of `workload`'s cloud jobs names a class and tenant this
    /// spec (read from `file`; `None`: the defaults) defines; else the
    /// first that does not, as bad input naming the workload, the job and
    /// the fix.
    pub fn check_labels(
        &self,
        labels: &JobLabels,
        workload: &Path,
        file: Option<&Path>,
    ) -> Result<(), QosFileError> {
        for (&id, label) in labels {
            for (what, name) in [("class", &label.class), ("tenant", &label.tenant)] {
                let Some(name) = name else { continue };
                index_of(&self.config, what, name).map_err(|e| {
                    let fix = match file {
                        Some(file) => format!("add it to {}", file.display()),
                        None => "give a --qos file that defines it".to_string(),
                    };
                    QosFileError(format!(
                        "{}: cloud job {}: {e}: {fix}, or fix the workload's label",
                        workload.display(),
                        id.0
                    ))
                })?;
            }
        }
        Ok(())
    }

    /// The classes and tenants of a run's cloud jobs, drawn in arrival order.
    pub fn draw(&self) -> ClassDraw<&QosSpec> {
        ClassDraw::new(self)
    }
}

/// Errors of one class file: each names the file and the key.
struct QosErrors<'t> {
    place: String,
    /// The file's text, to find the line of a value serde no longer knows.
    text: &'t str,
}

impl QosErrors<'_> {
    /// `FILE:LINE: KEY: MESSAGE`, the line the first one where `field:`
    /// is followed by `value` (plain `FILE: KEY: MESSAGE` when none is).
    fn err_at(&self, key: String, field: &str, value: f64, message: String) -> QosFileError {
        let pattern = format!("{field}:");
        let line = self.text.lines().position(|l| {
            l.match_indices(&pattern).any(|(at, _)| {
                let rest = l[at + pattern.len()..].trim_start();
                let token: String = rest
                    .chars()
                    .take_while(|c| !matches!(c, ',' | '}' | ']' | ' ' | '#'))
                    .collect();
                token.parse::<f64>().is_ok_and(|v| v == value)
            })
        });
        match line {
            Some(n) => QosFileError(format!("{}:{}: {key}: {message}", self.place, n + 1)),
            None => self.err(key, message),
        }
    }

    /// `FILE: KEY: MESSAGE`.
    fn err(&self, key: String, message: String) -> QosFileError {
        QosFileError(format!("{}: {key}: {message}", self.place))
    }

    /// An instant or duration in seconds ≥ 0 at `key`.
    fn seconds(&self, key: String, v: f64) -> Result<Time, QosFileError> {
        Time::instant_from_secs_f64(v)
            .ok_or_else(|| self.err(key, format!("{v} is not a duration: give seconds >= 0")))
    }

    /// A weight in a draw at `key` (1 when not given).
    fn weight(&self, key: String, w: Option<f64>) -> Result<f64, QosFileError> {
        match w {
            None => Ok(1.0),
            Some(w) if w.is_finite() && w >= 0.0 => Ok(w),
            Some(w) => Err(self.err(key, format!("{w} is not a weight: give a number >= 0"))),
        }
    }
}

/// The requests of entry `i` (`count` of them, `every` seconds apart),
/// appended to `requests` with the next ids.
fn push_requests(
    requests: &mut Vec<(Request, Needs)>,
    i: usize,
    r: &RequestEntry,
    cfg: &QosConfig,
    errors: &QosErrors,
) -> Result<(), QosFileError> {
    let key = |k: &str| format!("requests[{i}].{k}");
    let err = |key: String, msg: String| errors.err(key, msg);
    let find = |given: &Option<String>, k: &'static str| -> Result<usize, QosFileError> {
        match given {
            None => Ok(0),
            Some(name) => index_of(cfg, k, name).map_err(|e| err(key(k), e.to_string())),
        }
    };
    let class = find(&r.class, "class")?;
    let tenant = find(&r.tenant, "tenant")?;
    let start = errors.seconds(key("start"), r.start.unwrap_or(0.0))?;
    let every = errors.seconds(key("every"), r.every.unwrap_or(0.0))?;
    let duration = match r.duration {
        None => None,
        Some(d) if d > 0.0 => Some(errors.seconds(key("duration"), d)?),
        Some(d) => {
            return Err(err(
                key("duration"),
                format!("{d}: give seconds > 0, or null for a service"),
            ))
        }
    };
    let procs = match (r.procs, r.cpu) {
        (Some(_), Some(_)) => return Err(err(key("cpu"), "give cpu or procs (the same), not both".into())),
        (None, Some(c)) => platform::whole(errors, key("cpu"), c, 1)?,
        (procs, None) => procs.unwrap_or(1),
    };
    let needs = Needs {
        memory: r
            .memory
            .map(|m| platform::whole(errors, key("memory"), m, 0))
            .transpose()?
            .unwrap_or(0),
        constraints: platform::constraints(&r.constraints),
        instances: match r.instances {
            Some(0) => return Err(err(key("instances"), "0: give 1 or more".into())),
            n => n.unwrap_or(1),
        },
    };
    if !cfg.hosts.is_empty() {
        cfg.validate_needs(requests.len() as u64, &needs)
            .map_err(|e| err(key("memory"), format!("{e}: give less, or a host with more")))?;
    }
    let widest = cfg.hosts.iter().copied().max().unwrap_or(u32::MAX);
    if procs == 0 || procs > widest {
        return Err(err(
            key("procs"),
            format!("{procs}: a request needs 1 to {widest} slots (one host's)"),
        ));
    }
    let count = r.count.unwrap_or(1);
    if requests.len() as u64 + u64::from(count) > QosSpec::MAX_REQUESTS {
        return Err(err(
            key("count"),
            format!("more than {} requests in all", QosSpec::MAX_REQUESTS),
        ));
    }
    // The last arrival must be an instant the engine can name.
    let last = r.start.unwrap_or(0.0) + r.every.unwrap_or(0.0) * f64::from(count.saturating_sub(1));
    if Time::instant_from_secs_f64(last).is_none() {
        return Err(err(
            key("every"),
            format!(
                "the last request would arrive at {last} s, beyond {} s",
                Time::MAX_INSTANT_SECS
            ),
        ));
    }
    for n in 0..count {
        let request = Request {
            id: requests.len() as u64,
            submit: start + Time::from_ticks(every.ticks().saturating_mul(i64::from(n))),
            procs,
            duration,
            class,
            tenant,
        };
        requests.push((request, needs.clone()));
    }
    Ok(())
}

/// A class or tenant name the class file does not define.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{what} {name:?} is not defined (defined: {defined})")]
pub struct UnknownName {
    /// `class` or `tenant`.
    pub what: &'static str,
    /// The name given.
    pub name: String,
    /// The names defined, comma-separated.
    pub defined: String,
}

/// Where class or tenant `name` (`what`: `"class"` or `"tenant"`) sits in
/// `cfg`'s lists; the error lists the names defined.
pub(crate) fn index_of(cfg: &QosConfig, what: &'static str, name: &str) -> Result<usize, UnknownName> {
    let names: Vec<&str> = match what {
        "class" => cfg.classes.iter().map(|c| c.name.as_str()).collect(),
        _ => cfg.tenants.iter().map(|t| t.name.as_str()).collect(),
    };
    names.iter().position(|n| *n == name).ok_or_else(|| UnknownName {
        what,
        name: name.to_string(),
        defined: names.join(", "),
    })
}

/// The class and tenant of each cloud job of a run, in arrival order: one
/// draw by the file's weights per job from `SplitMix64(seed)` (class, then
/// tenant), and what the job's workload label names in place of the draw.
/// Every job takes its draw, labelled or not, so labelling one job changes
/// no other job's class. The one rule of `replay --eviction/--qos` and
/// `swf inject --qos`, so that injecting with `swf inject --qos FILE` and
/// replaying the result gives the classes a replay injecting the same jobs
/// draws itself.
///
/// `S` is the spec, borrowed ([`QosSpec::draw`]) or owned by a run that
/// draws as its jobs arrive (the Batsim adapter).
pub struct ClassDraw<S> {
    spec: S,
    rng: SplitMix64,
}

impl<S: Borrow<QosSpec>> ClassDraw<S> {
    /// The draw of `spec`'s jobs, from its seed.
    pub fn new(spec: S) -> ClassDraw<S> {
        let rng = SplitMix64::new(spec.borrow().seed);
        ClassDraw { spec, rng }
    }

    /// The spec it draws from.
    pub fn spec(&self) -> &QosSpec {
        self.spec.borrow()
    }

    /// The next job's class and tenant (indices into the spec's
    /// `config.classes` and `config.tenants`); an error when its label names
    /// one the file does not define.
    pub fn next(&mut self, label: Option<&JobLabel>) -> Result<(usize, usize), UnknownName> {
        let spec: &QosSpec = self.spec.borrow();
        let drawn = (
            pick(&spec.class_weights, &mut self.rng),
            pick(&spec.tenant_weights, &mut self.rng),
        );
        let Some(label) = label else {
            return Ok(drawn);
        };
        let cfg = &spec.config;
        let class = match &label.class {
            Some(name) => index_of(cfg, "class", name)?,
            None => drawn.0,
        };
        let tenant = match &label.tenant {
            Some(name) => index_of(cfg, "tenant", name)?,
            None => drawn.1,
        };
        Ok((class, tenant))
    }

    /// [`ClassDraw::next`] by name, as a workload labels a job; a label
    /// naming what the file lacks ([`QosSpec::check_labels`]) is kept as
    /// given.
    pub fn next_label(&mut self, label: Option<&JobLabel>) -> JobLabel {
        match self.next(label) {
            Ok((class, tenant)) => {
                let cfg = &self.spec().config;
                JobLabel {
                    class: Some(cfg.classes[class].name.clone()),
                    tenant: Some(cfg.tenants[tenant].name.clone()),
                }
            }
            Err(_) => label.cloned().unwrap_or_default(),
        }
    }
}

fn pick(weights: &[f64], rng: &mut SplitMix64) -> usize {
    let total: f64 = weights.iter().sum();
    let mut x = rng.next_f64() * total;
    for (i, &w) in weights.iter().enumerate() {
        if x < w {
            return i;
        }
        x -= w;
    }
    weights.iter().rposition(|&w| w > 0.0).unwrap_or(0)
}

/// Keep the arrival times, shuffle which request arrives at each (the
/// seeds' validation workloads are "in a random order").
fn shuffle_order(requests: &mut [(Request, Needs)], seed: u64) {
    let mut times: Vec<Time> = requests.iter().map(|(r, _)| r.submit).collect();
    times.sort();
    let mut rng = SplitMix64::new(seed);
    for i in (1..requests.len()).rev() {
        let j = rng.below(i as u64 + 1) as usize;
        requests.swap(i, j);
    }
    for (i, ((r, _), t)) in requests.iter_mut().zip(times).enumerate() {
        r.submit = t;
        r.id = i as u64;
    }
}

/// Parse an eviction policy's name, for flags.
pub fn parse_eviction(s: &str) -> Result<Eviction, String> {
    s.parse().map_err(|e| format!("{e}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(text: &str) -> Result<QosSpec, QosFileError> {
        QosSpec::parse(text, Path::new("q.yaml"), 100)
    }

    #[test]
    fn defaults_are_the_seeds_classes_and_one_owner() {
        let s = parse("{}").unwrap();
        assert_eq!(s.config.classes.len(), 3);
        assert_eq!(s.config.eviction, Eviction::QosDriven);
        assert_eq!(s.config.tenants[0].share, 100);
        let s = parse("hosts: { count: 20, slots: 10 }").unwrap();
        assert_eq!(s.config.hosts, vec![10; 20]);
        assert_eq!(s.config.tenants[0].share, 200);
    }

    #[test]
    fn requests_expand_and_shuffle_over_their_times() {
        let text = "shuffle: true\nseed: 3\nrequests:\n  - { class: gold, count: 3, every: 1 }\n  - { class: bronze, count: 3, start: 3, every: 1 }\n";
        let s = parse(text).unwrap();
        let times: Vec<i64> = s.requests.iter().map(|r| r.submit.ticks() / 1_000_000).collect();
        assert_eq!(times, vec![0, 1, 2, 3, 4, 5]);
        let classes: Vec<usize> = s.requests.iter().map(|r| r.class).collect();
        assert_ne!(classes, vec![0, 0, 0, 2, 2, 2], "shuffled");
        assert_eq!(classes.iter().filter(|&&c| c == 0).count(), 3);
    }

    #[test]
    fn errors_name_the_file_line_and_key() {
        let e = parse("classes:\n  - { name: a, slo: 1.5 }\n")
            .unwrap_err()
            .to_string();
        assert!(e.contains("q.yaml: classes[0].slo"), "{e}");
        let e = parse("requests:\n  - { class: platinum }\n")
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("requests[0].class") && e.contains("gold, silver, bronze"),
            "{e}"
        );
        let e = parse("evictoin: priority\n").unwrap_err().to_string();
        assert!(e.contains("q.yaml:1:") && e.contains("evictoin"), "{e}");
        let e = parse("eviction: random\n").unwrap_err().to_string();
        assert!(e.contains("qos-driven"), "{e}");
    }

    #[test]
    fn hosts_and_requests_are_checked_where_they_are_written() {
        let e = parse("hosts: { count: 2, slots: 4, spare: 9 }\n")
            .unwrap_err()
            .to_string();
        assert!(e.contains("q.yaml: hosts") && e.contains("spare"), "{e}");
        let e = parse("hosts: { count: 1000, slots: 4294967295 }\n")
            .unwrap_err()
            .to_string();
        assert!(e.contains("slots in all"), "{e}");
        let e = parse("hosts: [2]\nrequests:\n  - { count: 20, every: 1e12 }\n")
            .unwrap_err()
            .to_string();
        assert!(e.contains("requests[0].every"), "{e}");
        let e = parse("hosts: [2]\nrequests:\n  - { count: 4000000000 }\n")
            .unwrap_err()
            .to_string();
        assert!(e.contains("requests[0].count"), "{e}");
        let e = parse("hosts: [4]\nrequests:\n  - { procs: 2 }\n  - { procs: 8 }\n")
            .unwrap_err()
            .to_string();
        assert!(e.contains("requests[1].procs") && e.contains("1 to 4"), "{e}");
        let e = parse("hosts: [4294967295, 2]\n").unwrap_err().to_string();
        assert!(e.contains("hosts") && e.contains("slots in all"), "{e}");
        let e = parse("classes:\n  - { name: a, slo: 1, margin: 1e300 }\n")
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("classes[0].margin: ") && e.contains(" is not a duration"),
            "{e}"
        );
        let e = parse("classes:\n  - { name: a, slo: 1, margin: -5 }\n")
            .unwrap_err()
            .to_string();
        assert!(e.contains("classes[0].margin"), "{e}");
    }

    #[test]
    fn class_and_tenant_names_are_names_a_workload_can_carry() {
        let e = parse("classes:\n  - { name: \"go\\tld\", slo: 1 }\n")
            .unwrap_err()
            .to_string();
        assert!(e.contains("classes[0].name") && e.contains("1-64"), "{e}");
        let e = parse(&format!(
            "tenants:\n  - {{ name: {}, share: 1 }}\n",
            "t".repeat(65)
        ))
        .unwrap_err()
        .to_string();
        assert!(e.contains("tenants[0].name"), "{e}");
    }

    #[test]
    fn the_draw_follows_the_weights() {
        let s = parse("classes:\n  - { name: a, slo: 1, weight: 3 }\n  - { name: b, slo: 0.5, weight: 1 }\n")
            .unwrap();
        let mut draw = s.draw();
        let a = (0..4000).filter(|_| draw.next(None).unwrap().0 == 0).count();
        assert!((2800..3200).contains(&a), "{a}");
    }

    #[test]
    fn a_label_takes_the_place_of_its_draw_and_of_nothing_else() {
        let s = parse(
            "classes:\n  - { name: a, slo: 1 }\n  - { name: b, slo: 0.5 }\n\
             tenants:\n  - { name: x, share: 1 }\n  - { name: y, share: 1 }\n",
        )
        .unwrap();
        let plain: Vec<(usize, usize)> = {
            let mut draw = s.draw();
            (0..50).map(|_| draw.next(None).unwrap()).collect()
        };
        let class_b = JobLabel {
            class: Some("b".into()),
            tenant: None,
        };
        let mut draw = s.draw();
        for (n, &(class, tenant)) in plain.iter().enumerate() {
            let label = (n % 3 == 0).then_some(&class_b);
            let got = draw.next(label).unwrap();
            let want = if label.is_some() {
                (1, tenant)
            } else {
                (class, tenant)
            };
            assert_eq!(got, want, "job {n}");
        }
        let platinum = JobLabel {
            class: Some("platinum".into()),
            tenant: None,
        };
        let e = s.draw().next(Some(&platinum)).unwrap_err().to_string();
        assert_eq!(e, "class \"platinum\" is not defined (defined: a, b)");
        let nobody = JobLabel {
            class: None,
            tenant: Some("z".into()),
        };
        let e = s.draw().next(Some(&nobody)).unwrap_err().to_string();
        assert_eq!(e, "tenant \"z\" is not defined (defined: x, y)");
        let label = s.draw().next_label(None);
        assert!(label.class.is_some() && label.tenant.is_some());
        assert_eq!(s.draw().next_label(Some(&platinum)), platinum);
        let labels = JobLabels::from([
            (interstice_core::JobId(3), class_b.clone()),
            (interstice_core::JobId(9), nobody.clone()),
        ]);
        let e = s
            .check_labels(&labels, Path::new("w.json"), None)
            .unwrap_err()
            .to_string();
        assert_eq!(
            e,
            "w.json: cloud job 9: tenant \"z\" is not defined (defined: x, y): give a --qos file that defines it, \
             or fix the workload's label"
        );
        let e = s
            .check_labels(&labels, Path::new("w.json"), Some(Path::new("c.yaml")))
            .unwrap_err()
            .to_string();
        assert!(
            e.ends_with("add it to c.yaml, or fix the workload's label"),
            "{e}"
        );
    }

    #[test]
    fn hosts_carry_speeds_and_osep_its_settings() {
        let s = parse(
            "eviction: osep\nosep: { period: 30, maxt: 2, block: 300, rule: original, condition: after }\n\
             tenants:\n  - { name: a, share: 1, power: 2.5 }\n  - { name: b, share: 2 }\n\
             hosts: [{ slots: 1, speed: 2.0 }, 3, { slots: 2 }]\n",
        )
        .unwrap();
        let cfg = &s.config;
        assert_eq!(cfg.hosts, vec![1, 3, 2]);
        assert_eq!(cfg.speeds, vec![2.0, 1.0, 1.0]);
        assert_eq!(cfg.on_preempt, OnPreempt::Checkpoint, "osep's default");
        assert_eq!(cfg.osep.period, Time::from_secs(30));
        assert_eq!((cfg.osep.maxt, cfg.osep.block), (2, Time::from_secs(300)));
        assert_eq!(cfg.osep.rule, interstice_core::qos::OsepRule::Original);
        assert_eq!(cfg.powers, vec![Some(2.5), None]);
        // b's portion: 2 of 3 shared slots of a power of 2 + 3 + 2 = 7.
        assert!((cfg.portion(1) - 7.0 * 2.0 / 3.0).abs() < 1e-12);
        let uniform = parse("hosts: { count: 4, slots: 1, speed: 1.5 }\n").unwrap();
        assert_eq!(uniform.config.speeds, vec![1.5; 4]);
        let plain = parse("hosts: { count: 4, slots: 1 }\n").unwrap();
        assert!(
            plain.config.speeds.is_empty(),
            "speed 1 everywhere keeps the old form"
        );
        let e = parse("hosts: { count: 2, slots: 1, speed: 0 }\n")
            .unwrap_err()
            .to_string();
        assert!(e.contains(":1: hosts.speed: 0 is not a speed"), "{e}");
        let e = parse("osep: { period: 30, bound: 2 }\n").unwrap_err().to_string();
        assert!(e.contains("bound"), "{e}");
        let e = parse("tenants:\n  - { name: a, share: 1, power: -2 }\n")
            .unwrap_err()
            .to_string();
        assert!(e.contains("tenants[0].power"), "{e}");
    }
}
