//! `interstice qos run FILE` (a platform of hosts with service classes, its
//! requests from the file) and the service-class half of `interstice replay
//! --eviction/--qos` (cloud jobs with classes in the convergence area).
//! Composition only: the scheduler is `core::qos`, the file
//! `interstice_swf::qos`, the area run `sim::area_qos`, the outputs
//! `qos_output`.

use super::engine_args::{EngineArgs, TuningArgs};
use super::flags::Usage;
use super::replay::{run_info, Replayed, WORKLOAD_NAME};
use anyhow::Context;
use indicatif::ProgressBar;
use interstice_batsim::osep_eval;
use interstice_batsim::output::{self, Naming, ResultWriter};
use interstice_batsim::qos_output;
use interstice_batsim::sim::area_qos::{self, AreaRun};
use interstice_core::qos::{
    simulate_with, ClassReport, Eviction, OsepCondition, Outcome, QosConfig, Request,
};
use interstice_core::{Admission, EngineConfig, Job, JobKind, Scheduling, Summary};
use interstice_swf::experiment::{
    first_injected_id, injection_span, load_trace, CloudSpec, LoadedTrace, TraceSpec,
};
use interstice_swf::merge_by_submit;
use interstice_swf::qos::{parse_eviction, QosFileError, QosSpec};
use interstice_swf::request_trace::RequestTraceReader;
use std::path::{Path, PathBuf};
use std::time::Instant;

/// `interstice qos …`.
#[derive(clap::Subcommand, Debug)]
pub enum QosCommand {
    /// Run a platform of hosts with service classes and the requests of FILE (see
    /// docs/qos.md and examples/qos-*.yaml): who gets preempted for whom, and what each class
    /// received (availability, SLO fulfilment, penalty, Gini).
    Run(RunArgs),
    /// Seed 001's study: both policies on several workload samples, each on infrastructures
    /// sized N (its peak demand), 0.9N and 0.8N; the paired availabilities, penalties and
    /// fairness by contention level into DIR (study.json, requests.csv; `interstice report DIR`).
    Study(super::qos_study::StudyArgs),
    /// Write Google-like request-trace samples (docs/qos.md, "Request traces"): 10 % of each
    /// user group's users per sample, reproducible from the parameters and the seed.
    Generate(super::qos_trace::GenerateArgs),
    /// Convert Google's 2011 cluster trace (task_events, machine_events) into a request trace.
    ConvertGoogle(super::qos_trace::ConvertGoogleArgs),
    /// Seed 002's evaluation (docs/osep.md): 12 machines of three speeds, 4 users, user1 or
    /// user4 delayed 6 minutes, without or with checkpointing, small, medium or large demand;
    /// heterogeneous and original OSEP, each user's satisfaction (mean, 95 % CI) per case.
    OsepEval(OsepEvalArgs),
}

/// `interstice qos osep-eval`.
#[derive(clap::Args, Debug)]
#[command(after_help = "Example: interstice qos osep-eval --out out/osep --repetitions 1000")]
pub struct OsepEvalArgs {
    /// Output directory (osep-eval.csv, osep-eval.json): new or empty, or any with --force.
    #[arg(long, value_name = "DIR")]
    pub out: PathBuf,
    /// Write into a non-empty --out DIR.
    #[arg(long)]
    pub force: bool,
    /// Repetitions of each case (the seed's 1,000).
    #[arg(long, default_value_t = 1000, value_parser = clap::value_parser!(u64).range(1..))]
    pub repetitions: u64,
    /// Seed of the task sizes' draws.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// OSEP's update period t, seconds.
    #[arg(long, default_value_t = 60, value_parser = clap::value_parser!(u32).range(1..))]
    pub period: u32,
    /// OSEP's maxt: preemptions per update at most.
    #[arg(long, default_value_t = 4)]
    pub maxt: u32,
    /// The checkpoint block, seconds of work (the seed's 10 minutes).
    #[arg(long, default_value_t = 600, value_parser = clap::value_parser!(u32).range(1..))]
    pub block: u32,
    /// The heterogeneous rule's condition 4: before (PR_Preemp > DifPoder of the beneficiary,
    /// §4.2), after (PR_Aloc <= PR_Preemp) or literal (the seed's printed PR_Aloc > PR_Preemp).
    #[arg(long, default_value = "before", value_parser = parse_condition)]
    pub condition: OsepCondition,
}

