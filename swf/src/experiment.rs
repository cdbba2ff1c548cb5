//! An experiment's workload: which trace, cut and clipped how, and which
//! cloud jobs are injected over it. The one place where processor counts are
//! clipped and checked against the machine and the convergence area, shared
//! by `interstice replay` and `interstice sweep`.

use crate::error::{LineError, SwfError};
use crate::extract::{clip_procs, ExtractOptions, ExtractStats};
use crate::inject::{inject_cloud_jobs, CloudJobs, InjectOptions, ProcsChoice, RuntimeSpec};
use crate::label::JobLabels;
use crate::merge::merge_by_submit;
use crate::reader::Strictness;
use interstice_core::{Job, JobKind, Time};
use std::fmt;
use std::num::NonZeroU32;
use std::path::PathBuf;

/// What `--clip` clips HPC jobs to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "clap", derive(clap::ValueEnum))]
pub enum ClipTarget {
    /// The convergence area (`--conv`), as the thesis does.
    Area,
    /// The whole machine (`--procs`).
    Machine,
}

impl ClipTarget {
    /// `area` or `machine`.
    pub fn name(self) -> &'static str {
        match self {
            ClipTarget::Area => "area",
            ClipTarget::Machine => "machine",
        }
    }
}

/// What to do about a job wider than the machine or the area.
pub const WIDE_JOB_ADVICE: &str =
    "use --clip=machine or --clip=area to clip HPC jobs, --lenient to skip them, or raise --procs/--conv";

/// Why an experiment's workload cannot be built.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum WorkloadError {
    /// `--procs` or `--conv` is 0, or the area does not fit in the machine.
    #[error("{0}")]
    Sizes(String),
    /// The workload file cannot be read.
    #[error("cannot load the workload")]
    Load(#[source] SwfError),
    /// The machine size is neither given nor in the workload.
    #[error("the machine size of {} is unknown (no MaxProcs/MaxNodes header or nb_res): give --procs", .0.display())]
    UnknownMachine(PathBuf),
    /// A job is wider than the machine (HPC) or the area (cloud).
    #[error(
        "{place}: {kind} job {job} needs {procs} processors but the {area} has {limit}: {WIDE_JOB_ADVICE}"
    )]
    TooWide {
        /// The file, and the line when known.
        place: String,
        /// The job's kind.
        kind: JobKind,
        /// The job's number.
        job: u64,
        /// Its processors.
        procs: u64,
        /// `machine` or `convergence area`.
        area: &'static str,
        /// Processors there.
        limit: u32,
    },
    /// Injected cloud jobs would not fit where they run.
    #[error("{0}")]
    CloudTooWide(CloudTooWide),
    /// The cloud-job options are not usable.
    #[error("bad cloud-job options")]
    Cloud(#[source] SwfError),
    /// Repeating the trace would submit jobs after [`Time::MAX_INSTANT_SECS`]
    /// or number them past `u64::MAX`.
    #[error(
        "--repeat {times}: the repeated trace would submit jobs after {max:e} s or run out of job numbers",
        max = Time::MAX_INSTANT_SECS
    )]
    RepeatTooLong {
        /// The copies asked for.
        times: u32,
    },
}

/// Which HPC trace a run replays, and how it is cut and clipped.
#[derive(Clone, Debug)]
pub struct TraceSpec {
    /// The workload file (SWF or Batsim JSON).
    pub workload: PathBuf,
    /// Processors of the machine (default: the workload's).
    pub procs: Option<u32>,
    /// Processors of the convergence area (default: the machine).
    pub conv: Option<u32>,
    /// Factor on every HPC walltime.
    pub walltime_factor: f64,
    /// Start the run this many seconds after the trace's first submission
    /// (see [`Window`]).
    pub from: Option<f64>,
    /// Only the jobs submitted in the first `until` seconds of the run
    /// (from the trace's first submission, plus `from`).
    pub until: Option<f64>,
    /// Clip wide HPC jobs.
    pub clip: Option<ClipTarget>,
    /// Skip bad lines instead of stopping.
    pub lenient: bool,
    /// Copies of the (cut) trace replayed back to back ([`repeat_jobs`]);
    /// 1 is the trace itself.
    pub repeat: NonZeroU32,
}

