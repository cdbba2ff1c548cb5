//! [`State::mirror`]: the batch system's plan becomes the HPC layer.

use super::{St, State};
use crate::bits::Bits;
use crate::engine::{EngineConfig, EngineError, Scheduling};
use crate::mirror::UnplannedJob;
use crate::mirror::{MirrorOutcome, MirroredPlan, Occupation};
use crate::plan::Profile;
use crate::time::Time;
use std::collections::BTreeSet;

impl State {
    /// Make `plan` the HPC layer at `now` (see [`crate::Engine::mirror`]).
    pub(in crate::engine) fn mirror(
        &mut self,
        cfg: &EngineConfig,
        now: Time,
        plan: &MirroredPlan,
    ) -> Result<MirrorOutcome, EngineError> {
        let refuse = |why: String| Err(EngineError::Mirror(why));
        self.materialize(cfg);
        if cfg.scheduling == Scheduling::SharedQueue {
            return refuse("shared-queue plans cloud jobs with the HPC jobs: mirror under hpc-first".into());
        }
        if !self.hpc_queue.is_empty() || !self.running_hpc.is_empty() {
            return refuse(format!(
                "the engine plans {} HPC job(s) of its own: a mirrored plan replaces HPC planning, so submit \
                 no HPC job to an engine that mirrors one",
                self.hpc_queue.len() + self.running_hpc.len()
            ));
        }
        let width = self.width;
        let windows = |what: &str, list: &[Occupation]| -> Result<Vec<(Bits, Time, Time)>, EngineError> {
            list.iter()
                .enumerate()
                .map(|(i, o)| match o.procs.max() {
                    Some(max) if max >= width => Err(EngineError::Mirror(format!(
                        "{what}[{i}] holds processor {max}; the engine has processors 0..{width}"
                    ))),
                    _ => Ok((Bits::from_procset(width, &o.procs), o.start, o.end)),
                })
                .collect()
        };
        let mut jobs = windows("jobs", &plan.jobs)?;
        let mut blocked = windows("blocked", &plan.blocked)?;
        if let Some(i) = plan
            .unplanned
            .iter()
            .position(|j| j.procs == 0 || j.walltime <= Time::ZERO)
        {
            return refuse(format!("unplanned[{i}] asks for no processor or no time"));
        }
        self.advance(now)?;
        blocked.extend(
            cfg.maintenance
                .iter()
                .filter(|w| w.end() > now)
                .map(|w| (Bits::from_procset(width, &w.procs), w.start, w.end())),
        );
        let unplanned_starts = queue_behind(width, &self.area, &mut jobs, &blocked, &plan.unplanned, now);
        let (mut hpc, overlapping) = Profile::from_windows(width, self.area.clone(), &jobs, blocked);
        hpc.prune(now);
        hpc.version_after(&self.hpc);
        self.hpc = hpc;
        let mut outcome = MirrorOutcome {
            unplanned_starts,
            overlapping,
            ..MirrorOutcome::default()
        };
        outcome.evicted = self.refit_cloud_work(cfg, now);
        self.hpc_changed = false;
        self.hpc_compress = false;
        self.cloud_compress = false;
        Ok(outcome)
    }

