//! What each request has received so far (`e`, `d`, `p`) and the seeds'
//! metrics over it: availability (eq. 3.1), time-to-violate and
//! recoverability folded into `Q` (eqs. 3.3–3.7, one instance per request),
//! and the preemption overhead `C_k` (seed 001, eq. 8).

use crate::time::Time;

/// Where an instance's time goes right now.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Phase {
    /// Pending, or being allocated: counts to `p`.
    Waiting,
    /// Running: counts to `e`.
    Running,
    /// Completed or the run ended: nothing counts.
    Stopped,
}

/// The accounts of one request, kept lazily: the current phase and when it
/// began, plus the totals of the phases before.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Ledger {
    e: Time,
    d: Time,
    p: Time,
    /// Run time of the current attempt (discarded under restart).
    attempt: Time,
    /// `Σ α` of the allocations after preemptions.
    overhead: Time,
    phase: Phase,
    since: Time,
}

impl Ledger {
    /// A request admitted at `at` and running since `start` (its earlier
    /// runs, if any, thrown away: they count as time in the system).
    pub fn running_since(at: Time, start: Time) -> Ledger {
        let mut ledger = Ledger::admitted(at);
        ledger.run(start);
        ledger
    }

    /// A request admitted at `at`: pending from then on.
    pub fn admitted(at: Time) -> Ledger {
        Ledger {
            e: Time::ZERO,
            d: Time::ZERO,
            p: Time::ZERO,
            attempt: Time::ZERO,
            overhead: Time::ZERO,
            phase: Phase::Waiting,
            since: at,
        }
    }

    fn fold(&mut self, now: Time) {
        let dt = (now - self.since).max(Time::ZERO);
        match self.phase {
            Phase::Waiting => self.p += dt,
            Phase::Running => {
                self.e += dt;
                self.attempt += dt;
            }
            Phase::Stopped => {}
        }
        self.since = now;
    }

    /// `(e, d, p)` at `now` (not before the last change).
    pub fn at(&self, now: Time) -> (Time, Time, Time) {
        let mut copy = self.clone();
        copy.fold(now);
        (copy.e, copy.d, copy.p)
    }

    /// The instance starts running useful work at `now`.
    pub fn run(&mut self, now: Time) {
        self.fold(now);
        self.phase = Phase::Running;
    }

    /// The instance goes back to waiting at `now` (preempted); under
    /// restart its attempt's run time is discarded.
    pub fn preempt(&mut self, now: Time, restart: bool) {
        self.fold(now);
        let lost = if restart { self.attempt } else { Time::ZERO };
        self.lose(lost);
    }

    /// The instance goes back to waiting at `now` (preempted), `lost` of
    /// its run time discarded (at most the attempt's: OSEP's checkpointing
    /// keeps whole blocks of it).
    pub fn preempt_losing(&mut self, now: Time, lost: Time) {
        self.fold(now);
        self.lose(lost.min(self.attempt));
    }

    fn lose(&mut self, lost: Time) {
        self.e -= lost;
        self.d += lost;
        self.attempt = Time::ZERO;
        self.phase = Phase::Waiting;
    }

    /// A preempted instance is allocated again, at the cost of `alpha`.
    pub fn reallocated(&mut self, alpha: Time) {
        self.overhead += alpha;
    }

    /// Nothing counts from `now` on (completed, or the run ended).
    pub fn stop(&mut self, now: Time) {
        self.fold(now);
        self.phase = Phase::Stopped;
    }

    /// Useful run time still owed at `now` for a request of `duration`.
    pub fn remaining(&self, now: Time, duration: Time) -> Time {
        (duration - self.at(now).0).max(Time::ZERO)
    }

    /// `A` at `now` (`None` before any time has passed).
    pub fn availability(&self, now: Time) -> Option<f64> {
        let (e, d, p) = self.at(now);
        availability(e, d, p)
    }

    /// `C_k` at `now`. The run time discarded by preemptions (under
    /// restart) counts as overhead beside the allocation times: it is time
    /// spent because of preemptions that did not contribute (the seeds'
    /// instances resume, so for them `d = 0` and this is eq. 8 exactly).
    pub fn overhead_ratio(&self, now: Time) -> f64 {
        let (e, d, _) = self.at(now);
        overhead_ratio(self.overhead + d, e)
    }

    /// The accounts of a request of several instances at `now`: each
    /// instance's `e`, `d`, `p` and overhead summed, nothing counting on.
    pub fn combined<'a>(parts: impl IntoIterator<Item = &'a Ledger>, now: Time) -> Ledger {
        let mut sum = Ledger::admitted(now);
        for part in parts {
            let mut part = part.clone();
            part.fold(now);
            sum.e += part.e;
            sum.d += part.d;
            sum.p += part.p;
            sum.overhead += part.overhead;
        }
        sum.phase = Phase::Stopped;
        sum
    }

    /// Run time so far (current attempt included), for owner-share's
    /// "the one that has run least".
    pub fn ran(&self, now: Time) -> Time {
        self.at(now).0
    }
}

/// Does availability `a` meet the availability SLO `slo` (`A ≥ O`)? The one
/// rule behind SLO fulfilment, violations and the penalty's zero.
pub fn meets(a: f64, slo: f64) -> bool {
    a >= slo
}

/// `A = e/(e+d+p)`; `None` when `e+d+p = 0` (just admitted: undefined).
pub fn availability(e: Time, d: Time, p: Time) -> Option<f64> {
    let total = (e + d + p).as_secs_f64();
    (total > 0.0).then(|| e.as_secs_f64() / total)
}

