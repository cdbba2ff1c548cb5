//! The contention level of a fairness window (seed 001 §5.3), read from what
//! the priority-based scheduler delivered in it: the same intervals are then
//! compared across policies.

use crate::qos::report::WindowStat;

/// How much the active requests of a window competed for resources.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Contention {
    /// Every active request at 100 % availability.
    None,
    /// Every active request meets its SLO, some below 100 %.
    Low,
    /// Every request of the more important classes meets its SLO; some of
    /// the least important class do not.
    Medium,
    /// Some request of a more important class misses its SLO.
    High,
}

crate::job::named_options!(Contention, "contention level", "none, low, medium or high", {
    None => "none",
    Low => "low",
    Medium => "medium",
    High => "high",
});

/// The level of `window` under the priority-based scheduler. `least[c]`
/// says whether class `c` is of the least importance (the seeds' bronze).
/// `None` when no request was active.
///
/// The seed's definitions ask, for low and medium contention, that gold and
/// silver requests all receive 100 %; here they must meet their SLO (gold's
/// 100 % is the same; a silver request at 95 % is low contention, where the
/// seed's four cases leave it unclassified).
pub fn classify(window: &WindowStat, least: &[bool]) -> Option<Contention> {
    let active: Vec<(usize, &crate::qos::report::ClassWindow)> = window
        .classes
        .iter()
        .enumerate()
        .filter_map(|(c, w)| w.as_ref().map(|w| (c, w)))
        .collect();
    if active.is_empty() {
        return None;
    }
    let met = |w: &&crate::qos::report::ClassWindow| w.fulfilment >= 1.0;
    Some(if active.iter().all(|(_, w)| w.min_availability >= 1.0) {
        Contention::None
    } else if active.iter().all(|(_, w)| met(w)) {
        Contention::Low
    } else if active
        .iter()
        .filter(|(c, _)| !least.get(*c).copied().unwrap_or(false))
        .all(|(_, w)| met(w))
    {
        Contention::Medium
    } else {
        Contention::High
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::qos::report::ClassWindow;
    use crate::time::Time;

    fn class(min_availability: f64, fulfilment: f64) -> Option<ClassWindow> {
        Some(ClassWindow {
            active: 4,
            gini: 0.0,
            min_availability,
            fulfilment,
        })
    }

    fn window(classes: Vec<Option<ClassWindow>>) -> WindowStat {
        WindowStat {
            start: Time::ZERO,
            end: Time::from_secs(600),
            classes,
        }
    }

    /// Gold, silver, bronze: the four levels on hand-built intervals.
    #[test]
    fn the_four_levels() {
        let least = [false, false, true];
        let level = |classes| classify(&window(classes), &least);
        assert_eq!(
            level(vec![class(1.0, 1.0), class(1.0, 1.0), class(1.0, 1.0)]),
            Some(Contention::None)
        );
        // Bronze at 70 % (above its 50 %): low.
        assert_eq!(
            level(vec![class(1.0, 1.0), class(1.0, 1.0), class(0.7, 1.0)]),
            Some(Contention::Low)
        );
        // A bronze request at 30 %: medium.
        assert_eq!(
            level(vec![class(1.0, 1.0), class(1.0, 1.0), class(0.3, 0.75)]),
            Some(Contention::Medium)
        );
        // A silver request at 80 % (below its 90 %): high, whatever bronze got.
        assert_eq!(
            level(vec![class(1.0, 1.0), class(0.8, 0.5), class(1.0, 1.0)]),
            Some(Contention::High)
        );
        // A gold request below 100 %: high.
        assert_eq!(level(vec![class(0.99, 0.75), None, None]), Some(Contention::High));
        // Only bronze active, missing: medium (nothing more important missed).
        assert_eq!(level(vec![None, None, class(0.1, 0.0)]), Some(Contention::Medium));
        assert_eq!(level(vec![None, None, None]), None);
    }
}
