//! `interstice batsim --eviction`: when an HPC job needs processors held by
//! cloud jobs, the adapter evicts in the eviction policy's victim order by
//! the jobs' service classes (their workload labels, which Batsim passes
//! through), not whichever job holds the processors the plan names. Run
//! against the tiny Batsim over ZeroMQ; refusals through the session.

mod protocol_support;

use interstice_batsim::protocol::driver::{drive, DriverConfig, Workload};
use interstice_batsim::protocol::session::{BeginError, SessionError};
use interstice_batsim::protocol::{messages, AdapterConfig, Session, VictimOrder, VictimOrderError};
use interstice_core::qos::Eviction;
use interstice_core::Policy;
use interstice_swf::qos::QosSpec;
use protocol_support::{begins, config, message, Adapter};
use serde_json::json;
use std::collections::BTreeMap;
use std::path::Path;

/// Four processors, all in the area. Bronze (w0!1, tenant `a`) starts at 0
/// and takes the area's highest free processors (2-3), gold (w0!2, tenant
/// `b`) at 1 the others (0-1); at 10 an HPC job needs two processors, and
/// the plan gives it the lowest (0-1): gold's.
fn workload() -> Workload {
    let cloud = |id: u32, subtime: u32, class: &str, tenant: &str| {
        json!({"id": id, "subtime": subtime, "walltime": 2000, "res": 2, "profile": "long",
               "kind": "cloud", "slo": 5000, "class": class, "tenant": tenant})
    };
    let text = json!({
        "nb_res": 4,
        "jobs": [
            cloud(1, 0, "bronze", "a"),
            cloud(2, 1, "gold", "b"),
            {"id": 3, "subtime": 10, "walltime": 200, "res": 2, "profile": "hpc"},
        ],
        "profiles": {
            "long": {"type": "delay", "delay": 1000},
            "hpc": {"type": "delay", "delay": 100},
        },
    });
    Workload::from_json(&text.to_string(), "w0", "classes.json").unwrap()
}

/// The seeds' three classes, and tenants `a` (entitled to nothing) and `b`
/// (to the whole area).
fn spec(eviction: Eviction) -> QosSpec {
    let text = "tenants:\n  - { name: a, share: 0 }\n  - { name: b, share: 4 }\n";
    let mut spec = QosSpec::parse(text, Path::new("classes.yaml"), 4).unwrap();
    spec.config.eviction = eviction;
    spec
}

/// Each job's final state under `order` (fcfs).
fn final_states(order: Option<VictimOrder>) -> BTreeMap<String, &'static str> {
    let workload = workload();
    let mut adapter_config = config(Policy::Fcfs);
    adapter_config.victim_order = order;
    let adapter = Adapter::start(adapter_config);
    let result = drive(&workload, &DriverConfig::new(adapter.endpoint.clone()));
    let (served, _session) = adapter.finish();
    let report = result.unwrap_or_else(|e| panic!("driver failed: {e}"));
    served.unwrap_or_else(|e| panic!("adapter failed: {e}"));
    report
        .executions
        .iter()
        .map(|e| (e.job_id.clone(), e.state))
        .collect()
}

#[test]
fn bronze_gives_way_before_gold_where_the_plan_would_evict_gold() {
    const KILLED: &str = "COMPLETED_KILLED";
    const DONE: &str = "COMPLETED_SUCCESSFULLY";
    // The plan's holders: gold is on the processors the HPC job is given.
    let by_plan = final_states(None);
    assert_eq!((by_plan["w0!1"], by_plan["w0!2"]), (DONE, KILLED), "{by_plan:?}");
    // Priority (bronze least important), qos-driven (bronze's Q is its
    // run time: 50 % SLO; gold's is 0) and owner-share (bronze's tenant is
    // over its share, gold's under): bronze gives way, gold keeps running.
    for eviction in [Eviction::Priority, Eviction::QosDriven, Eviction::OwnerShare] {
        let order = VictimOrder::new(spec(eviction)).unwrap();
        let states = final_states(Some(order));
        assert_eq!(
            (states["w0!1"], states["w0!2"], states["w0!3"]),
            (KILLED, DONE, DONE),
            "{eviction}: {states:?}"
        );
    }
}

#[test]
fn owner_share_without_tenants_is_refused_with_what_to_do() {
    let error = VictimOrder::new(QosSpec::defaults(Eviction::OwnerShare, 4)).unwrap_err();
    assert_eq!(error, VictimOrderError::NoTenants);
    let text = error.to_string();
    assert!(text.contains("--qos FILE with `tenants:`"), "{text}");
    assert!(VictimOrder::new(spec(Eviction::OwnerShare)).is_ok());
}

/// A policy whose plan names the HPC job's processors cannot take ranked
/// victims: refused when the simulation begins, naming where it came from.
#[test]
fn a_reserving_policy_from_sched_config_is_refused_at_simulation_begins() {
    for (flag, sched_config, named) in [
        (Some(Policy::Conservative), "", "--policy conservative"),
        (
            None,
            r#"{"policy": "convergence"}"#,
            r#"Batsim's --sched-cfg "policy": "convergence""#,
        ),
        (
            Some(Policy::Easy),
            r#"{"scheduling": "shared-queue"}"#,
            r#"Batsim's --sched-cfg "scheduling": "shared-queue""#,
        ),
    ] {
        let mut adapter_config = AdapterConfig::default();
        adapter_config.engine.policy = flag;
        adapter_config.victim_order = Some(VictimOrder::new(spec(Eviction::Priority)).unwrap());
        let mut session = Session::new(adapter_config);
        let begin = messages::parse_message(begins(4, false, sched_config).to_string().as_bytes()).unwrap();
        let error = session.handle(&begin).unwrap_err();
        assert!(
            matches!(&error, SessionError::Begin { problem, .. } if matches!(**problem, BeginError::VictimOrder(_))),
            "{error:?}"
        );
        let text = error.to_string();
        assert!(
            text.contains(&format!("--eviction priority cannot go with {named}")),
            "{text}"
        );
    }
    // Flags win over Batsim's --sched-cfg: easy given, conservative overridden.
    let mut adapter_config = config(Policy::Easy);
    adapter_config.victim_order = Some(VictimOrder::new(spec(Eviction::Priority)).unwrap());
    let mut session = Session::new(adapter_config);
    let begin = messages::parse_message(
        begins(4, false, r#"{"policy": "conservative"}"#)
            .to_string()
            .as_bytes(),
    )
    .unwrap();
    session.handle(&begin).unwrap();
}

/// A label the classes do not define is an error naming the job and the fix.
#[test]
fn an_undefined_class_label_names_the_job() {
    let mut adapter_config = config(Policy::Fcfs);
    adapter_config.victim_order = Some(VictimOrder::new(spec(Eviction::QosDriven)).unwrap());
    let mut session = Session::new(adapter_config);
    let begin = messages::parse_message(begins(4, false, "").to_string().as_bytes()).unwrap();
    session.handle(&begin).unwrap();
    let job = json!({"job_id": "w0!1", "job": {"id": "w0!1", "subtime": 0, "walltime": 100, "res": 1,
                     "profile": "d10", "kind": "cloud", "class": "platinum"}});
    let submitted = message(0.0, vec![("JOB_SUBMITTED", job)]);
    let error = session
        .handle(&messages::parse_message(submitted.to_string().as_bytes()).unwrap())
        .unwrap_err()
        .to_string();
    assert!(
        error.contains("job w0!1: class \"platinum\" is not defined") && error.contains("--qos file"),
        "{error}"
    );
}
