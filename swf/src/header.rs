//! The SWF header: `; Key: value` comment lines before the first job line.
//!
//! Every key of the standard is typed; unknown keys are kept, in order, in
//! [`Header::other`]. A comment line that follows a key line and is indented
//! by more than two spaces continues that key's value (the archive's traces
//! wrap long `Information:` and `Note:` values that way); the lines of a
//! multi-line value are joined with `\n`. Other comment lines are kept in
//! [`Header::comments`].
//!
//! The header is a comment in the standard, and real traces write free text
//! in its numeric keys (`MaxNodes: 338 (batch partition; 512 total)`,
//! `MaxRuntime: N/A`), so a typed value never stops the reading:
//!
//! - a value that is a number (`338`, `1e3`, `100.0` when whole) is read as is;
//! - else the number it starts with is read: an optional sign (signed keys
//!   only), then digits, which may be grouped in threes by commas (`1,024` is
//!   1024; in `6, 171` the comma is not a grouping, so it reads 6). The
//!   number must end there: a letter, a digit, a `.` or a comma before a
//!   digit right after it (`128MB`, `3.5 GB`, `1,0245`) means it is not a
//!   whole number on its own, and the value is not read. So
//!   `338 (batch partition; 512 total)` is 338 and `184  ( 6,  171,   7)` is
//!   184, each with a [`ValueNote`] saying what was read;
//! - `AllowOveruse` reads `Yes`/`No`/`True`/`False`/`1`/`0`, or the word it starts with;
//! - otherwise (`N/A`, `unknown`, `-1` for a count) the key is left unset
//!   (an earlier value of the same key is kept) and a [`ValueNote`] says so.
//!
//! The notes are in [`Header::value_notes`] for the caller to show; nothing
//! is printed here.

use std::fmt;
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
    /// Typed keys whose value was not just a number (or `Yes`/`No`): what was
    /// read from each, or that it was left unset, in order of appearance. For
    /// the caller to show; [`Header::write_to`] does not write them.
    pub value_notes: Vec<ValueNote>,
}

/// A typed header value that was read in part or not at all (see the
/// [module documentation](self) for the rules).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ValueNote {
    /// 1-based line of the key in the input; 0 when not known.
    pub line: u64,
    /// The key as written (`MaxNodes`).
    pub key: String,
    /// The value as written (`338 (batch partition; 512 total)`).
    pub value: String,
    /// What was read from it (`338`), or `None` when the key was left unset.
    pub read: Option<String>,
    /// What a value of the key must be (`a whole number ≥ 0`).
    pub expected: &'static str,
}

impl ValueNote {
    /// The note prefixed with where it is: `FILE:LINE: …`, or `FILE: …`
    /// when the line is not known.
    pub fn at(&self, file: &str) -> String {
        match self.line {
            0 => format!("{file}: {self}"),
            line => format!("{file}:{line}: {self}"),
        }
    }
}

impl fmt::Display for ValueNote {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let Self {
            key,
            value,
            read,
            expected,
            ..
        } = self;
        match read {
            Some(read) => write!(f, "header {key}: {value:?} read as {read}, the rest ignored"),
            None => write!(
                f,
                "header {key}: {value:?} is not {expected}, so {key} is left unset"
            ),
        }
    }
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
    /// Line of the comment being read (0 = not known), for the notes.
    line: u64,
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

/// How a typed value was read.
#[derive(Debug, PartialEq, Eq)]
enum Reading<T> {
    /// The whole value is the number (or word).
    Whole(T),
    /// The value starts with it; the rest is ignored.
    Leading(T),
    /// Nothing usable.
    Unread,
}

/// What a `u64` key must hold.
const COUNT: &str = "a whole number ≥ 0";
/// What an `i64` key must hold.
const WHOLE: &str = "a whole number";
/// What `AllowOveruse` must hold.
const YES_NO: &str = "Yes or No";