/// The QoS metric `Q` in seconds at `now` for an instance of SLO `slo`
/// admitted at `submit` that has run `e` (seed 000 eqs. 3.3–3.7 with one
/// instance, seed 001 eqs. 3–7):
/// - `A ≥ O`: the time-to-violate `e/O − (e+d+p) − α` (how long it may
///   still wait; ≥ −α);
/// - `A < O`: the recoverability, the same expression, now below `−α`
///   (how far it is behind).
///
/// As `e+d+p` is the time since admission, `Q = K − now` with
/// `K = e/O + submit − α` ([`qos_key`]): while an instance waits, `e` and so
/// `K` stay put and every waiting `Q` falls at the same rate, so the
/// pending queue's order by `Q` is its order by `K`, computed once. A
/// request admitted this instant has `Q = −α` (the seeds set 0: the same
/// without allocation time).
pub fn qos_metric(e: Time, submit: Time, now: Time, slo: f64, alpha: Time) -> f64 {
    qos_key(e, submit, slo, alpha) - now.as_secs_f64()
}

/// `K = e/O + submit − α`, seconds: `Q + now` (see [`qos_metric`]).
pub fn qos_key(e: Time, submit: Time, slo: f64, alpha: Time) -> f64 {
    e.as_secs_f64() / slo + submit.as_secs_f64() - alpha.as_secs_f64()
}

/// `Q` in seconds of a request of several instances (seed 000 eqs.
/// 3.2–3.7): `(e, d, p)` summed over its instances, `n = v^r + v^w` of them
/// still in the system, `c` of them contributing over `Δt`:
/// - `A ≥ O`: `Δt = (e − O(e+d+p)) / (n·O − c)` (eq. 3.3, whose
///   denominator the seed prints as `(p^r + p^w)O − c`: eq. 3.2 gives
///   `v^r + v^w`), `Q = Δt − α`; when `c ≥ n·O` the request cannot fall
///   below its SLO with what keeps running: `Q = +∞`;
/// - `A < O`: the recoverability `e/O − (e+d+p) − α` (eqs. 3.6–3.7).
///
/// With one instance (`n = 1`, `c = 0`) this is [`qos_metric`].
pub fn qos_metric_instances((e, d, p): (Time, Time, Time), n: u32, c: u32, slo: f64, alpha: Time) -> f64 {
    let (e, total) = (e.as_secs_f64(), (e + d + p).as_secs_f64());
    let alpha = alpha.as_secs_f64();
    if total > 0.0 && e / total < slo {
        return e / slo - total - alpha;
    }
    let denominator = f64::from(n) * slo - f64::from(c);
    if denominator <= 0.0 {
        return f64::INFINITY;
    }
    (e - slo * total) / denominator - alpha
}

/// `C_k = Σα / (e + Σα)` (0 when nothing has been spent), `Σα` the
/// overhead spent because of preemptions.
pub fn overhead_ratio(overhead: Time, e: Time) -> f64 {
    let o = overhead.as_secs_f64();
    let total = o + e.as_secs_f64();
    if total > 0.0 {
        o / total
    } else {
        0.0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn s(x: i64) -> Time {
        Time::from_secs(x)
    }

    #[test]
    fn the_seeds_example_of_two_instances() {
        // j: in the system 60 min, ran 58: may wait 58/0.9 − 60 ≈ 4.4 min.
        let q_j = qos_metric(s(58 * 60), s(0), s(3600), 0.9, s(0));
        assert!((q_j / 60.0 - 4.444).abs() < 0.01, "{q_j}");
        // k: 10 min, ran all of it: only ≈ 1.1 min.
        let q_k = qos_metric(s(600), s(3000), s(3600), 0.9, s(0));
        assert!((q_k / 60.0 - 1.111).abs() < 0.01, "{q_k}");
        assert!(q_k < q_j, "k is closer to violating, so k is preempted last");
    }

    #[test]
    fn recoverability_is_negative_below_the_slo() {
        let q = qos_metric(s(10), s(0), s(100), 0.5, s(2));
        // Behind by 100 − 20 = 80 s, then α.
        assert_eq!(q, -82.0);
        assert_eq!(availability(s(10), s(0), s(90)), Some(0.1));
        assert_eq!(availability(s(0), s(0), s(0)), None);
        assert_eq!(qos_metric(s(0), s(7), s(7), 0.5, s(2)), -2.0);
    }

    #[test]
    fn the_ledger_counts_phases_and_discards_restarted_work() {
        let mut l = Ledger::admitted(s(0));
        l.run(s(10));
        l.preempt(s(40), true);
        assert_eq!(l.at(s(50)), (s(0), s(30), s(20)));
        l.reallocated(s(5));
        l.run(s(55));
        assert_eq!(l.at(s(75)), (s(20), s(30), s(25)));
        // 5 s of allocation and 30 s discarded against 20 s that counted.
        assert_eq!(l.overhead_ratio(s(75)), 35.0 / 55.0);
        let mut r = Ledger::admitted(s(0));
        r.run(s(0));
        r.preempt(s(30), false);
        r.run(s(40));
        assert_eq!(r.at(s(50)), (s(40), s(0), s(10)));
        assert_eq!(r.remaining(s(50), s(100)), s(60));
        r.stop(s(60));
        assert_eq!(r.at(s(1000)), (s(50), s(0), s(10)));
    }
}
