//! Batsim 4 input workloads (JSON): writing and reading.
//!
//! The format: `{"nb_res": N, "jobs": [...], "profiles": {...}}`; each job has
//! `id`, `subtime`, `walltime` (seconds), `res` (processors) and `profile`
//! (a name in `profiles`). Interstice writes one `delay` profile per distinct
//! run time (`{"type": "delay", "delay": S}`) and two extra job fields that
//! Batsim passes through to the scheduler: `kind` (`"hpc"` or `"cloud"`) and
//! `slo` (seconds, cloud jobs only).
//!
//! A cloud job may also carry `alpha`, the thesis's reconciliation factor α
//! (§4.4.1): the reader then plans and enforces `walltime × α`
//! ([`interstice_core::reconcile_walltime`]) and keeps the `slo` as written
//! (`SLO_j = SLO^c`). `alpha` must be a finite number > 0; it is an error on
//! an HPC job (α reconciles a cloud request) and does nothing without a
//! walltime (nothing to reconcile). Writing never emits it: the walltime
//! written is the reconciled one. Under a real Batsim, which enforces the
//! `walltime` field as written, the adapter refuses a job with an `alpha`
//! other than 1 (`interstice swf convert` writes the reconciled walltime).
//!
//! A cloud job may name its service class and tenant (`class`, `tenant`:
//! strings, [`crate::label`]); the reader keeps them in
//! [`Workload::labels`], the writer writes them back from the labels it is
//! given. They are an error on an HPC job.
//!
//! Reading: jobs without `kind` are HPC; a job's run time is its profile's
//! `delay`; for other profile types the run time is unknown and set to the
//! walltime (counted in [`ExtractStats::runtime_from_walltime`]); a missing or
//! negative walltime (Batsim: no limit) is set to the run time as a planning
//! estimate that is not enforced ([`Job::walltime_enforced`] false, counted in
//! [`ExtractStats::walltime_from_runtime`]). Writing does the reverse: a job
//! whose walltime is not enforced gets `"walltime": -1`, so Batsim runs its
//! whole delay instead of killing it at the estimate.

use crate::error::SwfError;
use crate::extract::{
    check_width, clip_procs, duration, ExtractOptions, ExtractStats, SkipReason, DURATION_RANGE,
    INSTANT_RANGE,
};
use crate::label::{check_name, JobLabel, JobLabels};
use crate::reader::{Strictness, KEPT_PROBLEMS};
use crate::workload::Workload;
use interstice_core::{reconcile_walltime, valid_alpha, Job, JobId, JobKind, Time};
use serde::Deserialize;
use std::collections::{BTreeSet, HashMap};
use std::io::{self, Read, Write};

/// Seconds as a JSON number (`12`, `0.5`); an infinite time is `-1` (Batsim: no limit).
fn secs(t: Time) -> String {
    if t.is_infinite() {
        "-1".to_string()
    } else {
        t.to_string()
    }
}

/// A job's `walltime` field: `-1` (Batsim: no limit, the job runs its whole
/// delay) when the walltime is only a planning estimate.
fn batsim_walltime(job: &Job) -> String {
    if job.walltime_enforced {
        secs(job.walltime)
    } else {
        "-1".to_string()
    }
}

fn profile_name(delay: Time) -> String {
    format!("delay_{}", secs(delay))
}

/// Write `jobs` as a Batsim workload for a machine of `nb_res` processors.
/// Jobs without a run time get a delay equal to their walltime.
///
/// Streams: jobs are written as they come; only the distinct delays are
/// kept, for the `profiles` section written after them.
pub fn write_workload<W: Write, J: std::borrow::Borrow<Job>>(
    jobs: impl IntoIterator<Item = J>,
    nb_res: u32,
    writer: W,
) -> io::Result<()> {
    write_labelled_workload(jobs, nb_res, writer, |_| None)
}

