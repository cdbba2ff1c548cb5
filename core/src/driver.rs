//! [`Driver`]: the one owner of the rules for driving an [`Engine`] through
//! time, shared by every shell (the built-in simulator, the Batsim adapter,
//! the daemon, the tests).
//!
//! A shell owns a clock and an event source; the driver owns *when a pass is
//! due* and *how many passes one instant may take*:
//!
//! - **Events** ([`Driver::submit`], [`Driver::job_ended`],
//!   [`Driver::cancel`]) are forwarded to the engine and remembered until
//!   the next pass ([`Driver::events_pending`]): a shell passes after them.
//! - **Wake-ups.** Without an event, a pass is due when the engine's
//!   [`Engine::next_wakeup`] has come ([`Driver::next_pass`],
//!   [`Driver::due`]). A wake-up at or before the last pass is due again
//!   only if that pass decided something and every eviction *it* decided
//!   has been acknowledged (`job_ended` or `cancel` of the evicted job; a
//!   shell that learns of kills later passes with that event): the
//!   pass then runs again *at the last pass's time* (a re-queued evicted
//!   job, a start freed by the previous decisions), as Batsim calls the
//!   scheduler again after `JOB_KILLED`. A wake-up at or before a pass that
//!   decided nothing is not due again: nothing changed since. A wake-up
//!   after the last pass is due at its own time, so a shell whose clock has
//!   moved past it (a Batsim message's `now`) passes at the wake-up's time.
//! - **Livelock.** One instant takes at most
//!   [`Driver::MAX_PASSES_PER_INSTANT`] passes; the next one is refused
//!   with a [`Livelock`].
//!
//! Carrying out the decisions (booking ends, killing processes, writing
//! replies) and acknowledging evictions stay with the shell: the simulator
//! acknowledges an eviction right after the pass, the Batsim adapter when
//! Batsim reports the kill, the daemon when the process is gone.

use crate::engine::{Decision, EndReason, Engine, EngineError, Submitted};
use crate::job::{Job, JobId};
use crate::metrics::JobRecord;
use crate::qos::policy::{Rules, RunningCloud};
use crate::qos::QosConfig;
use crate::time::Time;
use std::fmt;

/// The engine kept deciding at one instant without time advancing.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Livelock {
    /// The instant.
    pub time: Time,
    /// Passes made there.
    pub passes: u32,
}

impl fmt::Display for Livelock {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "the engine made decisions in {} passes at t={}s without time advancing",
            self.passes, self.time
        )
    }
}

impl std::error::Error for Livelock {}

/// The last pass.
#[derive(Clone, Debug)]
struct LastPass {
    time: Time,
    /// It decided something.
    productive: bool,
    /// Passes made at `time` so far.
    passes: u32,
    /// Its evictions not acknowledged yet.
    unacknowledged: Vec<JobId>,
}

/// An [`Engine`] with the rules of when to call [`Engine::schedule`].
#[derive(Debug)]
pub struct Driver {
    engine: Engine,
    last_pass: Option<LastPass>,
    /// An event was forwarded since the last pass.
    events_pending: bool,
    /// Events forwarded so far.
    events: u64,
}

impl Driver {
    /// Passes at one instant after which [`Driver::pass`] refuses another.
    pub const MAX_PASSES_PER_INSTANT: u32 = 10_000;

    /// Drive `engine` (configured as the shell wants it: cloud window,
    /// hand-over of finished jobs…).
    pub fn new(engine: Engine) -> Driver {
        Driver {
            engine,
            last_pass: None,
            events_pending: false,
            events: 0,
        }
    }

    /// The engine, for queries (`predict`, `slots`, `records`, `job_state`…).
    pub fn engine(&self) -> &Engine {
        &self.engine
    }

    /// [`Engine::rank_victims`]: not an event. Ranks are read wherever an
    /// HPC start is decided: in a pass, and when a cloud job's submission
    /// brings the plan up to date first (rank before submitting one).
    pub fn rank_victims(
        &mut self,
        ranks: impl IntoIterator<Item = (crate::job::JobId, crate::qos::policy::Key)>,
    ) {
        self.engine.rank_victims(ranks);
    }