    /// The cloud layer again, on a new HPC layer: running cloud jobs keep
    /// their processors where the HPC layer leaves them free (evicted now
    /// where it takes them now, scheduled for eviction where it takes them
    /// later), queued ones are placed again in queue order. Returns how many
    /// were evicted now.
    fn refit_cloud_work(&mut self, cfg: &EngineConfig, now: Time) -> usize {
        self.cloud_layer = None;
        let mut evicted = 0;
        let running: Vec<usize> = self.running_cloud.iter().copied().collect();
        for idx in running {
            let Some(bits) = self.jobs[idx].res.as_ref().map(|r| r.1.clone()) else {
                continue;
            };
            // A job cut short by HPC work the old layer had gets its whole run back first.
            let doom = std::mem::replace(&mut self.jobs[idx].evict_at, Time::INFINITY);
            if !doom.is_infinite() {
                self.jobs[idx].marks.doom_cause = None;
                self.dooms.remove(&(doom, idx));
                let start = self.records[idx].start.unwrap_or(now);
                self.jobs[idx].occ_end = start + self.job(idx).walltime;
            }
            let until = self.jobs[idx].occ_end;
            if until <= now {
                continue; // overdue: held again by the next pass
            }
            match self.hpc.first_unblocked_conflict(&bits, now, until) {
                Some(at) if at <= now => {
                    // Not held in the rebuilt layer: the eviction must free
                    // nothing there (the plan's job holds those processors).
                    self.jobs[idx].occ_end = now;
                    self.evict(idx, now, None);
                    evicted += 1;
                }
                conflict => {
                    let end = conflict.unwrap_or(until);
                    self.cloud_mut().reserve(&bits, now, end);
                    if let Some(at) = conflict {
                        self.jobs[idx].occ_end = at;
                        self.jobs[idx].evict_at = at;
                        self.dooms.insert((at, idx));
                    }
                }
            }
        }
        let queued: Vec<usize> = self.cloud_queue.iter().map(|k| k.2).collect();
        for idx in queued {
            if let Some((s, _)) = self.jobs[idx].res.take() {
                self.cloud_timers.remove(&(s, idx));
            }
            if self.jobs[idx].st == St::Queued {
                self.displaced.push(idx);
            }
        }
        self.replace_displaced(cfg, now);
        evicted
    }
}

/// Place `unplanned` in order behind the batch system's plan, adding each
/// to `jobs`; returns their starts (`None`: more processors than are ever
/// free). Each goes on the processors it may use that are free soonest for
/// good (after the last job of the plan holding them; among equals outside
/// the convergence area first, as HPC work prefers, then lowest ids), no earlier
/// than its `not_before` and `now`, and clear of the blocked windows: what a
/// first-come-first-served queue behind the plan does. They are not
/// backfilled into the plan's holes: the batch system's own backfill left
/// them out of those. Processors blocked for good are never used.
///
/// Cost: `O(Σ|procs| + U·(k log m + k·B))` for `U` jobs of `k` processors
/// among `m`, and `B` blocked windows.
fn queue_behind(
    width: u32,
    area: &Bits,
    jobs: &mut Vec<(Bits, Time, Time)>,
    blocked: &[(Bits, Time, Time)],
    unplanned: &[UnplannedJob],
    now: Time,
) -> Vec<Option<Time>> {
    if unplanned.is_empty() {
        return Vec::new();
    }
    let mut free_from = vec![now; width as usize];
    for (bits, _, end) in jobs.iter().chain(blocked.iter().filter(|w| w.2.is_infinite())) {
        for proc in bits.iter() {
            let at = &mut free_from[proc as usize];
            *at = (*at).max(*end);
        }
    }
    // (free for good from, in the area, processor): HPC work prefers the
    // processors outside the convergence area.
    let key = |at: Time, proc: u32| (at, area.get(proc), proc);
    let mut soonest: BTreeSet<(Time, bool, u32)> = free_from
        .iter()
        .enumerate()
        .filter(|(_, at)| !at.is_infinite())
        .map(|(proc, &at)| key(at, proc as u32))
        .collect();
    // Only windows that end can be waited for; those that never end were
    // taken out of `soonest` above.
    let ending: Vec<&(Bits, Time, Time)> = blocked.iter().filter(|w| !w.2.is_infinite()).collect();
    let mut in_windows = Bits::empty(width);
    for (bits, _, _) in &ending {
        in_windows.or_assign(bits);
    }
    let mut starts = Vec::with_capacity(unplanned.len());
    for job in unplanned {
        let within = job.within.as_ref().map(|set| Bits::from_procset(width, set));
        let may_use = |proc: u32| within.as_ref().map_or(true, |w| w.get(proc));
        // The soonest free it may use, passing over those a blocked window
        // holds during the run that would start then: those are free for
        // this queue only after that window (later jobs come after this one
        // anyway).
        let not_before = job.not_before.max(now);
        let mut chosen: Vec<(Time, bool, u32)> = Vec::with_capacity(job.procs as usize);
        let mut passed: Vec<((Time, bool, u32), Time)> = Vec::new();
        let mut start = not_before;
        for &entry in soonest.iter().filter(|e| may_use(e.2)) {
            if chosen.len() == job.procs as usize {
                break;
            }
            let (at, _, proc) = entry;
            let from = start.max(at);
            let window_end = if in_windows.get(proc) {
                ending
                    .iter()
                    .filter(|(b, s, e)| *s < from + job.walltime && from < *e && b.get(proc))
                    .map(|w| w.2)
                    .max()
            } else {
                None
            };
            match window_end {
                Some(end) => passed.push((entry, end)),
                None => {
                    chosen.push(entry);
                    start = from;
                }
            }
        }
        for (entry, end) in passed {
            soonest.remove(&entry);
            soonest.insert(key(end, entry.2));
        }
        if chosen.len() < job.procs as usize {
            // Too few clear of the windows before the end: the soonest free now.
            chosen = soonest
                .iter()
                .filter(|e| may_use(e.2))
                .take(job.procs as usize)
                .copied()
                .collect();
            if chosen.len() < job.procs as usize {
                starts.push(None); // more than it may ever use
                continue;
            }
            start = chosen.iter().map(|c| c.0).fold(not_before, Time::max);
        }
        for entry in &chosen {
            soonest.remove(entry);
        }
        let mut bits = Bits::empty(width);
        for &(_, _, proc) in &chosen {
            bits.set(proc);
        }
        // Clear of the blocked windows: after any that overlaps, until none does.
        while let Some(end) = ending
            .iter()
            .filter(|(b, s, e)| *s < start + job.walltime && start < *e && b.and_count(&bits) > 0)
            .map(|w| w.2)
            .max()
        {
            start = end;
        }
        let end = start + job.walltime;
        soonest.extend(chosen.iter().map(|&(_, _, proc)| key(end, proc)));
        jobs.push((bits, start, end));
        starts.push(Some(start));
    }
    starts
}

