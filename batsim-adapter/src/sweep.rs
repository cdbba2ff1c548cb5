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
use interstice_core::{Admission, Policy, Predictor, ReservationDepth, Scheduling, Summary};
use interstice_swf::inject::{ProcsChoice, RuntimeSpec};
use std::fmt;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::Mutex;

mod cells;
use cells::{cells_json, json_cell, Cell};
pub use cells::{classes_csv, sweep_csv, CLASSES_CSV_HEADER, SWEEP_CSV_HEADER};

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
mod tests {
    use super::cells::csv_field;
    use super::*;

    #[test]
    fn csv_fields_with_commas_are_quoted() {
        let mut out = String::new();
        csv_field(&mut out, "1:0.5,2:0.5");
        assert_eq!(out, "\"1:0.5,2:0.5\"");
        out.clear();
        csv_field(&mut out, "0.1w");
        assert_eq!(out, "0.1w");
    }

    /// A grid of one value per list: easy, hpc-first, unlimited depth, the
    /// exact predictor, the whole machine, admit-all, 1-processor cloud
    /// jobs running their walltime, slack 1.5, seed 1.
    fn one_of_each() -> Grid {
        Grid {
            policies: vec![Policy::Easy],
            schedulings: vec![Scheduling::HpcFirst],
            depths: vec![ReservationDepth::Unlimited],
            predictors: vec![Predictor::Exact],
            convs: vec![None],
            admissions: vec![Admission::AdmitAll],
            evictions: vec![None],
            cloud_procs: vec![ProcsChoice::Fixed(1)],
            runtimes: vec![RuntimeSpec::WALLTIME],
            slacks: vec![1.5],
            seeds: vec![1],
        }
    }

    /// A finished run of a 4-processor machine with this HPC makespan.
    fn outcome(makespan: f64) -> Outcome {
        Outcome {
            summary: Summary {
                hpc_makespan: makespan,
                ..Summary::default()
            },
            procs: 4,
            conv: 4,
            classes: None,
            wall_seconds: 0.0,
        }
    }

    #[test]
    fn baselines_come_first_then_runs_in_list_order() {
        let grid = Grid {
            policies: vec![Policy::Easy, Policy::Fcfs],
            convs: vec![None, Some(4)],
            slacks: vec![1.5, 2.0],
            ..one_of_each()
        };
        let (tasks, n_baselines) = grid.tasks();
        assert_eq!((tasks.len(), n_baselines), (12, 4));
        assert_eq!(
            tasks[4].to_string(),
            "policy easy scheduling hpc-first predictor exact conv machine admission admit-all cloud-procs 1 \
             cloud-runtime 1w slack 1.5 seed 1"
        );
    }

    #[test]
    fn each_reservation_depth_has_its_baseline_and_a_bounded_one_is_named() {
        let depth: ReservationDepth = "10".parse().unwrap();
        let grid = Grid {
            policies: vec![Policy::Conservative],
            depths: vec![depth, ReservationDepth::Unlimited],
            ..one_of_each()
        };
        let (tasks, n_baselines) = grid.tasks();
        assert_eq!((tasks.len(), n_baselines), (4, 2));
        assert_eq!(
            tasks[0].to_string(),
            "baseline policy conservative scheduling hpc-first depth 10 conv machine (no cloud jobs)"
        );
        assert_eq!(
            tasks[3].to_string(),
            "policy conservative scheduling hpc-first predictor exact conv machine admission admit-all \
             cloud-procs 1 cloud-runtime 1w slack 1.5 seed 1"
        );
        let outcomes: Vec<Outcome> = [10.0, 20.0, 15.0, 25.0].into_iter().map(outcome).collect();
        let rows = rows(&tasks, &outcomes, n_baselines);
        let deltas: Vec<f64> = rows.iter().map(Row::hpc_makespan_delta).collect();
        assert_eq!(
            deltas,
            [5.0, 5.0],
            "each run against the baseline of its own depth"
        );
        let csv: Vec<String> = rows
            .iter()
            .map(|row| row.params.reservation_depth.to_string())
            .collect();
        assert_eq!(csv, ["10", "unlimited"]);
    }

    #[test]
    fn scheduling_and_predictor_are_lists_next_to_the_policy() {
        let grid = Grid {
            schedulings: vec![Scheduling::HpcFirst, Scheduling::SharedQueue],
            predictors: vec![Predictor::Exact, Predictor::Thesis],
            seeds: vec![1, 2],
            ..one_of_each()
        };
        let (tasks, n_baselines) = grid.tasks();
        assert_eq!(
            (tasks.len(), n_baselines),
            (2 + 2 * 2 * 2, 2),
            "a baseline per scheduling mode"
        );
        let runs: Vec<(Scheduling, Predictor, u64)> = grid
            .runs()
            .iter()
            .map(|run| (run.scheduling, run.predictor, run.seed))
            .collect();
        assert_eq!(runs[0], (Scheduling::HpcFirst, Predictor::Exact, 1));
        assert_eq!(runs[3], (Scheduling::HpcFirst, Predictor::Thesis, 2));
        assert_eq!(runs[4], (Scheduling::SharedQueue, Predictor::Exact, 1));
        let outcomes: Vec<Outcome> = [10.0, 20.0]
            .into_iter()
            .chain(std::iter::repeat(25.0).take(8))
            .map(outcome)
            .collect();
        let rows = rows(&tasks, &outcomes, n_baselines);
        let deltas: Vec<f64> = rows.iter().map(Row::hpc_makespan_delta).collect();
        assert_eq!(
            deltas,
            [15.0, 15.0, 15.0, 15.0, 5.0, 5.0, 5.0, 5.0],
            "each against its own mode's baseline"
        );
        let names: Vec<&str> = rows[0].cells().into_iter().map(|(name, _)| name).collect();
        assert_eq!(
            names.join(","),
            SWEEP_CSV_HEADER,
            "the header names every cell, in order"
        );
        let csv = sweep_csv(&rows);
        let mut lines = csv.lines();
        assert!(lines
            .next()
            .unwrap()
            .starts_with("run,policy,scheduling,reservation_depth,predictor,procs,conv,admission,"));
        assert!(lines
            .nth(4)
            .unwrap()
            .starts_with("4,easy,shared-queue,unlimited,exact,4,4,admit-all,"));
        let json = rows_json(&rows);
        assert_eq!(
            (&json[7]["scheduling"], &json[7]["predictor"]),
            (&"shared-queue".into(), &"thesis".into())
        );
        assert_eq!(
            baselines_json(&tasks[..n_baselines], &outcomes[..n_baselines])[1]["scheduling"],
            "shared-queue"
        );
    }
}
