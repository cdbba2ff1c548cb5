//! The request-trace CSV format: one line per cloud request, for the
//! service-class scheduler's studies (`docs/qos.md`, "Request traces").
//!
//! ```text
//! submit,duration,cpu,memory,instances,class,user,constraints
//! 0,3600,0.25,0.125,1,gold,alice,
//! 12.5,,0.0625,0.03,4,bronze,bob,arch=x86;zone=a
//! ```
//!
//! - `submit`: seconds from the trace's start (≥ 0); rows must come in
//!   non-decreasing `submit` order (the reader streams, so it refuses a row
//!   earlier than the one before it rather than sorting the file: sort it, e.g.
//!   `sort -t, -k1,1g`, keeping the header first);
//! - `duration`: seconds the request must hold its resources (> 0), or empty
//!   for a service that runs to the end of the run;
//! - `cpu`, `memory`: non-negative numbers in the hosts' units (Google's trace
//!   normalises both to its largest machine);
//! - `instances`: a whole number ≥ 1, independent requests sharing the row's
//!   values (001 §4.2: each task of a job is an independent request);
//! - `class`, `user`: non-empty names;
//! - `constraints` (optional column): `key=value` pairs separated by `;`,
//!   matched against the hosts' attributes; empty for none.
//!
//! Columns are found by their header names, in any order; an unknown column
//! is refused (a typo would otherwise be silently dropped). Errors name the
//! file, the line, the column and the fix:
//! `trace.csv:17: column cpu: "-1" is negative: write a number ≥ 0 …`.

use crate::error::{LineError, SwfError};
use crate::input::{self, Input};
use std::io::{BufRead, Write};
use std::path::Path;

/// The columns every request trace has, in the order the writer puts them.
pub const COLUMNS: [&str; 7] = [
    "submit",
    "duration",
    "cpu",
    "memory",
    "instances",
    "class",
    "user",
];

/// The optional column of placement constraints.
pub const CONSTRAINTS: &str = "constraints";

/// One row of a request trace: a neutral description of one or more
/// identical cloud requests, converted into the scheduler's requests by
/// the study.
#[derive(Clone, Debug, PartialEq)]
pub struct TraceRequest {
    /// Seconds from the trace's start.
    pub submit: f64,
    /// Seconds it must run; `None` for a service running to the end.
    pub duration: Option<f64>,
    /// CPU per instance, in the hosts' units.
    pub cpu: f64,
    /// Memory per instance, in the hosts' units.
    pub memory: f64,
    /// Identical independent instances (≥ 1).
    pub instances: u32,
    /// The service class's name.
    pub class: String,
    /// The submitting user.
    pub user: String,
    /// Placement constraints, `(key, value)` pairs matched against the hosts'
    /// attributes.
    pub constraints: Vec<(String, String)>,
}

/// Where each known column sits in a file's rows.
#[derive(Clone, Copy, Debug)]
struct Layout {
    /// Positions of [`COLUMNS`], in that order.
    required: [usize; 7],
    /// Position of the `constraints` column, when the file has one.
    constraints: Option<usize>,
    /// Columns of the header: every row has as many.
    width: usize,
}

/// A streaming reader of a request trace (plain or gzip, `-` for stdin):
/// an iterator of rows, stopping at the first error.
pub struct RequestTraceReader {
    name: String,
    records: csv::StringRecordsIntoIter<Box<dyn BufRead>>,
    layout: Layout,
    last_submit: f64,
    failed: bool,
}

impl std::fmt::Debug for RequestTraceReader {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RequestTraceReader")
            .field("name", &self.name)
            .finish_non_exhaustive()
    }
}

impl RequestTraceReader {
    /// Open `path` and read its header.
    pub fn open(path: &Path) -> Result<RequestTraceReader, SwfError> {
        RequestTraceReader::from_input(input::open(path)?)
    }

    /// Read the header of an opened input.
    pub fn from_input(input: Input) -> Result<RequestTraceReader, SwfError> {
        let mut csv = csv::ReaderBuilder::new()
            .has_headers(true)
            .flexible(true)
            .trim(csv::Trim::All)
            .from_reader(input.reader);
        let name = input.name;
        let header = csv.headers().map_err(|e| csv_error(&name, e))?.clone();
        let layout = layout(&header).map_err(|problem| SwfError::Line {
            file: name.clone(),
            line: 1,
            kind: LineError::Column {
                column: "header",
                problem,
            },
        })?;
        Ok(RequestTraceReader {
            name,
            records: csv.into_records(),
            layout,
            last_submit: 0.0,
            failed: false,
        })
    }

