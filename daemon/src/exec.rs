//! Running cloud jobs as local processes: no shell, own process group, the
//! configured unprivileged user (when the daemon is root), resource limits,
//! output to per-job files, signals to the whole group.
//!
//! Resource limits are set by a tiny wrapper (`intersticed __exec-job`)
//! instead of a `pre_exec` hook, so the workspace stays free of `unsafe`: the
//! wrapper applies the limits to itself, runs the job as its child (same
//! process group), and when the job ends writes its exit status and end time
//! to `jobs/<id>.status`, then exits the way the job did. The daemon creates
//! that file itself (never following a symlink) and hands it to the wrapper
//! as stdin, so a job that ends while the daemon is down leaves its real
//! outcome for the restarted daemon ([`Executor::ended_while_away`]). The
//! wrapper outlives SIGTERM/SIGINT/SIGHUP sent to the group (the job gets
//! them); SIGKILL ends both, without a status.

use crate::config::{ExecutionConfig, RlimitConfig};
use nix::sys::signal::{killpg, Signal};
use nix::unistd::Pid;
use std::collections::BTreeMap;
use std::fs::OpenOptions;
use std::io::Write;
use std::os::fd::AsFd;
use std::os::unix::fs::OpenOptionsExt;
use std::os::unix::process::{CommandExt, ExitStatusExt};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};

/// The hidden first argument that turns `intersticed` into the exec wrapper.
pub const EXEC_WRAPPER_ARG: &str = "__exec-job";

/// What to run.
#[derive(Clone, Debug)]
pub struct Launch<'a> {
    /// Job id (names the output files).
    pub id: u64,
    /// Program and arguments.
    pub argv: &'a [String],
    /// Variables set besides `PATH` and `INTERSTICE_JOB_ID` (nothing is inherited).
    pub env: &'a BTreeMap<String, String>,
    /// Working directory (None = the job's directory under the state dir).
    pub workdir: Option<&'a str>,
}

/// Errors starting a job.
#[derive(Debug, thiserror::Error)]
pub enum ExecError {
    /// Setting the job up failed.
    #[error("cannot prepare job {id}: {message}")]
    Prepare {
        /// The job's daemon id.
        id: u64,
        /// What could not be set up (a file or directory, with the OS error).
        message: String,
    },
    /// The process could not be spawned.
    #[error("cannot start job {id} ({program}): {source}")]
    Spawn {
        /// The job's daemon id.
        id: u64,
        /// The program (`argv[0]`).
        program: String,
        /// The OS error.
        source: std::io::Error,
    },
}

/// Why the executor cannot be set up.
#[derive(Debug, thiserror::Error)]
pub enum ExecutorError {
    /// The directory of the jobs' output and status files cannot be created.
    #[error("cannot create {}: {source}", .path.display())]
    JobsDir {
        /// `state_dir/jobs`.
        path: PathBuf,
        /// The OS error.
        source: std::io::Error,
    },
    /// The daemon runs as root and `execution.user` does not exist.
    #[error("execution.user: no user named {0:?}")]
    NoUser(String),
}

/// Spawns job processes.
#[derive(Clone, Debug)]
pub struct Executor {
    jobs_dir: PathBuf,
    wrapper: PathBuf,
    config: ExecutionConfig,
    run_as: Option<(u32, u32)>,
}

impl Executor {
    /// An executor writing under `state_dir/jobs`, re-executing `wrapper` (the
    /// `intersticed` binary) to apply limits.
    pub fn new(
        state_dir: &Path,
        wrapper: PathBuf,
        config: ExecutionConfig,
    ) -> Result<Executor, ExecutorError> {
        let jobs_dir = state_dir.join("jobs");
        if let Err(source) = std::fs::create_dir_all(&jobs_dir) {
            return Err(ExecutorError::JobsDir {
                path: jobs_dir,
                source,
            });
        }
        let run_as = if nix::unistd::geteuid().is_root() {
            match nix::unistd::User::from_name(&config.user) {
                Ok(Some(user)) => Some((user.uid.as_raw(), user.gid.as_raw())),
                _ => return Err(ExecutorError::NoUser(config.user)),
            }
        } else {
            None
        };
        Ok(Executor {
            jobs_dir,
            wrapper,
            config,
            run_as,
        })
    }

    /// Swap in reloadable settings (grace, PATH, limits; not the user).
    pub fn reload(&mut self, config: ExecutionConfig) {
        self.config.grace_seconds = config.grace_seconds;
        self.config.path = config.path;
        self.config.rlimits = config.rlimits;
    }

    /// Seconds between SIGTERM and SIGKILL.
    pub fn grace_seconds(&self) -> f64 {
        self.config.grace_seconds
    }

