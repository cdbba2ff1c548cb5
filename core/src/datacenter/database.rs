//! The global database of idle slots and the choice of a destination:
//! `F^J'` (§4.6.3) and Algorithm 1's verdict (§5.1).
//!
//! Every scheduler publishes a [`Tuple`] — its address `A_e`, metadata, and
//! its idle slots `W_immediate` and `W_future` at the time it published —
//! and the database keeps the latest one per scheduler, deliberately not
//! kept consistent with the schedulers' plans: a tuple is as stale as the
//! time since it was published. [`rank`] predicts, from the tuples alone,
//! when a job would complete on each scheduler whose metadata fit it
//! (`F^C(F^σ(J_{j,e}))`, with the destination's latency `r = F^r`
//! ([`super::latency`]) and overbooking λ) and orders them by completion,
//! smallest first; [`route`] is Algorithm 1 on that ranking.
//!
//! This module is the one owner of these rules: the simulated data center
//! ([`super::Datacenter`]) and the daemon's broker both call it.

use super::latency::Latency;
use crate::engine::{Admission, Prediction, Slots};
use crate::placement::{self, Scores, Weights};
use crate::predict::{Beta, ThesisPrediction, WFuture};
use crate::time::Time;

/// What kind of platform a scheduler runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Role {
    /// An HPC platform (`L2`, `L3`): cloud jobs run in its convergence area.
    Hpc,
    /// A cloud platform (`L5`, `L6`): overbooked, evicts its lowest-priority work.
    Cloud,
}

crate::job::named_options!(Role, "scheduler role", "hpc or cloud", {
    Hpc => "hpc",
    Cloud => "cloud",
});

/// What a scheduler's tuple says it can run.
#[derive(Clone, Debug, PartialEq)]
pub struct Metadata {
    /// The widest job it can take: its convergence area (an HPC platform)
    /// or its processors (a cloud platform).
    pub procs: u32,
    /// Technical features it offers (hardware, software); a job that
    /// requires a feature goes only where it is offered.
    pub features: Vec<String>,
    /// Overbooking ratio λ (1 = none): a job of walltime `wt` occupies its
    /// processors for `wt·λ`, and `F^C = F^σ + wt·λ`.
    pub overbooking: f64,
}

/// One scheduler's entry in the global database (`E_e = {A_e, W_immediate,
/// W_future}` with its metadata).
#[derive(Clone, Debug, PartialEq)]
pub struct Tuple {
    /// `A_e`: the scheduler's name or address.
    pub address: String,
    /// HPC or cloud platform.
    pub role: Role,
    /// What it can run.
    pub metadata: Metadata,
    /// Its idle slots when it published.
    pub slots: Slots,
    /// When it published.
    pub published: Time,
    /// The inputs of `r = F^r(E_e)`, the latency until a job sent there can
    /// start, as the keeper of the database knows them (configured or
    /// measured); [`rank`] applies them to each job's bytes.
    pub latency: Latency,
}

/// A job looking for a destination.
#[derive(Clone, Debug, PartialEq)]
pub struct Request {
    /// `h`.
    pub procs: u32,
    /// `wt` (after reconciliation).
    pub walltime: Time,
    /// The agreed SLO, from `arrival` (`None`: no SLO to meet).
    pub slo: Option<Time>,
    /// `a`: the arrival in the data center (kept across migrations, as the
    /// thesis keeps `a_j` for the SLA).
    pub arrival: Time,
    /// Features the job requires.
    pub features: Vec<String>,
    /// The job's size in bytes (its data and program), moved to the
    /// destination by `F^r`'s transfer (0: nothing to move).
    pub bytes: u64,
}

/// One destination's predicted completion for a [`Request`].
#[derive(Clone, Debug, PartialEq)]
pub struct Choice {
    /// Index of the tuple in the slice given to [`rank`].
    pub index: usize,
    /// Algorithm 1's prediction there (`F^σ`, `F^C`, `F^V`, `F^SLO`).
    pub prediction: Prediction,
    /// The completion the ranking used: `F^C`, or, when the slots hold no
    /// fit before the SLO's deadline (`F^σ = ∞`), the completion of the
    /// earliest fit after it, so that such destinations still compare among
    /// themselves (they all rank after every finite `F^C`).
    pub completion: Time,
}

