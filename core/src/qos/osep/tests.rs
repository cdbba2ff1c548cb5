//! Hand-computed scenarios of seed 002's equations and algorithms.

use super::decide::{Running, View};
use super::power::{pr_aloc, pr_preemp};
use super::satisfaction;
use crate::qos::{simulate, Eviction, OnPreempt, OsepCondition, OsepRule, QosConfig, Request, Tenant};
use crate::time::Time;
use std::collections::BTreeSet;

fn secs(s: i64) -> Time {
    Time::from_secs(s)
}

/// A platform of one-slot hosts of `speeds`, tenants `(name, share, power)`.
fn platform(speeds: &[f64], tenants: &[(&str, u32, f64)], mode: OnPreempt) -> QosConfig {
    let mut cfg = QosConfig::new(speeds.len(), 1, Eviction::Osep);
    cfg.speeds = speeds.to_vec();
    cfg.tenants = tenants
        .iter()
        .map(|&(name, share, _)| Tenant {
            name: name.into(),
            share,
        })
        .collect();
    cfg.powers = tenants.iter().map(|&(_, _, p)| Some(p)).collect();
    cfg.on_preempt = mode;
    cfg
}

fn task(id: u64, tenant: usize, submit: i64, work: i64) -> Request {
    Request {
        id,
        submit: secs(submit),
        procs: 1,
        duration: Some(secs(work)),
        class: 0,
        tenant,
    }
}

fn run(tenant: usize, slot: usize, power: f64, ran: i64) -> Running {
    Running {
        task: 100 + slot,
        tenant,
        slot,
        power,
        ran: secs(ran),
    }
}

/// A view where tenant 0 waits with ready tasks (ids 7, 8) and `running` runs.
fn view(portions: &[f64], running: Vec<Running>) -> View {
    let mut ready = vec![BTreeSet::new(); portions.len()];
    ready[0].insert((10, 0, 7));
    ready[0].insert((20, 1, 8));
    View {
        portions: portions.to_vec(),
        shares: vec![1; portions.len()],
        ready,
        running,
    }
}

/// `SU_i` (eq. 4.4) on a hand case: two machines (speeds 2 and 1), two
/// small tasks of 1200 s at 0, a big one at 300 that takes the slow
/// machine from small's second task. Small: 100 % (600 s on the fast
/// machine, as ideal) and 50 % (600 s ideal, done at 1200); big 50 %.
#[test]
fn satisfaction_on_a_hand_case() {
    let cfg = platform(
        &[2.0, 1.0],
        &[("big", 1, 2.0), ("small", 1, 1.0)],
        OnPreempt::Checkpoint,
    );
    let reqs = vec![task(0, 1, 0, 1200), task(1, 1, 0, 1200), task(2, 0, 300, 1200)];
    let o = simulate(&cfg, reqs, Vec::new()).expect("valid");
    let ends: Vec<Option<Time>> = o.records.iter().map(|r| r.end).collect();
    assert_eq!(ends, vec![Some(secs(600)), Some(secs(1200)), Some(secs(1500))]);
    assert_eq!(o.satisfaction, Some(vec![Some(50.0), Some(75.0)]));
    assert_eq!(satisfaction::of_task(1200.0, 2.0, 0.0, Some(600.0)), Some(100.0));
    assert_eq!(satisfaction::of_task(1200.0, 2.0, 0.0, None), None);
}

/// A tenant with no completed task has no satisfaction (`None`), not 0.
#[test]
fn no_completed_task_no_satisfaction() {
    let mut cfg = platform(&[1.0], &[("a", 1, 1.0), ("b", 1, 1.0)], OnPreempt::Checkpoint);
    cfg.until = Some(secs(100));
    let o = simulate(&cfg, vec![task(0, 0, 0, 50), task(1, 1, 0, 500)], Vec::new()).expect("valid");
    assert_eq!(o.satisfaction, Some(vec![Some(100.0), None]));
}

