//! The `execution:` section: how cloud jobs run on this node (user, limits,
//! containment, who may submit).

use serde::Deserialize;
use std::path::{Path, PathBuf};

/// `execution:` section.
#[derive(Clone, Debug, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct ExecutionConfig {
    /// Unprivileged user cloud jobs run as when the daemon runs as root.
    #[serde(default = "default_user")]
    pub user: String,
    /// Seconds between SIGTERM and SIGKILL on eviction, walltime or cancel.
    #[serde(default = "default_grace")]
    pub grace_seconds: f64,
    /// PATH given to jobs that set none.
    #[serde(default = "default_path")]
    pub path: String,
    /// Resource limits of cloud jobs.
    #[serde(default)]
    pub rlimits: RlimitConfig,
    /// A job submitted by root runs as root (off: it runs as `user`).
    #[serde(default)]
    pub allow_root: bool,
    /// Only these users (names or uids) may submit jobs (empty: everyone).
    /// Root, the administrator, may always submit.
    #[serde(default)]
    pub allow_users: Vec<String>,
    /// These users (names or uids) may not submit jobs.
    #[serde(default)]
    pub deny_users: Vec<String>,
    /// How a job's processes are contained so that every descendant can be
    /// killed: `auto`, `v2`, `v1-freezer` or `none` (the process group only).
    #[serde(default)]
    pub cgroup: CgroupMode,
    /// The most bytes a job's stdout and stderr hold together (over all
    /// its runs), and the largest file it may write anywhere (RLIMIT_FSIZE:
    /// beyond it the job gets SIGXFSZ / EFBIG); null: no cap.
    #[serde(default = "default_max_output_bytes")]
    pub max_output_bytes: Option<u64>,
    /// Where a job without a `workdir` runs: a directory of its own,
    /// `<work_root>/<id>` (its user's, 0700). Must be outside `state_dir`;
    /// null: `<state_dir>-work`, beside the state directory.
    #[serde(default)]
    pub work_root: Option<PathBuf>,
    /// Keep a finished job's `<work_root>/<id>` (false: removed once the job
    /// is over, what it wrote there with it: a job whose files matter names
    /// a `workdir`). A kept directory with a quota stays mounted, holding
    /// its memory, until unmounted by hand.
    #[serde(default)]
    pub keep_work_dirs: bool,
    /// The most a job may write in its own `<work_root>/<id>`, MiB: a root
    /// daemon mounts each one as a tmpfs of this size (its own file system,
    /// its pages charged to the job's memory). Null: jobs write to
    /// `work_root`'s file system, which must then not be `state_dir`'s.
    #[serde(default = "default_work_dir_quota_mb")]
    pub work_dir_quota_mb: Option<u64>,
    /// What each job's cgroup confines it to besides its CPUs.
    #[serde(default)]
    pub limits: LimitsConfig,
}

impl ExecutionConfig {
    /// The directory of the jobs' default working directories: the
    /// configured `work_root`, else `<state_dir>-work` (one owner of this
    /// default: the executor and the docs use it).
    pub fn work_root_for(&self, state_dir: &Path) -> PathBuf {
        self.work_root
            .clone()
            .unwrap_or_else(|| match state_dir.file_name() {
                Some(name) => {
                    let mut name = name.to_os_string();
                    name.push("-work");
                    state_dir.with_file_name(name)
                }
                None => PathBuf::from("/interstice-work"),
            })
    }

    /// What is wrong with `work_root` (relative, or inside `state_dir`,
    /// where a job's files would fill the disk the daemon records on).
    pub fn work_root_problem(&self, state_dir: &Path) -> Option<String> {
        let root = self.work_root.as_ref()?;
        if !root.is_absolute() {
            return Some(format!(
                "execution.work_root: {} is not an absolute path; give one outside state_dir",
                root.display()
            ));
        }
        let inside = |dir: &Path, root: &Path| root.starts_with(dir);
        let canonical = |path: &Path| path.canonicalize().unwrap_or_else(|_| path.to_path_buf());
        (inside(state_dir, root) || inside(&canonical(state_dir), &canonical(root))).then(|| {
            format!(
                "execution.work_root: {} is inside state_dir {}: jobs' files would fill the disk the \
                 daemon records on; choose a directory outside it (or leave it unset: {})",
                root.display(),
                state_dir.display(),
                ExecutionConfig::default().work_root_for(state_dir).display()
            )
        })
    }
}