/// How long work of `time` occupies processors on a platform overbooked by
/// `lambda`: `time × λ` (the thesis's `F^C`; a job sent to a cloud platform
/// runs that long there).
pub(super) fn occupied(time: Time, lambda: f64) -> Time {
    time.mul_f64(lambda)
}

impl Metadata {
    /// How long a job of `walltime` occupies its processors here ([`occupied`]).
    fn occupied(&self, walltime: Time) -> Time {
        occupied(walltime, self.overbooking)
    }

    /// Do these metadata fit the request (width and features)?
    pub fn fits(&self, request: &Request) -> bool {
        request.procs >= 1
            && request.procs <= self.procs
            && request
                .features
                .iter()
                .all(|f| self.features.iter().any(|g| g == f))
    }
}

impl Tuple {
    /// `F^σ` on this tuple's slots at `now` with β and latency `r` (`None` =
    /// ∞), and `F^σ` with neither the SLO's bound nor a disqualifying β (the
    /// fit after the deadline, `None` when the slots never hold the job).
    /// `runs` are this tuple's [`IdleRuns`].
    fn start(
        &self,
        runs: &IdleRuns,
        request: &Request,
        now: Time,
        beta: Beta,
        latency: Time,
    ) -> (Option<Time>, Option<Time>) {
        let occupied = self.metadata.occupied(request.walltime);
        let h = request.procs as usize;
        let start_with = |beta: Beta, slo: Option<Time>| {
            // The tuple's W_future is every idle run (§4.5), whatever the
            // engines' own predictors read.
            ThesisPrediction {
                latency,
                beta,
                w_future: WFuture::Holes,
            }
            .start(
                now,
                occupied,
                slo,
                request.arrival,
                |end| runs.covering(now, end) >= h,
                |deadline| runs.earliest_after(now, occupied, h, deadline),
            )
        };
        let start = start_with(beta, request.slo);
        let unbounded = match beta {
            Beta::Wait(_) => start_with(beta, None),
            Beta::Disqualify => start_with(Beta::Wait(Time::ZERO), None),
        };
        (start, unbounded)
    }
}

/// `F^J'`: the destinations whose metadata fit `request`, each with its
/// prediction, ordered by predicted completion, smallest first; those whose
/// `F^σ` is ∞ (no fit before the SLO's deadline) come after every finite
/// one, ordered by the completion of their fit after the deadline; ties keep
/// the order of `tuples`. A destination whose slots never hold the job is
/// left out. Each destination's `r` is `F^r` of its tuple's latency for the
/// request's bytes ([`Latency::of`]); `caller` is the scheduler asking, if
/// it is one of the tuples: its `r` is 0 (the thesis's `r` for the scheduler
/// analysing its own queue).
///
/// With `topsis` weights, the destinations that meet the SLO, then those
/// with a finite completion that do not, are each ordered by TOPSIS
/// ([`crate::placement`]) instead of by completion alone: predicted
/// completion, slack left, the margin before the destination's idle
/// processors are taken back (the `h`-th latest end of the idle runs that
/// hold the job, against its completion) and the idle processors left beside
/// the job at its start. TOPSIS never trades the SLO for the other criteria:
/// a destination that meets it ranks before every one that does not.
pub fn rank(
    tuples: &[Tuple],
    request: &Request,
    now: Time,
    beta: Beta,
    tau: f64,
    topsis: Option<&Weights>,
    caller: Option<usize>,
) -> Vec<Choice> {
    // Each fitting tuple's idle runs, built once (kept for TOPSIS).
    let mut idle: Vec<Option<IdleRuns>> = tuples.iter().map(|_| None).collect();
    let mut choices: Vec<Choice> = tuples
        .iter()
        .enumerate()
        .filter(|(_, tuple)| tuple.metadata.fits(request))
        .filter_map(|(index, tuple)| {
            let latency = if Some(index) == caller {
                Time::ZERO
            } else {
                tuple.latency.of(request.bytes)
            };
            let runs = idle[index].insert(IdleRuns::of(&tuple.slots));
            let (start, unbounded) = tuple.start(runs, request, now, beta, latency);
            let lambda = tuple.metadata.overbooking;
            let predict = |start| {
                Prediction::from_start(start, request.walltime, request.slo, request.arrival, lambda, tau)
            };
            let prediction = predict(start);
            let completion = match prediction.completion {
                Some(c) => c,
                None => predict(Some(unbounded?)).completion?,
            };
            let prediction = match (&prediction.completion, unbounded) {
                // No fit before the deadline: offer the SLO of the fit after it.
                (None, Some(after)) => Prediction {
                    counter_offer_slo: predict(Some(after)).counter_offer_slo,
                    ..prediction
                },
                _ => prediction,
            };
            Some(Choice {
                index,
                prediction,
                completion,
            })
        })
        .collect();
    choices.sort_by_key(|choice| (choice.prediction.completion.is_none(), choice.completion));
    if let Some(weights) = topsis {
        let finite = choices
            .iter()
            .filter(|c| c.prediction.completion.is_some())
            .count();
        let meets = choices[..finite]
            .iter()
            .filter(|c| !c.prediction.predicts_violation)
            .count();
        topsis_order(&mut choices[..meets], tuples, &idle, request, now, weights);
        topsis_order(&mut choices[meets..finite], tuples, &idle, request, now, weights);
    }
    choices
}