/// `a` (portion 4, owning 4 machines) runs three of speed 1
/// (`DifPoder_a = (3 − 4)/4 = −0.25`) and waits with more; `b` (portion 7,
/// owning 1) runs two of speed 4 (`(8 − 7)/7 = 1/7`). Original OSEP counts
/// machines (`a` 1 under, `b` 1 over) and preempts; heterogeneous must not:
/// `PR_Preemp_b = (8 − 7 − 4)/7 = −3/7` is below `DifPoder_a` (§4.2), and
/// `PR_Aloc_a = (3 − 4 + 4)/4 = 0.75` would leave `a` far above `b`.
#[test]
fn heterogeneous_refuses_where_original_preempts() {
    let mut base = view(
        &[4.0, 7.0],
        vec![
            run(0, 0, 1.0, 5),
            run(0, 1, 1.0, 5),
            run(0, 2, 1.0, 5),
            run(1, 3, 4.0, 50),
            run(1, 4, 4.0, 10),
        ],
    );
    base.shares = vec![4, 1];
    assert_eq!(base.dif(0), -0.25);
    assert_eq!(pr_preemp(8.0, 7.0, 4.0), -3.0 / 7.0);
    assert_eq!(pr_aloc(3.0, 4.0, 4.0), 0.75);
    for condition in [OsepCondition::Before, OsepCondition::After] {
        assert!(base
            .clone()
            .decide(OsepRule::Heterogeneous, condition, 4)
            .is_empty());
    }
    assert_eq!(
        base.clone()
            .decide(OsepRule::Heterogeneous, OsepCondition::Literal, 1)
            .len(),
        1
    );
    let swaps = base.clone().decide(OsepRule::Original, OsepCondition::Before, 4);
    assert_eq!(swaps.len(), 1, "b is one machine over, a one under: one swap");
    assert_eq!((swaps[0].victim, swaps[0].task), (104, 7), "b's least-run task");
}

/// Two machines of speed 2, `a` owning power 1 and `b` power 3; `b` runs
/// both (`DifPoder_b = (4 − 3)/3 = 1/3`), `a` waits (`−1`). §4.2's
/// criterion swaps (`PR_Preemp_b = (4 − 3 − 2)/3 = −1/3 > −1`); the
/// stricter reading `after` does not (`PR_Aloc_a = (0 − 1 + 2)/1 = 1`
/// would leave `a` better off than `b`).
#[test]
fn the_readings_of_condition_4_differ_on_an_overshoot() {
    assert_eq!(pr_aloc(0.0, 1.0, 2.0), 1.0);
    assert_eq!(pr_preemp(4.0, 3.0, 2.0), -1.0 / 3.0);
    let base = view(&[1.0, 3.0], vec![run(1, 0, 2.0, 50), run(1, 1, 2.0, 10)]);
    let after = OsepCondition::After;
    assert!(base.clone().decide(OsepRule::Heterogeneous, after, 4).is_empty());
    for other in [OsepCondition::Before, OsepCondition::Literal] {
        assert_eq!(base.clone().decide(OsepRule::Heterogeneous, other, 4).len(), 1);
    }
    let swaps = base.clone().decide(OsepRule::Original, after, 4);
    assert_eq!(swaps.len(), 1);
    assert_eq!((swaps[0].victim, swaps[0].task, swaps[0].to), (101, 7, 0));
}

/// `b` runs on a fast (4) and a slow (1) machine; the fast one has run
/// less. Original OSEP takes the least-run task (the fast machine);
/// heterogeneous the least powerful machine that passes (largest
/// `PR_Preemp`): the slow one.
#[test]
fn heterogeneous_picks_the_weakest_machine() {
    let base = view(&[4.0, 1.0], vec![run(1, 0, 4.0, 10), run(1, 1, 1.0, 500)]);
    // DifPoder: a −1, b (5 − 1)/1 = 4. Slow: PR_Aloc_a = −0.75 ≤ PR_Preemp_b = 3.
    assert_eq!(base.dif(1), 4.0);
    let h = base
        .clone()
        .decide(OsepRule::Heterogeneous, OsepCondition::After, 1);
    assert_eq!((h[0].victim, h[0].slot), (101, 1));
    let o = base.clone().decide(OsepRule::Original, OsepCondition::After, 1);
    assert_eq!((o[0].victim, o[0].slot), (100, 0));
}

/// Four unit machines, `a` and `b` power 2 each; `a` holds all four,
/// `b` waits with four tasks from 30 s. Each update swaps while
/// `PR_Aloc_b ≤ PR_Preemp_a`: two swaps balance them (`DifPoder` 0 both).
/// `maxt = 4`: both at the update at 60 s; `maxt = 1`: one at 60, one at 120.
#[test]
fn maxt_bounds_the_preemptions_of_an_update() {
    let times = |maxt: u32| {
        let mut cfg = platform(&[1.0; 4], &[("a", 2, 2.0), ("b", 2, 2.0)], OnPreempt::Checkpoint);
        cfg.osep.maxt = maxt;
        let mut reqs: Vec<Request> = (0..4).map(|i| task(i, 0, 0, 10_000)).collect();
        reqs.extend((4..8).map(|i| task(i, 1, 30, 10_000)));
        let o = simulate(&cfg, reqs, Vec::new()).expect("valid");
        o.preemptions.iter().take(2).map(|p| p.at).collect::<Vec<Time>>()
    };
    assert_eq!(times(4), vec![secs(60), secs(60)]);
    assert_eq!(times(1), vec![secs(60), secs(120)]);
}

