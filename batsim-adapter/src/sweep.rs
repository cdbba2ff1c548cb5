//! The experiment sweep behind `interstice sweep`: the cartesian product of
//! lists of parameters (policy, scheduling, reservation depth, predictor, area, admission,
//! eviction policy, cloud-job width, run time, slack, seed), its simulations
//! run on worker threads, and the rows of `sweep.csv`, `sweep-classes.csv`
//! and `sweep.json`.
//!
//! [`Grid::tasks`] gives one no-cloud baseline per (policy, scheduling,
//! reservation depth, area), then every run in the lists' order (policy,
//! then scheduling, reservation depth, predictor, conv, admission, eviction, cloud-procs, cloud-runtime, slack,
//! seed);
//! [`run_parallel`] carries them out on threads
//! and returns the outcomes in task order, so the rows never depend on the
//! thread scheduling (only `wall_seconds` does).

use interstice_core::qos::{self, ClassReport, Eviction};
use interstice_core::{
    Admission, Policy, Predictor, PredictorQualities, ReservationDepth, Scheduling, Summary,
};
use interstice_swf::inject::{ProcsChoice, RuntimeSpec};
use std::fmt::{self, Write as _};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::Mutex;

/// The values of one run.
#[derive(Clone, Debug, PartialEq)]
pub struct RunParams {
    /// Scheduling policy.
    pub policy: Policy,
    /// How cloud jobs share the area.
    pub scheduling: Scheduling,
    /// How many queued jobs hold a reservation.
    pub reservation_depth: ReservationDepth,
    /// How cloud jobs' starts are predicted.
    pub predictor: Predictor,
    /// Convergence area (`None`: the whole machine).
    pub conv: Option<u32>,
    /// Admission mode.
    pub admission: Admission,
    /// With service classes: who the class scheduler evicts for whom
    /// (`replay --eviction`); `None`: the engine's own cloud jobs.
    pub eviction: Option<Eviction>,
    /// Processors of each cloud job.
    pub cloud_procs: ProcsChoice,
    /// Run time of each cloud job.
    pub cloud_runtime: RuntimeSpec,
    /// Slack factor of the SLOs.
    pub slack: f64,
    /// Seed of the cloud jobs' draws.
    pub seed: u64,
}

/// One simulation to carry out: a run of the grid, or a no-cloud baseline.
#[derive(Clone, Debug)]
pub enum Task {
    /// A run with cloud jobs.
    Run(RunParams),
    /// The HPC trace alone, for the makespan delta (the predictor, which
    /// only predicts cloud jobs, makes no difference to it).
    Baseline {
        /// Scheduling policy.
        policy: Policy,
        /// How cloud jobs would share the area.
        scheduling: Scheduling,
        /// How many queued jobs hold a reservation.
        reservation_depth: ReservationDepth,
        /// Convergence area.
        conv: Option<u32>,
    },
}

/// ` depth K` for a bounded reservation depth, nothing when unlimited (so
/// that the cells of sweeps made before depths existed still match).
fn depth_words(depth: ReservationDepth) -> String {
    depth.limit().map_or(String::new(), |k| format!(" depth {k}"))
}

impl fmt::Display for Task {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let conv = |conv: Option<u32>| conv.map_or("machine".to_string(), |conv| conv.to_string());
        match self {
            Task::Baseline {
                policy,
                scheduling,
                reservation_depth,
                conv: area,
            } => write!(
                f,
                "baseline policy {policy} scheduling {scheduling}{} conv {} (no cloud jobs)",
                depth_words(*reservation_depth),
                conv(*area)
            ),
            Task::Run(run) => write!(
                f,
                "policy {} scheduling {}{} predictor {} conv {} admission {}{} cloud-procs {} cloud-runtime {} \
                 slack {} seed {}",
                run.policy,
                run.scheduling,
                depth_words(run.reservation_depth),
                run.predictor,
                conv(run.conv),
                run.admission.name(),
                run.eviction.map_or(String::new(), |e| format!(" eviction {e}")),
                run.cloud_procs,
                run.cloud_runtime,
                run.slack,
                run.seed
            ),
        }
    }
}