/// Reorder `choices` (finite completions, in first-fit order) by TOPSIS;
/// `idle[i]` holds tuple `i`'s idle runs for each choice's tuple.
fn topsis_order(
    choices: &mut [Choice],
    tuples: &[Tuple],
    idle: &[Option<IdleRuns>],
    request: &Request,
    now: Time,
    weights: &Weights,
) {
    if choices.len() < 2 {
        return;
    }
    let secs = |t: Time| t.as_secs_f64();
    let h = request.procs as usize;
    let around: Vec<(Option<Time>, usize)> = choices
        .iter()
        .map(|c| {
            let start = c.prediction.start.unwrap_or(c.completion);
            let end = start.saturating_add(tuples[c.index].metadata.occupied(request.walltime));
            idle[c.index]
                .as_ref()
                .map_or((None, 0), |runs| runs.around(start, end, h))
        })
        .collect();
    let margins = placement::margins(
        &choices
            .iter()
            .zip(&around)
            .map(|(c, (end, _))| end.map(|e| secs(e) - secs(c.completion)))
            .collect::<Vec<_>>(),
        secs(request.walltime),
    );
    let deadline = request.slo.map(|slo| request.arrival.saturating_add(slo));
    let scores: Vec<Scores> = choices
        .iter()
        .zip(&around)
        .zip(margins)
        .map(|((c, &(_, idle)), margin)| {
            let (completion, slack) = placement::time_criteria(now, c.completion, deadline);
            [completion, slack, margin, idle.saturating_sub(h) as f64]
        })
        .collect();
    let order = placement::order(&scores, weights);
    let sorted: Vec<Choice> = order.iter().map(|&i| choices[i].clone()).collect();
    choices.clone_from_slice(&sorted);
}

/// Algorithm 1's verdict on a ranking.
#[derive(Clone, Debug, PartialEq)]
pub enum Route {
    /// Send the job to this destination (`v < 0`, or any `v` under admit-all).
    Send(Choice),
    /// Offer the SLO `F^SLO` of the best destination instead (`v ≥ 0` under
    /// reject-predicted); the job is not placed.
    Offer(Choice),
    /// No scheduler's metadata and slots fit the job.
    Nowhere,
}

