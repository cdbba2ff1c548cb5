//! Google's cluster trace of May 2011 (`clusterdata-2011-2`, the format
//! of the "Google cluster-usage traces: format + schema" document v2.1
//! linked from `ClusterData2011_2.md` of github.com/google/cluster-data),
//! read into request-trace rows ([`crate::request_trace`]) and a pool of
//! hosts.
//!
//! `task_events` files (no header, 13 columns): timestamp (µs), missing
//! info, job ID, task index, machine ID, event type, user (hashed),
//! scheduling class, priority (0–11), CPU request, memory request, disk
//! request, different-machines restriction. Event types: 0 SUBMIT,
//! 1 SCHEDULE, 2 EVICT, 3 FAIL, 4 FINISH, 5 KILL, 6 LOST, 7 UPDATE_PENDING,
//! 8 UPDATE_RUNNING. `machine_events` files: timestamp, machine ID, event
//! type (0 ADD, 1 REMOVE, 2 UPDATE), platform ID, CPUs, memory.
//!
//! Each task (job ID, task index) is one request (001 §4.2). The rules,
//! where the paper is silent (`docs/qos.md`, "Request traces"):
//!
//! - `submit` = its first SUBMIT (or its first event, when the trace lost
//!   the SUBMIT), in the trace's own clock: the trace window opens at
//!   600 s, and what existed before it carries timestamp 0 (the schema's
//!   convention), so such tasks are submitted at 0;
//! - `duration` = the sum of its run spans, each from a SCHEDULE to the next
//!   end event (EVICT, FAIL, FINISH, KILL, LOST), kept when its last end is
//!   FINISH or KILL (a user's kill is how services end; what ran is what it
//!   held). A task whose last end is EVICT, FAIL or LOST is dropped: what it
//!   needed is unknown. A task still running at the end of the input is a
//!   service (`duration` empty); one never scheduled, or with no run time
//!   at all, is dropped. Every drop is counted in [`GoogleReport`];
//! - CPU and memory: the last request given (SUBMIT and UPDATE events);
//!   priority: the last given, as a class by [`class_of_priority`];
//! - the different-machines restriction and the disk request are not kept;
//!   constraints (the separate `task_constraints` table) are not read.
//!
//! The reader keeps one small entry per task seen (about 100 bytes) until
//! the end, then sorts the rows by submit: a few part files (of 500) fit
//! easily, the whole trace's 25 million tasks would need a few GB.

use crate::error::{LineError, SwfError};
use crate::input;
use crate::request_trace::{Host, TraceRequest};
use std::collections::HashMap;
use std::path::{Path, PathBuf};

/// The class of a Google priority (001 §4.2): gold above 8, silver 2 to 8,
/// bronze below 2.
pub fn class_of_priority(priority: u8) -> &'static str {
    match priority {
        9.. => "gold",
        2..=8 => "silver",
        _ => "bronze",
    }
}

/// The names of the `task_events` columns, in order (the schema's).
const TASK_COLUMNS: [&str; 13] = [
    "timestamp",
    "missing info",
    "job ID",
    "task index",
    "machine ID",
    "event type",
    "user",
    "scheduling class",
    "priority",
    "CPU request",
    "memory request",
    "disk space request",
    "different machines restriction",
];

/// What happened to the tasks read: the rows kept and every task dropped,
/// by reason.
#[derive(Clone, Debug, Default, PartialEq, Eq, serde::Serialize)]
pub struct GoogleReport {
    /// Event lines read.
    pub events: u64,
    /// Distinct tasks seen.
    pub tasks: u64,
    /// Rows kept whose last end is FINISH.
    pub finished: u64,
    /// Rows kept whose last end is KILL.
    pub killed: u64,
    /// Rows kept as services: running at the end of the input.
    pub running_at_end: u64,
    /// Dropped: last end EVICT, never resubmitted.
    pub dropped_evicted: u64,
    /// Dropped: last end FAIL.
    pub dropped_failed: u64,
    /// Dropped: last end LOST.
    pub dropped_lost: u64,
    /// Dropped: never scheduled (pending at the end, or killed while pending).
    pub dropped_never_ran: u64,
    /// Dropped: no CPU or memory request in any of its events.
    pub dropped_no_request: u64,
    /// Dropped: no priority in any of its events.
    pub dropped_no_priority: u64,
}

