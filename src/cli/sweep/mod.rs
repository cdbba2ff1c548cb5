//! `interstice sweep`: many `interstice replay` runs over the cartesian
//! product of lists of parameters (policy, scheduling mode, reservation depth, predictor, area,
//! admission, cloud-job width, run time, slack, seed), in parallel, into one
//! `sweep.csv` + `sweep.json`.
//!
//! Every run is exactly a `replay` with those values: the trace is loaded,
//! cut and clipped by [`interstice_swf::load_trace`], cloud jobs are injected
//! by [`interstice_swf::arrivals`] and the engine config comes from the
//! same [`EngineArgs`]; the grid, the parallel runner and the rows are
//! [`interstice_batsim::sweep`]'s. Once per (policy, scheduling mode, reservation depth, area) the HPC trace is
//! also replayed without any cloud job, so each row carries `hpc_makespan_delta`, the change
//! of the HPC makespan that the cloud jobs caused. The scalar engine knobs (λ, τ, the thesis
//! predictor's r and β, maintenance windows, resubmissions) and α are the same for every run.
//!
//! Rows come in the order of the lists (policy, then scheduling, reservation depth, predictor, conv,
//! admission, eviction, cloud-procs, cloud-runtime, slack, seed), whatever the thread
//! scheduling; only `wall_seconds` differs between two identical sweeps.
//!
//! With `--eviction`/`--qos` every run is a `replay --eviction` (the cloud jobs scheduled
//! with service classes, [`super::qos::area_inputs`] and `sim::area_qos`): each row also
//! has the class scheduler's totals, and `sweep-classes.csv` one row per run and class.

mod cells;
mod inputs;
mod slurm;

pub use cells::OtherSweep;

use super::engine_args::{
    parse_admission, parse_alpha, parse_depth, parse_factor, parse_policy, parse_predictor,
    parse_procs_choice, parse_runtime, parse_scheduling, parse_seconds, BadValue, TuningArgs,
};
use super::experiment_args::TraceArgs;
use super::flags::Usage;
use anyhow::{bail, Context};
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use interstice_batsim::sweep::{self, run_parallel, Grid, Outcome, Row, Task};
use interstice_core::{Shown, WFuture};
use interstice_swf::defaults;
use interstice_swf::qos::parse_eviction;
use interstice_swf::ClipTarget;
use std::io::IsTerminal;
use std::path::PathBuf;
use std::time::Instant;

/// The name of the table of runs inside the output directory.
pub const SWEEP_CSV: &str = "sweep.csv";
/// The name of the JSON twin of `sweep.csv` (plus the sweep's settings and baselines).
pub const SWEEP_JSON: &str = "sweep.json";
/// The name of the per-class table of a sweep with service classes.
pub const SWEEP_CLASSES_CSV: &str = "sweep-classes.csv";

