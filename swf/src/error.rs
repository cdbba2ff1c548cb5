//! Errors of the crate. Every problem found in an input carries the file name,
//! the 1-based line number and the offending text, so a message reads
//! `KTH.swf:1042: field 5 (allocated processors): "abc" is not a number`.

use interstice_core::Time;
use std::fmt;
use std::path::PathBuf;

/// `text`, the content of the YAML file shown as `place`, read as `T`; a
/// syntax or shape error reads `place:LINE:COLUMN: message` (just `place:`
/// where YAML knows no position). The one reader of the YAML input files
/// (the data-center file, the service-class file).
pub(crate) fn from_yaml<T: serde::de::DeserializeOwned>(text: &str, place: &str) -> Result<T, String> {
    serde_yaml::from_str(text).map_err(|e| {
        let at = e
            .location()
            .map(|l| format!("{place}:{}:{}", l.line(), l.column()))
            .unwrap_or_else(|| place.to_string());
        format!("{at}: {e}")
    })
}

/// Any error of this crate.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum SwfError {
    /// The input could not be opened or read. The message names the action
    /// and the file; the system's reason is only the [`source`](std::error::Error::source),
    /// so printing the chain shows it once.
    #[error("cannot {action} {}", path.display())]
    Io {
        /// What was being done (`open`, `read`).
        action: &'static str,
        /// The file (or `-` for stdin).
        path: PathBuf,
        /// The cause.
        #[source]
        source: std::io::Error,
    },
    /// A problem at a given line of an input.
    #[error("{file}:{line}: {kind}")]
    Line {
        /// The input's display name (the path as given, or `-`).
        file: String,
        /// 1-based line number (0 when the position is not known, as for JSON).
        line: u64,
        /// What is wrong.
        kind: LineError,
    },
    /// A Batsim workload JSON that does not have the expected shape.
    #[error("{file}: {message}")]
    Json {
        /// The input's display name.
        file: String,
        /// What is wrong, with the fix when there is one.
        message: String,
    },
    /// An invalid option value (cloud-job injection, extraction options).
    #[error("{0}")]
    Option(String),
}

impl SwfError {
    /// The line-level cause, when the error is about one line of an input.
    pub fn line_error(&self) -> Option<&LineError> {
        match self {
            SwfError::Line { kind, .. } => Some(kind),
            _ => None,
        }
    }
}

/// What is wrong with one line of an SWF file (or one job of a workload, or
/// one line of a maintenance file).
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum LineError {
    /// A field is not a number.
    NotANumber {
        /// 1-based field number.
        field: usize,
        /// The value as found.
        value: String,
    },
    /// A count or identifier field holds a fractional number.
    NotWhole {
        /// 1-based field number.
        field: usize,
        /// The value as found.
        value: String,
    },
    /// A number is too large for its field.
    OutOfRange {
        /// 1-based field number.
        field: usize,
        /// The value as found.
        value: String,
    },
    /// The line does not have the 18 fields of the standard.
    FieldCount {
        /// How many whitespace-separated fields the line has.
        found: usize,
    },
    /// A value the engine cannot take (a submit time of -50 or 1e30, a
    /// walltime that rounds to 0 µs).
    NotInRange {
        /// 1-based field number.
        field: usize,
        /// The value (after `--walltime-factor` for walltimes).
        value: String,
        /// The allowed range, in words.
        allowed: &'static str,
    },
    /// A job number an earlier line already used.
    DuplicateId {
        /// SWF job number.
        job: u64,
        /// Line of its first use.
        first_line: u64,
    },
    /// A job needs more processors than the machine has.
    TooWide {
        /// SWF job number.
        job: u64,
        /// Processors the job needs.
        procs: u64,
        /// Processors of the machine.
        machine: u32,
    },
    /// A line of a maintenance file that is not a usable window.
    Maintenance(WindowError),
    /// A line of an area schedule that is not a usable change: what is
    /// wrong and the fix.
    AreaSchedule(String),
    /// A named column of a CSV row (a request trace, a Google trace file)
    /// that is not usable: `problem` says what is wrong and the fix.
    Column {
        /// The column's name (`cpu`, `event type`).
        column: &'static str,
        /// What is wrong, with the fix.
        problem: String,
    },
}

