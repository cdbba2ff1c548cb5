//! Where a pending HPC job fits now, the one home of the evictor's fit:
//! what it needs ([`Need`], from `scontrol -o show job`: [`parse_need`])
//! and the room of the HPC partition's available nodes ([`Rooms`]): their
//! free CPUs and, when Slurm counts memory, their free memory. A node
//! gives a job the CPUs it has free there whose memory is free too (all of
//! them or none for a per-node request, as many as the memory holds for a
//! per-CPU one); a node without memory (Slurm does not count it) gives its
//! free CPUs. What a running job holds on each node ([`Held`], [`holding`])
//! is its CPUs spread evenly ([`spread`]) and its memory in proportion
//! ([`share`]).

use super::super::cluster::{field, Node};
use super::super::memory::{share, MemoryRequest};
use super::super::mirror::spread;
use super::super::squeue::SqueueJob;
use std::collections::HashMap;

/// What a pending job needs to start, from its `scontrol -o show job` line.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Need {
    /// CPUs (`NumCPUs`).
    pub cpus: u32,
    /// Fewest nodes (`NumNodes=min[-max]`).
    pub min_nodes: u32,
    /// Most nodes; `None`: as many as it takes.
    pub max_nodes: Option<u32>,
    /// Fewest CPUs on each node it uses (`MinCPUsNode`).
    pub min_cpus_node: u32,
    /// Whole nodes only (`OverSubscribe=NO`, `--exclusive`).
    pub exclusive: bool,
    /// Its memory on each node (`MinMemoryNode`, `MinMemoryCPU`; 0: the
    /// whole node's); counted only on nodes that carry memory (Slurm
    /// counts it).
    pub memory: Option<MemoryRequest>,
}

/// Fields of a job that say where it may run in ways the daemon does not
/// judge: a job naming one is left to Slurm.
const PLACEMENT_FIELDS: [&str; 4] = ["ReqNodeList", "ExcNodeList", "Features", "Licenses"];

/// What job `id`, named `name` (as `squeue -o %j` prints it), needs by its
/// `scontrol -o show job` output `text`; `None` when it says where it may
/// run in a way the daemon does not judge ([`PLACEMENT_FIELDS`], generic
/// resources, contiguous nodes), lacks a field, or does not start as the
/// job's own line.
///
/// The job's name is the only text its user writes before the fields read
/// here (the command, directories and comment come after them): the line
/// must start with exactly that name, and the fields are read from there
/// up to the first ` Command=`, so no name, path or comment can forge one.
pub fn parse_need(text: &str, id: &str, name: &str) -> Option<Need> {
    let rest = text.strip_prefix(&format!("JobId={id} JobName={name} "))?;
    let rest = rest.split(" Command=").next()?;
    if !rest.starts_with("UserId=") {
        return None;
    }
    let set = |key: &str| field(rest, key).is_some_and(|v| !v.is_empty() && v != "(null)");
    if PLACEMENT_FIELDS.iter().any(|key| set(key))
        || field(rest, "TRES").is_some_and(|tres| tres.contains("gres/"))
        || field(rest, "Contiguous").is_some_and(|c| c != "0")
    {
        return None;
    }
    let number = |text: &str| text.parse::<u32>().ok();
    let nodes = field(rest, "NumNodes")?;
    let (min_nodes, max_nodes) = match nodes.split_once('-') {
        None => (number(nodes)?, None),
        Some((min, "")) => (number(min)?, None),
        Some((min, max)) => (number(min)?, Some(number(max)?)),
    };
    Some(Need {
        cpus: number(field(rest, "NumCPUs")?)?,
        min_nodes: min_nodes.max(1),
        max_nodes,
        min_cpus_node: field(rest, "MinCPUsNode").and_then(number).unwrap_or(1).max(1),
        exclusive: field(rest, "OverSubscribe") == Some("NO"),
        memory: MemoryRequest::from_show_job(rest),
    })
}

/// What a running job holds on one node.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Held {
    /// The node.
    pub node: String,
    /// CPUs.
    pub cpus: u32,
    /// Megabytes (0 when Slurm does not count memory).
    pub memory_mb: u64,
}

/// What running job `job` holds on each of its nodes (`%N`): its CPUs
/// spread evenly, its memory (if Slurm counts it) in proportion; `None`
/// when its node list names no node.
pub fn holding(job: &SqueueJob) -> Option<Vec<Held>> {
    let cpus = spread(job, &job.nodes)?;
    let counts: Vec<u32> = cpus.iter().map(|(_, c)| *c).collect();
    let memory = share(job.memory_mb.unwrap_or(0), &counts);
    Some(
        cpus.into_iter()
            .zip(memory)
            .map(|((node, cpus), memory_mb)| Held {
                node,
                cpus,
                memory_mb,
            })
            .collect(),
    )
}