    /// Rank the engine's running cloud jobs ([`Engine::running_cloud`]) by
    /// `cfg`'s victim order at `now` ([`Rules::victim_keys`], each tenant's
    /// load counted from these jobs), each as the shell knows it (`of`;
    /// `None`: left unranked, so it gives way first), and hand the ranks to
    /// [`Driver::rank_victims`]. The one ranking of a shell whose engine
    /// evicts by an eviction policy: the daemon's actor and the Batsim
    /// adapter call it before every pass and before submitting a cloud job.
    pub fn rank_running_cloud(
        &mut self,
        cfg: &QosConfig,
        now: Time,
        mut of: impl FnMut(JobId) -> Option<RunningCloud>,
    ) {
        let running: Vec<_> = self
            .engine
            .running_cloud()
            .filter_map(|(id, start)| Some((id, of(id)?.candidate(start, now, cfg))))
            .collect();
        let ranks = Rules::new(cfg).victim_keys(running);
        self.engine.rank_victims(ranks);
    }

    /// The engine back (e.g. for its final records).
    pub fn into_engine(self) -> Engine {
        self.engine
    }

    /// [`Engine::submit`], as an event.
    pub fn submit(&mut self, job: Job) -> Result<Submitted, EngineError> {
        self.event();
        self.engine.submit(job)
    }

    /// [`Engine::submit_as`], as an event.
    pub fn submit_as(&mut self, job: Job, owner: u32) -> Result<Submitted, EngineError> {
        self.event();
        self.engine.submit_as(job, owner)
    }

    /// [`Engine::job_ended`], as an event; it acknowledges an eviction of the job.
    pub fn job_ended(&mut self, id: JobId, now: Time, reason: EndReason) -> Result<(), EngineError> {
        self.event();
        self.acknowledge(id);
        self.engine.job_ended(id, now, reason)
    }

    /// [`Engine::cancel`], as an event; it acknowledges an eviction of the job.
    pub fn cancel(&mut self, id: JobId, now: Time) -> Result<(), EngineError> {
        self.event();
        self.acknowledge(id);
        self.engine.cancel(id, now)
    }

    /// [`Engine::started_on`], as an event.
    pub fn started_on(
        &mut self,
        id: JobId,
        procs: &crate::procset::ProcSet,
        now: Time,
    ) -> Result<(), EngineError> {
        self.event();
        self.engine.started_on(id, procs, now)
    }

    /// [`Engine::resize_area`], as an event.
    pub fn resize_area(
        &mut self,
        conv_procs: u32,
        now: Time,
    ) -> Result<crate::engine::AreaResize, EngineError> {
        self.event();
        self.engine.resize_area(conv_procs, now)
    }

    /// [`Engine::mirror`], as an event.
    pub fn mirror(
        &mut self,
        now: Time,
        plan: &crate::mirror::MirroredPlan,
    ) -> Result<crate::mirror::MirrorOutcome, EngineError> {
        self.event();
        self.engine.mirror(now, plan)
    }

