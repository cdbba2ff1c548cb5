//! Slurm's plan in the engine's processors: which engine processor is which
//! node's CPU ([`Topology`]), and every job where and when Slurm runs or
//! plans it ([`plan`]), as a [`MirroredPlan`] for `Engine::mirror`.
//!
//! - Processors are `(node, cpu)`: the nodes of the cloud partition first,
//!   in the order `scontrol` lists them, on processors `0..` (the convergence
//!   area is the cloud partition), then the other nodes of the HPC partition
//!   from `engine.conv_procs` on. Processors no node maps to are blocked.
//! - A running job is busy on its nodes (`squeue %N`) until its expected end;
//!   a pending job Slurm's backfill planned (`%S` with scheduled nodes `%Y`)
//!   for its time limit from when its CPUs on those nodes are free, at the
//!   latest from its planned start ([`packed`]): Slurm's backfill plans whole
//!   nodes (two 2-CPU jobs behind a job filling an 8-CPU node are planned one
//!   after the other), but its scheduler starts every job whose CPUs are free,
//!   in priority order (both start when the node frees up). `squeue` gives a job's CPU
//!   count, not how they spread over its nodes: they are shared out evenly,
//!   and within a node each job takes the lowest CPUs free when it starts
//!   (Slurm's own core choice is not needed to know how many are free when).
//! - Pending jobs without a plan (beyond `bf_window`, or not considered yet)
//!   are queued by the engine behind the plan (`Engine::mirror`), in
//!   submission order, each on its partitions' nodes, no earlier than the
//!   last start Slurm planned nor the start Slurm estimates for it (`%S`
//!   without nodes). Held jobs, jobs of partitions this daemon does not
//!   plan, and jobs waiting for what never comes on its own are left out.
//! - Nodes down, drained, draining, failing or not responding take no new
//!   work: each of their CPUs is blocked from the end of the job running on
//!   it. Advance reservations (maintenance windows) block their nodes over
//!   their window, whole nodes (a reservation of some cores of a node blocks
//!   the node).
//! - A cloud-partition job whose marker names an admission hold (`hold=ID`)
//!   settles the hold once Slurm runs or plans it (the actor checks the
//!   hold was taken for a job of its size); until then the hold stands for it.

use super::cluster::{Node, Reservation};
use super::memory::share;
use super::squeue::{JobStateName, SqueueJob};
use interstice_api::slurm::{expand_hostlist, partition_list, planned_walltime};
use interstice_core::{MirroredPlan, Occupation, ProcSet, Time, UnplannedJob};
use std::collections::HashMap;

/// Where each node's CPUs are among the engine's processors.
#[derive(Clone, Debug, PartialEq)]
pub struct Topology {
    /// The cloud partitions (their nodes are the area; several when each
    /// service class has its own partition) and the HPC partition.
    cloud: Vec<String>,
    hpc: String,
    nodes: HashMap<String, NodeCpus>,
    /// Node names in processor order.
    order: Vec<String>,
    /// Engine processors no node maps to.
    unmapped: ProcSet,
}

#[derive(Clone, Debug, PartialEq)]
struct NodeCpus {
    /// The engine processor of the node's CPU 0.
    first: u32,
    cpus: u32,
    available: bool,
    partitions: Vec<String>,
    /// `RealMemory` (MB) when Slurm counts memory.
    memory_mb: Option<u64>,
}

/// The cluster does not fit the engine's processors.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error(
    "the cluster does not fit the engine: the cloud partition {cloud:?} has {cloud_cpus} CPUs and the other nodes \
     of {hpc:?} {hpc_cpus}, the engine has conv_procs {conv_procs} and procs {procs}: set engine.conv_procs to \
     {cloud_cpus} and engine.procs to {needed} or more (processors no node maps to stay unused)"
)]
pub struct TopologyError {
    cloud: String,
    hpc: String,
    cloud_cpus: u32,
    hpc_cpus: u32,
    conv_procs: u32,
    procs: u32,
    needed: u32,
}

