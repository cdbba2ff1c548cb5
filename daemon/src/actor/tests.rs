//! The actor on a manual clock: time-dependent decisions checked at exact
//! instants, without sleeping.

use super::cloud_job::Phase;
use super::command::{Command, ErrorKind, Owner};
use super::{Actor, ActorSetup};
use crate::backend::{HpcUpdate, PlanUpdate};
use crate::clock::{Clock, ManualClock};
use crate::config::Config;
use crate::exec::Executor;
use crate::metrics::Metrics;
use crate::store::Store;
use interstice_api::wire::SubmitRequest;
use interstice_core::{MirroredPlan, Occupation, ProcSet, Time};
use std::os::unix::fs::PermissionsExt;
use std::path::Path;
use tokio::sync::oneshot;

/// Where the manual clock starts (an arbitrary epoch instant).
const T0: Time = Time::from_secs(1_700_000_000);

/// A caller on the Unix socket with root's credentials.
const ROOT: Owner = Owner {
    uid: Some(0),
    gid: Some(0),
    pid: None,
};

/// One microsecond, the engine's tick.
const TICK: Time = Time::from_ticks(1);

/// A temporary directory for an actor's state; the jobs' working
/// directories in it (each its own tmpfs when the tests run as root) are
/// unmounted when it goes.
struct TestDir(tempfile::TempDir);

impl TestDir {
    fn path(&self) -> &Path {
        self.0.path()
    }
}

impl Drop for TestDir {
    fn drop(&mut self) {
        crate::exec::end_all_jobs(&self.0.path().join("state"));
    }
}

fn test_dir() -> TestDir {
    TestDir(tempfile::tempdir().unwrap())
}

/// An actor on `clock` with `config` (YAML, `state_dir` filled in) under
/// `dir`. Jobs run through a shell stand-in for `intersticed __exec-job`.
fn actor(dir: &Path, clock: &ManualClock, config: &str) -> Actor {
    // Jobs run as `nobody` when the tests run as root: the directory must be reachable.
    std::fs::set_permissions(dir, std::fs::Permissions::from_mode(0o755)).unwrap();
    let wrapper = dir.join("exec-job.sh");
    std::fs::write(
        &wrapper,
        "#!/bin/sh\n[ \"$1\" = __check-job ] && exit 0\nwhile [ \"$1\" != -- ]; do shift; done\nshift\nexec \"$@\"\n",
    )
    .unwrap();
    std::fs::set_permissions(&wrapper, std::fs::Permissions::from_mode(0o755)).unwrap();
    // The state directory, and beside it the jobs' working directories, in `dir`.
    let state_dir = dir.join("state");
    std::fs::create_dir_all(&state_dir).unwrap();
    let mut config = Config::parse(&format!("state_dir: {}\n{config}", state_dir.display())).unwrap();
    // The shell stand-in joins no cgroup: leave none behind.
    config.execution.cgroup = crate::config::CgroupMode::None;
    assert_eq!(config.validate(), Vec::<String>::new());
    // As the server does: the classes' series exist when the config has classes.
    let mut metrics = Metrics::new();
    if let Some(table) = config.class_table().unwrap() {
        metrics.set_classes(table).unwrap();
    }
    Actor::start(ActorSetup {
        store: Store::open(&dir.join("interstice.sqlite")).unwrap(),
        metrics,
        executor: Executor::new(&state_dir, wrapper, config.execution.clone()).unwrap(),
        clock: Clock::Manual(clock.clone()),
        config,
    })
    .unwrap()
}

/// Send the command `make` builds and take the answer.
fn ask<T>(
    actor: &mut Actor,
    make: impl FnOnce(super::command::Reply<T>) -> Command,
) -> Result<T, super::ApiError> {
    let (reply, answer) = oneshot::channel();
    actor.handle(make(reply));
    answer.blocking_recv().expect("the actor answers every request")
}

/// Submit, as root, a one-processor `sleep seconds` with this `(walltime,
/// slo)` and class.
fn submit_sleep(
    actor: &mut Actor,
    (walltime, slo): (f64, f64),
    seconds: u32,
    class: Option<&str>,
) -> interstice_api::wire::SubmitResponse {
    let request = SubmitRequest {
        class: class.map(String::from),
        ..SubmitRequest::new(&["/bin/sleep", &seconds.to_string()], 1, walltime, slo)
    };
    ask(actor, |reply| Command::Submit {
        request,
        owner: ROOT,
        reply,
    })
    .unwrap()
}