fn read_u64(value: &str) -> Reading<u64> {
    if let Ok(v) = value.parse::<u64>() {
        return Reading::Whole(v);
    }
    if let Some(v) = whole_float(value) {
        return match u64::try_from(v) {
            Ok(v) => Reading::Whole(v),
            Err(_) => Reading::Unread,
        };
    }
    match leading_whole(value, false) {
        Some((false, v, whole)) => reading(v, whole),
        _ => Reading::Unread,
    }
}

fn read_i64(value: &str) -> Reading<i64> {
    if let Ok(v) = value.parse::<i64>() {
        return Reading::Whole(v);
    }
    if let Some(v) = whole_float(value) {
        return Reading::Whole(v);
    }
    let Some((negative, magnitude, whole)) = leading_whole(value, true) else {
        return Reading::Unread;
    };
    let v = match negative {
        true => 0i64.checked_sub_unsigned(magnitude),
        false => i64::try_from(magnitude).ok(),
    };
    v.map_or(Reading::Unread, |v| reading(v, whole))
}

fn reading<T>(v: T, whole: bool) -> Reading<T> {
    match whole {
        true => Reading::Whole(v),
        false => Reading::Leading(v),
    }
}

fn whole_float(value: &str) -> Option<i64> {
    let f: f64 = value.parse().ok()?;
    (f.is_finite() && f.fract() == 0.0 && f.abs() < 9.0e18).then_some(f as i64)
}

/// The whole number `value` starts with, as (negative, magnitude, whether it
/// is the whole value): a sign when `signed`, then digits, possibly grouped
/// in threes by commas (`1,024`). `None` when there is no such number or it
/// does not end cleanly: followed by a letter, a digit, `_`, `.` or a comma
/// before a digit (`128MB`, `3.5 GB`, `1,0245`).
fn leading_whole(value: &str, signed: bool) -> Option<(bool, u64, bool)> {
    let b = value.as_bytes();
    let (negative, start) = match b.first() {
        Some(b'-') if signed => (true, 1),
        Some(b'+') if signed => (false, 1),
        _ => (false, 0),
    };
    let digit = |i: usize| b.get(i).is_some_and(u8::is_ascii_digit);
    let mut end = start;
    while digit(end) {
        end += 1;
    }
    if end == start {
        return None;
    }
    let mut digits = value[start..end].to_string();
    // Thousands: a first group of 1 to 3 digits, then `,ddd` groups.
    if end - start <= 3 {
        while b.get(end) == Some(&b',') && (1..=3).all(|k| digit(end + k)) && !digit(end + 4) {
            digits.push_str(&value[end + 1..end + 4]);
            end += 4;
        }
    }
    match b.get(end) {
        Some(c) if c.is_ascii_alphanumeric() || matches!(c, b'_' | b'.') => return None,
        Some(b',') if digit(end + 1) => return None,
        _ => {}
    }
    let magnitude = digits.parse::<u64>().ok()?;
    Some((negative, magnitude, value[end..].trim().is_empty()))
}

fn read_bool(value: &str) -> Reading<bool> {
    let word = |w: &str| match w.to_ascii_lowercase().as_str() {
        "yes" | "true" | "1" => Some(true),
        "no" | "false" | "0" => Some(false),
        _ => None,
    };
    if let Some(v) = word(value) {
        return Reading::Whole(v);
    }
    let end = value
        .find(|c: char| !c.is_ascii_alphanumeric())
        .unwrap_or(value.len());
    if value[end..].starts_with(['.', '_']) {
        return Reading::Unread;
    }
    word(&value[..end]).map_or(Reading::Unread, Reading::Leading)
}

fn yes_no(v: &bool) -> String {
    match v {
        true => "Yes",
        false => "No",
    }
    .to_string()
}