impl Topology {
    /// The processors of the nodes of the cloud partitions (`cloud`, a
    /// comma-separated list: the area, first) and of `hpc`, in an engine of
    /// `procs` processors whose area is `0..conv_procs`.
    pub fn new(
        nodes: &[Node],
        cloud: &str,
        hpc: &str,
        procs: u32,
        conv_procs: u32,
    ) -> Result<Topology, TopologyError> {
        let clouds: Vec<String> = partition_list(cloud).map(String::from).collect();
        let in_cloud = |node: &Node| clouds.iter().any(|cloud| node.in_partition(cloud));
        let cloud_nodes: Vec<&Node> = nodes.iter().filter(|n| in_cloud(n)).collect();
        let hpc_nodes: Vec<&Node> = nodes
            .iter()
            .filter(|n| n.in_partition(hpc) && !in_cloud(n))
            .collect();
        let sum = |list: &[&Node]| list.iter().map(|n| n.total).fold(0u32, u32::saturating_add);
        let (cloud_cpus, hpc_cpus) = (sum(&cloud_nodes), sum(&hpc_nodes));
        if cloud_cpus > conv_procs || conv_procs.saturating_add(hpc_cpus) > procs {
            return Err(TopologyError {
                cloud: cloud.to_string(),
                hpc: hpc.to_string(),
                cloud_cpus,
                hpc_cpus,
                conv_procs,
                procs,
                needed: cloud_cpus.saturating_add(hpc_cpus),
            });
        }
        let mut topology = Topology {
            cloud: clouds,
            hpc: hpc.to_string(),
            nodes: HashMap::new(),
            order: Vec::new(),
            unmapped: ProcSet::new(),
        };
        let mut place = |list: &[&Node], mut first: u32| {
            for node in list {
                topology.nodes.insert(
                    node.name.clone(),
                    NodeCpus {
                        first,
                        cpus: node.total,
                        available: node.available(),
                        partitions: node.partitions.clone(),
                        memory_mb: node.memory.map(|m| m.total_mb),
                    },
                );
                topology.order.push(node.name.clone());
                first += node.total;
            }
            first
        };
        let cloud_end = place(&cloud_nodes, 0);
        let hpc_end = place(&hpc_nodes, conv_procs);
        let mut unmapped = Vec::new();
        if cloud_end < conv_procs {
            unmapped.push((cloud_end, conv_procs - 1));
        }
        if hpc_end < procs {
            unmapped.push((hpc_end, procs - 1));
        }
        topology.unmapped = ProcSet::from_ranges(unmapped);
        Ok(topology)
    }

    /// The partitions of a job's `%P` (`hpc,cloud` when submitted to
    /// several) this daemon plans: the HPC and the cloud partitions.
    fn planned_partitions<'a>(&self, partitions: &'a str) -> Vec<&'a str> {
        partition_list(partitions)
            .filter(|p| *p == self.hpc || self.is_cloud(p))
            .collect()
    }

    /// Is `partition` one of the cloud partitions?
    fn is_cloud(&self, partition: &str) -> bool {
        self.cloud.iter().any(|cloud| cloud == partition)
    }

    /// The processors of the nodes in any of `partitions`.
    fn processors_of(&self, partitions: &[&str]) -> ProcSet {
        ProcSet::from_ranges(
            self.order
                .iter()
                .map(|name| &self.nodes[name])
                .filter(|node| {
                    node.cpus > 0 && node.partitions.iter().any(|p| partitions.contains(&p.as_str()))
                })
                .map(|node| (node.first, node.first + node.cpus - 1)),
        )
    }

    /// The engine processor of `node`'s CPU `cpu`.
    fn proc(&self, node: &str, cpu: u32) -> Option<u32> {
        self.nodes
            .get(node)
            .filter(|n| cpu < n.cpus)
            .map(|n| n.first + cpu)
    }
}

/// What one read of the queue says about the plan.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct PlanRead {
    /// The plan, in the engine's processors.
    pub plan: MirroredPlan,
    /// The admission hold each of `plan.unplanned` carries, if any (in
    /// order), with the job's CPUs.
    pub unplanned_holds: Vec<Option<(u64, u32)>>,
    /// Holds whose job Slurm now runs or plans, with the job's CPUs: they
    /// are released (if the CPUs are the hold's).
    pub settled_holds: Vec<(u64, u32)>,
    /// How many jobs are running, planned by Slurm, left to the engine, held.
    pub counts: PlanCounts,
}

/// Jobs of the plan by where their place comes from.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct PlanCounts {
    /// Running.
    pub running: usize,
    /// Pending, planned by Slurm's backfill.
    pub planned: usize,
    /// Pending without a plan: placed by the engine.
    pub unplanned: usize,
    /// Left out of the plan: held by their user or an administrator, or
    /// waiting for something that does not come on its own (a dependency
    /// never satisfied, a partition down, a bad account or QOS).
    pub held: usize,
}

/// One job's share of one node: `count` CPUs and `memory_mb` (0 when
/// Slurm does not count memory) over `[start, end)`.
struct NodeShare {
    job: usize,
    node: String,
    count: u32,
    memory_mb: u64,
    start: Time,
    end: Time,
}

