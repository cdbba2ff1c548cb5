//! The seeds' two Kubernetes validation scenarios (seed 001 §4.4, seed 000
//! §5.4), run on the QoS platform with each eviction policy: 20 hosts of 10
//! slots, every request one slot, admitted one second apart, all active
//! until the end of the one-hour test, availabilities taken then.

use interstice_core::qos::{simulate, Eviction, Outcome, PreemptedFor, QosConfig, Request};
use interstice_core::Time;

/// The classes in a fixed shuffled order (the seed's order is random and
/// not published): a Fisher–Yates shuffle driven by a fixed LCG.
fn shuffled(counts: &[(usize, usize)]) -> Vec<usize> {
    let mut v: Vec<usize> = counts
        .iter()
        .flat_map(|&(class, n)| std::iter::repeat(class).take(n))
        .collect();
    let mut state: u64 = 0x2545_f491_4f6c_dd1d;
    for i in (1..v.len()).rev() {
        state = state
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        let j = ((state >> 33) % (i as u64 + 1)) as usize;
        v.swap(i, j);
    }
    v
}

fn scenario(eviction: Eviction, classes: &[usize]) -> Outcome {
    let mut cfg = QosConfig::new(20, 10, eviction);
    cfg.until = Some(Time::from_secs(3600));
    cfg.allocation_time = Time::from_secs(1);
    let requests = classes
        .iter()
        .enumerate()
        .map(|(i, &class)| Request {
            id: i as u64,
            submit: Time::from_secs(i as i64),
            procs: 1,
            duration: None,
            class,
            tenant: 0,
        })
        .collect();
    simulate(&cfg, requests, Vec::new()).expect("a valid scenario")
}

fn availabilities(o: &Outcome, class: usize) -> Vec<f64> {
    let mut v: Vec<f64> = o
        .records
        .iter()
        .filter(|r| r.class == class)
        .filter_map(|r| r.availability)
        .collect();
    v.sort_by(f64::total_cmp);
    v
}

const GOLD: usize = 0;
const SILVER: usize = 1;
const BRONZE: usize = 2;

/// Test 1: 80 gold, 80 silver, 96 bronze. The seed expects the priority
/// baseline to give gold and silver 100 %, and to leave 56 bronze requests
/// near 0 % while the other 40 get near 100 %.
#[test]
fn test_one_priority_starves_56_bronze_requests() {
    let o = scenario(
        Eviction::Priority,
        &shuffled(&[(GOLD, 80), (SILVER, 80), (BRONZE, 96)]),
    );
    for class in [GOLD, SILVER] {
        let a = availabilities(&o, class);
        assert_eq!(a.len(), 80);
        assert!(a[0] > 0.99, "class {class}: {a:?}");
    }
    let bronze = availabilities(&o, BRONZE);
    assert_eq!(bronze.iter().filter(|&&a| a < 0.1).count(), 56, "{bronze:?}");
    assert_eq!(bronze.iter().filter(|&&a| a > 0.9).count(), 40, "{bronze:?}");
    // Only bronze is ever preempted, and only for gold or silver.
    let class_of = |id: u64| o.records[id as usize].class;
    assert!(o.preemptions.iter().all(|p| {
        matches!(p.by, PreemptedFor::Request { id, .. } if class_of(id) != BRONZE)
            && class_of(p.victim) == BRONZE
    }));
    assert!(o.classes[BRONZE].penalty > 0.0 && o.classes[GOLD].violations == o.classes[GOLD].requests);
}

/// Test 1 again: the seed expects QoS-driven to keep every request close
/// to its class's SLO (small deficits from the preemption overheads).
#[test]
fn test_one_qos_driven_keeps_every_class_near_its_slo() {
    let o = scenario(
        Eviction::QosDriven,
        &shuffled(&[(GOLD, 80), (SILVER, 80), (BRONZE, 96)]),
    );
    for (class, slo) in [(GOLD, 1.0), (SILVER, 0.9), (BRONZE, 0.5)] {
        let a = availabilities(&o, class);
        let (lo, hi) = (a[0], a[a.len() - 1]);
        assert!(slo - lo < 0.05 && hi - slo < 0.05, "class {class}: {lo}..{hi}");
    }
    // Fair within a class: bronze's availabilities differ by under 1 point.
    let bronze = availabilities(&o, BRONZE);
    assert!(bronze[bronze.len() - 1] - bronze[0] < 0.01, "{bronze:?}");
    // The baseline's penalty is larger.
    let baseline = scenario(
        Eviction::Priority,
        &shuffled(&[(GOLD, 80), (SILVER, 80), (BRONZE, 96)]),
    );
    let total = |o: &Outcome| o.classes.iter().map(|c| c.penalty).sum::<f64>();
    assert!(
        total(&baseline) > total(&o),
        "{} vs {}",
        total(&baseline),
        total(&o)
    );
}

/// Test 2: 221 silver requests. The seed expects the baseline to run the
/// first 200 at 100 % and leave 21 at 0 %, and QoS-driven to give all of
/// them close to 90 %, its overhead limiter keeping preemptions in check.
#[test]
fn test_two_221_silver_requests() {
    let silver = vec![SILVER; 221];
    let baseline = scenario(Eviction::Priority, &silver);
    let a = availabilities(&baseline, SILVER);
    assert_eq!(a.iter().filter(|&&x| x > 0.99).count(), 200, "{a:?}");
    assert_eq!(a.iter().filter(|&&x| x == 0.0).count(), 21, "{a:?}");
    assert!(baseline.preemptions.is_empty());

    let qos = scenario(Eviction::QosDriven, &silver);
    let a = availabilities(&qos, SILVER);
    assert!(
        a[0] > 0.85 && a[a.len() - 1] < 0.95,
        "{:?}",
        (a[0], a[a.len() - 1])
    );
    let limit = 0.1;
    assert!(qos.preemptions.iter().all(|p| p.victim_overhead <= limit));
    // Every request had its turn: none left at 0 %.
    assert!(qos
        .records
        .iter()
        .all(|r| r.preemptions > 0 || r.availability.unwrap_or(0.0) > 0.85));
}