/// Submit `argv` (1 processor, `(walltime, slo)`) as user `uid`.
fn submit_as(
    actor: &mut Actor,
    uid: u32,
    argv: &[&str],
    (walltime, slo): (f64, f64),
) -> Result<interstice_api::wire::SubmitResponse, super::ApiError> {
    let request = SubmitRequest::new(argv, 1, walltime, slo);
    let owner = Owner {
        uid: Some(uid),
        gid: Some(uid),
        pid: None,
    };
    ask(actor, |reply| Command::Submit {
        request,
        owner,
        reply,
    })
}

/// Cancel job `id` as root.
fn cancel(actor: &mut Actor, id: u64) {
    ask(actor, |reply| Command::Cancel {
        id,
        owner: ROOT,
        reply,
    })
    .unwrap();
}

/// Tick, at the clock's time, until the actor has seen the jobs `ids` end
/// (cancelled: their processes were killed, and the kernel reaps them on
/// its own time, so on a loaded machine the first tick can come before;
/// two tests failed so under CI load). Gives up after 30 s of real time.
fn tick_until_gone(actor: &mut Actor, ids: &[u64]) {
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(30);
    loop {
        actor.tick();
        if ids.iter().all(|id| !actor.jobs.contains_key(id)) || std::time::Instant::now() > deadline {
            return;
        }
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
}

/// Kill the processes of the actor's running jobs (they would outlive the test).
fn kill_children(actor: &mut Actor) {
    for job in actor.jobs.values_mut() {
        if let Phase::Running {
            child: Some(child), ..
        } = &mut job.phase
        {
            let _ = child.kill();
            let _ = child.wait();
        }
    }
}

/// A client that gave up (its connection closed before the engine reached
/// its request) gets no job it never heard of; an HPC job it reported
/// stands all the same.
#[test]
fn a_submission_whose_client_went_away_is_not_carried_out() {
    let dir = test_dir();
    let clock = ManualClock::new(Time::from_secs(1_000));
    let mut actor = actor(
        dir.path(),
        &clock,
        "engine: {procs: 4}\nbackend: {type: plugin}\n",
    );
    let (reply, answer) = oneshot::channel();
    drop(answer);
    actor.handle(Command::Submit {
        request: SubmitRequest::new(&["/bin/true"], 1, 60.0, 600.0),
        owner: ROOT,
        reply,
    });
    assert!(
        actor.store.jobs(false, 10).unwrap().is_empty(),
        "no job was stored"
    );
    let (reply, answer) = oneshot::channel();
    drop(answer);
    actor.handle(Command::HpcEvent {
        event: crate::backend::HpcEvent {
            kind: interstice_api::wire::EventKind::Started,
            id: "hpc-1".to_string(),
            procs: 4,
            walltime: Time::from_secs(100),
            time: Time::from_secs(1_000),
            runtime: None,
            cpus: None,
        },
        owner: ROOT,
        reply,
    });
    let answer = submit_sleep(&mut actor, (60.0, 100.0), 1, None);
    assert_eq!(
        answer.decision, "rejected",
        "the HPC job holds every processor: {answer:?}"
    );
}

#[test]
fn a_slurm_plan_goes_stale_exactly_plan_stale_seconds_after_the_last_read() {
    let dir = test_dir();
    let clock = ManualClock::new(T0);
    let mut actor = actor(
        dir.path(),
        &clock,
        "engine: {procs: 4}\nbackend: {type: slurm, bf_interval_seconds: 5, plan_stale_seconds: 15}\n",
    );
    let health = |actor: &mut Actor| ask(actor, |reply| Command::Health { reply });

    let err = health(&mut actor).unwrap_err();
    assert_eq!(err.kind, ErrorKind::Unavailable);
    assert!(err.message.starts_with("no plan yet"), "{}", err.message);

    actor.handle(Command::Hpc(HpcUpdate::Plan(PlanUpdate {
        time: T0,
        plan: MirroredPlan::default(),
        unplanned_holds: Vec::new(),
        settled_holds: Vec::new(),
    })));
    assert_eq!(health(&mut actor).unwrap().plan_age_seconds, Some(0.0));

    clock.advance(Time::from_secs(15));
    let at_the_limit = health(&mut actor).unwrap();
    assert_eq!(at_the_limit.plan_age_seconds, Some(15.0));

    clock.advance(TICK);
    let err = health(&mut actor).unwrap_err();
    assert_eq!(err.kind, ErrorKind::Unavailable);
    assert!(
        err.message.starts_with("the HPC plan is stale"),
        "{}",
        err.message
    );
}

#[test]
fn walltime_is_enforced_at_exactly_start_plus_walltime() {
    let dir = test_dir();
    let clock = ManualClock::new(T0);
    // A huge busy margin: the node gate never holds the start on a loaded machine.
    let mut actor = actor(
        dir.path(),
        &clock,
        "engine: {procs: 2}\nnode: {busy_margin_cpus: 1000}\nexecution: {grace_seconds: 5}\n",
    );
    let answer = submit_sleep(&mut actor, (10.0, 100.0), 30, None);
    assert_eq!(answer.decision, "accepted");
    assert_eq!(answer.predicted_start, Some(T0.as_secs_f64()));
    let id = answer.id;
    let kill_sent = |actor: &Actor| match &actor.jobs[&id].phase {
        Phase::Running { kill, .. } => kill.is_some(),
        other => panic!("job {id} is not running: {other:?}"),
    };

    clock.set(T0 + Time::from_secs(10) - TICK);
    actor.tick();
    assert!(!kill_sent(&actor), "stopped before its walltime");

    clock.advance(TICK);
    actor.tick();
    assert!(kill_sent(&actor), "not stopped at its walltime");

    // SIGTERM was sent: wait for the process (not for time), then reap it.
    if let Phase::Running {
        child: Some(child), ..
    } = &mut actor.jobs.get_mut(&id).unwrap().phase
    {
        child.wait().unwrap();
    }
    actor.tick();
    let view = ask(&mut actor, |reply| Command::Job {
        id,
        owner: ROOT,
        reply,
    })
    .unwrap();
    assert_eq!(view.state, "timeout");
    assert_eq!(view.ended_at, Some((T0 + Time::from_secs(10)).as_secs_f64()));
    assert_eq!(view.slo_violated, Some(false));
    assert_eq!(actor.metrics.slo_violations.get(), 0);
}

/// `POST /v1/predict` as job_submit/interstice asks it (`admission: true`).
fn admit(actor: &mut Actor, procs: u32, walltime: f64, slo: f64) -> interstice_api::wire::PredictResponse {
    let request = interstice_api::wire::PredictRequest {
        procs,
        walltime,
        slo,
        admission: true,
        features: Vec::new(),
        class: None,
        bytes: None,
    };
    ask(actor, |reply| Command::Predict {
        request,
        owner: ROOT,
        reply,
    })
    .unwrap()
}

/// Holds released so far with `result`.
fn released(actor: &Actor, result: &str) -> u64 {
    actor
        .metrics
        .admission_holds_released
        .with_label_values(&[result])
        .get()
}

fn plan_update(time: Time, jobs: Vec<Occupation>, settled_holds: Vec<(u64, u32)>) -> Command {
    Command::Hpc(HpcUpdate::Plan(PlanUpdate {
        time,
        plan: MirroredPlan {
            jobs,
            ..MirroredPlan::default()
        },
        unplanned_holds: Vec::new(),
        settled_holds,
    }))
}

/// Evictable jobs admitted between two reads of Slurm's plan see each other:
/// a 2-processor hole for 100 s takes exactly one 2-processor, 60 s job
/// whose SLO leaves no room to wait; the next ones are refused with a
/// counter-offer, until the hold is settled by Slurm listing the job, or
/// expires.
#[test]
fn admissions_between_two_plan_reads_hold_what_they_promise() {
    let dir = test_dir();
    let clock = ManualClock::new(T0);
    let mut actor = actor(
        dir.path(),
        &clock,
        "engine: {procs: 4, admission: reject-predicted}\n\
         backend: {type: slurm, bf_interval_seconds: 5, hold_seconds: 30}\n",
    );
    // Slurm runs a job on processors 0-1 for 100 s: 2-3 are the hole.
    let busy = Occupation {
        procs: ProcSet::range(0, 1),
        start: T0,
        end: T0 + Time::from_secs(100),
    };
    actor.handle(plan_update(T0, vec![busy.clone()], Vec::new()));
    let first = admit(&mut actor, 2, 60.0, 70.0);
    assert_eq!(first.decision, "accepted");
    let hold = first.hold.expect("an admitted job is held");
    let answers: Vec<_> = (0..5).map(|_| admit(&mut actor, 2, 60.0, 70.0)).collect();
    for answer in &answers {
        assert_eq!(answer.decision, "rejected", "{answer:?}");
        assert_eq!(answer.hold, None);
        assert_eq!(
            answer.counter_offer_slo,
            Some(120.0),
            "after the held job: {answer:?}"
        );
    }
    assert_eq!(actor.metrics.admission_holds.get(), 1);
    // A read of the plan that does not list the job yet keeps the hold.
    clock.advance(Time::from_secs(5));
    actor.handle(plan_update(clock.now(), vec![busy.clone()], Vec::new()));
    assert_eq!(admit(&mut actor, 2, 60.0, 70.0).decision, "rejected");
    // Slurm lists it, running on 2-3: its own place stands for it now.
    let listed = Occupation {
        procs: ProcSet::range(2, 3),
        start: clock.now(),
        end: clock.now() + Time::from_secs(60),
    };
    // A job of another size naming the hold neither releases it…
    actor.handle(plan_update(clock.now(), vec![busy.clone()], vec![(hold, 4)]));
    assert_eq!(actor.metrics.admission_holds.get(), 1);
    // …the job it was taken for does.
    actor.handle(plan_update(
        clock.now(),
        vec![busy.clone(), listed],
        vec![(hold, 2)],
    ));
    assert_eq!(actor.metrics.admission_holds.get(), 0);
    assert_eq!(released(&actor, "settled"), 1);
    assert_eq!(admit(&mut actor, 2, 60.0, 70.0).decision, "rejected");
    // A hold whose job Slurm never lists expires.
    actor.handle(plan_update(clock.now(), Vec::new(), Vec::new()));
    let lone = admit(&mut actor, 4, 60.0, 70.0);
    assert!(lone.hold.is_some(), "{lone:?}");
    assert_eq!(admit(&mut actor, 1, 60.0, 70.0).decision, "rejected");
    clock.advance(Time::from_secs(30));
    actor.tick();
    actor.handle(plan_update(clock.now(), Vec::new(), Vec::new()));
    assert_eq!(released(&actor, "expired"), 1);
    assert_eq!(
        actor.driver.engine().jobs_held(),
        0,
        "the engine forgets released holds (and refused ones): a daemon's lifetime of admissions does not pile up"
    );
    assert_eq!(admit(&mut actor, 1, 60.0, 70.0).decision, "accepted");
}

/// The job `id` gave way: it is being stopped for an eviction, or already
/// back in the queue (the engine resubmits an evicted job).
fn gave_way(actor: &Actor, id: u64) -> bool {
    match &actor.jobs[&id].phase {
        Phase::Running { kill: Some(kill), .. } => kill.reason == super::cloud_job::KillReason::Evict,
        Phase::Running { kill: None, .. } => false,
        Phase::Queued | Phase::Held | Phase::HandingOver { .. } => true,
    }
}

/// `engine.eviction: priority`: when HPC work the engine plans needs a
/// processor held by cloud jobs, the least important class gives way (a
/// bronze job, on the processor FCFS would not name), where by default the
/// gold job on the planned processor is evicted.
#[test]
fn engine_eviction_evicts_by_class_not_by_the_planned_processor() {
    let run = |eviction: &str| {
        let dir = test_dir();
        let clock = ManualClock::new(T0);
        let mut actor = actor(
            dir.path(),
            &clock,
            &format!(
                "engine: {{procs: 2, policy: fcfs{eviction}}}\nnode: {{busy_margin_cpus: 1000}}\n\
                 classes: [{{name: gold, slo: 1.0}}, {{name: bronze, slo: 0.5}}]\ndefault_class: bronze\n"
            ),
        );
        let mut submit = |class: Option<&str>| {
            let answer = submit_sleep(&mut actor, (600.0, 1200.0), 60, class);
            assert_eq!(answer.decision, "accepted");
            answer.id
        };
        // Bronze first (the highest free processor, 1), then gold (0).
        let bronze = submit(None);
        let gold = submit(Some("gold"));
        clock.advance(Time::from_secs(1));
        actor.tick();
        actor.handle(Command::Hpc(HpcUpdate::Event(crate::backend::HpcEvent {
            kind: interstice_api::wire::EventKind::Submitted,
            id: "hpc-1".to_string(),
            procs: 1,
            walltime: Time::from_secs(100),
            time: clock.now(),
            runtime: None,
            cpus: None,
        })));
        actor.tick();
        let evicted = (gave_way(&actor, bronze), gave_way(&actor, gold));
        for id in [bronze, gold] {
            if let Phase::Running {
                child: Some(child), ..
            } = &mut actor.jobs.get_mut(&id).unwrap().phase
            {
                let _ = child.kill();
                let _ = child.wait();
            }
        }
        evicted
    };
    assert_eq!(run(", eviction: priority"), (true, false), "bronze gives way");
    assert_eq!(
        run(", eviction: qos-driven"),
        (true, false),
        "bronze is furthest ahead of its SLO"
    );
    assert_eq!(
        run(""),
        (false, true),
        "by default the plan's processor 0, gold's"
    );
}

/// A row that names no owner (from before owners were required, or written
/// by someone else into the database) is checked as root's job: with root's
/// jobs running as `execution.user`, one recorded to run as root never runs.
#[test]
fn a_recovered_job_of_no_owner_is_checked_as_roots() {
    if !nix::unistd::geteuid().is_root() {
        return; // Jobs run as the daemon's own user: nothing to check.
    }
    let dir = test_dir();
    let clock = ManualClock::new(T0);
    {
        let mut store = Store::open(&dir.path().join("interstice.sqlite")).unwrap();
        let root = crate::identity::RunAs { uid: 0, gid: 0 };
        store
            .insert_job(&crate::store::NewJob {
                id: 1,
                owner_uid: None,
                owner_pid: None,
                run_as: Some(&root),
                procs: 1,
                walltime: 10.0,
                slo: 600.0,
                argv_json: r#"["/bin/true"]"#,
                env_json: None,
                workdir: None,
                class: None,
                submitted_at: T0.as_secs_f64(),
                decision: "accepted",
                predicted_start: None,
                predicted_completion: None,
                violation_seconds: None,
                predicts_violation: false,
                verdicts: None,
                violation_probability: None,
                counter_offer_slo: None,
                state: "queued",
                features_json: None,
                memory_mb: None,
            })
            .unwrap();
    }
    let mut actor = actor(
        dir.path(),
        &clock,
        "engine: {procs: 2}\nnode: {busy_margin_cpus: 1000}\n",
    );
    actor.tick();
    let view = ask(&mut actor, |reply| Command::Job {
        id: 1,
        owner: ROOT,
        reply,
    })
    .unwrap();
    assert_eq!((view.state.as_str(), view.pid), ("failed", None), "{view:?}");
    // It never ran: no SLO verdict, as in the metrics (not "met").
    assert_eq!(view.slo_violated, None, "{view:?}");
}

/// An access check that does not finish (a hung NFS home, a user's FUSE
/// mount) holds the engine's thread for its whole timeout; the same user's
/// next submissions are then refused at once for a while, not checked again.
#[test]
fn after_an_access_check_times_out_the_user_is_refused_at_once_for_a_while() {
    if !nix::unistd::geteuid().is_root() {
        return; // Checks run in-process for the daemon's own user: they cannot hang.
    }
    let dir = test_dir();
    let clock = ManualClock::new(T0);
    let mut actor = actor(
        dir.path(),
        &clock,
        "engine: {procs: 2}\nnode: {busy_margin_cpus: 1000}\n",
    );
    let wrapper = dir.path().join("exec-job.sh");
    let set_check = |check: &str| {
        std::fs::write(
            &wrapper,
            format!("#!/bin/sh\n[ \"$1\" = __check-job ] && {check}\nwhile [ \"$1\" != -- ]; do shift; done\nshift\nexec \"$@\"\n"),
        )
        .unwrap();
    };
    let submit = |actor: &mut Actor| {
        let request = SubmitRequest::new(&["/bin/true"], 1, 10.0, 100.0);
        let started = std::time::Instant::now();
        let answer = ask(actor, |reply| Command::Submit {
            request,
            owner: ROOT,
            reply,
        });
        (answer, started.elapsed())
    };
    set_check("exec sleep 10");
    let (answer, took) = submit(&mut actor);
    let err = answer.unwrap_err();
    assert_eq!(err.kind, ErrorKind::BadRequest, "{err:?}");
    assert!(err.message.contains("not checked within"), "{}", err.message);
    assert!(took >= crate::exec::ACCESS_CHECK_TIMEOUT, "{took:?}");
    // Refused at once, without a check, until the back-off has passed.
    let (answer, took) = submit(&mut actor);
    let err = answer.unwrap_err();
    assert_eq!(err.kind, ErrorKind::Unavailable, "{err:?}");
    assert!(took < std::time::Duration::from_millis(500), "{took:?}");
    set_check("exit 0");
    clock.advance(super::admission::CHECK_BACKOFF - TICK);
    assert_eq!(submit(&mut actor).0.unwrap_err().kind, ErrorKind::Unavailable);
    clock.advance(TICK);
    assert_eq!(submit(&mut actor).0.unwrap().decision, "accepted");
}

/// `engine.candidates` at `sbatch`: a job over the walltime limit is refused
/// through job_submit's admission with the limit it breaks and the nearest
/// acceptable request, and counted by reason and by limit.
#[test]
fn a_non_candidate_admission_gets_the_nearest_request() {
    let dir = test_dir();
    let clock = ManualClock::new(T0);
    let mut actor = actor(
        dir.path(),
        &clock,
        "engine: {procs: 4, admission: admit-all, candidates: {max_walltime_seconds: 600, max_width: 2}}\n\
         backend: {type: slurm, bf_interval_seconds: 5, hold_seconds: 30}\n",
    );
    actor.handle(plan_update(T0, Vec::new(), Vec::new()));
    // 4 processors for 1200 s: over both limits; cut to 2 for 600 s (the
    // SLO of 2400 s is kept: no slack limit).
    let refused = admit(&mut actor, 4, 1200.0, 2400.0);
    assert_eq!(refused.decision, "rejected");
    assert_eq!((refused.hold, refused.counter_offer_slo), (None, None));
    let refusal = refused.refusal.expect("the refusal says why");
    assert_eq!(refusal.reason, "not-candidate");
    assert_eq!(
        refusal.nearest,
        Some(interstice_api::wire::NearestRequest {
            procs: 2,
            walltime: 600.0,
            slo: Some(2400.0)
        })
    );
    assert!(
        refusal
            .message
            .contains("walltime 1200 s exceeds the candidate limit 600 s: ask for at most 600 s"),
        "{}",
        refusal.message
    );
    let count = |family: &str, label: &str| {
        let line = format!("interstice_{family}{{{label}}} ");
        actor
            .metrics
            .render()
            .lines()
            .find_map(|l| l.strip_prefix(&line).map(str::to_string))
            .unwrap_or_else(|| panic!("{line} not exported"))
    };
    assert_eq!(count("admission_refusals_total", "reason=\"not-candidate\""), "1");
    assert_eq!(count("candidate_limits_broken_total", "limit=\"walltime\""), "1");
    assert_eq!(count("candidate_limits_broken_total", "limit=\"width\""), "1");
    assert_eq!(count("candidate_limits_broken_total", "limit=\"slack\""), "0");
    // Within the limits, admitted as before.
    let admitted = admit(&mut actor, 2, 600.0, 2400.0);
    assert_eq!((admitted.decision.as_str(), admitted.refusal), ("accepted", None));
}

/// `engine.regulate` on local submissions: 4 idle processors over a 100 s
/// window are 400 processor-seconds; four 1 × 100 s jobs fill them (rate
/// 1), the fifth is refused with the SLO of the start the window allows
/// (T0 + 100, when the first four leave it; the plan has room then too):
/// F^SLO = 100 + 100 = 200 s. The rate and the decisions are exported.
#[test]
fn the_regulator_refuses_past_the_idle_capacity_and_exports_its_rate() {
    let dir = test_dir();
    let clock = ManualClock::new(T0);
    let mut actor = actor(
        dir.path(),
        &clock,
        "engine: {procs: 4, admission: admit-all, regulate: {window_seconds: 100, threshold: 1}}\n\
         backend: {type: plugin}\n",
    );
    for _ in 0..4 {
        let answer = submit_sleep(&mut actor, (100.0, 1000.0), 1000, None);
        assert_eq!(answer.decision, "accepted", "{answer:?}");
    }
    assert_eq!(actor.metrics.regulator_rate.get(), 1.0);
    assert_eq!(actor.metrics.regulator_threshold.get(), 1.0);
    let refused = submit_sleep(&mut actor, (100.0, 1000.0), 1000, None);
    assert_eq!(refused.decision, "rejected");
    assert_eq!(refused.counter_offer_slo, Some(200.0));
    let refusal = refused.refusal.expect("the refusal says why");
    assert_eq!((refusal.reason.as_str(), refusal.nearest), ("regulated", None));
    assert!(
        refusal.message.contains("1.25 times the area's idle capacity"),
        "{}",
        refusal.message
    );
    let scrape = actor.metrics.render();
    assert!(
        scrape.contains("interstice_admission_refusals_total{reason=\"regulated\"} 1\n"),
        "{scrape}"
    );
    assert!(scrape.contains("interstice_regulator_rate 1\n"), "{scrape}");
    // Prometheus's own checker reads the families as they are exported.
    if let Ok(mut promtool) = std::process::Command::new("promtool")
        .args(["check", "metrics"])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
    {
        use std::io::Write;
        promtool
            .stdin
            .take()
            .unwrap()
            .write_all(scrape.as_bytes())
            .unwrap();
        let output = promtool.wait_with_output().unwrap();
        let text =
            String::from_utf8_lossy(&output.stderr).to_string() + &String::from_utf8_lossy(&output.stdout);
        for family in [
            "admission_refusals_total",
            "candidate_limits_broken_total",
            "regulator_rate",
            "regulator_threshold",
        ] {
            assert!(!text.contains(family), "promtool on interstice_{family}: {text}");
        }
    }
    // The window moves on: at T0 + 100 the four have left it.
    clock.advance(Time::from_secs(100));
    actor.tick();
    let later = submit_sleep(&mut actor, (100.0, 1000.0), 1, None);
    assert_eq!(later.decision, "accepted", "{later:?}");
}

/// An HPC job reported started on a CPU (what `spank_interstice` sends:
/// the cores Slurm allocated) holds that CPU in the engine: the cloud job
/// running there is evicted, and no cloud job is placed there again while
/// the HPC job runs (the engine used to plan the HPC job on its own first
/// fit and give the reported CPU to the next cloud job). A report naming a
/// CPU another HPC job holds (Slurm's `OverSubscribe`) cannot be held
/// there: that job is kept where the engine plans it.
#[test]
fn an_hpc_job_reported_on_a_cpu_keeps_cloud_work_off_it() {
    let dir = test_dir();
    let clock = ManualClock::new(T0);
    let mut actor = actor(
        dir.path(),
        &clock,
        "engine: {procs: 2}\nbackend: {type: plugin}\nnode: {busy_margin_cpus: 1000}\n",
    );
    let first = submit_sleep(&mut actor, (600.0, 1200.0), 60, None);
    assert_eq!(first.decision, "accepted");
    actor.tick();
    let held = actor.jobs[&first.id]
        .engine_procs
        .clone()
        .expect("the first cloud job runs");
    let event = |actor: &mut Actor, id: &str, cpus: &ProcSet| {
        let event = crate::backend::HpcEvent {
            kind: interstice_api::wire::EventKind::Started,
            id: id.to_string(),
            procs: cpus.len(),
            walltime: Time::from_secs(600),
            time: clock.now(),
            runtime: None,
            cpus: Some(cpus.clone()),
        };
        ask(actor, |reply| Command::HpcEvent {
            event,
            owner: ROOT,
            reply,
        })
    };
    let answer = event(&mut actor, "hpc-1", &held).unwrap();
    assert_eq!(
        answer.evicted,
        vec![first.id],
        "the cloud job on the HPC job's CPU gives way"
    );
    for _ in 0..2 {
        let next = submit_sleep(&mut actor, (600.0, 5000.0), 60, None);
        assert_eq!(next.decision, "accepted");
        clock.advance(Time::from_secs(1));
        actor.tick();
    }
    let mut on_free_cpu = 0;
    for job in actor.jobs.values() {
        if let Some(procs) = &job.engine_procs {
            assert!(
                !procs.intersects(&held),
                "a cloud job was placed on HPC job hpc-1's CPU {held}"
            );
            on_free_cpu += 1;
        }
    }
    assert_eq!(on_free_cpu, 1, "the other CPU runs one cloud job");
    // It takes the other CPU in the engine's plan, and the cloud job there gives way.
    let shared = event(&mut actor, "hpc-2", &held).unwrap();
    assert_eq!(shared.evicted.len(), 1, "{shared:?}");
    let kept = actor.hpc.jobs.get("hpc-2").expect("hpc-2 is counted").engine_id;
    assert!(
        matches!(
            actor.driver.engine().job_state(kept),
            Some(interstice_core::JobState::Running { .. })
        ),
        "held where the engine plans it"
    );
    kill_children(&mut actor);
}

/// The regulator counts only work that will run, and with
/// `per_user_share` no user fills the window for the others: 4 idle
/// processors over 100 s are 400 processor-seconds; root's two 1 × 100 s
/// jobs are its half share, root's third is refused naming the share while
/// another user is admitted, and once root cancels its jobs their work
/// leaves the window (it used to count until it aged out, refusing
/// everyone while the area sat idle).
#[test]
fn the_regulator_forgets_cancelled_work_and_keeps_a_share_for_each_user() {
    let dir = test_dir();
    let clock = ManualClock::new(T0);
    let mut actor = actor(
        dir.path(),
        &clock,
        "engine: {procs: 4, admission: admit-all, regulate: {window_seconds: 100, threshold: 1, per_user_share: 0.5}}\n\
         backend: {type: plugin}\n",
    );
    let submit = |actor: &mut Actor, uid: u32| {
        submit_as(actor, uid, &["/bin/sleep", "1000"], (100.0, 1000.0)).unwrap()
    };
    let root: Vec<u64> = (0..2)
        .map(|_| {
            let answer = submit(&mut actor, 0);
            assert_eq!(answer.decision, "accepted", "{answer:?}");
            answer.id
        })
        .collect();
    let over = submit(&mut actor, 0);
    assert_eq!(over.decision, "rejected");
    let refusal = over.refusal.expect("the refusal says why");
    assert_eq!(refusal.reason, "regulated");
    assert!(refusal.message.contains("your share"), "{}", refusal.message);
    assert_eq!(
        over.counter_offer_slo,
        Some(200.0),
        "root's own work leaves the window at T0 + 100"
    );
    let other = submit(&mut actor, 65534);
    assert_eq!(
        other.decision, "accepted",
        "another user has a share of their own: {other:?}"
    );
    for id in root.iter().chain([&other.id]) {
        cancel(&mut actor, *id);
    }
    clock.advance(Time::from_secs(1));
    tick_until_gone(&mut actor, &[root[0], root[1], other.id]);
    // Each ran one second (its end is seen at the tick): 3 of 400
    // processor-seconds count, the 297 they will not run do not. (Read from
    // the engine: the gauge is refreshed once per second of the clock, and
    // on a loaded machine the ends can be reaped over several ticks of the
    // same second, after the gauge's refresh.)
    assert_eq!(
        actor.driver.engine().submission_rate(clock.now()),
        Some(3.0 / 400.0),
        "cancelled work holds no capacity"
    );
    clock.advance(Time::from_secs(1));
    actor.tick();
    assert_eq!(
        actor.metrics.regulator_rate.get(),
        3.0 / 400.0,
        "the gauge says so at its next refresh"
    );
    let again = submit(&mut actor, 0);
    assert_eq!(again.decision, "accepted", "{again:?}");
    cancel(&mut actor, again.id);
}

/// `quota:`: one user holds at most `max_active_per_user` accepted jobs
/// queued or running (the next is a 429 until one ends), others are not
/// held back by them, and a job's text is bounded by `max_job_text_bytes`.
/// (One user used to queue 940 jobs of 63 KB argv in 15 s.)
#[test]
fn one_user_holds_at_most_the_quota_of_active_jobs_and_text() {
    let dir = test_dir();
    let clock = ManualClock::new(T0);
    let mut actor = actor(
        dir.path(),
        &clock,
        "engine: {procs: 1, admission: admit-all}\nbackend: {type: plugin}\n\
         quota: {max_active_per_user: 2, max_job_text_bytes: 1024}\n",
    );
    let submit = |actor: &mut Actor, uid: u32, argv: &[&str]| submit_as(actor, uid, argv, (100.0, 100_000.0));
    let first = submit(&mut actor, 0, &["/bin/sleep", "1000"]).unwrap();
    let second = submit(&mut actor, 0, &["/bin/sleep", "1000"]).unwrap();
    let third = submit(&mut actor, 0, &["/bin/sleep", "1000"]).unwrap_err();
    assert_eq!(third.kind, ErrorKind::TooMany, "{third:?}");
    assert!(
        third.message.contains("quota.max_active_per_user = 2"),
        "{}",
        third.message
    );
    let other = submit(&mut actor, 65534, &["/bin/sleep", "1000"]).unwrap();
    assert_eq!(other.decision, "accepted");
    let long = "x".repeat(1100);
    let too_long = submit(&mut actor, 65534, &["/bin/echo", &long]).unwrap_err();
    assert_eq!(too_long.kind, ErrorKind::BadRequest);
    assert!(
        too_long.message.contains("quota.max_job_text_bytes"),
        "{}",
        too_long.message
    );
    cancel(&mut actor, first.id);
    clock.advance(Time::from_secs(1));
    tick_until_gone(&mut actor, &[first.id]);
    let again = submit(&mut actor, 0, &["/bin/sleep", "1000"]).unwrap();
    assert_eq!(again.decision, "accepted", "a slot came free");
    for id in [second.id, other.id, again.id] {
        cancel(&mut actor, id);
    }
    clock.advance(Time::from_secs(1));
    actor.tick();
}
