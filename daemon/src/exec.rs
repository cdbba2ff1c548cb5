//! Running cloud jobs as local processes: no shell, own process group and
//! cgroup ([`crate::cgroup`]), the submitter's identity
//! ([`crate::identity`]), resource limits, output to per-job files, signals
//! to every process of the job.
//!
//! The daemon spawns a tiny wrapper (`intersticed __exec-job`, root while
//! it sets up) instead of a `pre_exec` hook, so the workspace stays free of
//! `unsafe`. The wrapper joins the job's cgroups (its containment's and its
//! limits': CPUs, memory, processes, see `crate::cgroup::Limiter`), pins
//! itself to the job's CPUs, applies the limits
//! (RLIMIT_FSIZE is `execution.max_output_bytes`), drops to the job's user
//! (`initgroups`, gid, uid), opens the job's output files as that user
//! (`jobs/<id>/stdout|stderr`, 0600, never following a symlink), enters the
//! working directory as that user, runs the job as its child (its stdout and
//! stderr through pipes it copies into those files, the two held to
//! `execution.max_output_bytes` together: `output`), and when the
//! job ends writes its exit status and end time to `jobs/<id>.status`, then
//! exits the way the job did. The daemon creates that status file itself
//! (root's, 0600, never following a symlink, its bytes reserved so that an
//! end is recorded on a full disk: `status`) and hands it to the wrapper as
//! stdin, so a job that ends while the daemon is down leaves its real
//! outcome for the restarted daemon ([`Executor::ended_while_away`]). The
//! wrapper outlives SIGTERM/SIGINT/SIGHUP sent to the group (the job gets
//! them); SIGKILL ends both, without a status.
//!
//! Files: `state_dir`, `state_dir/jobs` and `execution.work_root` (outside
//! `state_dir`) are root's and not writable by anyone else (0711: a job's
//! user can pass through to its own directory). Each job's directory
//! `jobs/<id>` (its output) and, when it gives no `workdir`, its working
//! directory `<work_root>/<id>` are made by the daemon relative to the open
//! parent, owned by the job's user, mode 0700; an entry of that name the
//! daemon did not make is an error, never followed.
//!
//! Before a job is accepted, its `workdir` and `argv[0]` are checked as its
//! user (`intersticed __check-job`, a helper that drops to the user first),
//! so a client cannot probe paths it could not see itself.

mod cleanup;
mod output;
mod scratch;
mod status;
mod wrapper;

use crate::cgroup::{Containment, JobLimits, Limiter};
use crate::config::{ExecutionConfig, RlimitConfig};
use crate::identity::RunAs;
use interstice_core::ProcSet;
use nix::fcntl::{openat, OFlag};
use nix::sys::signal::{killpg, Signal};
use nix::sys::stat::{fchmod, fstat, mkdirat, Mode};
use nix::unistd::{fchown, Gid, Pid, Uid};
pub use scratch::{mount_points_under, unmount_all_under};
pub use status::{ObservedEnd, RecordedEnd};
use std::collections::BTreeMap;
use std::fs::OpenOptions;
use std::io::Write;
use std::os::fd::AsRawFd;
use std::os::unix::fs::{OpenOptionsExt, PermissionsExt};
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::Arc;
pub use wrapper::{exec_wrapper, EXEC_WRAPPER_ARG};

/// The hidden first argument that turns `intersticed` into the access-check
/// helper: `intersticed __check-job UID GID WORKDIR PATH PROGRAM` (WORKDIR
/// empty: none) drops to UID/GID and exits 0 (fine), 10 (workdir) or 11
/// (program).
pub const CHECK_HELPER_ARG: &str = "__check-job";

/// Names of a job's output files in its directory.
pub const STDOUT_NAME: &str = "stdout";
/// See [`STDOUT_NAME`].
pub const STDERR_NAME: &str = "stderr";

/// The most bytes of a job's output one `GET /v1/jobs/{id}/output` returns.
pub const MAX_OUTPUT_READ: u64 = 1 << 20;

/// What to run.
#[derive(Clone, Debug)]
pub struct Launch<'a> {
    /// Job id (names the output files).
    pub id: u64,
    /// Program and arguments.
    pub argv: &'a [String],
    /// Variables set besides `PATH` and `INTERSTICE_JOB_ID` (nothing is inherited).
    pub env: &'a BTreeMap<String, String>,
    /// Working directory (None = its own directory under `execution.work_root`).
    pub workdir: Option<&'a str>,
    /// Who it runs as (None: the daemon's own user, when it is not root).
    pub run_as: Option<&'a RunAs>,
    /// What its cgroups confine it to ([`Executor::limits_for`]).
    pub limits: &'a JobLimits,
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
    /// `execution.work_root` cannot be used.
    #[error("execution.work_root: {0}")]
    WorkRoot(String),
    /// The daemon runs as root and `execution.user` does not exist.
    #[error("execution.user: no user named {0:?}")]
    NoUser(String),
    /// `execution.cgroup` names a cgroup that cannot be used.
    #[error("execution.cgroup: {0}")]
    Cgroup(String),
}

