//! The data-center experiment file of `interstice replay --datacenter
//! dc.yaml`: its schedulers (HPC clusters, each with its own trace; cloud
//! platforms), its cloud-job streams and the data center's own knobs.
//! Unknown keys are errors; every error names the file, the line where
//! YAML knows it, and the key.
//!
//! Relative paths are read from the YAML file's directory.
//!
//! ```yaml
//! refresh: 60                 # s between two publications of a tuple
//! admission: admit-all        # or reject-predicted
//! routing: best               # F^J', or the name of one scheduler
//! max_resubmissions: 3        # Algorithm 2's bounds
//! max_time_in_system: null    # s, or null
//! tau: 1
//! beta: 0                     # s, or disqualify
//! placement: first-fit        # or topsis: F^J' and every scheduler's area
//! placement_weights: margin=0.5222,completion=0.1998,slack=0.1998,fragmentation=0.0781  # topsis only
//! schedulers:
//!   - name: kth
//!     role: hpc
//!     trace: ../../shared/data/KTH-SP2-1996-2.1-cln.swf.gz
//!     policy: conservative
//!     conv: 60                # the convergence area (default: the machine)
//!     until: 2592000          # only the trace's first 30 days
//!   - name: cloud
//!     role: cloud
//!     procs: 32
//!     overbooking: 1.5
//!     latency: 2              # F^r (core::datacenter::latency): the link, s…
//!     bandwidth: 125e6        # …bytes/s of the flows to it (default: unlimited)…
//!     monitoring: 30          # …and its monitoring delay, s (default 0)
//!     load: { interval: 600, procs: "4,8", walltime: 3600, runtime: "uniform:600:3600" }
//! streams:
//!   - { interval: 10, procs: "1,2,4", walltime: 180, runtime: "uniform:18:90", slack: 2, bytes: 0 }
//! ```
//!
//! Service classes (docs/qos.md): `classes:` and `tenants:` as in a
//! service-class file (default: the seeds' gold, silver, bronze and one
//! tenant), each stream's `class:` (required once classes are in use) and
//! `tenant:` (default: the first), and a scheduler's `eviction:`
//! (`priority`, `qos-driven`, `owner-share`; fcfs or easy) to give way by
//! that policy when its own work needs processors.

use crate::beta::parse_beta;
use crate::experiment::{ClipTarget, CloudSpec, TraceSpec};
use crate::inject::{ProcsChoice, RuntimeSpec};
use crate::qos::{index_of, service_classes, tenants, ClassEntry, TenantEntry};
use interstice_core::datacenter::{Latency, Role, Routing, Service};
use interstice_core::placement::{Placement, Weights, WEIGHTS_EXAMPLE};
use interstice_core::qos::{Eviction, QosConfig};
use interstice_core::{Admission, Beta, Policy, ReservationDepth, Scheduling, Time};
use serde::Deserialize;
use std::num::NonZeroU32;
use std::path::{Path, PathBuf};