/// A loaded, cut and clipped trace, before any cloud injection.
#[derive(Clone, Debug)]
pub struct LoadedTrace {
    /// The trace's jobs (HPC, plus any cloud jobs a Batsim JSON already holds).
    pub jobs: Vec<Job>,
    /// The classes and tenants of its cloud jobs, by the ids of `jobs`.
    pub labels: JobLabels,
    /// Processors of the machine.
    pub procs: u32,
    /// Processors of the convergence area.
    pub conv: u32,
    /// What extraction kept, skipped and clipped.
    pub stats: ExtractStats,
    /// Notes on the SWF header's values, read in part or left unset (see
    /// [`crate::header`]), each naming the file: for the caller to show.
    pub notes: Vec<String>,
}

impl LoadedTrace {
    /// Workload records skipped by the loader.
    pub fn skipped(&self) -> u64 {
        self.stats.skipped()
    }
}

/// `--procs` and `--conv` as given: neither 0, the area inside the machine.
pub(crate) fn check_sizes(spec: &TraceSpec) -> Result<(), WorkloadError> {
    if let (Some(procs), Some(conv)) = (spec.procs, spec.conv) {
        if conv > procs {
            return Err(WorkloadError::Sizes(format!(
                "--conv {conv} is larger than --procs {procs}: the convergence area is part of the machine"
            )));
        }
    }
    if spec.procs == Some(0) {
        return Err(WorkloadError::Sizes("--procs must be at least 1".into()));
    }
    if spec.conv == Some(0) {
        return Err(WorkloadError::Sizes(
            "--conv must be at least 1 (the area is processors 0..C)".into(),
        ));
    }
    Ok(())
}

/// The extraction rules `spec` asks for.
pub(crate) fn extract_options(spec: &TraceSpec) -> ExtractOptions {
    ExtractOptions {
        machine_procs: spec.procs,
        clip: match spec.clip {
            Some(ClipTarget::Area) => spec.conv.or(spec.procs),
            Some(ClipTarget::Machine) => spec.procs,
            None => None,
        },
        // Without a size on the command line, clip to the machine size of
        // the trace (which is then also the area).
        clip_to_machine: spec.clip.is_some(),
        walltime_factor: spec.walltime_factor,
        mode: if spec.lenient {
            Strictness::Lenient
        } else {
            Strictness::Strict
        },
    }
}

/// A loading error, a job wider than the machine said as such.
pub(crate) fn load_error(err: SwfError) -> WorkloadError {
    match err {
        SwfError::Line {
            file,
            line,
            kind: LineError::TooWide { job, procs, machine },
        } => WorkloadError::TooWide {
            place: if line > 0 { format!("{file}:{line}") } else { file },
            kind: JobKind::Hpc,
            job,
            procs,
            area: "machine",
            limit: machine,
        },
        err => WorkloadError::Load(err),
    }
}

/// The machine and the area of a run of `spec` on a workload whose own
/// machine size is `machine_procs`, and the header's value notes naming
/// the file.
pub(crate) fn machine_and_area(
    spec: &TraceSpec,
    machine_procs: Option<u32>,
    header: Option<&crate::header::Header>,
) -> Result<(u32, u32, Vec<String>), WorkloadError> {
    let file = spec.workload.display().to_string();
    let notes = header
        .iter()
        .flat_map(|h| &h.value_notes)
        .map(|note| note.at(&file))
        .collect();
    let procs = match machine_procs {
        Some(procs) if procs > 0 => procs,
        _ => return Err(WorkloadError::UnknownMachine(spec.workload.clone())),
    };
    let conv = spec.conv.unwrap_or(procs);
    if conv > procs {
        return Err(WorkloadError::Sizes(format!(
            "--conv {conv} is larger than the machine ({procs} processors): the area is part of the machine"
        )));
    }
    Ok((procs, conv, notes))
}

