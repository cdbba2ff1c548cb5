//! An admitted cloud job as the actor keeps it ([`CloudJob`]): where it is
//! in its run ([`Phase`]), the stop in progress ([`Kill`]) and the engine's
//! view of it ([`engine_job`]), and its final record ([`PendingEnd`]). The
//! supervisor acts on it.

use crate::identity::RunAs;
use interstice_api::wire::PredictorVerdicts;
use interstice_core::{EndReason, Job, JobId, JobKind, ProcSet, Time};
use std::collections::BTreeMap;
use std::process::Child;

/// An admitted cloud job the daemon has not finished with.
#[derive(Debug)]
pub(super) struct CloudJob {
    /// Whose job it is (`None`: a row from before owners were required).
    pub(super) owner_uid: Option<u32>,
    /// Who its processes run as (None: the daemon's own user).
    pub(super) run_as: Option<RunAs>,
    pub(super) procs: u32,
    pub(super) walltime: Time,
    /// First arrival.
    pub(super) submitted: Time,
    /// First arrival + SLO (`Job::deadline`), kept across resubmissions.
    pub(super) deadline: Time,
    pub(super) argv: Vec<String>,
    pub(super) env: BTreeMap<String, String>,
    pub(super) workdir: Option<String>,
    /// The admission prediction said it would miss its SLO.
    pub(super) predicts_violation: bool,
    /// Every predictor's verdict at admission (None: recovered from a row
    /// from before they were recorded).
    pub(super) verdicts: Option<PredictorVerdicts>,
    /// Processors of its current (or held) start.
    pub(super) engine_procs: Option<ProcSet>,
    pub(super) phase: Phase,
    /// Its SLO verdict once [`Actor::outcome`](super::Actor::outcome) counted it, written with its
    /// end by [`Actor::finish`](super::Actor::finish).
    pub(super) slo_violated: Option<bool>,
    /// Memory asked for, MiB (None: the node's default).
    pub(super) memory_mb: Option<u64>,
}

/// The engine's view of cloud job `id`, which the daemon kills at its walltime.
pub(super) fn engine_job(id: u64, procs: u32, walltime: Time, submit: Time, slo: Option<Time>) -> Job {
    Job {
        id: JobId(id),
        submit,
        walltime,
        walltime_enforced: true,
        runtime: None,
        procs,
        kind: JobKind::Cloud,
        slo,
    }
}

/// Where a cloud job is in its run.
#[derive(Debug)]
pub(super) enum Phase {
    /// Waiting for the engine to start it.
    Queued,
    /// The engine started it but the node is too busy: the process waits.
    Held,
    /// Evicted, and handed to the data center's broker, whose answer is
    /// awaited (`member`); the engine may meanwhile start it (its processors
    /// are then in `engine_procs`), but it does not run here.
    HandingOver {
        /// Why it was evicted.
        why: String,
    },
    /// Its process runs (or is being stopped).
    Running {
        pid: u32,
        /// `None` for a process adopted after a restart (not our child).
        child: Option<Child>,
        /// Start time in clock ticks, to tell the process from a pid reuse.
        start_ticks: Option<u64>,
        started_at: Time,
        kill: Option<Kill>,
    },
}

/// Why a running job is being stopped.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum KillReason {
    Evict,
    Walltime,
    Cancel,
}

impl KillReason {
    /// How the engine is told the run ended.
    pub(super) fn end_reason(self) -> EndReason {
        match self {
            KillReason::Evict => EndReason::Evicted,
            KillReason::Walltime => EndReason::WalltimeReached,
            KillReason::Cancel => EndReason::Killed,
        }
    }
}

/// A stop in progress: SIGTERM was sent, SIGKILL follows at `sigkill_at`.
#[derive(Debug)]
pub(super) struct Kill {
    pub(super) reason: KillReason,
    pub(super) sigkill_at: Time,
    pub(super) sigkill_sent: bool,
}

/// A job's final record, as `Store::job_ended` takes it (kept by
/// `pending_ends` while the state cannot be written).
#[derive(Clone, Debug, PartialEq)]
pub(super) struct PendingEnd {
    pub(super) id: u64,
    pub(super) time: f64,
    pub(super) state: String,
    pub(super) exit_code: Option<i32>,
    pub(super) evicted: bool,
    pub(super) why: String,
    pub(super) slo_violated: Option<bool>,
}
