//! The job model shared by every crate: HPC and cloud jobs as the engine sees them.

use crate::time::Time;
use std::fmt;

/// A job's identity inside the engine. Shells map their own ids (SWF job
/// numbers, Batsim `w0!7`, daemon ids) to it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct JobId(pub u64);

impl fmt::Display for JobId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.0)
    }
}

/// Which platform a job comes from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum JobKind {
    /// A batch job of the HPC platform: never evicted, may use any processor.
    Hpc,
    /// An evictable cloud job with a response-time SLO: only runs in the convergence area.
    Cloud,
}

impl JobKind {
    /// `"hpc"` or `"cloud"`, as written in workloads and outputs.
    pub fn as_str(self) -> &'static str {
        match self {
            JobKind::Hpc => "hpc",
            JobKind::Cloud => "cloud",
        }
    }
}

impl fmt::Display for JobKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl std::str::FromStr for JobKind {
    type Err = UnknownName;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s {
            "hpc" => Ok(JobKind::Hpc),
            "cloud" => Ok(JobKind::Cloud),
            other => Err(UnknownName {
                what: "job kind",
                found: other.to_string(),
                expected: "\"hpc\" or \"cloud\"",
            }),
        }
    }
}

/// A name outside a closed set: a policy, an admission mode, a job kind.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct UnknownName {
    /// What the name was for (`policy`, `admission mode`, `job kind`).
    pub what: &'static str,
    /// The name given.
    pub found: String,
    /// The names that exist, as the message lists them.
    pub expected: &'static str,
}

impl fmt::Display for UnknownName {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "unknown {} {:?}: expected {}",
            self.what, self.found, self.expected
        )
    }
}

impl std::error::Error for UnknownName {}

/// A closed set of named options (`Policy`, `Admission`, …): `ALL`, `name()`,
/// `FromStr` with an [`UnknownName`] error, and `Display` by name, from one
/// table of `Variant => "name"`.
macro_rules! named_options {
    ($ty:ident, $what:literal, $expected:literal, { $($variant:ident => $name:literal),+ $(,)? }) => {
        impl $ty {
            /// Every option, in documentation order.
            pub const ALL: [$ty; [$($name),+].len()] = [$($ty::$variant),+];

            /// The option's name on command lines and in configs.
            pub fn name(self) -> &'static str {
                match self {
                    $($ty::$variant => $name),+
                }
            }
        }

        impl std::str::FromStr for $ty {
            type Err = $crate::job::UnknownName;
            fn from_str(s: &str) -> Result<Self, Self::Err> {
                $ty::ALL.into_iter().find(|option| option.name() == s).ok_or_else(|| {
                    $crate::job::UnknownName {
                        what: $what,
                        found: s.to_string(),
                        expected: $expected,
                    }
                })
            }
        }

        impl std::fmt::Display for $ty {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str(self.name())
            }
        }
    };
}
pub(crate) use named_options;

/// The thesis's reconciliation of a cloud job's requested time for the HPC
/// platform (§4.4.1): `wt = wt^c × α`, `α` the processing-time adjustment
/// factor (1 leaves it unchanged). Every shell that reads or injects cloud
/// jobs applies it through this function.
pub fn reconcile_walltime(walltime: Time, alpha: f64) -> Time {
    walltime.mul_f64(alpha)
}

/// Is `alpha` a usable reconciliation factor (finite and positive)?
pub fn valid_alpha(alpha: f64) -> bool {
    alpha.is_finite() && alpha > 0.0
}

/// A rigid job: `procs` processors, all started together, for at most `walltime`.
///
/// This is `J_j = (wt_j, h_j, SLO_j)` of the model plus its arrival `a_j`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Job {
    /// Identity.
    pub id: JobId,
    /// Arrival time `a_j`.
    pub submit: Time,
    /// Requested processing time `wt_j`: the engine plans the job's
    /// processors as busy until `start + walltime`.
    pub walltime: Time,
    /// Whether the platform kills the job when its walltime is reached
    /// (Batsim, Slurm's time limit). `false` when the job has no limit and
    /// `walltime` is only the planning estimate (an SWF job without a
    /// requested time, a Batsim job with walltime `-1`): it then runs its
    /// whole run time, and its processors stay busy until its end is reported.
    pub walltime_enforced: bool,
    /// Actual run time when known (traces, simulation). The engine never uses
    /// it for decisions; simulators use it to decide when a job ends.
    pub runtime: Option<Time>,
    /// Processors `h_j` (≥ 1).
    pub procs: u32,
    /// HPC or cloud.
    pub kind: JobKind,
    /// Agreed maximum response time `SLO_j` (cloud jobs); `None` = no SLO.
    pub slo: Option<Time>,
}

impl Job {
    /// The latest completion that meets the SLO (`a_j + SLO_j`), if there is an SLO.
    pub fn deadline(&self) -> Option<Time> {
        self.slo.map(|slo| self.submit + slo)
    }
}