/// What a simulation measured (stored as a sweep's finished cell).
#[derive(Clone, Debug, serde::Serialize, serde::Deserialize)]
pub struct Outcome {
    /// The run's summary (of the engine's jobs: HPC work only in a run with
    /// service classes).
    pub summary: Summary,
    /// Processors of its machine.
    pub procs: u32,
    /// Processors of its convergence area.
    pub conv: u32,
    /// What the class scheduler delivered, in a run with service classes.
    pub classes: Option<ClassesOutcome>,
    /// Wall-clock seconds it took.
    pub wall_seconds: f64,
}

impl RunParams {
    /// Would `other` be the same simulation? Under `admit-all` with the
    /// engine's own cloud jobs the predictor decides nothing: every run
    /// answers with every predictor for every cloud job and admits all of
    /// them, so runs that differ only in the predictor are one simulation.
    fn same_simulation(&self, other: &RunParams) -> bool {
        let shareable = |run: &RunParams| run.admission == Admission::AdmitAll && run.eviction.is_none();
        shareable(self)
            && shareable(other)
            && *self
                == RunParams {
                    predictor: self.predictor,
                    ..other.clone()
                }
    }
}

impl Outcome {
    /// This simulation's outcome as the run that configured `predictor`:
    /// the headline prediction quality is that predictor's (the other
    /// numbers do not depend on it, see [`Simulations`]).
    pub fn as_predictor(&self, predictor: Predictor) -> Outcome {
        let mut outcome = self.clone();
        outcome.summary.prediction = self.summary.predictors.of(predictor).clone();
        outcome
    }
}

/// Which of a sweep's tasks are simulated: each task's source is itself, or
/// the first earlier run that is the same simulation under another
/// predictor (`admit-all`, no service classes). Only the tasks that are
/// their own source are simulated (and stored as cells); the others get
/// their source's outcome [`Outcome::as_predictor`] (tested equal to
/// simulating them).
#[derive(Clone, Debug)]
pub struct Simulations {
    source_of: Vec<usize>,
    sources: Vec<usize>,
}

impl Simulations {
    /// Runs that differ only in the predictor share a simulation.
    pub fn shared(tasks: &[Task]) -> Simulations {
        let source_of = tasks
            .iter()
            .enumerate()
            .map(|(index, task)| match task {
                Task::Run(run) => tasks[..index]
                    .iter()
                    .position(|earlier| matches!(earlier, Task::Run(other) if other.same_simulation(run)))
                    .unwrap_or(index),
                Task::Baseline { .. } => index,
            })
            .collect();
        Simulations::from_sources(source_of)
    }

    /// Every task simulated (a sweep that keeps each run's own files).
    pub fn each(tasks: &[Task]) -> Simulations {
        Simulations::from_sources((0..tasks.len()).collect())
    }

    fn from_sources(source_of: Vec<usize>) -> Simulations {
        let sources = (0..source_of.len()).filter(|&i| source_of[i] == i).collect();
        Simulations { source_of, sources }
    }

    /// The tasks simulated, in task order.
    pub fn sources(&self) -> &[usize] {
        &self.sources
    }

    /// The task whose simulation serves task `index`.
    pub fn source_of(&self, index: usize) -> usize {
        self.source_of[index]
    }

    /// Every task's outcome, from `simulated[k]`, the outcome of task
    /// `sources()[k]`.
    pub fn outcomes(&self, tasks: &[Task], simulated: &[Outcome]) -> Vec<Outcome> {
        let mut position = vec![usize::MAX; tasks.len()];
        for (k, &index) in self.sources.iter().enumerate() {
            position[index] = k;
        }
        tasks
            .iter()
            .enumerate()
            .map(|(index, task)| {
                let source = self.source_of[index];
                let outcome = &simulated[position[source]];
                match task {
                    Task::Run(run) if source != index => outcome.as_predictor(run.predictor),
                    _ => outcome.clone(),
                }
            })
            .collect()
    }
}

/// What the class scheduler of a run with service classes delivered: its
/// totals and one report per class (the run's requests are not kept).
#[derive(Clone, Debug, serde::Serialize, serde::Deserialize)]
pub struct ClassesOutcome {
    /// Requests (cloud jobs) scheduled.
    pub requests: usize,
    /// Preemptions, in all.
    pub preemptions: usize,
    /// Of them, because HPC work took the area back.
    pub preemptions_for_capacity: usize,
    /// Penalty of every class, slot-hours.
    pub penalty: f64,
    /// One per class, in the class file's order.
    pub classes: Vec<ClassReport>,
}