/// [`write_workload`], each job with the class and tenant `label` gives it
/// (called once per job, in the order written).
pub fn write_labelled_workload<W: Write, J: std::borrow::Borrow<Job>>(
    jobs: impl IntoIterator<Item = J>,
    nb_res: u32,
    mut writer: W,
    mut label: impl FnMut(&Job) -> Option<JobLabel>,
) -> io::Result<()> {
    let mut delays = BTreeSet::new();
    writeln!(writer, "{{")?;
    writeln!(writer, "  \"nb_res\": {nb_res},")?;
    write!(writer, "  \"jobs\": [")?;
    for (i, job) in jobs.into_iter().enumerate() {
        let job = job.borrow();
        writer.write_all(if i == 0 { b"\n" } else { b",\n" })?;
        let delay = job.runtime.unwrap_or(job.walltime);
        delays.insert(delay);
        write!(
            writer,
            "    {{\"id\": {}, \"subtime\": {}, \"walltime\": {}, \"res\": {}, \"profile\": \"{}\", \"kind\": \"{}\"",
            job.id.0,
            secs(job.submit),
            batsim_walltime(job),
            job.procs,
            profile_name(delay),
            job.kind.as_str(),
        )?;
        if let Some(slo) = job.slo {
            write!(writer, ", \"slo\": {}", secs(slo))?;
        }
        if let Some(label) = label(job) {
            for (key, value) in [("class", &label.class), ("tenant", &label.tenant)] {
                if let Some(value) = value {
                    write!(writer, ", \"{key}\": {}", serde_json::Value::from(value.as_str()))?;
                }
            }
        }
        write!(writer, "}}")?;
    }
    writeln!(writer, "\n  ],")?;
    writeln!(writer, "  \"profiles\": {{")?;
    for (i, delay) in delays.iter().enumerate() {
        let sep = if i + 1 < delays.len() { "," } else { "" };
        writeln!(
            writer,
            "    \"{}\": {{\"type\": \"delay\", \"delay\": {}}}{sep}",
            profile_name(*delay),
            secs(*delay)
        )?;
    }
    writeln!(writer, "  }}")?;
    writeln!(writer, "}}")?;
    writer.flush()
}

#[derive(Deserialize)]
struct RawWorkload {
    nb_res: Option<f64>,
    jobs: Vec<JobDescription>,
    #[serde(default)]
    profiles: HashMap<String, Profile>,
}

/// One job of a Batsim workload, as in the workload file and in Batsim's
/// `JOB_SUBMITTED` events (the one reader of both: `swf` and the adapter).
#[derive(Clone, Debug, Deserialize, PartialEq)]
pub struct JobDescription {
    /// `id`: a number in a workload file, `"workload!name"` from Batsim.
    pub id: serde_json::Value,
    /// `subtime`, seconds.
    #[serde(default)]
    pub subtime: Option<f64>,
    /// `walltime`, seconds (missing or ≤ 0: no limit).
    #[serde(default)]
    pub walltime: Option<f64>,
    /// `res`: processors.
    pub res: f64,
    /// `profile`: a name in the workload's profiles.
    #[serde(default)]
    pub profile: String,
    /// `kind`: `"hpc"` (default) or `"cloud"`, an Interstice extension.
    #[serde(default)]
    pub kind: Option<String>,
    /// `slo`, seconds, an Interstice extension.
    #[serde(default)]
    pub slo: Option<f64>,
    /// `alpha`: a cloud job's walltime reconciliation factor α, an
    /// Interstice extension (see the module docs).
    #[serde(default)]
    pub alpha: Option<f64>,
    /// `class`: a cloud job's service class, an Interstice extension.
    #[serde(default)]
    pub class: Option<String>,
    /// `tenant`: a cloud job's tenant, an Interstice extension.
    #[serde(default)]
    pub tenant: Option<String>,
}

