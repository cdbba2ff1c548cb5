//! `squeue`'s answer as the backend reads it: the format it asks for
//! ([`SQUEUE_FORMAT`]), a job's state and fields ([`SqueueJob`]) and the
//! parser, with the parse errors and epoch fields the `scontrol` parsers of
//! `cluster` share.

use interstice_api::slurm::{parse_duration, parse_marker, Marker};
use interstice_core::EndReason;

/// The `squeue -o` format the backend parses (fields separated by `|`, comment last).
pub const SQUEUE_FORMAT: &str = "%i|%P|%T|%C|%l|%V|%S|%e|%r|%N|%Y|%u|%k";

/// The state of a Slurm job, as `squeue %T` spells it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum JobStateName {
    /// PENDING.
    Pending,
    /// RUNNING (also CONFIGURING, COMPLETING, SUSPENDED, STOPPED, SIGNALING).
    Running,
    /// COMPLETED.
    Completed,
    /// PREEMPTED.
    Preempted,
    /// DEADLINE: Slurm cancelled it because its deadline could not be met.
    Deadline,
    /// TIMEOUT.
    Timeout,
    /// CANCELLED.
    Cancelled,
    /// FAILED, NODE_FAIL, OUT_OF_MEMORY, BOOT_FAIL and anything else terminal.
    Failed,
}

impl JobStateName {
    /// How the job's run ended, in the engine's terms; None while it has not.
    /// A job Slurm cancelled at its deadline was killed.
    pub fn end_reason(self) -> Option<EndReason> {
        match self {
            JobStateName::Pending | JobStateName::Running => None,
            JobStateName::Completed | JobStateName::Failed => Some(EndReason::Completed),
            JobStateName::Timeout => Some(EndReason::WalltimeReached),
            JobStateName::Preempted => Some(EndReason::Evicted),
            JobStateName::Cancelled | JobStateName::Deadline => Some(EndReason::Killed),
        }
    }

    fn parse(text: &str) -> JobStateName {
        // "CANCELLED by 0" is how some versions print a cancelled job.
        match text.split_whitespace().next().unwrap_or_default() {
            "PENDING" | "REQUEUED" | "REQUEUE_HOLD" | "REQUEUE_FED" | "RESV_DEL_HOLD" => {
                JobStateName::Pending
            }
            "RUNNING" | "CONFIGURING" | "COMPLETING" | "SUSPENDED" | "STOPPED" | "SIGNALING"
            | "STAGE_OUT" | "RESIZING" => JobStateName::Running,
            "COMPLETED" => JobStateName::Completed,
            "PREEMPTED" => JobStateName::Preempted,
            "DEADLINE" => JobStateName::Deadline,
            "TIMEOUT" => JobStateName::Timeout,
            "CANCELLED" => JobStateName::Cancelled,
            _ => JobStateName::Failed,
        }
    }

    /// Whether the job is done.
    pub fn is_terminal(self) -> bool {
        self.end_reason().is_some()
    }
}

/// One line of `squeue -o SQUEUE_FORMAT`.
#[derive(Clone, Debug, PartialEq)]
pub struct SqueueJob {
    /// Job id (`123`, `45_7` for array tasks).
    pub id: String,
    /// Partition.
    pub partition: String,
    /// State.
    pub state: JobStateName,
    /// CPUs.
    pub cpus: u32,
    /// Time limit in seconds (None: UNLIMITED/INVALID).
    pub time_limit_seconds: Option<u64>,
    /// Submit time, epoch seconds.
    pub submit: Option<i64>,
    /// Start (running/finished) or planned start (pending), epoch seconds.
    pub start: Option<i64>,
    /// End (finished), expected end (running) or planned end (pending), epoch seconds.
    pub end: Option<i64>,
    /// Why a pending job waits (`Resources`, `Priority`, `JobHeldUser`, …).
    pub reason: String,
    /// The nodes a running job holds (a Slurm host list, `%N`).
    pub nodes: String,
    /// The nodes Slurm's backfill plans a pending job on (`%Y`), if it planned it.
    pub sched_nodes: String,
    /// The job's user.
    pub user: String,
    /// The comment as Slurm prints it (`(null)`: none).
    pub comment: String,
    /// The interstice marker in the comment, if any (written by `job_submit/interstice`).
    pub marker: Option<Marker>,
    /// Its memory over all its nodes, in megabytes, when Slurm counts
    /// memory (its TRES `mem=`, set by [`super::SlurmOutput::parse`];
    /// `None` otherwise).
    pub memory_mb: Option<u64>,
}

impl SqueueJob {
    /// The partitions of its `%P`: one, or several for a pending job
    /// submitted to several.
    pub fn partitions(&self) -> impl Iterator<Item = &str> {
        interstice_api::slurm::partition_list(&self.partition)
    }

    /// A pending job held by its user or an administrator.
    pub fn is_held(&self) -> bool {
        self.state == JobStateName::Pending && self.reason.starts_with("JobHeld")
    }
}

/// A malformed line of command output.
#[derive(Debug, thiserror::Error)]
#[error("{command} line {line}: {message}: {text:?}")]
pub struct ParseError {
    /// The command (`squeue`, `scontrol show node`).
    pub command: &'static str,
    /// 1-based line.
    pub line: usize,
    /// What is wrong.
    pub message: String,
    /// The line.
    pub text: String,
}

/// An epoch-seconds field (`SLURM_TIME_FORMAT=%s`); None for `N/A`, `Unknown`, `0`.
pub(crate) fn parse_epoch(text: &str) -> Option<i64> {
    text.trim().parse::<i64>().ok().filter(|seconds| *seconds > 0)
}

/// Parses `squeue -h -o SQUEUE_FORMAT` output (with `SLURM_TIME_FORMAT=%s`).
pub fn parse_squeue(output: &str) -> Result<Vec<SqueueJob>, ParseError> {
    let mut jobs = Vec::new();
    for (index, line) in output.lines().enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        let error = |message: &str| ParseError {
            command: "squeue",
            line: index + 1,
            message: message.to_string(),
            text: line.to_string(),
        };
        let fields: Vec<&str> = line.splitn(13, '|').collect();
        let [id, partition, state, cpus, limit, submit, start, end, reason, nodes, sched_nodes, user, comment] =
            fields.as_slice()
        else {
            return Err(error("expected 13 fields separated by |"));
        };
        let cpus = cpus
            .trim()
            .parse::<u32>()
            .map_err(|_| error("CPUs is not a number"))?;
        let marker = parse_marker(comment);
        let mut state = JobStateName::parse(state.trim());
        if state == JobStateName::Cancelled && marker.as_ref().is_some_and(|m| m.evicted_for.is_some()) {
            // The daemon's own eviction (`backend.eviction`, [`evict`]): it
            // cancelled the job for HPC work, as Slurm's preemption would.
            state = JobStateName::Preempted;
        }
        jobs.push(SqueueJob {
            id: id.trim().to_string(),
            partition: partition.trim().to_string(),
            state,
            cpus,
            time_limit_seconds: parse_duration(limit.trim()),
            submit: parse_epoch(submit),
            start: parse_epoch(start),
            end: parse_epoch(end),
            reason: reason.trim().to_string(),
            nodes: nodes.trim().to_string(),
            sched_nodes: sched_nodes.trim().to_string(),
            user: user.trim().to_string(),
            comment: comment.to_string(),
            marker,
            memory_mb: None,
        });
    }
    Ok(jobs)
}
