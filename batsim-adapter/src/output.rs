//! The two result files of a run, shared by the built-in simulator and the
//! Batsim adapter: `jobs.csv` and `summary.json`.
//!
//! `jobs.csv` starts with Batsim 4's `_jobs.csv` columns, in Batsim's order and
//! formatting (times with six decimals, `metadata` quoted, rejected jobs with
//! empty times), so evalys/pandas read it like a Batsim output, then adds
//! Interstice's columns: `kind, slo, predicted_completion,
//! predicted_violation, predicted_probability, violated, evictions,
//! evicted_runs` (the runs an
//! eviction ended before the job was resubmitted, `START-END@PROCS` joined by
//! `;`, PROCS as in `allocated_resources`; its last run is in Batsim's
//! columns). Rows come in completion order, as Batsim writes them.
//!
//! `summary.json` is written from the records' [`SummaryTally`] by
//! [`crate::summary_json`], which owns its layout.

mod digits;

use crate::row_thread::{Row, RowThread, Rows};
use crate::summary_json;
use digits::{push_time, push_u64};
use interstice_core::{EndReason, EngineConfig, JobId, JobKind, JobRecord, Summary, SummaryTally, Time};
use std::collections::HashMap;
use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};

/// The header of `jobs.csv` (Batsim's `_jobs.csv` columns, then Interstice's).
pub const JOBS_CSV_HEADER: &str = "job_id,workload_name,profile,submission_time,\
requested_number_of_resources,requested_time,success,final_state,starting_time,execution_time,\
finish_time,waiting_time,turnaround_time,stretch,allocated_resources,consumed_energy,metadata,\
kind,slo,predicted_completion,predicted_violation,predicted_probability,violated,evictions,evicted_runs";

/// The name of the jobs file inside the output directory.
pub const JOBS_CSV: &str = "jobs.csv";
/// The name of the summary file inside the output directory.
pub const SUMMARY_JSON: &str = "summary.json";
/// The name of a class run's per-request table ([`crate::qos_output`] writes
/// it; named here so [`prepare_out_dir`] can clear a stale one).
pub const REQUESTS_CSV: &str = "requests.csv";
/// The name of a class run's per-window fairness table (as [`REQUESTS_CSV`]).
pub const WINDOWS_CSV: &str = "windows.csv";

/// Batsim's names of a job's last run: the first three columns of its
/// `_jobs.csv` row.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BatsimNames {
    /// The job's name inside its workload (`7` for `w0!7`).
    pub job: String,
    /// Its workload (`w0`; `interstice` for jobs the adapter registered).
    pub workload: String,
    /// Its profile's name.
    pub profile: String,
}

/// How `jobs.csv` names jobs (its `job_id`, `workload_name` and `profile`
/// columns).
#[derive(Clone, Copy, Debug)]
pub enum Naming<'a> {
    /// As `interstice swf convert` writes a workload: the job's number, one
    /// workload name, and a `delay_<run time>` profile.
    Workload(&'a str),
    /// As Batsim named each job's last run (the adapter knows); a job without
    /// names is named as by [`Naming::Workload`].
    Batsim {
        /// The simulation's (first) workload, also `summary.json`'s `workload_name`.
        workload: &'a str,
        /// Names by engine job.
        names: &'a HashMap<JobId, BatsimNames>,
    },
}

impl Naming<'_> {
    /// The run's workload name.
    pub fn workload(&self) -> &str {
        match self {
            Naming::Workload(name) | Naming::Batsim { workload: name, .. } => name,
        }
    }

    fn push_names(&self, line: &mut Vec<u8>, record: &JobRecord) {
        if let Naming::Batsim { names, .. } = self {
            if let Some(names) = names.get(&record.job.id) {
                line.extend_from_slice(names.job.as_bytes());
                line.push(b',');
                line.extend_from_slice(names.workload.as_bytes());
                line.push(b',');
                line.extend_from_slice(names.profile.as_bytes());
                return;
            }
        }
        push_u64(line, record.job.id.0);
        line.push(b',');
        line.extend_from_slice(self.workload().as_bytes());
        line.push(b',');
        push_profile_name(line, record);
    }
}