impl ClassesOutcome {
    /// The summary of `outcome`.
    pub fn of(outcome: qos::Outcome) -> ClassesOutcome {
        ClassesOutcome {
            requests: outcome.records.len(),
            preemptions: outcome.preemptions.len(),
            preemptions_for_capacity: outcome.preemptions_for_capacity(),
            penalty: outcome.penalty(),
            classes: outcome.classes,
        }
    }
}

/// The lists of a sweep, each non-empty (`convs` holds `None` for the whole machine).
#[derive(Clone, Debug)]
pub struct Grid {
    /// Policies.
    pub policies: Vec<Policy>,
    /// Scheduling modes.
    pub schedulings: Vec<Scheduling>,
    /// Reservation depths.
    pub depths: Vec<ReservationDepth>,
    /// Predictors.
    pub predictors: Vec<Predictor>,
    /// Areas.
    pub convs: Vec<Option<u32>>,
    /// Admission modes.
    pub admissions: Vec<Admission>,
    /// Eviction policies of runs with service classes (`[None]`: none).
    pub evictions: Vec<Option<Eviction>>,
    /// Cloud-job widths.
    pub cloud_procs: Vec<ProcsChoice>,
    /// Cloud-job run times.
    pub runtimes: Vec<RuntimeSpec>,
    /// Slack factors.
    pub slacks: Vec<f64>,
    /// Seeds.
    pub seeds: Vec<u64>,
}

impl Grid {
    /// Every run, in row order.
    pub fn runs(&self) -> Vec<RunParams> {
        let mut runs = Vec::new();
        for (policy, scheduling, reservation_depth) in self.engines() {
            for &predictor in &self.predictors {
                for &conv in &self.convs {
                    for &admission in &self.admissions {
                        for &eviction in &self.evictions {
                            for (cloud_procs, cloud_runtime, slack, seed) in self.cloud_jobs() {
                                runs.push(RunParams {
                                    policy,
                                    scheduling,
                                    reservation_depth,
                                    predictor,
                                    conv,
                                    admission,
                                    eviction,
                                    cloud_procs: cloud_procs.clone(),
                                    cloud_runtime,
                                    slack,
                                    seed,
                                });
                            }
                        }
                    }
                }
            }
        }
        runs
    }

    /// Every (policy, scheduling, reservation depth), in row order: what
    /// decides the HPC plan, with the area.
    fn engines(&self) -> Vec<(Policy, Scheduling, ReservationDepth)> {
        let mut engines = Vec::new();
        for &policy in &self.policies {
            for &scheduling in &self.schedulings {
                for &depth in &self.depths {
                    engines.push((policy, scheduling, depth));
                }
            }
        }
        engines
    }

    /// Every (cloud-job width, run time, slack, seed), in row order.
    fn cloud_jobs(&self) -> Vec<(&ProcsChoice, RuntimeSpec, f64, u64)> {
        let mut jobs = Vec::new();
        for cloud_procs in &self.cloud_procs {
            for &runtime in &self.runtimes {
                for &slack in &self.slacks {
                    for &seed in &self.seeds {
                        jobs.push((cloud_procs, runtime, slack, seed));
                    }
                }
            }
        }
        jobs
    }

    /// The baselines (one per policy, scheduling mode and area) followed by
    /// every run; the number of baselines.
    pub fn tasks(&self) -> (Vec<Task>, usize) {
        let mut tasks: Vec<Task> = Vec::new();
        for (policy, scheduling, reservation_depth) in self.engines() {
            for &conv in &self.convs {
                tasks.push(Task::Baseline {
                    policy,
                    scheduling,
                    reservation_depth,
                    conv,
                });
            }
        }
        let n_baselines = tasks.len();
        tasks.extend(self.runs().into_iter().map(Task::Run));
        (tasks, n_baselines)
    }