/// What `alpha` must hold.
const ALPHA: &str = "a finite number > 0 (the walltime reconciliation factor α; 1 leaves it unchanged)";

/// A field of a job description that cannot be used.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum JobFieldError {
    /// A required field is absent.
    #[error("job.{field} is missing: expected {expected}")]
    Missing {
        /// The field.
        field: &'static str,
        /// What it should hold.
        expected: &'static str,
    },
    /// A field holds the wrong kind of value.
    #[error("job.{field}: expected {expected}, found {found}")]
    Invalid {
        /// The field.
        field: &'static str,
        /// What it should hold.
        expected: &'static str,
        /// The value found.
        found: String,
    },
}

impl JobDescription {
    /// Read a job description from a JSON object (a `JOB_SUBMITTED`'s `job`).
    pub fn from_object(job: &serde_json::Map<String, serde_json::Value>) -> Result<Self, JobFieldError> {
        fn field<T: serde::de::DeserializeOwned>(
            job: &serde_json::Map<String, serde_json::Value>,
            field: &'static str,
            expected: &'static str,
        ) -> Result<Option<T>, JobFieldError> {
            match job.get(field) {
                None | Some(serde_json::Value::Null) => Ok(None),
                Some(value) => {
                    serde_json::from_value(value.clone())
                        .map(Some)
                        .map_err(|_| JobFieldError::Invalid {
                            field,
                            expected,
                            found: value.to_string(),
                        })
                }
            }
        }
        const SECONDS: &str = "a number of seconds";
        const RESOURCES: &str = "a number of resources";
        let res: f64 = field(job, "res", RESOURCES)?.ok_or(JobFieldError::Missing {
            field: "res",
            expected: "the number of resources",
        })?;
        Ok(JobDescription {
            id: job.get("id").cloned().unwrap_or_default(),
            subtime: field(job, "subtime", SECONDS)?,
            walltime: field(job, "walltime", SECONDS)?,
            res,
            profile: field(job, "profile", "a profile name")?.unwrap_or_default(),
            kind: field(job, "kind", "\"hpc\" or \"cloud\"")?,
            slo: field(job, "slo", SECONDS)?,
            alpha: field(job, "alpha", ALPHA)?,
            class: field(job, "class", "a class name (a string)")?,
            tenant: field(job, "tenant", "a tenant name (a string)")?,
        })
    }

    /// The job's class and tenant, when given: names
    /// ([`check_name`]) on a cloud job.
    pub fn label(&self) -> Result<JobLabel, JobFieldError> {
        let label = JobLabel {
            class: self.class.clone(),
            tenant: self.tenant.clone(),
        };
        for (field, value) in [("class", &label.class), ("tenant", &label.tenant)] {
            let Some(value) = value else { continue };
            let invalid = |expected| JobFieldError::Invalid {
                field,
                expected,
                found: format!("{value:?}"),
            };
            check_name(value).map_err(invalid)?;
            if self.job_kind()? == JobKind::Hpc {
                return Err(invalid(
                    "no class or tenant on an HPC job (they are a cloud job's service terms: \
                     remove it, or set \"kind\": \"cloud\")",
                ));
            }
        }
        Ok(label)
    }

    /// The job's α, when given: a finite number > 0 on a cloud job.
    pub fn alpha(&self) -> Result<Option<f64>, JobFieldError> {
        let Some(alpha) = self.alpha else {
            return Ok(None);
        };
        let invalid = |expected| JobFieldError::Invalid {
            field: "alpha",
            expected,
            found: alpha.to_string(),
        };
        if !valid_alpha(alpha) {
            return Err(invalid(ALPHA));
        }
        if self.job_kind()? == JobKind::Hpc {
            return Err(invalid(
                "no alpha on an HPC job (α reconciles a cloud job's requested time: \
                 remove it, or set \"kind\": \"cloud\")",
            ));
        }
        Ok(Some(alpha))
    }

