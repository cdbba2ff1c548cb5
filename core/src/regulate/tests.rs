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
};

#[test]
fn work_beyond_the_idle_capacity_is_refused_until_the_window_makes_room() {
    // The area has 10 idle processors over the next 100 s: 1000 processor-s.
    let idle = work(10, 100);
    let mut window = RateWindow::default();
    // 4 processors × 100 s at 0: 400 / 1000.
    assert_eq!(
        window.verdict(&REG, secs(0), work(4, 100), idle),
        RateVerdict::Within { rate: 0.4 }
    );
    window.record(secs(0), work(4, 100));
    // Another 400 at 10: 800 / 1000.
    window.forget(secs(10), REG.window);
    assert_eq!(
        window.verdict(&REG, secs(10), work(4, 100), idle),
        RateVerdict::Within { rate: 0.8 }
    );
    window.record(secs(10), work(4, 100));
    assert_eq!(window.rate(secs(10), REG.window, idle), 0.8);
    // A third at 20 would make 1200 / 1000: refused; once the first (at 0)
    // leaves the window, at 100, 800 ≤ 1000 again.
    window.forget(secs(20), REG.window);
    assert_eq!(
        window.verdict(&REG, secs(20), work(4, 100), idle),
        RateVerdict::Over {
            rate: 1.2,
            later_start: Some(secs(100))
        }
    );
    // At 100 the first admission has aged out: 400 + 400 fits.
    window.forget(secs(100), REG.window);
    assert_eq!(window.rate(secs(100), REG.window, idle), 0.4);
    assert_eq!(
        window.verdict(&REG, secs(100), work(4, 100), idle),
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
        window.record(secs(t), work(3, 100));
    }
    window.forget(secs(30), REG.window);
    assert_eq!(
        window.verdict(&REG, secs(30), work(7, 100), idle),
        RateVerdict::Over {
            rate: 1.6,
            later_start: Some(secs(110))
        }
    );
}

#[test]
fn a_job_above_the_threshold_alone_gets_no_later_start() {
    let idle = work(10, 100);
    let window = RateWindow::default();
    assert_eq!(
        window.verdict(&REG, secs(0), work(12, 100), idle),
        RateVerdict::Over {
            rate: 1.2,
            later_start: None
        }
    );
    // Nothing idle at all: every job is over, none can wait its way in.
    assert_eq!(
        window.verdict(&REG, secs(0), work(1, 1), 0),
        RateVerdict::Over {
            rate: f64::INFINITY,
            later_start: None
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
    window.record(secs(0), work(5, 100));
    assert!(matches!(
        window.verdict(&half, secs(1), work(1, 1), idle),
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
    window.record(secs(0), work(4, 100));
    window.record(secs(50), work(2, 100));
    assert_eq!(window.rate(secs(120), REG.window, idle), 0.2);
    assert_eq!(
        window.verdict(&REG, secs(120), work(9, 100), idle),
        RateVerdict::Over {
            rate: 1.1,
            later_start: Some(secs(150))
        }
    );
}