/// What a submission's paths failed (as the job's user).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Denied {
    /// `workdir` is not a directory the user can enter.
    Workdir,
    /// `argv[0]` is not a file the user can execute.
    Program,
    /// The check did not finish within [`ACCESS_CHECK_TIMEOUT`] (a file
    /// system that does not answer).
    Timeout,
}

/// How long the access check of `workdir` and `argv[0]` may take.
pub const ACCESS_CHECK_TIMEOUT: std::time::Duration = std::time::Duration::from_secs(2);

/// Spawns job processes.
#[derive(Clone, Debug)]
pub struct Executor {
    jobs_dir: PathBuf,
    /// `jobs_dir`, opened without following a symlink: job directories are
    /// made relative to it.
    jobs_fd: Arc<std::fs::File>,
    /// `execution.work_root`: where jobs without a `workdir` run, each in
    /// `<work_root>/<id>`, outside the state directory.
    work_root: PathBuf,
    /// `work_root`, open (the jobs' directories are made relative to it).
    work_fd: Arc<std::fs::File>,
    wrapper: PathBuf,
    config: ExecutionConfig,
    containment: Containment,
    /// The limits this node enforces, and where.
    limiter: Limiter,
    /// Ended jobs whose cgroup still had dying processes.
    lingering: Vec<u64>,
}

fn io_error(err: nix::Error) -> std::io::Error {
    std::io::Error::from_raw_os_error(err as i32)
}

/// `state_dir` root's (its group kept) and writable by nobody else, and
/// `state_dir/jobs` a [`root_dir`].
fn secure_dirs(state_dir: &Path) -> Result<(PathBuf, std::fs::File), ExecutorError> {
    let jobs_dir = state_dir.join("jobs");
    if nix::unistd::geteuid().is_root() {
        let fail = |source: std::io::Error| ExecutorError::JobsDir {
            path: state_dir.to_path_buf(),
            source,
        };
        let meta = std::fs::metadata(state_dir).map_err(fail)?;
        if std::os::unix::fs::MetadataExt::uid(&meta) != 0 {
            nix::unistd::chown(state_dir, Some(Uid::from_raw(0)), None).map_err(|err| fail(io_error(err)))?;
        }
        let mode = (meta.permissions().mode() & 0o7777 & !0o022) | 0o711;
        std::fs::set_permissions(state_dir, std::fs::Permissions::from_mode(mode)).map_err(fail)?;
    }
    let fd = root_dir(&jobs_dir).map_err(|source| ExecutorError::JobsDir {
        path: jobs_dir.clone(),
        source,
    })?;
    Ok((jobs_dir, fd))
}

/// The jobs' working directories' parent (`execution.work_root`, outside
/// `state_dir`): a [`root_dir`]; its parent must exist.
fn secure_work_root(
    state_dir: &Path,
    config: &ExecutionConfig,
) -> Result<(PathBuf, std::fs::File), ExecutorError> {
    if let Some(problem) = config.work_root_problem(state_dir) {
        return Err(ExecutorError::WorkRoot(problem));
    }
    let work_root = config.work_root_for(state_dir);
    let fd = root_dir(&work_root).map_err(|err| {
        ExecutorError::WorkRoot(format!("{}: {err} (its parent must exist)", work_root.display()))
    })?;
    if let Some(problem) = work_root_disk_problem(state_dir, config) {
        return Err(ExecutorError::WorkRoot(problem));
    }
    Ok((work_root, fd))
}

/// End every job of the (stopped) daemon on `state_dir`
/// ([`crate::cgroup::end_all_jobs`]) and unmount their working directories
/// under the default `work_root`: what a test does after killing a daemon
/// whose jobs would outlive it.
pub fn end_all_jobs(state_dir: &Path) {
    crate::cgroup::end_all_jobs(state_dir);
    scratch::unmount_all_under(&ExecutionConfig::default().work_root_for(state_dir));
}