impl HeaderBuilder {
    /// Take the comment at 1-based `line` of the input (0 = not known; the
    /// text after `;`, newline stripped). A typed value that cannot be read
    /// is left unset with a note naming the line.
    pub(crate) fn comment(&mut self, line: u64, text: &str) {
        self.line = line;
        let indent = text.len() - text.trim_start().len();
        let trimmed = text.trim();
        if trimmed.is_empty() {
            self.last = None;
            return;
        }
        if indent > 2 {
            if let Some(slot) = self.last {
                self.append(slot, trimmed);
                return;
            }
        }
        match split_key(trimmed) {
            Some((key, value)) => self.key(key, value),
            None => {
                self.last = None;
                self.header.comments.push(trimmed.to_string());
            }
        }
    }

    /// Keep `reading` of `value`, noting a partial read or no read.
    fn typed<T>(
        &mut self,
        key: &str,
        value: &str,
        expected: &'static str,
        reading: Reading<T>,
        show: impl Fn(&T) -> String,
    ) -> Option<T> {
        let (v, read) = match reading {
            Reading::Whole(v) => return Some(v),
            Reading::Leading(v) => {
                let read = show(&v);
                (Some(v), Some(read))
            }
            Reading::Unread => (None, None),
        };
        self.header.value_notes.push(ValueNote {
            line: self.line,
            key: key.to_string(),
            value: value.to_string(),
            read,
            expected,
        });
        v
    }

    /// Set a count key (`MaxNodes`); an unreadable value keeps what it had.
    fn count(&mut self, key: &str, value: &str, field: fn(&mut Header) -> &mut Option<u64>) -> Option<Slot> {
        if let Some(v) = self.typed(key, value, COUNT, read_u64(value), u64::to_string) {
            *field(&mut self.header) = Some(v);
        }
        None
    }

    /// Set a signed key (`TimeZone`); an unreadable value keeps what it had.
    fn signed(&mut self, key: &str, value: &str, field: fn(&mut Header) -> &mut Option<i64>) -> Option<Slot> {
        if let Some(v) = self.typed(key, value, WHOLE, read_i64(value), i64::to_string) {
            *field(&mut self.header) = Some(v);
        }
        None
    }

    fn key(&mut self, key: &str, value: &str) {
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
            "maxjobs" => self.count(key, value, |h| &mut h.max_jobs),
            "maxrecords" => self.count(key, value, |h| &mut h.max_records),
            "unixstarttime" => self.signed(key, value, |h| &mut h.unix_start_time),
            "timezone" => self.signed(key, value, |h| &mut h.time_zone),
            "maxnodes" => self.count(key, value, |h| &mut h.max_nodes),
            "maxprocs" => self.count(key, value, |h| &mut h.max_procs),
            "maxruntime" => self.count(key, value, |h| &mut h.max_runtime),
            "maxmemory" => self.count(key, value, |h| &mut h.max_memory),
            "allowoveruse" => {
                if let Some(v) = self.typed(key, value, YES_NO, read_bool(value), yes_no) {
                    self.header.allow_overuse = Some(v);
                }
                None
            }
            "maxqueues" => self.count(key, value, |h| &mut h.max_queues),
            "maxpartitions" => self.count(key, value, |h| &mut h.max_partitions),
            "queue" => {
                self.header.queue.push(value.to_string());
                Some(Slot::Queue)
            }
            "partition" => {
                self.header.partition.push(value.to_string());
                Some(Slot::Partition)
            }
            "note" => {
                self.header.notes.push(value.to_string());
                Some(Slot::Note)
            }
            _ => {
                self.header.other.push((key.to_string(), value.to_string()));
                Some(Slot::Other)
            }
        };
        if let Some(Slot::Text(k)) = slot {
            *self.text_mut(k) = text(value);
        }
        self.last = slot;
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
    /// Machine size announced by the header: `MaxProcs`, else `MaxNodes`
    /// (the first of the two that is set and above 0; an unreadable value is
    /// unset, so `MaxNodes` serves when `MaxProcs` is `N/A`).
    pub fn machine_procs(&self) -> Option<u64> {
        self.max_procs
            .filter(|&p| p > 0)
            .or(self.max_nodes.filter(|&n| n > 0))
    }

