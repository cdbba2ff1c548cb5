//! When the adapter decides: a message's calls and notifications, the wait
//! for ends Batsim still has to report, the arrivals, injections and
//! scheduling passes of a message, and the `CALL_ME_LATER`s that bring the
//! next ones.

use super::{Notices, Running, SessionError, CALL_MARGIN};
use crate::protocol::messages::{EventKind, Message, Outgoing};
use interstice_core::{Decision, Time};

impl Running {
    /// A message's `REQUESTED_CALL`s (every call requested up to `now` is
    /// served) and notifications.
    pub(super) fn calls_and_notifications(&mut self, message: &Message, now: Time) -> Notices {
        let mut notices = Notices::default();
        for event in &message.events {
            match &event.kind {
                EventKind::RequestedCall => {
                    let due: Vec<Time> = self.requested_calls.range(..=now).copied().collect();
                    for t in due {
                        self.requested_calls.remove(&t);
                    }
                }
                EventKind::Notify { notify_type } if notify_type == "no_more_static_job_to_submit" => {
                    notices.no_more_static_jobs = true;
                }
                // Other notifications (`no_more_external_event_to_occur`, …) change nothing here.
                EventKind::Notify { .. } => {}
                EventKind::SimulationEnds => notices.simulation_ends = true,
                _ => {}
            }
        }
        notices
    }

    /// The decisions of a message at `now` (`events_before`: the driver's
    /// event count before the message's events were applied).
    ///
    /// A run that has ended by now in Batsim (its `delay` or walltime
    /// has passed) but whose end Batsim has not reported yet: the report
    /// comes in a later message, of this instant (Batsim splits an
    /// instant's events over several messages) or microseconds later
    /// (SimGrid's clock rounding, latencies). Arrivals, injections and
    /// passes wait for it, so that every end of an instant is applied
    /// before its arrivals, as in the built-in simulator. The engine holds
    /// an overdue job's processors meanwhile.
    ///
    /// The engine's clock follows the events (an end reported within
    /// `CLOCK_ROUNDING` after its expected time counts at that time), not
    /// the message's `now`: SimGrid's clock drifts by microseconds from
    /// the exact times, and a decision must not change because of that.
    pub(super) fn decide(
        &mut self,
        now: Time,
        events_before: u64,
        no_more_static_jobs: bool,
        reply: &mut Vec<Outgoing>,
    ) -> Result<(), SessionError> {
        let waiting_for_ends = self.expected_ends.first().is_some_and(|&(end, _)| end <= now);
        if !waiting_for_ends {
            self.apply_arrivals(reply)?;
            // Cloud injection (every injection time up to the last static
            // submission, like `swf inject` over the trace's span).
            self.inject_due(now, reply).map_err(SessionError::Scheduling)?;
        }
        if no_more_static_jobs {
            self.static_done = true;
        }
        // Schedule when this message brought an event, or when a pass is due
        // (the driver's rule, as in the simulator): a message that only
        // acknowledges a kill or brings an outdated call changes nothing. A
        // pass due at an earlier time than `now` runs at that time.
        let due = self.driver.due(now).filter(|_| !waiting_for_ends);
        let events = self.driver.events() > events_before && !waiting_for_ends;
        let passes_started = std::time::Instant::now();
        if events || due.is_some() {
            self.passes(now, due, reply)?;
        }
        self.schedule_time += passes_started.elapsed();
        Ok(())
    }

    /// Scheduling passes, the first at the engine's clock moved to `due`
    /// (if a pass is due), then as long as the driver says a pass is due by
    /// `now`; a pass that evicts is the message's last.
    fn passes(
        &mut self,
        now: Time,
        mut due: Option<Time>,
        reply: &mut Vec<Outgoing>,
    ) -> Result<(), SessionError> {
        loop {
            if let Some(t) = due {
                self.clock = self.clock.max(t);
            }
            self.rank_victims();
            let decisions = self.driver.pass(self.clock).map_err(SessionError::Livelock)?;
            // After an eviction, the next pass comes with Batsim's report of
            // the kill (as the simulator passes again after acknowledging it).
            let evicted = decisions.iter().any(|d| matches!(d, Decision::Evict { .. }));
            self.apply(decisions, reply).map_err(SessionError::Scheduling)?;
            if evicted {
                return Ok(());
            }
            due = self.driver.due(now);
            if due.is_none() {
                return Ok(());
            }
        }
    }

    /// A `CALL_ME_LATER` for the engine's next wake-up and the next cloud
    /// injection, each unless already requested.
    ///
    /// Batsim reads the reply some time after `now` (its transfer takes
    /// longer the larger it is) and aborts on a call in its past: on a
    /// platform with latencies, no call earlier than `now` plus
    /// `CALL_MARGIN` times the observed latency (a wake-up due before then
    /// is served by that call).
    pub(super) fn call_me_later(&mut self, now: Time, reply: &mut Vec<Outgoing>) {
        let mut wakeups = Vec::new();
        if let Some(t) = self.driver.engine().next_wakeup() {
            wakeups.push(t);
        }
        if let Some(t) = self.pending_injection() {
            wakeups.push(t);
        }
        for t in wakeups {
            let at = if self.latency > Time::ZERO {
                t.max(now + Time::from_ticks(self.latency.ticks().saturating_mul(CALL_MARGIN)))
            } else {
                t
            };
            if at > now && !at.is_infinite() && self.requested_calls.insert(at) {
                reply.push(Outgoing::CallMeLater { at: at.as_secs_f64() });
            }
        }
    }
}