/// Do jobs without a quota write on the disk the daemon records on? A root
/// daemon refuses `work_dir_quota_mb: null` with `work_root` on
/// `state_dir`'s file system (compared through the nearest directories that
/// exist, so that `--check-config` says it before they are made): a job
/// could fill it, and every admission would fail until root cleans up.
pub fn work_root_disk_problem(state_dir: &Path, config: &ExecutionConfig) -> Option<String> {
    if config.work_dir_quota_mb.is_some() || !nix::unistd::geteuid().is_root() {
        return None;
    }
    let device = |path: &Path| {
        path.ancestors()
            .find_map(|dir| std::fs::metadata(dir).ok())
            .map(|meta| std::os::unix::fs::MetadataExt::dev(&meta))
    };
    let work_root = config.work_root_for(state_dir);
    (device(state_dir)? == device(&work_root)?).then(|| {
        format!(
            "execution.work_root: {} is on the file system of state_dir {} and \
             execution.work_dir_quota_mb is null: a job could fill the disk the daemon records on; \
             set a quota (each job's directory its own tmpfs, {} MiB by default) or put work_root \
             on another file system",
            work_root.display(),
            state_dir.display(),
            crate::config::DEFAULT_WORK_DIR_QUOTA_MB
        )
    })
}

/// `dir` made if missing, opened without following a symlink, root's (when
/// the daemon is) and 0711: a job's user passes through to its own
/// directory in it, and sees nobody else's.
fn root_dir(dir: &Path) -> std::io::Result<std::fs::File> {
    match std::fs::create_dir(dir) {
        Ok(()) => {}
        Err(err) if err.kind() == std::io::ErrorKind::AlreadyExists => {}
        Err(err) => return Err(err),
    }
    let fd = OpenOptions::new()
        .read(true)
        .custom_flags(nix::libc::O_DIRECTORY | nix::libc::O_NOFOLLOW)
        .open(dir)?;
    if nix::unistd::geteuid().is_root() {
        fchown(fd.as_raw_fd(), Some(Uid::from_raw(0)), Some(Gid::from_raw(0))).map_err(io_error)?;
    }
    fchmod(fd.as_raw_fd(), Mode::from_bits_truncate(0o711)).map_err(io_error)?;
    Ok(fd)
}

/// A descriptor nix returned as a raw number, closed on drop (nix 0.29's
/// `openat` gives no `OwnedFd`, and owning a raw one would take `unsafe`).
struct RawDir(std::os::fd::RawFd);

impl Drop for RawDir {
    fn drop(&mut self) {
        let _ = nix::unistd::close(self.0);
    }
}

impl Executor {
    /// An executor writing under `state_dir/jobs`, re-executing `wrapper` (the
    /// `intersticed` binary) to apply limits.
    pub fn new(
        state_dir: &Path,
        wrapper: PathBuf,
        config: ExecutionConfig,
    ) -> Result<Executor, ExecutorError> {
        let (jobs_dir, jobs_fd) = secure_dirs(state_dir)?;
        let (work_root, work_fd) = secure_work_root(state_dir, &config)?;
        if nix::unistd::geteuid().is_root()
            && !matches!(nix::unistd::User::from_name(&config.user), Ok(Some(_)))
        {
            return Err(ExecutorError::NoUser(config.user));
        }
        let daemon = crate::cgroup::daemon_name(state_dir);
        let (containment, warning) =
            Containment::setup(config.cgroup, &daemon).map_err(ExecutorError::Cgroup)?;
        match warning {
            Some(warning) => tracing::warn!("execution.cgroup: {warning}"),
            None => tracing::info!("jobs are contained by {}", containment.describe()),
        }
        let cgroups = config.cgroup != crate::config::CgroupMode::None;
        let (limiter, warnings) = Limiter::setup(&containment, &daemon, config.limits.cpu_quota, cgroups);
        for warning in warnings {
            tracing::warn!("execution.limits: {warning}");
        }
        let report = limiter.report(containment.kill_name());
        tracing::info!(
            "jobs are confined: cpuset {}, affinity {}, memory {}, pids {}, cpu quota {}, killed by {}; through {}",
            report.cpuset,
            report.affinity,
            report.memory,
            report.pids,
            report.cpu,
            report.kill,
            limiter.describe()
        );
        Ok(Executor {
            jobs_dir,
            jobs_fd: Arc::new(jobs_fd),
            work_root,
            work_fd: Arc::new(work_fd),
            wrapper,
            config,
            containment,
            limiter,
            lingering: Vec::new(),
        })
    }

    /// Swap in reloadable settings (grace, PATH, limits, output cap; not
    /// the user nor the cgroup).
    pub fn reload(&mut self, config: ExecutionConfig) {
        self.config.grace_seconds = config.grace_seconds;
        self.config.path = config.path;
        self.config.rlimits = config.rlimits;
        self.config.max_output_bytes = config.max_output_bytes;
        // The memory and process limits of the next starts (a cpu_quota
        // turned on takes a restart to find its controller).
        self.config.limits = config.limits;
    }

