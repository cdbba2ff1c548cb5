//! The place-transition Petri net of the thesis's Figure 4.1 (§4.3): where
//! each application of the data center is, and the count of every
//! transition fired.
//!
//! Places and transitions, with the arcs the text gives (the figure itself
//! is not in the digest; each arc below is stated in §4.3's prose):
//!
//! | transition | from → to | what |
//! |---|---|---|
//! | T0  | — → L0  | an application arrives at the data-center scheduler |
//! | T1  | L0 → L1 | sent to the data center's own free processors |
//! | T2  | L0 → L2 | sent to an HPC platform's queue |
//! | T3  | L8 → L2 | migrated to an HPC platform after an eviction |
//! | T4  | L2 → L3 | started in the HPC partition |
//! | T5  | L3 → L4 | ended on the HPC platform (success or failure) |
//! | T6  | L0 → L5 | sent to a cloud platform's queue |
//! | T7  | L5 → L6 | started in the cloud partition |
//! | T8  | L6 → L7 | ended successfully on the cloud platform |
//! | T9  | L6 → L8 | failed or evicted on the cloud platform |
//! | T10 | L8 → L9 | not resubmitted: recorded as failed |
//! | T11 | L8 → L5 | resubmitted to a cloud platform, lifecycle bounded |
//! | T12 | L1 → L10 | ended on the data center's own processors |
//! | T13 | — → L2 | an HPC application submitted directly to its platform |
//! | T14 | L3 → L8 | *Interstice's*: a cloud job evicted from an HPC area |
//! | T15 | L2 → L4 | *Interstice's*: withdrawn from an HPC platform's queue |
//! | T16 | L5 → L9 | *Interstice's*: withdrawn from a cloud platform's queue |
//!
//! Final places: L4, L7, L9, L10. No arc leads back to L0, so an
//! application never returns to its starting point. T14 is not in the
//! thesis, whose HPC platforms never preempt; Interstice's HPC areas evict
//! cloud jobs when HPC work needs their processors, and the evicted job
//! goes to the same resubmission evaluator (L8) as a cloud platform's.
//! T15 and T16 give an application cancelled before it started a final
//! place (the thesis's net only ends applications that ran).
//! The simulated data center has no processors of its own, so T1 and T12
//! never fire.

use std::fmt;

/// A place of the net.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Place {
    /// L0: the data-center scheduler's queue.
    L0,
    /// L1: the data center's own processors.
    L1,
    /// L2: an HPC platform's scheduler.
    L2,
    /// L3: the processors of an HPC partition.
    L3,
    /// L4: applications ended on an HPC platform.
    L4,
    /// L5: a cloud platform's scheduler.
    L5,
    /// L6: the processors of a cloud partition.
    L6,
    /// L7: applications ended successfully on a cloud platform.
    L7,
    /// L8: the resubmission evaluator.
    L8,
    /// L9: failed applications.
    L9,
    /// L10: applications ended on the data center's own processors.
    L10,
}

impl Place {
    /// Every place, in order.
    pub const ALL: [Place; 11] = [
        Place::L0,
        Place::L1,
        Place::L2,
        Place::L3,
        Place::L4,
        Place::L5,
        Place::L6,
        Place::L7,
        Place::L8,
        Place::L9,
        Place::L10,
    ];

    /// Is it a final place (L4, L7, L9, L10)?
    pub fn is_final(self) -> bool {
        matches!(self, Place::L4 | Place::L7 | Place::L9 | Place::L10)
    }

    fn index(self) -> usize {
        self as usize
    }
}

impl fmt::Display for Place {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "L{}", self.index())
    }
}

/// A transition of the net.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Transition {
    /// Arrival at the data center.
    T0,
    /// To the data center's own processors.
    T1,
    /// To an HPC platform.
    T2,
    /// Migration to an HPC platform after an eviction.
    T3,
    /// Start on an HPC partition.
    T4,
    /// End on an HPC platform.
    T5,
    /// To a cloud platform.
    T6,
    /// Start on a cloud partition.
    T7,
    /// Successful end on a cloud platform.
    T8,
    /// Failure or eviction on a cloud platform.
    T9,
    /// Recorded as failed.
    T10,
    /// Resubmission to a cloud platform.
    T11,
    /// End on the data center's own processors.
    T12,
    /// Direct submission to an HPC platform.
    T13,
    /// Eviction from an HPC area (Interstice's).
    T14,
    /// Withdrawn from an HPC platform's queue (Interstice's).
    T15,
    /// Withdrawn from a cloud platform's queue (Interstice's).
    T16,
}

impl Transition {
    /// Every transition, in order.
    pub const ALL: [Transition; 17] = [
        Transition::T0,
        Transition::T1,
        Transition::T2,
        Transition::T3,
        Transition::T4,
        Transition::T5,
        Transition::T6,
        Transition::T7,
        Transition::T8,
        Transition::T9,
        Transition::T10,
        Transition::T11,
        Transition::T12,
        Transition::T13,
        Transition::T14,
        Transition::T15,
        Transition::T16,
    ];

