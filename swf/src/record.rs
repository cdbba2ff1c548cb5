//! One SWF data line: the 18 fields of the standard, typed, `-1` read as `None`.
//!
//! Parsing works on the line's bytes directly: fields are split on spaces and
//! tabs without allocating, in one pass that reads each plain integer as it
//! crosses it; only a field that is not one goes through the float parser.

use crate::error::LineError;
use std::io::{self, Write};

/// One job line of an SWF trace. Times are in seconds (fractions allowed);
/// `None` is the standard's `-1` (unknown).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Record {
    /// Field 1: job number.
    pub job: u64,
    /// Field 2: submit time, seconds from the start of the log.
    pub submit: Option<f64>,
    /// Field 3: wait time in the queue, seconds.
    pub wait: Option<f64>,
    /// Field 4: run time (wall clock), seconds.
    pub run_time: Option<f64>,
    /// Field 5: number of allocated processors.
    pub allocated_procs: Option<i64>,
    /// Field 6: average CPU time used per processor, seconds.
    pub avg_cpu_time: Option<f64>,
    /// Field 7: used memory per processor, kilobytes.
    pub used_memory: Option<f64>,
    /// Field 8: requested number of processors.
    pub requested_procs: Option<i64>,
    /// Field 9: requested time (user runtime estimate), seconds.
    pub requested_time: Option<f64>,
    /// Field 10: requested memory per processor, kilobytes.
    pub requested_memory: Option<f64>,
    /// Field 11: status (1 completed, 0 failed, 5 cancelled, 2–4 partial executions).
    pub status: Option<i64>,
    /// Field 12: user id.
    pub user: Option<i64>,
    /// Field 13: group id.
    pub group: Option<i64>,
    /// Field 14: executable (application) number.
    pub executable: Option<i64>,
    /// Field 15: queue number.
    pub queue: Option<i64>,
    /// Field 16: partition number.
    pub partition: Option<i64>,
    /// Field 17: preceding job number.
    pub preceding_job: Option<i64>,
    /// Field 18: think time from the preceding job, seconds.
    pub think_time: Option<f64>,
}

/// True for the bytes that separate fields (spaces, tabs, and a stray CR).
#[inline]
fn is_sep(b: u8) -> bool {
    b == b' ' || b == b'\t' || b == b'\r' || b == b'\x0b' || b == b'\x0c'
}

/// What a line holds once classified.
#[derive(Debug, PartialEq)]
pub(crate) enum LineKind<'a> {
    /// Nothing but whitespace.
    Blank,
    /// A `;` comment; the text after the `;` (CR/LF stripped).
    Comment(&'a [u8]),
    /// A data line.
    Data,
}

/// Strip the trailing newline and carriage return of a line.
#[inline]
pub(crate) fn trim_eol(mut line: &[u8]) -> &[u8] {
    while let [rest @ .., b'\n' | b'\r'] = line {
        line = rest;
    }
    line
}

/// Classify a line (without its newline).
#[inline]
pub(crate) fn classify(line: &[u8]) -> LineKind<'_> {
    let start = line.iter().position(|&b| !is_sep(b));
    match start {
        None => LineKind::Blank,
        Some(i) if line[i] == b';' => LineKind::Comment(&line[i + 1..]),
        Some(_) => LineKind::Data,
    }
}

/// A parsed number: an integer when the text is one, else a float.
#[derive(Clone, Copy)]
enum Num {
    Int(i64),
    Float(f64),
}

/// One field as the scan found it: its text, and its number if it is one.
#[derive(Clone, Copy)]
struct Field<'a> {
    text: &'a [u8],
    num: Option<Num>,
}

/// The numbers of a line's fields, read in one pass without keeping their
/// text: `None` unless there are exactly 18 and each is a number.
#[inline]
fn numbers(line: &[u8]) -> Option<[Num; 18]> {
    let mut nums = [Num::Int(0); 18];
    let mut at = 0;
    for num in nums.iter_mut() {
        while line.get(at).copied().is_some_and(is_sep) {
            at += 1;
        }
        if at == line.len() {
            return None;
        }
        let start = at;
        *num = match plain_int(line, &mut at) {
            Some(v) => Num::Int(v),
            None => {
                while line.get(at).is_some_and(|&b| !is_sep(b)) {
                    at += 1;
                }
                read_number(&line[start..at])?
            }
        };
    }
    line[at..].iter().all(|&b| is_sep(b)).then_some(nums)
}