    /// The lists as recorded in `sweep.json`.
    pub fn to_json(&self) -> serde_json::Value {
        serde_json::json!({
            "policy": self.policies.iter().map(|policy| policy.name()).collect::<Vec<_>>(),
            "scheduling": self.schedulings.iter().map(|scheduling| scheduling.name()).collect::<Vec<_>>(),
            "reservation_depth": self.depths.iter().map(|&depth| crate::summary_json::depth_json(depth)).collect::<Vec<_>>(),
            "predictor": self.predictors.iter().map(|predictor| predictor.name()).collect::<Vec<_>>(),
            "conv": self.convs,
            "admission": self.admissions.iter().map(|admission| admission.name()).collect::<Vec<_>>(),
            "eviction": self.evictions.iter().map(|e| e.map(Eviction::name)).collect::<Vec<_>>(),
            "cloud_procs": self.cloud_procs.iter().map(ToString::to_string).collect::<Vec<_>>(),
            "cloud_runtime": self.runtimes.iter().map(ToString::to_string).collect::<Vec<_>>(),
            "slack": self.slacks,
            "seed": self.seeds,
        })
    }
}

/// Why a sweep stopped.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum SweepError {
    /// One simulation failed (the first failure; the others were stopped).
    #[error("run {task}")]
    Run {
        /// The task, described.
        task: String,
        /// Why.
        #[source]
        source: Box<dyn std::error::Error + Send + Sync>,
    },
    /// A worker thread could not be started.
    #[error("cannot start a worker thread")]
    Thread(#[source] std::io::Error),
    /// A worker thread panicked.
    #[error("a sweep worker thread panicked")]
    Panicked,
    /// Fewer outcomes than tasks, without an error.
    #[error("the sweep stopped early without an error")]
    StoppedEarly,
}

/// Run every task on `workers` threads; results come back in task order, and
/// `report(finished_before, index, task, outcome)` is called as each one ends. The first
/// error stops the other workers (they finish their current task) and is returned,
/// naming the task.
pub fn run_parallel<E: Into<Box<dyn std::error::Error + Send + Sync>>>(
    tasks: &[Task],
    workers: usize,
    execute: impl Fn(usize, &Task) -> Result<Outcome, E> + Sync,
    report: impl Fn(usize, usize, &Task, &Outcome) + Sync,
) -> Result<Vec<Outcome>, SweepError> {
    let next = AtomicUsize::new(0);
    let finished = AtomicUsize::new(0);
    let failed = AtomicBool::new(false);
    let slots: Mutex<Vec<Option<Result<Outcome, SweepError>>>> =
        Mutex::new((0..tasks.len()).map(|_| None).collect());
    let work = || loop {
        if failed.load(Ordering::SeqCst) {
            return;
        }
        let index = next.fetch_add(1, Ordering::SeqCst);
        let Some(task) = tasks.get(index) else { return };
        let outcome = execute(index, task).map_err(|source| SweepError::Run {
            task: task.to_string(),
            source: source.into(),
        });
        match &outcome {
            Ok(done) => report(finished.fetch_add(1, Ordering::SeqCst), index, task, done),
            Err(_) => failed.store(true, Ordering::SeqCst),
        }
        slots.lock().unwrap_or_else(|poison| poison.into_inner())[index] = Some(outcome);
    };
    std::thread::scope(|scope| -> Result<(), SweepError> {
        let mut handles = Vec::new();
        for worker in 0..workers.min(tasks.len()).max(1) {
            let handle = std::thread::Builder::new()
                .name(format!("sweep-{worker}"))
                .stack_size(16 << 20)
                .spawn_scoped(scope, work)
                .map_err(SweepError::Thread)?;
            handles.push(handle);
        }
        for handle in handles {
            if handle.join().is_err() {
                return Err(SweepError::Panicked);
            }
        }
        Ok(())
    })?;
    let slots = slots.into_inner().unwrap_or_else(|poison| poison.into_inner());
    let mut outcomes = Vec::with_capacity(tasks.len());
    for slot in slots {
        match slot {
            Some(Ok(outcome)) => outcomes.push(outcome),
            Some(Err(err)) => return Err(err),
            None => {}
        }
    }
    if outcomes.len() != tasks.len() {
        return Err(SweepError::StoppedEarly);
    }
    Ok(outcomes)
}