    /// Where a job's stdout goes.
    pub fn stdout_path(&self, id: u64) -> PathBuf {
        self.jobs_dir.join(format!("{id}.out"))
    }

    /// Where the wrapper records how the job ended.
    pub fn status_path(&self, id: u64) -> PathBuf {
        self.jobs_dir.join(format!("{id}.status"))
    }

    /// How job `id` ended according to its wrapper, if it wrote a status
    /// (a job that ended while the daemon was down or was adopted).
    pub fn ended_while_away(&self, id: u64) -> Option<RecordedEnd> {
        let text = std::fs::read_to_string(self.status_path(id)).ok()?;
        RecordedEnd::parse(&text)
    }

    /// Where a job's stderr goes.
    pub fn stderr_path(&self, id: u64) -> PathBuf {
        self.jobs_dir.join(format!("{id}.err"))
    }

    /// Start a job; the child leads its own process group.
    pub fn spawn(&self, launch: &Launch<'_>) -> Result<Child, ExecError> {
        let prepare = |message: String| ExecError::Prepare {
            id: launch.id,
            message,
        };
        let program = launch
            .argv
            .first()
            .ok_or_else(|| prepare("empty argv".to_string()))?;
        let workdir = match launch.workdir {
            Some(dir) => PathBuf::from(dir),
            None => {
                let dir = self.jobs_dir.join(launch.id.to_string());
                std::fs::create_dir_all(&dir).map_err(|err| prepare(format!("{}: {err}", dir.display())))?;
                if let Some((uid, gid)) = self.run_as {
                    let _ = nix::unistd::chown(&dir, Some(uid.into()), Some(gid.into()));
                }
                dir
            }
        };
        let open = |path: PathBuf| {
            OpenOptions::new()
                .create(true)
                .append(true)
                .open(&path)
                .map_err(|err| prepare(format!("{}: {err}", path.display())))
        };
        let stdout = open(self.stdout_path(launch.id))?;
        let stderr = open(self.stderr_path(launch.id))?;
        // A fresh status file of our own (a rerun replaces the last run's).
        let status_path = self.status_path(launch.id);
        match std::fs::remove_file(&status_path) {
            Ok(()) => {}
            Err(err) if err.kind() == std::io::ErrorKind::NotFound => {}
            Err(err) => return Err(prepare(format!("{}: {err}", status_path.display()))),
        }
        let status = OpenOptions::new()
            .write(true)
            .create_new(true)
            .mode(0o600)
            .custom_flags(nix::libc::O_NOFOLLOW)
            .open(&status_path)
            .map_err(|err| prepare(format!("{}: {err}", status_path.display())))?;
        let mut command = Command::new(&self.wrapper);
        command.arg(EXEC_WRAPPER_ARG);
        for (name, value) in rlimit_args(&self.config.rlimits) {
            command.arg(format!("{name}={value}"));
        }
        command.arg("--").args(launch.argv);
        command.env_clear();
        if !launch.env.contains_key("PATH") {
            command.env("PATH", &self.config.path);
        }
        command.envs(launch.env);
        command.env("INTERSTICE_JOB_ID", launch.id.to_string());
        command
            .current_dir(&workdir)
            .stdin(status)
            .stdout(stdout)
            .stderr(stderr)
            .process_group(0);
        if let Some((uid, gid)) = self.run_as {
            command.uid(uid).gid(gid);
        }
        command.spawn().map_err(|source| ExecError::Spawn {
            id: launch.id,
            program: program.clone(),
            source,
        })
    }
}

fn rlimit_args(limits: &RlimitConfig) -> Vec<(&'static str, u64)> {
    let mut args = Vec::new();
    let mut push = |name, value: Option<u64>| {
        if let Some(value) = value {
            args.push((name, value));
        }
    };
    push("NOFILE", limits.open_files);
    push("AS", limits.address_space_bytes);
    push("CORE", limits.core_bytes);
    push("NPROC", limits.processes);
    args
}

/// Send `signal` to the process group led by `pid`. False if it is gone.
pub fn signal_group(pid: u32, signal: Signal) -> bool {
    killpg(Pid::from_raw(pid as i32), signal).is_ok()
}

/// The start time of a live (non-zombie) process in clock ticks since boot
/// (`/proc/PID/stat` field 22); None if it does not exist.
pub fn process_start_ticks(pid: u32) -> Option<u64> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    let after_name = &stat[stat.rfind(')')? + 1..];
    let mut fields = after_name.split_whitespace();
    let state = fields.next()?;
    if state == "Z" || state == "X" {
        return None;
    }
    // After the state come fields 4..; starttime is field 22, i.e. the 19th after the state.
    fields.nth(18)?.parse().ok()
}

