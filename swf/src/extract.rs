//! Job extraction: from SWF records to engine [`Job`]s.
//!
//! The rules, used by every command and by the replay simulator:
//!
//! - **processors** = allocated processors (field 5) if > 0, else requested
//!   processors (field 8);
//! - **walltime** = requested time (field 9) if > 0, else the run time
//!   (field 4) as a planning estimate only (no requested time means no
//!   limit: [`Job::walltime_enforced`] is false, Batsim gets walltime -1),
//!   then multiplied by [`ExtractOptions::walltime_factor`];
//! - **runtime** = the run time (field 4); it may exceed the walltime (the
//!   trace's job overran its request): simulators end such a job at its walltime;
//! - records are **skipped and counted** for the first reason that applies,
//!   in this order: unknown submit time (field 2), run time ≤ 0 or unknown,
//!   processors ≤ 0 or unknown;
//! - with [`ExtractOptions::clip`] `= M`, jobs wider than `M` get `M` processors;
//! - jobs still wider than the machine ([`ExtractOptions::machine_procs`], else
//!   the header's `MaxProcs`/`MaxNodes`) are an error in strict mode and are
//!   skipped and counted in lenient mode;
//! - the job is `Job { id: field 1, submit: field 2, kind: Hpc, slo: None, .. }`.

use crate::error::LineError;
use crate::reader::Strictness;
use crate::record::Record;
use interstice_core::{Job, JobId, JobKind, Time};

/// Options of job extraction (for SWF and Batsim JSON alike).
#[derive(Clone, Debug, PartialEq)]
pub struct ExtractOptions {
    /// Processors of the machine; `None` = the header's `MaxProcs`/`MaxNodes`
    /// (or the JSON's `nb_res`), and no check when unknown.
    pub machine_procs: Option<u32>,
    /// Clip wider jobs to this many processors.
    pub clip: Option<u32>,
    /// Without `clip`: clip jobs wider than the machine (`machine_procs`,
    /// else the header's or `nb_res`) to the machine, when its size is known.
    pub clip_to_machine: bool,
    /// Multiply every walltime by this factor (1.0 = as in the trace).
    pub walltime_factor: f64,
    /// Stop at the first bad line, or skip bad lines.
    pub mode: Strictness,
}

impl ExtractOptions {
    /// No machine size override, no clipping, factor 1, strict.
    pub fn new() -> ExtractOptions {
        ExtractOptions {
            machine_procs: None,
            clip: None,
            clip_to_machine: false,
            walltime_factor: 1.0,
            mode: Strictness::Strict,
        }
    }
}

impl Default for ExtractOptions {
    fn default() -> Self {
        ExtractOptions::new()
    }
}

/// Why a record did not become a job.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SkipReason {
    /// Submit time unknown.
    NoSubmit,
    /// Run time ≤ 0 or unknown.
    Runtime,
    /// Processors ≤ 0 or unknown.
    Procs,
    /// Wider than the machine (lenient mode only).
    TooWide,
    /// A value outside its allowed range (lenient mode only).
    OutOfRange,
    /// A job number already used by an earlier line (lenient mode only).
    DuplicateId,
}

impl SkipReason {
    /// Why a line with this extraction problem is skipped in lenient mode.
    pub fn of(problem: &LineError) -> SkipReason {
        match problem {
            LineError::DuplicateId { .. } => SkipReason::DuplicateId,
            LineError::TooWide { .. } => SkipReason::TooWide,
            _ => SkipReason::OutOfRange,
        }
    }
}

/// Counts of what extraction kept, skipped and changed.
#[derive(Clone, Debug, Default, PartialEq, Eq, serde::Serialize)]
pub struct ExtractStats {
    /// Records (data lines that parsed) seen.
    pub records: u64,
    /// Jobs kept.
    pub jobs: u64,
    /// Skipped: unknown submit time.
    pub skipped_no_submit: u64,
    /// Skipped: run time ≤ 0 or unknown.
    pub skipped_runtime: u64,
    /// Skipped: processors ≤ 0 or unknown.
    pub skipped_procs: u64,
    /// Skipped: wider than the machine (lenient mode).
    pub skipped_too_wide: u64,
    /// Skipped: a value outside its allowed range (lenient mode).
    pub skipped_out_of_range: u64,
    /// Skipped: a repeated job number (lenient mode).
    pub skipped_duplicate_id: u64,
    /// Lines that did not parse (lenient mode).
    pub bad_lines: u64,
    /// Jobs whose processors were clipped.
    pub clipped: u64,
    /// Jobs whose walltime came from their run time (no requested time).
    pub walltime_from_runtime: u64,
    /// Jobs whose run time is unknown and was set to their walltime
    /// (Batsim profiles other than `delay`).
    pub runtime_from_walltime: u64,
    /// The first few problems, as messages (lenient mode).
    pub problems: Vec<String>,
}

