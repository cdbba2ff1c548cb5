//! The daemon's own eviction on Slurm (`backend.eviction: priority |
//! qos-driven | owner-share`; docs/qos.md, "On Slurm").
//!
//! Slurm's `preempt/partition_prio` picks its victims by partition tier and
//! node count, never by job priority (`tests/tests/slurm_victims.rs`), so a
//! victim order that follows service classes, `Q` or owner shares cannot be
//! told to Slurm. With a policy set, the cloud partitions are not
//! preemptable by Slurm (`PreemptMode=OFF`) and the daemon evicts itself:
//! at each read of the plan, [`Evictor::choose`] walks the pending HPC jobs
//! in Slurm's order (squeue lists a partition's pending jobs by decreasing
//! priority) and, for each one that could start now if cloud jobs gave way,
//! takes victims in the policy's order (core's
//! [`Rules::victim_key`](interstice_core::qos::policy::Rules::victim_key),
//! the order in which an area gives way when HPC work takes it back) until
//! the job fits, then gives back each victim that a later one made
//! unneeded (nodes make that common: freeing CPUs on the wrong node does not
//! help). The backend marks each victim's comment `evicted_for=<HPC job>`
//! and cancels it; the mark makes the cancellation read as an eviction in
//! every account ([`super::parse_squeue`]).
//!
//! The walk stops at the first pending job that cannot start even with
//! every cloud job gone (HPC work blocks it, and nothing behind it may take
//! its place) or whose needs the daemon cannot judge (named or excluded
//! nodes, features, generic resources): those are left to Slurm, which
//! starts them when the cloud jobs' time limits end. Pending jobs waiting
//! for something else than CPUs (a dependency, a begin time, a limit) are
//! passed over.
//!
//! A job fits when its partition's available nodes hold its CPUs on
//! between its minimum and maximum node count (`scontrol -o show job`:
//! `NumNodes`, `NumCPUs`, `MinCPUsNode`, `OverSubscribe=NO` for whole
//! nodes), largest rooms first; a cloud job's CPUs are spread over its
//! nodes evenly ([`super::mirror::spread`]). A job that fits without an
//! eviction is counted on the nodes with most room, so the next pending job
//! does not count on the same CPUs. A victim cancelled at an earlier read
//! whose CPUs Slurm still holds (listed running or completing) counts as
//! gone and is not chosen again.

use super::cluster::{field, Node};
use super::mirror::spread;
use super::read::SlurmState;
use super::squeue::{JobStateName, SqueueJob};
use crate::classes::ClassTable;
use crate::config::SlurmEviction;
use interstice_api::slurm::{mark_evicted, partition_list};
use interstice_core::qos::policy::{Candidate, Key, Rules};
use interstice_core::qos::{Eviction, Ledger, QosConfig, Request, ServiceClass, Tenant};
use interstice_core::Time;
use std::collections::{HashMap, HashSet};

/// The tenant of Slurm users no `backend.tenants` entry names: entitled to
/// nothing, so over its share whenever it runs anything.
pub const OTHER_USERS: &str = "(other users)";

/// Pending reasons of a job that waits for CPUs (or has not been looked at
/// yet): only those may be owed an eviction.
const WAITS_FOR_CPUS: [&str; 3] = ["Resources", "Priority", "None"];

/// A policy and what it needs to order the cloud jobs of a Slurm cluster.
#[derive(Clone, Debug)]
pub struct Policy {
    qos: QosConfig,
    /// The daemon's classes (an implicit one when it has none): a job's
    /// class is [`ClassTable::index`]'s, the default (else the first) for a
    /// job that names none or one the daemon lacks.
    classes: ClassTable,
    /// Tenant index by Slurm user ([`OTHER_USERS`] last).
    tenant_of_user: HashMap<String, usize>,
    partition_hpc: String,
    clouds: Vec<String>,
}