/// Block checkpointing: `a` holds both unit machines with 3000 s tasks;
/// `b`'s 600 s task arrives at 900 and, at the update at 900, takes the
/// machine of `a`'s most recently admitted task (both ran 900 s).
/// The victim had done 900 s of work: 600 kept (one block), 300 lost.
/// It runs again at 1500 for the 2400 s left: done at 3900, `e` 3000,
/// `d` 300, `p` 600. Restart loses all 900 (done at 4500); resume none
/// (done at 3600).
#[test]
fn checkpointing_loses_the_partial_block() {
    let end_of_victim = |mode: OnPreempt| {
        let cfg = platform(&[1.0, 1.0], &[("a", 1, 1.0), ("b", 1, 1.0)], mode);
        let reqs = vec![task(0, 0, 0, 3000), task(1, 0, 0, 3000), task(2, 1, 900, 600)];
        let o = simulate(&cfg, reqs, Vec::new()).expect("valid");
        assert_eq!(o.preemptions.len(), 1, "{mode:?}");
        assert_eq!(o.records[2].end, Some(secs(1500)));
        o.records[1].clone()
    };
    let r = end_of_victim(OnPreempt::Checkpoint);
    assert_eq!(r.end, Some(secs(3900)));
    assert_eq!((r.e, r.d, r.p), (secs(3000), secs(300), secs(600)));
    assert_eq!(end_of_victim(OnPreempt::Restart).end, Some(secs(4500)));
    assert_eq!(end_of_victim(OnPreempt::Resume).end, Some(secs(3600)));
    assert_eq!(super::kept_work(OnPreempt::Checkpoint, 1799.0, secs(600)), 1200.0);
    // Equal powers, equal portions: the printed `>` never swaps.
    let mut literal = platform(
        &[1.0, 1.0],
        &[("a", 1, 1.0), ("b", 1, 1.0)],
        OnPreempt::Checkpoint,
    );
    literal.osep.condition = OsepCondition::Literal;
    let reqs = vec![task(0, 0, 0, 3000), task(1, 0, 0, 3000), task(2, 1, 900, 600)];
    assert!(simulate(&literal, reqs, Vec::new())
        .expect("valid")
        .preemptions
        .is_empty());
}

/// The work at speed 1 runs `duration/speed` on a faster host, and a free
/// machine goes to the neediest tenant's smallest ready task, fastest
/// machine first.
#[test]
fn speed_and_the_smallest_ready_task() {
    let cfg = platform(
        &[1.0, 4.0],
        &[("a", 1, 1.0), ("b", 1, 4.0)],
        OnPreempt::Checkpoint,
    );
    // b is the neediest (both at −1: ties to the first tenant, a), then b.
    let reqs = vec![task(0, 0, 0, 800), task(1, 0, 0, 400), task(2, 1, 0, 400)];
    let o = simulate(&cfg, reqs, Vec::new()).expect("valid");
    // a's smaller task (400) on the fast machine: 100 s; b's on the slow one: 400 s.
    assert_eq!(o.records[1].end, Some(secs(100)));
    assert_eq!(o.records[2].end, Some(secs(400)));
}

/// What osep cannot run is refused with the fix.
#[test]
fn osep_refuses_wide_requests_and_resizes() {
    let cfg = platform(&[1.0], &[("a", 1, 1.0)], OnPreempt::Checkpoint);
    let mut wide = task(0, 0, 0, 10);
    wide.procs = 2;
    assert!(simulate(&cfg, vec![wide], Vec::new()).is_err());
    let mut two = QosConfig::new(1, 2, Eviction::Osep);
    two.on_preempt = OnPreempt::Checkpoint;
    let mut wide = task(0, 0, 0, 10);
    wide.procs = 2;
    let e = simulate(&two, vec![wide], Vec::new()).unwrap_err();
    assert!(e.0.contains("one-slot"), "{e}");
    let mut slow = QosConfig::new(1, 1, Eviction::Priority);
    slow.speeds = vec![2.0];
    assert!(simulate(&slow, vec![], Vec::new())
        .unwrap_err()
        .0
        .contains("speed"));
}