    /// [`Engine::take_finished`].
    pub fn take_finished(&mut self) -> impl Iterator<Item = Box<JobRecord>> + '_ {
        self.engine.take_finished()
    }

    /// An event was forwarded since the last pass.
    pub fn events_pending(&self) -> bool {
        self.events_pending
    }

    /// How many events were forwarded so far.
    pub fn events(&self) -> u64 {
        self.events
    }

    /// Time of the last pass.
    pub fn last_pass(&self) -> Option<Time> {
        self.last_pass.as_ref().map(|last| last.time)
    }

    /// When the engine's wake-up calls for a pass if no event comes before
    /// (see the module docs): `None` if it does not.
    pub fn next_pass(&self) -> Option<Time> {
        let wakeup = self.engine.next_wakeup()?;
        match &self.last_pass {
            Some(last) if wakeup <= last.time => {
                (last.productive && last.unacknowledged.is_empty()).then_some(last.time)
            }
            _ => Some(wakeup),
        }
    }

    /// [`Driver::next_pass`] if it has come by `now`.
    pub fn due(&self, now: Time) -> Option<Time> {
        self.next_pass().filter(|&time| time <= now)
    }

    /// Run one pass at `now` ([`Engine::schedule`]) and return its decisions.
    ///
    /// Fails without calling the engine when `now` already had
    /// [`Driver::MAX_PASSES_PER_INSTANT`] passes.
    pub fn pass(&mut self, now: Time) -> Result<Vec<Decision>, Livelock> {
        let passes = match &self.last_pass {
            Some(last) if last.time == now => last.passes,
            _ => 0,
        };
        if passes >= Self::MAX_PASSES_PER_INSTANT {
            return Err(Livelock { time: now, passes });
        }
        let decisions = self.engine.schedule(now);
        let unacknowledged = decisions
            .iter()
            .filter_map(|decision| match decision {
                Decision::Evict { id } => Some(*id),
                _ => None,
            })
            .collect();
        self.last_pass = Some(LastPass {
            time: now,
            productive: !decisions.is_empty(),
            passes: passes + 1,
            unacknowledged,
        });
        self.events_pending = false;
        Ok(decisions)
    }

    fn event(&mut self) {
        self.events_pending = true;
        self.events += 1;
    }

    fn acknowledge(&mut self, id: JobId) {
        if let Some(last) = &mut self.last_pass {
            last.unacknowledged.retain(|&evicted| evicted != id);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::{EngineConfig, Policy};
    use crate::job::JobKind;

    fn hpc(id: u64, walltime: i64) -> Job {
        Job {
            id: JobId(id),
            submit: Time::ZERO,
            walltime: Time::from_secs(walltime),
            walltime_enforced: true,
            runtime: None,
            procs: 4,
            kind: JobKind::Hpc,
            slo: None,
        }
    }

    fn driver() -> Driver {
        Driver::new(Engine::new(EngineConfig::new(4, Policy::Conservative)).expect("valid config"))
    }

    #[test]
    fn one_instant_takes_a_bounded_number_of_passes() {
        let mut driver = driver();
        for _ in 0..Driver::MAX_PASSES_PER_INSTANT {
            driver.pass(Time::ZERO).expect("below the bound");
        }
        let livelock = driver.pass(Time::ZERO).unwrap_err();
        assert_eq!(
            livelock,
            Livelock {
                time: Time::ZERO,
                passes: Driver::MAX_PASSES_PER_INSTANT
            }
        );
        assert!(
            driver.pass(Time::from_secs(1)).is_ok(),
            "a new instant starts a new count"
        );
    }

    #[test]
    fn a_wakeup_is_due_at_its_time_and_events_are_pending_until_a_pass() {
        let mut driver = driver();
        driver.submit(hpc(1, 100)).expect("submit");
        driver.submit(hpc(2, 10)).expect("submit");
        assert!(driver.events_pending());
        assert_eq!(driver.events(), 2);
        let decisions = driver.pass(Time::ZERO).expect("pass");
        assert_eq!(decisions.len(), 1);
        assert!(!driver.events_pending());
        // Job 2 is reserved when job 1's walltime ends.
        assert_eq!(driver.next_pass(), Some(Time::from_secs(100)));
        assert_eq!(driver.due(Time::from_secs(50)), None);
        assert_eq!(driver.due(Time::from_secs(150)), Some(Time::from_secs(100)));
        driver
            .job_ended(JobId(1), Time::from_secs(50), EndReason::Completed)
            .expect("end");
        assert!(driver.events_pending());
        let decisions = driver.pass(Time::from_secs(50)).expect("pass");
        assert!(matches!(&decisions[..], [Decision::Start { id: JobId(2), .. }]));
        assert_eq!(driver.last_pass(), Some(Time::from_secs(50)));
    }
}