/// Run `interstice replay` over the cartesian product of lists of parameters.
#[derive(clap::Args, Debug)]
#[command(
    after_help = "LISTS: every list option may be repeated, and `;` separates values inside one \
    occurrence (quote it in a shell). A comma also separates values, except in --cloud-procs, where a \
    comma keeps its replay meaning: `--cloud-procs 1,2,4` is ONE experiment whose cloud jobs draw 1, 2 \
    or 4 processors, while `--cloud-procs '1;2;4'` (or --cloud-procs 1 --cloud-procs 2 --cloud-procs 4) \
    is three experiments, the thesis's fixed h ∈ {1, 2, 4}.\n\n\
    Rows of sweep.csv follow the lists' order (policy, scheduling, reservation depth, predictor, conv, admission, eviction, \
    cloud-procs, cloud-runtime, slack, seed), whatever --jobs; only wall_seconds changes between identical \
    sweeps. hpc_makespan_delta is the run's HPC makespan minus that of the same trace, policy, scheduling \
    mode, reservation depth and area without cloud jobs.\n\n\
    With --eviction/--qos every run schedules its cloud jobs with service classes (as `replay --eviction`): \
    sweep.csv's class_requests, preemptions, preemptions_for_capacity and penalty are the class scheduler's \
    (its cloud_jobs and violation columns count the engine's cloud jobs: none), and sweep-classes.csv has one \
    row per run and class (availability, SLO fulfilment, deficit, penalty, Gini).\n\n\
    An interrupted sweep resumes: the same command again runs only the cells not finished (DIR/cells/). \
    On a cluster, --slurm-array writes DIR/slurm/sweep.sbatch (one array task per cell); after the \
    array, `interstice sweep collect DIR` writes the tables. --grid FILE reads the options from YAML \
    (examples/thesis-grid.yaml).\n\n\
    Example: interstice sweep KTH-SP2.swf.gz --procs 100 --policy convergence --conv 10,20,40 \
    --cloud-interval 10 --cloud-procs '1;2;4' --slack 1.25,2,5 --cloud-runtime 'walltime;0.1w' --clip \
    --until 2592000 --out results/"
)]
#[command(group(clap::ArgGroup::new("input").required(true).args(["workload"])))]
pub struct SweepArgs {
    /// The HPC trace, the same for every run.
    #[command(flatten)]
    pub trace: TraceArgs,
    /// Scheduling policies (list): fcfs, easy, conservative, convergence, cars (shared-queue only).
    #[arg(long, value_name = "P[,P…]", required = true)]
    pub policy: Vec<String>,
    /// How cloud jobs share the area (list): hpc-first, shared-queue (see `replay --scheduling`).
    #[arg(long, value_name = "S[,S…]", default_values_t = [defaults::scheduling().name().to_string()])]
    pub scheduling: Vec<String>,
    /// How many queued jobs hold a reservation (list): counts or `unlimited` (see `replay
    /// --reservation-depth`; a bounded depth applies to conservative and hpc-first convergence).
    #[arg(long, value_name = "K[,K…]", default_values_t = ["unlimited".to_string()])]
    pub reservation_depth: Vec<String>,
    /// Start predictors (list): exact, thesis (see `replay --predictor`).
    #[arg(long, value_name = "P[,P…]", default_values_t = [defaults::predictor().name().to_string()])]
    pub predictor: Vec<String>,
    /// Sizes of the convergence area (list; default: the whole machine).
    #[arg(long, value_name = "C[,C…]")]
    pub conv: Vec<String>,
    /// Machine sizes (list), the thesis's m = m_conv: each M is one experiment on a machine of M
    /// processors that is all convergence area, HPC jobs wider than M clipped to it (instead of
    /// --procs, --conv and --clip). In a --grid file: `conv: machine` with `procs: [M, …]`.
    #[arg(long, value_name = "M[,M…]", conflicts_with_all = ["procs", "conv", "clip"])]
    pub machine: Vec<String>,
    /// Read the lists and settings from a YAML grid file: its keys are this command's options in
    /// snake_case (`policy`, `conv`, `cloud_procs`, `slack`, `until`, …), each a value or a list
    /// (see `examples/thesis-grid.yaml`); the command line gives the workload, --out, --jobs and
    /// the flags the file does not.
    #[arg(long, value_name = "FILE")]
    pub grid: Option<PathBuf>,
    /// Admission modes (list): admit-all, reject-predicted.
    #[arg(long, value_name = "A[,A…]", default_values_t = [defaults::admission().name().to_string()])]
    pub admission: Vec<String>,
    /// Schedule the cloud jobs with service classes, evicting by each of these policies (list):
    /// priority, qos-driven, owner-share (see `replay --eviction`; default with --qos: the file's).
    #[arg(long, value_name = "E[,E…]")]
    pub eviction: Vec<String>,
    /// The classes and tenants of the cloud jobs (YAML, see `replay --qos`; default with
    /// --eviction: the seeds' gold, silver, bronze drawn equally), the same for every run.
    #[arg(long, value_name = "FILE")]
    pub qos: Option<PathBuf>,
    /// Inject one cloud job every S seconds over the HPC trace's span.
    #[arg(long, value_name = "S", value_parser = parse_seconds)]
    pub cloud_interval: f64,
    /// Processors of each cloud job, one experiment per `;`-separated value or per occurrence
    /// (a value is `4`, a uniform mixture `1,2,4` or weights `1:0.5,2:0.5`).
    #[arg(long, value_name = "H[;H…]", default_value = defaults::CLOUD_PROCS)]
    pub cloud_procs: Vec<String>,
    /// Walltime of each cloud job, seconds.
    #[arg(long, value_name = "W", value_parser = parse_seconds, default_value_t = defaults::CLOUD_WALLTIME_SECS)]
    pub cloud_walltime: f64,
    /// Actual run times of the cloud jobs (list): `walltime`, seconds, `0.1w`,
    /// `uniform:LO:HI`, `exp:MEAN` (see `replay --cloud-runtime`).
    #[arg(long, value_name = "R[;R…]", default_value = defaults::CLOUD_RUNTIME)]
    pub cloud_runtime: Vec<String>,
    /// Slack factors f (list): each cloud job's SLO is f × --cloud-walltime (before --alpha).
    #[arg(long, value_name = "F[,F…]", default_values_t = [defaults::SLACK.to_string()])]
    pub slack: Vec<String>,
    /// Walltime reconciliation factor α of every cloud job: its walltime is α × --cloud-walltime,
    /// its SLO and run time follow --cloud-walltime (see `replay --alpha`).
    #[arg(long, value_name = "F", value_parser = parse_alpha, default_value_t = defaults::ALPHA)]
    pub alpha: f64,
    /// Seeds of the cloud jobs' random draws (list).
    #[arg(long, value_name = "N[,N…]", default_values_t = [defaults::SEED.to_string()])]
    pub seed: Vec<String>,
    /// λ, τ, the thesis predictor's r and β, maintenance and the resubmission bounds, the same for
    /// every run.
    #[command(flatten)]
    pub tuning: TuningArgs,
    /// Worker threads (default: the available cores).
    #[arg(long, value_name = "N")]
    pub jobs: Option<usize>,
    /// Also keep every run's jobs.csv and summary.json, in DIR/runs/run-NNNN/.
    #[arg(long)]
    pub keep_runs: bool,
    /// With --keep-runs: keep only each run's summary.json, no per-job jobs.csv.
    #[arg(long, requires = "keep_runs")]
    pub no_jobs_csv: bool,
    /// Output directory (sweep.csv, sweep.json, cells/, runs/): new or empty, or the directory of
    /// an interrupted sweep of the same settings, which resumes (its finished cells, in DIR/cells/,
    /// are not run again; the tables equal those of an uninterrupted sweep).
    #[arg(long, value_name = "DIR")]
    pub out: PathBuf,
    /// Write into a non-empty --out DIR: discard its cells (start the sweep over) and overwrite the
    /// files of the same names (without it a DIR of other files or another sweep's cells is refused).
    #[arg(long)]
    pub force: bool,
    /// Run only simulation N (0-based: the no-cloud baselines first, then the runs in the grid's
    /// order) into DIR/cells/, and write no table: what each task of --slurm-array runs.
    #[arg(long, value_name = "N", conflicts_with = "slurm_array")]
    pub cell: Option<usize>,
    /// Run nothing: write DIR/slurm/sweep.sbatch, a Slurm job array with one task per simulation
    /// (each `--cell $SLURM_ARRAY_TASK_ID`), and DIR/slurm/cells.tsv (what each task runs). Submit it
    /// with `sbatch [OPTIONS] DIR/slurm/sweep.sbatch`, then `interstice sweep collect DIR` writes
    /// the tables.
    #[arg(long)]
    pub slurm_array: bool,
    /// No progress lines on stderr and no summary on stdout.
    #[arg(long)]
    pub quiet: bool,
}

