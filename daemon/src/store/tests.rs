//! The store's unit tests.

use super::*;

/// An accepted job submitted at 100 with a 30 s SLO.
fn queued(id: u64) -> NewJob<'static> {
    NewJob {
        id,
        owner_uid: None,
        owner_pid: None,
        run_as: None,
        procs: 1,
        walltime: 10.0,
        slo: 30.0,
        argv_json: r#"["/bin/true"]"#,
        env_json: None,
        workdir: None,
        class: None,
        submitted_at: 100.0,
        decision: "accepted",
        predicted_start: None,
        predicted_completion: None,
        violation_seconds: None,
        predicts_violation: false,
        verdicts: Some(PredictorVerdicts {
            exact: false,
            thesis: true,
            learned: false,
        }),
        violation_probability: Some(0.25),
        counter_offer_slo: None,
        state: "queued",
        features_json: None,
        memory_mb: None,
    }
}

#[test]
fn insert_update_and_reopen() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("state.sqlite");
    {
        let mut store = Store::open(&path).unwrap();
        let job = NewJob {
            owner_uid: Some(1000),
            owner_pid: Some(42),
            run_as: None,
            procs: 2,
            predicted_start: Some(100.0),
            predicted_completion: Some(110.0),
            violation_seconds: Some(-20.0),
            ..queued(7)
        };
        store.insert_job(&job).unwrap();
        store
            .job_started(7, 101.0, 4242, Some(99), &RunLimits::default())
            .unwrap();
    }
    let store = Store::open(&path).unwrap();
    assert_eq!(store.max_job_id().unwrap(), 7);
    let job = store.job(7).unwrap().unwrap();
    assert_eq!(job.view.state, "running");
    assert_eq!(job.view.pid, Some(4242));
    assert_eq!(job.pid_start_ticks, Some(99));
    assert_eq!(job.view.argv, vec!["/bin/true".to_string()]);
    assert_eq!(store.jobs(true, 10).unwrap().len(), 1);
}

/// A user's listing reads their own rows: however many newer jobs
/// others submit, theirs are not pushed out of it.
#[test]
fn a_users_jobs_are_read_by_owner() {
    let dir = tempfile::tempdir().unwrap();
    let mut store = Store::open(&dir.path().join("state.sqlite")).unwrap();
    store
        .insert_job(&NewJob {
            owner_uid: Some(1000),
            ..queued(1)
        })
        .unwrap();
    for id in 2..=20 {
        store
            .insert_job(&NewJob {
                owner_uid: Some(1001),
                ..queued(id)
            })
            .unwrap();
    }
    store
        .insert_job(&NewJob {
            owner_uid: Some(1000),
            ..queued(21)
        })
        .unwrap();
    // The first `most` ids newest first, of `uid` (None: all) below `before`.
    let ids = |uid: Option<u32>, before: Option<u64>, most: usize| {
        let mut ids = Vec::new();
        store
            .jobs_newest_first(uid, before, |job| {
                ids.push(job.view.id);
                ids.len() < most
            })
            .unwrap();
        ids
    };
    assert_eq!(ids(Some(1000), None, 5), vec![21, 1]);
    assert_eq!(ids(Some(1000), None, 1), vec![21]);
    assert_eq!(ids(Some(1000), Some(21), 5), vec![1]);
    assert_eq!(ids(Some(1001), Some(10), 100), (2..10).rev().collect::<Vec<_>>());
    assert!(ids(Some(1002), None, 5).is_empty());
    assert_eq!(ids(None, Some(3), 5), vec![2, 1]);
}

#[test]
fn rejected_submissions_are_pruned_by_owner_quota_and_age_never_the_newest_job() {
    let dir = tempfile::tempdir().unwrap();
    let mut store = Store::open(&dir.path().join("state.sqlite")).unwrap();
    let rejected = |id: u64, uid: u32, at: f64| NewJob {
        owner_uid: Some(uid),
        submitted_at: at,
        decision: "rejected",
        state: "rejected",
        ..queued(id)
    };
    for id in 1..=6 {
        store.insert_job(&rejected(id, 1000, id as f64)).unwrap();
    }
    store.insert_job(&rejected(7, 1001, 7.0)).unwrap();
    store
        .insert_job(&NewJob {
            owner_uid: Some(1000),
            ..queued(8)
        })
        .unwrap();
    assert_eq!(store.prune_rejected_of(Some(1000), 2).unwrap(), 4);
    assert!(store.job(4).unwrap().is_none() && store.job(5).unwrap().is_some());
    assert!(
        store.job(7).unwrap().is_some() && store.job(8).unwrap().is_some(),
        "others', accepted kept"
    );
    let events: i64 = store
        .conn
        .query_row("SELECT COUNT(*) FROM events WHERE job_id <= 4", [], |row| {
            row.get(0)
        })
        .unwrap();
    assert_eq!(events, 0, "their events went with them");
    store.insert_job(&rejected(9, 1001, 9.0)).unwrap();
    assert_eq!(
        store.prune_rejected_before(100.0).unwrap(),
        3,
        "5, 6, 7; never 9, the newest"
    );
    assert!(store.job(9).unwrap().is_some() && store.job(8).unwrap().is_some());
    assert_eq!(store.max_job_id().unwrap(), 9);
}