/// One row of `sweep.csv`.
pub struct Row<'a> {
    /// Run number (0-based, in grid order).
    pub index: usize,
    /// Its values.
    pub params: &'a RunParams,
    /// What it measured.
    pub outcome: &'a Outcome,
    /// Its no-cloud baseline.
    pub baseline: &'a Outcome,
}

/// The rows of the runs: `tasks` and `outcomes` as from [`Grid::tasks`] and
/// [`run_parallel`].
pub fn rows<'a>(tasks: &'a [Task], outcomes: &'a [Outcome], n_baselines: usize) -> Vec<Row<'a>> {
    let baseline = |run: &RunParams| {
        tasks[..n_baselines]
            .iter()
            .zip(outcomes)
            .find_map(|(task, outcome)| match task {
                Task::Baseline {
                    policy,
                    scheduling,
                    reservation_depth,
                    conv,
                } if (*policy, *scheduling, *reservation_depth, *conv)
                    == (run.policy, run.scheduling, run.reservation_depth, run.conv) =>
                {
                    Some(outcome)
                }
                _ => None,
            })
    };
    tasks[n_baselines..]
        .iter()
        .zip(&outcomes[n_baselines..])
        .enumerate()
        .filter_map(|(index, (task, outcome))| match task {
            Task::Run(params) => Some(Row {
                index,
                params,
                outcome,
                baseline: baseline(params)?,
            }),
            Task::Baseline { .. } => None,
        })
        .collect()
}

/// The columns of `sweep.csv`.
pub const SWEEP_CSV_HEADER: &str =
    "run,policy,scheduling,reservation_depth,predictor,procs,conv,admission,eviction,cloud_procs,cloud_runtime,slack,seed,\
jobs,cloud_jobs,violations,violation_percent,evictions,rejected,hpc_makespan,hpc_makespan_delta,\
utilization,mean_wait,mean_bounded_slowdown,makespan,hpc_jobs,lost_work,\
tp,fp,fn,tn,precision,recall,accuracy,f1,thesis_accuracy,thesis_precision,brier,\
exact.tp,exact.fp,exact.fn,exact.tn,exact.precision,exact.recall,exact.f1,exact.brier,\
thesis.tp,thesis.fp,thesis.fn,thesis.tn,thesis.precision,thesis.recall,thesis.f1,thesis.brier,\
learned.tp,learned.fp,learned.fn,learned.tn,learned.precision,learned.recall,learned.f1,learned.brier,\
class_requests,preemptions,preemptions_for_capacity,penalty,\
hpc_mean_wait,hpc_mean_wait_delta,hpc_mean_bounded_slowdown,admitted,violation_percent_of_admitted,\
unforeseeable_violations,\
foreseeable.exact.tp,foreseeable.exact.fp,foreseeable.exact.fn,foreseeable.exact.tn,\
foreseeable.exact.precision,foreseeable.exact.recall,foreseeable.exact.f1,foreseeable.exact.brier,\
foreseeable.thesis.tp,foreseeable.thesis.fp,foreseeable.thesis.fn,foreseeable.thesis.tn,\
foreseeable.thesis.precision,foreseeable.thesis.recall,foreseeable.thesis.f1,foreseeable.thesis.brier,\
foreseeable.learned.tp,foreseeable.learned.fp,foreseeable.learned.fn,foreseeable.learned.tn,\
foreseeable.learned.precision,foreseeable.learned.recall,foreseeable.learned.f1,foreseeable.learned.brier,\
wall_seconds";

/// The eight columns of one predictor's quality, `PREFIX.tp` … `PREFIX.brier`.
macro_rules! quality_columns {
    ($prefix:literal) => {
        [
            concat!($prefix, ".tp"),
            concat!($prefix, ".fp"),
            concat!($prefix, ".fn"),
            concat!($prefix, ".tn"),
            concat!($prefix, ".precision"),
            concat!($prefix, ".recall"),
            concat!($prefix, ".f1"),
            concat!($prefix, ".brier"),
        ]
    };
}