impl Policy {
    /// `eviction` over the daemon's classes (one implicit class when it has
    /// none: owner-share orders by tenant only) and `tenants` (Slurm users
    /// and the CPUs each is entitled to; every other user in
    /// [`OTHER_USERS`], share 0), for the HPC partition `partition_hpc` and
    /// the cloud partitions `partition_cloud` names.
    pub fn new(
        eviction: Eviction,
        classes: Option<&ClassTable>,
        mut tenants: Vec<Tenant>,
        partition_hpc: &str,
        partition_cloud: &str,
    ) -> Policy {
        let classes = classes.cloned().unwrap_or_else(|| ClassTable {
            classes: vec![ServiceClass::new("any", 1, 1.0)],
            default: None,
        });
        tenants.push(Tenant {
            name: OTHER_USERS.to_string(),
            share: 0,
        });
        let mut qos = QosConfig::new(1, 1, eviction);
        qos.classes = classes.classes.clone();
        qos.tenants = tenants;
        Policy {
            classes,
            tenant_of_user: qos
                .tenants
                .iter()
                .enumerate()
                .map(|(i, t)| (t.name.clone(), i))
                .collect(),
            qos,
            partition_hpc: partition_hpc.to_string(),
            clouds: partition_list(partition_cloud).map(str::to_string).collect(),
        }
    }

    /// The policy the config's checked `backend.eviction` settings describe
    /// ([`crate::config::Config::slurm_eviction`]), over the daemon's `classes`.
    pub fn configured(settings: SlurmEviction, classes: Option<&ClassTable>) -> Policy {
        Policy::new(
            settings.eviction,
            classes,
            settings.tenants,
            &settings.partition_hpc,
            &settings.partition_cloud,
        )
    }

    /// The policy's name.
    pub fn eviction(&self) -> Eviction {
        self.qos.eviction
    }

    /// The cloud partitions: their running jobs are the candidates.
    pub fn clouds(&self) -> &[String] {
        &self.clouds
    }

    fn is_cloud(&self, job: &SqueueJob) -> bool {
        job.partitions()
            .any(|p| self.clouds.iter().any(|cloud| cloud == p))
    }

    /// What the rules see of running cloud job `job`, admitted `order`-th, at `now`.
    fn candidate(&self, job: &SqueueJob, order: u64, now: Time) -> Option<Candidate> {
        let start = Time::from_secs(job.start?);
        let submit = job.submit.map_or(start, Time::from_secs).min(start);
        let named = job.marker.as_ref().and_then(|m| m.class.as_deref());
        let class = self
            .classes
            .index(named)
            .ok()
            .flatten()
            .or(self.classes.default)
            .unwrap_or(0);
        let tenant = self
            .tenant_of_user
            .get(&job.user)
            .copied()
            .unwrap_or(self.qos.tenants.len() - 1);
        let ledger = Ledger::running_since(submit, start);
        let request = Request {
            id: order,
            submit,
            procs: job.cpus,
            duration: None,
            class,
            tenant,
        };
        Some(Candidate::of(&request, order, &ledger, now.max(start), &self.qos))
    }
}

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
    })
}

/// The free CPUs of the HPC partition's available nodes.
#[derive(Clone, Debug)]
struct Rooms {
    /// `(name, free, total)`, in the order scontrol lists them.
    nodes: Vec<(String, u32, u32)>,
    index: HashMap<String, usize>,
}

impl Rooms {
    fn new(nodes: &[Node], partition: &str) -> Rooms {
        let nodes: Vec<(String, u32, u32)> = nodes
            .iter()
            .filter(|n| n.available() && n.in_partition(partition))
            .map(|n| (n.name.clone(), n.total.saturating_sub(n.allocated), n.total))
            .collect();
        let index = nodes.iter().enumerate().map(|(i, n)| (n.0.clone(), i)).collect();
        Rooms { nodes, index }
    }

    /// Give back the CPUs `spread` holds; whether any was on these nodes.
    fn free(&mut self, spread: &[(String, u32)]) -> bool {
        let mut any = false;
        for (node, cpus) in spread {
            if let Some(&i) = self.index.get(node) {
                let (_, free, total) = &mut self.nodes[i];
                *free = free.saturating_add(*cpus).min(*total);
                any = true;
            }
        }
        any
    }