/// Algorithm 1 (§5.1) on `F^J'`'s ranking: the best destination if its
/// predicted violation `v = F^V` is negative, or whatever it is under
/// [`Admission::AdmitAll`] (the thesis's "no need to verify the SLO"); else
/// the counter-offer. Under admit-all a job is sent to the first destination
/// even when none meets its SLO.
pub fn route(ranked: &[Choice], admission: Admission) -> Route {
    let Some(best) = ranked.first() else {
        return Route::Nowhere;
    };
    if admission.rejects(&best.prediction, None) {
        Route::Offer(best.clone())
    } else {
        Route::Send(best.clone())
    }
}

/// A tuple's slots as per-processor idle runs `[start, end)`. A processor
/// idle "now" (in `W_immediate`) is idle from any earlier time: a stale
/// tuple's immediate slots are read as still idle.
struct IdleRuns {
    /// `(start, end)` per run, any order.
    runs: Vec<(u32, Time, Time)>,
    /// Distinct run starts, ascending.
    starts: Vec<Time>,
}

impl IdleRuns {
    fn of(slots: &Slots) -> IdleRuns {
        let mut runs: Vec<(u32, Time, Time)> = slots
            .immediate
            .iter()
            .map(|slot| (slot.proc, Time::from_ticks(i64::MIN), slot.idle_until))
            .collect();
        for slot in &slots.future {
            runs.extend(slot.procs.iter().map(|p| (p, slot.start, slot.end)));
        }
        let mut starts: Vec<Time> = slots.future.iter().map(|slot| slot.start).collect();
        starts.sort_unstable();
        starts.dedup();
        IdleRuns { runs, starts }
    }

    /// Each processor idle over all of `[from, to)`, once, with the latest
    /// end of its idle runs that hold the window.
    fn holding(&self, from: Time, to: Time) -> Vec<(u32, Time)> {
        let mut ends: Vec<(u32, Time)> = self
            .runs
            .iter()
            .filter(|&&(_, s, e)| s <= from && e >= to)
            .map(|&(p, _, e)| (p, e))
            .collect();
        ends.sort_unstable_by(|a, b| a.0.cmp(&b.0).then(b.1.cmp(&a.1)));
        ends.dedup_by_key(|(p, _)| *p);
        ends
    }

    /// Processors idle over all of `[from, to)` (each counted once).
    fn covering(&self, from: Time, to: Time) -> usize {
        self.holding(from, to).len()
    }

    /// For a job on `h` processors over `[from, to)`: when the `h`-th
    /// latest-ending idle run holding it ends (`None`: never, nothing is
    /// planned after), and how many processors are idle over the window.
    fn around(&self, from: Time, to: Time, h: usize) -> (Option<Time>, usize) {
        let ends = self.holding(from, to);
        let idle = ends.len();
        let mut by_end: Vec<Time> = ends.into_iter().map(|(_, e)| e).collect();
        by_end.sort_unstable_by(|a, b| b.cmp(a));
        let end = by_end
            .get(h.saturating_sub(1))
            .copied()
            .filter(|e| !e.is_infinite());
        (end, idle)
    }

