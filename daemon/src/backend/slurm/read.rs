//! One read of Slurm: the bounded `squeue`/`scontrol` calls
//! ([`run_command`]), what they printed ([`SlurmOutput`]), its parse
//! ([`SlurmState`]) and the plan over it in an engine's processors
//! ([`EngineShape`]); why a read failed ([`PlanReadError`]).

use super::cluster::{parse_nodes, parse_reservations, Node, Reservation};
use super::memory::{parse_job_memory, tracks_memory, MEMORY_FORMAT};
use super::mirror::{self, plan, Topology};
use super::squeue::{parse_squeue, ParseError, SqueueJob, SQUEUE_FORMAT};
use crate::config::SlurmConfig;
use interstice_api::command::{run_bounded, CommandError};
use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::time::Duration;

/// Longest a squeue/scontrol call may take before it is killed.
pub(super) const COMMAND_TIMEOUT: Duration = Duration::from_secs(10);

/// The most a Slurm command may print on stdout (or stderr): `squeue -t all`
/// lists every job Slurm remembers, about 200 bytes each.
pub(super) const COMMAND_OUTPUT_LIMIT: usize = 256 << 20;

/// The engine's processors the plan is mapped onto: `engine.procs`, and
/// `engine.conv_procs` for the cloud partition.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct EngineShape {
    /// Processors of the engine.
    pub procs: u32,
    /// Processors of its convergence area (`0..conv_procs`).
    pub conv_procs: u32,
}