/// The lists of `args`, defaults filled in.
fn parse_grid(args: &SweepArgs) -> anyhow::Result<Grid> {
    let positive_count = crate::cli::engine_args::parse_count;
    let seed = |text: &str| text.parse::<u64>().map_err(|_| BadValue::Seed(text.to_string()));
    let convs = if args.machine.is_empty() {
        parse_list("--conv", &args.conv, true, positive_count)?
    } else {
        parse_list("--machine", &args.machine, true, positive_count)?
    };
    Ok(Grid {
        policies: parse_list("--policy", &args.policy, true, parse_policy)?,
        schedulings: parse_list("--scheduling", &args.scheduling, true, parse_scheduling)?,
        depths: parse_list("--reservation-depth", &args.reservation_depth, true, parse_depth)?,
        predictors: parse_list("--predictor", &args.predictor, true, parse_predictor)?,
        convs: if convs.is_empty() {
            vec![None]
        } else {
            convs.into_iter().map(Some).collect()
        },
        admissions: parse_list("--admission", &args.admission, true, parse_admission)?,
        evictions: {
            let evictions = parse_list("--eviction", &args.eviction, true, parse_eviction)?;
            if evictions.is_empty() {
                vec![None]
            } else {
                evictions.into_iter().map(Some).collect()
            }
        },
        cloud_procs: parse_list("--cloud-procs", &args.cloud_procs, false, parse_procs_choice)?,
        runtimes: parse_list("--cloud-runtime", &args.cloud_runtime, true, parse_runtime)?,
        slacks: parse_list("--slack", &args.slack, true, parse_factor)?,
        seeds: parse_list("--seed", &args.seed, true, seed)?,
    })
}