/// Each predictor's columns in `sweep.csv`, named as in summary.json's
/// `predictors` (every run scores all three over the same cloud jobs), in
/// the order of `Predictor::ALL`.
const PREDICTOR_COLUMNS: [[&str; 8]; Predictor::ALL.len()] = [
    quality_columns!("exact"),
    quality_columns!("thesis"),
    quality_columns!("learned"),
];

/// The same over the foreseeable cloud jobs (summary.json's
/// `predictors_foreseeable`).
const FORESEEABLE_COLUMNS: [[&str; 8]; Predictor::ALL.len()] = [
    quality_columns!("foreseeable.exact"),
    quality_columns!("foreseeable.thesis"),
    quality_columns!("foreseeable.learned"),
];

/// The columns of `sweep-classes.csv`: one row per run with service classes
/// and class.
pub const CLASSES_CSV_HEADER: &str = "run,eviction,conv,class,slo,requests,completed,availability_mean,\
availability_p10,availability_min,slo_fulfilment,mean_deficit,violations,penalty,preemptions,gini_mean,gini_max";

/// A cell: text, an integer, or a float (`None` or not finite: undefined,
/// empty in CSV and `null` in JSON), a name or a count that may be
/// undefined.
enum Cell {
    Text(String),
    Int(u64),
    Float(Option<f64>),
    Name(Option<&'static str>),
    Count(Option<u64>),
}

impl Row<'_> {
    fn hpc_makespan_delta(&self) -> f64 {
        self.outcome.summary.hpc_makespan - self.baseline.summary.hpc_makespan
    }

    fn cells(&self) -> Vec<(&'static str, Cell)> {
        let summary = &self.outcome.summary;
        let quality = &summary.prediction;
        let classes = self.outcome.classes.as_ref();
        let params = self.params;
        let mut cells = vec![
            ("run", Cell::Int(self.index as u64)),
            ("policy", Cell::Text(params.policy.name().to_string())),
            ("scheduling", Cell::Text(params.scheduling.name().to_string())),
            (
                "reservation_depth",
                Cell::Text(params.reservation_depth.to_string()),
            ),
            ("predictor", Cell::Text(params.predictor.name().to_string())),
            ("procs", Cell::Int(u64::from(self.outcome.procs))),
            ("conv", Cell::Int(u64::from(self.outcome.conv))),
            ("admission", Cell::Text(params.admission.name().to_string())),
            ("eviction", Cell::Name(params.eviction.map(Eviction::name))),
            ("cloud_procs", Cell::Text(params.cloud_procs.to_string())),
            ("cloud_runtime", Cell::Text(params.cloud_runtime.to_string())),
            ("slack", Cell::Float(Some(params.slack))),
            ("seed", Cell::Int(params.seed)),
            ("jobs", Cell::Int(summary.jobs)),
            ("cloud_jobs", Cell::Int(summary.cloud_jobs)),
            ("violations", Cell::Int(summary.violations)),
            ("violation_percent", Cell::Float(summary.violation_percent)),
            ("evictions", Cell::Int(summary.evictions)),
            ("rejected", Cell::Int(summary.rejected)),
            ("hpc_makespan", Cell::Float(Some(summary.hpc_makespan))),
            ("hpc_makespan_delta", Cell::Float(Some(self.hpc_makespan_delta()))),
            ("utilization", Cell::Float(summary.utilization)),
            ("mean_wait", Cell::Float(summary.mean_wait)),
            (
                "mean_bounded_slowdown",
                Cell::Float(summary.mean_bounded_slowdown),
            ),
            ("makespan", Cell::Float(Some(summary.makespan))),
            ("hpc_jobs", Cell::Int(summary.hpc_jobs)),
            ("lost_work", Cell::Float(Some(summary.lost_work))),
            ("tp", Cell::Int(quality.tp)),
            ("fp", Cell::Int(quality.fp)),
            ("fn", Cell::Int(quality.fn_)),
            ("tn", Cell::Int(quality.tn)),
            ("precision", Cell::Float(quality.precision)),
            ("recall", Cell::Float(quality.recall)),
            ("accuracy", Cell::Float(quality.accuracy)),
            ("f1", Cell::Float(quality.f1)),
            ("thesis_accuracy", Cell::Float(quality.thesis_accuracy)),
            ("thesis_precision", Cell::Float(quality.thesis_precision)),
            ("brier", Cell::Float(quality.brier)),
        ];
        quality_cells(&mut cells, &PREDICTOR_COLUMNS, &summary.predictors);
        cells.extend([
            ("class_requests", Cell::Count(classes.map(|c| c.requests as u64))),
            ("preemptions", Cell::Count(classes.map(|c| c.preemptions as u64))),
            (
                "preemptions_for_capacity",
                Cell::Count(classes.map(|c| c.preemptions_for_capacity as u64)),
            ),
            ("penalty", Cell::Float(classes.map(|c| c.penalty))),
            // The HPC jobs alone, and against the run's no-cloud baseline
            // (summary.json's `hpc`); both denominators of the violation rate.
            ("hpc_mean_wait", Cell::Float(summary.hpc_mean_wait)),
            (
                "hpc_mean_wait_delta",
                Cell::Float(
                    summary
                        .hpc_mean_wait
                        .zip(self.baseline.summary.hpc_mean_wait)
                        .map(|(a, b)| a - b),
                ),
            ),
            (
                "hpc_mean_bounded_slowdown",
                Cell::Float(summary.hpc_mean_bounded_slowdown),
            ),
            ("admitted", Cell::Int(summary.admitted())),
            (
                "violation_percent_of_admitted",
                Cell::Float(summary.violation_percent_of_admitted()),
            ),
            (
                "unforeseeable_violations",
                Cell::Int(summary.unforeseeable_violations),
            ),
        ]);
        quality_cells(&mut cells, &FORESEEABLE_COLUMNS, &summary.predictors_foreseeable);
        cells.extend([
            // Last: the one column that differs between two runs of a sweep.
            ("wall_seconds", Cell::Float(Some(self.outcome.wall_seconds))),
        ]);
        cells
    }

