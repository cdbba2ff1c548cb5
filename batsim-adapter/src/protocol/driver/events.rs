//! The tiny Batsim's sending phase: when the next message is due and the
//! events it carries (completions and kill acknowledgements, then
//! submissions, requested calls and the end of static submissions).

use super::{Execution, JobState, Sim};
use crate::protocol::messages::{Event, EventKind, FinalState, JobCompleted, JobSubmitted};
use interstice_core::Time;
use std::cmp::Reverse;

impl Sim<'_> {
    pub(super) fn next_time(&mut self) -> Option<Time> {
        if !self.immediate.is_empty() || !self.to_free.is_empty() {
            return Some(self.now);
        }
        // Drop stale end entries (jobs killed before their end).
        while let Some(Reverse((end, id))) = self.ends.peek() {
            match &self.jobs[id].state {
                JobState::Running { end: e, .. } if e == end => break,
                _ => {
                    self.ends.pop();
                }
            }
        }
        let mut candidates = Vec::new();
        if let Some(id) = self.static_order.get(self.next_static) {
            candidates.push(self.jobs[id].submit);
        } else if !self.static_notified {
            candidates.push(self.now);
        }
        if let Some(Reverse((end, _))) = self.ends.peek() {
            candidates.push(*end);
        }
        if let Some(call) = self.calls.first() {
            candidates.push(*call);
        }
        candidates.into_iter().min()
    }

    pub(super) fn all_done(&self) -> bool {
        self.next_static >= self.static_order.len()
            && self
                .jobs
                .values()
                .all(|j| matches!(j.state, JobState::Done | JobState::Rejected))
    }

    pub(super) fn collect_events(&mut self) -> Vec<Event> {
        let now = self.now;
        let mut events = Vec::new();
        // Completions.
        let mut ended = Vec::new();
        while let Some(Reverse((end, _))) = self.ends.peek() {
            if *end > now {
                break;
            }
            let Reverse((end, id)) = self.ends.pop().expect("peeked");
            if let JobState::Running { end: e, .. } = &self.jobs[&id].state {
                if *e == end {
                    ended.push((end, id));
                }
            }
        }
        ended.sort();
        for (end, id) in ended {
            let job = self.jobs.get_mut(&id).expect("known job");
            let JobState::Running {
                start, alloc, state, ..
            } = std::mem::replace(&mut job.state, JobState::Done)
            else {
                unreachable!("checked above")
            };
            for p in alloc.iter() {
                self.busy[p as usize] = None;
            }
            let return_code = if state == "COMPLETED_SUCCESSFULLY" { 0 } else { -1 };
            events.push(Event {
                timestamp: end.as_secs_f64(),
                kind: EventKind::JobCompleted(JobCompleted {
                    job_id: id.clone(),
                    state: FinalState::from_name(state).unwrap_or(FinalState::Failed),
                    return_code: Some(return_code),
                    alloc: Some(alloc.to_string()),
                }),
            });
            self.report.executions.push(Execution {
                job_id: id,
                submit: job.submit,
                start,
                end,
                alloc,
                res: job.res,
                state,
            });
        }
        // Kill acknowledgements (the killed jobs' resources are free from now on).
        for procs in self.to_free.drain(..) {
            for p in procs.iter() {
                self.busy[p as usize] = None;
            }
        }
        events.append(&mut self.immediate);
        // Submissions.
        while let Some(id) = self.static_order.get(self.next_static) {
            if self.jobs[id].submit > now {
                break;
            }
            let job = self.jobs.get_mut(id).expect("known job");
            job.state = JobState::Submitted;
            events.push(Event {
                timestamp: job.submit.as_secs_f64(),
                kind: EventKind::JobSubmitted(JobSubmitted {
                    job_id: id.clone(),
                    job: job.description.clone(),
                }),
            });
            self.next_static += 1;
        }
        while let Some(&call) = self.calls.first() {
            if call > now {
                break;
            }
            self.calls.pop_first();
            self.report.requested_calls += 1;
            events.push(Event {
                timestamp: call.as_secs_f64(),
                kind: EventKind::RequestedCall,
            });
        }
        if self.next_static >= self.static_order.len() && !self.static_notified {
            self.static_notified = true;
            events.push(Event {
                timestamp: now.as_secs_f64(),
                kind: EventKind::Notify {
                    notify_type: "no_more_static_job_to_submit".into(),
                },
            });
        }
        events
    }
}
