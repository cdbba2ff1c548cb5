//! `interstice replay --datacenter dc.yaml`: load each scheduler's work and
//! the cloud-job streams the file describes, build the data center and
//! simulate it, writing `jobs.csv` (one row per attempt) and `summary.json`.

use anyhow::{bail, Context};
use interstice_batsim::dc_output::DatacenterWriter;
use interstice_batsim::output::Naming;
use interstice_batsim::sim::datacenter::{simulate_datacenter, DatacenterRun, Source};
use interstice_core::datacenter::{
    Datacenter, DatacenterConfig, Latency, Request, Role, Routing, SchedulerConfig, Service,
};
use interstice_core::placement::{Placement, Weights};
use interstice_core::{EngineConfig, Job, Lifecycle, Shown, Time};
use interstice_swf::datacenter::{DatacenterSpec, DirectWork, SchedulerSpec, StreamSpec};
use interstice_swf::experiment::injection_span;
use interstice_swf::load_trace;
use std::path::Path;
use std::time::Instant;

/// The `workload_name` column of a data-center `jobs.csv`.
const WORKLOAD_NAME: &str = "dc";

/// Run the data center of `file` and write its results into `out`.
/// `placement` (`--placement`, `--placement-weights`) overrides the file's.
pub fn run(
    file: &Path,
    route: Option<&str>,
    placement: (Option<Placement>, Option<Weights>),
    out: &Path,
    jobs_csv: bool,
    quiet: bool,
) -> anyhow::Result<()> {
    let started = Instant::now();
    let spec = load_spec(file, route, placement)?;
    let names: Vec<String> = spec.schedulers.iter().map(|s| s.name.clone()).collect();
    let mut writer = DatacenterWriter::create(out, names.clone(), Naming::Workload(WORKLOAD_NAME), jobs_csv)
        .context("--out is not usable")?;
    let work = Work::load(&spec, file)?;
    let dc = datacenter(&spec, work.schedulers, file)?;
    let configs: Vec<EngineConfig> = (0..names.len())
        .filter_map(|i| dc.engine_config(i).cloned())
        .collect();
    let roles: Vec<&str> = (0..names.len())
        .filter_map(|i| dc.role(i).map(|r| r.name()))
        .collect();
    let mut sources: Vec<Source<'_>> = Vec::new();
    for (scheduler, jobs) in work.direct {
        sources.push(Source::Direct {
            scheduler,
            jobs: Box::new(jobs.into_iter()),
        });
    }
    for (features, service, bytes, jobs) in work.streams {
        sources.push(Source::Cloud {
            features,
            service,
            bytes,
            jobs: Box::new(jobs.into_iter()),
        });
    }
    let run = simulate_datacenter(dc, sources, &mut writer).context("simulation failed")?;
    writer
        .finish(&run, &configs, &roles, settings_json(&spec, file, &names))
        .context("cannot write the results")?;
    if !quiet {
        print_totals(&run, &names)?;
        outln!(
            "results in {} ({:.1} s)",
            out.display(),
            started.elapsed().as_secs_f64()
        )?;
    }
    Ok(())
}

/// The data-center file with the command line's `--placement`,
/// `--placement-weights` and `--route` over its own.
fn load_spec(
    file: &Path,
    route: Option<&str>,
    placement: (Option<Placement>, Option<Weights>),
) -> anyhow::Result<DatacenterSpec> {
    let mut spec = DatacenterSpec::load(file)?;
    spec.placement = placement.0.unwrap_or(spec.placement);
    spec.placement_weights = placement.1.or(spec.placement_weights);
    if spec.placement_weights.is_some() && spec.placement != Placement::Topsis {
        return Err(super::flags::Usage(format!(
            "placement weights (--placement-weights, or placement_weights in {}) are given but the placement is \
             first-fit: add --placement topsis (or `placement: topsis` in the file), or drop them",
            file.display()
        ))
        .into());
    }
    if let Some(route) = route {
        spec.routing = match route {
            "best" => Routing::Best,
            name => Routing::Fixed(spec.schedulers.iter().position(|s| s.name == name).with_context(
                || format!("--route {name}: no scheduler of {} has that name", file.display()),
            )?),
        };
    }
    Ok(spec)
}

/// Each scheduler's engine and the work the data center runs.
struct Work {
    schedulers: Vec<SchedulerConfig>,
    /// Work submitted straight to a scheduler (by index): its trace, or a cloud platform's own load.
    direct: Vec<(usize, Vec<Job>)>,
    /// The cloud-job streams: their features, service class, bytes per job and jobs.
    streams: Vec<(Vec<String>, Service, u64, Vec<Job>)>,
}

