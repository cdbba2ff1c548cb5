//! Gzip decompressed by a thread of its own, ahead of the reader: the
//! archive's traces are gzip files, and inflating them costs as much as
//! parsing their lines, so the two run side by side.
//!
//! The thread fills chunks and sends them through a channel of two; the
//! reader hands emptied chunks back to be reused. An error (a corrupt
//! stream, a failed read) arrives in its place in the stream, after the
//! bytes before it. A reader dropped early stops the thread at its next
//! chunk.

use std::io::{self, BufRead, Read};
use std::sync::mpsc::{self, Receiver, SyncSender};

/// Bytes of decompressed text per chunk.
const CHUNK: usize = 256 * 1024;

/// Chunks decompressed ahead of the reader.
const AHEAD: usize = 2;

/// The decompressed bytes of a gzip stream, inflated by a thread.
pub(crate) struct Inflated {
    chunks: Receiver<io::Result<Vec<u8>>>,
    emptied: SyncSender<Vec<u8>>,
    current: Vec<u8>,
    pos: usize,
    done: bool,
}

impl Inflated {
    /// Inflate `gzip` (a reader of gzip members) from a thread of its own.
    pub(crate) fn spawn(mut gzip: impl Read + Send + 'static) -> io::Result<Inflated> {
        let (sender, chunks) = mpsc::sync_channel(AHEAD);
        let (emptied, reuse) = mpsc::sync_channel::<Vec<u8>>(AHEAD + 1);
        std::thread::Builder::new()
            .name("inflate".into())
            .spawn(move || loop {
                let mut chunk = reuse.try_recv().unwrap_or_default();
                match fill(&mut gzip, &mut chunk) {
                    Ok(0) => break,
                    Ok(_) => {
                        if sender.send(Ok(chunk)).is_err() {
                            break;
                        }
                    }
                    Err(e) => {
                        let _ = sender.send(Err(e));
                        break;
                    }
                }
            })?;
        Ok(Inflated {
            chunks,
            emptied,
            current: Vec::new(),
            pos: 0,
            done: false,
        })
    }
}

/// Fill `chunk` with up to [`CHUNK`] bytes of `from`; how many (0: the end).
fn fill(from: &mut impl Read, chunk: &mut Vec<u8>) -> io::Result<usize> {
    chunk.clear();
    chunk.resize(CHUNK, 0);
    let mut got = 0;
    while got < CHUNK {
        match from.read(&mut chunk[got..]) {
            Ok(0) => break,
            Ok(n) => got += n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        }
    }
    chunk.truncate(got);
    Ok(got)
}

impl Read for Inflated {
    fn read(&mut self, out: &mut [u8]) -> io::Result<usize> {
        crate::input_file::read_buffered(self, out)
    }
}

impl BufRead for Inflated {
    fn fill_buf(&mut self) -> io::Result<&[u8]> {
        if self.pos == self.current.len() && !self.done {
            match self.chunks.recv() {
                Ok(Ok(chunk)) => {
                    let emptied = std::mem::replace(&mut self.current, chunk);
                    let _ = self.emptied.try_send(emptied);
                    self.pos = 0;
                }
                Ok(Err(e)) => {
                    self.done = true;
                    return Err(e);
                }
                Err(_) => self.done = true,
            }
        }
        Ok(&self.current[self.pos..])
    }

    fn consume(&mut self, n: usize) {
        self.pos = (self.pos + n).min(self.current.len());
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use flate2::write::GzEncoder;
    use std::io::Write;

    fn gzip(bytes: &[u8]) -> Vec<u8> {
        let mut encoder = GzEncoder::new(Vec::new(), flate2::Compression::fast());
        encoder.write_all(bytes).expect("compress");
        encoder.finish().expect("compress")
    }

    #[test]
    fn every_byte_arrives_in_order() {
        let text: Vec<u8> = (0..200_000u32)
            .flat_map(|i| format!("{i}\n").into_bytes())
            .collect();
        let gz = flate2::read::MultiGzDecoder::new(io::Cursor::new(gzip(&text)));
        let mut inflated = Inflated::spawn(gz).expect("thread");
        let mut out = Vec::new();
        inflated.read_to_end(&mut out).expect("read");
        assert_eq!(out, text);
    }

    #[test]
    fn a_corrupt_stream_is_an_error_after_its_good_bytes() {
        let mut gz = gzip(&vec![b'a'; 3 * CHUNK]);
        let cut = gz.len() / 2;
        gz.truncate(cut);
        let decoder = flate2::read::MultiGzDecoder::new(io::Cursor::new(gz));
        let mut inflated = Inflated::spawn(decoder).expect("thread");
        let mut out = Vec::new();
        assert!(inflated.read_to_end(&mut out).is_err());
        assert!(out.iter().all(|&b| b == b'a'));
    }
}