    /// Seconds between SIGTERM and SIGKILL.
    pub fn grace_seconds(&self) -> f64 {
        self.config.grace_seconds
    }

    /// How jobs are contained (for `/healthz` and the log).
    pub fn containment(&self) -> &Containment {
        &self.containment
    }

    /// The limits enforced on this node's jobs (for `/healthz`).
    pub fn confinement(&self) -> interstice_api::wire::Confinement {
        self.limiter.report(self.containment.kill_name())
    }

    /// The limits of a run of a job of `procs` processors on the engine's
    /// processors `placed`, which asked for `memory_mb` MiB.
    pub fn limits_for(&self, procs: u32, placed: Option<&ProcSet>, memory_mb: Option<u64>) -> JobLimits {
        self.limiter
            .limits_for(&self.config.limits, procs, placed, memory_mb)
    }

    /// The engine's processors (of `width`) on the node CPUs `cpus`: where
    /// a batch system's job on those CPUs is held (see [`crate::cgroup::procs_on`]).
    pub fn procs_on(&self, cpus: &ProcSet, width: u32) -> ProcSet {
        crate::cgroup::procs_on(cpus, self.limiter.allowed_cpus(), width)
    }

    /// The most memory a job may ask for, MiB (None: no ceiling).
    pub fn memory_ceiling_mb(&self) -> Option<u64> {
        self.limiter.memory_ceiling_mb(&self.config.limits)
    }

    /// True if the kernel killed a process of job `id` at its memory limit
    /// (ask before its release).
    pub fn oom_killed(&self, id: u64) -> bool {
        self.limiter.oom_killed(id)
    }

    /// Job `id`'s directory under the state directory (its output).
    pub fn job_dir(&self, id: u64) -> PathBuf {
        self.jobs_dir.join(id.to_string())
    }

    /// Job `id`'s working directory when it gives none:
    /// `<execution.work_root>/<id>`, outside the state directory.
    pub fn work_dir(&self, id: u64) -> PathBuf {
        self.work_root.join(id.to_string())
    }

    /// Remove job `id`'s default working directory `<work_root>/<id>` and
    /// what it holds, in a thread of its own (a job may leave many files),
    /// never following what the job planted ([`cleanup`]); a failure is
    /// logged. Nothing when `execution.keep_work_dirs`.
    pub fn remove_work_dir(&self, id: u64) {
        self.remove_work_dirs(vec![id]);
    }

    /// Remove every `<work_root>/<id>` whose job is over (`live(id)` is
    /// false), as [`Executor::remove_work_dir`] does: a daemon that stopped
    /// between a job's end and its directory's removal left it, and its
    /// tmpfs would hold memory until a reboot. Run once the jobs of the last
    /// run are recovered. Nothing when `execution.keep_work_dirs`.
    pub fn remove_stale_work_dirs(&self, live: impl Fn(u64) -> bool) {
        let Ok(entries) = std::fs::read_dir(&self.work_root) else {
            return;
        };
        let stale: Vec<u64> = entries
            .flatten()
            .filter_map(|entry| {
                let name = entry.file_name();
                let id = name.to_str()?.parse::<u64>().ok()?;
                (name.to_str() == Some(id.to_string().as_str()) && !live(id)).then_some(id)
            })
            .collect();
        if !stale.is_empty() {
            self.remove_work_dirs(stale);
        }
    }

    /// Remove the working directories of `ids` in a thread of their own
    /// (see [`Executor::remove_work_dir`]).
    fn remove_work_dirs(&self, ids: Vec<u64>) {
        if self.config.keep_work_dirs {
            return;
        }
        let parent = Arc::clone(&self.work_fd);
        let root = self.work_root.clone();
        let spawned = std::thread::Builder::new()
            .name("remove-work-dir".into())
            .spawn(move || {
                for id in ids {
                    let name = id.to_string();
                    let removed = scratch::release(parent.as_raw_fd(), &name, &root.join(&name))
                        .and_then(|()| cleanup::remove_tree(parent.as_raw_fd(), &name));
                    if let Err(problem) = removed {
                        tracing::warn!(
                            job = id,
                            "cannot remove the job's working directory entirely: {problem}"
                        );
                    }
                }
            });
        if let Err(err) = spawned {
            tracing::warn!("cannot remove jobs' working directories: {err}");
        }
    }

    /// Where a job's stdout goes.
    pub fn stdout_path(&self, id: u64) -> PathBuf {
        self.job_dir(id).join(STDOUT_NAME)
    }