    /// The job's kind: `hpc` when not given.
    pub fn job_kind(&self) -> Result<JobKind, JobFieldError> {
        match self.kind.as_deref() {
            None => Ok(JobKind::Hpc),
            Some(text) => text.parse().map_err(|_| JobFieldError::Invalid {
                field: "kind",
                expected: "\"hpc\" or \"cloud\"",
                found: format!("{text:?}"),
            }),
        }
    }

    /// The walltime in seconds, `None` for Batsim's "no limit" (missing or ≤ 0).
    pub fn walltime_secs(&self) -> Option<f64> {
        self.walltime.filter(|w| *w > 0.0)
    }

    /// The processor count, when `res` is a positive whole number.
    pub fn procs(&self) -> Option<u64> {
        (self.res >= 1.0 && self.res.fract() == 0.0).then(|| self.res.min(u64::MAX as f64) as u64)
    }

    /// The SLO, when given and not negative.
    pub fn slo(&self) -> Option<Time> {
        self.slo
            .filter(|s| s.is_finite() && *s >= 0.0)
            .map(Time::from_secs_f64)
    }
}

/// A Batsim profile: only `delay` profiles have a known run time.
#[derive(Clone, Debug, Deserialize, PartialEq)]
pub struct Profile {
    /// `type`.
    #[serde(rename = "type")]
    pub kind: String,
    /// `delay`, seconds, for `delay` profiles.
    #[serde(default)]
    pub delay: Option<f64>,
    /// `cpu`, flops per host, for `parallel_homogeneous` profiles.
    #[serde(default)]
    pub cpu: Option<f64>,
}

impl Profile {
    /// The run time of a `delay` profile (a delay ≥ 0), else `None`.
    pub fn delay_secs(&self) -> Option<f64> {
        if self.kind == "delay" {
            self.delay.filter(|d| d.is_finite() && *d >= 0.0)
        } else {
            None
        }
    }

    /// The flops per host of a `parallel_homogeneous` profile (≥ 0), else `None`.
    pub fn cpu_flops(&self) -> Option<f64> {
        if self.kind == "parallel_homogeneous" {
            self.cpu.filter(|c| c.is_finite() && *c >= 0.0)
        } else {
            None
        }
    }

    /// The profile in a JSON value, when it is one.
    pub fn from_value(value: &serde_json::Value) -> Option<Profile> {
        serde_json::from_value(value.clone()).ok()
    }
}

fn json_err(name: &str, message: String) -> SwfError {
    SwfError::Json {
        file: name.to_string(),
        message,
    }
}

fn job_id(name: &str, index: usize, id: &serde_json::Value) -> Result<u64, SwfError> {
    let parsed = match id {
        serde_json::Value::Number(n) => n.as_u64(),
        serde_json::Value::String(s) => s.parse::<u64>().ok(),
        _ => None,
    };
    parsed.ok_or_else(|| {
        json_err(
            name,
            format!(
                "job #{index}: id {id} is not a non-negative whole number (interstice needs numeric job ids)"
            ),
        )
    })
}

/// Read a Batsim workload named `name` (for messages), applying the
/// extraction options (machine check, clipping, walltime factor). Jobs come
/// back sorted by submit time then id.
pub fn read_workload<R: Read>(reader: R, name: &str, opts: &ExtractOptions) -> Result<Workload, SwfError> {
    let raw: RawWorkload = serde_json::from_reader(io::BufReader::new(reader))
        .map_err(|e| json_err(name, format!("not a Batsim workload: {e}")))?;
    let nb_res = match raw.nb_res {
        Some(n) if n >= 1.0 && n.fract() == 0.0 && n <= f64::from(u32::MAX) => Some(n as u32),
        Some(n) => {
            return Err(json_err(
                name,
                format!("nb_res {n} is not a positive whole number"),
            ))
        }
        None => None,
    };
    let mut jobs = Vec::with_capacity(raw.jobs.len());
    let mut reading = Reading {
        name,
        opts,
        machine: opts.machine_procs.or(nb_res),
        profiles: &raw.profiles,
        stats: ExtractStats::default(),
        labels: JobLabels::new(),
        seen: HashMap::new(),
    };
    for (index, rj) in raw.jobs.iter().enumerate() {
        if let Some(job) = reading.job(index, rj)? {
            jobs.push(job);
        }
    }
    sort_jobs(&mut jobs);
    Ok(Workload {
        jobs,
        labels: reading.labels,
        machine_procs: reading.machine,
        header: None,
        stats: reading.stats,
    })
}