/// How a run span ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum End {
    Evict,
    Fail,
    Finish,
    Kill,
    Lost,
}

/// One task's state while the events stream by.
#[derive(Clone, Debug)]
struct Task {
    submit: u64,
    running_since: Option<u64>,
    ran: u64,
    last_end: Option<End>,
    priority: Option<u8>,
    cpu: Option<f64>,
    memory: Option<f64>,
    user: String,
}

/// One `task_events` line, with what this reader uses.
#[derive(Clone, Debug)]
struct TaskEvent {
    time: u64,
    task: (u64, u64),
    kind: u8,
    user: String,
    priority: Option<u8>,
    cpu: Option<f64>,
    memory: Option<f64>,
}

/// The tasks of `task_events` files read in order (each file is one part
/// of the trace, in time order), then [`finish`](GoogleTaskEvents::finish)ed
/// into rows.
#[derive(Debug, Default)]
pub struct GoogleTaskEvents {
    tasks: HashMap<(u64, u64), Task>,
    report: GoogleReport,
    last_time: u64,
}

impl GoogleTaskEvents {
    /// No tasks yet.
    pub fn new() -> GoogleTaskEvents {
        GoogleTaskEvents::default()
    }

    /// Read one `task_events` file (plain or gzip).
    pub fn read_file(&mut self, path: &Path) -> Result<(), SwfError> {
        let input = input::open(path)?;
        self.read(input.reader, &input.name)
    }

    /// Read `task_events` lines from `reader`; `name` names it in errors.
    pub fn read(&mut self, reader: impl std::io::Read, name: &str) -> Result<(), SwfError> {
        let mut csv = csv::ReaderBuilder::new()
            .has_headers(false)
            .flexible(true)
            .from_reader(reader);
        for (index, record) in csv.records().enumerate() {
            let line = index as u64 + 1;
            let at = |kind| SwfError::Line {
                file: name.to_string(),
                line,
                kind,
            };
            let record = record.map_err(|e| {
                at(LineError::Column {
                    column: "any",
                    problem: format!("{e}: a task_events file is comma-separated text"),
                })
            })?;
            let event = task_event(&record).map_err(at)?;
            self.apply(event);
        }
        Ok(())
    }

    /// One event applied to its task.
    fn apply(&mut self, e: TaskEvent) {
        self.report.events += 1;
        self.last_time = self.last_time.max(e.time);
        let report = &mut self.report;
        let task = self.tasks.entry(e.task).or_insert_with(|| {
            report.tasks += 1;
            Task {
                submit: e.time,
                running_since: None,
                ran: 0,
                last_end: None,
                priority: None,
                cpu: None,
                memory: None,
                user: String::new(),
            }
        });
        if e.priority.is_some() {
            task.priority = e.priority;
        }
        if e.cpu.is_some() {
            task.cpu = e.cpu;
        }
        if e.memory.is_some() {
            task.memory = e.memory;
        }
        if !e.user.is_empty() {
            task.user = e.user;
        }
        let end = match e.kind {
            1 => {
                task.running_since = Some(e.time);
                task.last_end = None;
                return;
            }
            2 => End::Evict,
            3 => End::Fail,
            4 => End::Finish,
            5 => End::Kill,
            6 => End::Lost,
            _ => return, // SUBMIT, UPDATE_PENDING, UPDATE_RUNNING
        };
        if let Some(since) = task.running_since.take() {
            task.ran += e.time.saturating_sub(since);
        }
        task.last_end = Some(end);
    }

    /// The rows, sorted by submit (then job ID and task index), and what was kept and dropped.
    pub fn finish(self) -> (Vec<TraceRequest>, GoogleReport) {
        let mut report = self.report;
        let mut kept: Vec<((u64, u64), TraceRequest)> = Vec::new();
        for (key, task) in self.tasks {
            if let Some(row) = task_row(&task, &mut report) {
                kept.push((key, row));
            }
        }
        kept.sort_by(|(ka, a), (kb, b)| a.submit.total_cmp(&b.submit).then(ka.cmp(kb)));
        (kept.into_iter().map(|(_, row)| row).collect(), report)
    }
}