/// The part of a trace a run replays (`from`, `until`): the jobs submitted
/// from `from` seconds after the trace's first submission and before `until`
/// seconds after that, moved back by `from` so that the run opens where the
/// trace did. Jobs submitted before the window are left out, running or not:
/// the machine starts empty, as at the trace's own start.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Window {
    start: Time,
    end: Option<Time>,
    shift: Time,
}

impl Window {
    /// The window of `spec` over a trace whose first submission is `first`.
    pub(crate) fn new(spec: &TraceSpec, first: Time) -> Window {
        let shift = Time::from_secs_f64(spec.from.unwrap_or(0.0));
        let start = first + shift;
        Window {
            start,
            end: spec.until.map(|until| start + Time::from_secs_f64(until)),
            shift,
        }
    }

    /// `job` moved into the run's time, or `None` outside the window.
    pub(crate) fn place(&self, mut job: Job) -> Option<Job> {
        if job.submit < self.start || self.end.is_some_and(|end| job.submit >= end) {
            return None;
        }
        job.submit -= self.shift;
        Some(job)
    }
}

/// Load, cut ([`Window`]) and clip the trace of `spec`, checking that every job
/// fits: HPC jobs in the machine (while extracting), cloud jobs in the area.
/// [`crate::streamed::stream_trace`] reads a sorted SWF trace the same way
/// without holding it.
pub fn load_trace(spec: &TraceSpec) -> Result<LoadedTrace, WorkloadError> {
    check_sizes(spec)?;
    let extract = extract_options(spec);
    let workload = crate::load::load_workload(&spec.workload, &extract).map_err(load_error)?;
    let (procs, conv, notes) = machine_and_area(spec, workload.machine_procs, workload.header.as_ref())?;
    let (mut jobs, mut labels) = (workload.jobs, workload.labels);
    if spec.from.is_some() || spec.until.is_some() {
        let first = jobs.iter().map(|job| job.submit).min().unwrap_or(Time::ZERO);
        let window = Window::new(spec, first);
        jobs = jobs
            .into_iter()
            .filter_map(|job| {
                let id = job.id;
                let placed = window.place(job);
                if placed.is_none() {
                    labels.remove(&id);
                }
                placed
            })
            .collect();
    }
    if spec.repeat.get() > 1 {
        let repeated = repeat_jobs(&jobs, spec.repeat)?;
        // Copy `c` of `jobs[j]` is `repeated[c × n + j]`.
        if !labels.is_empty() {
            labels = repeated
                .iter()
                .zip(jobs.iter().cycle())
                .filter_map(|(copy, job)| Some((copy.id, labels.get(&job.id)?.clone())))
                .collect();
        }
        jobs = repeated;
    }
    if let Some(job) = jobs
        .iter()
        .find(|job| job.kind == JobKind::Cloud && job.procs > conv)
    {
        return Err(WorkloadError::TooWide {
            place: spec.workload.display().to_string(),
            kind: JobKind::Cloud,
            job: job.id.0,
            procs: u64::from(job.procs),
            area: "convergence area",
            limit: conv,
        });
    }
    Ok(LoadedTrace {
        jobs,
        labels,
        procs,
        conv,
        stats: workload.stats,
        notes,
    })
}

/// The cloud injection settings of a run, as given on the command line.
#[derive(Clone, Debug)]
pub struct CloudSpec {
    /// Seconds between two cloud jobs.
    pub interval: f64,
    /// Processors of each.
    pub procs: ProcsChoice,
    /// Walltime of each, seconds.
    pub walltime: f64,
    /// Run time of each.
    pub runtime: RuntimeSpec,
    /// SLO = slack × walltime.
    pub slack: f64,
    /// Reconciliation factor α of the walltime ([`InjectOptions::alpha`]).
    pub alpha: f64,
    /// Seed of the draws.
    pub seed: u64,
}

