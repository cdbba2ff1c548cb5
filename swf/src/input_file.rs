//! The one rule for the files the CLI reads: a regular file only (a FIFO,
//! device, socket or directory is refused with the reason, before any read
//! that could block or never end), a text input no larger than its bound
//! (checked before it is read into memory), and no line of a streamed input
//! longer than [`MAX_LINE_BYTES`] (a trace of zeros, compressed or not,
//! cannot grow one line until memory runs out). Every reader of an input
//! file goes through here; each caller names the file in its own error.

use std::fs::{File, OpenOptions};
use std::io::{self, BufRead, Read};
use std::os::unix::fs::{FileTypeExt, OpenOptionsExt};
use std::path::Path;

/// The most bytes a text input read whole (a YAML or JSON settings file, a
/// grid, a study) may hold.
pub const MAX_TEXT_BYTES: u64 = 256 << 20;

/// The longest line a streamed input (SWF, CSV) may have.
pub const MAX_LINE_BYTES: u64 = 1 << 20;

/// The most decompressed bytes one streamed input may give.
pub const MAX_STREAM_BYTES: u64 = 64 << 30;

/// Open `path` for reading if it is a regular file. Opened without blocking
/// (a FIFO would block `open` until a writer came), then checked.
pub fn open_regular(path: &Path) -> io::Result<File> {
    let file = OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NONBLOCK)
        .open(path)?;
    let kind = file.metadata()?.file_type();
    if !kind.is_file() {
        let what = if kind.is_dir() {
            "a directory"
        } else if kind.is_fifo() {
            "a FIFO (named pipe)"
        } else if kind.is_char_device() {
            "a character device"
        } else if kind.is_block_device() {
            "a block device"
        } else if kind.is_socket() {
            "a socket"
        } else {
            "not a regular file"
        };
        return Err(io::Error::new(
            io::ErrorKind::InvalidInput,
            format!(
                "it is {what}, not a regular file: give a file (or `-` for standard input where it is taken)"
            ),
        ));
    }
    Ok(file)
}

/// Read `path`, a regular file of at most `max` bytes, as UTF-8 text.
pub fn read_text(path: &Path, max: u64) -> io::Result<String> {
    let file = open_regular(path)?;
    let len = file.metadata()?.len();
    let too_big = |len: u64| {
        io::Error::new(
            io::ErrorKind::InvalidData,
            format!("it is {len} bytes, more than the {max} this input may hold"),
        )
    };
    if len > max {
        return Err(too_big(len));
    }
    let mut text = String::with_capacity(len as usize);
    file.take(max + 1).read_to_string(&mut text)?;
    if text.len() as u64 > max {
        return Err(too_big(text.len() as u64));
    }
    Ok(text)
}

/// A streamed input that fails, instead of growing, on a line longer than
/// [`MAX_LINE_BYTES`] or more than [`MAX_STREAM_BYTES`] in all.
pub(crate) struct Bounded<R> {
    inner: R,
    /// Bytes consumed since the last newline.
    line: u64,
    /// Bytes consumed in all.
    total: u64,
}

impl<R: BufRead> Bounded<R> {
    pub(crate) fn new(inner: R) -> Bounded<R> {
        Bounded {
            inner,
            line: 0,
            total: 0,
        }
    }
}

impl<R: BufRead> Read for Bounded<R> {
    fn read(&mut self, out: &mut [u8]) -> io::Result<usize> {
        read_buffered(self, out)
    }
}

/// `Read::read` of a reader whose bytes come from its own `BufRead` buffer.
pub(crate) fn read_buffered(reader: &mut impl BufRead, out: &mut [u8]) -> io::Result<usize> {
    let available = reader.fill_buf()?;
    let n = available.len().min(out.len());
    out[..n].copy_from_slice(&available[..n]);
    reader.consume(n);
    Ok(n)
}

impl<R: BufRead> BufRead for Bounded<R> {
    fn fill_buf(&mut self) -> io::Result<&[u8]> {
        if self.line > MAX_LINE_BYTES {
            return Err(io::Error::new(
                io::ErrorKind::InvalidData,
                format!("a line is longer than {MAX_LINE_BYTES} bytes: not a text trace (or a corrupt one)"),
            ));
        }
        if self.total > MAX_STREAM_BYTES {
            return Err(io::Error::new(
                io::ErrorKind::InvalidData,
                format!(
                    "more than {MAX_STREAM_BYTES} bytes once decompressed: refused as a decompression bomb"
                ),
            ));
        }
        self.inner.fill_buf()
    }

    fn consume(&mut self, n: usize) {
        if n == 0 {
            return;
        }
        if let Ok(buf) = self.inner.fill_buf() {
            let consumed = &buf[..n.min(buf.len())];
            self.line = match memchr::memrchr(b'\n', consumed) {
                Some(at) => (consumed.len() - at - 1) as u64,
                None => self.line + consumed.len() as u64,
            };
        }
        self.total += n as u64;
        self.inner.consume(n);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_regular_files_are_read() {
        let dir = tempfile::tempdir().unwrap();
        let err = open_regular(dir.path()).unwrap_err().to_string();
        assert!(err.contains("a directory"), "{err}");
        let err = open_regular(Path::new("/dev/zero")).unwrap_err().to_string();
        assert!(err.contains("a character device"), "{err}");
        let fifo = dir.path().join("fifo");
        assert!(std::process::Command::new("mkfifo")
            .arg(&fifo)
            .status()
            .unwrap()
            .success());
        // Refused at once: no writer will ever come.
        let err = open_regular(&fifo).unwrap_err().to_string();
        assert!(err.contains("a FIFO"), "{err}");
        let file = dir.path().join("f");
        std::fs::write(&file, "a: 1\n").unwrap();
        assert_eq!(read_text(&file, 100).unwrap(), "a: 1\n");
        let err = read_text(&file, 3).unwrap_err().to_string();
        assert!(err.contains("5 bytes, more than the 3"), "{err}");
    }

    #[test]
    fn a_line_without_end_fails_instead_of_growing() {
        let zeros = io::BufReader::new(io::repeat(0).take(3 * MAX_LINE_BYTES));
        let mut line = Vec::new();
        let err = Bounded::new(zeros).read_until(b'\n', &mut line).unwrap_err();
        assert!(err.to_string().contains("longer than"), "{err}");
        assert!(
            (line.len() as u64) < 2 * MAX_LINE_BYTES,
            "stopped near the bound: {}",
            line.len()
        );
        // Many short lines are fine.
        let text = "1 2 3\n".repeat(1 << 18);
        let mut bounded = Bounded::new(io::BufReader::new(text.as_bytes()));
        let mut lines = 0;
        while bounded.read_until(b'\n', &mut line).unwrap() > 0 {
            lines += 1;
            line.clear();
        }
        assert_eq!(lines, 1 << 18);
    }
}
