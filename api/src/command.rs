//! Running Slurm's commands (`squeue`, `scontrol`, `scancel`) from the
//! daemon and the plugins: bounded in time and in output, and never stuck on
//! a full pipe.
//!
//! A child writing into a pipe nobody reads blocks once the pipe holds 64 KiB,
//! so waiting for it to exit before reading its output deadlocks as soon as a
//! cluster's `squeue` prints more than that. [`run_bounded`] reads stdout and
//! stderr while the command runs (one thread each) and gives up at its
//! deadline or at its output limit, killing the command.

use std::io::Read;
use std::process::{Child, Command, ExitStatus, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

/// What a finished command printed.
#[derive(Debug)]
pub struct CommandOutput {
    /// How it exited.
    pub status: ExitStatus,
    /// Everything it wrote to stdout.
    pub stdout: Vec<u8>,
    /// Everything it wrote to stderr.
    pub stderr: Vec<u8>,
}

/// Why a command gave no output.
#[derive(Debug, thiserror::Error)]
pub enum CommandError {
    /// It could not be started.
    #[error("cannot run it: {0}")]
    Spawn(#[source] std::io::Error),
    /// It was still running (or its output still open) at the deadline, and
    /// was killed.
    #[error("it took longer than {0:?}")]
    Timeout(Duration),
    /// It printed more than the limit on stdout or stderr, and was killed.
    #[error("it printed more than {0} bytes")]
    TooLarge(usize),
    /// Its status or output could not be collected.
    #[error("cannot collect its output: {0}")]
    Collect(#[source] std::io::Error),
}

/// Runs `command` (its stdout and stderr are taken over; its stdin is left as
/// the caller set it), waiting at most `timeout` for it to exit and close its
/// output, keeping at most `max_output` bytes of each stream. On timeout or
/// overflow the command is killed. A grandchild that keeps the pipes open
/// after the command exits costs the deadline, never more: its readers are
/// left to end when the pipes close.
pub fn run_bounded(
    command: &mut Command,
    timeout: Duration,
    max_output: usize,
) -> Result<CommandOutput, CommandError> {
    let deadline = Instant::now() + timeout;
    let mut child = command
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(CommandError::Spawn)?;
    let (sender, streams) = mpsc::channel();
    for (index, stream) in [
        child.stdout.take().map(|s| Box::new(s) as Box<dyn Read + Send>),
        child.stderr.take().map(|s| Box::new(s) as Box<dyn Read + Send>),
    ]
    .into_iter()
    .enumerate()
    {
        let Some(stream) = stream else { continue };
        let sender = sender.clone();
        let spawned = std::thread::Builder::new()
            .name("command-output".into())
            .spawn(move || {
                let mut bytes = Vec::new();
                // One byte past the limit tells an overflow from a fit.
                let read = stream.take(max_output as u64 + 1).read_to_end(&mut bytes);
                let _ = sender.send((index, read.map(|_| bytes)));
            });
        if let Err(err) = spawned {
            kill(&mut child);
            return Err(CommandError::Collect(err));
        }
    }
    drop(sender);
    let mut output = [Vec::new(), Vec::new()];
    for _ in 0..2 {
        let wait = deadline.saturating_duration_since(Instant::now());
        match streams.recv_timeout(wait) {
            Ok((_, Ok(bytes))) if bytes.len() > max_output => {
                kill(&mut child);
                return Err(CommandError::TooLarge(max_output));
            }
            Ok((index, Ok(bytes))) => output[index] = bytes,
            Ok((_, Err(err))) => {
                kill(&mut child);
                return Err(CommandError::Collect(err));
            }
            // Both readers are done (a stream was not piped).
            Err(mpsc::RecvTimeoutError::Disconnected) => break,
            Err(mpsc::RecvTimeoutError::Timeout) => {
                kill(&mut child);
                return Err(CommandError::Timeout(timeout));
            }
        }
    }
    // The output is closed: the command has exited or is about to.
    let status = loop {
        match child.try_wait() {
            Ok(Some(status)) => break status,
            Ok(None) if Instant::now() < deadline => std::thread::sleep(Duration::from_millis(2)),
            Ok(None) => {
                kill(&mut child);
                return Err(CommandError::Timeout(timeout));
            }
            Err(err) => {
                kill(&mut child);
                return Err(CommandError::Collect(err));
            }
        }
    };
    let [stdout, stderr] = output;
    Ok(CommandOutput {
        status,
        stdout,
        stderr,
    })
}

fn kill(child: &mut Child) {
    let _ = child.kill();
    let _ = child.wait();
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sh(script: &str) -> Command {
        let mut command = Command::new("/bin/sh");
        command.args(["-c", script]).stdin(Stdio::null());
        command
    }

    #[test]
    fn output_larger_than_a_pipe_is_read_while_the_command_runs() {
        let started = Instant::now();
        let output = run_bounded(
            &mut sh("head -c 1000000 /dev/zero; echo warning >&2"),
            Duration::from_secs(20),
            2_000_000,
        )
        .expect("the command runs");
        assert!(output.status.success());
        assert_eq!(output.stdout.len(), 1_000_000);
        assert_eq!(output.stderr, b"warning\n");
        assert!(
            started.elapsed() < Duration::from_secs(10),
            "{:?}",
            started.elapsed()
        );
    }

    #[test]
    fn a_command_past_its_deadline_or_its_limit_is_killed() {
        let started = Instant::now();
        let err = run_bounded(&mut sh("sleep 30"), Duration::from_millis(200), 100).unwrap_err();
        assert!(matches!(err, CommandError::Timeout(_)), "{err}");
        assert!(started.elapsed() < Duration::from_secs(5));
        let err = run_bounded(
            &mut sh("head -c 1000 /dev/zero; sleep 30"),
            Duration::from_secs(20),
            100,
        )
        .unwrap_err();
        assert!(matches!(err, CommandError::TooLarge(100)), "{err}");
        assert!(started.elapsed() < Duration::from_secs(10));
        let err = run_bounded(
            &mut Command::new("/nonexistent/squeue"),
            Duration::from_secs(1),
            100,
        )
        .unwrap_err();
        assert!(matches!(err, CommandError::Spawn(_)), "{err}");
    }

    #[test]
    fn a_grandchild_holding_the_output_costs_the_deadline_only() {
        let started = Instant::now();
        let err = run_bounded(
            &mut sh("sleep 30 & echo started"),
            Duration::from_millis(300),
            100,
        )
        .unwrap_err();
        assert!(matches!(err, CommandError::Timeout(_)), "{err}");
        assert!(started.elapsed() < Duration::from_secs(5));
    }
}
