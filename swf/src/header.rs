//! The SWF header: `; Key: value` comment lines before the first job line.
//!
//! Every key of the standard is typed; unknown keys are kept, in order, in
//! [`Header::other`]. A comment line that follows a key line and is indented
//! by more than two spaces continues that key's value (the archive's traces
//! wrap long `Information:` and `Note:` values that way); the lines of a
//! multi-line value are joined with `\n`. Other comment lines are kept in
//! [`Header::comments`].

use crate::error::LineError;
use std::io::{self, Write};

/// The typed header of an SWF trace. `None`/empty means the key was absent.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Header {
    /// `Version`: version of the standard the trace follows.
    pub version: Option<String>,
    /// `Computer`: brand and model.
    pub computer: Option<String>,
    /// `Installation`: where the machine is.
    pub installation: Option<String>,
    /// `Acknowledge`: who provided the trace.
    pub acknowledge: Option<String>,
    /// `Information`: where to find more.
    pub information: Option<String>,
    /// `Conversion`: who converted the log to SWF.
    pub conversion: Option<String>,
    /// `MaxJobs`: number of jobs in the trace.
    pub max_jobs: Option<u64>,
    /// `MaxRecords`: number of records (lines) in the trace.
    pub max_records: Option<u64>,
    /// `Preemption`: `Yes`, `No`, `Double` or `TS`.
    pub preemption: Option<String>,
    /// `UnixStartTime`: epoch seconds of time 0 of the trace.
    pub unix_start_time: Option<i64>,
    /// `TimeZone`: offset in seconds (deprecated by the standard, still common).
    pub time_zone: Option<i64>,
    /// `TimeZoneString`: e.g. `Europe/Stockholm`.
    pub time_zone_string: Option<String>,
    /// `StartTime`: human-readable start of the log.
    pub start_time: Option<String>,
    /// `EndTime`: human-readable end of the log.
    pub end_time: Option<String>,
    /// `MaxNodes`: nodes of the machine.
    pub max_nodes: Option<u64>,
    /// `MaxProcs`: processors of the machine.
    pub max_procs: Option<u64>,
    /// `MaxRuntime`: largest allowed run time, seconds.
    pub max_runtime: Option<u64>,
    /// `MaxMemory`: largest allowed memory per processor, kilobytes.
    pub max_memory: Option<u64>,
    /// `AllowOveruse`: may jobs exceed their requested time or memory.
    pub allow_overuse: Option<bool>,
    /// `MaxQueues`: number of queues.
    pub max_queues: Option<u64>,
    /// `Queues`: free-text description of the queues.
    pub queues: Option<String>,
    /// `Queue` lines, one per queue (`0 interactive`).
    pub queue: Vec<String>,
    /// `MaxPartitions`: number of partitions.
    pub max_partitions: Option<u64>,
    /// `Partitions`: free-text description of the partitions.
    pub partitions: Option<String>,
    /// `Partition` lines, one per partition.
    pub partition: Vec<String>,
    /// `Note` lines.
    pub notes: Vec<String>,
    /// Keys the standard does not define, in order of appearance.
    pub other: Vec<(String, String)>,
    /// Comment lines that are neither a key nor a continuation.
    pub comments: Vec<String>,
}

/// Which value a continuation line extends.
#[derive(Clone, Copy, Debug)]
enum Slot {
    Text(TextKey),
    Queue,
    Partition,
    Note,
    Other,
}

#[derive(Clone, Copy, Debug)]
enum TextKey {
    Version,
    Computer,
    Installation,
    Acknowledge,
    Information,
    Conversion,
    Preemption,
    TimeZoneString,
    StartTime,
    EndTime,
    Queues,
    Partitions,
}

/// Incremental header parser: feed it comment lines in order.
#[derive(Debug, Default)]
pub(crate) struct HeaderBuilder {
    header: Header,
    last: Option<Slot>,
}