    /// Where a job's stderr goes.
    pub fn stderr_path(&self, id: u64) -> PathBuf {
        self.job_dir(id).join(STDERR_NAME)
    }

    /// The last `tail` bytes (at most [`MAX_OUTPUT_READ`]) of job `id`'s
    /// output file `name` (`stdout` or `stderr`), written by the job's user
    /// `uid`. Read as root but never through anything that user could plant:
    /// the job's directory is opened relative to the root-owned `jobs`
    /// directory and the file relative to it, neither following a symlink,
    /// without blocking (a FIFO), and only a regular file owned by `uid` is
    /// read (a hard link to someone else's file is refused). `Ok(None)`: no
    /// output yet.
    pub fn read_output(
        &self,
        id: u64,
        name: &str,
        uid: u32,
        tail: u64,
    ) -> Result<Option<(u64, u64, Vec<u8>)>, String> {
        let dir_name = id.to_string();
        let flags = OFlag::O_NOFOLLOW | OFlag::O_CLOEXEC | OFlag::O_RDONLY | OFlag::O_NONBLOCK;
        let dir = match openat(
            Some(self.jobs_fd.as_raw_fd()),
            dir_name.as_str(),
            flags | OFlag::O_DIRECTORY,
            Mode::empty(),
        ) {
            Ok(fd) => RawDir(fd),
            Err(nix::Error::ENOENT) => return Ok(None),
            Err(err) => return Err(format!("job {id}'s directory: {err}")),
        };
        let fd = match openat(Some(dir.0), name, flags, Mode::empty()) {
            Ok(fd) => fd,
            Err(nix::Error::ENOENT) => return Ok(None),
            Err(err) => return Err(format!("job {id}'s {name}: {err} (not a file the job wrote)")),
        };
        let file = RawDir(fd); // closes it
        let stat = fstat(file.0).map_err(|err| format!("job {id}'s {name}: {err}"))?;
        let kind = nix::sys::stat::SFlag::from_bits_truncate(stat.st_mode) & nix::sys::stat::SFlag::S_IFMT;
        if kind != nix::sys::stat::SFlag::S_IFREG || stat.st_uid != uid {
            return Err(format!(
                "job {id}'s {name} is not a regular file of the job's user: not read"
            ));
        }
        let size = stat.st_size.max(0) as u64;
        let want = tail.min(MAX_OUTPUT_READ);
        let offset = size.saturating_sub(want);
        nix::unistd::lseek(file.0, offset as i64, nix::unistd::Whence::SeekSet)
            .map_err(|err| format!("job {id}'s {name}: {err}"))?;
        let mut bytes = vec![0u8; want as usize];
        let mut filled = 0;
        while filled < bytes.len() {
            match nix::unistd::read(file.0, &mut bytes[filled..]) {
                Ok(0) => break,
                Ok(n) => filled += n,
                Err(nix::Error::EINTR) => continue,
                Err(err) => return Err(format!("job {id}'s {name}: {err}")),
            }
        }
        bytes.truncate(filled);
        Ok(Some((size, offset, bytes)))
    }

    /// Where the wrapper records how the job ended.
    pub fn status_path(&self, id: u64) -> PathBuf {
        self.jobs_dir.join(format!("{id}.status"))
    }

    /// The job's environment on its way to the wrapper (root's, 0600,
    /// removed by the wrapper once read).
    fn env_path(&self, id: u64) -> PathBuf {
        self.jobs_dir.join(format!("{id}.env"))
    }

    /// How job `id` ended according to its wrapper, if it wrote a status
    /// (a job that ended while the daemon was down or was adopted).
    pub fn ended_while_away(&self, id: u64) -> Option<RecordedEnd> {
        let text = std::fs::read_to_string(self.status_path(id)).ok()?;
        RecordedEnd::parse(&text)
    }

    /// Keep the end the daemon saw of job `id` in its status file, when
    /// the store cannot take it (a full disk) and the wrapper recorded none
    /// (SIGKILL ends both): the reserved bytes take it without new space, so
    /// a restart records this end instead of running the job again.
    pub fn keep_observed_end(&self, id: u64, end: &ObservedEnd) -> std::io::Result<()> {
        status::keep_observed(&self.status_path(id), end)
    }

    /// Send `signal` to every process of job `id` whose wrapper is `pid`.
    pub fn signal(&self, id: u64, pid: u32, signal: Signal) -> bool {
        self.containment.signal(id, Some(pid), signal)
    }

    /// SIGKILL every process of job `id` whose wrapper is `pid`.
    pub fn kill(&self, id: u64, pid: u32) {
        self.containment.kill(id, Some(pid));
    }