/// One available node of the HPC partition, as the walk sees it.
#[derive(Clone, Debug)]
struct Room {
    name: String,
    /// Free CPUs, and all of them.
    free: u32,
    total: u32,
    /// Free megabytes and all of them; `None`: Slurm does not count memory.
    memory: Option<(u64, u64)>,
}

impl Room {
    /// The CPUs a job needing `need` may take here now.
    fn cpus_for(&self, need: &Need) -> u32 {
        let cpus = match need.exclusive {
            true if self.free == self.total => self.total,
            true => 0,
            false => self.free,
        };
        match (need.memory, self.memory) {
            (Some(request), Some((free_mb, total_mb))) => {
                let within = request.cpus_within(free_mb, total_mb, cpus);
                // A whole node, or nothing.
                if need.exclusive && within < cpus {
                    0
                } else {
                    within
                }
            }
            _ => cpus,
        }
    }
}

/// The free CPUs (and memory) of the HPC partition's available nodes.
#[derive(Clone, Debug)]
pub struct Rooms {
    /// In the order scontrol lists them.
    nodes: Vec<Room>,
    index: HashMap<String, usize>,
}

impl Rooms {
    /// The rooms of `partition`'s available nodes.
    pub fn new(nodes: &[Node], partition: &str) -> Rooms {
        let nodes: Vec<Room> = nodes
            .iter()
            .filter(|n| n.available() && n.in_partition(partition))
            .map(|n| Room {
                name: n.name.clone(),
                free: n.total.saturating_sub(n.allocated),
                total: n.total,
                memory: n.memory.map(|m| (m.free_mb(), m.total_mb)),
            })
            .collect();
        let index = nodes
            .iter()
            .enumerate()
            .map(|(i, n)| (n.name.clone(), i))
            .collect();
        Rooms { nodes, index }
    }

    /// Give back what `holding` holds; whether any of it was on these nodes.
    pub fn free(&mut self, holding: &[Held]) -> bool {
        let mut any = false;
        for held in holding {
            if let Some(&i) = self.index.get(&held.node) {
                let room = &mut self.nodes[i];
                room.free = room.free.saturating_add(held.cpus).min(room.total);
                if let Some((free, total)) = &mut room.memory {
                    *free = free.saturating_add(held.memory_mb).min(*total);
                }
                any = true;
            }
        }
        any
    }

    /// Where a job needing `need` would start now (node index, CPUs), the
    /// largest rooms first; `None` if it cannot.
    pub fn place(&self, need: &Need) -> Option<Vec<(usize, u32)>> {
        let mut usable: Vec<(u32, usize)> = self
            .nodes
            .iter()
            .enumerate()
            .filter_map(|(i, room)| {
                let cpus = room.cpus_for(need);
                (cpus >= need.min_cpus_node).then_some((cpus, i))
            })
            .collect();
        usable.sort_by(|a, b| b.0.cmp(&a.0).then(a.1.cmp(&b.1)));
        let (mut sum, mut count) = (0u32, 0usize);
        while sum < need.cpus && count < usable.len() {
            sum = sum.saturating_add(usable[count].0);
            count += 1;
        }
        let count = count.max(need.min_nodes as usize);
        if sum < need.cpus || count > usable.len() || need.max_nodes.is_some_and(|max| count > max as usize) {
            return None;
        }
        let mut left = need.cpus;
        Some(
            usable[..count]
                .iter()
                .enumerate()
                .map(|(k, &(room, i))| {
                    // Every node used takes at least one CPU.
                    let others = (count - k - 1) as u32;
                    let take = if need.exclusive {
                        room
                    } else {
                        room.min(left.saturating_sub(others)).max(1)
                    };
                    left = left.saturating_sub(take);
                    (i, take)
                })
                .collect(),
        )
    }

    /// Count the job needing `need` as started where `placed` says.
    pub fn take(&mut self, placed: &[(usize, u32)], need: &Need) {
        for &(i, cpus) in placed {
            let room = &mut self.nodes[i];
            room.free = room.free.saturating_sub(cpus);
            if let (Some(request), Some((free, total))) = (need.memory, &mut room.memory) {
                *free = free.saturating_sub(request.on_node(cpus, *total));
            }
        }
    }
}