fn parse_condition(s: &str) -> Result<OsepCondition, String> {
    s.parse().map_err(|e| format!("{e}"))
}

/// `interstice qos run`.
#[derive(clap::Args, Debug)]
#[command(
    after_help = "Example: interstice qos run examples/qos-kubernetes-test1.yaml --eviction priority --out out/"
)]
pub struct RunArgs {
    /// The service-class file: classes, tenants, hosts, requests (YAML).
    pub file: PathBuf,
    /// Eviction policy: priority, qos-driven, owner-share or osep (default: the file's, else qos-driven).
    #[arg(long, value_name = "POLICY", value_parser = parse_eviction)]
    pub eviction: Option<Eviction>,
    /// Output directory (requests.csv, windows.csv, summary.json): new or empty, or any with --force.
    #[arg(long, value_name = "DIR")]
    pub out: Option<PathBuf>,
    /// Write into a non-empty --out DIR.
    #[arg(long)]
    pub force: bool,
    /// No table on stdout.
    #[arg(long)]
    pub quiet: bool,
    /// The requests from a request-trace CSV (docs/qos.md, "Request traces") instead of the
    /// file's `requests:`.
    #[arg(long, value_name = "CSV")]
    pub requests: Option<PathBuf>,
    /// With --requests: the hosts' slots (and memory units) per unit of the trace's CPU and
    /// memory (Google's are fractions of the largest machine), rounded up.
    #[arg(long, value_name = "N", default_value_t = 1, requires = "requests",
          value_parser = clap::value_parser!(u32).range(1..=1_000_000))]
    pub scale: u32,
}

/// Run `interstice qos …`.
pub fn run(cmd: QosCommand) -> anyhow::Result<()> {
    match cmd {
        QosCommand::Run(args) => run_file(args),
        QosCommand::Study(args) => super::qos_study::run(args),
        QosCommand::Generate(args) => super::qos_trace::generate(args),
        QosCommand::ConvertGoogle(args) => super::qos_trace::convert_google(args),
        QosCommand::OsepEval(args) => {
            let out = args.out.clone();
            super::flags::with_out_dir(Some(&out), args.force, || osep_eval(&args))
        }
    }
}

/// `qos osep-eval`: run the cases, write the files, print the means.
fn osep_eval(args: &OsepEvalArgs) -> anyhow::Result<()> {
    let settings = osep_eval::Settings {
        repetitions: args.repetitions,
        seed: args.seed,
        period: interstice_core::Time::from_secs(i64::from(args.period)),
        maxt: args.maxt,
        block: interstice_core::Time::from_secs(i64::from(args.block)),
        condition: args.condition,
    };
    let started = Instant::now();
    let rows = osep_eval::run(&settings).context("the evaluation failed")?;
    osep_eval::write(&args.out, &settings, &rows).context("cannot write the results")?;
    outln!(
        "{:<6} {:<3} {:<7} {:<14} {:>14} {:>14} {:>14} {:>14} {:>8}",
        "late",
        "ck",
        "demand",
        "algorithm",
        "user1 SU%",
        "user2 SU%",
        "user3 SU%",
        "user4 SU%",
        "preempt"
    )?;
    for case in rows.chunks(4) {
        let r = &case[0];
        let cell = |x: &osep_eval::Row| match (x.mean, x.ci95) {
            (Some(m), Some(c)) => format!("{m:.2}±{c:.2}"),
            (Some(m), None) => format!("{m:.2}"),
            _ => "-".to_string(),
        };
        outln!(
            "{:<6} {:<3} {:<7} {:<14} {:>14} {:>14} {:>14} {:>14} {:>8.2}",
            interstice_swf::osep_eval::OWNED[r.delayed].0,
            if r.checkpoint { "CC" } else { "SC" },
            r.demand.name(),
            r.rule.name(),
            cell(&case[0]),
            cell(&case[1]),
            cell(&case[2]),
            cell(&case[3]),
            r.preemptions
        )?;
    }
    outln!(
        "{} runs in {:.1} s; {}",
        rows.len() / 4 * args.repetitions as usize,
        started.elapsed().as_secs_f64(),
        args.out.join("osep-eval.csv").display()
    )?;
    Ok(())
}