    /// Job `id`'s wrapper is gone: kill what is left of the job (a
    /// descendant that left its process group too) and remove its cgroup,
    /// now or at a later [`Executor::release_lingering`].
    pub fn release(&mut self, id: u64, pid: u32) {
        let _ = killpg(Pid::from_raw(pid as i32), Signal::SIGKILL);
        self.release_cgroup(id);
    }

    /// Like [`Executor::release`] for a job whose wrapper's pid is not
    /// known to be its any more (after a restart): its cgroup only.
    pub fn release_cgroup(&mut self, id: u64) {
        if !self.release_cgroups(id) {
            self.lingering.push(id);
        }
    }

    /// Remove job `id`'s cgroups (its containment's and its v1 limits'),
    /// killing what is left in them. True once all are gone.
    fn release_cgroups(&self, id: u64) -> bool {
        let contained = self.containment.release(id);
        self.limiter.release(id) && contained
    }

    /// The daemon stops: remove the cgroups of ended jobs, and its own
    /// subtree if no job is left in it (running jobs keep theirs, for the
    /// next start to adopt).
    pub fn shutdown(&mut self) {
        self.release_lingering();
        self.containment.remove_if_empty();
        self.limiter.remove_if_empty();
    }

    /// Retry removing the cgroups of ended jobs whose processes were dying.
    pub fn release_lingering(&mut self) {
        let lingering = std::mem::take(&mut self.lingering);
        self.lingering = lingering
            .into_iter()
            .filter(|id| !self.release_cgroups(*id))
            .collect();
    }

    /// True if job `id` still has processes in its cgroup (a wrapper
    /// adopted after a restart that is gone, with descendants left).
    pub fn occupied(&self, id: u64) -> bool {
        self.containment.occupied(id)
    }

    /// Check, as `run_as`, that `workdir` is a directory it can enter and
    /// `program` a file it can execute (searched in `path` when it has no
    /// slash). Err(message) if the helper itself failed.
    pub fn check_access(
        &self,
        run_as: Option<&RunAs>,
        workdir: Option<&str>,
        program: &str,
        path: &str,
    ) -> Result<Option<Denied>, String> {
        let Some(run_as) = run_as else {
            return Ok(check_paths(workdir, program, path).err());
        };
        let mut helper = Command::new(&self.wrapper)
            .arg(CHECK_HELPER_ARG)
            .arg(run_as.uid.to_string())
            .arg(run_as.gid.to_string())
            .arg(workdir.unwrap_or(""))
            .arg(path)
            .arg(program)
            .env_clear()
            .current_dir("/")
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .spawn()
            .map_err(|err| format!("cannot run the access check: {err}"))?;
        // Bounded: a path on a file system that never answers (a user's
        // FUSE mount) must not hold the engine's thread.
        let deadline = std::time::Instant::now() + ACCESS_CHECK_TIMEOUT;
        let status = loop {
            match helper.try_wait() {
                Ok(Some(status)) => break status,
                Ok(None) if std::time::Instant::now() < deadline => {
                    std::thread::sleep(std::time::Duration::from_millis(2))
                }
                Ok(None) => {
                    let _ = helper.kill();
                    let _ = helper.wait();
                    return Ok(Some(Denied::Timeout));
                }
                Err(err) => return Err(format!("the access check failed: {err}")),
            }
        };
        match status.code() {
            Some(0) => Ok(None),
            Some(10) => Ok(Some(Denied::Workdir)),
            Some(11) => Ok(Some(Denied::Program)),
            _ => Err(format!("the access check failed ({status})")),
        }
    }