    /// Read a whole trace from text (tests, small inputs); `name` names it in errors.
    pub fn read_all(text: &str, name: &str) -> Result<Vec<TraceRequest>, SwfError> {
        let input = Input {
            name: name.to_string(),
            reader: Box::new(std::io::Cursor::new(text.as_bytes().to_vec())),
        };
        RequestTraceReader::from_input(input)?.collect()
    }
}

impl Iterator for RequestTraceReader {
    type Item = Result<TraceRequest, SwfError>;

    fn next(&mut self) -> Option<Self::Item> {
        if self.failed {
            return None;
        }
        let record = match self.records.next()? {
            Ok(record) => record,
            Err(e) => {
                self.failed = true;
                return Some(Err(csv_error(&self.name, e)));
            }
        };
        let line = record.position().map_or(0, |p| p.line());
        let row = parse_row(&record, self.layout, self.last_submit).map_err(|kind| SwfError::Line {
            file: self.name.clone(),
            line,
            kind,
        });
        match &row {
            Ok(request) => self.last_submit = request.submit,
            Err(_) => self.failed = true,
        }
        Some(row)
    }
}

/// A CSV-level error (bad quoting, bad UTF-8, a read error) naming the file.
fn csv_error(name: &str, e: csv::Error) -> SwfError {
    let line = e.position().map_or(0, |p| p.line());
    SwfError::Line {
        file: name.to_string(),
        line,
        kind: LineError::Column {
            column: "any",
            problem: format!("{e}: write plain comma-separated UTF-8 text"),
        },
    }
}

/// The positions of the known columns in `header`.
fn layout(header: &csv::StringRecord) -> Result<Layout, String> {
    let expected = format!("{},{} (optional)", COLUMNS.join(","), CONSTRAINTS);
    if let Some(unknown) = header.iter().find(|h| !COLUMNS.contains(h) && *h != CONSTRAINTS) {
        return Err(format!("unknown column {unknown:?}: the columns are {expected}"));
    }
    let mut required = [0; 7];
    for (slot, column) in required.iter_mut().zip(COLUMNS) {
        *slot = header.iter().position(|h| h == column).ok_or_else(|| {
            format!("no column {column:?}: the first line must name the columns {expected}")
        })?;
    }
    let constraints = header.iter().position(|h| h == CONSTRAINTS);
    Ok(Layout {
        required,
        constraints,
        width: header.len(),
    })
}

/// One data row, checked; `last_submit` is the previous row's submit time.
fn parse_row(
    record: &csv::StringRecord,
    layout: Layout,
    last_submit: f64,
) -> Result<TraceRequest, LineError> {
    if record.len() != layout.width {
        return Err(LineError::Column {
            column: "any",
            problem: format!(
                "{} fields, the header names {}: write one field per column (empty for none)",
                record.len(),
                layout.width
            ),
        });
    }
    let [submit, duration, cpu, memory, instances, class, user] = layout.required;
    let field = |i: usize| record.get(i).unwrap_or("");
    let submit = number(
        field(submit),
        "submit",
        "the submission time in seconds, e.g. 3600",
    )?;
    if submit < last_submit {
        return Err(LineError::Column {
            column: "submit",
            problem: format!(
                "{submit} is earlier than the row before ({last_submit}): sort the rows by submit"
            ),
        });
    }
    let duration = match field(duration) {
        "" => None,
        text => {
            let d = number(
                text,
                "duration",
                "seconds it runs, e.g. 600, or leave it empty for a service",
            )?;
            if d == 0.0 {
                return Err(LineError::Column {
                    column: "duration",
                    problem: "0 is not a duration: write the seconds it runs (> 0), or leave it empty for a service"
                        .into(),
                });
            }
            Some(d)
        }
    };
    Ok(TraceRequest {
        submit,
        duration,
        cpu: number(
            field(cpu),
            "cpu",
            "the CPU per instance in the hosts' units, e.g. 0.25",
        )?,
        memory: number(
            field(memory),
            "memory",
            "the memory per instance in the hosts' units, e.g. 0.125",
        )?,
        instances: whole(field(instances))?,
        class: name(field(class), "class", "the service class, e.g. gold")?,
        user: name(field(user), "user", "who submitted it, e.g. alice")?,
        constraints: match layout.constraints {
            Some(i) => constraints(field(i))?,
            None => Vec::new(),
        },
    })
}