/// A finished reading's row for `task`, or `None` (counted in `report`) when it is dropped.
fn task_row(task: &Task, report: &mut GoogleReport) -> Option<TraceRequest> {
    let duration = match (task.running_since, task.last_end) {
        (Some(_), _) => None,
        (None, Some(End::Finish | End::Kill)) if task.ran > 0 => Some(task.ran as f64 / 1e6),
        (None, end) => {
            *match end {
                Some(End::Evict) => &mut report.dropped_evicted,
                Some(End::Fail) => &mut report.dropped_failed,
                Some(End::Lost) => &mut report.dropped_lost,
                _ => &mut report.dropped_never_ran,
            } += 1;
            return None;
        }
    };
    let (Some(cpu), Some(memory)) = (task.cpu, task.memory) else {
        report.dropped_no_request += 1;
        return None;
    };
    let Some(priority) = task.priority else {
        report.dropped_no_priority += 1;
        return None;
    };
    *match (duration, task.last_end) {
        (None, _) => &mut report.running_at_end,
        (Some(_), Some(End::Finish)) => &mut report.finished,
        _ => &mut report.killed,
    } += 1;
    Some(TraceRequest {
        submit: task.submit as f64 / 1e6,
        duration,
        cpu,
        memory,
        instances: 1,
        class: class_of_priority(priority).to_string(),
        user: if task.user.is_empty() {
            "unknown".to_string()
        } else {
            task.user.clone()
        },
        constraints: Vec::new(),
    })
}

/// One `task_events` line read.
fn task_event(record: &csv::StringRecord) -> Result<TaskEvent, LineError> {
    if record.len() != TASK_COLUMNS.len() {
        return Err(LineError::Column {
            column: "any",
            problem: format!(
                "{} columns, a task_events line has the schema's 13 ({}): is this a task_events file?",
                record.len(),
                TASK_COLUMNS.join(", ")
            ),
        });
    }
    let text = |i: usize| record.get(i).unwrap_or("").trim();
    let kind: u8 = required(text(5), 5)?;
    if kind > 8 {
        return Err(LineError::Column {
            column: TASK_COLUMNS[5],
            problem: format!(
                "{kind} is not an event type: the schema's are 0 (SUBMIT) to 8 (UPDATE_RUNNING)"
            ),
        });
    }
    let priority: Option<u8> = optional(text(8), 8)?;
    if priority.is_some_and(|p| p > 11) {
        return Err(LineError::Column {
            column: TASK_COLUMNS[8],
            problem: format!("{:?} is not a priority: the trace's run from 0 to 11", text(8)),
        });
    }
    Ok(TaskEvent {
        time: required(text(0), 0)?,
        task: (required(text(2), 2)?, required(text(3), 3)?),
        kind,
        user: text(6).to_string(),
        priority,
        cpu: resource(text(9), 9)?,
        memory: resource(text(10), 10)?,
    })
}

/// A column that must hold a number.
fn required<T: std::str::FromStr>(text: &str, column: usize) -> Result<T, LineError> {
    optional(text, column)?.ok_or_else(|| LineError::Column {
        column: TASK_COLUMNS[column],
        problem: "is empty: the schema requires it (is the file truncated?)".into(),
    })
}

/// A column that may be empty.
fn optional<T: std::str::FromStr>(text: &str, column: usize) -> Result<Option<T>, LineError> {
    if text.is_empty() {
        return Ok(None);
    }
    text.parse().map(Some).map_err(|_| LineError::Column {
        column: TASK_COLUMNS[column],
        problem: format!("{text:?} is not a number of the schema's type"),
    })
}

/// A CPU or memory request: empty, or a finite number ≥ 0.
fn resource(text: &str, column: usize) -> Result<Option<f64>, LineError> {
    match optional::<f64>(text, column)? {
        Some(v) if !(v.is_finite() && v >= 0.0) => Err(LineError::Column {
            column: TASK_COLUMNS[column],
            problem: format!("{text:?} is not a normalised request (a number from 0 to 1)"),
        }),
        v => Ok(v),
    }
}

