//! Running cloud jobs as local processes: no shell, own process group, the
//! configured unprivileged user (when the daemon is root), resource limits,
//! output to per-job files, signals to the whole group.
//!
//! Resource limits are set by a tiny exec wrapper (`intersticed __exec-job`)
//! instead of a `pre_exec` hook, so the workspace stays free of `unsafe`: the
//! wrapper applies the limits to itself and `exec`s the job (same pid).

use crate::config::{ExecutionConfig, RlimitConfig};
use nix::sys::signal::{killpg, Signal};
use nix::unistd::Pid;
use std::collections::BTreeMap;
use std::fs::OpenOptions;
use std::os::unix::process::CommandExt;
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
    /// Environment.
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
        /// Job.
        id: u64,
        /// Why.
        message: String,
    },
    /// The process could not be spawned.
    #[error("cannot start job {id} ({program}): {source}")]
    Spawn {
        /// Job.
        id: u64,
        /// argv[0].
        program: String,
        /// Why.
        source: std::io::Error,
    },
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
    pub fn new(state_dir: &Path, wrapper: PathBuf, config: ExecutionConfig) -> Result<Executor, String> {
        let jobs_dir = state_dir.join("jobs");
        std::fs::create_dir_all(&jobs_dir)
            .map_err(|err| format!("cannot create {}: {err}", jobs_dir.display()))?;
        let run_as = if nix::unistd::geteuid().is_root() {
            match nix::unistd::User::from_name(&config.user) {
                Ok(Some(user)) => Some((user.uid.as_raw(), user.gid.as_raw())),
                _ => return Err(format!("execution.user: no user named {:?}", config.user)),
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
            .stdin(Stdio::null())
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

/// The exec wrapper: `intersticed __exec-job [NAME=VALUE...] -- argv...`.
/// Applies the limits to itself, then replaces itself with the job. Only
/// returns (with an exit code) on failure.
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
    let err = Command::new(program).args(&argv[1..]).exec();
    eprintln!("interstice: cannot execute {program:?}: {err}");
    127
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