    /// One row of cells per class, in a run with service classes.
    fn class_cells(&self) -> Vec<Vec<(&'static str, Cell)>> {
        let Some(classes) = &self.outcome.classes else {
            return Vec::new();
        };
        classes
            .classes
            .iter()
            .map(|c| {
                let availability =
                    |f: fn(&qos::Distribution) -> f64| Cell::Float(c.availability.as_ref().map(f));
                vec![
                    ("run", Cell::Int(self.index as u64)),
                    ("eviction", Cell::Name(self.params.eviction.map(Eviction::name))),
                    ("conv", Cell::Int(u64::from(self.outcome.conv))),
                    ("class", Cell::Text(c.name.clone())),
                    ("slo", Cell::Float(Some(c.slo))),
                    ("requests", Cell::Int(c.requests as u64)),
                    ("completed", Cell::Int(c.completed as u64)),
                    ("availability_mean", availability(|d| d.mean)),
                    ("availability_p10", availability(|d| d.p10)),
                    ("availability_min", availability(|d| d.min)),
                    ("slo_fulfilment", Cell::Float(c.fulfilment)),
                    ("mean_deficit", Cell::Float(c.mean_deficit)),
                    ("violations", Cell::Int(c.violations as u64)),
                    ("penalty", Cell::Float(Some(c.penalty))),
                    ("preemptions", Cell::Int(c.preemptions)),
                    ("gini_mean", Cell::Float(c.gini_mean)),
                    ("gini_max", Cell::Float(c.gini_max)),
                ]
            })
            .collect()
    }
}

/// A CSV field, quoted when it holds a comma or a quote.
fn csv_field(out: &mut String, text: &str) {
    if text.contains([',', '"', '\n']) {
        let _ = write!(out, "\"{}\"", text.replace('"', "\"\""));
    } else {
        out.push_str(text);
    }
}