/// Slurm's plan at `now` (epoch seconds) on `topology`: see the module docs.
pub fn plan(
    topology: &Topology,
    jobs: &[SqueueJob],
    reservations: &[Reservation],
    now_seconds: i64,
) -> PlanRead {
    let now = Time::from_secs(now_seconds);
    let mut read = PlanRead::default();
    let mut running_shares = Vec::new();
    let mut planned_shares = Vec::new();
    let mut unplanned = Vec::new();
    for (index, job) in jobs.iter().enumerate() {
        // Only the plugin's own marker on a job of the cloud partition names a hold.
        let hold = job
            .marker
            .as_ref()
            .and_then(|m| m.hold)
            .filter(|_| job.partitions().any(|p| topology.is_cloud(p)))
            .map(|id| (id, job.cpus));
        let limit = Time::from_secs(planned_walltime(job.time_limit_seconds) as i64);
        match job.state {
            JobStateName::Running => {
                read.counts.running += 1;
                read.settled_holds.extend(hold);
                let start = job.start.map_or(now, Time::from_secs).min(now);
                // Past its end and not reaped yet: busy a moment longer.
                let end = job
                    .end
                    .map_or_else(|| start.saturating_add(limit), Time::from_secs)
                    .max(now + Time::from_secs(1));
                running_shares.extend(shares(index, job, &job.nodes, start, end).unwrap_or_default());
            }
            JobStateName::Pending if job.is_held() || waits_for_nothing_that_comes(&job.reason) => {
                read.counts.held += 1
            }
            JobStateName::Pending => match job
                .start
                .map(|start| Time::from_secs(start).max(now))
                .and_then(|start| shares(index, job, &job.sched_nodes, start, start.saturating_add(limit)))
            {
                Some(planned) => {
                    read.counts.planned += 1;
                    read.settled_holds.extend(hold);
                    planned_shares.extend(planned);
                }
                None if topology.planned_partitions(&job.partition).is_empty() => {}
                None => {
                    read.counts.unplanned += 1;
                    unplanned.push((job.submit.unwrap_or(now_seconds), index, hold));
                }
            },
            _ => {}
        }
    }
    // In submission order, each no earlier than Slurm's own estimate of its
    // start, nor than the last start Slurm planned: Slurm's backfill did not
    // place it within the window it planned.
    unplanned.sort_unstable();
    let frontier = planned_shares.iter().map(|s| s.start).max().unwrap_or(now);
    let mut within: HashMap<&str, ProcSet> = HashMap::new();
    for (_, index, hold) in unplanned {
        let job = &jobs[index];
        let may_use = within
            .entry(job.partition.as_str())
            .or_insert_with(|| topology.processors_of(&topology.planned_partitions(&job.partition)))
            .clone();
        read.plan.unplanned.push(UnplannedJob {
            procs: job.cpus.max(1),
            walltime: Time::from_secs(planned_walltime(job.time_limit_seconds) as i64),
            not_before: job.start.map_or(now, Time::from_secs).max(frontier),
            within: Some(may_use),
        });
        read.unplanned_holds.push(hold);
    }
    let mut cpus = CpuClock::new(topology);
    let mut memory = MemoryClock::new(topology);
    for share in &running_shares {
        memory.hold(share);
    }
    // Each job's processors, over its one window (all its shares have it).
    let mut placed: Vec<Option<(Vec<u32>, Time, Time)>> = vec![None; jobs.len()];
    let mut place = |assigned: Vec<(usize, Vec<u32>, Time, Time)>| {
        for (job, procs, start, end) in assigned {
            placed[job]
                .get_or_insert_with(|| (Vec::new(), start, end))
                .0
                .extend(procs);
        }
    };
    place(cpus.assign(topology, running_shares));
    read.plan.blocked = cpus.unavailable_from(topology, now);
    let reserved_nodes = reserved_before(topology, reservations);
    for job_shares in packed(planned_shares, &cpus, memory, &reserved_nodes, now) {
        place(cpus.assign(topology, job_shares));
    }
    for (procs, start, end) in placed.into_iter().flatten() {
        let procs = ProcSet::from_ids(procs);
        if !procs.is_empty() {
            read.plan.jobs.push(Occupation { procs, start, end });
        }
    }
    read.plan
        .blocked
        .extend(reserved(topology, reservations, now_seconds));
    read
}