impl Work {
    /// Load the traces, then generate the cloud platforms' own load and the
    /// streams over the HPC traces' span (job ids after the traces').
    fn load(spec: &DatacenterSpec, file: &Path) -> anyhow::Result<Work> {
        let mut work = Work {
            schedulers: Vec::new(),
            direct: Vec::new(),
            streams: Vec::new(),
        };
        let mut span: Option<(Time, Time)> = None;
        let mut next_id = 1u64;
        for (i, s) in spec.schedulers.iter().enumerate() {
            let mut scheduler = scheduler_config(spec, s)?;
            if let DirectWork::Trace(trace_spec) = &s.work {
                let trace = load_trace(trace_spec).with_context(|| format!("scheduler {}", s.name))?;
                if s.role == Role::Hpc {
                    scheduler.engine.procs = trace.procs;
                    scheduler.engine.conv_procs = trace.conv;
                }
                let mut jobs = trace.jobs;
                jobs.sort_by_key(|job| job.submit);
                if s.role == Role::Hpc {
                    if let Some((first, last)) = injection_span(&jobs) {
                        span = Some(span.map_or((first, last), |(a, b)| (a.min(first), b.max(last))));
                    }
                }
                next_id = next_id.max(jobs.iter().map(|job| job.id.0 + 1).max().unwrap_or(1));
                work.direct.push((i, jobs));
            }
            work.schedulers.push(scheduler);
        }
        let stream_jobs = |stream: &StreamSpec, first_id: &mut u64| -> anyhow::Result<Vec<Job>> {
            let from = stream.from.map(Time::from_secs_f64).or(span.map(|s| s.0));
            let to = stream.until.map(Time::from_secs_f64).or(span.map(|s| s.1));
            let (Some(from), Some(to)) = (from, to) else {
                bail!("a stream needs `from` and `until` when no HPC trace gives the span");
            };
            let jobs: Vec<Job> = stream.cloud.jobs(from, to, *first_id)?.collect();
            *first_id += jobs.len() as u64;
            Ok(jobs)
        };
        for (i, s) in spec.schedulers.iter().enumerate() {
            if let DirectWork::Stream(load) = &s.work {
                if let Some(procs) = s.procs.filter(|&procs| load.cloud.procs.max() > procs) {
                    bail!(
                        "{}: scheduler {}: its load has jobs of {} processors, wider than its {procs}",
                        file.display(),
                        s.name,
                        load.cloud.procs.max()
                    );
                }
                let jobs =
                    stream_jobs(load, &mut next_id).with_context(|| format!("scheduler {}: load", s.name))?;
                work.direct.push((i, jobs));
            }
        }
        for (k, stream) in spec.streams.iter().enumerate() {
            let jobs = stream_jobs(stream, &mut next_id).with_context(|| format!("streams[{k}]"))?;
            work.streams
                .push((stream.features.clone(), stream.service, stream.bytes, jobs));
        }
        Ok(work)
    }
}

/// Scheduler `s`'s engine and its place in the data center (its trace, if
/// any, sets an HPC cluster's size afterwards).
fn scheduler_config(spec: &DatacenterSpec, s: &SchedulerSpec) -> anyhow::Result<SchedulerConfig> {
    let mut scheduler = match s.role {
        Role::Hpc => {
            let mut hpc = SchedulerConfig::hpc(&s.name, EngineConfig::new(1, s.policy));
            if matches!(s.work, DirectWork::Trace(_)) {
                hpc.engine.scheduling = s.scheduling;
                hpc.engine.reservation_depth = s.reservation_depth;
            }
            hpc
        }
        Role::Cloud => {
            let procs = s.procs.context("a cloud platform needs procs")?;
            let mut cloud = SchedulerConfig::cloud(&s.name, procs, s.overbooking);
            cloud.engine.policy = s.policy;
            cloud
        }
    };
    scheduler.engine.placement = spec.placement;
    scheduler.engine.placement_weights = spec.placement_weights.unwrap_or_default();
    scheduler.features = s.features.clone();
    scheduler.latency = s.latency;
    scheduler.eviction = s.eviction;
    Ok(scheduler)
}