fn run_file(args: RunArgs) -> anyhow::Result<()> {
    let out = args.out.clone();
    super::flags::with_out_dir(out.as_deref(), args.force, || run_checked(args))
}

/// [`run_file`] once `--out` is known usable.
fn run_checked(args: RunArgs) -> anyhow::Result<()> {
    let mut spec = QosSpec::load(&args.file, 0)?;
    if let Some(e) = args.eviction {
        spec.set_eviction(e);
    }
    let file = args.file.display();
    if let Some(csv) = &args.requests {
        if !spec.requests.is_empty() {
            return Err(Usage(format!(
                "--requests {}: {file} has requests too: give them in the file or with --requests, not both",
                csv.display()
            ))
            .into());
        }
        let rows = RequestTraceReader::open(csv)?.collect::<Result<Vec<_>, _>>()?;
        let place = csv.display().to_string();
        let converted = interstice_swf::qos_study::requests(&rows, &spec.config.classes, args.scale, &place)?;
        (spec.requests, spec.needs) = converted.into_iter().unzip();
    }
    if spec.config.hosts.is_empty() {
        return Err(QosFileError(format!(
            "{file}: hosts: missing: give the platform's hosts, e.g. `hosts: {{ count: 20, slots: 10 }}`"
        ))
        .into());
    }
    if spec.requests.is_empty() {
        return Err(QosFileError(format!(
            "{file}: requests: missing: give at least one request, e.g. `requests: [{{ class: gold, count: 10 }}]`"
        )).into());
    }
    let QosSpec {
        config: cfg,
        requests,
        needs,
        ..
    } = spec;
    let requests = requests.into_iter().zip(needs).collect();
    let outcome =
        simulate_with(&cfg, requests, Vec::new()).map_err(|e| QosFileError(format!("{file}: {e}")))?;
    if let Some(out) = &args.out {
        // The one rule of which files a run leaves: no jobs.csv from an
        // earlier replay beside this run's summary.
        output::prepare_out_dir(out, false).context("--out is not usable")?;
        qos_output::write_tables(out, &cfg, &outcome).context("cannot write the results")?;
        qos_output::write_summary(out, &cfg, &outcome).context("cannot write the results")?;
    }
    if !args.quiet {
        print_classes(&cfg, &outcome)?;
        print_tenants(&cfg, &outcome)?;
    }
    Ok(())
}

/// Under osep, one line per tenant: its share, portion and satisfaction.
fn print_tenants(cfg: &QosConfig, outcome: &Outcome) -> anyhow::Result<()> {
    let Some(satisfaction) = &outcome.satisfaction else {
        return Ok(());
    };
    let total = cfg.total_power();
    outln!(
        "{:<10} {:>6} {:>10} {:>9} {:>8}",
        "tenant",
        "share",
        "portion",
        "portion%",
        "SU%"
    )?;
    for (t, su) in satisfaction.iter().enumerate() {
        outln!(
            "{:<10} {:>6} {:>10.4} {:>9.2} {:>8}",
            cfg.tenants[t].name,
            cfg.tenants[t].share,
            cfg.portion(t),
            100.0 * cfg.portion(t) / total,
            su.map_or("-".to_string(), |v| format!("{v:.2}"))
        )?;
    }
    Ok(())
}

/// The service-class options of `interstice replay`.
#[derive(clap::Args, Debug, Clone, Default)]
pub struct ClassArgs {
    /// Schedule the cloud jobs (injected, and the workload's own with their `class`/`tenant`
    /// labels) with service classes in the convergence area, evicting by
    /// POLICY when HPC work takes processors: priority, qos-driven or owner-share (see
    /// docs/qos.md). HPC decisions are those of a replay without cloud jobs.
    #[arg(long, value_name = "POLICY", value_parser = parse_eviction, conflicts_with = "datacenter")]
    pub eviction: Option<Eviction>,
    /// The classes and tenants of the cloud jobs, and the scheduler's settings (YAML; default:
    /// the seeds' gold 100 %, silver 90 %, bronze 50 %, drawn equally, one tenant).
    #[arg(long, value_name = "FILE", conflicts_with = "datacenter")]
    pub qos: Option<PathBuf>,
}