/// Slurm's planned pending jobs, as each job's shares, in the order Slurm
/// planned them (start, then squeue's order), each job started as early as
/// its CPUs on every one of its nodes are free (after the running jobs and
/// the jobs before it) and, when Slurm counts memory, its memory there too
/// (Slurm delays a job whose node lacks it, with its CPUs free), no earlier
/// than a job before it on one of its nodes (Slurm starts them in priority
/// order), and no later than Slurm's start.
/// A job on a node with an advance reservation keeps Slurm's start (the
/// reservation, not the CPUs, may be what it waits for).
fn packed(
    shares: Vec<NodeShare>,
    cpus: &CpuClock,
    mut memory: MemoryClock,
    reserved_nodes: &[&str],
    now: Time,
) -> Vec<Vec<NodeShare>> {
    let mut jobs: Vec<Vec<NodeShare>> = Vec::new();
    for share in shares {
        match jobs.iter_mut().find(|job| job[0].job == share.job) {
            Some(job) => job.push(share),
            None => jobs.push(vec![share]),
        }
    }
    jobs.sort_by_key(|job| (job[0].start, job[0].job));
    let mut free_at = cpus.free_at.clone();
    let mut node_turn: HashMap<String, Time> = HashMap::new();
    for job in &mut jobs {
        let slurm_start = job[0].start;
        let length = job[0].end - slurm_start;
        let keep = job.iter().any(|s| reserved_nodes.contains(&s.node.as_str()));
        let start = job
            .iter()
            .map(|s| {
                let turn = node_turn.get(&s.node).copied().unwrap_or(now);
                let fits = free_at.get(&s.node).and_then(|cpus| {
                    let mut times = cpus.clone();
                    times.sort_unstable();
                    times.get((s.count as usize).max(1) - 1).copied()
                });
                fits.map(|t| t.max(turn))
                    .and_then(|t| memory.free_from(&s.node, s.memory_mb, t))
            })
            .try_fold(now, |latest, t| t.map(|t| latest.max(t)))
            .filter(|_| !keep)
            .map_or(slurm_start, |t| t.min(slurm_start));
        for share in job.iter_mut() {
            share.start = start;
            share.end = start.saturating_add(length);
            node_turn.insert(share.node.clone(), start);
            memory.hold(share);
            if let Some(cpus) = free_at.get_mut(&share.node) {
                // The share's CPUs: those free soonest, busy until its end.
                let mut order: Vec<usize> = (0..cpus.len()).collect();
                order.sort_by_key(|&c| (cpus[c], c));
                for &c in order.iter().take(share.count as usize) {
                    cpus[c] = cpus[c].max(share.end);
                }
            }
        }
    }
    jobs
}

/// The nodes an advance reservation names (every node for one that names none).
fn reserved_before<'a>(topology: &'a Topology, reservations: &'a [Reservation]) -> Vec<&'a str> {
    let mut nodes = Vec::new();
    for reservation in reservations {
        match &reservation.nodes {
            Some(list) => nodes.extend(list.iter().map(String::as_str)),
            None => nodes.extend(topology.order.iter().map(String::as_str)),
        }
    }
    nodes
}

/// The processors `plan` cannot give from `now_seconds` on: each reservation
/// not over yet (on its nodes, or on every node), and the processors of no
/// node Slurm knows (`Topology::unmapped`) for ever.
fn reserved(topology: &Topology, reservations: &[Reservation], now_seconds: i64) -> Vec<Occupation> {
    let now = Time::from_secs(now_seconds);
    let mut blocked = Vec::new();
    for reservation in reservations {
        let nodes: Vec<&String> = match &reservation.nodes {
            Some(list) => list.iter().collect(),
            None => topology.order.iter().collect(),
        };
        let procs = ProcSet::from_ids(nodes.iter().flat_map(|node| {
            let cpus = topology.nodes.get(node.as_str()).map_or(0, |n| n.cpus);
            (0..cpus).filter_map(|cpu| topology.proc(node, cpu))
        }));
        if !procs.is_empty() && reservation.end > now_seconds {
            blocked.push(Occupation {
                procs,
                start: Time::from_secs(reservation.start),
                end: Time::from_secs(reservation.end),
            });
        }
    }
    if !topology.unmapped.is_empty() {
        blocked.push(Occupation {
            procs: topology.unmapped.clone(),
            start: now,
            end: Time::INFINITY,
        });
    }
    blocked
}

/// Reasons a pending job waits for something that does not come on its own:
/// such a job is left out of the plan (counted as held).
const NEVER_ON_ITS_OWN: [&str; 7] = [
    "DependencyNeverSatisfied",
    "PartitionDown",
    "PartitionInactive",
    "BadConstraints",
    "InvalidAccount",
    "InvalidQOS",
    "JobHoldMaxRequeue",
];

fn waits_for_nothing_that_comes(reason: &str) -> bool {
    NEVER_ON_ITS_OWN.contains(&reason.trim())
}

/// A job's CPUs shared out over the nodes of `list` (evenly, the first
/// nodes taking one more while some remain; at least one each): squeue
/// gives a job's CPU count, not how they spread. `None` for a list that
/// names no node or does not parse.
pub(super) fn spread(squeue: &SqueueJob, list: &str) -> Option<Vec<(String, u32)>> {
    let nodes = match expand_hostlist(list) {
        Ok(nodes) if !nodes.is_empty() => nodes,
        _ => {
            tracing::debug!(job = %squeue.id, "slurm: node list {list:?} names no node");
            return None;
        }
    };
    let n = nodes.len() as u32;
    let cpus = squeue.cpus.max(n);
    Some(
        nodes
            .into_iter()
            .enumerate()
            .map(|(i, node)| (node, cpus / n + u32::from((i as u32) < cpus % n)))
            .collect(),
    )
}

