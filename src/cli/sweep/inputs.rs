//! What a sweep's simulations are made of, loaded and checked before the
//! first one runs (a bad trace, area, class file or engine knob fails at
//! once, not after hours), and how one simulation of the grid runs: exactly
//! the `replay` of its values.

use super::SweepArgs;
use crate::cli::replay::{run_info, WORKLOAD_NAME};
use anyhow::Context;
use interstice_batsim::output;
use interstice_batsim::protocol::EngineOptions;
use interstice_batsim::sim::area_qos;
use interstice_batsim::sim::{simulate_stream, SimOptions};
use interstice_batsim::sweep::{self, ClassesOutcome, Grid, Outcome, Task};
use interstice_core::qos::Eviction;
use interstice_core::{
    Admission, EngineConfig, Policy, Predictor, ReservationDepth, Scheduling, Summary, SummaryTally,
};
use interstice_swf::defaults;
use interstice_swf::experiment::{check_cloud_fits, CloudRoom};
use interstice_swf::qos::QosSpec;
use interstice_swf::{arrivals, load_trace, ClipTarget, CloudSpec, LoadedTrace, TraceSpec};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::Instant;

/// A sweep's loaded inputs: one trace per area size (clipping to the area
/// depends on it), the class file per area for runs with service classes,
/// and the scalar engine knobs (the maintenance file read once).
pub(super) struct Inputs<'a> {
    args: &'a SweepArgs,
    traces: BTreeMap<Option<u32>, (TraceSpec, LoadedTrace)>,
    classes: BTreeMap<Option<u32>, QosSpec>,
    tuning: EngineOptions,
}

/// A policy with its scheduling mode and reservation depth.
type Scheduler = (Policy, Scheduling, ReservationDepth);

impl<'a> Inputs<'a> {
    /// Load and check everything `grid`'s simulations need. Without
    /// `--eviction`, a class file's own eviction policy becomes the grid's.
    pub fn load(args: &'a SweepArgs, grid: &mut Grid) -> anyhow::Result<Inputs<'a>> {
        let mut traces = BTreeMap::new();
        for &conv in &grid.convs {
            let spec = trace_spec(args, conv);
            let trace = load_trace(&spec).with_context(|| match conv {
                Some(conv) => format!("with --conv {conv}"),
                None => "with the whole machine as the area".to_string(),
            })?;
            for choice in &grid.cloud_procs {
                check_cloud_fits(choice, CloudRoom::Area(trace.conv))?;
            }
            traces.insert(conv, (spec, trace));
        }
        let mut inputs = Inputs {
            args,
            traces,
            classes: BTreeMap::new(),
            tuning: args.tuning.options()?,
        };
        if args.qos.is_some() || !args.eviction.is_empty() {
            inputs.load_classes(grid)?;
        }
        inputs.check_configs(grid)?;
        Ok(inputs)
    }

    /// Runs with service classes: the class file per area (a tenant's
    /// default share is the area), the grid checked as `replay --eviction`
    /// checks its flags, a workload's labels checked as replay does.
    fn load_classes(&mut self, grid: &mut Grid) -> anyhow::Result<()> {
        let args = self.args;
        check_class_grid(args, grid)?;
        for (&conv, (_, trace)) in &self.traces {
            let spec = match &args.qos {
                Some(path) => crate::cli::qos::area_spec(path, trace.conv)?,
                None => QosSpec::defaults(Eviction::default(), trace.conv),
            };
            let workload = args.trace.workload.as_deref().unwrap_or(Path::new("-"));
            spec.check_labels(&trace.labels, workload, args.qos.as_deref())?;
            self.classes.insert(conv, spec);
        }
        if args.eviction.is_empty() {
            let file = self.classes.values().next().map(|spec| spec.config.eviction);
            grid.evictions = vec![file];
        }
        Ok(())
    }

    /// The engine configs of every scheduler of the grid (λ, τ,
    /// maintenance…), checked before hours of simulation.
    fn check_configs(&self, grid: &Grid) -> anyhow::Result<()> {
        let conv = grid.convs[0];
        let procs = self.traces.get(&conv).map_or(0, |(_, trace)| trace.procs);
        for &policy in &grid.policies {
            for &scheduling in &grid.schedulings {
                for &depth in &grid.depths {
                    self.engine_options((policy, scheduling, depth), None, conv, None)
                        .to_config(procs)?;
                }
            }
        }
        Ok(())
    }

    /// The engine options of one simulation: its own values, the sweep's scalar knobs.
    fn engine_options(
        &self,
        (policy, scheduling, depth): Scheduler,
        predictor: Option<Predictor>,
        conv: Option<u32>,
        admission: Option<Admission>,
    ) -> EngineOptions {
        EngineOptions {
            policy: Some(policy),
            scheduling: Some(scheduling),
            reservation_depth: Some(depth),
            predictor,
            conv,
            admission,
            ..self.tuning.clone()
        }
    }

    /// The cloud jobs of run `run`.
    fn cloud_spec(&self, run: &sweep::RunParams) -> CloudSpec {
        CloudSpec {
            interval: self.args.cloud_interval,
            procs: run.cloud_procs.clone(),
            walltime: self.args.cloud_walltime,
            runtime: run.cloud_runtime,
            slack: run.slack,
            alpha: self.args.alpha,
            seed: run.seed,
        }
    }

    /// Simulate task `index` of the grid (`n_baselines` baselines first),
    /// writing its own files under `--out/runs/` with `--keep-runs`.
    pub fn execute(&self, index: usize, task: &Task, n_baselines: usize) -> anyhow::Result<Outcome> {
        let begin = Instant::now();
        let (options, cloud) = match task {
            Task::Run(run) => (
                self.engine_options(
                    (run.policy, run.scheduling, run.reservation_depth),
                    Some(run.predictor),
                    run.conv,
                    Some(run.admission),
                ),
                Some(self.cloud_spec(run)),
            ),
            Task::Baseline {
                policy,
                scheduling,
                reservation_depth,
                conv,
            } => (
                self.engine_options((*policy, *scheduling, *reservation_depth), None, *conv, None),
                None,
            ),
        };
        let (spec, trace) = &self.traces[&options.conv];
        let run = Simulation {
            config: options.to_config(trace.procs)?,
            spec,
            trace,
            cloud: cloud.as_ref(),
            dir: self
                .args
                .out
                .join("runs")
                .join(format!("run-{:04}", index.saturating_sub(n_baselines))),
            keep: self.args.keep_runs && matches!(task, Task::Run(_)),
            jobs_csv: !self.args.no_jobs_csv,
        };
        let (summary, classes) = match task {
            Task::Run(sweep::RunParams {
                eviction: Some(eviction),
                ..
            }) => {
                let mut qos = self.classes[&options.conv].clone();
                qos.config.eviction = *eviction;
                let (summary, classes) = run.with_classes(&qos)?;
                (summary, Some(classes))
            }
            _ => (run.streamed()?, None),
        };
        Ok(Outcome {
            summary,
            procs: trace.procs,
            conv: trace.conv,
            classes,
            wall_seconds: begin.elapsed().as_secs_f64(),
        })
    }
}

/// One simulation of the grid, ready to run.
struct Simulation<'s> {
    config: EngineConfig,
    spec: &'s TraceSpec,
    trace: &'s LoadedTrace,
    cloud: Option<&'s CloudSpec>,
    /// Where its own files go with `keep`.
    dir: PathBuf,
    /// Write its own files (`--keep-runs`, runs only).
    keep: bool,
    /// With `keep`: `jobs.csv` too, not only `summary.json`.
    jobs_csv: bool,
}