/// Writing the result files failed.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum OutputError {
    /// Creating, writing or flushing a file or the directory failed (the
    /// system's reason is the [`source`](std::error::Error::source) only).
    #[error("cannot write {}", path.display())]
    Io {
        /// The file or directory.
        path: PathBuf,
        /// The cause.
        #[source]
        source: std::io::Error,
    },
    /// Serializing the summary failed (the reason is the source only).
    #[error("cannot serialize {}", path.display())]
    Json {
        /// The file.
        path: PathBuf,
        /// The cause.
        #[source]
        source: serde_json::Error,
    },
}

/// Check, before a run, that its results can be written: create `dir` if
/// needed and the result files in it (empty until the run writes them), so a
/// bad `--out` fails before any work instead of after it. Tables an earlier
/// run left there and this one will not rewrite are removed, as they would
/// not describe the run whose `summary.json` sits beside them: `jobs.csv`
/// without `jobs_csv` (`--no-jobs-csv`), and always a class run's
/// `requests.csv` and `windows.csv` (a class run writes them afterwards).
pub fn prepare_out_dir(dir: &Path, jobs_csv: bool) -> Result<(), OutputError> {
    std::fs::create_dir_all(dir).map_err(|source| OutputError::Io {
        path: dir.to_path_buf(),
        source,
    })?;
    let stale: &[&str] = if jobs_csv {
        &[REQUESTS_CSV, WINDOWS_CSV]
    } else {
        &[JOBS_CSV, REQUESTS_CSV, WINDOWS_CSV]
    };
    for name in stale {
        let path = dir.join(name);
        match std::fs::remove_file(&path) {
            Err(source) if source.kind() != std::io::ErrorKind::NotFound => {
                return Err(OutputError::Io { path, source })
            }
            _ => {}
        }
    }
    let files: &[&str] = if jobs_csv {
        &[JOBS_CSV, SUMMARY_JSON]
    } else {
        &[SUMMARY_JSON]
    };
    for name in files {
        let path = dir.join(name);
        std::fs::OpenOptions::new()
            .write(true)
            .create(true)
            .truncate(true)
            .open(&path)
            .map_err(|source| OutputError::Io { path, source })?;
    }
    Ok(())
}

/// Write `DIR/jobs.csv` and `DIR/summary.json` (creating `DIR` if needed) and
/// return the summary. `naming` fills Batsim's name columns; `records` come
/// in submission order, all at once (a run that streams its records uses
/// [`ResultWriter`]).
pub fn write_outputs<'r>(
    dir: &Path,
    naming: Naming<'_>,
    records: impl IntoIterator<Item = &'r JobRecord>,
    config: &EngineConfig,
) -> Result<Summary, OutputError> {
    let records: Vec<&JobRecord> = records.into_iter().collect();
    let mut writer = ResultWriter::summary_only(dir, naming)?;
    let path = dir.join(JOBS_CSV);
    File::create(&path)
        .and_then(|file| write_jobs_csv(BufWriter::new(file), naming, records.iter().copied()))
        .map_err(|source| OutputError::Io { path, source })?;
    // jobs.csv is written: the writer only tallies the summary.
    for record in records {
        writer.tally.add(record);
    }
    writer.finish(config, None)
}

/// `jobs.csv` written while a run goes: rows in Batsim's order (completion
/// time, then submission order; rejected jobs at their submission; jobs that
/// never ended last). A row is held only until no earlier row can still
/// come: the caller says how far the run has gone with
/// [`JobsCsv::write_before`], so memory follows the rows of one instant, not
/// the run.
pub struct JobsCsv<'n, W: Write> {
    out: W,
    naming: Naming<'n>,
    /// Rows not written yet: (row time, submission order, where its text
    /// lies in `text`), in the order they came.
    held: Vec<(Time, u64, std::ops::Range<usize>)>,
    /// The held rows' text, one after the other.
    text: Vec<u8>,
}