/// `execution.limits:` each job's confinement in its cgroup (as Slurm's
/// `task/cgroup`). A job is always pinned to the CPUs of its processors.
#[derive(Clone, Debug, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct LimitsConfig {
    /// Memory per processor of a job that asks for none, MiB. Null (the
    /// default): the node's share, `MemTotal` over the CPUs the daemon may
    /// use (Slurm's usual `DefMemPerCPU`).
    #[serde(default)]
    pub memory_mb_per_proc: Option<u64>,
    /// The most memory a job may ask for, MiB (more is refused at
    /// submission). Null (the default): the node's `MemTotal`.
    #[serde(default)]
    pub max_memory_mb: Option<u64>,
    /// Processes and threads per job (`pids.max`): a fork bomb stops there.
    /// Null: not limited.
    #[serde(default = "default_pids")]
    pub pids: Option<u64>,
    /// Cap each job's CPU time at its processors (`cpu.max`,
    /// `cpu.cfs_quota_us`), on top of the pinning. Off by default.
    #[serde(default)]
    pub cpu_quota: bool,
}

/// The default `execution.limits.pids`.
pub const DEFAULT_PIDS: u64 = 512;

fn default_pids() -> Option<u64> {
    Some(DEFAULT_PIDS)
}

impl Default for LimitsConfig {
    fn default() -> Self {
        LimitsConfig {
            memory_mb_per_proc: None,
            max_memory_mb: None,
            pids: default_pids(),
            cpu_quota: false,
        }
    }
}

/// `execution.cgroup`: where each job's processes are contained.
#[derive(Clone, Copy, Debug, Default, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "kebab-case")]
pub enum CgroupMode {
    /// cgroup v2 if mounted (as the root or the hybrid `unified` mount),
    /// else the v1 freezer, else the process group (with a warning).
    #[default]
    Auto,
    /// cgroup v2 (an error at start if it is not usable).
    V2,
    /// The cgroup v1 freezer hierarchy (an error at start if it is not usable).
    V1Freezer,
    /// No cgroup: the job's process group only (`setsid` escapes it).
    None,
}

/// The default `execution.work_dir_quota_mb`: 1 GiB per job.
pub const DEFAULT_WORK_DIR_QUOTA_MB: u64 = 1024;

/// The largest `execution.work_dir_quota_mb`: 1 TiB.
pub const MAX_WORK_DIR_QUOTA_MB: u64 = 1 << 20;

fn default_work_dir_quota_mb() -> Option<u64> {
    Some(DEFAULT_WORK_DIR_QUOTA_MB)
}

/// 64 MiB.
pub const DEFAULT_MAX_OUTPUT_BYTES: u64 = 64 << 20;

fn default_max_output_bytes() -> Option<u64> {
    Some(DEFAULT_MAX_OUTPUT_BYTES)
}

fn default_user() -> String {
    "nobody".to_string()
}
fn default_grace() -> f64 {
    5.0
}
fn default_path() -> String {
    "/usr/local/bin:/usr/bin:/bin".to_string()
}

impl Default for ExecutionConfig {
    fn default() -> Self {
        ExecutionConfig {
            user: default_user(),
            grace_seconds: default_grace(),
            path: default_path(),
            rlimits: RlimitConfig::default(),
            allow_root: false,
            allow_users: Vec::new(),
            deny_users: Vec::new(),
            cgroup: CgroupMode::Auto,
            max_output_bytes: default_max_output_bytes(),
            work_root: None,
            keep_work_dirs: false,
            work_dir_quota_mb: default_work_dir_quota_mb(),
            limits: LimitsConfig::default(),
        }
    }
}

/// `execution.rlimits:` (unset = inherited).
#[derive(Clone, Debug, Default, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct RlimitConfig {
    /// RLIMIT_NOFILE.
    #[serde(default)]
    pub open_files: Option<u64>,
    /// RLIMIT_AS in bytes.
    #[serde(default)]
    pub address_space_bytes: Option<u64>,
    /// RLIMIT_CORE in bytes.
    #[serde(default)]
    pub core_bytes: Option<u64>,
    /// RLIMIT_NPROC.
    #[serde(default)]
    pub processes: Option<u64>,
}