/// Split `Key: value` when the comment text starts with a key: letters, digits
/// or `_`, then `:`, then whitespace or the end of the line.
fn split_key(text: &str) -> Option<(&str, &str)> {
    let colon = text.find(':')?;
    let key = &text[..colon];
    let rest = &text[colon + 1..];
    let key_ok = !key.is_empty()
        && key.as_bytes()[0].is_ascii_alphabetic()
        && key.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_');
    let rest_ok = rest.is_empty() || rest.starts_with([' ', '\t']);
    (key_ok && rest_ok).then(|| (key, rest.trim()))
}

fn parse_u64(key: &str, value: &str) -> Result<u64, LineError> {
    value.parse::<u64>().or_else(|_| {
        whole_float(value)
            .filter(|v| *v >= 0)
            .map(|v| v as u64)
            .ok_or(LineError::Header {
                key: key.to_string(),
                value: value.to_string(),
                expected: "a whole number",
            })
    })
}

fn parse_i64(key: &str, value: &str) -> Result<i64, LineError> {
    value.parse::<i64>().or_else(|_| {
        whole_float(value).ok_or(LineError::Header {
            key: key.to_string(),
            value: value.to_string(),
            expected: "a whole number",
        })
    })
}

fn whole_float(value: &str) -> Option<i64> {
    let f: f64 = value.parse().ok()?;
    (f.is_finite() && f.fract() == 0.0 && f.abs() < 9.0e18).then_some(f as i64)
}

fn parse_bool(key: &str, value: &str) -> Result<bool, LineError> {
    match value.to_ascii_lowercase().as_str() {
        "yes" | "true" | "1" => Ok(true),
        "no" | "false" | "0" => Ok(false),
        _ => Err(LineError::Header {
            key: key.to_string(),
            value: value.to_string(),
            expected: "Yes or No",
        }),
    }
}

impl HeaderBuilder {
    /// Take one comment line (the text after `;`, newline stripped).
    pub(crate) fn comment(&mut self, text: &str) -> Result<(), LineError> {
        let indent = text.len() - text.trim_start().len();
        let trimmed = text.trim();
        if trimmed.is_empty() {
            self.last = None;
            return Ok(());
        }
        if indent > 2 {
            if let Some(slot) = self.last {
                self.append(slot, trimmed);
                return Ok(());
            }
        }
        match split_key(trimmed) {
            Some((key, value)) => self.key(key, value),
            None => {
                self.last = None;
                self.header.comments.push(trimmed.to_string());
                Ok(())
            }
        }
    }

    fn key(&mut self, key: &str, value: &str) -> Result<(), LineError> {
        let h = &mut self.header;
        let text = |v: &str| Some(v.to_string());
        // Keys are matched case-insensitively: traces in the wild vary.
        let slot = match key.to_ascii_lowercase().as_str() {
            "version" => Some(Slot::Text(TextKey::Version)),
            "computer" => Some(Slot::Text(TextKey::Computer)),
            "installation" => Some(Slot::Text(TextKey::Installation)),
            "acknowledge" => Some(Slot::Text(TextKey::Acknowledge)),
            "information" => Some(Slot::Text(TextKey::Information)),
            "conversion" => Some(Slot::Text(TextKey::Conversion)),
            "preemption" => Some(Slot::Text(TextKey::Preemption)),
            "timezonestring" => Some(Slot::Text(TextKey::TimeZoneString)),
            "starttime" => Some(Slot::Text(TextKey::StartTime)),
            "endtime" => Some(Slot::Text(TextKey::EndTime)),
            "queues" => Some(Slot::Text(TextKey::Queues)),
            "partitions" => Some(Slot::Text(TextKey::Partitions)),
            "maxjobs" => {
                h.max_jobs = Some(parse_u64(key, value)?);
                None
            }
            "maxrecords" => {
                h.max_records = Some(parse_u64(key, value)?);
                None
            }
            "unixstarttime" => {
                h.unix_start_time = Some(parse_i64(key, value)?);
                None
            }
            "timezone" => {
                h.time_zone = Some(parse_i64(key, value)?);
                None
            }
            "maxnodes" => {
                h.max_nodes = Some(parse_u64(key, value)?);
                None
            }
            "maxprocs" => {
                h.max_procs = Some(parse_u64(key, value)?);
                None
            }
            "maxruntime" => {
                h.max_runtime = Some(parse_u64(key, value)?);
                None
            }
            "maxmemory" => {
                h.max_memory = Some(parse_u64(key, value)?);
                None
            }
            "allowoveruse" => {
                h.allow_overuse = Some(parse_bool(key, value)?);
                None
            }
            "maxqueues" => {
                h.max_queues = Some(parse_u64(key, value)?);
                None
            }
            "maxpartitions" => {
                h.max_partitions = Some(parse_u64(key, value)?);
                None
            }
            "queue" => {
                h.queue.push(value.to_string());
                Some(Slot::Queue)
            }
            "partition" => {
                h.partition.push(value.to_string());
                Some(Slot::Partition)
            }
            "note" => {
                h.notes.push(value.to_string());
                Some(Slot::Note)
            }
            _ => {
                h.other.push((key.to_string(), value.to_string()));
                Some(Slot::Other)
            }
        };
        if let Some(Slot::Text(k)) = slot {
            *self.text_mut(k) = text(value);
        }
        self.last = slot;
        Ok(())
    }

