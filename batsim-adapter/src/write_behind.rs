//! A file written by a thread of its own: the run formats its rows, the
//! thread pays for the system calls (a replay's `jobs.csv` is tens of
//! megabytes; copying them into the page cache costs as much as the
//! formatting did).
//!
//! Writes go to a buffer; each full buffer is handed to the writer thread
//! through a channel of two, and emptied buffers come back to be reused, so
//! the run allocates a handful of buffers whatever the file's size. A
//! failed write stops the thread: the error is returned by the next write
//! that finds it stopped, or by [`WriteBehind::finish`], which must be
//! called to know the file was written (dropping the writer writes what is
//! buffered and waits for the thread, without a way to report an error).

use std::fs::File;
use std::io::{self, Write};
use std::sync::mpsc::{self, Receiver, SyncSender};
use std::thread::JoinHandle;

/// Bytes gathered before a buffer is handed to the writer thread.
const CHUNK: usize = 1 << 20;

/// Buffers in flight between the run and the writer thread.
const IN_FLIGHT: usize = 2;

/// A file written behind the caller's back (see the module docs).
pub struct WriteBehind {
    buf: Vec<u8>,
    full: Option<SyncSender<Vec<u8>>>,
    empty: Receiver<Vec<u8>>,
    thread: Option<JoinHandle<io::Result<()>>>,
}

impl WriteBehind {
    /// Write `file` from a thread of its own.
    pub fn new(file: File) -> io::Result<WriteBehind> {
        let (full, full_rx) = mpsc::sync_channel::<Vec<u8>>(IN_FLIGHT);
        let (empty_tx, empty) = mpsc::sync_channel::<Vec<u8>>(IN_FLIGHT + 1);
        let thread = std::thread::Builder::new()
            .name("write-behind".into())
            .spawn(move || {
                let mut file = file;
                for mut chunk in full_rx {
                    file.write_all(&chunk)?;
                    chunk.clear();
                    // The run may have stopped taking buffers back: no matter.
                    let _ = empty_tx.try_send(chunk);
                }
                file.flush()
            })?;
        Ok(WriteBehind {
            buf: Vec::with_capacity(CHUNK),
            full: Some(full),
            empty,
            thread: Some(thread),
        })
    }

    /// Hand the buffer to the thread; an error if the thread stopped.
    fn hand_over(&mut self) -> io::Result<()> {
        if self.buf.is_empty() {
            return Ok(());
        }
        let next = self
            .empty
            .try_recv()
            .unwrap_or_else(|_| Vec::with_capacity(CHUNK));
        let chunk = std::mem::replace(&mut self.buf, next);
        let sent = self.full.as_ref().map(|full| full.send(chunk));
        match sent {
            Some(Ok(())) => Ok(()),
            // The thread stopped: its result says why.
            _ => self
                .join()
                .and(Err(io::Error::other("the writer thread stopped"))),
        }
    }

    /// Close the channel and wait for the thread's result.
    fn join(&mut self) -> io::Result<()> {
        self.full = None;
        match self.thread.take().map(JoinHandle::join) {
            None => Ok(()),
            Some(Ok(result)) => result,
            Some(Err(_)) => Err(io::Error::other("the writer thread panicked")),
        }
    }

    /// Write what is buffered, wait for the thread and report the first
    /// error it met.
    pub fn finish(mut self) -> io::Result<()> {
        let handed = self.hand_over();
        let joined = self.join();
        handed.and(joined)
    }
}

impl Write for WriteBehind {
    fn write(&mut self, bytes: &[u8]) -> io::Result<usize> {
        self.write_all(bytes)?;
        Ok(bytes.len())
    }

    fn write_all(&mut self, bytes: &[u8]) -> io::Result<()> {
        self.buf.extend_from_slice(bytes);
        if self.buf.len() >= CHUNK {
            self.hand_over()?;
        }
        Ok(())
    }

    /// Hands what is buffered to the thread; the bytes reach the file when
    /// the thread gets to them ([`WriteBehind::finish`] waits for that).
    fn flush(&mut self) -> io::Result<()> {
        self.hand_over()
    }
}

impl Drop for WriteBehind {
    fn drop(&mut self) {
        let _ = self.hand_over();
        let _ = self.join();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn everything_written_arrives_in_order() {
        let dir = tempfile::tempdir().expect("temporary directory");
        let path = dir.path().join("out.txt");
        let mut out = WriteBehind::new(File::create(&path).expect("create")).expect("thread");
        let mut expected = Vec::new();
        for i in 0..300_000u32 {
            let line = format!("{i}\n");
            out.write_all(line.as_bytes()).expect("write");
            expected.extend_from_slice(line.as_bytes());
        }
        out.finish().expect("finish");
        assert_eq!(std::fs::read(&path).expect("read"), expected);
    }

    #[test]
    fn a_failed_write_is_reported() {
        // /dev/full refuses every write with ENOSPC.
        let Ok(file) = std::fs::OpenOptions::new().write(true).open("/dev/full") else {
            return;
        };
        let mut out = WriteBehind::new(file).expect("thread");
        let mut failed = false;
        for _ in 0..(4 * CHUNK / 64) {
            if out.write_all(&[b'x'; 64]).is_err() {
                failed = true;
                break;
            }
        }
        assert!(failed || out.finish().is_err(), "writing to /dev/full must fail");
    }
}