    /// Where a job needing `need` would start now (node index, CPUs), the
    /// largest rooms first; `None` if it cannot.
    fn place(&self, need: &Need) -> Option<Vec<(usize, u32)>> {
        let mut usable: Vec<(u32, usize)> = self
            .nodes
            .iter()
            .enumerate()
            .filter_map(|(i, &(_, free, total))| {
                let room = match need.exclusive {
                    true if free == total => total,
                    true => 0,
                    false => free,
                };
                (room >= need.min_cpus_node).then_some((room, i))
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

    fn take(&mut self, placed: &[(usize, u32)]) {
        for &(i, cpus) in placed {
            self.nodes[i].1 = self.nodes[i].1.saturating_sub(cpus);
        }
    }
}

/// CPUs of a job on each of its nodes.
type NodeCpus = Vec<(String, u32)>;

/// One cloud job to cancel for an HPC job.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Chosen {
    /// The victim's Slurm job id.
    pub victim: String,
    /// The pending HPC job it gives way to.
    pub for_job: String,
    /// The victim's comment, and with the eviction mark (`None`: it has
    /// no interstice marker to mark).
    pub comment: Option<Comment>,
}

/// A victim's comment before and after its eviction mark.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Comment {
    /// As Slurm printed it.
    pub original: String,
    /// With ` evicted_for=<HPC job>` appended.
    pub marked: String,
}

/// A running cloud job as the walk sees it.
struct Running<'a> {
    job: &'a SqueueJob,
    spread: NodeCpus,
    key: Key,
}

/// The victims cancelled at earlier reads, remembered while Slurm still
/// lists them running (their CPUs count as free meanwhile).
#[derive(Debug, Default)]
pub struct Evictor {
    cancelled: HashMap<String, NodeCpus>,
    /// Pending HPC jobs already given victims: while they wait, the walk
    /// stops at them (no second round of victims for a job whose start the
    /// fit misjudged, at every read).
    served: HashSet<String>,
    /// What each pending job needs, once read (`None`: not judged).
    needs: HashMap<String, Option<Need>>,
}

/// A Slurm job id the daemon may name to scancel: `123`, or an array
/// task `123_7`.
fn is_job_id(id: &str) -> bool {
    let mut parts = id.splitn(2, '_');
    let digits =
        |part: Option<&str>| part.is_some_and(|p| !p.is_empty() && p.bytes().all(|b| b.is_ascii_digit()));
    let first = parts.next();
    digits(first) && parts.next().map_or(true, |task| digits(Some(task)))
}

impl Evictor {
    /// Forget victim `id`: its cancellation failed, so its CPUs are not free.
    pub fn forget(&mut self, id: &str) {
        self.cancelled.remove(id);
    }

    /// The cloud jobs to cancel now, in order, for the pending HPC jobs of
    /// `state` at `now_seconds` (module docs); `read_need` reads what a
    /// pending job needs, asked once per job while it waits (`Ok(None)`:
    /// not judged, the job and every job behind it are left to Slurm;
    /// `Err`: unread, the walk stops and the job is asked again at the next
    /// read). The victims are remembered as cancelled.
    pub fn choose(
        &mut self,
        policy: &Policy,
        state: &SlurmState,
        now_seconds: i64,
        mut read_need: impl FnMut(&SqueueJob) -> Result<Option<Need>, ()>,
    ) -> Vec<Chosen> {
        let now = Time::from_secs(now_seconds);
        // An id listed twice is a line some job's comment forged (squeue
        // prints comments as they are, newlines included): neither is
        // trusted, nor an id scancel would not read as one job.
        let mut seen = HashMap::<&str, usize>::new();
        let (mut running_ids, mut pending_ids) = (HashSet::new(), HashSet::new());
        for job in &state.jobs {
            *seen.entry(job.id.as_str()).or_default() += 1;
            match job.state {
                JobStateName::Running => running_ids.insert(job.id.as_str()),
                JobStateName::Pending => pending_ids.insert(job.id.as_str()),
                _ => false,
            };
        }
        let trusted = |job: &SqueueJob| seen[job.id.as_str()] == 1 && is_job_id(&job.id);
        self.cancelled.retain(|id, _| running_ids.contains(id.as_str()));
        self.served.retain(|id| pending_ids.contains(id.as_str()));
        self.needs.retain(|id, _| pending_ids.contains(id.as_str()));
        let pending: Vec<&SqueueJob> = state
            .jobs
            .iter()
            .filter(|job| {
                job.state == JobStateName::Pending
                    && trusted(job)
                    && job.partitions().any(|p| p == policy.partition_hpc)
                    && !job.is_held()
                    && WAITS_FOR_CPUS.contains(&job.reason.as_str())
            })
            .collect();
        // The usual read: no HPC job waits for CPUs, or the first one
        // already got its victims. Nothing to weigh.
        if pending.first().map_or(true, |job| self.served.contains(&job.id)) {
            return Vec::new();
        }
        let mut rooms = Rooms::new(&state.nodes, &policy.partition_hpc);
        for spread in self.cancelled.values() {
            rooms.free(spread);
        }
        let mut victims = self.ranked_victims(policy, state, &trusted, now);

        let mut chosen = Vec::new();
        for job in pending {
            if self.served.contains(&job.id) {
                break;
            }
            let need = match self.needs.get(&job.id) {
                Some(need) => need.clone(),
                None => match read_need(job) {
                    Ok(need) => self.needs.entry(job.id.clone()).or_insert(need).clone(),
                    Err(()) => None,
                },
            };
            let Some(need) = need else { break };
            if let Some(placed) = rooms.place(&need) {
                rooms.take(&placed);
                continue;
            }
            let Some(picked) = pick(&rooms, &victims, &need) else {
                break;
            };
            for &v in &picked {
                rooms.free(&victims[v].spread);
            }
            if let Some(placed) = rooms.place(&need) {
                rooms.take(&placed);
            }
            self.served.insert(job.id.clone());
            // `picked` is in the policy's order: remove from the back, so
            // the indices left stay valid, then take them in order.
            let mut taken: Vec<Running> = picked.iter().rev().map(|&v| victims.remove(v)).collect();
            taken.reverse();
            for victim in taken {
                self.cancelled.insert(victim.job.id.clone(), victim.spread);
                chosen.push(Chosen {
                    victim: victim.job.id.clone(),
                    for_job: job.id.clone(),
                    comment: victim.job.marker.is_some().then(|| Comment {
                        original: victim.job.comment.clone(),
                        marked: mark_evicted(&victim.job.comment, &job.id),
                    }),
                });
            }
        }
        chosen
    }