    fn text_mut(&mut self, key: TextKey) -> &mut Option<String> {
        let h = &mut self.header;
        match key {
            TextKey::Version => &mut h.version,
            TextKey::Computer => &mut h.computer,
            TextKey::Installation => &mut h.installation,
            TextKey::Acknowledge => &mut h.acknowledge,
            TextKey::Information => &mut h.information,
            TextKey::Conversion => &mut h.conversion,
            TextKey::Preemption => &mut h.preemption,
            TextKey::TimeZoneString => &mut h.time_zone_string,
            TextKey::StartTime => &mut h.start_time,
            TextKey::EndTime => &mut h.end_time,
            TextKey::Queues => &mut h.queues,
            TextKey::Partitions => &mut h.partitions,
        }
    }

    fn append(&mut self, slot: Slot, line: &str) {
        let target: &mut String = match slot {
            Slot::Text(k) => self.text_mut(k).get_or_insert_with(String::new),
            Slot::Queue => last_or_new(&mut self.header.queue),
            Slot::Partition => last_or_new(&mut self.header.partition),
            Slot::Note => last_or_new(&mut self.header.notes),
            Slot::Other => match self.header.other.last_mut() {
                Some((_, v)) => v,
                None => return,
            },
        };
        if !target.is_empty() {
            target.push('\n');
        }
        target.push_str(line);
    }

    /// The header read so far.
    pub(crate) fn finish(self) -> Header {
        self.header
    }
}

fn last_or_new(values: &mut Vec<String>) -> &mut String {
    if values.is_empty() {
        values.push(String::new());
    }
    values.last_mut().expect("just pushed")
}

impl Header {
    /// Machine size announced by the header: `MaxProcs`, else `MaxNodes`.
    pub fn machine_procs(&self) -> Option<u64> {
        self.max_procs
            .filter(|&p| p > 0)
            .or(self.max_nodes.filter(|&n| n > 0))
    }