#[cfg(test)]
mod tests {
    use crate::engine::{Decision, Engine, EngineConfig, EngineError, Policy};
    use crate::job::{Job, JobId, JobKind};
    use crate::mirror::{MirroredPlan, Occupation, UnplannedJob};
    use crate::procset::ProcSet;
    use crate::time::Time;

    fn t(s: i64) -> Time {
        Time::from_secs(s)
    }

    fn busy(lo: u32, hi: u32, s: i64, e: i64) -> Occupation {
        Occupation {
            procs: ProcSet::range(lo, hi),
            start: t(s),
            end: t(e),
        }
    }

    fn unplanned(procs: u32, walltime: i64, not_before: i64) -> UnplannedJob {
        UnplannedJob {
            procs,
            walltime: t(walltime),
            not_before: t(not_before),
            within: None,
        }
    }

    fn cloud(id: u64, procs: u32, walltime: i64, submit: i64) -> Job {
        Job {
            id: JobId(id),
            submit: t(submit),
            walltime: t(walltime),
            walltime_enforced: true,
            runtime: None,
            procs,
            kind: JobKind::Cloud,
            slo: Some(t(1000)),
        }
    }

    fn engine() -> Engine {
        Engine::new(EngineConfig::new(4, Policy::Conservative)).unwrap()
    }

    #[test]
    fn predictions_follow_the_mirrored_plan_not_the_engines_policy() {
        let mut e = engine();
        // Processors 0-1 busy until 100, 2-3 from 50 to 300 (a planned start).
        let plan = MirroredPlan {
            jobs: vec![busy(0, 1, 0, 100), busy(2, 3, 50, 300)],
            ..MirroredPlan::default()
        };
        let outcome = e.mirror(t(10), &plan).unwrap();
        assert_eq!(outcome.overlapping, 0);
        // Two processors for 40 s fit now (2-3 until 50); for 60 s only at 100.
        assert_eq!(e.predict(2, t(40), None, t(10)).start, Some(t(10)));
        assert_eq!(e.predict(2, t(60), None, t(10)).start, Some(t(100)));
        assert_eq!(e.predict(4, t(60), None, t(10)).start, Some(t(300)));
        // A new plan replaces the old one wholesale.
        e.mirror(t(20), &MirroredPlan::default()).unwrap();
        assert_eq!(e.predict(4, t(60), None, t(20)).start, Some(t(20)));
    }