    /// The running cloud jobs `choose` may cancel (trusted, not cancelled
    /// yet, with a spread over nodes), in the policy's order of victims.
    fn ranked_victims<'a>(
        &self,
        policy: &Policy,
        state: &'a SlurmState,
        trusted: &impl Fn(&SqueueJob) -> bool,
        now: Time,
    ) -> Vec<Running<'a>> {
        let mut cloud: Vec<&SqueueJob> = state
            .jobs
            .iter()
            .filter(|job| {
                job.state == JobStateName::Running
                    && trusted(job)
                    && policy.is_cloud(job)
                    && !self.cancelled.contains_key(&job.id)
            })
            .collect();
        // Admission order: submitted first, then started first.
        cloud.sort_by_key(|job| (job.submit, job.start));
        let candidates: Vec<((&SqueueJob, NodeCpus), Candidate)> = cloud
            .into_iter()
            .enumerate()
            .filter_map(|(order, job)| {
                let candidate = policy.candidate(job, order as u64, now)?;
                Some(((job, spread(job, &job.nodes)?), candidate))
            })
            .collect();
        // Keys end with the admission order: no two are equal.
        let mut victims: Vec<Running<'a>> = Rules::new(&policy.qos)
            .victim_keys(candidates)
            .into_iter()
            .map(|((job, spread), key)| Running { key, job, spread })
            .collect();
        victims.sort_by(|a, b| a.key.cmp(&b.key));
        victims
    }
}