/// A job's [`spread`] over `list` as shares from `start` to `end`; `None`
/// as for `spread` (a pending job without a plan; a running job then is
/// left out of the plan).
fn shares(job: usize, squeue: &SqueueJob, list: &str, start: Time, end: Time) -> Option<Vec<NodeShare>> {
    let cpus = spread(squeue, list)?;
    let counts: Vec<u32> = cpus.iter().map(|(_, count)| *count).collect();
    let memory = share(squeue.memory_mb.unwrap_or(0), &counts);
    Some(
        cpus.into_iter()
            .zip(memory)
            .map(|((node, count), memory_mb)| NodeShare {
                job,
                node,
                count,
                memory_mb,
                start,
                end,
            })
            .collect(),
    )
}

/// The memory of each node held by the shares placed so far, each until
/// its end (as [`CpuClock`] holds a CPU until the end of its last job);
/// only for nodes that carry memory (Slurm counts it).
struct MemoryClock {
    /// `RealMemory` by node.
    capacity: HashMap<String, u64>,
    /// `(end, megabytes)` of every share holding memory, by node.
    held: HashMap<String, Vec<(Time, u64)>>,
}

impl MemoryClock {
    fn new(topology: &Topology) -> MemoryClock {
        MemoryClock {
            capacity: topology
                .nodes
                .iter()
                .filter_map(|(name, node)| Some((name.clone(), node.memory_mb?)))
                .collect(),
            held: HashMap::new(),
        }
    }

    /// `share`'s memory is held on its node until its end.
    fn hold(&mut self, share: &NodeShare) {
        if share.memory_mb > 0 && self.capacity.contains_key(&share.node) {
            self.held
                .entry(share.node.clone())
                .or_default()
                .push((share.end, share.memory_mb));
        }
    }

    /// The earliest time from `from` when `node` has `megabytes` free for
    /// good; `from` itself for a node without memory or a share asking
    /// none; `None` when it never has (more than the node's memory).
    fn free_from(&self, node: &str, megabytes: u64, from: Time) -> Option<Time> {
        let Some(&capacity) = self.capacity.get(node).filter(|_| megabytes > 0) else {
            return Some(from);
        };
        let held = self.held.get(node).map_or(&[][..], Vec::as_slice);
        let mut times: Vec<Time> = held
            .iter()
            .map(|&(end, _)| end)
            .filter(|&end| end > from)
            .collect();
        times.push(from);
        times.sort_unstable();
        times.into_iter().find(|&t| {
            let used: u64 = held.iter().filter(|&&(end, _)| end > t).map(|&(_, mb)| mb).sum();
            capacity.saturating_sub(used) >= megabytes
        })
    }
}

/// When each CPU of each node is free again, as shares are assigned.
struct CpuClock {
    free_at: HashMap<String, Vec<Time>>,
}

impl CpuClock {
    fn new(topology: &Topology) -> CpuClock {
        CpuClock {
            free_at: topology
                .nodes
                .iter()
                .map(|(name, node)| (name.clone(), vec![Time::from_ticks(i64::MIN); node.cpus as usize]))
                .collect(),
        }
    }

    /// Give each share, by start, the lowest CPUs of its node free at its
    /// start (when too few are, those free soonest: the plan double-books
    /// them, and the engine counts it). Returns `(job, processors, start, end)`.
    fn assign(
        &mut self,
        topology: &Topology,
        mut shares: Vec<NodeShare>,
    ) -> Vec<(usize, Vec<u32>, Time, Time)> {
        shares.sort_by_key(|s| (s.start, s.end, s.job));
        let mut out = Vec::with_capacity(shares.len());
        for share in shares {
            let Some(free_at) = self.free_at.get_mut(&share.node) else {
                continue; // a node of another partition
            };
            let want = share.count as usize;
            let mut chosen: Vec<usize> = (0..free_at.len())
                .filter(|&c| free_at[c] <= share.start)
                .take(want)
                .collect();
            if chosen.len() < want {
                let mut rest: Vec<usize> = (0..free_at.len()).filter(|&c| free_at[c] > share.start).collect();
                rest.sort_by_key(|&c| (free_at[c], c));
                chosen.extend(rest.into_iter().take(want - chosen.len()));
            }
            for &c in &chosen {
                free_at[c] = free_at[c].max(share.end);
            }
            let procs = chosen
                .into_iter()
                .filter_map(|c| topology.proc(&share.node, c as u32))
                .collect();
            out.push((share.job, procs, share.start, share.end));
        }
        out
    }