/// A bad data-center file: the message names the file, line and key.
#[derive(Debug, thiserror::Error)]
#[error("{0}")]
pub struct DatacenterFileError(String);

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct File {
    #[serde(default)]
    refresh: Option<f64>,
    #[serde(default)]
    admission: Option<String>,
    #[serde(default)]
    routing: Option<String>,
    #[serde(default)]
    max_resubmissions: Option<u32>,
    #[serde(default)]
    max_time_in_system: Option<f64>,
    #[serde(default)]
    tau: Option<f64>,
    #[serde(default)]
    beta: Option<serde_yaml::Value>,
    #[serde(default)]
    placement: Option<String>,
    #[serde(default)]
    placement_weights: Option<String>,
    schedulers: Vec<SchedulerEntry>,
    #[serde(default)]
    streams: Vec<StreamEntry>,
    #[serde(default)]
    classes: Vec<ClassEntry>,
    #[serde(default)]
    tenants: Vec<TenantEntry>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct SchedulerEntry {
    name: String,
    role: String,
    #[serde(default)]
    trace: Option<PathBuf>,
    #[serde(default)]
    procs: Option<u32>,
    #[serde(default)]
    conv: Option<u32>,
    #[serde(default)]
    policy: Option<String>,
    #[serde(default)]
    scheduling: Option<String>,
    #[serde(default)]
    reservation_depth: Option<serde_yaml::Value>,
    #[serde(default)]
    until: Option<f64>,
    #[serde(default)]
    clip: bool,
    #[serde(default)]
    overbooking: Option<f64>,
    #[serde(default)]
    latency: Option<f64>,
    #[serde(default)]
    bandwidth: Option<f64>,
    #[serde(default)]
    monitoring: Option<f64>,
    #[serde(default)]
    features: Vec<String>,
    #[serde(default)]
    load: Option<StreamEntry>,
    #[serde(default)]
    eviction: Option<String>,
}

#[derive(Deserialize, Clone)]
#[serde(deny_unknown_fields)]
struct StreamEntry {
    interval: f64,
    #[serde(default)]
    procs: Option<serde_yaml::Value>,
    #[serde(default)]
    walltime: Option<f64>,
    #[serde(default)]
    runtime: Option<serde_yaml::Value>,
    #[serde(default)]
    slack: Option<f64>,
    #[serde(default)]
    alpha: Option<f64>,
    #[serde(default)]
    seed: Option<u64>,
    #[serde(default)]
    from: Option<f64>,
    #[serde(default)]
    until: Option<f64>,
    #[serde(default)]
    features: Vec<String>,
    #[serde(default)]
    class: Option<String>,
    #[serde(default)]
    tenant: Option<String>,
    #[serde(default)]
    bytes: Option<u64>,
}

/// A stream of injected jobs over `[from, until]` (default: the span of the
/// HPC traces).
#[derive(Clone, Debug)]
pub struct StreamSpec {
    /// The jobs' shape and rate.
    pub cloud: CloudSpec,
    /// First arrival, seconds.
    pub from: Option<f64>,
    /// Last arrival, seconds.
    pub until: Option<f64>,
    /// Features every job requires.
    pub features: Vec<String>,
    /// The class and tenant of every job (indices into
    /// [`DatacenterSpec::classes`]; the first of each without classes).
    pub service: Service,
    /// Every job's size in bytes, moved to its destination by `F^r`
    /// (default 0: nothing to move, `F^r` is the link and the monitoring).
    pub bytes: u64,
}

/// Where a scheduler's direct work comes from.
#[derive(Clone, Debug)]
pub enum DirectWork {
    /// None.
    Nothing,
    /// A trace (SWF or Batsim JSON), cut and clipped.
    Trace(TraceSpec),
    /// A generated stream (a cloud platform's own high-priority work).
    Stream(StreamSpec),
}

/// One scheduler of the file.
#[derive(Clone, Debug)]
pub struct SchedulerSpec {
    /// Its name.
    pub name: String,
    /// HPC or cloud platform.
    pub role: Role,
    /// Processors (an HPC cluster: default its trace's machine; a cloud platform: required).
    pub procs: Option<u32>,
    /// Convergence area (HPC; default the machine).
    pub conv: Option<u32>,
    /// Policy (HPC: required; cloud: fcfs by default).
    pub policy: Policy,
    /// Scheduling mode (HPC).
    pub scheduling: Scheduling,
    /// How many queued jobs hold a reservation (HPC).
    pub reservation_depth: ReservationDepth,
    /// λ (cloud; 1 = none).
    pub overbooking: f64,
    /// `F^r`'s inputs: `latency` (the link, seconds), `bandwidth` (bytes
    /// per second, unlimited when left out) and `monitoring` (seconds).
    pub latency: Latency,
    /// Features it offers.
    pub features: Vec<String>,
    /// Its direct work.
    pub work: DirectWork,
    /// Its eviction policy, if it gives way by one.
    pub eviction: Option<Eviction>,
}

/// The whole file.
#[derive(Clone, Debug)]
pub struct DatacenterSpec {
    /// The file, as given.
    pub path: PathBuf,
    /// Seconds between two publications.
    pub refresh: Time,
    /// Algorithm 1's admission.
    pub admission: Admission,
    /// `F^J'` or one scheduler (by index into `schedulers`).
    pub routing: Routing,
    /// Algorithm 2's resubmissions.
    pub max_resubmissions: u32,
    /// Algorithm 2's time bound.
    pub max_time_in_system: Option<Time>,
    /// τ.
    pub tau: f64,
    /// β.
    pub beta: Beta,
    /// How `F^J'` orders destinations and every scheduler chooses its
    /// cloud jobs' processors.
    pub placement: Placement,
    /// TOPSIS's weights, if the file gives them (only with `placement: topsis`,
    /// which `--placement` may set: the command checks once both are known).
    pub placement_weights: Option<Weights>,
    /// The schedulers.
    pub schedulers: Vec<SchedulerSpec>,
    /// The cloud-job streams arriving at the data center.
    pub streams: Vec<StreamSpec>,
    /// The service classes and tenants, when the file uses them.
    pub classes: Option<QosConfig>,
}

impl DatacenterSpec {
    /// Read and check `path`.
    pub fn load(path: &Path) -> Result<DatacenterSpec, DatacenterFileError> {
        let text = crate::input_file::read_text(path, crate::input_file::MAX_TEXT_BYTES)
            .map_err(|e| DatacenterFileError(format!("{}: cannot read: {e}", path.display())))?;
        Self::parse(&text, path)
    }

    /// Parse the text of `path` (paths inside are read from its directory).
    pub fn parse(text: &str, path: &Path) -> Result<DatacenterSpec, DatacenterFileError> {
        let place = path.display().to_string();
        let file: File = crate::error::from_yaml(text, &place).map_err(DatacenterFileError)?;
        let errors = FileErrors { place };
        let err = |key: String, msg: String| errors.err(key, msg);
        let base = path.parent().unwrap_or(Path::new("."));
        if file.schedulers.is_empty() {
            return Err(err(
                "schedulers".into(),
                "is empty: give at least one scheduler".into(),
            ));
        }
        let mut schedulers = Vec::new();
        for (i, entry) in file.schedulers.into_iter().enumerate() {
            let scheduler = scheduler_spec(i, entry, &schedulers, base, &errors)?;
            schedulers.push(scheduler);
        }
        let classes = class_config(&file.classes, &file.tenants, &file.streams, &schedulers, &errors)?;
        let routing = match file.routing.as_deref() {
            None | Some("best") => Routing::Best,
            Some(name) => {
                Routing::Fixed(schedulers.iter().position(|s| s.name == name).ok_or_else(|| {
                    err(
                        "routing".into(),
                        format!("{name:?} is neither best nor the name of a scheduler"),
                    )
                })?)
            }
        };
        let beta = match &file.beta {
            None => interstice_core::ThesisPrediction::default().beta,
            Some(v) => parse_beta(&yaml_text(v)).map_err(|e| err("beta".into(), e.to_string()))?,
        };
        let streams = file
            .streams
            .into_iter()
            .enumerate()
            .map(|(i, s)| stream(s, &format!("streams[{i}]"), classes.as_ref(), &err))
            .collect::<Result<Vec<_>, _>>()?;
        let placement = match &file.placement {
            Some(name) => name
                .parse()
                .map_err(|e| err("placement".into(), format!("{e}")))?,
            None => Placement::default(),
        };
        let placement_weights = match &file.placement_weights {
            Some(text) => Some(text.parse().map_err(|e| {
                err(
                    "placement_weights".into(),
                    format!("{e} (write e.g. {WEIGHTS_EXAMPLE})"),
                )
            })?),
            None => None,
        };
        // τ's range is the data center's to judge (core::datacenter).
        let tau = file.tau.unwrap_or_else(crate::defaults::tau);
        Ok(DatacenterSpec {
            path: path.to_path_buf(),
            refresh: errors.seconds("refresh", file.refresh.unwrap_or(0.0))?,
            admission: match &file.admission {
                Some(a) => a.parse().map_err(|e| err("admission".into(), format!("{e}")))?,
                None => crate::defaults::admission(),
            },
            routing,
            max_resubmissions: file
                .max_resubmissions
                .unwrap_or(crate::defaults::MAX_RESUBMISSIONS),
            max_time_in_system: file
                .max_time_in_system
                .map(|s| errors.seconds("max_time_in_system", s))
                .transpose()?,
            tau,
            beta,
            placement,
            placement_weights,
            schedulers,
            streams,
            classes,
        })
    }
}

/// Errors of one data-center file: each names the file and the key.
struct FileErrors {
    place: String,
}

impl FileErrors {
    /// `FILE: KEY: MESSAGE`.
    fn err(&self, key: String, message: String) -> DatacenterFileError {
        DatacenterFileError(format!("{}: {key}: {message}", self.place))
    }

    /// Seconds ≥ 0 at `key`.
    fn seconds(&self, key: &str, v: f64) -> Result<Time, DatacenterFileError> {
        if v.is_finite() && v >= 0.0 {
            Ok(Time::from_secs_f64(v))
        } else {
            Err(self.err(key.into(), format!("{v} is not a duration: give seconds >= 0")))
        }
    }
}

/// The `i`-th scheduler of the file, checked against the `earlier` ones
/// (names are unique); its trace is read from `base`.
fn scheduler_spec(
    i: usize,
    entry: SchedulerEntry,
    earlier: &[SchedulerSpec],
    base: &Path,
    errors: &FileErrors,
) -> Result<SchedulerSpec, DatacenterFileError> {
    let key = |k: &str| format!("schedulers[{i}].{k}");
    let err = |key: String, msg: String| errors.err(key, msg);
    let role: Role = entry.role.parse().map_err(|e| err(key("role"), format!("{e}")))?;
    if earlier.iter().any(|s| s.name == entry.name) || entry.name.is_empty() || entry.name == "best" {
        return Err(err(
            key("name"),
            format!(
                "{:?} is empty, used twice or `best` (routing's word for F^J'): give each scheduler its own name",
                entry.name
            ),
        ));
    }
    let policy = match (&entry.policy, role) {
        (Some(p), _) => p.parse().map_err(|e| err(key("policy"), format!("{e}")))?,
        (None, Role::Cloud) => Policy::Fcfs,
        (None, Role::Hpc) => {
            return Err(err(
                key("policy"),
                "is missing: fcfs, easy, conservative, convergence or cars".into(),
            ))
        }
    };
    let scheduling = match &entry.scheduling {
        Some(s) => s.parse().map_err(|e| err(key("scheduling"), format!("{e}")))?,
        None => crate::defaults::scheduling(),
    };
    let reservation_depth = reservation_depth(&entry, role, policy, scheduling, &key, errors)?;
    check_role_keys(&entry, role, &key, errors)?;
    // λ's range is the data center's to judge (core::datacenter).
    let overbooking = entry.overbooking.unwrap_or(1.0);
    let (name, procs, conv, features) = (
        entry.name.clone(),
        entry.procs,
        entry.conv,
        entry.features.clone(),
    );
    let (link, bandwidth, monitoring) = (entry.latency, entry.bandwidth, entry.monitoring);
    let eviction = entry.eviction.clone();
    // The same order of checks as the file's keys: the work, then F^r's inputs and eviction.
    let work = direct_work(entry, role, base, &key, errors)?;
    let latency = Latency {
        link: errors.seconds(&key("latency"), link.unwrap_or(0.0))?,
        bandwidth: match bandwidth {
            Some(b) if !(b.is_finite() && b > 0.0) => {
                return Err(err(
                    key("bandwidth"),
                    format!("{b} is not a bandwidth: give bytes per second > 0 (e.g. 125e6 for 1 Gbit/s), or leave it out for unlimited"),
                ))
            }
            b => b,
        },
        monitoring: errors.seconds(&key("monitoring"), monitoring.unwrap_or(0.0))?,
    };
    Ok(SchedulerSpec {
        name,
        role,
        procs,
        conv,
        policy,
        scheduling,
        reservation_depth,
        overbooking,
        latency,
        features,
        work,
        eviction: eviction
            .as_deref()
            .map(str::parse)
            .transpose()
            .map_err(|e| err(key("eviction"), format!("{e}")))?,
    })
}

/// A scheduler's reservation depth: HPC clusters only, and one the policy
/// and scheduling mode can use.
fn reservation_depth(
    entry: &SchedulerEntry,
    role: Role,
    policy: Policy,
    scheduling: Scheduling,
    key: &dyn Fn(&str) -> String,
    errors: &FileErrors,
) -> Result<ReservationDepth, DatacenterFileError> {
    match &entry.reservation_depth {
        None => Ok(ReservationDepth::Unlimited),
        Some(_) if role == Role::Cloud => Err(errors.err(
            key("reservation_depth"),
            "applies to HPC clusters only: a cloud platform plans no reservations".into(),
        )),
        Some(value) => {
            let depth: ReservationDepth = yaml_text(value)
                .parse()
                .map_err(|e| errors.err(key("reservation_depth"), format!("{e}")))?;
            let mut engine = interstice_core::EngineConfig::new(1, policy);
            engine.scheduling = scheduling;
            engine.reservation_depth = depth;
            match engine.depth_conflict() {
                Some(conflict) => Err(errors.err(key("reservation_depth"), conflict)),
                None => Ok(depth),
            }
        }
    }
}

/// The keys that only one role takes, or only with a trace.
fn check_role_keys(
    entry: &SchedulerEntry,
    role: Role,
    key: &dyn Fn(&str) -> String,
    errors: &FileErrors,
) -> Result<(), DatacenterFileError> {
    let refuse = |k: &str, message: &str| Err(errors.err(key(k), message.into()));
    if role == Role::Hpc && entry.overbooking.is_some() {
        return refuse("overbooking", "applies to cloud platforms only (role: cloud)");
    }
    if role == Role::Cloud && entry.scheduling.is_some() {
        return refuse(
            "scheduling",
            "applies to HPC clusters only: a cloud platform's own work always evicts the data center's jobs",
        );
    }
    if entry.trace.is_none() && (entry.until.is_some() || entry.clip) {
        return refuse(
            "until",
            "`until` and `clip` cut a trace: give a trace or drop them",
        );
    }
    if role == Role::Cloud && (entry.conv.is_some() || entry.procs.is_none()) {
        return refuse(
            "procs",
            "a cloud platform needs procs (its processors) and no conv (all of them are evictable)",
        );
    }
    Ok(())
}

/// What a scheduler runs besides the data center's cloud jobs: its trace
/// (read from `base`), a cloud platform's own load, or nothing.
fn direct_work(
    entry: SchedulerEntry,
    role: Role,
    base: &Path,
    key: &dyn Fn(&str) -> String,
    errors: &FileErrors,
) -> Result<DirectWork, DatacenterFileError> {
    let err = |key: String, msg: String| errors.err(key, msg);
    match (entry.trace, entry.load) {
        (Some(_), Some(_)) => Err(err(key("trace"), "give a trace or a load, not both".into())),
        (Some(trace), None) => Ok(DirectWork::Trace(TraceSpec {
            workload: base.join(trace),
            procs: entry.procs,
            conv: entry.conv,
            walltime_factor: crate::defaults::WALLTIME_FACTOR,
            from: None,
            until: entry.until,
            clip: entry.clip.then_some(ClipTarget::Machine),
            lenient: false,
            repeat: NonZeroU32::MIN,
        })),
        (None, Some(load)) => {
            if load.class.is_some() || load.tenant.is_some() {
                return Err(err(
                    key("load"),
                    "a platform's own work has no class or tenant: it is never evicted".into(),
                ));
            }
            if load.bytes.is_some() {
                return Err(err(
                    key("load.bytes"),
                    "a platform's own work is already there: no bytes to move (drop the key)".into(),
                ));
            }
            Ok(DirectWork::Stream(stream(load, &key("load"), None, &err)?))
        }
        (None, None) if role == Role::Hpc => Err(err(
            key("trace"),
            "is missing: an HPC cluster replays its trace".into(),
        )),
        (None, None) => Ok(DirectWork::Nothing),
    }
}

/// The service classes and tenants, once the file names any (a class, a
/// tenant, a scheduler's eviction policy or a stream's class or tenant).
fn class_config(
    class_entries: &[ClassEntry],
    tenant_entries: &[TenantEntry],
    streams: &[StreamEntry],
    schedulers: &[SchedulerSpec],
    errors: &FileErrors,
) -> Result<Option<QosConfig>, DatacenterFileError> {
    let uses_classes = !class_entries.is_empty()
        || !tenant_entries.is_empty()
        || schedulers.iter().any(|s| s.eviction.is_some())
        || streams.iter().any(|s| s.class.is_some() || s.tenant.is_some());
    let weighted = (class_entries
        .iter()
        .position(|c| c.weight.is_some())
        .map(|i| format!("classes[{i}]")))
    .or_else(|| {
        tenant_entries
            .iter()
            .position(|t| t.weight.is_some())
            .map(|i| format!("tenants[{i}]"))
    });
    if let Some(key) = weighted {
        return Err(errors.err(
            format!("{key}.weight"),
            "a data center draws no class: each stream names its class and tenant".into(),
        ));
    }
    if let Some(i) = tenant_entries.iter().position(|t| t.power.is_some()) {
        return Err(errors.err(
            format!("tenants[{i}].power"),
            "only osep (`interstice qos run`) reads a tenant's power: remove it".into(),
        ));
    }
    if !uses_classes {
        return Ok(None);
    }
    let mut cfg = QosConfig::new(0, 0, Eviction::default());
    if !class_entries.is_empty() {
        cfg.classes = service_classes(class_entries).map_err(|(key, message)| errors.err(key, message))?;
    }
    if !tenant_entries.is_empty() {
        cfg.tenants = tenants(tenant_entries).map_err(|(key, message)| errors.err(key, message))?;
    }
    Ok(Some(cfg))
}

/// A scalar (or a list, joined by commas: `procs: [1, 2]` is `1,2`) as the
/// text the command-line flags take.
fn yaml_text(value: &serde_yaml::Value) -> String {
    match value {
        serde_yaml::Value::String(s) => s.clone(),
        serde_yaml::Value::Number(n) => n.to_string(),
        serde_yaml::Value::Bool(b) => b.to_string(),
        serde_yaml::Value::Sequence(items) => items.iter().map(yaml_text).collect::<Vec<_>>().join(","),
        _ => String::new(),
    }
}

/// A stream entry as a [`StreamSpec`], with the injector's defaults; its
/// class and tenant among `classes` when the file uses them.
fn stream(
    entry: StreamEntry,
    key: &str,
    classes: Option<&QosConfig>,
    err: &dyn Fn(String, String) -> DatacenterFileError,
) -> Result<StreamSpec, DatacenterFileError> {
    let mut service = Service::default();
    if let Some(cfg) = classes {
        let lookup = |what: &'static str, name: &str| {
            index_of(cfg, what, name).map_err(|e| err(format!("{key}.{what}"), e.to_string()))
        };
        service.class = match &entry.class {
            None => {
                let names: Vec<&str> = cfg.classes.iter().map(|c| c.name.as_str()).collect();
                return Err(err(
                    format!("{key}.class"),
                    format!(
                        "is missing: with service classes every stream names its class ({})",
                        names.join(", ")
                    ),
                ));
            }
            Some(name) => lookup("class", name)?,
        };
        if let Some(name) = &entry.tenant {
            service.tenant = lookup("tenant", name)?;
        }
    }
    let text = yaml_text;
    let procs: ProcsChoice = entry
        .procs
        .as_ref()
        .map_or(crate::defaults::CLOUD_PROCS.to_string(), text)
        .parse()
        .map_err(|e| err(format!("{key}.procs"), format!("{e}")))?;
    let runtime: RuntimeSpec = entry
        .runtime
        .as_ref()
        .map_or(crate::defaults::CLOUD_RUNTIME.to_string(), text)
        .parse()
        .map_err(|e| err(format!("{key}.runtime"), format!("{e}")))?;
    let cloud = CloudSpec {
        interval: entry.interval,
        procs,
        walltime: entry.walltime.unwrap_or(crate::defaults::CLOUD_WALLTIME_SECS),
        runtime,
        slack: entry.slack.unwrap_or(crate::defaults::SLACK),
        alpha: entry.alpha.unwrap_or(crate::defaults::ALPHA),
        seed: entry.seed.unwrap_or(crate::defaults::SEED),
    };
    cloud
        .options()
        .validate()
        .map_err(|e| err(key.to_string(), format!("{e}")))?;
    for (name, v) in [("from", entry.from), ("until", entry.until)] {
        if v.is_some_and(|v| !v.is_finite() || v < 0.0) {
            return Err(err(format!("{key}.{name}"), "give seconds >= 0".into()));
        }
    }
    Ok(StreamSpec {
        cloud,
        from: entry.from,
        until: entry.until,
        features: entry.features,
        service,
        bytes: entry.bytes.unwrap_or(0),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(text: &str) -> Result<DatacenterSpec, DatacenterFileError> {
        DatacenterSpec::parse(text, Path::new("dc/dc.yaml"))
    }

    #[test]
    fn a_two_cluster_file_with_a_cloud_platform() {
        let spec = parse(
            "routing: nasa\nschedulers:\n  - {name: kth, role: hpc, trace: kth.swf, policy: easy, conv: 10}\n  \
             - {name: nasa, role: hpc, trace: /data/nasa.swf, policy: conservative}\n  \
             - {name: c, role: cloud, procs: 8, overbooking: 2, load: {interval: 60, procs: '2,4'}}\n\
             streams:\n  - {interval: 10, procs: 1, slack: 2}\n",
        )
        .unwrap();
        assert_eq!(spec.routing, Routing::Fixed(1));
        assert_eq!(spec.schedulers.len(), 3);
        let DirectWork::Trace(kth) = &spec.schedulers[0].work else {
            panic!()
        };
        assert_eq!(kth.workload, Path::new("dc/kth.swf"));
        let DirectWork::Trace(nasa) = &spec.schedulers[1].work else {
            panic!()
        };
        assert_eq!(nasa.workload, Path::new("/data/nasa.swf"));
        assert_eq!(spec.schedulers[2].overbooking, 2.0);
        assert_eq!(spec.max_resubmissions, crate::defaults::MAX_RESUBMISSIONS);
        assert_eq!(spec.streams[0].cloud.slack, 2.0);
    }

    #[test]
    fn f_r_s_inputs_per_scheduler_and_bytes_per_stream() {
        let hpc = "{name: a, role: hpc, trace: t.swf, policy: easy";
        let spec = parse(&format!(
            "schedulers:\n  - {hpc}, latency: 2, bandwidth: 125e6, monitoring: 30}}\n  \
             - {{name: b, role: hpc, trace: t.swf, policy: easy, latency: 3}}\n\
             streams:\n  - {{interval: 10, bytes: 10000000000}}\n  - {{interval: 10}}\n"
        ))
        .unwrap();
        let latency = spec.schedulers[0].latency;
        // 2 s + 10 GB at 125 MB/s (80 s) + 30 s.
        assert_eq!(latency.of(spec.streams[0].bytes), Time::from_secs(112));
        // Only `latency`: today's constant r, whatever the bytes; no bytes: 0.
        assert_eq!(spec.schedulers[1].latency, Latency::constant(Time::from_secs(3)));
        assert_eq!(spec.streams[1].bytes, 0);
        let err = |text: String| parse(&text).unwrap_err().to_string();
        let e = err(format!("schedulers:\n  - {hpc}, bandwidth: 0}}\n"));
        assert!(
            e.starts_with(
                "dc/dc.yaml: schedulers[0].bandwidth: 0 is not a bandwidth: give bytes per second > 0"
            ),
            "{e}"
        );
        let e = err(format!("schedulers:\n  - {hpc}, monitoring: -1}}\n"));
        assert!(
            e.starts_with("dc/dc.yaml: schedulers[0].monitoring: -1 is not a duration"),
            "{e}"
        );
        let e = err(format!(
            "schedulers:\n  - {hpc}}}\nstreams:\n  - {{interval: 10, bytes: -5}}\n"
        ));
        assert!(e.starts_with("dc/dc.yaml:4:") && e.contains("bytes"), "{e}");
        let e = err(
            "schedulers:\n  - {name: c, role: cloud, procs: 2, load: {interval: 60, bytes: 5}}\n".to_string(),
        );
        assert!(
            e.contains("schedulers[0].load.bytes: a platform's own work"),
            "{e}"
        );
    }

    #[test]
    fn errors_name_the_file_line_and_key() {
        let e = parse("schedulers:\n  - {name: a, role: hpc, trace: t.swf, policy: easy, colour: red}\n")
            .unwrap_err()
            .to_string();
        assert!(e.starts_with("dc/dc.yaml:2:"), "{e}");
        assert!(e.contains("colour"), "{e}");
        let e = parse("schedulers:\n  - {name: a, role: hpc, trace: t.swf}\n")
            .unwrap_err()
            .to_string();
        assert_eq!(
            e,
            "dc/dc.yaml: schedulers[0].policy: is missing: fcfs, easy, conservative, convergence or cars"
        );
        let e = parse("routing: b\nschedulers:\n  - {name: a, role: hpc, trace: t.swf, policy: easy}\n")
            .unwrap_err()
            .to_string();
        assert!(e.contains("routing: \"b\" is neither best"), "{e}");
        let e = parse("schedulers:\n  - {name: c, role: cloud, procs: 4, scheduling: shared-queue}\n")
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("schedulers[0].scheduling: applies to HPC clusters only"),
            "{e}"
        );
        let depth = |text: &str| {
            parse(&format!(
                "schedulers:\n  - {{name: a, role: hpc, trace: t.swf, {text}}}\n"
            ))
            .map(|spec| spec.schedulers[0].reservation_depth.to_string())
        };
        assert_eq!(
            depth("policy: conservative, reservation_depth: 50").unwrap(),
            "50"
        );
        assert_eq!(depth("policy: conservative").unwrap(), "unlimited");
        let e = depth("policy: easy, reservation_depth: 5")
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("schedulers[0].reservation_depth: reservation depth 5 applies to"),
            "{e}"
        );
        let e = depth("policy: conservative, reservation_depth: 0")
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("schedulers[0].reservation_depth: \"0\" is not a reservation depth"),
            "{e}"
        );
        let e = parse("schedulers:\n  - {name: best, role: cloud, procs: 4}\n")
            .unwrap_err()
            .to_string();
        assert!(e.contains("schedulers[0].name"), "{e}");
        let spec = parse(
            "schedulers:\n  - {name: c, role: cloud, procs: 4}\nstreams:\n  - {interval: 5, procs: [1, 2]}\n",
        )
        .unwrap();
        assert_eq!(spec.streams[0].cloud.procs.max(), 2);
    }

    #[test]
    fn classes_streams_and_eviction_policies() {
        let spec = parse(
            "classes:\n  - {name: gold, slo: 1}\n  - {name: bronze, slo: 0.5}\n\
             tenants:\n  - {name: a, share: 2}\n  - {name: b, share: 2}\n\
             schedulers:\n  - {name: c, role: cloud, procs: 4, eviction: owner-share}\n\
             streams:\n  - {interval: 5, class: bronze, tenant: b}\n  - {interval: 7, class: gold}\n",
        )
        .unwrap();
        let classes = spec.classes.as_ref().unwrap();
        assert_eq!(classes.classes.len(), 2);
        assert_eq!(spec.schedulers[0].eviction, Some(Eviction::OwnerShare));
        assert_eq!(spec.streams[0].service, Service { class: 1, tenant: 1 });
        assert_eq!(spec.streams[1].service, Service { class: 0, tenant: 0 });
        // An eviction policy alone brings the seeds' classes.
        let spec = parse(
            "schedulers:\n  - {name: c, role: cloud, procs: 4, eviction: priority}\n\
             streams:\n  - {interval: 5, class: silver}\n",
        )
        .unwrap();
        assert_eq!(spec.streams[0].service.class, 1);
        assert!(parse("schedulers:\n  - {name: c, role: cloud, procs: 4}\n")
            .unwrap()
            .classes
            .is_none());
        for (text, needle) in [
            (
                "schedulers:\n  - {name: c, role: cloud, procs: 4, eviction: priority}\nstreams:\n  - {interval: 5}\n",
                "streams[0].class: is missing",
            ),
            (
                "schedulers:\n  - {name: c, role: cloud, procs: 4}\nstreams:\n  - {interval: 5, class: platinum}\n",
                "streams[0].class: class \"platinum\" is not defined (defined: gold, silver, bronze)",
            ),
            (
                "schedulers:\n  - {name: c, role: cloud, procs: 4, eviction: random}\n",
                "schedulers[0].eviction",
            ),
            (
                "classes:\n  - {name: gold, slo: 1, weight: 2}\nschedulers:\n  - {name: c, role: cloud, procs: 4}\n",
                "classes[0].weight",
            ),
            (
                "schedulers:\n  - {name: c, role: cloud, procs: 4, load: {interval: 5, class: gold}}\n",
                "schedulers[0].load",
            ),
            (
                "schedulers:\n  - {name: c, role: cloud, procs: 4}\nstreams:\n  - {interval: 5, class: gold, tenant: z}\n",
                "streams[0].tenant: tenant \"z\" is not defined",
            ),
        ] {
            let e = parse(text).unwrap_err().to_string();
            assert!(e.contains(needle), "{e}");
        }
    }
}
