//! Property tests of the QoS platform on random platforms and requests
//! (hosts shrinking and growing): the accounts add up, each policy's
//! preemptions obey its rule (the safety margin and its relaxation, the
//! overhead limiter, owner shares), the limiter bounds same-class
//! ping-pong, and the scheduler in lanes decides as the run as written
//! (hosts with and without memory, requests asking some).

use crate::qos::config::{
    Eviction, HostSpec, Needs, OnPreempt, QosConfig, Request, Resize, ServiceClass, Tenant,
};
use crate::qos::outcome::Outcome;
use crate::qos::scheduler::PreemptedFor;
use crate::qos::simulate::{simulate_as_written, simulate_with};
use crate::time::Time;
use proptest::prelude::*;

/// 96 cases by default; more with `INTERSTICE_PROPTEST_CASES=5000`.
fn cases() -> u32 {
    std::env::var("INTERSTICE_PROPTEST_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(96)
}

fn secs(s: i64) -> Time {
    Time::from_secs(s)
}

#[derive(Clone, Debug)]
struct Case {
    cfg: QosConfig,
    requests: Vec<Request>,
    /// Each request's memory.
    needs: Vec<Needs>,
    /// The hosts' owner taking slots back and giving them back.
    resizes: Vec<Resize>,
}

fn case(eviction: Eviction) -> impl Strategy<Value = Case> {
    (
        prop::collection::vec(1u32..=6, 1..=3),
        prop::collection::vec((1u32..=3, 1u32..=10, 0i64..=30), 1..=3),
        prop::collection::vec(0u32..=8, 1..=3),
        0i64..=4,
        any::<bool>(),
        prop::collection::vec(
            (
                0i64..=120,
                1u32..=3,
                prop::option::of(5i64..=200),
                0usize..3,
                0usize..3,
                0u32..=4,
            ),
            1..=40,
        ),
        prop::collection::vec((0i64..=400, 0usize..3, 0u32..=6), 0..=10),
        prop::collection::vec(prop::option::of(1u32..=8), 1..=3),
    )
        .prop_map(
            move |(hosts, classes, shares, alpha, restart, reqs, resizes, memories)| {
                let widest = *hosts.iter().max().expect("a host");
                let host_specs: Vec<HostSpec> = (0..hosts.len())
                    .map(|h| HostSpec {
                        memory: memories[h % memories.len()],
                        ..HostSpec::default()
                    })
                    .collect();
                let most = host_specs
                    .iter()
                    .map(|s| s.memory.unwrap_or(u32::MAX))
                    .max()
                    .unwrap_or(0);
                let needs = reqs
                    .iter()
                    .map(|r| Needs {
                        memory: r.5.min(most),
                        ..Needs::default()
                    })
                    .collect();
                let classes: Vec<ServiceClass> = classes
                    .iter()
                    .enumerate()
                    .map(|(i, &(importance, slo, margin))| {
                        let mut c = ServiceClass::new(&format!("c{i}"), importance, f64::from(slo) / 10.0);
                        c.margin = secs(margin);
                        c
                    })
                    .collect();
                let tenants: Vec<Tenant> = shares
                    .iter()
                    .enumerate()
                    .map(|(i, &share)| Tenant {
                        name: format!("t{i}"),
                        share,
                    })
                    .collect();
                let requests = reqs
                    .iter()
                    .enumerate()
                    .map(|(i, &(submit, procs, duration, class, tenant, _))| Request {
                        id: i as u64,
                        submit: secs(submit),
                        procs: procs.min(widest),
                        duration: duration.map(secs),
                        class: class % classes.len(),
                        tenant: tenant % tenants.len(),
                    })
                    .collect();
                let cfg = QosConfig {
                    classes,
                    tenants,
                    hosts,
                    eviction,
                    on_preempt: if restart {
                        OnPreempt::Restart
                    } else {
                        OnPreempt::Resume
                    },
                    allocation_time: secs(alpha),
                    watchdog: secs(10),
                    window: Some(secs(60)),
                    until: Some(secs(1500)),
                    host_specs,
                    ..QosConfig::new(1, 1, eviction)
                };
                let resizes = resizes
                    .iter()
                    .map(|&(at, host, slots)| {
                        let host = host % cfg.hosts.len();
                        Resize {
                            at: secs(at),
                            host,
                            slots: slots.min(cfg.hosts[host]),
                        }
                    })
                    .collect();
                Case {
                    cfg,
                    requests,
                    needs,
                    resizes,
                }
            },
        )
}

fn with_needs(c: &Case) -> Vec<(Request, Needs)> {
    c.requests.iter().cloned().zip(c.needs.iter().cloned()).collect()
}

fn run(c: &Case) -> Outcome {
    simulate_with(&c.cfg, with_needs(c), c.resizes.clone()).expect("a valid case")
}

/// Every request's time in the system is `e + d + p`; a completed request
/// ran exactly its duration; the policy-free invariants of every run.
fn accounts_add_up(c: &Case, o: &Outcome) -> Result<(), TestCaseError> {
    for r in &o.records {
        let req = &c.requests[r.id as usize];
        let until = r.end.unwrap_or(o.end);
        prop_assert_eq!(r.e + r.d + r.p, until - req.submit, "request {}", r.id);
        if r.end.is_some() {
            prop_assert_eq!(Some(r.e), req.duration);
        }
        if c.cfg.on_preempt == OnPreempt::Resume {
            prop_assert_eq!(r.d, Time::ZERO);
        }
        prop_assert!(r.availability.map_or(true, |a| (0.0..=1.0).contains(&a)));
    }
    let preempted: u64 = o.classes.iter().map(|k| k.preemptions).sum();
    prop_assert_eq!(preempted, o.preemptions.len() as u64);
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(cases()))]

    #[test]
    fn qos_driven_preempts_only_as_the_margin_and_the_limiter_allow(c in case(Eviction::QosDriven)) {
        let o = run(&c);
        accounts_add_up(&c, &o)?;
        let class = |id: u64| &c.cfg.classes[c.requests[id as usize].class];
        for p in &o.preemptions {
            let PreemptedFor::Request { id, same_class, q: by_q, .. } = p.by else {
                continue;
            };
            let (victim, by) = (class(p.victim), class(id));
            let margin = victim.margin.as_secs_f64();
            if p.victim_q >= margin {
                prop_assert!(by_q < p.victim_q, "{p:?}");
            } else {
                // Below its margin: only the relaxation lets it go.
                prop_assert!(by_q < by.margin.as_secs_f64(), "{p:?}");
                prop_assert!(
                    by.importance > victim.importance
                        || (by.importance == victim.importance && by_q < p.victim_q),
                    "{p:?}"
                );
            }
            if same_class {
                prop_assert!(p.victim_overhead <= victim.overhead_limit, "{p:?}");
            }
        }
    }

    /// With allocations costing `α > 0`, the limiter bounds how often one
    /// request is preempted for its own class: before each such preemption
    /// `n·α/(e + n·α) ≤ L`, so `n ≤ L/(1−L)·e/α` (plus the one that
    /// crossed the limit).
    #[test]
    fn the_limiter_bounds_same_class_ping_pong(c in case(Eviction::QosDriven)) {
        prop_assume!(c.cfg.allocation_time > Time::ZERO);
        let o = run(&c);
        let alpha = c.cfg.allocation_time.as_secs_f64();
        for r in &o.records {
            let limit = c.cfg.classes[r.class].overhead_limit;
            if limit >= 1.0 {
                continue;
            }
            let same = o
                .preemptions
                .iter()
                .filter(|p| p.victim == r.id && matches!(p.by, PreemptedFor::Request { same_class: true, .. }))
                .count() as f64;
            let ran = (r.e + r.d).as_secs_f64();
            prop_assert!(same <= limit / (1.0 - limit) * ran / alpha + 1.0, "{r:?}: {same}");
        }
    }

    #[test]
    fn owner_share_never_takes_from_a_tenant_at_or_under_its_share(c in case(Eviction::OwnerShare)) {
        let o = run(&c);
        accounts_add_up(&c, &o)?;
        for p in &o.preemptions {
            let PreemptedFor::Request { id, tenant_load, .. } = p.by else {
                continue;
            };
            let (victim, by) = (&c.requests[p.victim as usize], &c.requests[id as usize]);
            prop_assert_ne!(victim.tenant, by.tenant);
            let (load, share) = p.victim_tenant_load;
            prop_assert!(load > share && load - victim.procs >= share, "{p:?}");
            let (load, share) = tenant_load;
            prop_assert!(load + by.procs <= share, "{p:?}");
        }
    }

    #[test]
    fn priority_preempts_only_less_important_classes(c in case(Eviction::Priority)) {
        let o = run(&c);
        accounts_add_up(&c, &o)?;
        let importance = |id: u64| c.cfg.classes[c.requests[id as usize].class].importance;
        for p in &o.preemptions {
            if let PreemptedFor::Request { id, .. } = p.by {
                prop_assert!(importance(p.victim) < importance(id), "{p:?}");
            }
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(192))]

    /// The lanes, and the skipped watchdog runs, decide exactly as the run
    /// the seeds write (whole queue sorted and examined at every run),
    /// under every policy, with hosts shrinking and growing.
    #[test]
    fn the_run_in_lanes_decides_as_written(c in (0usize..3).prop_flat_map(|p| case(Eviction::ALL[p]))) {
        let fast = run(&c);
        let written = simulate_as_written(&c.cfg, with_needs(&c), c.resizes.clone()).expect("valid");
        prop_assert_eq!(&fast.preemptions, &written.preemptions);
        prop_assert_eq!(&fast.records, &written.records);
        prop_assert_eq!(fast, written);
    }
}