    /// Make job `id`'s directory `parent/<id>` relative to the open
    /// `parent_fd` (the `jobs` directory or the work root), never following
    /// a symlink: new, or the one the daemon made for an earlier run of the
    /// job (a directory owned by its user, 0700); anything else by that
    /// name is refused.
    fn job_dir_for(
        &self,
        (parent, parent_fd): (&Path, &std::fs::File),
        id: u64,
        run_as: Option<&RunAs>,
    ) -> Result<PathBuf, String> {
        let name = id.to_string();
        let dir = parent.join(&name);
        let fd = parent_fd.as_raw_fd();
        let (uid, gid) = match run_as {
            Some(run_as) => (run_as.uid, run_as.gid),
            None => (nix::unistd::geteuid().as_raw(), nix::unistd::getegid().as_raw()),
        };
        let created = match mkdirat(Some(fd), name.as_str(), Mode::from_bits_truncate(0o700)) {
            Ok(()) => true,
            Err(nix::Error::EEXIST) => false,
            Err(err) => return Err(format!("{}: {err}", dir.display())),
        };
        let opened = openat(
            Some(fd),
            name.as_str(),
            OFlag::O_DIRECTORY | OFlag::O_NOFOLLOW | OFlag::O_CLOEXEC | OFlag::O_RDONLY,
            Mode::empty(),
        )
        .map_err(|err| {
            format!(
                "{}: {err} (not a directory the daemon made; remove it)",
                dir.display()
            )
        })?;
        let opened = RawDir(opened);
        if created {
            fchown(opened.0, Some(Uid::from_raw(uid)), Some(Gid::from_raw(gid)))
                .map_err(|err| format!("{}: chown: {err}", dir.display()))?;
            fchmod(opened.0, Mode::from_bits_truncate(0o700))
                .map_err(|err| format!("{}: chmod: {err}", dir.display()))?;
        } else {
            let stat = fstat(opened.0).map_err(|err| format!("{}: {err}", dir.display()))?;
            if stat.st_uid != uid || stat.st_mode & 0o7777 != 0o700 {
                return Err(format!(
                    "{} already exists and is not the job's own directory (owner uid {}, mode {:o}); \
                     remove it",
                    dir.display(),
                    stat.st_uid,
                    stat.st_mode & 0o7777
                ));
            }
        }
        Ok(dir)
    }

    /// Job `launch`'s own working directory `<work_root>/<id>`, made, and
    /// held to `execution.work_dir_quota_mb` (its own tmpfs) when the
    /// daemon is root and a quota is set.
    fn own_work_dir(&self, launch: &Launch<'_>) -> Result<PathBuf, String> {
        let dir = self.job_dir_for((&self.work_root, &self.work_fd), launch.id, launch.run_as)?;
        let Some(quota) = self.config.work_dir_quota_mb else {
            return Ok(dir);
        };
        if !nix::unistd::geteuid().is_root() {
            return Ok(dir);
        }
        let owner = match launch.run_as {
            Some(run_as) => (run_as.uid, run_as.gid),
            None => (0, 0),
        };
        let name = launch.id.to_string();
        scratch::hold_to_quota((self.work_fd.as_raw_fd(), &name), &dir, quota, owner)?;
        Ok(dir)
    }

    /// Make job `id`'s cgroups with its limits: the `cgroup.procs` files
    /// its wrapper joins (the containment's first).
    fn cgroups(&self, launch: &Launch<'_>) -> Result<Vec<PathBuf>, String> {
        let contained = self.containment.create(launch.id)?;
        let limited = self.limiter.apply(launch.id, launch.limits).inspect_err(|_| {
            self.release_cgroups(launch.id);
        })?;
        Ok(contained.into_iter().chain(limited).collect())
    }

    /// Start a job; the child (its wrapper) leads its own process group and
    /// puts itself in the job's cgroup before anything of the job runs.
    pub fn spawn(&self, launch: &Launch<'_>) -> Result<Child, ExecError> {
        let prepare = |message: String| ExecError::Prepare {
            id: launch.id,
            message,
        };
        let program = launch
            .argv
            .first()
            .ok_or_else(|| prepare("empty argv".to_string()))?;
        let job_dir = self
            .job_dir_for((&self.jobs_dir, &self.jobs_fd), launch.id, launch.run_as)
            .map_err(prepare)?;
        let workdir = match launch.workdir {
            Some(dir) => PathBuf::from(dir),
            None => self.own_work_dir(launch).map_err(prepare)?,
        };
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
            .and_then(status::reserve)
            .map_err(|err| prepare(format!("{}: {err}", status_path.display())))?;
        // The job's environment, for the job only: the wrapper runs as
        // root until it drops to the job's user, so it must never see the
        // submitter's variables (LD_PRELOAD, LD_AUDIT, GLIBC_TUNABLES… would
        // run the submitter's code as root). It reads them from a file only
        // root may read, then removes it.
        let env_path = self.env_path(launch.id);
        let mut env: Vec<(String, String)> = launch
            .env
            .iter()
            .map(|(name, value)| (name.clone(), value.clone()))
            .collect();
        if !launch.env.contains_key("PATH") {
            env.push(("PATH".to_string(), self.config.path.clone()));
        }
        env.push(("INTERSTICE_JOB_ID".to_string(), launch.id.to_string()));
        write_env_file(&env_path, &env).map_err(|err| prepare(format!("{}: {err}", env_path.display())))?;
        let cgroups = self.cgroups(launch).map_err(|err| {
            let _ = std::fs::remove_file(&env_path);
            prepare(err)
        })?;
        let mut command = Command::new(&self.wrapper);
        command.arg(EXEC_WRAPPER_ARG);
        for (name, value) in rlimit_args(&self.config.rlimits, self.config.max_output_bytes) {
            command.arg(format!("{name}={value}"));
        }
        for procs in &cgroups {
            command.arg(format!("cgroup={}", procs.display()));
        }
        if !launch.limits.cpus.is_empty() {
            command.arg(format!("cpus={}", crate::cgroup::cpu_list(&launch.limits.cpus)));
        }
        if let Some(run_as) = launch.run_as {
            command.arg(format!("uid={}", run_as.uid));
            command.arg(format!("gid={}", run_as.gid));
        }
        command.arg(format!("stdout={}", job_dir.join(STDOUT_NAME).display()));
        command.arg(format!("stderr={}", job_dir.join(STDERR_NAME).display()));
        command.arg(format!("workdir={}", workdir.display()));
        command.arg(format!("env={}", env_path.display()));
        if let Some(cap) = self.config.max_output_bytes {
            command.arg(format!("output_cap={cap}"));
        }
        command.arg("--").args(launch.argv);
        command.env_clear();
        command
            .current_dir("/")
            .stdin(status)
            .stdout(Stdio::null())
            .process_group(0);
        command.spawn().map_err(|source| {
            let _ = std::fs::remove_file(&env_path);
            self.release_cgroups(launch.id);
            ExecError::Spawn {
                id: launch.id,
                program: program.clone(),
                source,
            }
        })
    }
}