impl CloudSpec {
    /// The injector's options.
    pub fn options(&self) -> InjectOptions {
        InjectOptions {
            interval: Time::from_secs_f64(self.interval),
            procs: self.procs.clone(),
            walltime: Time::from_secs_f64(self.walltime),
            runtime: self.runtime,
            slack: self.slack,
            alpha: self.alpha,
            seed: self.seed,
        }
    }

    /// Cloud jobs every `interval` over `[from, to]`, ids from `first_id`
    /// (the jobs `swf inject` and the Batsim adapter draw with these
    /// options), generated as they are pulled.
    pub fn jobs(&self, from: Time, to: Time, first_id: u64) -> Result<CloudJobs, WorkloadError> {
        let options = self.options();
        options.validate().map_err(WorkloadError::Cloud)?;
        Ok(inject_cloud_jobs(&options, from, to, first_id))
    }

    /// Check that the jobs fit in an area of `conv` processors.
    pub fn check_fits(&self, conv: u32) -> Result<(), WorkloadError> {
        check_cloud_fits(&self.procs, CloudRoom::Area(conv))
    }

    /// The settings as recorded in `summary.json`.
    pub fn to_json(&self) -> serde_json::Value {
        serde_json::json!({
            "interval": self.interval,
            "procs": self.procs.to_string(),
            "walltime": self.walltime,
            "runtime": self.runtime.to_string(),
            "slack": self.slack,
            "alpha": self.alpha,
            "seed": self.seed,
        })
    }
}

/// Where injected cloud jobs must fit, and so which flags size them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CloudRoom {
    /// The convergence area of `replay` and `sweep` (`--conv`); the jobs' width is `--cloud-procs`.
    Area(u32),
    /// The machine of `swf inject` (`--procs`); the jobs' width is `--cloud-procs`.
    Machine(u32),
}

/// Cloud jobs wider than their [`CloudRoom`].
#[derive(Clone, Debug, PartialEq)]
pub struct CloudTooWide {
    /// The processor choice.
    pub procs: ProcsChoice,
    /// Where they must fit.
    pub room: CloudRoom,
}

impl fmt::Display for CloudTooWide {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let (procs, max) = (&self.procs, self.procs.max());
        match self.room {
            CloudRoom::Area(conv) => write!(
                f,
                "--cloud-procs {procs} asks for up to {max} processors but the convergence area has {conv}: \
                 lower --cloud-procs or raise --conv"
            ),
            CloudRoom::Machine(machine) => write!(
                f,
                "--cloud-procs {procs}: cloud jobs of {max} processors do not fit the {machine}-processor \
                 machine: lower --cloud-procs or raise --procs"
            ),
        }
    }
}

/// Check that cloud jobs of `procs` processors fit in `room`.
pub fn check_cloud_fits(procs: &ProcsChoice, room: CloudRoom) -> Result<(), WorkloadError> {
    let (CloudRoom::Area(limit) | CloudRoom::Machine(limit)) = room;
    if procs.max() > limit {
        return Err(WorkloadError::CloudTooWide(CloudTooWide {
            procs: procs.clone(),
            room,
        }));
    }
    Ok(())
}

/// The span cloud jobs are injected over by default: the first and the last
/// submission of the workload's HPC jobs (`None` without HPC jobs). Cloud jobs
/// already in the workload (a Batsim JSON from an earlier `swf inject`) do not
/// stretch it.
pub fn injection_span(jobs: &[Job]) -> Option<(Time, Time)> {
    let mut hpc = jobs
        .iter()
        .filter(|job| job.kind == JobKind::Hpc)
        .map(|job| job.submit);
    let first = hpc.next()?;
    Some(hpc.fold((first, first), |(lo, hi), submit| {
        (lo.min(submit), hi.max(submit))
    }))
}