impl<'n, W: Write> JobsCsv<'n, W> {
    /// Start the file with its header.
    pub fn new(mut out: W, naming: Naming<'n>) -> std::io::Result<JobsCsv<'n, W>> {
        writeln!(out, "{JOBS_CSV_HEADER}")?;
        Ok(JobsCsv {
            out,
            naming,
            held: Vec::new(),
            text: Vec::new(),
        })
    }

    /// Start the file with its header and `columns` after Batsim's (a
    /// comma-separated list), for rows added with [`JobsCsv::add_with`].
    pub fn with_columns(mut out: W, naming: Naming<'n>, columns: &str) -> std::io::Result<JobsCsv<'n, W>> {
        writeln!(out, "{JOBS_CSV_HEADER},{columns}")?;
        Ok(JobsCsv {
            out,
            naming,
            held: Vec::new(),
            text: Vec::new(),
        })
    }

    /// Take the final record of the job submitted `seq`-th (0-based).
    pub fn add(&mut self, seq: u64, record: &JobRecord) {
        self.add_with(seq, record, "");
    }

    /// [`JobsCsv::add`] with the values of the extra columns
    /// ([`JobsCsv::with_columns`]), comma-separated, after Batsim's.
    pub fn add_with(&mut self, seq: u64, record: &JobRecord, extra: &str) {
        let from = self.text.len();
        format_row(&mut self.text, self.naming, record);
        if !extra.is_empty() {
            self.text.pop();
            self.text.push(b',');
            self.text.extend_from_slice(extra.as_bytes());
            self.text.push(b'\n');
        }
        self.held.push((row_time(record), seq, from..self.text.len()));
    }

    /// Write the rows whose row time is before `time`, in order: the caller
    /// promises that every record it adds from now on has a row time at or
    /// after `time` (a simulation at `time` has finished every earlier
    /// instant).
    pub fn write_before(&mut self, time: Time) -> std::io::Result<()> {
        if self.held.is_empty() {
            return Ok(());
        }
        self.held.sort_unstable_by_key(|row| (row.0, row.1));
        let due = self.held.partition_point(|row| row.0 < time);
        for (_, _, range) in &self.held[..due] {
            self.out.write_all(&self.text[range.clone()])?;
        }
        if due == self.held.len() {
            self.held.clear();
            self.text.clear();
        } else if due > 0 {
            // Keep the later rows' text alone.
            self.held.drain(..due);
            let mut text = Vec::with_capacity(self.text.len());
            for row in &mut self.held {
                let from = text.len();
                text.extend_from_slice(&self.text[row.2.clone()]);
                row.2 = from..text.len();
            }
            self.text = text;
        }
        Ok(())
    }

    /// Write the remaining rows and give the writer back (flushed).
    pub fn finish(mut self) -> std::io::Result<W> {
        self.write_before(Time::INFINITY)?;
        // Rows of jobs that never ended (row time infinite) come last.
        for (_, _, range) in std::mem::take(&mut self.held) {
            self.out.write_all(&self.text[range])?;
        }
        self.out.flush()?;
        Ok(self.out)
    }
}

/// Writes a run's result files while it runs: `jobs.csv` through
/// [`JobsCsv`] (unless made with [`ResultWriter::summary_only`]) and
/// `summary.json`, tallied from the same records ([`SummaryTally`]) and
/// written by [`ResultWriter::finish`].
pub struct ResultWriter<'n> {
    path: PathBuf,
    dir: PathBuf,
    naming: Naming<'n>,
    csv: Option<CsvOut<'n>>,
    /// The summary of the records added, unless a row thread tallies them.
    tally: SummaryTally,
    /// `classes` and `qos` of a run with service classes ([`crate::qos_output`]).
    classes: Option<(serde_json::Value, serde_json::Value)>,
    /// The same run's summary without its cloud jobs, for `hpc.without_cloud`.
    without_cloud: Option<Summary>,
}

/// Where a [`ResultWriter`]'s rows go: jobs named by their number are
/// formatted and written by a thread ([`RowThread`]); jobs with Batsim's
/// names (borrowed from the adapter) here.
enum CsvOut<'n> {
    Here(JobsCsv<'n, BufWriter<File>>),
    Thread(RowThread<SummaryTally>),
}

/// The `jobs.csv` thread's work: the `batches` of a run whose jobs are
/// named by `workload`, written to `file` in Batsim's row order, and the
/// run's summary tallied from the same records (off the run's thread).
fn write_rows(file: File, workload: &str, rows: Rows) -> std::io::Result<SummaryTally> {
    let out = BufWriter::with_capacity(1 << 20, file);
    let mut csv = JobsCsv::new(out, Naming::Workload(workload))?;
    let mut tally = SummaryTally::default();
    rows.for_each(|row| match row {
        Row::Record(seq, record) => {
            tally.add(record);
            csv.add(*seq, record);
            Ok(())
        }
        Row::Reached(time) => csv.write_before(*time),
    })?;
    csv.finish()?;
    Ok(tally)
}

impl<'n> ResultWriter<'n> {
    /// Create `dir` if needed and start `dir/jobs.csv`.
    pub fn create(dir: &Path, naming: Naming<'n>) -> Result<ResultWriter<'n>, OutputError> {
        let mut writer = ResultWriter::summary_only(dir, naming)?;
        let path = writer.path.clone();
        let csv = File::create(&path)
            .and_then(|file| match naming {
                Naming::Workload(name) => {
                    let name = name.to_string();
                    RowThread::spawn(move |rows| write_rows(file, &name, rows)).map(CsvOut::Thread)
                }
                Naming::Batsim { .. } => JobsCsv::new(BufWriter::new(file), naming).map(CsvOut::Here),
            })
            .map_err(|source| OutputError::Io { path, source })?;
        writer.csv = Some(csv);
        Ok(writer)
    }

    /// Create `dir` if needed; only `summary.json` will be written (no
    /// per-job rows: `--no-jobs-csv`).
    pub fn summary_only(dir: &Path, naming: Naming<'n>) -> Result<ResultWriter<'n>, OutputError> {
        std::fs::create_dir_all(dir).map_err(|source| OutputError::Io {
            path: dir.to_path_buf(),
            source,
        })?;
        Ok(ResultWriter {
            path: dir.join(JOBS_CSV),
            dir: dir.to_path_buf(),
            naming,
            csv: None,
            tally: SummaryTally::default(),
            classes: None,
            without_cloud: None,
        })
    }

    /// `summary.json` will end with these `classes` and `qos` members (a
    /// replay whose cloud jobs had service classes).
    pub fn set_classes(&mut self, classes: serde_json::Value, qos: serde_json::Value) {
        self.classes = Some((classes, qos));
    }

    /// `summary.json` will compare the HPC jobs with `summary`, the same run
    /// without its cloud jobs (`hpc.without_cloud`, `hpc.change`).
    pub fn set_without_cloud(&mut self, summary: Summary) {
        self.without_cloud = Some(summary);
    }

    /// Take the final record of the job submitted `seq`-th (0-based).
    pub fn add(&mut self, seq: u64, record: Box<JobRecord>) -> Result<(), OutputError> {
        match &mut self.csv {
            // The thread tallies what it formats.
            Some(CsvOut::Thread(rows)) => {
                return rows.add(seq, record).map_err(|source| self.io_error(source))
            }
            Some(CsvOut::Here(csv)) => csv.add(seq, &record),
            None => {}
        }
        self.tally.add(&record);
        Ok(())
    }

    /// See [`JobsCsv::write_before`].
    pub fn write_before(&mut self, time: Time) -> Result<(), OutputError> {
        let written = match &mut self.csv {
            None => Ok(()),
            Some(CsvOut::Here(csv)) => csv.write_before(time),
            Some(CsvOut::Thread(rows)) => rows.reached(time),
        };
        written.map_err(|source| self.io_error(source))
    }

    fn io_error(&self, source: std::io::Error) -> OutputError {
        OutputError::Io {
            path: self.path.clone(),
            source,
        }
    }

    /// Write the remaining rows, close `jobs.csv`, write `summary.json` and
    /// return the summary.
    pub fn finish(
        self,
        config: &EngineConfig,
        run: Option<&serde_json::Value>,
    ) -> Result<Summary, OutputError> {
        // The row thread tallied its rows' records.
        let tally = match self.csv {
            None => Ok(self.tally),
            Some(CsvOut::Here(csv)) => csv.finish().map(|_| self.tally),
            Some(CsvOut::Thread(rows)) => rows.finish(),
        };
        let tally = tally.map_err(|source| OutputError::Io {
            path: self.path.clone(),
            source,
        })?;
        let summary = tally.summary(config.procs);
        let summary_path = self.dir.join(SUMMARY_JSON);
        let mut wire = summary_json::summary_wire(
            &summary,
            self.without_cloud.as_ref(),
            config,
            self.naming.workload(),
            run,
        );
        if let Some((classes, qos)) = &self.classes {
            wire.classes = Some(classes);
            wire.qos = Some(qos);
        }
        let text = summary_json::render(&wire).map_err(|source| OutputError::Json {
            path: summary_path.clone(),
            source,
        })?;
        std::fs::write(&summary_path, text).map_err(|source| OutputError::Io {
            path: summary_path,
            source,
        })?;
        Ok(summary)
    }
}

/// Write the `jobs.csv` header and one row per record (records in submission
/// order), in Batsim's order (see [`JobsCsv`]).
pub fn write_jobs_csv<'r, W: Write>(
    mut out: W,
    naming: Naming<'_>,
    records: impl IntoIterator<Item = &'r JobRecord>,
) -> std::io::Result<W> {
    // All rows are known: sort them once and format each into one buffer
    // (what `JobsCsv` holds for a streamed run would be every row here).
    let mut rows: Vec<(Time, usize, &JobRecord)> = records
        .into_iter()
        .enumerate()
        .map(|(seq, record)| (row_time(record), seq, record))
        .collect();
    rows.sort_unstable_by_key(|&(time, seq, _)| (time, seq));
    writeln!(out, "{JOBS_CSV_HEADER}")?;
    let mut line = Vec::with_capacity(256);
    for (_, _, record) in rows {
        line.clear();
        format_row(&mut line, naming, record);
        out.write_all(&line)?;
    }
    out.flush()?;
    Ok(out)
}

/// The time at which Batsim would have written the row: the end, or the
/// submission for rejected jobs; never-ended jobs last.
fn row_time(record: &JobRecord) -> Time {
    if record.rejected {
        record.job.submit
    } else {
        record.end.unwrap_or(Time::INFINITY)
    }
}

/// Batsim's `final_state` for a record.
pub fn final_state(record: &JobRecord) -> &'static str {
    if record.rejected {
        return "REJECTED";
    }
    match (record.end_reason, record.start) {
        (Some(EndReason::Completed), _) => "COMPLETED_SUCCESSFULLY",
        (Some(EndReason::WalltimeReached), _) => "COMPLETED_WALLTIME_REACHED",
        (Some(EndReason::Evicted | EndReason::Killed), _) => "COMPLETED_KILLED",
        (None, Some(_)) => "RUNNING",
        (None, None) => "SUBMITTED",
    }
}

/// A processor set as Batsim writes it (`0-3 7`, the same text as
/// [`interstice_core::ProcSet`]'s `Display`).
fn push_procs(line: &mut Vec<u8>, procs: &interstice_core::ProcSet) {
    for (range_idx, &(lo, hi)) in procs.ranges().iter().enumerate() {
        if range_idx > 0 {
            line.push(b' ');
        }
        push_u64(line, u64::from(lo));
        if hi > lo {
            line.push(b'-');
            push_u64(line, u64::from(hi));
        }
    }
}

fn format_row(line: &mut Vec<u8>, naming: Naming<'_>, record: &JobRecord) {
    let job = &record.job;
    let state = final_state(record);
    naming.push_names(line, record);
    line.push(b',');
    push_time(line, job.submit);
    line.push(b',');
    push_u64(line, u64::from(job.procs));
    line.push(b',');
    // Batsim's `requested_time` of a job without walltime is -1.
    push_time(
        line,
        if job.walltime_enforced {
            job.walltime
        } else {
            Time::from_secs(-1)
        },
    );
    line.extend_from_slice(if state == "COMPLETED_SUCCESSFULLY" {
        b",1,"
    } else {
        b",0,"
    });
    line.extend_from_slice(state.as_bytes());
    line.push(b',');
    match (record.start, record.end, record.rejected) {
        (Some(start), Some(end), false) => {
            let execution = end - start;
            let turnaround = end - job.submit;
            push_time(line, start);
            line.push(b',');
            push_time(line, execution);
            line.push(b',');
            push_time(line, end);
            line.push(b',');
            push_time(line, start - job.submit);
            line.push(b',');
            push_time(line, turnaround);
            line.push(b',');
            push_stretch(line, turnaround, execution);
            line.push(b',');
        }
        (Some(start), None, false) => {
            push_time(line, start);
            line.extend_from_slice(b",,,");
            push_time(line, start - job.submit);
            line.extend_from_slice(b",,,");
        }
        _ => line.extend_from_slice(b",,,,,,"),
    }
    if let (Some(procs), false) = (&record.procs, record.rejected) {
        push_procs(line, procs);
    }
    line.push(b',');
    if !record.rejected && record.start.is_some() {
        line.extend_from_slice(b"-1.000000");
    }
    line.extend_from_slice(b",\"\",");
    line.extend_from_slice(job.kind.as_str().as_bytes());
    line.push(b',');
    if let Some(slo) = job.slo {
        push_time(line, slo);
    }
    line.push(b',');
    if let Some(prediction) = &record.prediction {
        match prediction.completion {
            Some(completion) => push_time(line, completion),
            None => line.extend_from_slice(b"inf"),
        }
        line.extend_from_slice(if prediction.predicts_violation {
            b",1,"
        } else {
            b",0,"
        });
        if let Some(p) = summary_json::finite(prediction.probability) {
            let _ = write!(line, "{p}");
        }
    } else {
        line.extend_from_slice(b",,");
    }
    let violated = job.kind == JobKind::Cloud && record.violated();
    line.extend_from_slice(if violated { b",1," } else { b",0," });
    push_u64(line, u64::from(record.evictions));
    line.push(b',');
    push_evicted_runs(line, &record.evicted_runs);
    line.push(b'\n');
}

/// The `evicted_runs` field read back (the format [`push_evicted_runs`]
/// writes); `None` when it is not that.
pub fn parse_evicted_runs(field: &str) -> Option<Vec<interstice_core::EvictedRun>> {
    let seconds = |text: &str| {
        text.parse::<f64>()
            .ok()
            .filter(|secs| secs.is_finite() && *secs >= 0.0)
            .map(Time::from_secs_f64)
    };
    field
        .split(';')
        .filter(|run| !run.is_empty())
        .map(|run| {
            let (times, procs) = run.split_once('@')?;
            let (start, end) = times.split_once('-')?;
            Some(interstice_core::EvictedRun {
                start: seconds(start)?,
                end: seconds(end)?,
                procs: procs.parse().ok()?,
            })
        })
        .collect()
}

/// The `evicted_runs` field: `START-END@PROCS` per run, `;` between runs,
/// quoted when a processor list has a space.
fn push_evicted_runs(line: &mut Vec<u8>, runs: &[interstice_core::EvictedRun]) {
    if runs.is_empty() {
        return;
    }
    let mut field = Vec::new();
    for (index, run) in runs.iter().enumerate() {
        if index > 0 {
            field.push(b';');
        }
        push_time(&mut field, run.start);
        field.push(b'-');
        push_time(&mut field, run.end);
        field.push(b'@');
        push_procs(&mut field, &run.procs);
    }
    if field.contains(&b' ') {
        line.push(b'"');
        line.extend_from_slice(&field);
        line.push(b'"');
    } else {
        line.extend_from_slice(&field);
    }
}

/// `turnaround / execution` with six decimals, as `{:.6}` prints the
/// `f64` quotient; `inf` for a zero-length run that waited.
fn push_stretch(line: &mut Vec<u8>, turnaround: Time, execution: Time) {
    if execution.ticks() > 0 {
        match stretch_micros(turnaround.ticks(), execution.ticks()) {
            Some(micros) => push_time(line, Time::from_ticks(micros)),
            None => {
                let _ = write!(
                    line,
                    "{:.6}",
                    turnaround.ticks() as f64 / execution.ticks() as f64
                );
            }
        }
    } else if turnaround.ticks() > 0 {
        line.extend_from_slice(b"inf");
    } else {
        line.extend_from_slice(b"1.000000");
    }
}

/// `turnaround / execution` in millionths, rounded to the nearest, when
/// that is what `{:.6}` prints for the `f64` quotient: the quotient is
/// within half an ulp (a relative 2⁻⁵³) of the exact ratio, so the two
/// round alike unless the exact ratio lies that close to a rounding
/// boundary (`None`: about one row in ten thousand, left to `{:.6}`).
fn stretch_micros(turnaround: i64, execution: i64) -> Option<i64> {
    let (n, d) = (i128::from(turnaround) * 1_000_000, i128::from(execution));
    if n < 0 || d <= 0 {
        return None;
    }
    let (whole, rest) = (n / d, n % d);
    // Distance from the half-way point, in units of 1/(2d) millionths,
    // against the f64's error bound there with a wide margin (2⁻⁵⁰).
    let from_half = (2 * rest - d).abs();
    let bound = (whole + 1) * 2 * d / (1i128 << 50) + 2;
    if from_half <= bound {
        return None;
    }
    let micros = if 2 * rest > d { whole + 1 } else { whole };
    i64::try_from(micros).ok()
}

/// The Batsim profile name of a job, as `swf inject` names the `delay`
/// profiles it writes: `delay_<seconds>` of the run time (the walltime when
/// the run time is unknown; `-1` for no limit).
fn push_profile_name(line: &mut Vec<u8>, record: &JobRecord) {
    let delay = record.job.runtime.unwrap_or(record.job.walltime);
    line.extend_from_slice(b"delay_");
    if delay.is_infinite() {
        line.extend_from_slice(b"-1");
    } else if delay.ticks() % 1_000_000 == 0 && delay.ticks() >= 0 {
        push_u64(line, delay.ticks() as u64 / 1_000_000);
    } else {
        let _ = write!(line, "{delay}");
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use interstice_core::ProcSet;

    fn text(push: impl FnOnce(&mut Vec<u8>)) -> String {
        let mut line = Vec::new();
        push(&mut line);
        String::from_utf8(line).expect("rows are ASCII and UTF-8 names")
    }

    #[test]
    fn numbers_are_formatted_like_batsim() {
        assert_eq!(text(|line| push_u64(line, 0)), "0");
        assert_eq!(text(|line| push_u64(line, u64::MAX)), u64::MAX.to_string());
        assert_eq!(text(|line| push_time(line, Time::from_secs(12))), "12.000000");
        assert_eq!(text(|line| push_time(line, Time::from_ticks(1_800))), "0.001800");
        assert_eq!(
            text(|line| push_time(line, Time::from_ticks(-2_500_000))),
            "-2.500000"
        );
        assert_eq!(text(|line| push_time(line, Time::INFINITY)), "inf");
        assert_eq!(
            text(|line| push_stretch(line, Time::from_secs(3), Time::ZERO)),
            "inf"
        );
        assert_eq!(
            text(|line| push_stretch(line, Time::from_secs(5), Time::from_secs(4))),
            "1.250000"
        );
    }

    proptest::proptest! {
        /// A time is its seconds, the point and six digits of microseconds,
        /// the extremes included.
        #[test]
        fn times_print_as_seconds_and_six_digits(ticks in proptest::prelude::any::<i64>()) {
            let time = Time::from_ticks(ticks);
            proptest::prop_assume!(!time.is_infinite());
            let abs = ticks.unsigned_abs();
            let sign = if ticks < 0 { "-" } else { "" };
            let plain = format!("{sign}{}.{:06}", abs / 1_000_000, abs % 1_000_000);
            proptest::prop_assert_eq!(text(|line| push_time(line, time)), plain);
        }

        /// The integer stretch prints what `{:.6}` prints for the f64
        /// quotient, near rounding boundaries too (`d` a power of ten
        /// times 2 puts exact ratios on them).
        #[test]
        fn stretch_is_what_f64_formatting_prints(
            turnaround in 0i64..40_000_000_000_000,
            execution in 1i64..40_000_000_000_000,
            tie in 0u32..8,
        ) {
            let cases = [
                (turnaround, execution),
                (turnaround, 2 * 10i64.pow(tie)),
                (turnaround % 1_000_000 * 10 + 5, 10_000_000),
            ];
            for (t, e) in cases {
                let ours = text(|line| push_stretch(line, Time::from_ticks(t), Time::from_ticks(e)));
                proptest::prop_assert_eq!(ours, format!("{:.6}", t as f64 / e as f64), "{} / {}", t, e);
            }
        }
    }

    /// Rows written by the `jobs.csv` thread come in Batsim's order: each
    /// instant's jobs, handed over in the reverse of their submission,
    /// come out by end time, then submission.
    #[test]
    fn a_run_s_rows_come_by_end_then_submission() {
        let dir = tempfile::tempdir().expect("temporary directory");
        let mut writer = ResultWriter::create(dir.path(), Naming::Workload("w0")).expect("create");
        for t in 0..500u64 {
            for id in (t * 10..t * 10 + 10).rev() {
                let mut record = JobRecord::new(interstice_core::Job {
                    id: JobId(id),
                    submit: Time::ZERO,
                    walltime: Time::from_secs(1000),
                    walltime_enforced: true,
                    runtime: Some(Time::from_secs(t as i64 + 1)),
                    procs: 1,
                    kind: JobKind::Hpc,
                    slo: None,
                });
                record.start = Some(Time::ZERO);
                record.end = Some(Time::from_secs(t as i64 + 1));
                writer.add(id, Box::new(record)).expect("add");
            }
            writer
                .write_before(Time::from_secs(t as i64 + 1))
                .expect("reached");
        }
        let config = EngineConfig::new(1, interstice_core::Policy::Fcfs);
        writer.finish(&config, None).expect("finish");
        let text = std::fs::read_to_string(dir.path().join(JOBS_CSV)).expect("read");
        let ids: Vec<u64> = text
            .lines()
            .skip(1)
            .map(|l| l.split(',').next().unwrap().parse().unwrap())
            .collect();
        assert_eq!(ids, (0..5000).collect::<Vec<_>>());
    }

    #[test]
    fn processor_sets_match_their_display() {
        for set in ["0", "0-3", "4 6", "0-3 7 9-12", "100-199 2000"] {
            let procs: ProcSet = set.parse().unwrap();
            assert_eq!(text(|line| push_procs(line, &procs)), procs.to_string());
            assert_eq!(procs.to_string(), set);
        }
    }
}
