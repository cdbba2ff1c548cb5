//! A job's stdout and stderr held to one cap together
//! (`execution.max_output_bytes`, per job, over all its runs): the job
//! writes into two pipes, and the wrapper copies them into the output files
//! while they hold less than the cap. At the cap the wrapper adds a note to
//! stderr and closes both pipes: the job's next write gets SIGPIPE (EPIPE
//! if it ignores it), as a single file at RLIMIT_FSIZE gets SIGXFSZ.

use nix::fcntl::OFlag;
use std::fs::File;
use std::io::{Read, Write};
use std::process::Stdio;
use std::sync::mpsc::{channel, Receiver};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// How long the wrapper waits, once the job is over, for the rest of its
/// output (a descendant still holding a pipe is killed with the job anyway).
const DRAIN: Duration = Duration::from_secs(1);

/// The output files and what the job may still write into them.
struct Files {
    stdout: File,
    stderr: File,
    /// Bytes left under the cap (`u64::MAX`: no cap).
    remaining: u64,
    /// The cap (for the note), if any.
    cap: Option<u64>,
    /// The cap was reached: nothing more is copied.
    full: bool,
}

impl Files {
    /// Copy `chunk` of stdout (`to_stderr` false) or stderr into its file,
    /// what fits under the cap; false once the cap is reached (or a write
    /// failed): copying stops.
    fn copy(&mut self, chunk: &[u8], to_stderr: bool) -> bool {
        if self.full {
            return false;
        }
        let note = self.cap.map(note).unwrap_or_default();
        let room = self.remaining.saturating_sub(note.len() as u64);
        let take = (chunk.len() as u64).min(room) as usize;
        let file = if to_stderr {
            &mut self.stderr
        } else {
            &mut self.stdout
        };
        if file.write_all(&chunk[..take]).is_err() {
            self.full = true;
            return false;
        }
        self.remaining = self.remaining.saturating_sub(take as u64);
        if take < chunk.len() {
            let fits = (note.len() as u64).min(self.remaining) as usize;
            let _ = self.stderr.write_all(&note.as_bytes()[..fits]);
            self.remaining -= fits as u64;
            self.full = true;
            return false;
        }
        true
    }
}

/// What the wrapper writes into stderr when a job reaches the cap (its
/// bytes are kept under the cap for it).
fn note(cap: u64) -> String {
    format!(
        "\ninterstice: output stopped: stdout and stderr reached execution.max_output_bytes \
         ({cap} bytes together)\n"
    )
}

/// The copying threads of a running job.
pub(super) struct Copiers {
    done: Receiver<()>,
    threads: usize,
}

impl Copiers {
    /// Wait (at most [`DRAIN`]) for the job's output to be copied: called
    /// once the job is over.
    pub(super) fn finish(self) {
        let deadline = Instant::now() + DRAIN;
        for _ in 0..self.threads {
            let left = deadline.saturating_duration_since(Instant::now());
            if self.done.recv_timeout(left).is_err() {
                return;
            }
        }
    }
}

/// Start copying into `stdout` and `stderr` (the job's output files, open
/// for appending), all the job's output held to `cap` together, what they
/// already hold (an earlier run's) included. Returns the job's stdout and
/// stderr (the pipes' write ends) and the copiers.
pub(super) fn capped(
    stdout: File,
    stderr: File,
    cap: Option<u64>,
) -> std::io::Result<(Stdio, Stdio, Copiers)> {
    let held = stdout.metadata()?.len() + stderr.metadata()?.len();
    let files = Arc::new(Mutex::new(Files {
        stdout,
        stderr,
        remaining: cap.map_or(u64::MAX, |cap| cap.saturating_sub(held)),
        cap,
        full: false,
    }));
    let (sender, done) = channel();
    let mut ends = Vec::new();
    for to_stderr in [false, true] {
        let (read, write) = nix::unistd::pipe2(OFlag::O_CLOEXEC).map_err(std::io::Error::from)?;
        ends.push(Stdio::from(write));
        let files = Arc::clone(&files);
        let sender = sender.clone();
        std::thread::spawn(move || {
            let mut read = File::from(read);
            let mut buffer = vec![0u8; 64 << 10];
            loop {
                let n = match read.read(&mut buffer) {
                    Ok(0) => break,
                    Ok(n) => n,
                    Err(err) if err.kind() == std::io::ErrorKind::Interrupted => continue,
                    Err(_) => break,
                };
                let mut files = files.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
                if !files.copy(&buffer[..n], to_stderr) {
                    break;
                }
            }
            // Dropping `read` closes the pipe: the job's next write fails.
            drop(read);
            let _ = sender.send(());
        });
    }
    let stderr = ends.pop().expect("two pipes");
    let stdout = ends.pop().expect("two pipes");
    Ok((stdout, stderr, Copiers { done, threads: 2 }))
}
