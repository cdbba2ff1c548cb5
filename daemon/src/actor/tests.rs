//! The actor on a manual clock: time-dependent decisions checked at exact
//! instants, without sleeping.

use super::command::{Command, ErrorKind, Owner};
use super::supervisor::Phase;
use super::{Actor, ActorSetup};
use crate::backend::HpcUpdate;
use crate::clock::{Clock, ManualClock};
use crate::config::Config;
use crate::exec::Executor;
use crate::metrics::Metrics;
use crate::store::Store;
use interstice_api::wire::SubmitRequest;
use interstice_core::Time;
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
    let mut config = Config::parse(&format!("state_dir: {}\n{config}", dir.display())).unwrap();
    // The shell stand-in joins no cgroup: leave none behind.
    config.execution.cgroup = crate::config::CgroupMode::None;
    assert_eq!(config.validate(), Vec::<String>::new());
    Actor::start(ActorSetup {
        store: Store::open(&dir.join("interstice.sqlite")).unwrap(),
        metrics: Metrics::new(),
        executor: Executor::new(dir, wrapper, config.execution.clone()).unwrap(),
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

#[test]
fn a_slurm_plan_goes_stale_exactly_plan_stale_seconds_after_the_last_read() {
    let dir = tempfile::tempdir().unwrap();
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

    actor.handle(Command::Hpc(HpcUpdate::Snapshot {
        time: T0,
        jobs: Vec::new(),
    }));
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
    let dir = tempfile::tempdir().unwrap();
    let clock = ManualClock::new(T0);
    // A huge busy margin: the node gate never holds the start on a loaded machine.
    let mut actor = actor(
        dir.path(),
        &clock,
        "engine: {procs: 2}\nnode: {busy_margin_cpus: 1000}\nexecution: {grace_seconds: 5}\n",
    );
    let request = SubmitRequest {
        procs: 1,
        walltime: 10.0,
        slo: 100.0,
        argv: vec!["/bin/sleep".to_string(), "30".to_string()],
        env: None,
        workdir: None,
        class: None,
        features: Vec::new(),
        on_behalf_of: None,
    };
    let answer = ask(&mut actor, |reply| Command::Submit {
        request,
        owner: ROOT,
        reply,
    })
    .unwrap();
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