impl Simulation<'_> {
    /// Once the run's inputs are good: a `--force` sweep leaves no table of
    /// an earlier run of that number.
    fn prepare(&self) -> anyhow::Result<()> {
        output::prepare_out_dir(&self.dir, self.jobs_csv).context("cannot write the run's results")
    }

    /// The cloud jobs scheduled with service classes `qos`, as `replay --eviction`.
    fn with_classes(&self, qos: &QosSpec) -> anyhow::Result<(Summary, ClassesOutcome)> {
        let (hpc, requests) = crate::cli::qos::area_inputs(self.spec, self.trace, self.cloud, qos)?;
        let (summary, run) = if self.keep {
            self.prepare()?;
            let area = crate::cli::qos::AreaInputs {
                spec: self.spec,
                trace: self.trace,
                cloud: self.cloud,
                qos,
            };
            crate::cli::qos::write_area(
                &area,
                &self.config,
                hpc,
                requests,
                &self.dir,
                self.jobs_csv,
                |_| {},
            )?
        } else {
            let mut tally = SummaryTally::default();
            let run = area_qos::simulate_area(self.config.clone(), hpc, requests, qos, &mut tally, |_| {})
                .context("simulation failed")?;
            (tally.summary(self.config.procs), run)
        };
        Ok((summary, ClassesOutcome::of(run.outcome)))
    }

    /// Streamed as `replay` does: memory follows the jobs in the system.
    fn streamed(&self) -> anyhow::Result<Summary> {
        let (jobs, _) = arrivals(self.trace, self.cloud)?;
        let options = SimOptions::default();
        if !self.keep {
            let mut tally = SummaryTally::default();
            simulate_stream(self.config.clone(), jobs, &options, &mut tally, |_| {})
                .context("simulation failed")?;
            return Ok(tally.summary(self.config.procs));
        }
        self.prepare()?;
        let naming = output::Naming::Workload(WORKLOAD_NAME);
        let mut writer = if self.jobs_csv {
            output::ResultWriter::create(&self.dir, naming)
        } else {
            output::ResultWriter::summary_only(&self.dir, naming)
        }
        .context("cannot write the run's results")?;
        let run = simulate_stream(self.config.clone(), jobs, &options, &mut writer, |_| {})
            .context("simulation failed")?;
        let info = run_info(self.spec, &self.trace.stats, self.cloud, &run.stats);
        writer
            .finish(&self.config, Some(&info))
            .context("cannot write the run's results")
    }
}

/// The trace of the runs of area `conv`: `args.trace`'s, or with --machine a
/// machine of `conv` processors, all area, HPC jobs clipped to it.
fn trace_spec(args: &SweepArgs, conv: Option<u32>) -> TraceSpec {
    let spec = args.trace.spec(conv);
    if args.machine.is_empty() {
        return spec;
    }
    TraceSpec {
        procs: conv,
        clip: Some(ClipTarget::Area),
        ..spec
    }
}

/// A grid with service classes takes only what `replay --eviction` takes:
/// hpc-first, admit-all, no predictor and none of the engine's cloud knobs.
fn check_class_grid(args: &SweepArgs, grid: &Grid) -> anyhow::Result<()> {
    for &eviction in grid.evictions.iter().flatten() {
        crate::cli::qos::refuse_osep(eviction)?;
    }
    for &scheduling in &grid.schedulings {
        for &admission in &grid.admissions {
            crate::cli::qos::check_modes(scheduling, admission)?;
        }
    }
    if grid.predictors != [defaults::predictor()] {
        return Err(crate::cli::qos::unused_by_classes("--predictor"));
    }
    crate::cli::qos::check_tuning(&args.tuning)
}