impl ClassArgs {
    /// Whether the replay runs with service classes.
    pub fn enabled(&self) -> bool {
        self.eviction.is_some() || self.qos.is_some()
    }

    /// The classes for an area of `conv` processors.
    fn spec(&self, conv: u32) -> anyhow::Result<QosSpec> {
        let mut spec = match &self.qos {
            Some(path) => area_spec(path, conv)?,
            None => QosSpec::defaults(Eviction::default(), conv),
        };
        if let Some(e) = self.eviction {
            spec.config.eviction = e;
        }
        refuse_osep(spec.config.eviction)?;
        Ok(spec)
    }
}

/// The class file `path` of cloud jobs in an area of `conv` processors
/// (`replay --qos`, `swf inject --qos`): checked as the area will run it,
/// without the keys of a `qos run` platform.
pub(crate) fn area_spec(path: &Path, conv: u32) -> anyhow::Result<QosSpec> {
    let spec = QosSpec::load(path, conv)?;
    refuse_osep(spec.config.eviction).with_context(|| format!("{}", path.display()))?;
    // Checked now, before the HPC simulation, as the area will run it.
    area_qos::area_config(&spec, conv.max(1))
        .validate(&[])
        .map_err(|e| QosFileError(format!("{}: {e}", path.display())))?;
    let platform_keys = [
        ("hosts", !spec.config.hosts.is_empty()),
        ("requests", !spec.requests.is_empty()),
        ("until", spec.config.until.is_some()),
        ("events", !spec.config.events.is_empty()),
    ];
    if let Some((key, _)) = platform_keys.iter().find(|(_, given)| *given) {
        return Err(QosFileError(format!(
            "{}: {key}: describes a `qos run` platform; a replay's or Batsim run's platform is its area (--conv), \
             its requests the cloud jobs and its end the trace's: remove `{key}`",
            path.display()
        ))
        .into());
    }
    Ok(spec)
}

/// Osep is `qos run`'s alone (its periodic decision on hosts of known
/// speeds): an area run refuses it, as a usage error.
pub(crate) fn refuse_osep(eviction: Eviction) -> anyhow::Result<()> {
    if eviction == Eviction::Osep {
        return Err(Usage(
            "eviction osep: only `interstice qos run` simulates it (hosts with speeds, a periodic decision); \
             an area's cloud jobs are evicted by priority, qos-driven or owner-share"
                .into(),
        )
        .into());
    }
    Ok(())
}

/// The options of a class replay that cannot go with it, as a usage error.
pub(crate) fn check_replay(engine: &EngineArgs) -> anyhow::Result<()> {
    let own = [
        ("--predictor", engine.predictor.is_some()),
        ("--placement", engine.placement.is_some()),
        ("--placement-weights", engine.placement_weights.is_some()),
    ];
    if let Some((flag, _)) = own.iter().find(|(_, given)| *given) {
        return Err(unused_by_classes(flag));
    }
    check_tuning(&engine.tuning)?;
    // Read only once the flags it could not use are refused.
    let config = engine.to_config(engine.conv.unwrap_or(1).max(1))?;
    check_modes(config.scheduling, config.admission)
}

/// The scheduling mode and admission a run with service classes needs
/// (`replay`, and each point of a `sweep`), as a usage error.
pub(crate) fn check_modes(scheduling: Scheduling, admission: Admission) -> anyhow::Result<()> {
    if scheduling == Scheduling::SharedQueue {
        return Err(Usage(
            "--eviction/--qos: under --scheduling shared-queue nothing is evicted; use hpc-first".into(),
        )
        .into());
    }
    if admission != Admission::AdmitAll {
        return Err(Usage(
            "--eviction/--qos: the class scheduler admits every request (no prediction); drop --admission"
                .into(),
        )
        .into());
    }
    Ok(())
}