/// Split every occurrence of `flag` on `;` (and on `,` when `comma_separates`), parse each
/// item, and refuse empty items and duplicates.
fn parse_list<T: PartialEq, E: std::fmt::Display>(
    flag: &str,
    occurrences: &[String],
    comma_separates: bool,
    parse: impl Fn(&str) -> Result<T, E>,
) -> anyhow::Result<Vec<T>> {
    let mut values: Vec<T> = Vec::new();
    let mut texts: Vec<String> = Vec::new();
    for occurrence in occurrences {
        let items: Vec<&str> = if comma_separates {
            occurrence.split([';', ',']).collect()
        } else {
            occurrence.split(';').collect()
        };
        for item in items {
            let item = item.trim();
            if item.is_empty() {
                return Err(Usage(format!(
                    "{flag} {occurrence:?} has an empty item: separate values with a single `;`"
                ))
                .into());
            }
            let value = parse(item).map_err(|why| Usage(format!("{flag} {occurrence:?}: {why}")))?;
            if let Some(index) = values.iter().position(|seen| *seen == value) {
                return Err(Usage(format!(
                    "{flag} lists the same value twice ({:?} and {item:?}): each value is one experiment",
                    texts[index]
                ))
                .into());
            }
            values.push(value);
            texts.push(item.to_string());
        }
    }
    Ok(values)
}

/// What a sweep invocation does with the grid's simulations.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Mode {
    /// Run the simulations not finished yet, then write the tables.
    Sweep,
    /// Run one simulation (a Slurm array task), no table.
    Cell(usize),
    /// Write the Slurm job array, run nothing.
    SlurmArray,
    /// Every simulation is finished (by the array): write the tables.
    Collect,
}

/// Run `interstice sweep` as typed.
pub fn run(args: SweepArgs) -> anyhow::Result<()> {
    let mode = match (args.cell, args.slurm_array) {
        (Some(cell), _) => Mode::Cell(cell),
        (None, true) => Mode::SlurmArray,
        (None, false) => Mode::Sweep,
    };
    let argv = std::env::args_os()
        .map(|arg| {
            arg.into_string().map_err(|arg| {
                anyhow::anyhow!("argument {arg:?} is not UTF-8: a sweep stores its command line")
            })
        })
        .collect::<anyhow::Result<Vec<String>>>()?;
    sweep(args, argv, mode)
}

/// `interstice sweep collect DIR`: write the tables of a sweep run as a Slurm
/// array (`--slurm-array`) once every cell has finished.
#[derive(clap::Parser, Debug)]
#[command(name = "interstice sweep collect", bin_name = "interstice sweep collect")]
pub struct CollectArgs {
    /// The sweep's --out directory.
    pub dir: PathBuf,
}

/// `argv`'s `interstice sweep collect …`, parsed (clap's usual exit on
/// `--help` or a bad argument); `None` for any other command line. (Not a
/// clap subcommand of `sweep`, whose required options it does not take.)
pub fn collect_command(argv: &[std::ffi::OsString]) -> Option<CollectArgs> {
    let is = |index: usize, word: &str| argv.get(index).is_some_and(|arg| arg == word);
    (is(1, "sweep") && is(2, "collect")).then(|| <CollectArgs as clap::Parser>::parse_from(&argv[2..]))
}