/// A finite non-negative number.
fn number(text: &str, column: &'static str, what: &str) -> Result<f64, LineError> {
    let problem = match text.parse::<f64>() {
        Ok(v) if v.is_finite() && v >= 0.0 => return Ok(v),
        Ok(v) if v.is_finite() => "is negative",
        Ok(_) => "is not finite",
        Err(_) if text.is_empty() => "is missing",
        Err(_) => "is not a number",
    };
    Err(LineError::Column {
        column,
        problem: format!("{text:?} {problem}: write {what} (a number ≥ 0)"),
    })
}

/// The `instances` column: a whole number ≥ 1.
fn whole(text: &str) -> Result<u32, LineError> {
    match text.parse::<u32>() {
        Ok(n) if n >= 1 => Ok(n),
        _ => Err(LineError::Column {
            column: "instances",
            problem: format!(
                "{text:?} is not a whole number ≥ 1: write how many identical instances, e.g. 1"
            ),
        }),
    }
}

/// A non-empty name.
fn name(text: &str, column: &'static str, what: &str) -> Result<String, LineError> {
    if text.is_empty() {
        return Err(LineError::Column {
            column,
            problem: format!("is empty: write {what}"),
        });
    }
    Ok(text.to_string())
}

/// `key=value;key2=value2` (empty: none).
fn constraints(text: &str) -> Result<Vec<(String, String)>, LineError> {
    text.split(';')
        .map(str::trim)
        .filter(|item| !item.is_empty())
        .map(|item| match item.split_once('=') {
            Some((key, value)) if !key.trim().is_empty() => {
                Ok((key.trim().to_string(), value.trim().to_string()))
            }
            _ => Err(LineError::Column {
                column: CONSTRAINTS,
                problem: format!(
                    "{item:?} is not key=value: write pairs separated by `;`, e.g. arch=x86;zone=a"
                ),
            }),
        })
        .collect()
}

/// Writes request-trace rows under the full header (constraints included);
/// numbers are written in Rust's shortest exact form, so reading the file
/// back gives equal rows.
pub struct RequestTraceWriter<W: Write> {
    csv: csv::Writer<W>,
}

impl<W: Write> RequestTraceWriter<W> {
    /// A writer that has written the header.
    pub fn new(out: W) -> std::io::Result<RequestTraceWriter<W>> {
        let mut csv = csv::Writer::from_writer(out);
        let mut header: Vec<&str> = COLUMNS.to_vec();
        header.push(CONSTRAINTS);
        csv.write_record(&header).map_err(std::io::Error::other)?;
        Ok(RequestTraceWriter { csv })
    }

    /// Write one row.
    pub fn write(&mut self, r: &TraceRequest) -> std::io::Result<()> {
        let constraints: Vec<String> = r.constraints.iter().map(|(k, v)| format!("{k}={v}")).collect();
        self.csv
            .write_record([
                r.submit.to_string(),
                r.duration.map_or(String::new(), |d| d.to_string()),
                r.cpu.to_string(),
                r.memory.to_string(),
                r.instances.to_string(),
                r.class.clone(),
                r.user.clone(),
                constraints.join(";"),
            ])
            .map_err(std::io::Error::other)
    }

    /// Flush and give the output back.
    pub fn finish(self) -> std::io::Result<W> {
        self.csv
            .into_inner()
            .map_err(|e| std::io::Error::other(e.to_string()))
    }
}

/// Write `rows` to `path` as a request trace.
pub fn write_file(path: &Path, rows: &[TraceRequest]) -> std::io::Result<()> {
    let file = std::io::BufWriter::new(std::fs::File::create(path)?);
    let mut writer = RequestTraceWriter::new(file)?;
    for row in rows {
        writer.write(row)?;
    }
    writer.finish()?.flush()
}

/// One host of a pool, in the units of the requests (`hosts.csv`'s row).
#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Host {
    /// CPU capacity.
    pub cpu: f64,
    /// Memory capacity.
    pub memory: f64,
}

/// Write `hosts` to `path` as `cpu,memory` rows under that header: a pool
/// of hosts in the order they are to be taken (001 §4.3 adds hosts one at
/// a time until the pool reaches the sample's peak).
pub fn write_hosts(path: &Path, hosts: &[Host]) -> std::io::Result<()> {
    let mut out = std::io::BufWriter::new(std::fs::File::create(path)?);
    writeln!(out, "cpu,memory")?;
    for h in hosts {
        writeln!(out, "{},{}", h.cpu, h.memory)?;
    }
    out.flush()
}

#[cfg(test)]
mod tests {
    use super::*;

    const HEADER: &str = "submit,duration,cpu,memory,instances,class,user,constraints\n";

    fn read(text: &str) -> Result<Vec<TraceRequest>, SwfError> {
        RequestTraceReader::read_all(text, "trace.csv")
    }

