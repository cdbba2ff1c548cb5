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
//! nodes), largest rooms first, and, when Slurm counts memory, its memory
//! on each node it uses (`MinMemoryNode`, or `MinMemoryCPU` × its CPUs
//! there) is free there too ([`fit`], the one home of the rule); a cloud
//! job's CPUs are spread over its nodes evenly ([`super::mirror::spread`])
//! and its memory in proportion. So victims are taken until both the CPUs
//! and the memory fit, and a victim is given back only if the job still
//! fits, memory included, without it. A job that fits without an
//! eviction is counted on the nodes with most room, so the next pending job
//! does not count on the same CPUs. A victim cancelled at an earlier read
//! whose CPUs Slurm still holds (listed running or completing) counts as
//! gone and is not chosen again.

use super::read::SlurmState;
use super::squeue::{JobStateName, SqueueJob};
use crate::classes::ClassTable;
use crate::config::SlurmEviction;
use interstice_api::slurm::{mark_evicted, partition_list};
use interstice_core::qos::policy::{Candidate, Key, Rules};
use interstice_core::qos::{Eviction, Ledger, QosConfig, Request, ServiceClass, Tenant};
use interstice_core::Time;
use std::collections::{HashMap, HashSet};

mod fit;
use fit::{holding, Held, Rooms};
pub use fit::{parse_need, Need};

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

/// What a job holds on each of its nodes.
type Holding = Vec<Held>;

/// A running cloud job as the walk sees it.
struct Running<'a> {
    job: &'a SqueueJob,
    spread: Holding,
    key: Key,
}

/// The victims cancelled at earlier reads, remembered while Slurm still
/// lists them running (their CPUs count as free meanwhile).
#[derive(Debug, Default)]
pub struct Evictor {
    cancelled: HashMap<String, Holding>,
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
                rooms.take(&placed, &need);
                continue;
            }
            let Some(picked) = pick(&rooms, &victims, &need) else {
                break;
            };
            for &v in &picked {
                rooms.free(&victims[v].spread);
            }
            if let Some(placed) = rooms.place(&need) {
                rooms.take(&placed, &need);
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
        let candidates: Vec<((&SqueueJob, Holding), Candidate)> = cloud
            .into_iter()
            .enumerate()
            .filter_map(|(order, job)| {
                let candidate = policy.candidate(job, order as u64, now)?;
                Some(((job, holding(job)?), candidate))
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
/// job needing `need` start: taken in order until it fits (CPUs and, where
/// Slurm counts it, memory: [`Rooms::place`]), then each one without which
/// it still fits given back (the last taken first; one whose memory is
/// needed stays); `None` if it cannot start even with every victim gone.
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
mod tests;