/// Write a job's environment as NUL-terminated `NAME=VALUE` entries to a
/// new file only root may read, never through a symlink.
fn write_env_file(path: &Path, env: &[(String, String)]) -> std::io::Result<()> {
    let _ = std::fs::remove_file(path);
    let mut file = OpenOptions::new()
        .write(true)
        .create_new(true)
        .mode(0o600)
        .custom_flags(nix::libc::O_NOFOLLOW)
        .open(path)?;
    let mut text = Vec::new();
    for (name, value) in env {
        text.extend_from_slice(name.as_bytes());
        text.push(b'=');
        text.extend_from_slice(value.as_bytes());
        text.push(0);
    }
    file.write_all(&text)
}

fn rlimit_args(limits: &RlimitConfig, max_output_bytes: Option<u64>) -> Vec<(&'static str, u64)> {
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
    push("FSIZE", max_output_bytes);
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

/// Whether `workdir` (absolute) is a directory the caller can enter and
/// `program` a file it can execute (relative to `workdir` when it has a
/// slash but is relative; searched in `path` when it has none), with the
/// caller's own credentials: the access-check helper calls it after
/// dropping to the job's user.
pub fn check_paths(workdir: Option<&str>, program: &str, path: &str) -> Result<(), Denied> {
    use nix::unistd::{access, AccessFlags};
    if let Some(dir) = workdir {
        let dir = Path::new(dir);
        if !dir.is_absolute() || !dir.is_dir() || access(dir, AccessFlags::X_OK).is_err() {
            return Err(Denied::Workdir);
        }
    }
    let executable = |candidate: &Path| candidate.is_file() && access(candidate, AccessFlags::X_OK).is_ok();
    let found = if program.contains('/') {
        let candidate = Path::new(program);
        match workdir {
            Some(dir) if candidate.is_relative() => executable(&Path::new(dir).join(candidate)),
            _ => executable(candidate),
        }
    } else {
        path.split(':')
            .filter(|dir| !dir.is_empty())
            .any(|dir| executable(&Path::new(dir).join(program)))
    };
    if found {
        Ok(())
    } else {
        Err(Denied::Program)
    }
}

/// The access-check helper: `intersticed __check-job UID GID WORKDIR PATH
/// PROGRAM` (see [`CHECK_HELPER_ARG`]). Returns the exit code.
pub fn check_helper(args: &[String]) -> i32 {
    let [uid, gid, workdir, path, program] = args else {
        eprintln!("intersticed {CHECK_HELPER_ARG}: expected UID GID WORKDIR PATH PROGRAM");
        return 2;
    };
    let (Ok(uid), Ok(gid)) = (uid.parse::<u32>(), gid.parse::<u32>()) else {
        eprintln!("intersticed {CHECK_HELPER_ARG}: bad uid or gid");
        return 2;
    };
    if let Err(err) = crate::identity::drop_to(uid, gid) {
        eprintln!("intersticed {CHECK_HELPER_ARG}: {err}");
        return 2;
    }
    let workdir = Some(workdir.as_str()).filter(|dir| !dir.is_empty());
    match check_paths(workdir, program, path) {
        Ok(()) => 0,
        Err(Denied::Workdir) => 10,
        Err(Denied::Program) => 11,
        // `check_paths` never times out itself: the daemon bounds the helper.
        Err(Denied::Timeout) => 12,
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