/// The id of the first injected cloud job: after every id of the workload.
pub fn first_injected_id(jobs: &[Job]) -> u64 {
    jobs.iter().map(|job| job.id.0).max().unwrap_or(0) + 1
}

/// The trace's jobs plus the cloud jobs of `cloud`, injected over the HPC
/// jobs' submission span ([`injection_span`]) with ids after the trace's,
/// generated as they are pulled (memory does not grow with the number of
/// cloud jobs), and how many there are: the trace's jobs sorted by
/// submission (stably) merged with the cloud jobs, a tie putting the trace's
/// job first.
pub fn arrivals(
    trace: &LoadedTrace,
    cloud: Option<&CloudSpec>,
) -> Result<(impl Iterator<Item = Job>, u64), WorkloadError> {
    let mut jobs = trace.jobs.clone();
    jobs.sort_by_key(|job| job.submit);
    let mut injected = None;
    if let Some(cloud) = cloud {
        cloud.check_fits(trace.conv)?;
        if let Some((first, last)) = injection_span(&jobs) {
            injected = Some(cloud.jobs(first, last, first_injected_id(&jobs))?);
        }
    }
    let total = jobs.len() as u64 + injected.as_ref().map_or(0, |cloud| cloud.size_hint().0 as u64);
    Ok((merge_by_submit(jobs, injected.into_iter().flatten()), total))
}

/// `jobs` repeated `times` times back to back, the way a trace is stretched
/// to measure how a run grows with its length: copy `c` (from 0) of job `j`
/// is submitted at `j.submit + c × (span + 1 s)`, where `span` runs from the
/// first to the last submission of `jobs`, and numbered
/// `j.id + c × (max id − min id + 1)`, so copy 0 is `jobs` itself, every copy
/// starts a second after the previous one's last submission and ids stay
/// unique. Each copy keeps the order of `jobs`, so sorted jobs stay sorted.
pub fn repeat_jobs(jobs: &[Job], times: NonZeroU32) -> Result<Vec<Job>, WorkloadError> {
    let too_long = WorkloadError::RepeatTooLong { times: times.get() };
    let (Some(first), Some(last)) = (
        jobs.iter().map(|job| job.submit).min(),
        jobs.iter().map(|job| job.submit).max(),
    ) else {
        return Ok(Vec::new());
    };
    let (min_id, max_id) = jobs.iter().fold((u64::MAX, 0), |(lo, hi), job| {
        (lo.min(job.id.0), hi.max(job.id.0))
    });
    let copies = u64::from(times.get());
    let period = (last - first + Time::from_secs(1)).ticks();
    let id_stride = max_id - min_id + 1;
    // Checked once on the last copy: every earlier shift is smaller.
    let last_shift = i64::try_from(copies - 1)
        .ok()
        .and_then(|c| c.checked_mul(period))
        .filter(|shift| {
            last.ticks()
                .checked_add(*shift)
                .is_some_and(|end| Time::from_ticks(end).as_secs_f64() <= Time::MAX_INSTANT_SECS)
        });
    let ids_fit = (copies - 1)
        .checked_mul(id_stride)
        .and_then(|shift| max_id.checked_add(shift))
        .is_some();
    if last_shift.is_none() || !ids_fit {
        return Err(too_long);
    }
    let mut repeated = Vec::with_capacity(jobs.len() * times.get() as usize);
    for copy in 0..copies {
        let shift = Time::from_ticks(copy as i64 * period);
        repeated.extend(jobs.iter().map(|job| Job {
            id: interstice_core::JobId(job.id.0 + copy * id_stride),
            submit: job.submit + shift,
            ..job.clone()
        }));
    }
    Ok(repeated)
}