impl fmt::Display for LineError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            LineError::NotANumber { field, value } => {
                write!(
                    f,
                    "field {field} ({}): {value:?} is not a number",
                    field_name(*field)
                )
            }
            LineError::NotWhole { field, value } => {
                write!(
                    f,
                    "field {field} ({}): {value:?} is not a whole number",
                    field_name(*field)
                )
            }
            LineError::OutOfRange { field, value } => {
                write!(
                    f,
                    "field {field} ({}): {value:?} is out of range",
                    field_name(*field)
                )
            }
            LineError::NotInRange {
                field,
                value,
                allowed,
            } => write!(
                f,
                "field {field} ({}): {value} is outside its allowed range, {allowed} \
                 (fix the trace, or pass --lenient to skip such lines)",
                field_name(*field)
            ),
            LineError::DuplicateId { job, first_line } => write!(
                f,
                "job number {job} was already used at line {first_line}: job numbers must be unique \
                 (renumber the trace, or pass --lenient to skip the repeats)"
            ),
            LineError::FieldCount { found } => write!(
                f,
                "expected the 18 fields of the standard workload format, found {found} \
                 (write -1 for unknown values)"
            ),
            LineError::Maintenance(window) => write!(f, "{window}"),
            LineError::AreaSchedule(why) => write!(f, "{why}"),
            LineError::Column { column, problem } => write!(f, "column {column}: {problem}"),
            LineError::TooWide { job, procs, machine } => write!(
                f,
                "job {job} needs {procs} processors but the machine has {machine} \
                 (pass --clip {machine} to clip such jobs, or --lenient to skip them)"
            ),
        }
    }
}

/// What is wrong with one maintenance window (a line of the file, an entry
/// of a config). The message names the field (`start`, `duration`,
/// `procs`) and says what to write instead. Read by [`crate::maintenance`],
/// carried by [`SwfError::Maintenance`].
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum WindowError {
    /// A line without exactly three fields.
    #[error(
        "expected the 3 fields `start duration procs`, found {found}: write one window per line, \
         e.g. `3600 7200 0-3,8`"
    )]
    FieldCount {
        /// Whitespace-separated fields on the line.
        found: usize,
    },
    /// `start` is not an instant.
    #[error(
        "start {value:?} is not a time in seconds from 0 to {max:e}: write when the window opens, e.g. 3600",
        max = Time::MAX_INSTANT_SECS
    )]
    Start {
        /// The value as written.
        value: String,
    },
    /// `duration` is not a finite number.
    #[error("duration {value:?} is not a number of seconds: write how long the window lasts, e.g. 7200")]
    Duration {
        /// The value as written.
        value: String,
    },
    /// `procs` is not a list of ids and ranges.
    #[error(
        "procs {value:?}: {problem}: write processor ids and inclusive ranges separated by commas, \
         e.g. 0-3,8,10-11"
    )]
    Procs {
        /// The value as written.
        value: String,
        /// What is wrong with it.
        problem: String,
    },
    /// The engine refuses the window; its message names the field and the fix.
    #[error("{0}")]
    Refused(String),
}

/// The standard's name of a 1-based SWF field (`5` → `allocated processors`).
pub fn field_name(field: usize) -> &'static str {
    FIELD_NAMES
        .get(field.wrapping_sub(1))
        .copied()
        .unwrap_or("unknown field")
}

/// Names of the 18 SWF fields, in order.
pub const FIELD_NAMES: [&str; 18] = [
    "job number",
    "submit time",
    "wait time",
    "run time",
    "allocated processors",
    "average cpu time used",
    "used memory",
    "requested processors",
    "requested time",
    "requested memory",
    "status",
    "user id",
    "group id",
    "executable number",
    "queue number",
    "partition number",
    "preceding job number",
    "think time from preceding job",
];