/// True if `pid` is alive and is the process that started at `start_ticks`.
pub fn same_process_alive(pid: u32, start_ticks: u64) -> bool {
    process_start_ticks(pid) == Some(start_ticks)
}

/// How a job ended, as its wrapper recorded it (`exit CODE END` or
/// `signal NUMBER END`, END in seconds since the epoch).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RecordedEnd {
    /// Exit code, when it exited.
    pub code: Option<i32>,
    /// Signal, when one killed it.
    pub signal: Option<i32>,
    /// When it ended (seconds since the epoch).
    pub ended_at: f64,
}

impl RecordedEnd {
    fn parse(text: &str) -> Option<RecordedEnd> {
        let mut words = text.split_whitespace();
        let (kind, value, ended_at) = (words.next()?, words.next()?, words.next()?);
        let value: i32 = value.parse().ok()?;
        let ended_at: f64 = ended_at.parse().ok().filter(|t: &f64| t.is_finite())?;
        match kind {
            "exit" => Some(RecordedEnd {
                code: Some(value),
                signal: None,
                ended_at,
            }),
            "signal" => Some(RecordedEnd {
                code: None,
                signal: Some(value),
                ended_at,
            }),
            _ => None,
        }
    }
}

/// The wrapper: `intersticed __exec-job [NAME=VALUE...] -- argv...`, with
/// the job's status file as stdin (see the module docs). Returns the exit
/// code to leave with (a job killed by a signal is re-raised instead).
pub fn exec_wrapper(args: &[String]) -> i32 {
    use nix::sys::resource::{setrlimit, Resource};
    let Some(split) = args.iter().position(|arg| arg == "--") else {
        eprintln!("intersticed {EXEC_WRAPPER_ARG}: missing -- before the job's argv");
        return 127;
    };
    for limit in &args[..split] {
        let Some((name, value)) = limit.split_once('=') else {
            eprintln!("intersticed {EXEC_WRAPPER_ARG}: bad limit {limit:?}");
            return 127;
        };
        let resource = match name {
            "NOFILE" => Resource::RLIMIT_NOFILE,
            "AS" => Resource::RLIMIT_AS,
            "CORE" => Resource::RLIMIT_CORE,
            "NPROC" => Resource::RLIMIT_NPROC,
            _ => {
                eprintln!("intersticed {EXEC_WRAPPER_ARG}: unknown limit {name:?}");
                return 127;
            }
        };
        let Ok(value) = value.parse::<u64>() else {
            eprintln!("intersticed {EXEC_WRAPPER_ARG}: bad limit value {value:?}");
            return 127;
        };
        if let Err(err) = setrlimit(resource, value, value) {
            eprintln!("intersticed {EXEC_WRAPPER_ARG}: cannot set {name}={value}: {err}");
            return 127;
        }
    }
    let argv = &args[split + 1..];
    let Some(program) = argv.first() else {
        eprintln!("intersticed {EXEC_WRAPPER_ARG}: empty argv");
        return 127;
    };
    let mut status_file = std::io::stdin()
        .as_fd()
        .try_clone_to_owned()
        .map(std::fs::File::from)
        .ok();
    // Signals for the job's group are the job's to handle: the wrapper
    // stays to record how it ended (the job gets default dispositions).
    for signal in [
        signal_hook::consts::SIGTERM,
        signal_hook::consts::SIGINT,
        signal_hook::consts::SIGHUP,
    ] {
        let _ = signal_hook::flag::register(
            signal,
            std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false)),
        );
    }
    let (record, exit) = match Command::new(program)
        .args(&argv[1..])
        .stdin(Stdio::null())
        .status()
    {
        Ok(status) => match (status.code(), status.signal()) {
            (Some(code), _) => (format!("exit {code}"), Ok(code)),
            (None, Some(signal)) => (format!("signal {signal}"), Err(signal)),
            (None, None) => ("exit 127".to_string(), Ok(127)),
        },
        Err(err) => {
            eprintln!("interstice: cannot execute {program:?}: {err}");
            ("exit 127".to_string(), Ok(127))
        }
    };
    if let Some(file) = status_file.as_mut() {
        let ended_at = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0.0, |elapsed| elapsed.as_secs_f64());
        let _ = writeln!(file, "{record} {ended_at:.6}").and_then(|()| file.sync_data());
    }
    match exit {
        Ok(code) => code,
        Err(signal) => {
            let _ = signal_hook::low_level::emulate_default_handler(signal);
            128 + signal
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn own_start_ticks_are_readable_and_stable() {
        let me = std::process::id();
        let ticks = process_start_ticks(me).expect("own /proc entry");
        assert!(same_process_alive(me, ticks));
        assert!(!same_process_alive(me, ticks + 1));
        assert_eq!(process_start_ticks(u32::MAX / 2), None);
    }
}