/// Finished jobs go by age of their end and beyond each user's newest
/// `keep`, with their events; queued, running and rejected ones stay, and
/// so does the newest job.
#[test]
fn finished_jobs_are_pruned_by_age_and_owner_quota_never_the_newest_job() {
    let dir = tempfile::tempdir().unwrap();
    let mut store = Store::open(&dir.path().join("state.sqlite")).unwrap();
    let accepted = |id: u64, uid: u32| NewJob {
        owner_uid: Some(uid),
        ..queued(id)
    };
    // 1..=5 of user 1000 end at 10, 20, …, 50; 6 of 1001 at 60.
    for id in 1..=6 {
        store
            .insert_job(&accepted(id, if id == 6 { 1001 } else { 1000 }))
            .unwrap();
        store
            .job_ended(
                id,
                id as f64 * 10.0,
                "completed",
                Some(0),
                false,
                "exit 0",
                Some(false),
            )
            .unwrap();
    }
    store.insert_job(&accepted(7, 1000)).unwrap(); // queued
    store
        .insert_job(&NewJob {
            decision: "rejected",
            state: "rejected",
            ..accepted(8, 1000)
        })
        .unwrap();
    assert_eq!(store.prune_finished_beyond(3).unwrap(), 2, "1000's 1 and 2");
    assert!(store.job(2).unwrap().is_none() && store.job(3).unwrap().is_some());
    assert_eq!(
        store.prune_finished_before(45.0).unwrap(),
        2,
        "3 and 4 ended before 45"
    );
    let left: Vec<u64> = (1..=8).filter(|&id| store.job(id).unwrap().is_some()).collect();
    assert_eq!(left, vec![5, 6, 7, 8]);
    let events: i64 = store
        .conn
        .query_row("SELECT COUNT(*) FROM events WHERE job_id <= 4", [], |row| {
            row.get(0)
        })
        .unwrap();
    assert_eq!(events, 0, "their events went with them");
    // The newest job is kept whatever its age: ids are never given twice.
    store
        .job_ended(7, 70.0, "cancelled", None, false, "cancelled", None)
        .unwrap();
    store.prune_finished_before(1_000.0).unwrap();
    store.prune_rejected_before(1_000.0).unwrap();
    assert_eq!(store.max_job_id().unwrap(), 8);
}

#[test]
fn members_keep_their_latest_tuple_and_routes_follow_their_job() {
    let dir = tempfile::tempdir().unwrap();
    let mut store = Store::open(&dir.path().join("state.sqlite")).unwrap();
    store.put_member("/a.sock", "{\"v\":1}", 10.0).unwrap();
    store.put_member("/b.sock", "{}", 12.0).unwrap();
    store.put_member("/a.sock", "{\"v\":2}", 20.0).unwrap();
    let fresh = store.members(15.0).unwrap();
    assert_eq!(fresh.len(), 1);
    assert_eq!(
        (fresh[0].address.as_str(), fresh[0].tuple_json.as_str()),
        ("/a.sock", "{\"v\":2}")
    );
    assert_eq!(store.members(0.0).unwrap().len(), 2);
    let route = Route {
        id: 0,
        arrival: 100.0,
        slo: 60.0,
        procs: 2,
        walltime: 10.0,
        decision: "accepted".into(),
        counter_offer_slo: None,
        member: Some("/a.sock".into()),
        member_job_id: Some(7),
        resubmissions: 0,
        owner_uid: Some(1000),
    };
    let id = store.insert_route(&route).unwrap();
    assert_eq!(store.route_of("/a.sock", 7).unwrap().map(|r| r.id), Some(id));
    store.route_moved(id, "/b.sock", 3, 1).unwrap();
    assert_eq!(store.route_of("/a.sock", 7).unwrap(), None);
    let moved = store.route(id).unwrap().unwrap();
    assert_eq!(
        (
            moved.member.as_deref(),
            moved.member_job_id,
            moved.resubmissions,
            moved.arrival,
            moved.owner_uid
        ),
        (Some("/b.sock"), Some(3), 1, 100.0, Some(1000))
    );
}

/// A job's SLO verdict is the one the actor recorded, whatever its
/// state says; none until then.
#[test]
fn the_slo_verdict_is_the_one_recorded() {
    let dir = tempfile::tempdir().unwrap();
    let mut store = Store::open(&dir.path().join("state.sqlite")).unwrap();
    for (id, verdict) in [(1, Some(true)), (2, Some(false)), (3, None)] {
        store.insert_job(&queued(id)).unwrap();
        store
            .job_ended(id, 110.0, "failed", None, false, "test", verdict)
            .unwrap();
    }
    let verdict = |id| store.job(id).unwrap().unwrap().view.slo_violated;
    assert_eq!(
        (verdict(1), verdict(2), verdict(3)),
        (Some(true), Some(false), None)
    );
}