/// Clip HPC jobs wider than `to` to it (the rule of [`ExtractOptions::clip`],
/// for jobs that were not read from a file); returns how many were clipped.
pub fn clip_jobs(jobs: &mut [Job], to: u32) -> u64 {
    let mut clipped = 0;
    for job in jobs.iter_mut().filter(|job| job.kind == JobKind::Hpc) {
        let (procs, was_clipped) = clip_procs(u64::from(job.procs), Some(to));
        job.procs = procs as u32;
        clipped += u64::from(was_clipped);
    }
    clipped
}

impl fmt::Display for ProcsChoice {
    /// `4`, or `1:0.5,2:0.5` for a weighted choice (the form `summary.json` records).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ProcsChoice::Fixed(procs) => write!(f, "{procs}"),
            ProcsChoice::Weighted(choices) => {
                for (index, (procs, weight)) in choices.iter().enumerate() {
                    if index > 0 {
                        f.write_str(",")?;
                    }
                    write!(f, "{procs}:{weight}")?;
                }
                Ok(())
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_jobs::hpc_job as job;

    fn times(n: u32) -> NonZeroU32 {
        NonZeroU32::new(n).unwrap()
    }

    #[test]
    fn repeated_copies_follow_each_other_with_fresh_ids() {
        // Ids 3..=5 (stride 3), submissions 10..=40 (span 30 s, period 31 s).
        let jobs = vec![job(4, 10), job(3, 10), job(5, 40)];
        let repeated = repeat_jobs(&jobs, times(3)).unwrap();
        let got: Vec<(u64, i64)> = repeated
            .iter()
            .map(|job| (job.id.0, job.submit.ticks() / 1_000_000))
            .collect();
        assert_eq!(
            got,
            [
                (4, 10),
                (3, 10),
                (5, 40),
                (7, 41),
                (6, 41),
                (8, 71),
                (10, 72),
                (9, 72),
                (11, 102)
            ]
        );
        let mut ids: Vec<u64> = repeated.iter().map(|job| job.id.0).collect();
        ids.sort_unstable();
        ids.dedup();
        assert_eq!(ids.len(), repeated.len(), "ids are unique");
        assert!(repeated.windows(2).all(|pair| pair[0].submit <= pair[1].submit));
        assert!(repeated
            .iter()
            .zip(jobs.iter().cycle())
            .all(|(copy, original)| copy.procs == original.procs && copy.walltime == original.walltime));
    }

    /// A Batsim workload of 4 processors and one profile (`d`, 5 s) with
    /// `jobs` (JSON objects, comma-separated), in a file of its own.
    fn workload_file(name: &str, jobs: &str) -> std::path::PathBuf {
        let path = std::env::temp_dir().join(format!("interstice-{name}-{}.json", std::process::id()));
        let profiles = r#"{"d": {"type": "delay", "delay": 5}}"#;
        let text = format!(r#"{{"nb_res": 4, "profiles": {profiles}, "jobs": [{jobs}]}}"#);
        std::fs::write(&path, text).unwrap();
        path
    }

    /// The whole trace at `path` on its own machine, cut to `from`/`until`
    /// and repeated.
    fn window_spec(
        path: &std::path::Path,
        from: Option<f64>,
        until: Option<f64>,
        repeat: NonZeroU32,
    ) -> TraceSpec {
        TraceSpec {
            workload: path.to_path_buf(),
            procs: None,
            conv: None,
            walltime_factor: 1.0,
            from,
            until,
            clip: None,
            lenient: false,
            repeat,
        }
    }

    /// Labels follow their jobs through the cut and the copies: a cut job's
    /// label is gone (its id may be a copy's), each copy has its original's.
    #[test]
    fn labels_follow_their_jobs_through_until_and_repeat() {
        let path = workload_file(
            "labels",
            r#"
                {"id": 1, "subtime": 0, "walltime": 10, "res": 1, "profile": "d"},
                {"id": 2, "subtime": 10, "walltime": 10, "res": 1, "profile": "d", "kind": "cloud",
                 "class": "gold", "tenant": "t"},
                {"id": 3, "subtime": 20, "walltime": 10, "res": 1, "profile": "d", "kind": "cloud",
                 "class": "silver"},
                {"id": 4, "subtime": 100, "walltime": 10, "res": 1, "profile": "d"},
                {"id": 5, "subtime": 200, "walltime": 10, "res": 1, "profile": "d", "kind": "cloud",
                 "class": "bronze"}"#,
        );
        let trace = load_trace(&window_spec(&path, None, Some(50.0), times(2)));
        std::fs::remove_file(&path).unwrap();
        let trace = trace.unwrap();
        let got: Vec<(u64, Option<&str>, Option<&str>)> = trace
            .labels
            .iter()
            .map(|(id, l)| (id.0, l.class.as_deref(), l.tenant.as_deref()))
            .collect();
        // Ids 1..=3 (stride 3): copies 4..=6.
        assert_eq!(
            got,
            [
                (2, Some("gold"), Some("t")),
                (3, Some("silver"), None),
                (5, Some("gold"), Some("t")),
                (6, Some("silver"), None)
            ]
        );
    }

    /// `from` leaves out what was submitted before it and moves the rest
    /// back by it, `until` counting from there; a label leaves with its job.
    #[test]
    fn a_window_starts_where_the_trace_did() {
        let path = workload_file(
            "window",
            r#"
                {"id": 1, "subtime": 7, "walltime": 10, "res": 1, "profile": "d", "kind": "cloud",
                 "class": "gold"},
                {"id": 2, "subtime": 106, "walltime": 10, "res": 1, "profile": "d"},
                {"id": 3, "subtime": 107, "walltime": 10, "res": 1, "profile": "d", "kind": "cloud",
                 "class": "silver"},
                {"id": 4, "subtime": 156, "walltime": 10, "res": 1, "profile": "d"},
                {"id": 5, "subtime": 157, "walltime": 10, "res": 1, "profile": "d"}"#,
        );
        let cut = |from, until| {
            let trace = load_trace(&window_spec(&path, from, until, times(1))).unwrap();
            let jobs: Vec<(u64, f64)> = trace
                .jobs
                .iter()
                .map(|j| (j.id.0, j.submit.as_secs_f64()))
                .collect();
            let labels: Vec<u64> = trace.labels.keys().map(|id| id.0).collect();
            (jobs, labels)
        };
        // The first submission is 7: the window is [107, 157).
        let windowed = cut(Some(100.0), Some(50.0));
        let whole = cut(None, None);
        let only_from = cut(Some(100.0), None);
        std::fs::remove_file(&path).unwrap();
        assert_eq!(windowed, (vec![(3, 7.0), (4, 56.0)], vec![3]));
        assert_eq!(only_from, (vec![(3, 7.0), (4, 56.0), (5, 57.0)], vec![3]));
        assert_eq!(whole.0.len(), 5);
    }

    #[test]
    fn one_copy_is_the_trace_and_nothing_repeats_to_nothing() {
        let jobs = vec![job(1, 0), job(2, 5)];
        assert_eq!(repeat_jobs(&jobs, times(1)).unwrap(), jobs);
        assert!(repeat_jobs(&[], times(4)).unwrap().is_empty());
        // A single instant still moves on by a second per copy.
        let single = repeat_jobs(&[job(7, 3)], times(3)).unwrap();
        let submits: Vec<i64> = single.iter().map(|job| job.submit.ticks() / 1_000_000).collect();
        assert_eq!(submits, [3, 4, 5]);
    }

    #[test]
    fn repeating_past_the_last_instant_or_the_last_id_is_an_error() {
        let long = vec![job(1, 0), job(2, 400_000_000_000)];
        assert!(matches!(
            repeat_jobs(&long, times(4)),
            Err(WorkloadError::RepeatTooLong { times: 4 })
        ));
        let big_ids = vec![job(1, 0), job(u64::MAX / 2, 5)];
        assert!(matches!(
            repeat_jobs(&big_ids, times(3)),
            Err(WorkloadError::RepeatTooLong { times: 3 })
        ));
    }
}