impl ExtractStats {
    /// All records and lines not turned into jobs.
    pub fn skipped(&self) -> u64 {
        self.skipped_no_submit
            + self.skipped_runtime
            + self.skipped_procs
            + self.skipped_too_wide
            + self.skipped_out_of_range
            + self.skipped_duplicate_id
            + self.bad_lines
    }

    /// Lines skipped for an extraction problem (counted in the reader's bad
    /// lines too).
    pub fn extraction_problems(&self) -> u64 {
        self.skipped_too_wide + self.skipped_out_of_range + self.skipped_duplicate_id
    }

    /// Count one skipped record.
    pub fn skip(&mut self, reason: SkipReason) {
        match reason {
            SkipReason::NoSubmit => self.skipped_no_submit += 1,
            SkipReason::Runtime => self.skipped_runtime += 1,
            SkipReason::Procs => self.skipped_procs += 1,
            SkipReason::TooWide => self.skipped_too_wide += 1,
            SkipReason::OutOfRange => self.skipped_out_of_range += 1,
            SkipReason::DuplicateId => self.skipped_duplicate_id += 1,
        }
    }
}

/// The outcome of extracting one record.
#[derive(Clone, Debug, PartialEq)]
pub enum Extracted {
    /// A job, and whether its processors were clipped.
    Job(Job, bool),
    /// No job, for this reason.
    Skipped(SkipReason),
}

/// Apply the extraction rules to one record. `machine` is the machine size
/// to check against (already resolved from options or header). Errors only
/// for a job wider than the machine.
pub fn extract_job(
    rec: &Record,
    opts: &ExtractOptions,
    machine: Option<u32>,
) -> Result<Extracted, LineError> {
    let Some(submit) = rec.submit else {
        return Ok(Extracted::Skipped(SkipReason::NoSubmit));
    };
    let runtime = match rec.run_time {
        Some(r) if r > 0.0 => r,
        _ => return Ok(Extracted::Skipped(SkipReason::Runtime)),
    };
    let procs = match rec.allocated_procs {
        Some(p) if p > 0 => p,
        _ => match rec.requested_procs {
            Some(p) if p > 0 => p,
            _ => return Ok(Extracted::Skipped(SkipReason::Procs)),
        },
    };
    let enforced = !walltime_from_runtime(rec);
    let walltime = if enforced {
        rec.requested_time.unwrap_or(runtime)
    } else {
        runtime
    };
    let submit = in_range(2, submit, Time::instant_from_secs_f64, INSTANT_RANGE)?;
    let runtime = in_range(4, runtime, duration, DURATION_RANGE)?;
    let walltime_field = if enforced { 9 } else { 4 };
    let walltime = in_range(
        walltime_field,
        walltime * opts.walltime_factor,
        duration,
        DURATION_RANGE,
    )?;
    let (procs, clipped) = clip_procs(procs as u64, opts.clip);
    check_width(rec.job, procs, machine)?;
    let Ok(procs) = u32::try_from(procs) else {
        return Ok(Extracted::Skipped(SkipReason::Procs));
    };
    let job = Job {
        id: JobId(rec.job),
        submit,
        walltime,
        walltime_enforced: enforced,
        runtime: Some(runtime),
        procs,
        kind: JobKind::Hpc,
        slo: None,
    };
    Ok(Extracted::Job(job, clipped))
}

/// The SWF record [`extract_job`] turns back into `job` (with a walltime
/// factor of 1 and no clipping): submit, run time, allocated and requested
/// processors, and the walltime as requested time when it is enforced (else
/// none, so the run time plans it again); status 1 (completed), everything
/// else unknown. How generated workloads become trace files.
pub fn record_of(job: &Job) -> Record {
    Record {
        job: job.id.0,
        submit: Some(job.submit.as_secs_f64()),
        run_time: job.runtime.map(Time::as_secs_f64),
        allocated_procs: Some(i64::from(job.procs)),
        requested_procs: Some(i64::from(job.procs)),
        requested_time: job.walltime_enforced.then(|| job.walltime.as_secs_f64()),
        status: Some(1),
        ..Record::default()
    }
}

/// The allowed range of an instant read from a trace.
pub(crate) const INSTANT_RANGE: &str = "0 to 1e12 seconds";
/// The allowed range of a duration read from a trace (run time, walltime
/// after `--walltime-factor`): at least the engine's one-microsecond tick.
pub(crate) const DURATION_RANGE: &str = "0.000001 to 1e12 seconds";