/// The state of reading one workload's jobs.
struct Reading<'w> {
    /// The workload's name, for messages.
    name: &'w str,
    opts: &'w ExtractOptions,
    /// The machine's processors (the options', else the workload's `nb_res`).
    machine: Option<u32>,
    profiles: &'w HashMap<String, Profile>,
    stats: ExtractStats,
    labels: JobLabels,
    /// Job id → index of its first use.
    seen: HashMap<u64, usize>,
}

impl Reading<'_> {
    /// Job `index` of the workload: `None` when it is skipped (no run time
    /// nor walltime, no width, or in lenient mode a value the engine cannot
    /// take); an error names the job and the fix.
    fn job(&mut self, index: usize, rj: &JobDescription) -> Result<Option<Job>, SwfError> {
        let name = self.name;
        self.stats.records += 1;
        let id = job_id(name, index, &rj.id)?;
        let what = format!("job {id}");
        let subtime = rj
            .subtime
            .ok_or_else(|| json_err(name, format!("{what}: missing field `subtime`")))?;
        let kind = rj
            .job_kind()
            .map_err(|e| json_err(name, format!("{what}: {e}")))?;
        let alpha = rj.alpha().map_err(|e| json_err(name, format!("{what}: {e}")))?;
        let label = rj.label().map_err(|e| json_err(name, format!("{what}: {e}")))?;
        let profile = self.profiles.get(&rj.profile).ok_or_else(|| {
            json_err(
                name,
                format!("{what}: profile {:?} is not defined in \"profiles\"", rj.profile),
            )
        })?;
        let (walltime, runtime, enforced) = match (rj.walltime_secs(), profile.delay_secs()) {
            (Some(w), Some(d)) => (w, d, true),
            (None, Some(d)) => {
                self.stats.walltime_from_runtime += 1;
                (d, d, false)
            }
            (Some(w), None) => {
                self.stats.runtime_from_walltime += 1;
                (w, w, true)
            }
            (None, None) => {
                self.stats.skip(SkipReason::Runtime);
                return Ok(None);
            }
        };
        let Some(procs) = rj.procs() else {
            self.stats.skip(SkipReason::Procs);
            return Ok(None);
        };
        let clip = self
            .opts
            .clip
            .or(self.machine.filter(|_| self.opts.clip_to_machine));
        let (procs, clipped) = clip_procs(procs, clip);
        if let Err(kind) = check_width(id, procs, self.machine) {
            let err = SwfError::Line {
                file: name.to_string(),
                line: 0,
                kind,
            };
            let problem = err.to_string();
            return self.refuse(err, problem, SkipReason::TooWide);
        }
        let Ok(procs) = u32::try_from(procs) else {
            self.stats.skip(SkipReason::Procs);
            return Ok(None);
        };
        let given = Given {
            subtime,
            walltime,
            runtime,
            alpha: alpha.filter(|_| enforced),
        };
        let (submit, walltime, runtime) = match self.times(&what, index, id, given) {
            Ok(values) => values,
            Err((message, reason)) => {
                let err = json_err(
                    name,
                    format!("{message} (fix the workload, or pass --lenient to skip such jobs)"),
                );
                return self.refuse(err, format!("{name}: {message}"), reason);
            }
        };
        self.stats.clipped += u64::from(clipped);
        self.stats.jobs += 1;
        if !label.is_empty() {
            self.labels.insert(JobId(id), label);
        }
        Ok(Some(Job {
            id: JobId(id),
            submit,
            walltime,
            walltime_enforced: enforced,
            runtime: Some(runtime),
            procs,
            kind,
            slo: rj.slo(),
        }))
    }

    /// A job the engine cannot take: `err` in strict mode; in lenient mode
    /// skipped for `reason`, its `problem` kept among the first few.
    fn refuse(
        &mut self,
        err: SwfError,
        problem: String,
        reason: SkipReason,
    ) -> Result<Option<Job>, SwfError> {
        match self.opts.mode {
            Strictness::Strict => Err(err),
            Strictness::Lenient => {
                self.stats.skip(reason);
                if self.stats.problems.len() < KEPT_PROBLEMS {
                    self.stats.problems.push(problem);
                }
                Ok(None)
            }
        }
    }

    /// Job `id`'s submit time, walltime (× the walltime factor, then α) and
    /// run time as the engine takes them, or why not: a value out of its
    /// range, or an id used before.
    fn times(
        &mut self,
        what: &str,
        index: usize,
        id: u64,
        given: Given,
    ) -> Result<(Time, Time, Time), (String, SkipReason)> {
        let out_of_range = |field: &str, value: f64, allowed: &str| {
            (
                format!("{what}: {field} {value} is outside its allowed range, {allowed}"),
                SkipReason::OutOfRange,
            )
        };
        let submit = Time::instant_from_secs_f64(given.subtime)
            .ok_or_else(|| out_of_range("subtime", given.subtime, INSTANT_RANGE))?;
        let walltime = given.walltime * self.opts.walltime_factor;
        let mut walltime =
            duration(walltime).ok_or_else(|| out_of_range("walltime", walltime, DURATION_RANGE))?;
        if let Some(alpha) = given.alpha {
            let reconciled = reconcile_walltime(walltime, alpha).as_secs_f64();
            walltime = duration(reconciled)
                .ok_or_else(|| out_of_range("walltime × alpha", reconciled, DURATION_RANGE))?;
        }
        let runtime = duration(given.runtime)
            .ok_or_else(|| out_of_range("profile delay", given.runtime, DURATION_RANGE))?;
        if let Some(&first) = self.seen.get(&id) {
            return Err((
                format!("{what} appears twice (jobs[{first}] and jobs[{index}]): job ids must be unique"),
                SkipReason::DuplicateId,
            ));
        }
        self.seen.insert(id, index);
        Ok((submit, walltime, runtime))
    }
}