/// The tables of a sweep whose cells are all finished, from the command
/// line stored with them.
pub fn collect(args: CollectArgs) -> anyhow::Result<()> {
    // The directory as given: the tables go there, wherever it was moved.
    let dir = std::fs::canonicalize(&args.dir).with_context(|| {
        super::exit::Unreadable(format!(
            "cannot find {} (a sweep's --out directory)",
            args.dir.display()
        ))
    })?;
    let (_, settings) = cells::Cells::existing(&dir)?;
    // The stored command line's paths are relative to where it was typed.
    std::env::set_current_dir(&settings.cwd).with_context(|| {
        format!(
            "cannot enter {}, where the sweep was started",
            settings.cwd.display()
        )
    })?;
    let argv = super::grid::expand(settings.argv.iter().map(Into::into).collect())?;
    let command = <SweepArgs as clap::Args>::augment_args(clap::Command::new("sweep"));
    let matches = command
        .try_get_matches_from(argv.iter().skip(1))
        .with_context(|| format!("cannot read the command line stored in {}", dir.display()))?;
    let mut args = <SweepArgs as clap::FromArgMatches>::from_arg_matches(&matches)?;
    args.out = dir;
    args.quiet = false;
    let argv = settings.argv.clone();
    sweep(args, argv, Mode::Collect)
}

/// A sweep in `mode`; `argv` is the command line that asked for it.
fn sweep(args: SweepArgs, argv: Vec<String>, mode: Mode) -> anyhow::Result<()> {
    let started = Instant::now();
    let mut grid = parse_grid(&args)?;
    let workers = workers(&args)?;
    let inputs = inputs::Inputs::load(&args, &mut grid)?;
    let (tasks, n_baselines) = grid.tasks();
    if let Mode::Cell(cell) = mode {
        check_cell(cell, tasks.len())?;
    }
    let settings = cells::Settings::new(settings_json(&args, &grid), argv)?;
    let cells = open_cells(&args, mode, &settings)?;
    // Runs that differ only in the predictor under admit-all are one
    // simulation (sweep::Simulations); --keep-runs writes each run's
    // own files, so it simulates every run.
    let simulations = if args.keep_runs {
        sweep::Simulations::each(&tasks)
    } else {
        sweep::Simulations::shared(&tasks)
    };
    let sources = simulations.sources();
    // The simulations an earlier (interrupted) sweep or the array's tasks finished.
    let mut finished: Vec<Option<Outcome>> = vec![None; tasks.len()];
    for &index in sources {
        finished[index] = cells.load(index, &tasks[index])?;
    }
    let missing: Vec<usize> = sources
        .iter()
        .copied()
        .filter(|&i| finished[i].is_none())
        .collect();
    match mode {
        Mode::SlurmArray => return slurm::write_array(&args.out, &settings, &tasks, &missing, args.quiet),
        Mode::Collect => {
            if let Some(first) = missing.first() {
                return Err(super::exit::NotFinished(format!(
                    "{} of the {} cells have not finished (the first is {first}, {}): wait for the \
                     array's tasks, or run the missing ones with --cell N",
                    missing.len(),
                    tasks.len(),
                    tasks[*first]
                ))
                .into());
            }
        }
        Mode::Sweep | Mode::Cell(_) => {}
    }
    if args.keep_runs {
        std::fs::create_dir_all(args.out.join("runs"))
            .with_context(|| format!("cannot create {}", args.out.join("runs").display()))?;
    }

    // A finished cell is read back, any other simulated and stored.
    let simulate = |index: usize, task: &Task| -> anyhow::Result<Outcome> {
        if let Some(outcome) = &finished[index] {
            return Ok(outcome.clone());
        }
        let outcome = inputs.execute(index, task, n_baselines)?;
        cells.save(index, task, &outcome)?;
        Ok(outcome)
    };
    if let Mode::Cell(cell) = mode {
        let cell = simulations.source_of(cell);
        let outcome =
            simulate(cell, &tasks[cell]).with_context(|| format!("cell {cell}: {}", tasks[cell]))?;
        if !args.quiet {
            outln!(
                "cell {cell} of {}: {}",
                tasks.len(),
                describe(&tasks[cell], &outcome)
            )?;
        }
        return Ok(());
    }
    let read_back = sources.len() - missing.len();
    // The bar counts what is left to simulate, so its ETA is of that.
    let progress = Progress::new(args.quiet, sources.len(), read_back);
    let source_tasks: Vec<Task> = sources.iter().map(|&i| tasks[i].clone()).collect();
    let simulated = run_parallel(
        &source_tasks,
        workers,
        |k, task| simulate(sources[k], task),
        |done, k, task, outcome| {
            if finished[sources[k]].is_none() {
                progress.finished(done, task, outcome);
            }
        },
    );
    progress.bar.finish_and_clear();
    let outcomes = simulations.outcomes(&tasks, &simulated?);

    let done = Done {
        workers,
        started,
        shared: tasks.len() - sources.len(),
        read_back,
    };
    write_tables(&args, &grid, &tasks, &outcomes, n_baselines, &done)
}