    /// Every CPU of the nodes that take no new work, blocked from when the
    /// job on it ends (or `now`).
    fn unavailable_from(&self, topology: &Topology, now: Time) -> Vec<Occupation> {
        let mut blocked = Vec::new();
        for name in &topology.order {
            let node = &topology.nodes[name];
            if node.available {
                continue;
            }
            for (cpu, &free) in self.free_at[name].iter().enumerate() {
                if let Some(proc) = topology.proc(name, cpu as u32) {
                    blocked.push(Occupation {
                        procs: ProcSet::range(proc, proc),
                        start: free.max(now),
                        end: Time::INFINITY,
                    });
                }
            }
        }
        blocked
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::backend::slurm::cluster::parse_nodes;
    use crate::backend::slurm::parse_squeue;

    const NOW: i64 = 1_800_000_000;

    /// n1 and n2 in both partitions, n3 in hpc only, n2 draining.
    fn nodes() -> Vec<Node> {
        parse_nodes(
            "NodeName=n1 CPUAlloc=4 CPUTot=4 State=ALLOCATED Partitions=hpc,cloud\n\
             NodeName=n2 CPUAlloc=2 CPUTot=4 State=MIXED+DRAIN Partitions=hpc,cloud\n\
             NodeName=n3 CPUAlloc=0 CPUTot=4 State=IDLE Partitions=hpc\n",
        )
        .unwrap()
    }

    fn at(seconds: i64) -> Time {
        Time::from_secs(NOW + seconds)
    }

    fn set(text: &str) -> ProcSet {
        text.parse().unwrap()
    }

    #[test]
    fn several_cloud_partitions_make_one_area() {
        // n1 is only in cloud_gold, n2 only in cloud: both are the area.
        let nodes = parse_nodes(
            "NodeName=n1 CPUAlloc=0 CPUTot=4 State=IDLE Partitions=hpc,cloud_gold\n\
             NodeName=n2 CPUAlloc=0 CPUTot=4 State=IDLE Partitions=hpc,cloud\n\
             NodeName=n3 CPUAlloc=0 CPUTot=4 State=IDLE Partitions=hpc\n",
        )
        .unwrap();
        let topology = Topology::new(&nodes, "cloud, cloud_gold", "hpc", 12, 8).unwrap();
        assert_eq!(
            (topology.proc("n1", 0), topology.proc("n2", 0)),
            (Some(0), Some(4))
        );
        assert_eq!(topology.proc("n3", 0), Some(8));
        assert_eq!(
            topology.planned_partitions("cloud_gold,hpc"),
            ["cloud_gold", "hpc"]
        );
        assert_eq!(topology.planned_partitions("debug"), Vec::<&str>::new());
        // With only `cloud` named, n1 is HPC work's.
        let one = Topology::new(&nodes, "cloud", "hpc", 12, 4).unwrap();
        assert_eq!(one.proc("n1", 0), Some(4));
    }

    #[test]
    fn the_cloud_partition_is_the_area_and_the_rest_follows_it() {
        let topology = Topology::new(&nodes(), "cloud", "hpc", 16, 10).unwrap();
        assert_eq!(topology.proc("n1", 0), Some(0));
        assert_eq!(topology.proc("n2", 3), Some(7));
        assert_eq!(
            topology.proc("n3", 0),
            Some(10),
            "hpc-only nodes start after the area"
        );
        assert_eq!(topology.proc("n3", 4), None);
        assert_eq!(topology.unmapped, set("8-9 14-15"));
        let err = Topology::new(&nodes(), "cloud", "hpc", 10, 6)
            .unwrap_err()
            .to_string();
        assert!(
            err.contains("set engine.conv_procs to 8 and engine.procs to 12 or more"),
            "{err}"
        );
    }

    #[test]
    fn slurms_plan_in_the_engines_processors() {
        let topology = Topology::new(&nodes(), "cloud", "hpc", 12, 8).unwrap();
        let squeue = format!(
            "1|hpc|RUNNING|6|10:00|{s}|{s}|{e1}|None|n[1-2]|(null)|root|(null)\n\
             2|cloud|RUNNING|1|5:00|{s}|{s}|{e2}|None|n1|(null)|root|interstice:accepted slo=400 hold=7\n\
             3|hpc|PENDING|4|1:00|{s}|{p}|{pe}|Resources||n3|root|(null)\n\
             4|cloud|PENDING|2|2:00|{s}|N/A|N/A|Priority||(null)|root|interstice:accepted slo=900 hold=8\n\
             5|hpc|PENDING|1|UNLIMITED|{s}|N/A|N/A|JobHeldUser||(null)|root|(null)\n\
             6|hpc|COMPLETED|4|1:00|{s}|{s}|{s}|None|n3|(null)|root|(null)\n\
             7|hpc|PENDING|1|1:00|{s}|N/A|N/A|Priority||(null)|root|x interstice:accepted slo=1 hold=9\n\
             8|gpu|PENDING|4|1:00|{s}|N/A|N/A|Resources||(null)|root|(null)\n\
             9|hpc|PENDING|4|1:00|{s}|N/A|N/A|DependencyNeverSatisfied||(null)|root|(null)\n",
            s = NOW - 100,
            e1 = NOW + 500,
            e2 = NOW + 200,
            p = NOW + 300,
            pe = NOW + 360,
        );
        let jobs = parse_squeue(&squeue).unwrap();
        let reservations = vec![Reservation {
            name: "maint".into(),
            start: NOW + 1000,
            end: NOW + 4600,
            nodes: Some(vec!["n3".into()]),
        }];
        let read = plan(&topology, &jobs, &reservations, NOW);
        assert_eq!(
            read.counts,
            PlanCounts {
                running: 2,
                planned: 1,
                unplanned: 2,
                held: 2
            },
            "job 8 is in a partition this daemon does not plan; job 9 waits for nothing that comes"
        );
        // Job 2 ends first: it takes n1's lowest CPU (0); job 1's 6 CPUs are
        // 3 on n1 (1-3) and 3 on n2 (4-6).
        assert_eq!(
            read.plan.jobs,
            vec![
                Occupation {
                    procs: set("1-6"),
                    start: at(-100),
                    end: at(500)
                },
                Occupation {
                    procs: set("0"),
                    start: at(-100),
                    end: at(200)
                },
                Occupation {
                    procs: set("8-11"),
                    start: at(300),
                    end: at(360)
                },
            ]
        );
        assert_eq!(
            read.settled_holds,
            vec![(7, 1)],
            "the running job settles its hold"
        );
        assert_eq!(
            read.unplanned_holds,
            vec![Some((8, 2)), None],
            "a marker names a hold only on a job of the cloud partition"
        );
        assert_eq!(
            read.plan.unplanned,
            vec![
                UnplannedJob {
                    procs: 2,
                    walltime: Time::from_secs(120),
                    not_before: at(300),
                    within: Some(set("0-7")),
                },
                UnplannedJob {
                    procs: 1,
                    walltime: Time::from_secs(60),
                    not_before: at(300),
                    within: Some(set("0-11")),
                }
            ],
            "not before the last start Slurm planned (job 3's), each on its partition's nodes"
        );
        // Draining n2: its free CPU 7 from now, 4-6 from job 1's end; n3's maintenance window.
        let blocked: Vec<(ProcSet, Time, Time)> = read
            .plan
            .blocked
            .iter()
            .map(|o| (o.procs.clone(), o.start, o.end))
            .collect();
        assert_eq!(
            blocked,
            vec![
                (set("4"), at(500), Time::INFINITY),
                (set("5"), at(500), Time::INFINITY),
                (set("6"), at(500), Time::INFINITY),
                (set("7"), at(0), Time::INFINITY),
                (set("8-11"), at(1000), at(4600)),
            ]
        );
    }

    /// Issue 37's live run: Slurm 22.05's backfill plans whole nodes. Behind
    /// a job filling an 8-CPU node for 50 s, three 2-CPU jobs are planned one
    /// after the other (`%S` 50 s, 230 s, 410 s: each after the time limit
    /// of the one before), yet all three start when the node frees up (the
    /// live run measured it: `scripts/slurm-live.sh`, docs/live.md). Mirrored
    /// at Slurm's starts, the second and third left a 2-CPU hole at 50 s that
    /// the daemon promised to cloud jobs which were then preempted.
    #[test]
    fn jobs_slurm_planned_one_per_node_start_together_when_their_cpus_are_free() {
        let nodes =
            parse_nodes("NodeName=n1 CPUAlloc=8 CPUTot=8 State=ALLOCATED Partitions=hpc,cloud\n").unwrap();
        let topology = Topology::new(&nodes, "cloud", "hpc", 8, 8).unwrap();
        let squeue = format!(
            "1|hpc|RUNNING|8|1:00|{s}|{s}|{e}|None|n1|(null)|root|(null)\n\
             2|hpc|PENDING|2|3:00|{s}|{p1}|{e1}|Resources||n1|root|(null)\n\
             3|hpc|PENDING|2|3:00|{s}|{p2}|{e2}|Priority||n1|root|(null)\n\
             4|cloud|PENDING|2|3:00|{s}|{p3}|{e3}|Priority||n1|root|interstice:accepted slo=900 hold=8\n",
            s = NOW - 10,
            e = NOW + 50,
            p1 = NOW + 50,
            e1 = NOW + 230,
            p2 = NOW + 230,
            e2 = NOW + 410,
            p3 = NOW + 410,
            e3 = NOW + 590,
        );
        let read = plan(&topology, &parse_squeue(&squeue).unwrap(), &[], NOW);
        let windows: Vec<(Time, Time, u32)> = read
            .plan
            .jobs
            .iter()
            .map(|o| (o.start, o.end, o.procs.len()))
            .collect();
        assert_eq!(
            windows,
            vec![
                (at(-10), at(50), 8),
                (at(50), at(230), 2),
                (at(50), at(230), 2),
                (at(50), at(230), 2),
            ]
        );
        assert_eq!(read.settled_holds, vec![(8, 2)], "a planned job settles its hold");

        // A job planned on a node an advance reservation names keeps Slurm's start.
        let reservations = vec![Reservation {
            name: "maint".into(),
            start: NOW + 1000,
            end: NOW + 2000,
            nodes: Some(vec!["n1".into()]),
        }];
        let read = plan(&topology, &parse_squeue(&squeue).unwrap(), &reservations, NOW);
        let starts: Vec<Time> = read.plan.jobs.iter().map(|o| o.start).collect();
        assert_eq!(starts, vec![at(-10), at(50), at(230), at(410)]);
    }

    /// Slurm 22.05 with `CR_Core_Memory` (captured live): one 4-CPU node of
    /// 4000 MB runs job 1 (1 CPU, 3000 MB) and job 2 (2 CPUs, 500 MB); job 3
    /// asks 1 CPU and 2000 MB. Its CPU is free now, its memory is not: Slurm
    /// plans it (reason `Resources`) at job 1's end. Counting CPUs only, the
    /// mirror started it now and promised nothing of that CPU to cloud work.
    #[test]
    fn a_planned_job_starts_when_its_memory_is_free_not_only_its_cpus() {
        let nodes = parse_nodes(
            "NodeName=n1 CPUAlloc=3 CPUTot=4 RealMemory=4000 AllocMem=3500 State=MIXED Partitions=hpc,cloud\n",
        )
        .unwrap();
        let topology = Topology::new(&nodes, "cloud", "hpc", 4, 4).unwrap();
        let squeue = |end1: i64, planned: i64| {
            format!(
                "1|cloud|RUNNING|1|10:00|{s}|{s}|{e1}|None|n1|(null)|root|(null)\n\
                 2|cloud|RUNNING|2|10:00|{s}|{s}|{e2}|None|n1|(null)|root|(null)\n\
                 3|hpc|PENDING|1|1:00|{s}|{p}|{pe}|Resources||n1|root|(null)\n",
                s = NOW - 10,
                e1 = NOW + end1,
                e2 = NOW + 300,
                p = NOW + planned,
                pe = NOW + planned + 60,
            )
        };
        let starts = |end1: i64, planned: i64, memory: [Option<u64>; 3]| {
            let mut jobs = parse_squeue(&squeue(end1, planned)).unwrap();
            for (job, mb) in jobs.iter_mut().zip(memory) {
                job.memory_mb = mb;
            }
            let read = plan(&topology, &jobs, &[], NOW);
            read.plan.jobs.iter().map(|o| o.start).collect::<Vec<Time>>()
        };
        let memory = [Some(3000), Some(500), Some(2000)];
        // Job 1 ends at 300 s, as Slurm plans job 3.
        assert_eq!(starts(300, 300, memory), [at(-10), at(-10), at(300)]);
        // Job 1 ends at 100 s and Slurm planned job 3 at 300 s (whole nodes):
        // 3500 MB are free from 100 s, and it starts then.
        assert_eq!(starts(100, 300, memory), [at(-10), at(-10), at(100)]);
        // No memory read (Slurm does not count it): CPUs only, it starts now.
        assert_eq!(starts(300, 300, [None; 3]), [at(-10), at(-10), at(0)]);
    }

    #[test]
    fn jobs_on_unknown_nodes_or_bad_lists_are_left_out_not_fatal() {
        let topology = Topology::new(&nodes(), "cloud", "hpc", 12, 8).unwrap();
        let squeue = format!(
            "1|other|RUNNING|2|1:00|{s}|{s}|{e}|None|x9|(null)|root|(null)\n\
             2|hpc|RUNNING|2|1:00|{s}|{s}|{e}|None|n[1-|(null)|root|(null)\n",
            s = NOW,
            e = NOW + 60
        );
        let read = plan(&topology, &parse_squeue(&squeue).unwrap(), &[], NOW);
        assert!(read.plan.jobs.is_empty(), "{:?}", read.plan.jobs);
        assert_eq!(read.counts.running, 2);
    }
}