    #[test]
    fn unplanned_jobs_go_after_the_plan_in_order_and_blocked_windows_hold() {
        let mut e = engine();
        let plan = MirroredPlan {
            jobs: vec![busy(0, 3, 0, 100)],
            blocked: vec![busy(0, 1, 200, 400)],
            unplanned: vec![unplanned(4, 50, 0), unplanned(2, 500, 0), unplanned(5, 1, 0)],
        };
        let outcome = e.mirror(t(0), &plan).unwrap();
        assert_eq!(outcome.unplanned_starts, vec![Some(t(100)), Some(t(150)), None]);
        // The second job passes over 0-1 (blocked during its run) for 2-3.
        // 150..650 takes two processors (2-3, away from the blocked 0-1), so
        // 0-1 are free 150..200 only: 2 processors for 60 s fit at 400.
        assert_eq!(e.predict(2, t(60), None, t(0)).start, Some(t(400)));
        assert_eq!(e.predict(2, t(50), None, t(0)).start, Some(t(150)));
    }

    #[test]
    fn unplanned_jobs_queue_behind_the_plan_not_in_its_holes() {
        let mut e = engine();
        // A hole of all four processors over [100, 200): the batch system's
        // backfill left the unplanned jobs out of it.
        let plan = MirroredPlan {
            jobs: vec![busy(0, 3, 0, 100), busy(0, 3, 200, 300)],
            unplanned: vec![unplanned(4, 50, 0), unplanned(1, 10, 1000)],
            ..MirroredPlan::default()
        };
        let outcome = e.mirror(t(0), &plan).unwrap();
        assert_eq!(outcome.unplanned_starts, vec![Some(t(300)), Some(t(1000))]);
        assert_eq!(
            e.predict(4, t(100), None, t(0)).start,
            Some(t(100)),
            "the hole stays free"
        );
    }

    #[test]
    fn unplanned_jobs_keep_to_their_partitions_and_out_of_the_area_first() {
        let mut config = EngineConfig::new(4, Policy::Conservative);
        config.conv_procs = 2;
        let mut e = Engine::new(config).unwrap();
        let within = |lo, hi| UnplannedJob {
            within: Some(ProcSet::range(lo, hi)),
            ..unplanned(1, 50, 0)
        };
        let plan = MirroredPlan {
            unplanned: vec![
                unplanned(2, 100, 0),
                within(0, 1),
                UnplannedJob {
                    procs: 3,
                    ..within(2, 3)
                },
            ],
            ..MirroredPlan::default()
        };
        let outcome = e.mirror(t(0), &plan).unwrap();
        assert_eq!(outcome.unplanned_starts, vec![Some(t(0)), Some(t(0)), None]);
        // The first went outside the area (2-3), the second on the area's 0.
        assert_eq!(e.predict(1, t(60), None, t(0)).start, Some(t(0)));
        assert_eq!(e.predict(2, t(60), None, t(0)).start, Some(t(50)));
    }

    #[test]
    fn an_admitted_cloud_job_holds_its_slot_until_the_next_plan() {
        let mut e = engine();
        let plan = MirroredPlan {
            jobs: vec![busy(0, 1, 0, 100)],
            ..MirroredPlan::default()
        };
        e.mirror(t(0), &plan).unwrap();
        assert!(!e.submit(cloud(1, 2, 60, 1)).unwrap().is_rejected());
        // The hole 2-3 is held: the next job of the same shape waits for it.
        assert_eq!(e.predict(2, t(60), None, t(1)).start, Some(t(61)));
        // Mirrored again (the plan unchanged), the queued job is placed
        // again from now, still holding the hole.
        e.mirror(t(2), &plan).unwrap();
        assert_eq!(e.predict(2, t(60), None, t(2)).start, Some(t(62)));
        let decisions = e.schedule(t(2));
        assert!(
            matches!(&decisions[..], [Decision::Start { id: JobId(1), procs }] if *procs == ProcSet::range(2, 3)),
            "{decisions:?}"
        );
    }