/// The data center of `spec` over `schedulers`. Every stream's widest job
/// must fit some scheduler's metadata (width and features), or every such
/// job would be refused: that is an error in the file.
fn datacenter(
    spec: &DatacenterSpec,
    schedulers: Vec<SchedulerConfig>,
    file: &Path,
) -> anyhow::Result<Datacenter> {
    let config = DatacenterConfig {
        schedulers,
        refresh: spec.refresh,
        admission: spec.admission,
        tau: spec.tau,
        beta: spec.beta,
        lifecycle: Lifecycle {
            max_resubmissions: spec.max_resubmissions,
            max_time_in_system: spec.max_time_in_system,
        },
        routing: spec.routing,
        placement: spec.placement,
        placement_weights: spec.placement_weights.unwrap_or_default(),
        classes: spec.classes.clone(),
    };
    let dc = Datacenter::new(config).with_context(|| file.display().to_string())?;
    for (k, stream) in spec.streams.iter().enumerate() {
        let widest = Request {
            procs: stream.cloud.procs.max(),
            walltime: Time::ZERO,
            slo: None,
            arrival: Time::ZERO,
            features: stream.features.clone(),
            bytes: stream.bytes,
        };
        if !dc.tuples().iter().any(|tuple| tuple.metadata.fits(&widest)) {
            bail!(
                "{}: streams[{k}]: no scheduler takes jobs of {} processors{}: widen an area, add a \
                 scheduler, or narrow the stream",
                file.display(),
                widest.procs,
                if widest.features.is_empty() {
                    String::new()
                } else {
                    format!(" with features {:?}", widest.features)
                }
            );
        }
    }
    Ok(dc)
}

/// `summary.json`'s `settings`: the file, the routing and the knobs, the
/// streams (with their class and tenant), and each scheduler's eviction
/// policy when the file has classes.
fn settings_json(spec: &DatacenterSpec, file: &Path, names: &[String]) -> serde_json::Value {
    let mut settings = serde_json::json!({
        "file": file.display().to_string(),
        "routing": match spec.routing {
            Routing::Best => "best",
            Routing::Fixed(i) => names[i].as_str(),
        },
        "admission": spec.admission.name(),
        "refresh": spec.refresh.as_secs_f64(),
        "tau": spec.tau,
        "beta": interstice_swf::beta::beta_json(spec.beta),
        "max_resubmissions": spec.max_resubmissions,
        "max_time_in_system": spec.max_time_in_system.map(Time::as_secs_f64),
        "streams": spec.streams.iter().map(|s| {
            let mut stream = s.cloud.to_json();
            if let Some(cfg) = &spec.classes {
                stream["class"] = cfg.classes[s.service.class].name.clone().into();
                stream["tenant"] = cfg.tenants[s.service.tenant].name.clone().into();
            }
            if s.bytes > 0 {
                stream["bytes"] = s.bytes.into();
            }
            stream
        }).collect::<Vec<_>>(),
    });
    // F^r's inputs beyond the constant latency, only when a scheduler has them
    // (a file without them writes the settings it always wrote).
    let f_r = |l: &Latency| l.bandwidth.is_some() || l.monitoring > Time::ZERO;
    if spec.schedulers.iter().any(|s| f_r(&s.latency)) {
        settings["latency"] = spec
            .schedulers
            .iter()
            .map(|s| {
                serde_json::json!({
                    "scheduler": s.name,
                    "latency": s.latency.link.as_secs_f64(),
                    "bandwidth": s.latency.bandwidth,
                    "monitoring": s.latency.monitoring.as_secs_f64(),
                })
            })
            .collect();
    }
    if spec.classes.is_some() {
        settings["evictions"] = spec
            .schedulers
            .iter()
            .map(|s| s.eviction.map(|e| e.name()))
            .collect();
    }
    settings
}

/// The data center's totals, each scheduler's and each class's, for people.
fn print_totals(run: &DatacenterRun, names: &[String]) -> anyhow::Result<()> {
    let t = &run.totals;
    outln!(
        "data center: {} cloud jobs, {} accepted, {} refused, {} violations, {} evictions, {} migrations",
        t.arrived,
        t.accepted,
        t.refused,
        t.violations,
        t.evictions,
        t.migrations
    )?;
    for (name, s) in names.iter().zip(&run.schedulers) {
        outln!(
            "  {name}: {} sent, {} evictions, {} in / {} out by migration, {} last attempts, {} violations",
            s.sent,
            s.evictions,
            s.migrated_in,
            s.migrated_out,
            s.last_attempts,
            s.violations
        )?;
    }
    for c in &run.classes {
        outln!(
            // Percentages, as `qos run` and `replay --eviction` print them.
            "  class {}: {} jobs, availability mean {:.2} %, SLO met {:.2} %, penalty {:.3} slot-hours, \
             {} evictions",
            c.name,
            c.requests,
            Shown(c.availability.as_ref().map(|d| d.mean * 100.0)),
            Shown(c.fulfilment.map(|f| f * 100.0)),
            c.penalty,
            c.preemptions
        )?;
    }
    Ok(())
}