/// The simulations run at once: `--jobs`, or one per processor.
fn workers(args: &SweepArgs) -> anyhow::Result<usize> {
    Ok(match args.jobs {
        Some(0) => bail!("--jobs must be at least 1"),
        Some(n) => n,
        None => std::thread::available_parallelism().map_or(1, |n| n.get()),
    })
}

/// `--cell CELL` names one of the sweep's `simulations`, or is a usage error.
fn check_cell(cell: usize, simulations: usize) -> anyhow::Result<()> {
    if cell >= simulations {
        return Err(super::flags::Usage(format!(
            "--cell {cell}: the sweep has {simulations} simulations, numbered 0 to {}",
            simulations - 1
        ))
        .into());
    }
    Ok(())
}

/// The sweep's stored cells: `collect` reads those there (of the stored
/// settings, which must be `settings`: the grid file may have changed since);
/// the other modes open the directory for these settings.
fn open_cells(args: &SweepArgs, mode: Mode, settings: &cells::Settings) -> anyhow::Result<cells::Cells> {
    Ok(match mode {
        Mode::Collect => {
            let (cells, stored) = cells::Cells::existing(&args.out)?;
            cells::check_same(&args.out, &stored, settings)?;
            cells
        }
        _ => cells::Cells::open(&args.out, settings, args.force)?,
    })
}

/// How a sweep ran, for `sweep.json` and its last line.
struct Done {
    workers: usize,
    started: Instant,
    /// Runs that shared another predictor's simulation.
    shared: usize,
    /// Simulations finished by an earlier (interrupted) sweep or the array's tasks.
    read_back: usize,
}

/// Write `sweep.csv`, `sweep-classes.csv` (runs with service classes) and
/// `sweep.json` from every task's outcome, and say so.
fn write_tables(
    args: &SweepArgs,
    grid: &Grid,
    tasks: &[Task],
    outcomes: &[Outcome],
    n_baselines: usize,
    done: &Done,
) -> anyhow::Result<()> {
    let rows = sweep::rows(tasks, outcomes, n_baselines);

    std::fs::create_dir_all(&args.out).with_context(|| format!("cannot create {}", args.out.display()))?;
    let csv_path = args.out.join(SWEEP_CSV);
    std::fs::write(&csv_path, sweep::sweep_csv(&rows))
        .with_context(|| format!("cannot write {}", csv_path.display()))?;
    let classes_path = args.out.join(SWEEP_CLASSES_CSV);
    if grid.evictions.iter().any(Option::is_some) {
        std::fs::write(&classes_path, sweep::classes_csv(&rows))
            .with_context(|| format!("cannot write {}", classes_path.display()))?;
    } else if classes_path.exists() {
        // A --force sweep leaves no table of an earlier sweep beside its own.
        std::fs::remove_file(&classes_path)
            .with_context(|| format!("cannot remove the stale {}", classes_path.display()))?;
    }
    let workers = done.workers;
    let total = done.started.elapsed().as_secs_f64();
    let json = sweep_json(
        args,
        grid,
        &tasks[..n_baselines],
        &outcomes[..n_baselines],
        &rows,
        workers,
        total,
    );
    let json_path = args.out.join(SWEEP_JSON);
    let mut text = serde_json::to_string_pretty(&json).context("cannot serialize the sweep")?;
    text.push('\n');
    std::fs::write(&json_path, text).with_context(|| format!("cannot write {}", json_path.display()))?;
    if !args.quiet {
        outln!(
            "swept {} runs (+{} no-cloud baselines{}{}) on {workers} threads in {total:.1} s: wrote {} and {}",
            rows.len(),
            n_baselines,
            match done.shared {
                0 => String::new(),
                n => format!("; {n} runs shared a simulation with another predictor's"),
            },
            match done.read_back {
                0 => String::new(),
                n => format!("; {n} finished cells read back"),
            },
            csv_path.display(),
            json_path.display()
        )?;
    }
    Ok(())
}