/// The victims (indices into `victims`, in the policy's order) that let a
/// job needing `need` start: taken in order until it fits, then each one
/// whose CPUs turn out unneeded given back (the last taken first); `None`
/// if it cannot start even with every victim gone.
fn pick(rooms: &Rooms, victims: &[Running], need: &Need) -> Option<Vec<usize>> {
    let mut trial = rooms.clone();
    let mut picked = Vec::new();
    for (i, victim) in victims.iter().enumerate() {
        if trial.free(&victim.spread) {
            picked.push(i);
            if trial.place(need).is_some() {
                break;
            }
        }
    }
    trial.place(need)?;
    let fits_without = |picked: &[usize], skip: usize| {
        let mut trial = rooms.clone();
        for &v in picked.iter().filter(|&&v| v != skip) {
            trial.free(&victims[v].spread);
        }
        trial.place(need).is_some()
    };
    for k in (0..picked.len().saturating_sub(1)).rev() {
        if fits_without(&picked, picked[k]) {
            picked.remove(k);
        }
    }
    Some(picked)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::backend::slurm::cluster::parse_nodes;
    use crate::backend::slurm::parse_squeue;
    use interstice_core::qos::ServiceClass;

    const NOW: i64 = 1_800_000_000;

    fn classes() -> ClassTable {
        ClassTable {
            classes: vec![
                ServiceClass::new("gold", 3, 1.0),
                ServiceClass::new("silver", 2, 0.9),
                ServiceClass::new("bronze", 1, 0.5),
            ],
            default: Some(2),
        }
    }

    fn policy(eviction: Eviction, tenants: Vec<Tenant>) -> Policy {
        Policy::new(eviction, Some(&classes()), tenants, "hpc", "cloud")
    }

    /// Three 4-CPU nodes in both partitions, `allocated` CPUs each.
    fn cluster(allocated: [u32; 3], squeue: &str) -> SlurmState {
        let nodes = (0..3)
            .map(|i| {
                format!(
                    "NodeName=n{} CPUAlloc={} CPUTot=4 State=MIXED Partitions=hpc,cloud\n",
                    i + 1,
                    allocated[i]
                )
            })
            .collect::<String>();
        SlurmState {
            jobs: parse_squeue(squeue).unwrap(),
            nodes: parse_nodes(&nodes).unwrap(),
            reservations: Vec::new(),
        }
    }

    /// A running cloud job line: submitted `ago` seconds ago, started at once.
    fn cloud(id: u32, cpus: u32, node: &str, ago: i64, user: &str, class: &str) -> String {
        let (submit, end) = (NOW - ago, NOW + 3600);
        format!(
            "{id}|cloud|RUNNING|{cpus}|2:00:00|{submit}|{submit}|{end}|None|{node}|(null)|{user}|\
             interstice:accepted slo=100 class={class}\n"
        )
    }

    /// Three full 4-CPU nodes running the cloud jobs of the squeue `lines`,
    /// with HPC job 9 pending behind them for four CPUs.
    fn full_with_hpc_waiting(lines: &[String]) -> SlurmState {
        let mut squeue = lines.concat();
        squeue.push_str(&hpc(9, 4, "Resources"));
        cluster([4, 4, 4], &squeue)
    }

    fn hpc(id: u32, cpus: u32, reason: &str) -> String {
        format!("{id}|hpc|PENDING|{cpus}|1:00:00|{NOW}|N/A|N/A|{reason}||(null)|alice|(null)\n")
    }

    fn one_node(cpus: u32) -> Need {
        Need {
            cpus,
            min_nodes: 1,
            max_nodes: Some(1),
            min_cpus_node: 1,
            exclusive: false,
        }
    }

    /// The victims `eviction` (with `tenants`) picks in `state` for an HPC
    /// job needing four CPUs on one node.
    fn victim_for_one_node(eviction: Eviction, tenants: Vec<Tenant>, state: &SlurmState) -> Vec<String> {
        victims(&policy(eviction, tenants), state, one_node(4))
    }

    fn victims(policy: &Policy, state: &SlurmState, need: Need) -> Vec<String> {
        Evictor::default()
            .choose(policy, state, NOW, |_| Ok(Some(need.clone())))
            .into_iter()
            .map(|c| c.victim)
            .collect()
    }

    /// `scontrol -o show job` of a pending job, captured from Slurm 22.05.8,
    /// with `fields` in place of its placement fields.
    fn show_job(name: &str, fields: &str) -> String {
        format!(
            "JobId=6 JobName={name} UserId=root(0) GroupId=root(0) MCS_label=N/A Priority=4294901754 Nice=0 \
             Account=(null) QOS=(null) JobState=PENDING Reason=Resources Dependency=(null) Requeue=1 \
             Partition=hpc AllocNode:Sid=localhost:15448 ReqNodeList=(null) ExcNodeList=(null) NodeList= \
             SchedNodeList=vm {fields} ReqB:S:C:T=0:0:*:* TRES=cpu=4,mem=1000M,node=1,billing=4 \
             MinMemoryNode=0 Features=(null) DelayBoot=00:00:00 Contiguous=0 Licenses=(null) Network=(null) \
             Command=/home/u/run.sh WorkDir=/tmp StdErr=/tmp/slurm-6.out StdIn=/dev/null Power= \n"
        )
    }

    #[test]
    fn needs_are_read_from_scontrol_and_placement_constraints_are_left_to_slurm() {
        let need = |name: &str, fields: &str| parse_need(&show_job(name, fields), "6", name);
        let fields = "NumNodes=1-1 NumCPUs=4 NumTasks=4 CPUs/Task=1 MinCPUsNode=1 OverSubscribe=OK";
        assert_eq!(need("wrap", fields), Some(one_node(4)));
        assert_eq!(
            need("x", "NumNodes=1 NumCPUs=6 MinCPUsNode=2 OverSubscribe=NO"),
            Some(Need {
                cpus: 6,
                min_nodes: 1,
                max_nodes: None,
                min_cpus_node: 2,
                exclusive: true
            })
        );
        assert_eq!(need("x", "NumNodes=2-3 NumCPUs=2").unwrap().max_nodes, Some(3));
        assert_eq!(need("x", "NumNodes=x NumCPUs=2"), None);
        // A name that forges fields reads as it is: only its own line's fields count.
        let forged = "a NumCPUs=12 NumNodes=3-3 OverSubscribe=NO";
        assert_eq!(need(forged, fields), Some(one_node(4)));
        // A name other than the one squeue printed: not this job's line.
        assert_eq!(parse_need(&show_job(forged, fields), "6", "a"), None);
        assert_eq!(parse_need(&show_job("x", fields), "7", "x"), None);
        // Fields after the command are the user's: never read.
        let text = show_job("x", fields).replace("Command=/home/u/run.sh", "Command=/a ReqNodeList=n1");
        assert_eq!(parse_need(&text, "6", "x"), Some(one_node(4)));
        // Where it may run, the daemon does not judge.
        for (from, to) in [
            ("ReqNodeList=(null)", "ReqNodeList=n1"),
            ("ExcNodeList=(null)", "ExcNodeList=n[1-2]"),
            ("Features=(null)", "Features=gpu"),
            ("Licenses=(null)", "Licenses=matlab:1"),
            ("Contiguous=0", "Contiguous=1"),
            ("billing=4", "billing=4,gres/gpu=1"),
        ] {
            let text = show_job("x", fields).replace(from, to);
            assert_eq!(parse_need(&text, "6", "x"), None, "{to}");
        }
        assert_eq!(parse_need("", "6", "x"), None);
    }

    #[test]
    fn each_policy_picks_its_own_victim_for_a_one_node_hpc_job() {
        // One full node each: gold (oldest, alice), silver (bob), bronze (newest, bob).
        let state = full_with_hpc_waiting(&[
            cloud(1, 4, "n1", 300, "alice", "gold"),
            cloud(2, 4, "n2", 200, "bob", "silver"),
            cloud(3, 4, "n3", 100, "bob", "bronze"),
        ]);
        // Priority: the least important class.
        assert_eq!(victim_for_one_node(Eviction::Priority, vec![], &state), ["3"]);
        // Qos-driven: the largest Q. At SLO 1 gold's Q is 0; silver ran 200 s
        // of 200 at 0.9 (Q = 22 s), bronze 100 of 100 at 0.5 (Q = 100 s).
        assert_eq!(victim_for_one_node(Eviction::QosDriven, vec![], &state), ["3"]);
        // Owner-share: bob holds 8 CPUs over a share of 4, alice 4 of 8; of
        // bob's jobs the one that has run least, bronze.
        let tenants = vec![
            Tenant {
                name: "alice".into(),
                share: 8,
            },
            Tenant {
                name: "bob".into(),
                share: 4,
            },
        ];
        assert_eq!(
            victim_for_one_node(Eviction::OwnerShare, tenants.clone(), &state),
            ["3"]
        );
        // A silver job far ahead of its SLO (2000 s run: Q = 222 s) and a
        // bronze one just started (10 s: Q = 10 s): priority still takes
        // bronze, qos-driven the one with most time to spare.
        let state = full_with_hpc_waiting(&[
            cloud(1, 4, "n1", 300, "alice", "gold"),
            cloud(2, 4, "n2", 2000, "bob", "silver"),
            cloud(3, 4, "n3", 10, "bob", "bronze"),
        ]);
        assert_eq!(victim_for_one_node(Eviction::Priority, vec![], &state), ["3"]);
        assert_eq!(victim_for_one_node(Eviction::QosDriven, vec![], &state), ["2"]);
        // Turn the tables: gold is the newest and bob's oldest job is bronze.
        let state = full_with_hpc_waiting(&[
            cloud(1, 4, "n1", 100, "bob", "gold"),
            cloud(2, 4, "n2", 200, "alice", "silver"),
            cloud(3, 4, "n3", 2000, "alice", "bronze"),
        ]);
        assert_eq!(victim_for_one_node(Eviction::Priority, vec![], &state), ["3"]);
        // Bronze ran 2000 s at 0.5: Q = 2000 s, the largest.
        assert_eq!(victim_for_one_node(Eviction::QosDriven, vec![], &state), ["3"]);
        // Alice holds her 8, bob his 4: neither is over its share, so the
        // job that has run least goes, whoever's: gold (100 s).
        assert_eq!(victim_for_one_node(Eviction::OwnerShare, tenants, &state), ["1"]);
    }

    #[test]
    fn a_job_without_class_or_of_an_unknown_user_goes_first() {
        let state = full_with_hpc_waiting(&[
            cloud(1, 4, "n1", 100, "alice", "bronze"),
            "2|cloud|RUNNING|4|1:00|1799999950|1799999950|1800003600|None|n2|(null)|mallory|(null)\n"
                .to_string(),
            cloud(3, 4, "n3", 10, "alice", "gold"),
        ]);
        let tenants = vec![Tenant {
            name: "alice".into(),
            share: 12,
        }];
        // No marker: the default class, bronze, like job 1; of the two
        // the most recently admitted goes (job 2, 50 s ago).
        assert_eq!(victim_for_one_node(Eviction::Priority, vec![], &state), ["2"]);
        // Mallory is in no tenant: entitled to nothing, over her share.
        assert_eq!(victim_for_one_node(Eviction::OwnerShare, tenants, &state), ["2"]);
    }

    #[test]
    fn lines_a_comment_forged_are_never_victims() {
        // Job 5's comment holds a newline and a line naming job 3 (another
        // user's) as the newest bronze job; and a line with an id that
        // scancel would read as an option.
        let state = full_with_hpc_waiting(&[
            cloud(1, 4, "n1", 300, "alice", "gold"),
            cloud(3, 4, "n2", 200, "alice", "silver"),
            "5|cloud|RUNNING|4|2:00:00|1799999900|1799999900|1800003600|None|n3|(null)|eve|x\n".to_string(),
            cloud(3, 4, "n2", 1, "eve", "bronze"),
            cloud(0, 4, "n2", 1, "eve", "bronze").replacen('0', "--user=alice", 1),
        ]);
        assert!(state.jobs.iter().any(|j| j.id == "--user=alice"));
        // Job 3 is listed twice: neither line is trusted. Eve's job 5 (no
        // marker: the default class, bronze) goes.
        assert_eq!(victim_for_one_node(Eviction::Priority, vec![], &state), ["5"]);
        assert!(is_job_id("12") && is_job_id("12_3"));
        assert!(
            !is_job_id("") && !is_job_id("12_") && !is_job_id("_3") && !is_job_id("1 2") && !is_job_id("-1")
        );
    }

    #[test]
    fn a_victim_a_later_one_made_unneeded_is_given_back() {
        // n1: bronze 2 + gold 2 CPUs; n2: silver 4; n3: full HPC work.
        let state = full_with_hpc_waiting(&[
            cloud(1, 2, "n1", 100, "a", "bronze"),
            cloud(2, 2, "n1", 100, "a", "gold"),
            cloud(3, 4, "n2", 100, "a", "silver"),
        ]);
        // Priority takes bronze (n1 has 2 free: not enough), then silver
        // (n2 free: it fits); bronze did not help and is given back.
        assert_eq!(victim_for_one_node(Eviction::Priority, vec![], &state), ["3"]);
        // Allowed on two nodes, the same: bronze frees 2 CPUs, all there
        // is outside n2, so silver must go, and then bronze is not needed.
        let two_nodes = Need {
            max_nodes: Some(2),
            ..one_node(4)
        };
        assert_eq!(
            victims(&policy(Eviction::Priority, vec![]), &state, two_nodes),
            ["3"]
        );
    }

    #[test]
    fn no_eviction_when_the_job_fits_or_hpc_work_blocks_it() {
        let squeue = [cloud(1, 2, "n1", 100, "a", "bronze"), hpc(9, 4, "Resources")].concat();
        // n3 is idle: the job fits without an eviction.
        assert!(victims(
            &policy(Eviction::Priority, vec![]),
            &cluster([2, 4, 0], &squeue),
            one_node(4)
        )
        .is_empty());
        // n2 and n3 full of HPC work, n1 half cloud: 4 CPUs on one node only by evicting job 1.
        assert_eq!(
            victims(
                &policy(Eviction::Priority, vec![]),
                &cluster([2, 4, 4], &squeue),
                one_node(4)
            ),
            ["1"]
        );
        // 8 CPUs on one node never fit: nothing is evicted for it.
        assert!(victims(
            &policy(Eviction::Priority, vec![]),
            &cluster([2, 4, 4], &squeue),
            one_node(8)
        )
        .is_empty());
        // Waiting for a dependency: not for CPUs.
        let waiting = [cloud(1, 2, "n1", 100, "a", "bronze"), hpc(9, 4, "Dependency")].concat();
        assert!(victims(
            &policy(Eviction::Priority, vec![]),
            &cluster([2, 4, 4], &waiting),
            one_node(4)
        )
        .is_empty());
        // A job whose needs the daemon cannot judge stops the walk.
        let chosen = Evictor::default().choose(
            &policy(Eviction::Priority, vec![]),
            &cluster([2, 4, 4], &squeue),
            NOW,
            |_| Ok(None),
        );
        assert!(chosen.is_empty());
    }

    #[test]
    fn pending_jobs_are_served_in_order_and_victims_are_not_chosen_twice() {
        // n1 idle, n2 and n3 each one cloud job; two 4-CPU jobs pending: the
        // first takes n1, the second needs one eviction.
        let squeue = [
            cloud(1, 4, "n2", 100, "a", "bronze"),
            cloud(2, 4, "n3", 50, "a", "bronze"),
            hpc(8, 4, "Resources"),
            hpc(9, 4, "Priority"),
        ]
        .concat();
        let state = cluster([0, 4, 4], &squeue);
        let policy = policy(Eviction::Priority, vec![]);
        let mut evictor = Evictor::default();
        let chosen = evictor.choose(&policy, &state, NOW, |_| Ok(Some(one_node(4))));
        assert_eq!(
            chosen,
            [Chosen {
                victim: "2".into(),
                for_job: "9".into(),
                comment: Some(Comment {
                    original: "interstice:accepted slo=100 class=bronze".into(),
                    marked: "interstice:accepted slo=100 class=bronze evicted_for=9".into(),
                }),
            }]
        );
        // The next read still lists job 2 running (completing) and both HPC
        // jobs pending: nothing more is evicted, and no job's needs are
        // read again.
        let mut asked = 0;
        let again = evictor.choose(&policy, &state, NOW + 1, |_| {
            asked += 1;
            Ok(Some(one_node(4)))
        });
        assert!(again.is_empty());
        assert_eq!(asked, 0, "needs are read once per pending job");
        // Once job 2 is gone from the list it is forgotten.
        let gone = state_without(&state, "2");
        evictor.choose(&policy, &gone, NOW + 2, |_| Ok(None));
        assert!(evictor.cancelled.is_empty());
    }

    fn state_without(state: &SlurmState, id: &str) -> SlurmState {
        SlurmState {
            jobs: state.jobs.iter().filter(|j| j.id != id).cloned().collect(),
            nodes: state.nodes.clone(),
            reservations: Vec::new(),
        }
    }

    #[test]
    fn rooms_place_whole_nodes_for_exclusive_jobs_and_respect_node_counts() {
        let state = cluster([1, 0, 3], "");
        let rooms = Rooms::new(&state.nodes, "hpc");
        let exclusive = Need {
            exclusive: true,
            ..one_node(2)
        };
        assert_eq!(rooms.place(&exclusive), Some(vec![(1, 4)]));
        // 7 CPUs: n2's 4 and n1's 3, on two nodes, not one.
        assert_eq!(rooms.place(&one_node(7)), None);
        let two = Need {
            max_nodes: Some(2),
            ..one_node(7)
        };
        assert_eq!(rooms.place(&two), Some(vec![(1, 4), (0, 3)]));
        // At least three nodes for 3 CPUs: one each.
        let three = Need {
            min_nodes: 3,
            max_nodes: None,
            ..one_node(3)
        };
        assert_eq!(rooms.place(&three), Some(vec![(1, 1), (0, 1), (2, 1)]));
    }
}