    /// The arc: input place (`None` for a source transition) and output place.
    pub fn arc(self) -> (Option<Place>, Place) {
        use Place::*;
        use Transition::*;
        match self {
            T0 => (None, L0),
            T1 => (Some(L0), L1),
            T2 => (Some(L0), L2),
            T3 => (Some(L8), L2),
            T4 => (Some(L2), L3),
            T5 => (Some(L3), L4),
            T6 => (Some(L0), L5),
            T7 => (Some(L5), L6),
            T8 => (Some(L6), L7),
            T9 => (Some(L6), L8),
            T10 => (Some(L8), L9),
            T11 => (Some(L8), L5),
            T12 => (Some(L1), L10),
            T13 => (None, L2),
            T14 => (Some(L3), L8),
            T15 => (Some(L2), L4),
            T16 => (Some(L5), L9),
        }
    }

    fn index(self) -> usize {
        self as usize
    }
}

impl fmt::Display for Transition {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "T{}", self.index())
    }
}

/// A transition fired from a place that does not hold the application.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BadFiring {
    /// The transition.
    pub transition: Transition,
    /// Where the application was (`None`: not in the net yet).
    pub at: Option<Place>,
}

impl fmt::Display for BadFiring {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let (from, to) = self.transition.arc();
        let at = self
            .at
            .map_or("outside the net".to_string(), |p| format!("at {p}"));
        let from = from.map_or("outside the net".to_string(), |p| p.to_string());
        write!(
            f,
            "{} ({from} → {to}) fired for an application {at}",
            self.transition
        )
    }
}

impl std::error::Error for BadFiring {}

/// The net's counts: transitions fired and the current marking.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct PetriNet {
    fired: [u64; 17],
    marking: [u64; 11],
}

impl PetriNet {
    /// Fire `transition` for an application at `at` (`None`: entering the
    /// net); returns its new place. Refused when the arc does not start
    /// where the application is.
    pub fn fire(&mut self, transition: Transition, at: Option<Place>) -> Result<Place, BadFiring> {
        let (from, to) = transition.arc();
        if from != at {
            return Err(BadFiring { transition, at });
        }
        if let Some(from) = from {
            let tokens = &mut self.marking[from.index()];
            *tokens = tokens.checked_sub(1).ok_or(BadFiring { transition, at })?;
        }
        self.marking[to.index()] += 1;
        self.fired[transition.index()] += 1;
        Ok(to)
    }

    /// Times `transition` fired.
    pub fn fired(&self, transition: Transition) -> u64 {
        self.fired[transition.index()]
    }

    /// Applications now at `place`.
    pub fn tokens(&self, place: Place) -> u64 {
        self.marking[place.index()]
    }

    /// Applications that entered the net (T0 and T13).
    pub fn entered(&self) -> u64 {
        self.fired(Transition::T0) + self.fired(Transition::T13)
    }

    /// Applications in a final place.
    pub fn finished(&self) -> u64 {
        Place::ALL
            .iter()
            .filter(|p| p.is_final())
            .map(|&p| self.tokens(p))
            .sum()
    }

    /// Flow conservation holds at every place: tokens = fired in − fired out.
    pub fn conserves_tokens(&self) -> bool {
        Place::ALL.iter().all(|&place| {
            let (mut inflow, mut outflow) = (0u64, 0u64);
            for t in Transition::ALL {
                let (from, to) = t.arc();
                if to == place {
                    inflow += self.fired(t);
                }
                if from == Some(place) {
                    outflow += self.fired(t);
                }
            }
            inflow.checked_sub(outflow) == Some(self.tokens(place))
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_cloud_job_evicted_from_a_cloud_platform_migrates_and_ends_on_hpc() {
        let mut net = PetriNet::default();
        let mut at = None;
        for t in [
            Transition::T0,
            Transition::T6,
            Transition::T7,
            Transition::T9,
            Transition::T3,
            Transition::T4,
            Transition::T5,
        ] {
            at = Some(net.fire(t, at).unwrap());
        }
        assert_eq!(at, Some(Place::L4));
        assert_eq!((net.entered(), net.finished()), (1, 1));
        assert!(net.conserves_tokens());
    }

    #[test]
    fn no_arc_returns_to_l0_and_bad_firings_are_refused() {
        assert!(Transition::ALL
            .iter()
            .all(|t| t.arc().1 != Place::L0 || *t == Transition::T0));
        let mut net = PetriNet::default();
        let err = net.fire(Transition::T4, Some(Place::L5)).unwrap_err();
        assert_eq!(err.to_string(), "T4 (L2 → L3) fired for an application at L5");
        // The arc's place is right but it holds no token.
        assert!(net.fire(Transition::T4, Some(Place::L2)).is_err());
        assert!(net.conserves_tokens());
    }
}