/// How a sweep shows its progress on stderr: a bar with the ETA on a
/// terminal, else a line at every tenth of the simulations and at least
/// every [`LINE_EVERY`] (logs of batch jobs: a 900-cell grid writes about
/// ten lines, not 900).
struct Progress {
    bar: ProgressBar,
    lines: bool,
    total: usize,
    started: Instant,
    /// When the last line was written.
    last_line: std::sync::Mutex<Instant>,
}

/// The longest a sweep logs nothing while simulations finish.
const LINE_EVERY: std::time::Duration = std::time::Duration::from_secs(30);

impl Progress {
    /// A sweep of `total` simulations, `read_back` of them finished earlier.
    fn new(quiet: bool, total: usize, read_back: usize) -> Progress {
        let terminal = !quiet && std::io::stderr().is_terminal();
        let bar = if terminal {
            let left = total.saturating_sub(read_back) as u64;
            let bar = ProgressBar::with_draw_target(Some(left), ProgressDrawTarget::stderr());
            if let Ok(style) = ProgressStyle::with_template(
                "{elapsed_precise} [{bar:30}] {pos}/{len} simulations, ETA {eta} {msg}",
            ) {
                bar.set_style(style.progress_chars("=> "));
            }
            bar
        } else {
            ProgressBar::hidden()
        };
        Progress {
            bar,
            lines: !quiet && !terminal,
            total,
            started: Instant::now(),
            last_line: std::sync::Mutex::new(Instant::now()),
        }
    }

    /// The `finished`-th simulation (0-based, cells read back included) is done.
    fn finished(&self, finished: usize, task: &Task, outcome: &Outcome) {
        self.bar.inc(1);
        if !self.lines {
            return;
        }
        let done = finished + 1;
        let tenth = |n: usize| n * 10 / self.total.max(1);
        let mut last = self.last_line.lock().unwrap_or_else(|p| p.into_inner());
        if tenth(done) == tenth(finished) && last.elapsed() < LINE_EVERY && done != self.total {
            return;
        }
        *last = Instant::now();
        eprintln!(
            "[{done}/{}] {:.0} s: last {task}: {}, {:.2} s",
            self.total,
            self.started.elapsed().as_secs_f64(),
            describe(task, outcome),
            outcome.wall_seconds
        );
    }
}

/// What a simulation measured, in a few words.
fn describe(task: &Task, outcome: &Outcome) -> String {
    {
        match &outcome.summary {
            summary if matches!(task, Task::Baseline { .. }) => {
                format!("HPC makespan {:.0} s", summary.hpc_makespan)
            }
            _ if outcome.classes.is_some() => {
                let classes = outcome.classes.as_ref();
                format!(
                    "penalty {:.3} slot-hours, {} preemptions",
                    classes.map_or(0.0, |c| c.penalty),
                    classes.map_or(0, |c| c.preemptions),
                )
            }
            summary => format!(
                "{:.4} % violations, {} evictions",
                Shown(summary.violation_percent),
                summary.evictions,
            ),
        }
    }
}

