//! The generator: reproducible from (parameters, seed), 10 % of each
//! group's users, and the shares it is given.

use super::*;
use std::collections::BTreeSet;

fn users_of(rows: &[TraceRequest]) -> BTreeSet<String> {
    rows.iter().map(|r| r.user.clone()).collect()
}

#[test]
fn same_seed_same_rows_other_seed_other_rows() {
    let params = GeneratorParams::default();
    let a = generate(&params, 1);
    assert_eq!(a, generate(&params, 1));
    assert_ne!(users_of(&a), users_of(&generate(&params, 2)));
    assert_eq!(hosts(&params, 1), hosts(&params, 1));
    assert_ne!(hosts(&params, 1), hosts(&params, 2));
    assert!(
        a.windows(2).all(|w| w[0].submit <= w[1].submit),
        "sorted by submit"
    );
    assert!(a
        .iter()
        .all(|r| r.submit < params.horizon() && r.cpu <= 1.0 && r.memory <= 1.0));
}

#[test]
fn a_sample_takes_ten_percent_of_each_group_and_at_least_one() {
    let mut params = GeneratorParams::default();
    params.groups.truncate(3);
    params.groups[0].users = 95; // 9.5 → 10
    params.groups[1].users = 3; // 0.3 → at least 1
    params.groups[2].users = 40; // 4
    for seed in 0..5 {
        let chosen = sampled_users(&params, seed);
        let per_group: Vec<usize> = (0..3)
            .map(|g| chosen.iter().filter(|(h, _)| *h == g).count())
            .collect();
        assert_eq!(per_group, vec![10, 1, 4]);
        let distinct: BTreeSet<_> = chosen.iter().collect();
        assert_eq!(distinct.len(), chosen.len(), "no user twice");
        // Every chosen user submits at least one job, so all appear in the rows.
        assert_eq!(users_of(&generate(&params, seed)).len(), 15);
    }
}

#[test]
fn a_user_submits_the_same_jobs_in_every_sample() {
    let params = GeneratorParams::default();
    let (g, u) = sampled_users(&params, 3)[0];
    let name = format!("{}-{u:03}", params.groups[g].name);
    let mine = |seed| -> Vec<TraceRequest> {
        generate(&params, seed)
            .into_iter()
            .filter(|r| r.user == name)
            .collect()
    };
    let alone = user_jobs(&params, g, u);
    let mut sorted = alone.clone();
    sorted.sort_by(|a, b| a.submit.total_cmp(&b.submit));
    assert_eq!(mine(3), sorted);
}

#[test]
fn class_service_and_machine_shares_within_tolerance() {
    let mut params = GeneratorParams::default();
    let mut one = params.groups[5].clone();
    one.users = 2000;
    one.classes = ClassMix {
        gold: 0.2,
        silver: 0.3,
        bronze: 0.5,
    };
    one.service_share = 0.25;
    params.groups = vec![one];
    params.user_share = 1.0;
    params.pool_hosts = 20_000;
    let rows = generate(&params, 9);
    assert!(rows.len() > 40_000, "{}", rows.len());
    let share =
        |f: &dyn Fn(&TraceRequest) -> bool| rows.iter().filter(|r| f(r)).count() as f64 / rows.len() as f64;
    assert!((share(&|r| r.class == "gold") - 0.2).abs() < 0.01);
    assert!((share(&|r| r.class == "silver") - 0.3).abs() < 0.01);
    assert!((share(&|r| r.duration.is_none()) - 0.25).abs() < 0.01);
    // The CPU median is the group's (0.04): half the requests below it.
    assert!((share(&|r| r.cpu < 0.04) - 0.5).abs() < 0.01);
    let pool = hosts(&params, 9);
    let half = pool.iter().filter(|h| h.cpu == 0.5 && h.memory == 0.5).count() as f64 / pool.len() as f64;
    assert!((half - 6732.0 / 12583.0).abs() < 0.015, "{half}");
}

#[test]
fn the_default_sample_is_of_the_planned_size() {
    let params = GeneratorParams::default();
    for seed in 1..=3 {
        let n = generate(&params, seed).len();
        assert!((2_000..=30_000).contains(&n), "seed {seed}: {n} rows");
    }
}

#[test]
fn sample_section_reads_with_defaults_and_refuses_bad_values() {
    let p = GeneratorParams::from_yaml("other: 1\nsample:\n  horizon_days: 2\n", "study.yaml").unwrap();
    assert_eq!(p.horizon_days, 2.0);
    assert_eq!(p.groups, GeneratorParams::default().groups);
    let echo = serde_yaml::to_string(&Section2 { sample: p.clone() }).unwrap();
    assert_eq!(GeneratorParams::from_yaml(&echo, "params.yaml").unwrap(), p);
    let none = GeneratorParams::from_yaml("seed: 1\n", "study.yaml").unwrap_err();
    assert!(none.starts_with("study.yaml: no `sample:` section"), "{none}");
    let bad = GeneratorParams::from_yaml("sample:\n  user_share: 1.5\n", "s.yaml").unwrap_err();
    assert_eq!(bad, "s.yaml: sample.user_share: 1.5 must be a share from 0 to 1");
    let typo = GeneratorParams::from_yaml("sample:\n  horizon: 2\n", "s.yaml").unwrap_err();
    assert!(typo.starts_with("s.yaml:2:"), "{typo}");
}

#[derive(serde::Serialize)]
struct Section2 {
    sample: GeneratorParams,
}