/// The engine knobs a run with service classes cannot use, as a usage
/// error naming the first one given (`replay`, `sweep`).
pub(crate) fn check_tuning(t: &TuningArgs) -> anyhow::Result<()> {
    let unused = [
        ("--lambda", t.lambda.is_some()),
        ("--tau", t.tau.is_some()),
        ("--latency", t.latency.is_some()),
        ("--beta", t.beta.is_some()),
        ("--max-resubmissions", t.max_resubmissions.is_some()),
        ("--max-time-in-system", t.max_time_in_system.is_some()),
        ("--maintenance", t.maintenance.is_some()),
    ];
    match unused.iter().find(|(_, given)| *given) {
        Some((flag, _)) => Err(unused_by_classes(flag)),
        None => Ok(()),
    }
}

/// What the engine does for cloud jobs the class scheduler does its own
/// way: `flag` would be ignored, so it is refused.
pub(crate) fn unused_by_classes(flag: &str) -> anyhow::Error {
    Usage(format!(
        "--eviction/--qos: {flag} is for the engine's own cloud jobs (predictions, resubmissions, \
         maintenance, which processors of the area); the class scheduler admits, waits and evicts by its \
         classes on the area as one host: drop {flag}"
    ))
    .into()
}

/// A run with service classes' two inputs: the HPC jobs of `trace` for the
/// engine (by submission), and its cloud jobs — the workload's own, with
/// their labels, merged by arrival with those `cloud` injects over the HPC
/// span — as the class scheduler's requests (classes drawn in that order).
pub(crate) fn area_inputs(
    spec: &TraceSpec,
    trace: &LoadedTrace,
    cloud: Option<&CloudSpec>,
    qos: &QosSpec,
) -> anyhow::Result<(Vec<Job>, Vec<Request>)> {
    let (mut hpc, mut own_cloud): (Vec<Job>, Vec<Job>) =
        trace.jobs.iter().cloned().partition(|j| j.kind == JobKind::Hpc);
    hpc.sort_by_key(|job| job.submit);
    own_cloud.sort_by_key(|job| (job.submit, job.id));
    if let Some(cloud) = cloud {
        cloud.check_fits(trace.conv)?;
    }
    let injected = match (cloud, injection_span(&hpc)) {
        (Some(cloud), Some((first, last))) => {
            Some(cloud.jobs(first, last, first_injected_id(&trace.jobs))?)
        }
        _ => None,
    };
    if own_cloud.is_empty() && cloud.is_none() {
        return Err(Usage(format!(
            "--eviction/--qos schedule cloud jobs, and {} has none: give --cloud-interval (and the other \
             --cloud-* flags), or a workload with cloud jobs (`interstice swf inject`)",
            spec.workload.display()
        ))
        .into());
    }
    let requests = area_qos::requests(
        merge_by_submit(own_cloud, injected.into_iter().flatten()),
        &trace.labels,
        qos,
    )
    .with_context(|| format!("{}", spec.workload.display()))?;
    Ok((hpc, requests))
}

/// A replay whose cloud jobs have service classes: the HPC trace through
/// the engine (`jobs.csv`, `summary.json`), the cloud jobs (the workload's
/// own and those `cloud` injects) through the area's QoS platform
/// (`requests.csv`, `windows.csv`, `classes` and `qos` in `summary.json`).
pub(crate) fn replay_area(
    spec: &TraceSpec,
    engine: &EngineArgs,
    cloud: Option<&CloudSpec>,
    classes: &ClassArgs,
    out: &Path,
    jobs_csv: bool,
    bar: &ProgressBar,
) -> anyhow::Result<(Replayed, AreaRun)> {
    let started = Instant::now();
    let trace = load_trace(spec)?;
    let config = engine.to_config(trace.procs)?;
    let qos = classes.spec(config.conv_procs)?;
    qos.check_labels(&trace.labels, &spec.workload, classes.qos.as_deref())?;
    let (hpc, requests) = area_inputs(spec, &trace, cloud, &qos)?;
    // Nothing is written before the inputs are known good.
    output::prepare_out_dir(out, jobs_csv).context("--out is not usable")?;
    let n_jobs = (hpc.len() + requests.len()) as u64;
    let load_seconds = started.elapsed().as_secs_f64();
    bar.set_length(hpc.len() as u64);
    let area = AreaInputs {
        spec,
        trace: &trace,
        cloud,
        qos: &qos,
    };
    let (summary, run) = write_area(&area, &config, hpc, requests, out, jobs_csv, |done| {
        bar.set_position(done)
    })?;
    let replayed = Replayed {
        summary,
        without_cloud: None,
        config,
        stats: run.sim.stats.clone(),
        jobs: n_jobs,
        skipped: trace.skipped(),
        load_seconds,
    };
    Ok((replayed, run))
}