    /// The earliest run start `t0 > now` with `h` processors idle over
    /// `[t0, t0 + wt)` and `t0 + wt ≤ deadline`.
    fn earliest_after(&self, now: Time, wt: Time, h: usize, deadline: Time) -> Option<Time> {
        self.starts
            .iter()
            .copied()
            .filter(|&t0| t0 > now)
            .take_while(|&t0| t0.saturating_add(wt) <= deadline)
            .find(|&t0| self.covering(t0, t0.saturating_add(wt)) >= h)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::{FutureSlot, ImmediateSlot};
    use crate::ProcSet;

    fn secs(s: i64) -> Time {
        Time::from_secs(s)
    }

    fn tuple(address: &str, procs: u32, slots: Slots) -> Tuple {
        Tuple {
            address: address.into(),
            role: Role::Hpc,
            metadata: Metadata {
                procs,
                features: vec![],
                overbooking: 1.0,
            },
            slots,
            published: Time::ZERO,
            latency: Latency::ZERO,
        }
    }

    fn request(procs: u32, wt: i64, slo: i64) -> Request {
        Request {
            procs,
            walltime: secs(wt),
            slo: Some(secs(slo)),
            arrival: Time::ZERO,
            features: vec![],
            bytes: 0,
        }
    }

    /// Two processors idle now for 50 s, then both idle from 200 s on.
    fn busy_until_200() -> Slots {
        Slots {
            immediate: (0..2)
                .map(|proc| ImmediateSlot {
                    proc,
                    idle_until: secs(50),
                })
                .collect(),
            future: vec![FutureSlot {
                start: secs(200),
                end: Time::INFINITY,
                procs: ProcSet::from_sorted_ids(vec![0, 1]),
            }],
        }
    }

    fn idle() -> Slots {
        Slots {
            immediate: (0..2)
                .map(|proc| ImmediateSlot {
                    proc,
                    idle_until: Time::INFINITY,
                })
                .collect(),
            future: vec![],
        }
    }

    #[test]
    fn the_idle_destination_wins_and_ties_keep_the_given_order() {
        let tuples = vec![
            tuple("a", 2, busy_until_200()),
            tuple("b", 2, idle()),
            tuple("c", 2, idle()),
        ];
        let ranked = rank(
            &tuples,
            &request(2, 100, 150),
            secs(0),
            Beta::Wait(Time::ZERO),
            1.0,
            None,
            None,
        );
        let order: Vec<usize> = ranked.iter().map(|c| c.index).collect();
        assert_eq!(order, vec![1, 2, 0]);
        assert_eq!(ranked[0].prediction.completion, Some(secs(100)));
        assert!(!ranked[0].prediction.predicts_violation);
        // "a" fits only at 200 s, after the deadline of 150 s: ∞ under F^σ,
        // ranked by the late fit, with a counter-offer from it.
        assert_eq!(ranked[2].prediction.start, None);
        assert!(ranked[2].prediction.predicts_violation);
        assert_eq!(ranked[2].completion, secs(300));
        assert_eq!(ranked[2].prediction.counter_offer_slo, Some(secs(300)));
    }

    /// Idle until `until` on two processors, nothing planned after.
    fn idle_until(until: i64) -> Slots {
        Slots {
            immediate: (0..2)
                .map(|proc| ImmediateSlot {
                    proc,
                    idle_until: secs(until),
                })
                .collect(),
            future: vec![],
        }
    }

    #[test]
    fn topsis_prefers_the_longer_margin_but_never_over_the_slo() {
        let weights = crate::placement::Weights::default();
        let topsis = Some(&weights);
        let ask = |tuples: &[Tuple], req: &Request, topsis| {
            rank(tuples, req, secs(0), Beta::Wait(Time::ZERO), 1.0, topsis, None)
                .iter()
                .map(|c| c.index)
                .collect::<Vec<_>>()
        };
        // Same completion (100 s) on both; "short" is taken back at 120 s,
        // "long" at 5000 s.
        let tuples = vec![
            tuple("short", 2, idle_until(120)),
            tuple("long", 2, idle_until(5000)),
        ];
        let req = request(2, 100, 1_000);
        assert_eq!(ask(&tuples, &req, None), vec![0, 1]);
        assert_eq!(ask(&tuples, &req, topsis), vec![1, 0]);
        // "late" has all the margin in the world and starts at once, but
        // overbooked 20 times it completes at 2000 s, after the deadline: the
        // destination meeting the SLO stays first.
        let mut late = tuple("late", 2, idle());
        late.metadata.overbooking = 20.0;
        let tuples = vec![late, tuple("short", 2, idle_until(120))];
        let ranked = rank(&tuples, &req, secs(0), Beta::Wait(Time::ZERO), 1.0, topsis, None);
        assert_eq!(ranked[1].prediction.completion, Some(secs(2_000)));
        assert!(ranked[1].prediction.predicts_violation);
        assert_eq!(ask(&tuples, &req, topsis), vec![1, 0]);
    }

    /// On the daemon's clock (epoch seconds, ~1.7e9), completion still
    /// counts: TOPSIS sees times relative to now (absolute instants would
    /// all normalise to the same value and leave the margin alone to decide).
    #[test]
    fn topsis_weighs_completion_on_an_epoch_clock() {
        let now = secs(1_700_000_000);
        let idle = |until: Time| Slots {
            immediate: (0..2)
                .map(|proc| ImmediateSlot {
                    proc,
                    idle_until: until,
                })
                .collect(),
            future: vec![],
        };
        // "soon" completes at now + 100 s, taken back 20 s later; "late"
        // starts 4,900 s from now (its latency) and keeps its processors a day.
        let soon = tuple("soon", 2, idle(now + secs(120)));
        let mut late = tuple("late", 2, idle(now + secs(86_400)));
        late.latency = Latency::constant(secs(4_900));
        let req = Request {
            slo: None,
            arrival: now,
            ..request(2, 100, 1)
        };
        let weights: crate::placement::Weights = "completion=0.7,margin=0.3".parse().unwrap();
        let ranked = rank(
            &[late, soon],
            &req,
            now,
            Beta::Wait(Time::ZERO),
            1.0,
            Some(&weights),
            None,
        );
        assert_eq!(ranked.iter().map(|c| c.index).collect::<Vec<_>>(), vec![1, 0]);
    }

    #[test]
    fn metadata_width_features_and_slots_filter_destinations() {
        let mut wide = tuple("wide", 4, idle());
        wide.metadata.features = vec!["gpu".into()];
        let tuples = vec![tuple("narrow", 1, idle()), wide];
        let mut req = request(2, 10, 100);
        req.features = vec!["gpu".into()];
        let ranked = rank(&tuples, &req, secs(0), Beta::Wait(Time::ZERO), 1.0, None, None);
        assert_eq!(ranked.iter().map(|c| c.index).collect::<Vec<_>>(), vec![1]);
        // Three processors fit the wide tuple's metadata, but it publishes
        // only two idle ones: its slots never hold the job.
        req.procs = 3;
        assert!(rank(&tuples, &req, secs(0), Beta::Wait(Time::ZERO), 1.0, None, None).is_empty());
        // One processor without features fits both.
        let req = request(1, 10, 100);
        let ranked = rank(&tuples, &req, secs(0), Beta::Wait(Time::ZERO), 1.0, None, None);
        assert_eq!(ranked.iter().map(|c| c.index).collect::<Vec<_>>(), vec![0, 1]);
    }

    #[test]
    fn the_caller_has_no_latency() {
        let mut far = tuple("far", 2, idle());
        far.latency = Latency::constant(secs(30));
        let tuples = vec![tuple("near", 2, busy_until_200()), far];
        let req = request(1, 10, 1_000);
        let ranked = rank(&tuples, &req, secs(0), Beta::Wait(Time::ZERO), 1.0, None, None);
        assert_eq!(
            ranked[0].prediction.start,
            Some(secs(0)),
            "near is idle now for 50 s"
        );
        let ranked = rank(&tuples, &req, secs(0), Beta::Wait(Time::ZERO), 1.0, None, Some(1));
        assert_eq!((ranked[0].index, ranked[0].prediction.start), (0, Some(secs(0))));
        assert_eq!((ranked[1].index, ranked[1].prediction.start), (1, Some(secs(0))));
    }

    #[test]
    fn f_r_applies_the_job_s_bytes_to_each_destination_but_the_caller() {
        // "far": 30 s link, 1 MB/s, 5 s monitoring; a job of 40 MB: r = 75 s.
        let mut far = tuple("far", 2, idle());
        far.latency = Latency {
            link: secs(30),
            bandwidth: Some(1e6),
            monitoring: secs(5),
        };
        let tuples = vec![tuple("near", 2, busy_until_200()), far];
        let req = Request {
            bytes: 40_000_000,
            ..request(2, 100, 1_000)
        };
        // Far starts at 75 s (completion 175 s), before near's hole at 200 s.
        let ranked = rank(&tuples, &req, secs(0), Beta::Wait(Time::ZERO), 1.0, None, None);
        assert_eq!((ranked[0].index, ranked[0].prediction.start), (1, Some(secs(75))));
        // At 150 MB (r = 185 s, completion 285 s) near's 300 s still loses;
        // at 200 MB (r = 235 s, completion 335 s) near wins.
        let at = |bytes| {
            let req = Request { bytes, ..req.clone() };
            let ranked = rank(&tuples, &req, secs(0), Beta::Wait(Time::ZERO), 1.0, None, None);
            (ranked[0].index, ranked[0].completion)
        };
        assert_eq!(at(150_000_000), (1, secs(285)));
        assert_eq!(at(200_000_000), (0, secs(300)));
        // Asked by far itself, its r is 0 whatever the bytes.
        let ranked = rank(&tuples, &req, secs(0), Beta::Wait(Time::ZERO), 1.0, None, Some(1));
        assert_eq!((ranked[0].index, ranked[0].prediction.start), (1, Some(secs(0))));
    }

    #[test]
    fn a_destination_that_meets_the_slo_ranks_before_any_that_cannot() {
        // "late" fits only at 5 s, and β = disqualify refuses W_future: F^σ = ∞
        // there, though its fit after the deadline ends earlier (65 s) than
        // "far"'s on-time one (71 s, after its 10 s latency).
        let mut far = tuple("far", 2, idle());
        far.latency = Latency::constant(secs(10));
        let late = tuple(
            "late",
            2,
            Slots {
                immediate: vec![],
                future: vec![FutureSlot {
                    start: secs(5),
                    end: Time::INFINITY,
                    procs: ProcSet::from_sorted_ids(vec![0, 1]),
                }],
            },
        );
        let mut req = request(1, 60, 120);
        req.arrival = secs(1);
        let ranked = rank(&[late, far], &req, secs(1), Beta::Disqualify, 1.0, None, None);
        assert_eq!(ranked.iter().map(|c| c.index).collect::<Vec<_>>(), vec![1, 0]);
        assert_eq!(ranked[0].prediction.completion, Some(secs(71)));
        assert!(!ranked[0].prediction.predicts_violation);
        assert_eq!(
            (ranked[1].prediction.completion, ranked[1].completion),
            (None, secs(65))
        );
        assert!(matches!(route(&ranked, Admission::RejectPredicted), Route::Send(c) if c.index == 1));
    }

    #[test]
    fn overbooking_and_latency_stretch_the_completion() {
        let mut cloud = tuple("cloud", 2, idle());
        cloud.role = Role::Cloud;
        cloud.metadata.overbooking = 2.0;
        cloud.latency = Latency::constant(secs(5));
        let ranked = rank(
            &[cloud],
            &request(1, 30, 100),
            secs(10),
            Beta::Wait(Time::ZERO),
            1.0,
            None,
            None,
        );
        assert_eq!(ranked[0].prediction.start, Some(secs(15)));
        assert_eq!(ranked[0].prediction.completion, Some(secs(75)));
    }

    #[test]
    fn algorithm_1_sends_offers_or_finds_nowhere() {
        let tuples = vec![tuple("a", 2, busy_until_200())];
        let late = rank(
            &tuples,
            &request(2, 100, 150),
            secs(0),
            Beta::Wait(Time::ZERO),
            1.5,
            None,
            None,
        );
        match route(&late, Admission::RejectPredicted) {
            Route::Offer(choice) => assert_eq!(choice.prediction.counter_offer_slo, Some(secs(450))),
            other => panic!("expected an offer, got {other:?}"),
        }
        assert!(matches!(route(&late, Admission::AdmitAll), Route::Send(_)));
        let on_time = rank(
            &tuples,
            &request(1, 40, 150),
            secs(0),
            Beta::Wait(Time::ZERO),
            1.0,
            None,
            None,
        );
        assert!(
            matches!(route(&on_time, Admission::RejectPredicted), Route::Send(c) if c.prediction.start == Some(secs(0)))
        );
        let none = rank(
            &tuples,
            &request(3, 1, 10),
            secs(0),
            Beta::Wait(Time::ZERO),
            1.0,
            None,
            None,
        );
        assert_eq!(route(&none, Admission::AdmitAll), Route::Nowhere);
    }
}
