//! Scenarios of the multi-resource model computed by hand from the seeds:
//! memory and constraints deciding the host, hot and cold overheads, a
//! request of several instances (seed 000 eqs. 3.1–3.3), host failures,
//! recoveries and additions (seed 001 Algorithm 1's events).

use crate::qos::{
    qos_metric_instances, simulate_with, Constraint, Draw, Eviction, HostChange, HostEvent, HostSpec, Needs,
    OnPreempt, Outcome, Overheads, PreemptedFor, QosConfig, Request,
};
use crate::time::Time;

fn secs(s: i64) -> Time {
    Time::from_secs(s)
}

/// Request `id` of `class` asking `procs` slots for `duration` s from `submit`.
fn req(id: u64, class: usize, procs: u32, submit: i64, duration: i64) -> Request {
    Request {
        id,
        submit: secs(submit),
        procs,
        duration: Some(secs(duration)),
        class,
        tenant: 0,
    }
}

fn run(cfg: &QosConfig, requests: Vec<(Request, Needs)>) -> Outcome {
    simulate_with(cfg, requests, Vec::new()).expect("a valid scenario")
}

fn ends(o: &Outcome) -> Vec<Option<f64>> {
    o.records.iter().map(|r| r.end.map(|t| t.as_secs_f64())).collect()
}

fn memory(m: u32) -> Needs {
    Needs {
        memory: m,
        ..Needs::default()
    }
}

/// Host 0 has the CPU but not the memory, host 1 the memory for one
/// request: the second request waits for the first, though host 0 has
/// free CPU all along.
#[test]
fn a_request_that_fits_on_cpu_but_not_memory_waits() {
    let mut cfg = QosConfig::new(2, 4, Eviction::Priority);
    cfg.hosts = vec![4, 1];
    cfg.host_specs = vec![
        HostSpec {
            memory: Some(2),
            ..HostSpec::default()
        },
        HostSpec {
            memory: Some(8),
            ..HostSpec::default()
        },
    ];
    let o = run(
        &cfg,
        vec![
            (req(0, 0, 1, 0, 100), memory(4)),
            (req(1, 0, 1, 0, 100), memory(4)),
        ],
    );
    assert_eq!(ends(&o), vec![Some(100.0), Some(200.0)]);
    // Without memory both fit host 0 at once.
    let o = run(
        &cfg,
        vec![
            (req(0, 0, 1, 0, 100), memory(0)),
            (req(1, 0, 1, 0, 100), memory(0)),
        ],
    );
    assert_eq!(ends(&o), vec![Some(100.0), Some(100.0)]);
}

/// A constraint excludes the host with the free slots.
#[test]
fn a_constraint_excludes_a_host() {
    let mut cfg = QosConfig::new(2, 1, Eviction::Priority);
    let arch = |a: &str| HostSpec {
        memory: None,
        labels: [("arch".to_string(), a.to_string())].into(),
    };
    cfg.host_specs = vec![arch("arm"), arch("x86")];
    let x86 = Needs {
        constraints: vec![Constraint {
            key: "arch".into(),
            value: "x86".into(),
            equal: true,
        }],
        ..Needs::default()
    };
    let o = run(
        &cfg,
        vec![(req(0, 0, 1, 0, 100), x86.clone()), (req(1, 0, 1, 0, 100), x86)],
    );
    assert_eq!(ends(&o), vec![Some(100.0), Some(200.0)]);
}

/// One host, `α` cold 7 s and hot 1 s. The request is allocated cold at
/// 0 (runs at 7), its host fails at 10 (it has run 3 s), recovers at 11,
/// and the request is allocated there again, hot (runs at 12), and
/// completes at 19 (7 s left). `p = 7 + 2 = 9`, `e = 10`, and `C_k` counts
/// the hot `α` drawn after the preemption: `1/(10 + 1)`.
#[test]
fn hot_and_cold_overheads_and_a_failure_with_recovery() {
    let mut cfg = QosConfig::new(1, 1, Eviction::QosDriven);
    cfg.overheads = Some(Overheads {
        hot: Draw::Values(vec![secs(1)]),
        cold: Draw::Values(vec![secs(7)]),
    });
    cfg.events = vec![
        HostEvent {
            at: secs(10),
            change: HostChange::Fail(0),
        },
        HostEvent {
            at: secs(11),
            change: HostChange::Recover(0),
        },
    ];
    let o = run(&cfg, vec![(req(0, 1, 1, 0, 10), Needs::default())]);
    let r = &o.records[0];
    assert_eq!(r.end, Some(secs(19)));
    assert_eq!((r.e, r.p), (secs(10), secs(9)));
    assert!((r.overhead - 1.0 / 11.0).abs() < 1e-12, "{}", r.overhead);
    assert_eq!(o.preemptions.len(), 1);
    assert_eq!(o.preemptions[0].by, PreemptedFor::Failure);
}

