//! Ends reported late: a job's processors are busy until its end is
//! reported, even past its walltime (Batsim reports a kill at the walltime in
//! a later message of the same instant, or microseconds later), and a kill
//! that arrives after the job ended on its own is not an eviction.

mod common;

use common::{cloud, hpc, secs};
use interstice_core::{
    Decision, EndReason, Engine, EngineConfig, JobId, JobState, Lifecycle, Policy, Scheduling, Time,
};

fn starts(decisions: &[Decision]) -> Vec<(JobId, String)> {
    decisions
        .iter()
        .filter_map(|d| match d {
            Decision::Start { id, procs } => Some((*id, procs.to_string())),
            _ => None,
        })
        .collect()
}

/// Every policy: a 4-processor job reaches its walltime at 10 s and a
/// second one waits for its processors. Until the first one's end is
/// reported, the second must not start, at 10 s or a few ticks later.
#[test]
fn an_overdue_job_keeps_its_processors_until_its_end_is_reported() {
    for policy in Policy::ALL.into_iter().filter(|p| p.allows(Scheduling::HpcFirst)) {
        let mut engine = Engine::new(EngineConfig::new(4, policy)).unwrap();
        engine.submit(hpc(1, 0, 10, 50, 4)).unwrap();
        assert_eq!(starts(&engine.schedule(secs(0))).len(), 1, "{policy}");
        engine.submit(hpc(2, 1, 10, 5, 4)).unwrap();
        assert!(starts(&engine.schedule(secs(1))).is_empty(), "{policy}");
        assert_eq!(engine.overdue(secs(9)), 0, "{policy}");
        assert_eq!(engine.overdue(secs(10)), 1, "{policy}");
        for late in [0, 1, 3] {
            let now = secs(10) + Time::from_ticks(late);
            assert!(
                starts(&engine.schedule(now)).is_empty(),
                "{policy}: job 2 started at {now} on processors job 1 still holds"
            );
        }
        let end = secs(10) + Time::from_ticks(4);
        engine
            .job_ended(JobId(1), end, EndReason::WalltimeReached)
            .unwrap();
        assert_eq!(engine.overdue(end), 0, "{policy}");
        let mut started = starts(&engine.schedule(end));
        if started.is_empty() {
            // A reservation moved to the next tick starts there.
            let wake = engine.next_wakeup().expect("job 2 is planned");
            assert!(wake <= end + Time::from_ticks(1), "{policy}: woke at {wake}");
            started = starts(&engine.schedule(wake));
        }
        assert_eq!(started, vec![(JobId(2), "0-3".to_string())], "{policy}");
    }
}

/// A cloud job past its walltime keeps its processors from the next cloud
/// job planned on them, and a cloud prediction made meanwhile sees them busy.
#[test]
fn an_overdue_cloud_job_keeps_its_processors() {
    for policy in Policy::ALL.into_iter().filter(|p| p.allows(Scheduling::HpcFirst)) {
        let mut engine = Engine::new(EngineConfig::new(2, policy)).unwrap();
        engine.submit(cloud(1, 0, 10, 10, 2, 100)).unwrap();
        assert_eq!(starts(&engine.schedule(secs(0))).len(), 1, "{policy}");
        engine.submit(cloud(2, 5, 10, 5, 2, 100)).unwrap();
        assert!(starts(&engine.schedule(secs(5))).is_empty(), "{policy}");
        assert_eq!(engine.next_wakeup(), Some(secs(10)), "{policy}");
        assert!(
            starts(&engine.schedule(secs(10))).is_empty(),
            "{policy}: cloud job 2 started on job 1's processors before job 1's end was reported"
        );
        let prediction = engine
            .submit(cloud(3, 10, 10, 5, 2, 100))
            .unwrap()
            .into_prediction()
            .expect("a cloud job gets a prediction");
        assert!(
            prediction.start.is_some_and(|s| s > secs(10)),
            "{policy}: {prediction:?}"
        );
        engine
            .job_ended(JobId(1), secs(10), EndReason::WalltimeReached)
            .unwrap();
        let mut started = starts(&engine.schedule(secs(10)));
        if started.is_empty() {
            let wake = engine.next_wakeup().expect("job 2 is planned");
            started = starts(&engine.schedule(wake));
        }
        assert_eq!(started.first().map(|s| s.0), Some(JobId(2)), "{policy}");
    }
}

/// A cloud job evicted at the instant it completes: the shell learns after
/// the kill was sent that the job had completed. It is a success, not an
/// eviction, and it is not resubmitted.
#[test]
fn a_kill_that_arrives_after_the_job_completed_is_not_an_eviction() {
    for policy in Policy::ALL.into_iter().filter(|p| p.allows(Scheduling::HpcFirst)) {
        let mut config = EngineConfig::new(2, policy);
        config.lifecycle = Lifecycle {
            max_resubmissions: 3,
            max_time_in_system: None,
        };
        let mut engine = Engine::new(config).unwrap();
        engine.submit(cloud(1, 0, 100, 10, 2, 300)).unwrap();
        assert_eq!(starts(&engine.schedule(secs(0))).len(), 1, "{policy}");
        engine.submit(hpc(2, 10, 50, 50, 2)).unwrap();
        let decisions = engine.schedule(secs(10));
        assert!(
            decisions.contains(&Decision::Evict { id: JobId(1) }),
            "{policy}: {decisions:?}"
        );
        engine
            .job_ended(JobId(1), secs(10), EndReason::Completed)
            .unwrap();
        assert_eq!(engine.job_state(JobId(1)), Some(JobState::Ended), "{policy}");
        let record = engine.records().next().unwrap();
        assert_eq!(record.evictions, 0, "{policy}");
        assert_eq!(record.lost_work, Time::ZERO, "{policy}");
        assert_eq!(record.end, Some(secs(10)), "{policy}");
        assert_eq!(record.end_reason, Some(EndReason::Completed), "{policy}");
        // A real eviction is still an eviction, and is resubmitted.
        engine
            .job_ended(JobId(2), secs(60), EndReason::Completed)
            .unwrap();
        engine.submit(cloud(3, 60, 100, 90, 2, 300)).unwrap();
        engine.schedule(secs(60));
        engine.submit(hpc(4, 70, 50, 50, 2)).unwrap();
        let decisions = engine.schedule(secs(70));
        assert!(
            decisions.contains(&Decision::Evict { id: JobId(3) }),
            "{policy}: {decisions:?}"
        );
        engine.job_ended(JobId(3), secs(70), EndReason::Evicted).unwrap();
        assert!(
            matches!(engine.job_state(JobId(3)), Some(JobState::Queued { .. })),
            "{policy}"
        );
        assert_eq!(engine.records().nth(2).unwrap().evictions, 1, "{policy}");
    }
}