/// A float field's value (`-1` is `None`): the rule [`float_field`] and the
/// one-pass read share.
#[inline(always)]
fn real(num: Num) -> Option<f64> {
    let v = match num {
        Num::Int(i) => i as f64,
        Num::Float(f) => f,
    };
    (v != -1.0).then_some(v)
}

/// An integer field's value (`-1` is `Some(None)`), `None` if it is not
/// whole or not below 9·10^18: the rule [`int_field`] and the one-pass
/// read share.
#[inline(always)]
fn whole(num: Num) -> Option<Option<i64>> {
    let v = match num {
        Num::Int(i) => i,
        Num::Float(f) if f.fract() == 0.0 && f.abs() < 9.0e18 => f as i64,
        Num::Float(_) => return None,
    };
    Some((v != -1).then_some(v))
}

/// Split a line (without its newline) into its fields and read each one's
/// number. The count is of every field, also past the 18th.
fn scan(line: &[u8]) -> ([Field<'_>; 18], usize) {
    let mut fields = [Field { text: &[], num: None }; 18];
    let mut count = 0usize;
    let mut at = 0;
    loop {
        while line.get(at).copied().is_some_and(is_sep) {
            at += 1;
        }
        if at == line.len() {
            break;
        }
        let start = at;
        let num = match plain_int(line, &mut at) {
            Some(v) => Some(Num::Int(v)),
            None => {
                while line.get(at).is_some_and(|&b| !is_sep(b)) {
                    at += 1;
                }
                read_number(&line[start..at])
            }
        };
        if let Some(field) = fields.get_mut(count) {
            *field = Field {
                text: &line[start..at],
                num,
            };
        }
        count += 1;
    }
    (fields, count)
}

/// The field starting at `*at` read in the same pass as it is crossed, when
/// it is a plain integer (an optional sign, 1 to 18 digits, then a separator
/// or the end): its value, `*at` moved past it. Otherwise `None`, `*at`
/// moved at most over the sign and digits it read (never past the field):
/// the rest of the field is crossed, and the whole read by [`read_number`].
#[inline]
fn plain_int(line: &[u8], at: &mut usize) -> Option<i64> {
    let neg = match line.get(*at) {
        Some(b'-') => {
            *at += 1;
            true
        }
        Some(b'+') => {
            *at += 1;
            false
        }
        _ => false,
    };
    let first = *at;
    let mut v = 0i64;
    while let Some(&d) = line.get(*at).filter(|d| d.is_ascii_digit()) {
        v = v.wrapping_mul(10).wrapping_add(i64::from(d - b'0'));
        *at += 1;
    }
    let ends = line.get(*at).map_or(true, |&b| is_sep(b));
    (ends && (1..=18).contains(&(*at - first))).then_some(if neg { -v } else { v })
}

fn digits_value(digits: &[u8]) -> i64 {
    digits.iter().fold(0i64, |v, &d| v * 10 + i64::from(d - b'0'))
}

/// One field's number, without allocating: a plain integer (an optional
/// sign and at most 18 digits) and a plain decimal (`489.00`, at most 15
/// digits) are read here; anything else goes through the float parser.
#[inline]
fn read_number(text: &[u8]) -> Option<Num> {
    let (neg, body) = match text {
        [b'-', body @ ..] => (true, body),
        [b'+', body @ ..] => (false, body),
        _ => (false, text),
    };
    let whole = body
        .iter()
        .position(|b| !b.is_ascii_digit())
        .unwrap_or(body.len());
    let (int, after) = body.split_at(whole);
    match after {
        [] if (1..=18).contains(&whole) => {
            let v = digits_value(int);
            Some(Num::Int(if neg { -v } else { v }))
        }
        [b'.', frac @ ..]
            if whole >= 1
                && whole + frac.len() <= MAX_EXACT_DIGITS
                && frac.iter().all(u8::is_ascii_digit) =>
        {
            let v = exact_decimal(int, frac);
            Some(Num::Float(if neg { -v } else { v }))
        }
        _ => parse_float(text).map(Num::Float),
    }
}

/// Digits (before and after the point) a decimal may have to be read by
/// [`exact_decimal`]: below 2^53, so its digits are an exact `f64`.
const MAX_EXACT_DIGITS: usize = 15;

/// `int.frac` as the float parser reads it: the digits and `10^frac.len()`
/// are exact `f64`s (at most 15 digits), and one IEEE division rounds their
/// quotient correctly (Clinger's fast path).
fn exact_decimal(int: &[u8], frac: &[u8]) -> f64 {
    const POW10: [f64; MAX_EXACT_DIGITS + 1] = [
        1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15,
    ];
    let digits = frac
        .iter()
        .fold(digits_value(int), |v, &d| v * 10 + i64::from(d - b'0'));
    digits as f64 / POW10[frac.len()]
}

/// The slow path: exponents, long numbers, a point without digits before it.
fn parse_float(text: &[u8]) -> Option<f64> {
    // Rust accepts "inf" and "nan"; SWF numbers are finite, and must start like one.
    let first = *text.iter().find(|b| !matches!(b, b'-' | b'+'))?;
    if !(first.is_ascii_digit() || first == b'.') {
        return None;
    }
    let s = std::str::from_utf8(text).ok()?;
    let v: f64 = s.parse().ok()?;
    v.is_finite().then_some(v)
}

fn lossy(text: &[u8]) -> String {
    String::from_utf8_lossy(text).into_owned()
}

/// Read a float field (`field` counts from 1); `-1` is `None`.
#[inline(always)]
fn float_field(field: usize, fields: &[Field<'_>; 18]) -> Result<Option<f64>, LineError> {
    let Field { text, num } = fields[field - 1];
    num.map(real).ok_or_else(|| LineError::NotANumber {
        field,
        value: lossy(text),
    })
}

/// Read an integer field (a float with no fraction is accepted); `-1` is `None`.
#[inline(always)]
fn int_field(field: usize, fields: &[Field<'_>; 18]) -> Result<Option<i64>, LineError> {
    let Field { text, num } = fields[field - 1];
    let value = || lossy(text);
    match num {
        None => Err(LineError::NotANumber {
            field,
            value: value(),
        }),
        Some(n) => whole(n).ok_or_else(|| match n {
            Num::Float(f) if f.fract() != 0.0 => LineError::NotWhole {
                field,
                value: value(),
            },
            _ => LineError::OutOfRange {
                field,
                value: value(),
            },
        }),
    }
}

impl Record {
    /// Parse a data line (its newline may be included). Errors name the field
    /// and the value; the caller adds file and line.
    pub fn parse(line: &[u8]) -> Result<Record, LineError> {
        let line = trim_eol(line);
        match numbers(line).and_then(|n| Record::from_numbers(&n)) {
            Some(record) => Ok(record),
            None => Record::parse_checked(line),
        }
    }

    /// The record of a line whose 18 fields are numbers, unless a field is
    /// out of its range ([`Record::parse_checked`] then says which).
    #[inline]
    fn from_numbers(n: &[Num; 18]) -> Option<Record> {
        let job = whole(n[0])?.filter(|&j| j >= 0)? as u64;
        Some(Record {
            job,
            submit: real(n[1]),
            wait: real(n[2]),
            run_time: real(n[3]),
            allocated_procs: whole(n[4])?,
            avg_cpu_time: real(n[5]),
            used_memory: real(n[6]),
            requested_procs: whole(n[7])?,
            requested_time: real(n[8]),
            requested_memory: real(n[9]),
            status: whole(n[10])?,
            user: whole(n[11])?,
            group: whole(n[12])?,
            executable: whole(n[13])?,
            queue: whole(n[14])?,
            partition: whole(n[15])?,
            preceding_job: whole(n[16])?,
            think_time: real(n[17]),
        })
    }

    /// [`Record::parse`] field by field, each error naming its field and
    /// value (what a line the one-pass read refused goes through).
    fn parse_checked(line: &[u8]) -> Result<Record, LineError> {
        let (f, count) = scan(line);
        if count != 18 {
            return Err(LineError::FieldCount { found: count });
        }
        let job = match int_field(1, &f)? {
            Some(j) if j >= 0 => j as u64,
            _ => {
                return Err(LineError::OutOfRange {
                    field: 1,
                    value: lossy(f[0].text),
                })
            }
        };
        Ok(Record {
            job,
            submit: float_field(2, &f)?,
            wait: float_field(3, &f)?,
            run_time: float_field(4, &f)?,
            allocated_procs: int_field(5, &f)?,
            avg_cpu_time: float_field(6, &f)?,
            used_memory: float_field(7, &f)?,
            requested_procs: int_field(8, &f)?,
            requested_time: float_field(9, &f)?,
            requested_memory: float_field(10, &f)?,
            status: int_field(11, &f)?,
            user: int_field(12, &f)?,
            group: int_field(13, &f)?,
            executable: int_field(14, &f)?,
            queue: int_field(15, &f)?,
            partition: int_field(16, &f)?,
            preceding_job: int_field(17, &f)?,
            think_time: float_field(18, &f)?,
        })
    }

    /// Write the record as one normalised line (fixed-width columns, `-1`
    /// for unknown, shortest exact decimal for fractions) with its newline.
    pub fn write_to<W: Write>(&self, out: &mut W) -> io::Result<()> {
        write!(out, "{:>6}", self.job)?;
        write_float(out, 9, self.submit)?;
        write_float(out, 7, self.wait)?;
        write_float(out, 7, self.run_time)?;
        write_int(out, 5, self.allocated_procs)?;
        write_float(out, 7, self.avg_cpu_time)?;
        write_float(out, 6, self.used_memory)?;
        write_int(out, 5, self.requested_procs)?;
        write_float(out, 7, self.requested_time)?;
        write_float(out, 6, self.requested_memory)?;
        write_int(out, 3, self.status)?;
        write_int(out, 4, self.user)?;
        write_int(out, 4, self.group)?;
        write_int(out, 4, self.executable)?;
        write_int(out, 3, self.queue)?;
        write_int(out, 3, self.partition)?;
        write_int(out, 3, self.preceding_job)?;
        write_float(out, 3, self.think_time)?;
        out.write_all(b"\n")
    }
}

fn write_int<W: Write>(out: &mut W, width: usize, v: Option<i64>) -> io::Result<()> {
    write!(out, " {:>width$}", v.unwrap_or(-1))
}

fn write_float<W: Write>(out: &mut W, width: usize, v: Option<f64>) -> io::Result<()> {
    match v {
        None => write!(out, " {:>width$}", -1),
        Some(f) if f.fract() == 0.0 && f.abs() < 1e15 => write!(out, " {:>width$}", f as i64),
        // `Display` for f64 is the shortest text that parses back to the same value.
        Some(f) => write!(out, " {:>width$}", f),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const KTH_LINE: &[u8] =
        b"   15   599850 192180   3477    4     -1    -1    4  53940    -1  1  12  12  -1 -1 -1 -1 -1\n";

    #[test]
    fn parses_a_real_line() {
        let r = Record::parse(KTH_LINE).unwrap();
        assert_eq!(r.job, 15);
        assert_eq!(r.submit, Some(599850.0));
        assert_eq!(r.run_time, Some(3477.0));
        assert_eq!(r.allocated_procs, Some(4));
        assert_eq!(r.avg_cpu_time, None);
        assert_eq!(r.requested_time, Some(53940.0));
        assert_eq!(r.status, Some(1));
        assert_eq!(r.think_time, None);
    }

    #[test]
    fn tabs_crlf_and_floats() {
        let line = b"1\t0.5\t-1\t10.25\t4.0\t-1\t-1\t4\t20\t-1\t1\t1\t1\t-1\t-1\t-1\t-1\t-1\r\n";
        let r = Record::parse(line).unwrap();
        assert_eq!(r.submit, Some(0.5));
        assert_eq!(r.run_time, Some(10.25));
        assert_eq!(r.allocated_procs, Some(4));
    }

    #[test]
    fn errors_name_the_field() {
        let line = b"1 0 0 10 abc -1 -1 4 20 -1 1 1 1 -1 -1 -1 -1 -1";
        let err = Record::parse(line).unwrap_err();
        assert_eq!(
            err.to_string(),
            "field 5 (allocated processors): \"abc\" is not a number"
        );
        let line = b"1 0 0 10 4.5 -1 -1 4 20 -1 1 1 1 -1 -1 -1 -1 -1";
        assert_eq!(
            Record::parse(line).unwrap_err().to_string(),
            "field 5 (allocated processors): \"4.5\" is not a whole number"
        );
        let line = b"1 0 0 inf 4 -1 -1 4 20 -1 1 1 1 -1 -1 -1 -1 -1";
        assert!(matches!(
            Record::parse(line),
            Err(LineError::NotANumber { field: 4, .. })
        ));
        assert_eq!(Record::parse(b"1 2 3"), Err(LineError::FieldCount { found: 3 }));
    }

    /// The number of one field as the standard library reads it: a plain
    /// integer of at most 18 digits, else `f64::from_str` (finite, starting
    /// like a number). What the one-pass scan must agree with.
    fn reference_field(text: &str) -> Option<Num> {
        let digits = text.strip_prefix(['-', '+']).unwrap_or(text);
        if !digits.is_empty() && digits.len() <= 18 && digits.bytes().all(|b| b.is_ascii_digit()) {
            return text.parse::<i64>().ok().map(Num::Int);
        }
        parse_float(text.as_bytes()).map(Num::Float)
    }

    fn shown(num: Option<Num>) -> String {
        match num {
            Some(Num::Int(i)) => format!("int {i}"),
            Some(Num::Float(f)) => format!("float {:?} ({:#x})", f, f.to_bits()),
            None => "not a number".into(),
        }
    }

    proptest::proptest! {
        #[test]
        fn the_scan_reads_every_field_as_the_standard_library(
            tokens in proptest::collection::vec(
                proptest::prop_oneof![
                    "-?[0-9]{1,20}",
                    "[-+]?[0-9]{0,17}\\.[0-9]{0,17}",
                    "[-+]?[0-9]{1,3}(\\.[0-9]{1,3})?[eE][-+]?[0-9]{1,3}",
                    "[-+.0-9a-z]{1,6}",
                ],
                1..22,
            ),
            sep in "[ \t]{1,3}",
        ) {
            let line = tokens.join(&sep);
            let (fields, count) = scan(line.as_bytes());
            proptest::prop_assert_eq!(count, tokens.len());
            for (field, token) in fields.iter().zip(&tokens) {
                proptest::prop_assert_eq!(field.text, token.as_bytes());
                proptest::prop_assert_eq!(shown(field.num), shown(reference_field(token)), "{:?}", token);
            }
        }
    }

    proptest::proptest! {
        /// The one-pass read gives what the field-by-field read gives: the
        /// same record, or (through it) the same error.
        #[test]
        fn the_one_pass_read_agrees_with_the_checked_one(
            tokens in proptest::collection::vec(
                proptest::prop_oneof![
                    8 => "-1|0|[1-9][0-9]{0,6}",
                    2 => "-?[0-9]{1,5}\\.[0-9]{1,3}",
                    1 => "-?[0-9]{19,20}|[0-9]e[0-9]{2}|9\\.5e18",
                    1 => "[-+.0-9a-z]{1,4}",
                ],
                16..20,
            ),
            sep in "[ \t]{1,3}",
            tail in "[ \t\r]{0,2}",
        ) {
            let line = format!("{}{tail}", tokens.join(&sep));
            let checked = Record::parse_checked(trim_eol(line.as_bytes()));
            proptest::prop_assert_eq!(Record::parse(line.as_bytes()), checked);
        }
    }

    #[test]
    fn write_then_parse_is_identity() {
        let r = Record::parse(KTH_LINE).unwrap();
        let mut out = Vec::new();
        r.write_to(&mut out).unwrap();
        assert_eq!(Record::parse(&out).unwrap(), r);
        let mut r2 = r.clone();
        r2.run_time = Some(0.1 + 0.2);
        let mut out = Vec::new();
        r2.write_to(&mut out).unwrap();
        assert_eq!(Record::parse(&out).unwrap(), r2);
    }
}