    #[test]
    fn plan_work_on_a_running_cloud_jobs_processors_evicts_it() {
        let mut e = engine();
        e.mirror(t(0), &MirroredPlan::default()).unwrap();
        e.submit(cloud(1, 2, 600, 0)).unwrap();
        e.submit(cloud(2, 2, 600, 0)).unwrap();
        assert_eq!(e.schedule(t(0)).len(), 2);
        let procs_of = |e: &Engine, id: u64| match e.job_state(JobId(id)) {
            Some(crate::engine::JobState::Running { procs, .. }) => procs,
            other => panic!("{other:?}"),
        };
        let (first, second) = (procs_of(&e, 1), procs_of(&e, 2));
        // The batch system starts a job on job 1's processors now, and plans
        // one on job 2's at 300.
        let second_lo = second.iter().next().unwrap();
        let plan = MirroredPlan {
            jobs: vec![
                Occupation {
                    procs: first.clone(),
                    start: t(10),
                    end: t(500),
                },
                Occupation {
                    procs: ProcSet::range(second_lo, second_lo),
                    start: t(300),
                    end: t(400),
                },
            ],
            ..MirroredPlan::default()
        };
        let outcome = e.mirror(t(10), &plan).unwrap();
        assert_eq!(outcome.evicted, 1);
        assert_eq!(e.schedule(t(10)), vec![Decision::Evict { id: JobId(1) }]);
        assert_eq!(
            e.next_wakeup(),
            Some(t(300)),
            "job 2 is evicted when the planned job starts"
        );
        assert_eq!(e.schedule(t(300)), vec![Decision::Evict { id: JobId(2) }]);
    }

    #[test]
    fn a_cloud_job_the_plan_evicts_leaves_the_plans_processors_busy() {
        let mut e = engine();
        e.mirror(t(0), &MirroredPlan::default()).unwrap();
        e.submit(cloud(1, 2, 600, 0)).unwrap();
        assert_eq!(e.schedule(t(0)).len(), 1);
        let taken = match e.job_state(JobId(1)) {
            Some(crate::engine::JobState::Running { procs, .. }) => procs,
            other => panic!("{other:?}"),
        };
        // A job needing the whole machine waits behind job 1.
        e.submit(cloud(2, 4, 60, 5)).unwrap();
        let plan = MirroredPlan {
            jobs: vec![Occupation {
                procs: taken,
                start: t(10),
                end: t(500),
            }],
            ..MirroredPlan::default()
        };
        assert_eq!(e.mirror(t(10), &plan).unwrap().evicted, 1);
        assert_eq!(
            e.schedule(t(10)),
            vec![Decision::Evict { id: JobId(1) }],
            "job 2 must not start on the processors the plan holds until 500"
        );
        assert_eq!(e.predict(4, t(60), None, t(10)).start, Some(t(560)));
    }

    #[test]
    fn what_cannot_be_mirrored_is_refused_with_the_reason() {
        let mut e = engine();
        let out_of_range = MirroredPlan {
            jobs: vec![busy(3, 4, 0, 10)],
            ..MirroredPlan::default()
        };
        let err = e.mirror(t(0), &out_of_range).unwrap_err();
        assert_eq!(
            err,
            EngineError::Mirror("jobs[0] holds processor 4; the engine has processors 0..4".into())
        );
        let mut hpc = cloud(9, 1, 10, 0);
        hpc.kind = JobKind::Hpc;
        e.submit(hpc).unwrap();
        assert!(
            matches!(e.mirror(t(0), &MirroredPlan::default()), Err(EngineError::Mirror(why)) if why.contains("HPC job"))
        );
        // Overlapping jobs are kept and counted, not refused.
        let mut e = engine();
        let double = MirroredPlan {
            jobs: vec![busy(0, 1, 0, 10), busy(1, 2, 5, 10)],
            ..MirroredPlan::default()
        };
        assert_eq!(e.mirror(t(0), &double).unwrap().overlapping, 1);
        assert_eq!(e.predict(2, t(6), None, t(0)).start, Some(t(10)));
    }
}