/// Two hosts of one slot: gold on host 0, bronze on host 1. Host 0 fails
/// at 10: gold waits with `Q = e/O − (e+p) = 10/1 − 10 = 0`, bronze runs
/// with `Q = 10/0.5 − 10 = 10`, at its margin, so Algorithm 1 lets gold
/// preempt it (0 < 10). Host 0 recovers at 20 and bronze resumes there:
/// gold ends at 100, bronze (10 s run, 90 s left) at 110.
#[test]
fn a_failure_preempts_for_its_instances_and_a_recovery_gives_the_host_back() {
    let cfg_with = |on_preempt| {
        let mut cfg = QosConfig::new(2, 1, Eviction::QosDriven);
        cfg.on_preempt = on_preempt;
        cfg.events = vec![
            HostEvent {
                at: secs(10),
                change: HostChange::Fail(0),
            },
            HostEvent {
                at: secs(20),
                change: HostChange::Recover(0),
            },
        ];
        cfg
    };
    let requests = || {
        vec![
            (req(0, 0, 1, 0, 100), Needs::default()),
            (req(1, 2, 1, 0, 100), Needs::default()),
        ]
    };
    let o = run(&cfg_with(OnPreempt::Resume), requests());
    assert_eq!(ends(&o), vec![Some(100.0), Some(110.0)]);
    let by: Vec<(u64, &PreemptedFor)> = o.preemptions.iter().map(|p| (p.victim, &p.by)).collect();
    assert_eq!(by[0], (0, &PreemptedFor::Failure));
    assert!(
        matches!(by[1], (1, PreemptedFor::Request { id: 0, .. })),
        "{by:?}"
    );
    assert_eq!(by.len(), 2);
    // Under restart the work lost goes: gold starts over at 10 (ends 110),
    // bronze at 20 (ends 120).
    let o = run(&cfg_with(OnPreempt::Restart), requests());
    assert_eq!(ends(&o), vec![Some(110.0), Some(120.0)]);
}

/// A host joining at 30 lets the waiting request start then.
#[test]
fn a_host_addition_lets_a_pending_request_start() {
    let mut cfg = QosConfig::new(1, 1, Eviction::Priority);
    cfg.events = vec![HostEvent {
        at: secs(30),
        change: HostChange::Add(1, HostSpec::default()),
    }];
    let o = run(
        &cfg,
        vec![
            (req(0, 0, 1, 0, 100), Needs::default()),
            (req(1, 0, 1, 0, 100), Needs::default()),
        ],
    );
    assert_eq!(ends(&o), vec![Some(100.0), Some(130.0)]);
}

/// Seed 000 eq. 3.3 by hand: `e = 95`, `p = 5`, two instances, one of
/// them contributing, `O = 0.9`: `Δt = (95 − 0.9·100)/(2·0.9 − 1) = 6.25`,
/// and eq. 3.2 holds: `(95 + 6.25)/(100 + 2·6.25) = 0.9`; `Q = Δt − α`.
/// One instance gives the single-instance `Q` (`e/O − (e+d+p)`); below
/// the SLO, the recoverability (eq. 3.6); nothing can violate when the
/// contribution covers the SLO (`c ≥ n·O`).
#[test]
fn the_request_level_q_of_several_instances() {
    let t = |e, d, p| (secs(e), secs(d), secs(p));
    let q = qos_metric_instances(t(95, 0, 5), 2, 1, 0.9, secs(1));
    assert!((q - 5.25).abs() < 1e-9, "{q}");
    assert!(((95.0 + 6.25) / (100.0 + 2.0 * 6.25) - 0.9f64).abs() < 1e-12);
    let one = qos_metric_instances(t(95, 0, 5), 1, 0, 0.9, Time::ZERO);
    assert!((one - (95.0 / 0.9 - 100.0)).abs() < 1e-9, "{one}");
    let behind = qos_metric_instances(t(50, 10, 40), 3, 2, 0.9, secs(2));
    assert!((behind - (50.0 / 0.9 - 100.0 - 2.0)).abs() < 1e-9, "{behind}");
    assert_eq!(
        qos_metric_instances(t(60, 0, 40), 2, 1, 0.5, Time::ZERO),
        f64::INFINITY
    );
}

/// A request of two instances on one slot: one runs 0–100 while the other
/// waits, then the other runs 100–200 (equal `Q`, so neither preempts the
/// other). One row: `e = 200`, `p = 100`, `A = 200/300`, ending at 200.
#[test]
fn a_request_of_two_instances_is_one_row() {
    let cfg = QosConfig::new(1, 1, Eviction::QosDriven);
    let two = Needs {
        instances: 2,
        ..Needs::default()
    };
    let o = run(&cfg, vec![(req(7, 1, 1, 0, 100), two)]);
    assert_eq!(o.records.len(), 1);
    let r = &o.records[0];
    assert_eq!(
        (r.id, r.end, r.e, r.p),
        (7, Some(secs(200)), secs(200), secs(100))
    );
    assert!((r.availability.expect("defined") - 2.0 / 3.0).abs() < 1e-12);
    assert!(o.preemptions.is_empty());
}

/// Events on hosts that do not exist, or in the wrong state, are refused.
#[test]
fn bad_events_are_refused() {
    let mut cfg = QosConfig::new(1, 1, Eviction::Priority);
    cfg.events = vec![HostEvent {
        at: secs(5),
        change: HostChange::Fail(3),
    }];
    let e = simulate_with(&cfg, Vec::new(), Vec::new()).unwrap_err();
    assert!(
        e.0.contains("events[0]") && e.0.contains("host 3 does not exist"),
        "{e}"
    );
    cfg.events = vec![HostEvent {
        at: secs(5),
        change: HostChange::Recover(0),
    }];
    let e = simulate_with(&cfg, Vec::new(), Vec::new()).unwrap_err();
    assert!(e.0.contains("not down"), "{e}");
}