    /// Write the header as `; Key: value` lines in the standard's order
    /// (free comments first, unknown keys last), then a bare `;` line.
    /// Writes nothing for an empty header.
    pub fn write_to<W: Write>(&self, out: &mut W) -> io::Result<()> {
        if *self == Header::default() {
            return Ok(());
        }
        for c in &self.comments {
            writeln!(out, "; {c}")?;
        }
        let text = |out: &mut W, key: &str, v: &Option<String>| match v {
            Some(v) => write_value(out, key, v),
            None => Ok(()),
        };
        let num = |out: &mut W, key: &str, v: Option<String>| match v {
            Some(v) => writeln!(out, "; {key}: {v}"),
            None => Ok(()),
        };
        text(out, "Version", &self.version)?;
        text(out, "Computer", &self.computer)?;
        text(out, "Installation", &self.installation)?;
        text(out, "Acknowledge", &self.acknowledge)?;
        text(out, "Information", &self.information)?;
        text(out, "Conversion", &self.conversion)?;
        num(out, "MaxJobs", self.max_jobs.map(|v| v.to_string()))?;
        num(out, "MaxRecords", self.max_records.map(|v| v.to_string()))?;
        text(out, "Preemption", &self.preemption)?;
        num(out, "UnixStartTime", self.unix_start_time.map(|v| v.to_string()))?;
        num(out, "TimeZone", self.time_zone.map(|v| v.to_string()))?;
        text(out, "TimeZoneString", &self.time_zone_string)?;
        text(out, "StartTime", &self.start_time)?;
        text(out, "EndTime", &self.end_time)?;
        num(out, "MaxNodes", self.max_nodes.map(|v| v.to_string()))?;
        num(out, "MaxProcs", self.max_procs.map(|v| v.to_string()))?;
        num(out, "MaxRuntime", self.max_runtime.map(|v| v.to_string()))?;
        num(out, "MaxMemory", self.max_memory.map(|v| v.to_string()))?;
        num(
            out,
            "AllowOveruse",
            self.allow_overuse
                .map(|v| if v { "Yes" } else { "No" }.to_string()),
        )?;
        num(out, "MaxQueues", self.max_queues.map(|v| v.to_string()))?;
        text(out, "Queues", &self.queues)?;
        for q in &self.queue {
            write_value(out, "Queue", q)?;
        }
        num(out, "MaxPartitions", self.max_partitions.map(|v| v.to_string()))?;
        text(out, "Partitions", &self.partitions)?;
        for p in &self.partition {
            write_value(out, "Partition", p)?;
        }
        for n in &self.notes {
            write_value(out, "Note", n)?;
        }
        for (k, v) in &self.other {
            write_value(out, k, v)?;
        }
        writeln!(out, ";")
    }
}

/// `; Key: first line`, then each further line as an indented continuation.
fn write_value<W: Write>(out: &mut W, key: &str, value: &str) -> io::Result<()> {
    let mut lines = value.split('\n');
    match lines.next() {
        Some(first) if !first.is_empty() => writeln!(out, "; {key}: {first}")?,
        _ => writeln!(out, "; {key}:")?,
    }
    for line in lines {
        writeln!(out, ";        {line}")?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(text: &str) -> Header {
        let mut b = HeaderBuilder::default();
        for line in text.lines() {
            b.comment(line.strip_prefix(';').unwrap()).unwrap();
        }
        b.finish()
    }

    #[test]
    fn typed_keys_continuations_and_unknown_keys() {
        let h = parse(
            "; Version: 2.2\n; Information: http://www.pdc.kth.se/\n;              http://x/\n\
             ; MaxProcs: 100\n; Queue:  0  interactive    \n; Queue: 1 batch\n; Frobnicate: yes\n\
             ;\n; Note: THIS IS\n;       The filter\n; AllowOveruse: No\n",
        );
        assert_eq!(h.version.as_deref(), Some("2.2"));
        assert_eq!(
            h.information.as_deref(),
            Some("http://www.pdc.kth.se/\nhttp://x/")
        );
        assert_eq!(h.max_procs, Some(100));
        assert_eq!(h.queue, vec!["0  interactive", "1 batch"]);
        assert_eq!(h.other, vec![("Frobnicate".to_string(), "yes".to_string())]);
        assert_eq!(h.notes, vec!["THIS IS\nThe filter"]);
        assert_eq!(h.allow_overuse, Some(false));
        let mut out = Vec::new();
        h.write_to(&mut out).unwrap();
        assert_eq!(parse(std::str::from_utf8(&out).unwrap()), h);
    }

    #[test]
    fn bad_typed_value_names_key() {
        let mut b = HeaderBuilder::default();
        let err = b.comment(" MaxProcs: many").unwrap_err();
        assert_eq!(err.to_string(), "header MaxProcs: \"many\" is not a whole number");
    }
}