/// What a run with service classes was made of, for its `summary.json`.
pub(crate) struct AreaInputs<'a> {
    /// The trace as specified…
    pub spec: &'a TraceSpec,
    /// …and as loaded.
    pub trace: &'a LoadedTrace,
    /// The injected cloud jobs.
    pub cloud: Option<&'a CloudSpec>,
    /// The classes.
    pub qos: &'a QosSpec,
}

/// Run `hpc` and `requests` (from [`area_inputs`]) under `config` into
/// `out`: `jobs.csv` (with `jobs_csv`) and `summary.json` with its
/// `classes` and `qos`, then `requests.csv` and `windows.csv` (with
/// `jobs_csv`). `replay --eviction`, and `sweep --eviction --keep-runs`.
pub(crate) fn write_area(
    area: &AreaInputs,
    config: &EngineConfig,
    hpc: Vec<Job>,
    requests: Vec<Request>,
    out: &Path,
    jobs_csv: bool,
    progress: impl FnMut(u64),
) -> anyhow::Result<(Summary, AreaRun)> {
    let naming = Naming::Workload(WORKLOAD_NAME);
    let mut writer = if jobs_csv {
        ResultWriter::create(out, naming)
    } else {
        ResultWriter::summary_only(out, naming)
    }
    .context("cannot write the results")?;
    let run = area_qos::simulate_area(config.clone(), hpc, requests, area.qos, &mut writer, progress)
        .context("simulation failed")?;
    let info = run_info(area.spec, &area.trace.stats, area.cloud, &run.sim.stats);
    writer.set_classes(
        qos_output::classes_json(&run.outcome),
        qos_output::qos_json(&run.config, &run.outcome),
    );
    let summary = writer
        .finish(config, Some(&info))
        .context("cannot write the results")?;
    if jobs_csv {
        qos_output::write_tables(out, &run.config, &run.outcome).context("cannot write the results")?;
    }
    Ok((summary, run))
}

/// One line per class: what it received.
pub(crate) fn print_classes(cfg: &QosConfig, outcome: &Outcome) -> anyhow::Result<()> {
    let pct = |v: Option<f64>| v.map_or("-".to_string(), |x| format!("{:.2}", 100.0 * x));
    outln!(
        "{} eviction: {} preemptions ({} for HPC work), penalty {:.3} slot-hours",
        cfg.eviction,
        outcome.preemptions.len(),
        outcome.preemptions_for_capacity(),
        outcome.penalty()
    )?;
    outln!(
        "{:<10} {:>6} {:>9} {:>8} {:>8} {:>8} {:>10} {:>9} {:>12} {:>9}",
        "class",
        "slo%",
        "requests",
        "A mean%",
        "A p10%",
        "A min%",
        "fulfil%",
        "deficit%",
        "penalty",
        "gini"
    )?;
    for c in &outcome.classes {
        let ClassReport {
            name,
            slo,
            requests,
            availability,
            fulfilment,
            mean_deficit,
            penalty,
            gini_mean,
            ..
        } = c;
        outln!(
            "{:<10} {:>6.1} {:>9} {:>8} {:>8} {:>8} {:>10} {:>9} {:>12.3} {:>9}",
            name,
            100.0 * slo,
            requests,
            pct(availability.as_ref().map(|d| d.mean)),
            pct(availability.as_ref().map(|d| d.p10)),
            pct(availability.as_ref().map(|d| d.min)),
            pct(*fulfilment),
            pct(*mean_deficit),
            penalty,
            gini_mean.map_or("-".to_string(), |g| format!("{g:.4}"))
        )?;
    }
    Ok(())
}