/// A duration of at least one tick and at most [`Time::MAX_INSTANT_SECS`].
pub(crate) fn duration(secs: f64) -> Option<Time> {
    let time = Time::from_secs_f64(secs);
    (secs.is_finite() && secs <= Time::MAX_INSTANT_SECS && time > Time::ZERO).then_some(time)
}

/// `value` of SWF field `field` as a [`Time`], or the error naming the field
/// and its allowed range.
fn in_range(
    field: usize,
    value: f64,
    convert: fn(f64) -> Option<Time>,
    allowed: &'static str,
) -> Result<Time, LineError> {
    convert(value).ok_or_else(|| LineError::NotInRange {
        field,
        value: value.to_string(),
        allowed,
    })
}

/// Clip `procs` to `clip` when it is wider; says whether it was.
pub(crate) fn clip_procs(procs: u64, clip: Option<u32>) -> (u64, bool) {
    match clip {
        Some(c) if procs > u64::from(c) => (u64::from(c), true),
        _ => (procs, false),
    }
}

/// A job wider than the machine is an error.
pub(crate) fn check_width(job: u64, procs: u64, machine: Option<u32>) -> Result<(), LineError> {
    match machine {
        Some(m) if procs > u64::from(m) => Err(LineError::TooWide {
            job,
            procs,
            machine: m,
        }),
        _ => Ok(()),
    }
}

/// True when `rec` would use its run time as walltime (no requested time).
pub(crate) fn walltime_from_runtime(rec: &Record) -> bool {
    !matches!(rec.requested_time, Some(w) if w > 0.0)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rec(alloc: i64, req: i64, run: f64, reqtime: f64) -> Record {
        let line = format!("7 100 0 {run} {alloc} -1 -1 {req} {reqtime} -1 1 1 1 -1 -1 -1 -1 -1");
        Record::parse(line.as_bytes()).unwrap()
    }

    fn job(e: Extracted) -> Job {
        match e {
            Extracted::Job(j, _) => j,
            other => panic!("expected a job, got {other:?}"),
        }
    }

    #[test]
    fn a_job_written_as_a_record_extracts_to_itself() {
        let mut written = Job {
            id: JobId(12),
            submit: Time::from_secs(3600),
            walltime: Time::from_secs(900),
            walltime_enforced: true,
            runtime: Some(Time::from_secs(450)),
            procs: 16,
            kind: JobKind::Hpc,
            slo: None,
        };
        for enforced in [true, false] {
            written.walltime_enforced = enforced;
            if !enforced {
                written.walltime = written.runtime.unwrap();
            }
            let line = {
                let mut out = Vec::new();
                record_of(&written).write_to(&mut out).unwrap();
                out
            };
            let read = Record::parse(line.trim_ascii_end()).unwrap();
            assert_eq!(
                job(extract_job(&read, &ExtractOptions::new(), Some(16)).unwrap()),
                written
            );
        }
    }

    #[test]
    fn rules() {
        let o = ExtractOptions::new();
        let j = job(extract_job(&rec(4, 8, 10.0, 20.0), &o, None).unwrap());
        assert_eq!(
            (j.procs, j.walltime, j.runtime),
            (4, Time::from_secs(20), Some(Time::from_secs(10)))
        );
        assert_eq!(
            (j.id, j.submit, j.kind, j.slo),
            (JobId(7), Time::from_secs(100), JobKind::Hpc, None)
        );
        let j = job(extract_job(&rec(-1, 8, 10.0, -1.0), &o, None).unwrap());
        assert_eq!((j.procs, j.walltime), (8, Time::from_secs(10)));
        let o2 = ExtractOptions {
            walltime_factor: 2.0,
            ..ExtractOptions::new()
        };
        assert_eq!(
            job(extract_job(&rec(4, 8, 10.0, 20.0), &o2, None).unwrap()).walltime,
            Time::from_secs(40)
        );
        assert_eq!(
            extract_job(&rec(4, 8, 0.0, 20.0), &o, None),
            Ok(Extracted::Skipped(SkipReason::Runtime))
        );
        assert_eq!(
            extract_job(&rec(0, -1, 5.0, 20.0), &o, None),
            Ok(Extracted::Skipped(SkipReason::Procs))
        );
        assert!(matches!(
            extract_job(&rec(200, 8, 5.0, 20.0), &o, Some(100)),
            Err(LineError::TooWide {
                job: 7,
                procs: 200,
                machine: 100
            })
        ));
        let clip = ExtractOptions {
            clip: Some(10),
            ..ExtractOptions::new()
        };
        match extract_job(&rec(200, 8, 5.0, 20.0), &clip, Some(100)).unwrap() {
            Extracted::Job(j, clipped) => assert!(clipped && j.procs == 10),
            other => panic!("{other:?}"),
        }
    }
}