/// Why one read of the plan failed (logged and counted; the next read retries).
#[derive(Debug, thiserror::Error)]
pub(super) enum PlanReadError {
    /// The program could not be started.
    #[error("cannot run {program}: {source}")]
    Spawn { program: String, source: std::io::Error },
    /// It ran longer than [`COMMAND_TIMEOUT`] and was killed.
    #[error("{program} {args} took longer than {COMMAND_TIMEOUT:?}")]
    Timeout { program: String, args: String },
    /// It printed more than [`COMMAND_OUTPUT_LIMIT`] and was killed.
    #[error("{program} {args} printed more than {limit} bytes")]
    TooLarge {
        program: String,
        args: String,
        limit: usize,
    },
    /// Its status or output could not be collected.
    #[error("{action} {program}: {source}")]
    Collect {
        action: &'static str,
        program: String,
        source: std::io::Error,
    },
    /// It exited unsuccessfully.
    #[error("{program} {args} failed ({status}): {stderr}")]
    Failed {
        program: String,
        args: String,
        status: std::process::ExitStatus,
        stderr: String,
    },
    /// Its output did not parse.
    #[error(transparent)]
    Parse(#[from] ParseError),
    /// The cluster's nodes do not fit the engine.
    #[error("{0}")]
    Topology(#[from] mirror::TopologyError),
}

/// Runs `program args…` with `SLURM_TIME_FORMAT=%s`, killed after
/// [`COMMAND_TIMEOUT`] or past [`COMMAND_OUTPUT_LIMIT`] bytes of output.
pub(super) fn run_command(
    program: &PathBuf,
    args: &[&str],
    slurm_conf: Option<&PathBuf>,
) -> Result<String, PlanReadError> {
    let mut command = Command::new(program);
    command
        .args(args)
        .env("SLURM_TIME_FORMAT", "%s")
        .stdin(Stdio::null());
    if let Some(conf) = slurm_conf {
        command.env("SLURM_CONF", conf);
    }
    let name = program.display().to_string();
    let output =
        run_bounded(&mut command, COMMAND_TIMEOUT, COMMAND_OUTPUT_LIMIT).map_err(|err| match err {
            CommandError::Spawn(source) => PlanReadError::Spawn {
                program: name.clone(),
                source,
            },
            CommandError::Timeout(_) => PlanReadError::Timeout {
                program: name.clone(),
                args: args.join(" "),
            },
            CommandError::TooLarge(limit) => PlanReadError::TooLarge {
                program: name.clone(),
                args: args.join(" "),
                limit,
            },
            CommandError::Collect(source) => PlanReadError::Collect {
                action: "reading",
                program: name.clone(),
                source,
            },
        })?;
    if !output.status.success() {
        return Err(PlanReadError::Failed {
            program: name,
            args: args.join(" "),
            status: output.status,
            stderr: String::from_utf8_lossy(&output.stderr).trim().to_string(),
        });
    }
    Ok(String::from_utf8_lossy(&output.stdout).into_owned())
}

/// What one read of Slurm printed: `squeue -o SQUEUE_FORMAT` (all states),
/// `scontrol -o show node` and `scontrol -o show reservation`, with
/// `SLURM_TIME_FORMAT=%s`; and when Slurm counts memory, each job's memory
/// (`squeue -O` [`MEMORY_FORMAT`]).
#[derive(Clone, Debug, Default)]
pub struct SlurmOutput {
    /// The queue.
    pub squeue: String,
    /// The nodes.
    pub nodes: String,
    /// The reservations.
    pub reservations: String,
    /// Each job's memory; `None` when Slurm does not count memory (then
    /// neither does the backend: [`SlurmOutput::parse`]).
    pub memory: Option<String>,
}

/// One read of Slurm, parsed.
#[derive(Clone, Debug)]
pub struct SlurmState {
    /// Every job Slurm lists.
    pub jobs: Vec<SqueueJob>,
    /// Every node.
    pub nodes: Vec<Node>,
    /// Every reservation.
    pub reservations: Vec<Reservation>,
}

/// Whether Slurm counts memory (`scontrol show config`'s
/// `SelectTypeParameters`, [`tracks_memory`]; a config naming none: no).
/// Slurm applies a change of it only when restarted: the backend asks once.
pub(super) fn read_tracks_memory(config: &SlurmConfig) -> Result<bool, PlanReadError> {
    let text = run_command(&config.scontrol, &["show", "config"], config.slurm_conf.as_ref())?;
    Ok(tracks_memory(&text).unwrap_or(false))
}

impl SlurmOutput {
    /// One read of Slurm, and whether Slurm counts memory: `known` when an
    /// earlier read learned it, else asked now ([`read_tracks_memory`]).
    pub(super) fn read_learning(
        config: &SlurmConfig,
        known: Option<bool>,
    ) -> Result<(bool, SlurmOutput), PlanReadError> {
        let memory = match known {
            Some(memory) => memory,
            None => read_tracks_memory(config)?,
        };
        Ok((memory, SlurmOutput::read(config, memory)?))
    }

    /// Run the three commands, and the fourth when `memory` (Slurm counts
    /// memory), each bounded by [`COMMAND_TIMEOUT`].
    pub(super) fn read(config: &SlurmConfig, memory: bool) -> Result<SlurmOutput, PlanReadError> {
        let conf = config.slurm_conf.as_ref();
        Ok(SlurmOutput {
            squeue: run_command(
                &config.squeue,
                &["-h", "-a", "-t", "all", "-o", SQUEUE_FORMAT],
                conf,
            )?,
            nodes: run_command(&config.scontrol, &["-o", "show", "node"], conf)?,
            reservations: run_command(&config.scontrol, &["-o", "show", "reservation"], conf)?,
            memory: match memory {
                true => Some(run_command(
                    &config.squeue,
                    &["-h", "-a", "-t", "all", "-O", MEMORY_FORMAT],
                    conf,
                )?),
                false => None,
            },
        })
    }

    /// Parse what the commands printed. This is where the backend decides
    /// whether memory counts: with no memory output (Slurm does not count
    /// it) no node carries memory and no job any, so every fit is by CPUs
    /// alone, as Slurm's; with it each job carries its TRES memory (a job
    /// whose TRES names none: none).
    pub fn parse(&self) -> Result<SlurmState, ParseError> {
        let mut jobs = parse_squeue(&self.squeue)?;
        let mut nodes = parse_nodes(&self.nodes)?;
        match &self.memory {
            Some(text) => {
                let memory = parse_job_memory(text)?;
                for job in &mut jobs {
                    job.memory_mb = memory.get(&job.id).copied();
                }
            }
            None => nodes.iter_mut().for_each(|node| node.memory = None),
        }
        Ok(SlurmState {
            jobs,
            nodes,
            reservations: parse_reservations(&self.reservations)?,
        })
    }
}

impl SlurmState {
    /// Slurm's plan at `now_seconds` in the processors of an engine of
    /// `shape`, the cloud partition its area ([`mirror`]).
    pub fn plan(
        &self,
        partition_cloud: &str,
        partition_hpc: &str,
        shape: EngineShape,
        now_seconds: i64,
    ) -> Result<mirror::PlanRead, mirror::TopologyError> {
        let topology = Topology::new(
            &self.nodes,
            partition_cloud,
            partition_hpc,
            shape.procs,
            shape.conv_procs,
        )?;
        Ok(plan(&topology, &self.jobs, &self.reservations, now_seconds))
    }
}
