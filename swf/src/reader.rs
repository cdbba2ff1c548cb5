//! The streaming SWF reader: the header up front, then an iterator of
//! records holding one line in memory at a time.

use crate::error::{LineError, SwfError};
use crate::header::{Header, HeaderBuilder};
use crate::input::{self, Input};
use crate::record::{classify, trim_eol, LineKind, Record};
use std::io::BufRead;
use std::path::Path;

/// What to do with a bad line.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Strictness {
    /// Stop at the first bad line (the default).
    #[default]
    Strict,
    /// Skip bad lines, count them and keep the first few messages.
    Lenient,
}

/// How many problem messages lenient mode keeps.
pub const KEPT_PROBLEMS: usize = 5;

/// Bad lines skipped in lenient mode.
#[derive(Debug, Default)]
pub struct BadLines {
    /// How many lines were skipped.
    pub count: u64,
    /// The first [`KEPT_PROBLEMS`] errors.
    pub first: Vec<SwfError>,
}

impl BadLines {
    fn push(&mut self, err: SwfError) {
        self.count += 1;
        if self.first.len() < KEPT_PROBLEMS {
            self.first.push(err);
        }
    }
}

/// Streaming reader of an SWF trace: [`SwfReader::header`], then iterate
/// for [`Record`]s. Memory stays constant whatever the trace size.
pub struct SwfReader<R> {
    input: R,
    name: String,
    buf: Vec<u8>,
    lines_read: u64,
    record_line: u64,
    header: Header,
    pending: bool,
    done: bool,
    mode: Strictness,
    bad: BadLines,
    late_comments: u64,
}

impl<R> std::fmt::Debug for SwfReader<R> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SwfReader")
            .field("name", &self.name)
            .field("line", &self.lines_read)
            .finish_non_exhaustive()
    }
}

impl SwfReader<Box<dyn BufRead>> {
    /// Open a path (`-` is stdin; gzip is detected) and read its header.
    pub fn open(path: &Path, mode: Strictness) -> Result<Self, SwfError> {
        let Input { name, reader } = input::open(path)?;
        SwfReader::new(reader, name, mode)
    }
}

impl<R: BufRead> SwfReader<R> {
    /// Read the header from `input` (named `name` in messages) and stop
    /// before the first record.
    pub fn new(input: R, name: impl Into<String>, mode: Strictness) -> Result<Self, SwfError> {
        let mut reader = SwfReader {
            input,
            name: name.into(),
            buf: Vec::with_capacity(256),
            lines_read: 0,
            record_line: 0,
            header: Header::default(),
            pending: false,
            done: false,
            mode,
            bad: BadLines::default(),
            late_comments: 0,
        };
        let mut builder = HeaderBuilder::default();
        loop {
            if !reader.next_line()? {
                reader.done = true;
                break;
            }
            match classify(trim_eol(&reader.buf)) {
                LineKind::Blank => {}
                LineKind::Comment(text) => {
                    builder.comment(reader.lines_read, &String::from_utf8_lossy(text));
                }
                LineKind::Data => {
                    reader.pending = true;
                    break;
                }
            }
        }
        reader.header = builder.finish();
        Ok(reader)
    }

    /// Read the next line into `buf`; false at the end of the input.
    fn next_line(&mut self) -> Result<bool, SwfError> {
        self.buf.clear();
        let n = self
            .input
            .read_until(b'\n', &mut self.buf)
            .map_err(|source| SwfError::Io {
                action: "read",
                path: self.name.clone().into(),
                source,
            })?;
        if n == 0 {
            return Ok(false);
        }
        self.lines_read += 1;
        Ok(true)
    }

    fn at_line(&self, kind: LineError) -> SwfError {
        SwfError::Line {
            file: self.name.clone(),
            line: self.lines_read,
            kind,
        }
    }

    /// The header (comment lines before the first record).
    pub fn header(&self) -> &Header {
        &self.header
    }

    /// The input's display name.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// 1-based line number of the record last returned.
    pub fn line(&self) -> u64 {
        self.record_line
    }

    /// Lines skipped so far (lenient mode).
    pub fn bad_lines(&self) -> &BadLines {
        &self.bad
    }

    /// Comment lines found after the first record (ignored).
    pub fn late_comments(&self) -> u64 {
        self.late_comments
    }

    /// Lenient mode: count a problem found by the caller on the current record
    /// (e.g. a job wider than the machine); strict mode: return it as an error.
    pub fn problem(&mut self, kind: LineError) -> Result<(), SwfError> {
        let err = SwfError::Line {
            file: self.name.clone(),
            line: self.record_line,
            kind,
        };
        match self.mode {
            Strictness::Strict => Err(err),
            Strictness::Lenient => {
                self.bad.push(err);
                Ok(())
            }
        }
    }

    fn advance(&mut self) -> Result<Option<Record>, SwfError> {
        loop {
            if self.pending {
                self.pending = false;
            } else if self.done || !self.next_line()? {
                self.done = true;
                return Ok(None);
            }
            match classify(trim_eol(&self.buf)) {
                LineKind::Blank => continue,
                LineKind::Comment(_) => {
                    self.late_comments += 1;
                    continue;
                }
                LineKind::Data => {}
            }
            match Record::parse(&self.buf) {
                Ok(rec) => {
                    self.record_line = self.lines_read;
                    return Ok(Some(rec));
                }
                Err(kind) => {
                    let err = self.at_line(kind);
                    match self.mode {
                        Strictness::Strict => {
                            self.done = true;
                            return Err(err);
                        }
                        Strictness::Lenient => self.bad.push(err),
                    }
                }
            }
        }
    }
}

impl<R: BufRead> Iterator for SwfReader<R> {
    type Item = Result<Record, SwfError>;

    fn next(&mut self) -> Option<Self::Item> {
        match self.advance() {
            Ok(Some(rec)) => Some(Ok(rec)),
            Ok(None) => None,
            Err(e) => {
                self.done = true;
                Some(Err(e))
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const TRACE: &str = "; MaxProcs: 8\n\n1 0 0 10 4 -1 -1 4 20 -1 1 1 1 -1 -1 -1 -1 -1\r\n\
                         2 5 x 10 4 -1 -1 4 20 -1 1 1 1 -1 -1 -1 -1 -1\n\
                         ; late\n3 9 0 10 4 -1 -1 4 20 -1 1 1 1 -1 -1 -1 -1 -1";

    #[test]
    fn strict_stops_at_first_bad_line() {
        let mut r = SwfReader::new(TRACE.as_bytes(), "t.swf", Strictness::Strict).unwrap();
        assert_eq!(r.header().max_procs, Some(8));
        assert_eq!(r.next().unwrap().unwrap().job, 1);
        assert_eq!(r.line(), 3);
        let err = r.next().unwrap().unwrap_err();
        assert_eq!(
            err.to_string(),
            "t.swf:4: field 3 (wait time): \"x\" is not a number"
        );
        assert!(r.next().is_none());
    }

    #[test]
    fn lenient_skips_and_counts() {
        let mut r = SwfReader::new(TRACE.as_bytes(), "t.swf", Strictness::Lenient).unwrap();
        let jobs: Vec<u64> = r.by_ref().map(|rec| rec.unwrap().job).collect();
        assert_eq!(jobs, vec![1, 3]);
        assert_eq!(r.bad_lines().count, 1);
        assert_eq!(r.late_comments(), 1);
        assert_eq!(r.line(), 6);
    }
}