    /// Write the header as `; Key: value` lines in the standard's order
    /// (free comments first, unknown keys last), then a bare `;` line.
    /// Writes nothing for an empty header. Typed values are written as read
    /// (`MaxNodes: 338`); [`Header::value_notes`] are not written.
    pub fn write_to<W: Write>(&self, out: &mut W) -> io::Result<()> {
        let notes_only = Header {
            value_notes: self.value_notes.clone(),
            ..Header::default()
        };
        if *self == notes_only {
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
            b.comment(0, line.strip_prefix(';').unwrap());
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

    /// The header of `lines` (`; Key: value`), fed with their 1-based line numbers.
    fn parse_at(lines: &[&str]) -> Header {
        let mut b = HeaderBuilder::default();
        for (i, line) in lines.iter().enumerate() {
            b.comment(i as u64 + 1, line.strip_prefix(';').unwrap());
        }
        b.finish()
    }

    fn note(line: u64, key: &str, value: &str, read: Option<&str>, expected: &'static str) -> ValueNote {
        ValueNote {
            line,
            key: key.into(),
            value: value.into(),
            read: read.map(Into::into),
            expected,
        }
    }

    #[test]
    fn a_number_followed_by_free_text_is_read_with_a_note() {
        let h = parse_at(&[
            "; MaxNodes: 338 (batch partition; 512 total)",
            "; MaxProcs: 184  ( 6,  171,   7)",
            "; TimeZone: -18000 (EST)",
        ]);
        assert_eq!(
            (h.max_nodes, h.max_procs, h.time_zone),
            (Some(338), Some(184), Some(-18000))
        );
        assert_eq!(
            h.value_notes,
            vec![
                note(
                    1,
                    "MaxNodes",
                    "338 (batch partition; 512 total)",
                    Some("338"),
                    COUNT
                ),
                note(2, "MaxProcs", "184  ( 6,  171,   7)", Some("184"), COUNT),
                note(3, "TimeZone", "-18000 (EST)", Some("-18000"), WHOLE),
            ]
        );
        assert_eq!(
            h.value_notes[0].at("CTC.swf"),
            "CTC.swf:1: header MaxNodes: \"338 (batch partition; 512 total)\" read as 338, the rest ignored"
        );
        assert_eq!(h.machine_procs(), Some(184), "MaxProcs first");
    }

    #[test]
    fn a_value_without_a_leading_number_is_left_unset_with_a_note() {
        let h = parse_at(&[
            "; MaxRuntime: N/A",
            "; MaxProcs: unknown",
            "; MaxNodes: 338 (batch partition; 512 total)",
            "; MaxRecords: -1",
            "; MaxMemory: 128MB",
            "; AllowOveruse: maybe",
        ]);
        assert_eq!(
            (h.max_runtime, h.max_procs, h.max_records, h.max_memory),
            (None, None, None, None)
        );
        assert_eq!(h.allow_overuse, None);
        assert_eq!(h.max_nodes, Some(338));
        assert_eq!(
            h.machine_procs(),
            Some(338),
            "MaxNodes serves when MaxProcs is unreadable"
        );
        let unread: Vec<_> = h.value_notes.iter().filter(|n| n.read.is_none()).collect();
        assert_eq!(
            unread,
            [
                &note(1, "MaxRuntime", "N/A", None, COUNT),
                &note(2, "MaxProcs", "unknown", None, COUNT),
                &note(4, "MaxRecords", "-1", None, COUNT),
                &note(5, "MaxMemory", "128MB", None, COUNT),
                &note(6, "AllowOveruse", "maybe", None, YES_NO),
            ]
        );
        assert_eq!(
            unread[0].at("LANL.swf"),
            "LANL.swf:1: header MaxRuntime: \"N/A\" is not a whole number ≥ 0, so MaxRuntime is left unset"
        );
        // Fed without a line number (the reader's `comment`): the note says only the file.
        let mut b = HeaderBuilder::default();
        b.comment(0, " MaxProcs: many");
        let h = b.finish();
        assert_eq!(h.max_procs, None);
        assert_eq!(
            h.value_notes[0].at("t.swf"),
            "t.swf: header MaxProcs: \"many\" is not a whole number ≥ 0, so MaxProcs is left unset"
        );
    }

    #[test]
    fn an_unreadable_value_keeps_the_keys_earlier_value() {
        let h = parse_at(&["; MaxProcs: 128", "; MaxProcs: N/A"]);
        assert_eq!(h.max_procs, Some(128));
        assert_eq!(h.value_notes.len(), 1);
    }

    #[test]
    fn thousands_are_read_only_when_grouped_in_threes() {
        let h = parse_at(&[
            "; MaxProcs: 1,024",
            "; MaxJobs: 122,055 jobs",
            "; MaxRecords: 1,234,567",
            "; UnixStartTime: -1,000",
        ]);
        assert_eq!(
            (h.max_procs, h.max_jobs, h.max_records, h.unix_start_time),
            (Some(1024), Some(122_055), Some(1_234_567), Some(-1000))
        );
        assert_eq!(
            h.value_notes,
            vec![note(2, "MaxJobs", "122,055 jobs", Some("122055"), COUNT)],
            "a fully grouped number is the whole value: no note"
        );
        // `6, 171` is a list, not 6171; a comma glued to digits that are not
        // a group of three is refused; so is a group after 4 digits.
        assert_eq!(read_u64("6, 171, 7"), Reading::Leading(6));
        assert_eq!(read_u64("6,171, 7"), Reading::Leading(6171));
        assert_eq!(read_u64("1,0245"), Reading::Unread);
        assert_eq!(read_u64("1,02"), Reading::Unread);
        assert_eq!(read_u64("1024,567"), Reading::Unread);
        assert_eq!(read_u64("1,024,"), Reading::Leading(1024));
    }

    #[test]
    fn leading_number_rules() {
        assert_eq!(read_u64("122055"), Reading::Whole(122_055));
        assert_eq!(read_u64("1e3"), Reading::Whole(1000));
        assert_eq!(read_u64("100.0"), Reading::Whole(100));
        assert_eq!(
            read_u64("338 (batch partition; 512 total)"),
            Reading::Leading(338)
        );
        assert_eq!(read_u64("184  ( 6,  171,   7)"), Reading::Leading(184));
        assert_eq!(read_u64("64800 (18 hours)"), Reading::Leading(64_800));
        assert_eq!(read_u64("512/1024"), Reading::Leading(512));
        for unread in [
            "N/A", "unknown", "", "-1", "+5 x", "3.5 GB", "3.5", "128MB", "12_000", "(338)",
        ] {
            assert_eq!(read_u64(unread), Reading::Unread, "{unread:?}");
        }
        assert_eq!(read_i64("-18000"), Reading::Whole(-18_000));
        assert_eq!(read_i64("+3600 (CET)"), Reading::Leading(3600));
        assert_eq!(read_i64("-9223372036854775808 x"), Reading::Leading(i64::MIN));
        assert_eq!(read_i64("9223372036854775808 x"), Reading::Unread);
        assert_eq!(read_u64("99999999999999999999 x"), Reading::Unread);
        assert_eq!(read_bool("No"), Reading::Whole(false));
        assert_eq!(read_bool("yes (memory only)"), Reading::Leading(true));
        assert_eq!(read_bool("0.5"), Reading::Unread);
        assert_eq!(read_bool("maybe"), Reading::Unread);
    }

    #[test]
    fn notes_are_not_written_back() {
        let h = parse_at(&[
            "; MaxNodes: 338 (batch partition; 512 total)",
            "; MaxRuntime: N/A",
        ]);
        let mut out = Vec::new();
        h.write_to(&mut out).unwrap();
        assert_eq!(std::str::from_utf8(&out).unwrap(), "; MaxNodes: 338\n;\n");
        let only_notes = parse_at(&["; MaxRuntime: N/A"]);
        let mut out = Vec::new();
        only_notes.write_to(&mut out).unwrap();
        assert!(out.is_empty(), "a header of notes only writes nothing");
    }
}