/// The files to read for `paths`: each file as given, and each directory's
/// `*.csv` and `*.csv.gz` files sorted by name (`part-00000-of-00500.csv.gz`
/// first), so the parts are read in time order.
pub fn part_files(paths: &[PathBuf]) -> Result<Vec<PathBuf>, SwfError> {
    let mut files = Vec::new();
    for path in paths {
        if !path.is_dir() {
            files.push(path.clone());
            continue;
        }
        let entries = std::fs::read_dir(path).map_err(|source| SwfError::Io {
            action: "list",
            path: path.clone(),
            source,
        })?;
        let mut parts: Vec<PathBuf> = entries
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| {
                let name = p.file_name().and_then(|n| n.to_str()).unwrap_or("");
                name.ends_with(".csv") || name.ends_with(".csv.gz")
            })
            .collect();
        if parts.is_empty() {
            return Err(SwfError::Option(format!(
                "{}: no .csv or .csv.gz files: give the task_events directory or its part files",
                path.display()
            )));
        }
        parts.sort();
        files.extend(parts);
    }
    Ok(files)
}

/// What `machine_events` said: the machines' last known capacities.
#[derive(Clone, Debug, Default, PartialEq, serde::Serialize)]
pub struct MachinePool {
    /// One host per machine with a known capacity, in the order the
    /// machines first appeared.
    pub hosts: Vec<Host>,
    /// Machines removed at some point (REMOVE events; most come back).
    pub removed: u64,
    /// Machines whose capacity the trace never gives (left out).
    pub unknown_capacity: u64,
}

/// Read a `machine_events` file (plain or gzip) into a pool of hosts.
pub fn read_machine_events(path: &Path) -> Result<MachinePool, SwfError> {
    let input = input::open(path)?;
    machine_events(input.reader, &input.name)
}

/// [`read_machine_events`] from a reader; `name` names it in errors.
pub fn machine_events(reader: impl std::io::Read, name: &str) -> Result<MachinePool, SwfError> {
    const COLUMNS: [&str; 6] = [
        "timestamp",
        "machine ID",
        "event type",
        "platform ID",
        "CPUs",
        "memory",
    ];
    let mut order: Vec<u64> = Vec::new();
    let mut capacity: HashMap<u64, Option<Host>> = HashMap::new();
    let mut removed = std::collections::HashSet::new();
    let mut csv = csv::ReaderBuilder::new()
        .has_headers(false)
        .flexible(true)
        .from_reader(reader);
    for (index, record) in csv.records().enumerate() {
        let at = |column: &'static str, problem: String| SwfError::Line {
            file: name.to_string(),
            line: index as u64 + 1,
            kind: LineError::Column { column, problem },
        };
        let record = record.map_err(|e| at("any", e.to_string()))?;
        if record.len() != COLUMNS.len() {
            return Err(at(
                "any",
                format!(
                    "{} columns, a machine_events line has the schema's 6 ({})",
                    record.len(),
                    COLUMNS.join(", ")
                ),
            ));
        }
        let number = |i: usize| -> Result<Option<f64>, SwfError> {
            let text = record.get(i).unwrap_or("").trim();
            match text {
                "" => Ok(None),
                _ => text
                    .parse::<f64>()
                    .map(Some)
                    .map_err(|_| at(COLUMNS[i], format!("{text:?} is not a number"))),
            }
        };
        let machine =
            number(1)?.ok_or_else(|| at(COLUMNS[1], "is empty: the schema requires it".into()))? as u64;
        let kind =
            number(2)?.ok_or_else(|| at(COLUMNS[2], "is empty: 0 ADD, 1 REMOVE or 2 UPDATE".into()))?;
        let slot = capacity.entry(machine).or_insert_with(|| {
            order.push(machine);
            None
        });
        if kind == 1.0 {
            removed.insert(machine);
        } else if let (Some(cpu), Some(memory)) = (number(4)?, number(5)?) {
            *slot = Some(Host { cpu, memory });
        }
    }
    let hosts: Vec<Host> = order.iter().filter_map(|m| capacity[m]).collect();
    Ok(MachinePool {
        unknown_capacity: (order.len() - hosts.len()) as u64,
        hosts,
        removed: removed.len() as u64,
    })
}

#[cfg(test)]
mod tests;