/// What a sweep is: every setting that changes a result (the build, the
/// grid, the trace, the cloud jobs and the engine's knobs), as in `sweep.json`. Two
/// sweeps of equal settings have equal results; resuming checks it.
fn settings_json(args: &SweepArgs, grid: &Grid) -> serde_json::Value {
    let mut settings = serde_json::json!({
        // Another build may decide otherwise: its cells are not this one's.
        "interstice": format!("{} ({})", env!("CARGO_PKG_VERSION"), interstice_daemon::metrics::REVISION),
        "workload": args.trace.workload.as_deref().map(|w| w.display().to_string()),
        "procs": args.trace.procs,
        "machine": !args.machine.is_empty(),
        "from": args.trace.from,
        "until": args.trace.until,
        "repeat": args.trace.repeat,
        "clip": args.trace.clip.map(ClipTarget::name),
        "walltime_factor": args.trace.walltime_factor,
        "cloud_interval": args.cloud_interval,
        "cloud_walltime": args.cloud_walltime,
        "alpha": args.alpha,
        "lambda": args.tuning.lambda,
        "tau": args.tuning.tau,
        "latency": args.tuning.latency,
        "beta": args.tuning.beta.map(interstice_swf::beta::beta_json),
        "w_future": args.tuning.w_future.map(WFuture::name),
        "maintenance": args.tuning.maintenance.as_ref().map(|path| path.display().to_string()),
        "max_resubmissions": args.tuning.max_resubmissions,
        "max_time_in_system": args.tuning.max_time_in_system,
        "qos": args.qos.as_ref().map(|path| path.display().to_string()),
        "lenient": args.trace.lenient,
        "grid": grid.to_json(),
    });
    // Only when given, so that the settings of a sweep without them (and
    // the cells it left to resume) stay what they were.
    let tuning = &args.tuning;
    let given = [
        (
            "candidate_max_walltime",
            tuning.candidate_max_walltime.map(|t| t.as_secs_f64().into()),
        ),
        ("candidate_max_width", tuning.candidate_max_width.map(Into::into)),
        ("candidate_min_slack", tuning.candidate_min_slack.map(Into::into)),
        (
            "regulate",
            tuning
                .regulate
                .map(|r| serde_json::json!({"window": r.window.as_secs_f64(), "threshold": r.threshold})),
        ),
    ];
    for (key, value) in given {
        if let Some(value) = value {
            settings[key] = value;
        }
    }
    settings
}

fn sweep_json(
    args: &SweepArgs,
    grid: &Grid,
    baseline_tasks: &[Task],
    baselines: &[Outcome],
    rows: &[Row],
    workers: usize,
    wall_seconds: f64,
) -> serde_json::Value {
    let mut json = settings_json(args, grid);
    json["grid_file"] = args.grid.as_ref().map(|path| path.display().to_string()).into();
    json["threads"] = workers.into();
    json["wall_seconds"] = wall_seconds.into();
    json["baselines"] = sweep::baselines_json(baseline_tasks, baselines).into();
    json["runs"] = sweep::rows_json(rows).into();
    json
}

#[cfg(test)]
mod tests {
    use super::*;
    use interstice_swf::inject::ProcsChoice;

    fn count(text: &str) -> Result<u32, BadValue> {
        text.parse().map_err(|_| BadValue::Count(text.to_string()))
    }

    #[test]
    fn lists_split_on_semicolons_and_commas_where_allowed() {
        let occurrences = vec!["1,2".to_string(), "4;8".to_string()];
        assert_eq!(
            parse_list("--conv", &occurrences, true, count).unwrap(),
            vec![1, 2, 4, 8]
        );
        let procs = vec!["1,2,4".to_string(), "2;4".to_string()];
        let choices = parse_list("--cloud-procs", &procs, false, parse_procs_choice).unwrap();
        assert_eq!(
            choices.len(),
            3,
            "a comma is a mixture, a semicolon another experiment"
        );
        assert_eq!(choices[0].max(), 4);
        assert_eq!(choices[1], ProcsChoice::Fixed(2));
    }

    #[test]
    fn bad_lists_name_the_flag_and_the_item() {
        let err = parse_list("--conv", &["10,x".to_string()], true, count).unwrap_err();
        assert!(
            err.to_string().contains("--conv") && err.to_string().contains("\"x\""),
            "{err}"
        );
        let err = parse_list("--conv", &["10,,20".to_string()], true, count).unwrap_err();
        assert!(err.to_string().contains("empty item"), "{err}");
        let err = parse_list("--conv", &["10;10".to_string()], true, count).unwrap_err();
        assert!(err.to_string().contains("twice"), "{err}");
    }
}
