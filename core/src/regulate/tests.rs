use super::*;

fn secs(s: i64) -> Time {
    Time::from_secs(s)
}

/// `procs` × `seconds` in processor-ticks.
fn work(procs: i128, seconds: i64) -> i128 {
    procs * secs(seconds).ticks() as i128
}

const REG: Regulation = Regulation {
    window: Time::from_secs(100),
    threshold: 1.0,
    per_user_share: None,
};

#[test]
fn work_beyond_the_idle_capacity_is_refused_until_the_window_makes_room() {
    // The area has 10 idle processors over the next 100 s: 1000 processor-s.
    let idle = work(10, 100);
    let mut window = RateWindow::default();
    // 4 processors × 100 s at 0: 400 / 1000.
    assert_eq!(
        window.verdict(&REG, secs(0), work(4, 100), idle, None),
        RateVerdict::Within { rate: 0.4 }
    );
    window.record(secs(0), work(4, 100), 1, None);
    // Another 400 at 10: 800 / 1000.
    window.forget(secs(10), REG.window);
    assert_eq!(
        window.verdict(&REG, secs(10), work(4, 100), idle, None),
        RateVerdict::Within { rate: 0.8 }
    );
    window.record(secs(10), work(4, 100), 2, None);
    assert_eq!(window.rate(secs(10), REG.window, idle), 0.8);
    // A third at 20 would make 1200 / 1000: refused; once the first (at 0)
    // leaves the window, at 100, 800 ≤ 1000 again.
    window.forget(secs(20), REG.window);
    assert_eq!(
        window.verdict(&REG, secs(20), work(4, 100), idle, None),
        RateVerdict::Over {
            rate: 1.2,
            later_start: Some(secs(100)),
            share: None,
        }
    );
    // At 100 the first admission has aged out: 400 + 400 fits.
    window.forget(secs(100), REG.window);
    assert_eq!(window.rate(secs(100), REG.window, idle), 0.4);
    assert_eq!(
        window.verdict(&REG, secs(100), work(4, 100), idle, None),
        RateVerdict::Within { rate: 0.8 }
    );
}

#[test]
fn a_wider_job_waits_for_more_of_the_window_to_age_out() {
    // 3 × 300 admitted at 0, 10, 20 (900 of 1000); a 700 job needs 600 gone:
    // the first two, so it may start at 10 + 100 = 110.
    let idle = work(10, 100);
    let mut window = RateWindow::default();
    for t in [0, 10, 20] {
        window.record(secs(t), work(3, 100), t as usize, None);
    }
    window.forget(secs(30), REG.window);
    assert_eq!(
        window.verdict(&REG, secs(30), work(7, 100), idle, None),
        RateVerdict::Over {
            rate: 1.6,
            later_start: Some(secs(110)),
            share: None,
        }
    );
}

#[test]
fn a_job_above_the_threshold_alone_gets_no_later_start() {
    let idle = work(10, 100);
    let window = RateWindow::default();
    assert_eq!(
        window.verdict(&REG, secs(0), work(12, 100), idle, None),
        RateVerdict::Over {
            rate: 1.2,
            later_start: None,
            share: None,
        }
    );
    // Nothing idle at all: every job is over, none can wait its way in.
    assert_eq!(
        window.verdict(&REG, secs(0), work(1, 1), 0, None),
        RateVerdict::Over {
            rate: f64::INFINITY,
            later_start: None,
            share: None,
        }
    );
}

#[test]
fn a_threshold_of_a_half_admits_half_the_idle_capacity() {
    let half = Regulation {
        threshold: 0.5,
        ..REG
    };
    let idle = work(10, 100);
    let mut window = RateWindow::default();
    window.record(secs(0), work(5, 100), 4, None);
    assert!(matches!(
        window.verdict(&half, secs(1), work(1, 1), idle, None),
        RateVerdict::Over {
            later_start: Some(t),
            ..
        } if t == secs(100)
    ));
}

#[test]
fn unusable_settings_name_the_field() {
    let zero = Regulation {
        window: Time::ZERO,
        ..REG
    };
    assert!(zero.problem().unwrap().contains("window is 0 s"));
    for threshold in [0.0, -1.0, f64::NAN, f64::INFINITY] {
        let bad = Regulation { threshold, ..REG };
        assert!(bad.problem().unwrap().contains("threshold"), "{threshold}");
    }
    assert_eq!(REG.problem(), None);
}

#[test]
fn a_read_only_question_skips_work_that_left_the_window() {
    // Admitted at 0 and 50; asked at 120 without forgetting: only the 50 counts.
    let idle = work(10, 100);
    let mut window = RateWindow::default();
    window.record(secs(0), work(4, 100), 5, None);
    window.record(secs(50), work(2, 100), 6, None);
    assert_eq!(window.rate(secs(120), REG.window, idle), 0.2);
    assert_eq!(
        window.verdict(&REG, secs(120), work(9, 100), idle, None),
        RateVerdict::Over {
            rate: 1.1,
            later_start: Some(secs(150)),
            share: None,
        }
    );
}

/// Work that will not run gives its capacity back: a job admitted and
/// cancelled at once holds nothing, one ended halfway holds half.
#[test]
fn work_that_will_not_run_leaves_the_window() {
    let idle = work(10, 100);
    let mut window = RateWindow::default();
    window.record(secs(0), work(10, 100), 7, None);
    assert!(matches!(
        window.verdict(&REG, secs(1), work(1, 100), idle, None),
        RateVerdict::Over { .. }
    ));
    // Cancelled while queued: all of it.
    window.unrun(7, work(10, 100));
    assert_eq!(window.rate(secs(1), REG.window, idle), 0.0);
    // Ended halfway through its walltime: the other half.
    window.record(secs(2), work(10, 100), 8, None);
    window.unrun(8, work(10, 50));
    assert_eq!(window.rate(secs(3), REG.window, idle), 0.5);
    // A job not in the window (never admitted, or aged out) changes nothing;
    // nor does a second report for the same job.
    window.unrun(9, work(10, 100));
    window.unrun(8, work(10, 50));
    assert_eq!(window.rate(secs(3), REG.window, idle), 0.5);
    window.forget(secs(102), REG.window);
    assert_eq!(window.rate(secs(102), REG.window, idle), 0.0);
}

/// With a per-user share, one user's admissions stop at their share of the
/// threshold while another user is still admitted, and the refusal names
/// the share and when the user's own work has aged out.
#[test]
fn a_user_over_their_share_is_refused_while_others_are_admitted() {
    let shared = Regulation {
        per_user_share: Some(0.5),
        ..REG
    };
    let idle = work(10, 100);
    let mut window = RateWindow::default();
    window.record(secs(0), work(4, 100), 1, Some(1000));
    assert_eq!(
        window.verdict(&shared, secs(10), work(2, 100), idle, Some(1000)),
        RateVerdict::Over {
            rate: 0.6,
            later_start: Some(secs(100)),
            share: Some(0.5)
        }
    );
    assert_eq!(
        window.verdict(&shared, secs(10), work(2, 100), idle, Some(2000)),
        RateVerdict::Within { rate: 0.6 },
        "another user: the area's rate"
    );
    assert_eq!(
        window.verdict(&shared, secs(10), work(2, 100), idle, None),
        RateVerdict::Within { rate: 0.6 },
        "no owner: the area's threshold only"
    );
    for share in [0.0, 1.5, f64::NAN] {
        let bad = Regulation {
            per_user_share: Some(share),
            ..REG
        };
        assert!(bad.problem().unwrap().contains("per-user share"), "{share}");
    }
}
