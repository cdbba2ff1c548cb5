use super::*;

fn secs(s: i64) -> Time {
    Time::from_secs(s)
}

fn request(procs: u32, walltime: i64, slo: Option<i64>) -> Request {
    Request {
        procs,
        walltime: secs(walltime),
        slo: slo.map(secs),
    }
}

#[test]
fn no_limits_admit_any_job() {
    let rules = CandidateRules::default();
    assert!(rules.is_unlimited());
    assert_eq!(rules.check(request(100_000, 10_000_000, Some(1))), Ok(()));
    assert_eq!(rules.check(request(1, 1, None)), Ok(()));
    assert_eq!(rules.problem(), None);
}

#[test]
fn a_long_job_is_told_the_limit_and_the_walltime_to_ask_for() {
    let rules = CandidateRules {
        max_walltime: Some(secs(3600)),
        ..CandidateRules::default()
    };
    let refused = rules.check(request(2, 7200, Some(14_400))).unwrap_err();
    assert_eq!(
        refused.limits,
        vec![Limit::Walltime {
            asked: secs(7200),
            limit: secs(3600)
        }]
    );
    assert_eq!(refused.nearest, request(2, 3600, Some(14_400)));
    assert_eq!(
        refused.limits[0].to_string(),
        "walltime 7200 s exceeds the candidate limit 3600 s: ask for at most 3600 s"
    );
    assert_eq!(
        refused.to_string(),
        "not a candidate for the convergence area: walltime 7200 s exceeds the candidate limit 3600 s: ask \
         for at most 3600 s; nearest acceptable request: 2 processors, walltime 3600 s, SLO 14400 s"
    );
    // At the limit exactly, a candidate.
    assert_eq!(rules.check(request(2, 3600, Some(100))), Ok(()));
}

#[test]
fn a_wide_job_is_cut_to_the_width_limit() {
    let rules = CandidateRules {
        max_width: Some(4),
        ..CandidateRules::default()
    };
    let refused = rules.check(request(8, 180, None)).unwrap_err();
    assert_eq!(refused.limits[0].name(), "width");
    assert_eq!(
        refused.limits[0].to_string(),
        "8 processors exceed the candidate limit 4: ask for at most 4 processors"
    );
    assert_eq!(refused.nearest, request(4, 180, None));
    assert_eq!(rules.check(request(4, 180, None)), Ok(()));
}

#[test]
fn too_little_slack_asks_for_a_longer_slo() {
    // Slack 300 / 180 = 1.67 < 2: the SLO must be at least 2 × 180 = 360 s.
    let rules = CandidateRules {
        min_slack: Some(2.0),
        ..CandidateRules::default()
    };
    let refused = rules.check(request(1, 180, Some(300))).unwrap_err();
    assert_eq!(
        refused.limits,
        vec![Limit::Slack {
            slo: secs(300),
            walltime: secs(180),
            min: 2.0
        }]
    );
    assert_eq!(
        refused.limits[0].to_string(),
        "slack factor 1.67 (SLO 300 s ÷ walltime 180 s) is below the candidate minimum 2: ask for an SLO of at \
         least 360 s or a shorter walltime"
    );
    assert_eq!(refused.nearest, request(1, 180, Some(360)));
    // Exactly twice the walltime is enough; a job without an SLO never violates one.
    assert_eq!(rules.check(request(1, 180, Some(360))), Ok(()));
    assert_eq!(rules.check(request(1, 180, None)), Ok(()));
}

#[test]
fn the_nearest_request_meets_every_limit_at_once() {
    // 7200 s on 8 processors with an SLO of 10000 s (slack 1.39): cut to
    // 3600 s on 4, where 2 × 3600 = 7200 ≤ 10000 already, so the SLO stays.
    let rules = CandidateRules {
        max_walltime: Some(secs(3600)),
        max_width: Some(4),
        min_slack: Some(2.0),
    };
    let refused = rules.check(request(8, 7200, Some(10_000))).unwrap_err();
    let names: Vec<&str> = refused.limits.iter().map(Limit::name).collect();
    assert_eq!(names, ["walltime", "width", "slack"]);
    assert_eq!(refused.nearest, request(4, 3600, Some(10_000)));
    assert_eq!(rules.check(refused.nearest), Ok(()));
    // With a slack of 3 the cut walltime needs 10800 s.
    let stricter = CandidateRules {
        min_slack: Some(3.0),
        ..rules
    };
    let refused = stricter.check(request(8, 7200, Some(10_000))).unwrap_err();
    assert_eq!(refused.nearest, request(4, 3600, Some(10_800)));
    assert_eq!(stricter.check(refused.nearest), Ok(()));
}

#[test]
fn a_fractional_slo_is_rounded_up_to_a_whole_second() {
    // 1.5 × 7 s = 10.5 s: ask for 11 s.
    let rules = CandidateRules {
        min_slack: Some(1.5),
        ..CandidateRules::default()
    };
    let refused = rules.check(request(1, 7, Some(10))).unwrap_err();
    assert_eq!(refused.nearest.slo, Some(secs(11)));
}

#[test]
fn unusable_rules_name_the_field_and_the_fix() {
    let zero_walltime = CandidateRules {
        max_walltime: Some(Time::ZERO),
        ..CandidateRules::default()
    };
    assert!(zero_walltime.problem().unwrap().contains("max_walltime is 0 s"));
    let zero_width = CandidateRules {
        max_width: Some(0),
        ..CandidateRules::default()
    };
    assert!(zero_width.problem().unwrap().contains("max_width is 0"));
    for slack in [0.0, -1.0, f64::NAN, f64::INFINITY] {
        let rules = CandidateRules {
            min_slack: Some(slack),
            ..CandidateRules::default()
        };
        assert!(rules.problem().unwrap().contains("min_slack"), "{slack}");
    }
}