/// A CSV of `header` and one line per row of cells.
fn csv(header: &str, lines: impl IntoIterator<Item = Vec<(&'static str, Cell)>>) -> String {
    let mut out = String::from(header);
    out.push('\n');
    for cells in lines {
        for (column, (_, cell)) in cells.into_iter().enumerate() {
            if column > 0 {
                out.push(',');
            }
            match cell {
                Cell::Text(text) => csv_field(&mut out, &text),
                Cell::Name(Some(text)) => csv_field(&mut out, text),
                Cell::Int(value) | Cell::Count(Some(value)) => {
                    let _ = write!(out, "{value}");
                }
                Cell::Float(Some(value)) if value.is_finite() => {
                    let _ = write!(out, "{value}");
                }
                Cell::Float(_) | Cell::Name(None) | Cell::Count(None) => {}
            }
        }
        out.push('\n');
    }
    out
}

/// `sweep.csv`: the header and one line per row.
pub fn sweep_csv(rows: &[Row]) -> String {
    csv(SWEEP_CSV_HEADER, rows.iter().map(Row::cells))
}

/// `sweep-classes.csv`: the header and one line per class of each run with
/// service classes.
pub fn classes_csv(rows: &[Row]) -> String {
    csv(CLASSES_CSV_HEADER, rows.iter().flat_map(Row::class_cells))
}

fn json_cell(cell: Cell) -> serde_json::Value {
    match cell {
        Cell::Text(text) => text.into(),
        Cell::Name(Some(text)) => text.into(),
        Cell::Int(value) | Cell::Count(Some(value)) => value.into(),
        Cell::Float(Some(value)) if value.is_finite() => value.into(),
        Cell::Float(_) | Cell::Name(None) | Cell::Count(None) => serde_json::Value::Null,
    }
}

fn cells_json(cells: Vec<(&'static str, Cell)>) -> serde_json::Value {
    serde_json::Value::Object(
        cells
            .into_iter()
            .map(|(name, cell)| (name.to_string(), json_cell(cell)))
            .collect(),
    )
}

/// Append each predictor's eight quality cells under `columns`.
fn quality_cells(
    cells: &mut Vec<(&'static str, Cell)>,
    columns: &[[&'static str; 8]; Predictor::ALL.len()],
    qualities: &PredictorQualities,
) {
    for (columns, predictor) in columns.iter().zip(Predictor::ALL) {
        let quality = qualities.of(predictor);
        let [tp, fp, fn_, tn, precision, recall, f1, brier] = *columns;
        cells.extend([
            (tp, Cell::Int(quality.tp)),
            (fp, Cell::Int(quality.fp)),
            (fn_, Cell::Int(quality.fn_)),
            (tn, Cell::Int(quality.tn)),
            (precision, Cell::Float(quality.precision)),
            (recall, Cell::Float(quality.recall)),
            (f1, Cell::Float(quality.f1)),
            (brier, Cell::Float(quality.brier)),
        ]);
    }
}

/// The `baselines` of `sweep.json`.
pub fn baselines_json(baseline_tasks: &[Task], baselines: &[Outcome]) -> Vec<serde_json::Value> {
    baseline_tasks
        .iter()
        .zip(baselines)
        .map(|(task, outcome)| {
            let (policy, scheduling, depth) = match task {
                Task::Baseline {
                    policy,
                    scheduling,
                    reservation_depth,
                    ..
                }
                | Task::Run(RunParams {
                    policy,
                    scheduling,
                    reservation_depth,
                    ..
                }) => (policy.name(), scheduling.name(), *reservation_depth),
            };
            serde_json::json!({
                "policy": policy,
                "scheduling": scheduling,
                "reservation_depth": crate::summary_json::depth_json(depth),
                "conv": outcome.conv,
                "hpc_jobs": outcome.summary.hpc_jobs,
                "hpc_makespan": json_cell(Cell::Float(Some(outcome.summary.hpc_makespan))),
                "utilization": json_cell(Cell::Float(outcome.summary.utilization)),
                "mean_wait": json_cell(Cell::Float(outcome.summary.mean_wait)),
                "wall_seconds": outcome.wall_seconds,
            })
        })
        .collect()
}

/// The `runs` of `sweep.json`: the rows, one object each; a run with
/// service classes also has `classes`, its rows of `sweep-classes.csv`.
pub fn rows_json(rows: &[Row]) -> Vec<serde_json::Value> {
    rows.iter()
        .map(|row| {
            let mut object = cells_json(row.cells());
            if row.outcome.classes.is_some() {
                let classes = row.class_cells().into_iter().map(cells_json).collect();
                object["classes"] = serde_json::Value::Array(classes);
            }
            object
        })
        .collect()
}

#[cfg(test)]
mod tests;
