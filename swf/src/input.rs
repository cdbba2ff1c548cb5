//! Opening inputs: a path, `-` for stdin, plain or gzip-compressed (detected
//! by the gzip magic bytes, whatever the file is called).

use crate::error::SwfError;
use crate::input_file::{open_regular, Bounded};
use std::io::{self, BufRead, BufReader, Cursor, Read};
use std::path::Path;

/// Buffer size of every input: large reads keep the parser fed.
const BUF_SIZE: usize = 256 * 1024;

/// An opened, decompressed input.
pub struct Input {
    /// The input's display name: the path as given, or `-`.
    pub name: String,
    /// The decompressed bytes.
    pub reader: Box<dyn BufRead>,
}

impl std::fmt::Debug for Input {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Input")
            .field("name", &self.name)
            .finish_non_exhaustive()
    }
}

/// The lines of a small text input (`--maintenance`, `--area-schedule`)
/// that carry something, each with its 1-based number: `#` starts a
/// comment, blank lines are skipped; a read error names the input.
pub fn content_lines<'a>(
    reader: impl BufRead + 'a,
    name: &'a str,
) -> impl Iterator<Item = Result<(u64, String), SwfError>> + 'a {
    reader.lines().enumerate().filter_map(move |(index, line)| {
        let line = match line {
            Ok(line) => line,
            Err(source) => {
                return Some(Err(SwfError::Io {
                    action: "read",
                    path: name.into(),
                    source,
                }))
            }
        };
        let text = line.split('#').next().unwrap_or_default();
        (!text.trim().is_empty()).then(|| Ok((index as u64 + 1, text.to_string())))
    })
}

/// Open `path` (`-` is stdin) and decompress it if it is gzip.
pub fn open(path: &Path) -> Result<Input, SwfError> {
    let raw: Box<dyn Read + Send> = if path == Path::new("-") {
        Box::new(io::stdin())
    } else {
        Box::new(open_regular(path).map_err(|source| SwfError::Io {
            action: "open",
            path: path.to_path_buf(),
            source,
        })?)
    };
    from_reader(raw, path)
}

/// Wrap an already opened raw input (e.g. one that reports progress),
/// decompressing it if it starts with the gzip magic bytes. `path` only names it.
pub fn from_reader(raw: Box<dyn Read + Send>, path: &Path) -> Result<Input, SwfError> {
    let reader = decode(raw).map_err(|source| SwfError::Io {
        action: "read",
        path: path.to_path_buf(),
        source,
    })?;
    Ok(Input {
        name: path.display().to_string(),
        reader,
    })
}

/// Decompress `raw` when it is gzip (concatenated members included), in a
/// thread of its own ([`crate::inflate`]); either way bounded per line and
/// in all ([`crate::input_file`]).
pub fn decode(mut raw: Box<dyn Read + Send>) -> io::Result<Box<dyn BufRead>> {
    let mut magic = [0u8; 2];
    let mut got = 0;
    while got < 2 {
        match raw.read(&mut magic[got..]) {
            Ok(0) => break,
            Ok(n) => got += n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        }
    }
    let whole = Cursor::new(magic[..got].to_vec()).chain(raw);
    if got == 2 && magic == [0x1f, 0x8b] {
        let gz = flate2::read::MultiGzDecoder::new(BufReader::with_capacity(BUF_SIZE, whole));
        Ok(Box::new(Bounded::new(crate::inflate::Inflated::spawn(gz)?)))
    } else {
        Ok(Box::new(Bounded::new(BufReader::with_capacity(BUF_SIZE, whole))))
    }
}

/// True when the input looks like JSON (its first non-blank byte is `{`).
/// Looks only at what is already buffered; consumes nothing.
pub fn looks_like_json(reader: &mut dyn BufRead) -> io::Result<bool> {
    let buf = reader.fill_buf()?;
    Ok(buf.iter().find(|b| !b.is_ascii_whitespace()) == Some(&b'{'))
}