    fn error(text: &str) -> String {
        read(text).unwrap_err().to_string()
    }

    #[test]
    fn reads_good_rows_with_services_and_constraints() {
        let rows = read(&format!(
            "{HEADER}0,3600,0.25,0.125,1,gold,alice,\n12.5,,0.0625,0.03,4,bronze,bob,arch=x86; zone = a\n"
        ))
        .unwrap();
        assert_eq!(rows.len(), 2);
        assert_eq!(rows[0].duration, Some(3600.0));
        assert_eq!(rows[0].constraints, vec![]);
        assert_eq!(rows[1].duration, None);
        assert_eq!(rows[1].instances, 4);
        assert_eq!(
            rows[1].constraints,
            vec![("arch".into(), "x86".into()), ("zone".into(), "a".into())]
        );
    }

    #[test]
    fn columns_in_any_order_and_constraints_optional() {
        let rows =
            read("user,class,instances,memory,cpu,duration,submit\nann,silver,2,0.5,0.25,10,7\n").unwrap();
        assert_eq!(rows[0].submit, 7.0);
        assert_eq!(rows[0].cpu, 0.25);
        assert_eq!(rows[0].memory, 0.5);
        assert_eq!(rows[0].user, "ann");
        assert!(rows[0].constraints.is_empty());
    }

    #[test]
    fn bad_rows_name_file_line_column_and_fix() {
        let bad = [
            (
                "1,10,-1,0.1,1,gold,a,",
                "trace.csv:2: column cpu: \"-1\" is negative: write",
            ),
            (
                "1,10,0.1,abc,1,gold,a,",
                "trace.csv:2: column memory: \"abc\" is not a number",
            ),
            (
                "1,10,0.1,0.1,0,gold,a,",
                "trace.csv:2: column instances: \"0\" is not a whole number ≥ 1",
            ),
            (
                "1,0,0.1,0.1,1,gold,a,",
                "trace.csv:2: column duration: 0 is not a duration",
            ),
            ("1,10,0.1,0.1,1,,a,", "trace.csv:2: column class: is empty"),
            (
                "1,10,0.1,0.1,1,gold,a,zone",
                "trace.csv:2: column constraints: \"zone\" is not key=value",
            ),
            (
                ",10,0.1,0.1,1,gold,a,",
                "trace.csv:2: column submit: \"\" is missing",
            ),
        ];
        for (row, expected) in bad {
            let message = error(&format!("{HEADER}{row}\n"));
            assert!(message.starts_with(expected), "{row}: {message}");
        }
        let short = error(&format!("{HEADER}1,10,0.1,0.1,1,gold\n"));
        assert!(
            short.starts_with("trace.csv:2: column any: 6 fields, the header names 8"),
            "{short}"
        );
        let unsorted = error(&format!("{HEADER}5,1,0,0,1,gold,a,\n4,1,0,0,1,gold,a,\n"));
        assert!(
            unsorted.starts_with("trace.csv:3: column submit: 4 is earlier"),
            "{unsorted}"
        );
        assert!(unsorted.contains("sort the rows by submit"), "{unsorted}");
    }

    #[test]
    fn bad_headers_are_refused() {
        let missing = error("submit,duration,cpu,memory,instances,class\n");
        assert!(
            missing.starts_with("trace.csv:1: column header: no column \"user\""),
            "{missing}"
        );
        let typo = error("submit,duration,cpu,mem,instances,class,user\n");
        assert!(typo.contains("unknown column \"mem\""), "{typo}");
    }

    #[test]
    fn writer_then_reader_gives_the_same_rows() {
        let rows = vec![
            TraceRequest {
                submit: 0.1,
                duration: Some(1.0 / 3.0),
                cpu: 0.062_5,
                memory: 1e-7,
                instances: 3,
                class: "silver".into(),
                user: "u,with comma".into(),
                constraints: vec![("arch".into(), "arm".into()), ("os".into(), "linux".into())],
            },
            TraceRequest {
                submit: 86_400.0,
                duration: None,
                cpu: 1.0,
                memory: 0.0,
                instances: 1,
                class: "gold".into(),
                user: "v".into(),
                constraints: vec![],
            },
        ];
        let mut writer = RequestTraceWriter::new(Vec::new()).unwrap();
        for row in &rows {
            writer.write(row).unwrap();
        }
        let text = String::from_utf8(writer.finish().unwrap()).unwrap();
        assert!(text.starts_with(HEADER), "{text}");
        assert_eq!(read(&text).unwrap(), rows);
    }
}