/// A job's times as the workload gives them, seconds (α only when its
/// walltime is enforced).
struct Given {
    subtime: f64,
    walltime: f64,
    runtime: f64,
    alpha: Option<f64>,
}

/// Sort by submit time, then id.
pub(crate) fn sort_jobs(jobs: &mut [Job]) {
    jobs.sort_by_key(|j| (j.submit, j.id));
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_batsims_own_examples() {
        let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/../../shared/batsim/");
        let w10 = std::fs::File::open(format!("{dir}workload10.json")).unwrap();
        let w = read_workload(w10, "workload10.json", &ExtractOptions::new()).unwrap();
        assert_eq!(w.machine_procs, Some(16));
        assert_eq!(w.jobs.len(), 10);
        let j1 = w.jobs.iter().find(|j| j.id == JobId(1)).unwrap();
        assert_eq!(
            (j1.procs, j1.walltime, j1.runtime),
            (4, Time::from_secs(200), Some(Time::from_secs(100)))
        );
        assert_eq!(j1.kind, JobKind::Hpc);

        let tw = std::fs::File::open(format!("{dir}test_walltime.json")).unwrap();
        let w = read_workload(tw, "test_walltime.json", &ExtractOptions::new()).unwrap();
        // 1021 (walltime -1) and 1022 (no walltime) run parallel_homogeneous
        // profiles: neither run time nor walltime is known.
        assert_eq!(w.stats.skipped_runtime, 2);
        assert_eq!(
            w.stats.runtime_from_walltime as usize,
            w.jobs.iter().filter(|j| j.id.0 > 1000).count()
        );
        assert!(w.stats.runtime_from_walltime > 0);
    }

    fn workload_with(job: &str) -> String {
        format!(
            r#"{{"nb_res": 4, "jobs": [{job}],
                "profiles": {{"d": {{"type": "delay", "delay": 30}}}}}}"#
        )
    }

    #[test]
    fn class_and_tenant_are_read_checked_and_written_back() {
        let text = workload_with(
            r#"{"id": 1, "subtime": 0, "walltime": 100, "res": 1, "profile": "d", "kind": "cloud",
                "class": "gold", "tenant": "team \"a\""},
               {"id": 2, "subtime": 0, "walltime": 100, "res": 1, "profile": "d", "kind": "cloud",
                "tenant": "b"},
               {"id": 3, "subtime": 0, "walltime": 100, "res": 1, "profile": "d", "kind": "cloud"}"#,
        );
        let w = read_workload(text.as_bytes(), "w.json", &ExtractOptions::new()).unwrap();
        let label = |class: Option<&str>, tenant: Option<&str>| JobLabel {
            class: class.map(String::from),
            tenant: tenant.map(String::from),
        };
        assert_eq!(
            w.labels,
            JobLabels::from([
                (JobId(1), label(Some("gold"), Some("team \"a\""))),
                (JobId(2), label(None, Some("b")))
            ])
        );
        let mut out = Vec::new();
        write_labelled_workload(&w.jobs, 4, &mut out, |job| w.labels.get(&job.id).cloned()).unwrap();
        let back = read_workload(out.as_slice(), "back.json", &ExtractOptions::new()).unwrap();
        assert_eq!((back.jobs, back.labels), (w.jobs, w.labels));

        for (job, needles) in [
            (
                r#"{"id": 1, "subtime": 0, "res": 1, "profile": "d", "class": "gold"}"#,
                ["job 1", "HPC job"],
            ),
            (
                r#"{"id": 1, "subtime": 0, "res": 1, "profile": "d", "kind": "cloud", "class": ""}"#,
                ["job 1", "1-64"],
            ),
            (
                r#"{"id": 1, "subtime": 0, "res": 1, "profile": "d", "kind": "cloud", "tenant": 7}"#,
                ["line 1", "expected a string"],
            ),
        ] {
            let e = read_workload(workload_with(job).as_bytes(), "w.json", &ExtractOptions::new())
                .unwrap_err()
                .to_string();
            assert!(
                e.contains("w.json") && needles.iter().all(|n| e.contains(n)),
                "{e}"
            );
        }
    }

    #[test]
    fn a_cloud_jobs_alpha_reconciles_its_walltime_not_its_slo() {
        let text = workload_with(
            r#"{"id": 1, "subtime": 0, "walltime": 100, "res": 1, "profile": "d", "kind": "cloud",
                "slo": 150, "alpha": 1.5},
               {"id": 2, "subtime": 0, "res": 1, "profile": "d", "kind": "cloud", "alpha": 2},
               {"id": 3, "subtime": 0, "walltime": 100, "res": 1, "profile": "d", "kind": "cloud"}"#,
        );
        let w = read_workload(text.as_bytes(), "w.json", &ExtractOptions::new()).unwrap();
        let job = |id| w.jobs.iter().find(|j| j.id == JobId(id)).unwrap();
        assert_eq!(job(1).walltime, Time::from_secs(150), "walltime × α");
        assert_eq!(job(1).slo, Some(Time::from_secs(150)), "the SLO as written");
        assert_eq!(
            job(1).runtime,
            Some(Time::from_secs(30)),
            "the run time as written"
        );
        assert_eq!(
            (job(2).walltime, job(2).walltime_enforced),
            (Time::from_secs(30), false),
            "no walltime: nothing to reconcile"
        );
        assert_eq!(job(3).walltime, Time::from_secs(100));
    }

    #[test]
    fn a_bad_alpha_names_the_job_and_the_field() {
        let message = |job: &str| {
            read_workload(workload_with(job).as_bytes(), "w.json", &ExtractOptions::new())
                .unwrap_err()
                .to_string()
        };
        for alpha in ["0", "-1", "-0.0"] {
            let err = message(&format!(
                r#"{{"id": 7, "subtime": 0, "walltime": 100, "res": 1, "profile": "d", "kind": "cloud",
                    "alpha": {alpha}}}"#
            ));
            assert!(
                err.starts_with("w.json: job 7: job.alpha: expected a finite number > 0"),
                "{alpha}: {err}"
            );
        }
        let err =
            message(r#"{"id": 7, "subtime": 0, "walltime": 100, "res": 1, "profile": "d", "alpha": "x"}"#);
        assert!(err.starts_with("w.json: not a Batsim workload"), "{err}");
        assert_eq!(
            message(r#"{"id": 8, "subtime": 0, "walltime": 100, "res": 1, "profile": "d", "alpha": 2}"#),
            "w.json: job 8: job.alpha: expected no alpha on an HPC job (α reconciles a cloud job's requested \
             time: remove it, or set \"kind\": \"cloud\"), found 2"
        );
        // The same rules for a job Batsim sends.
        let object = serde_json::json!({"id": "w!1", "res": 1, "kind": "cloud", "alpha": 0});
        let description = JobDescription::from_object(object.as_object().unwrap()).unwrap();
        assert!(matches!(
            description.alpha(),
            Err(JobFieldError::Invalid { field: "alpha", .. })
        ));
        let object = serde_json::json!({"id": "w!1", "res": 1, "kind": "cloud", "alpha": "fast"});
        assert!(matches!(
            JobDescription::from_object(object.as_object().unwrap()),
            Err(JobFieldError::Invalid { field: "alpha", .. })
        ));
    }

    #[test]
    fn write_then_read_keeps_jobs() {
        let jobs = vec![
            Job {
                id: JobId(3),
                submit: Time::from_secs(0),
                walltime: Time::from_secs(100),
                walltime_enforced: true,
                runtime: Some(Time::from_secs_f64(50.5)),
                procs: 2,
                kind: JobKind::Hpc,
                slo: None,
            },
            Job {
                id: JobId(4),
                submit: Time::from_secs(10),
                walltime: Time::from_secs(180),
                walltime_enforced: true,
                runtime: Some(Time::from_secs(18)),
                procs: 1,
                kind: JobKind::Cloud,
                slo: Some(Time::from_secs(270)),
            },
            // No requested time: Batsim's walltime -1, never killed.
            Job {
                id: JobId(5),
                submit: Time::from_secs(20),
                walltime: Time::from_secs(70),
                walltime_enforced: false,
                runtime: Some(Time::from_secs(70)),
                procs: 4,
                kind: JobKind::Hpc,
                slo: None,
            },
        ];
        let mut out = Vec::new();
        write_workload(&jobs, 8, &mut out).unwrap();
        let v: serde_json::Value = serde_json::from_slice(&out).unwrap();
        assert_eq!(v["profiles"]["delay_50.5"]["delay"], 50.5);
        assert_eq!(v["jobs"][1]["kind"], "cloud");
        assert_eq!(v["jobs"][0]["walltime"], 100);
        assert_eq!(v["jobs"][2]["walltime"], -1);
        let w = read_workload(&out[..], "x.json", &ExtractOptions::new()).unwrap();
        assert_eq!(w.jobs, jobs);
        assert_eq!(w.machine_procs, Some(8));
    }
}
