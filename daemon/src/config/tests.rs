//! Unit tests of the config: parsing, defaults, resolution and validation.

use super::*;
use interstice_core::placement::{Placement, Weights};
use interstice_core::qos::Eviction;
use interstice_core::{Admission, EngineConfig, Policy, Time};

const MINIMAL: &str = "engine: {procs: 8}\nbackend: {type: plugin}\n";

#[test]
fn minimal_config_is_valid() {
    let config = Config::parse(MINIMAL).unwrap();
    assert_eq!(config.validate(), Vec::<String>::new());
    assert_eq!(config.engine_config().unwrap().conv_procs, 8);
    assert_eq!(config.engine_config().unwrap().policy, Policy::Conservative);
    // Rejected submissions: a week, 1000 per user.
    assert_eq!(config.store.rejected_retention_seconds, 604_800.0);
    assert_eq!(config.store.max_rejected_per_user, 1000);
    // Finished jobs: 30 days, 10,000 per user; 100 active jobs and 64 KiB
    // of text per user.
    assert_eq!(config.store.finished_retention_seconds, 2_592_000.0);
    assert_eq!(config.store.max_finished_per_user, 10_000);
    assert_eq!(config.quota.max_active_per_user, Some(100));
    assert_eq!(config.quota.max_job_text_bytes, 65_536);
    let unbounded = Config::parse(&format!("{MINIMAL}quota: {{max_active_per_user: null}}\n")).unwrap();
    assert_eq!(unbounded.quota.max_active_per_user, None);
}

#[test]
fn default_backend_is_an_idle_embedded_cluster() {
    let config = Config::parse("engine: {procs: 8}\n").unwrap();
    assert_eq!(config.validate(), Vec::<String>::new());
    match &config.backend {
        BackendConfig::Embedded(embedded) => assert_eq!(embedded.trace, None),
        other => panic!("default backend is {other:?}"),
    }
}

#[test]
fn unknown_key_names_its_path() {
    let err = Config::parse("engine: {procs: 8, polcy: easy}\n")
        .unwrap_err()
        .to_string();
    assert!(err.contains("engine") && err.contains("polcy"), "{err}");
    let err = Config::parse("engine: {procs: 8}\nbackend: {type: pbs}\n")
        .unwrap_err()
        .to_string();
    assert!(err.contains("embedded") && err.contains("slurm"), "{err}");
}

#[test]
fn every_bad_value_is_reported() {
    let text = "api: {listen: '0.0.0.0:80'}\nengine: {procs: 4, conv_procs: 9, policy: sjf, lambda: -1}\n\
                backend: {type: plugin}\nexecution: {grace_seconds: -2}\nlog_level: loud\n\
                store: {rejected_retention_seconds: 0, max_rejected_per_user: 0, finished_retention_seconds: -1, \
                max_finished_per_user: 0}\nquota: {max_active_per_user: 0, max_job_text_bytes: 100}\n";
    let problems = Config::parse(text).unwrap().validate();
    let joined = problems.join("\n");
    for key in [
        "api.listen",
        "engine.conv_procs",
        "engine.policy",
        "engine.lambda",
        "execution.grace_seconds",
        "log_level",
        "store.rejected_retention_seconds",
        "store.max_rejected_per_user",
        "store.finished_retention_seconds",
        "store.max_finished_per_user",
        "quota.max_active_per_user",
        "quota.max_job_text_bytes",
    ] {
        assert!(joined.contains(key), "missing {key} in {joined}");
    }
    assert!(
        joined.contains("fcfs, easy, conservative, convergence"),
        "{joined}"
    );
    let share = "engine: {procs: 4, regulate: {window_seconds: 60, threshold: 1, per_user_share: 2}}\n";
    let problems = Config::parse(share).unwrap().validate().join("\n");
    assert!(
        problems.contains("engine.regulate: regulation per-user share is 2"),
        "{problems}"
    );
}

#[test]
fn engine_defaults_are_cores_but_for_the_daemons_two_modes_and_the_tables_resubmissions() {
    let config = Config::parse(MINIMAL).unwrap().engine_config().unwrap();
    let mut expected = EngineConfig::new(8, DEFAULT_POLICY);
    expected.admission = DEFAULT_ADMISSION;
    expected.lifecycle.max_resubmissions = interstice_swf::defaults::MAX_RESUBMISSIONS;
    assert_eq!(config, expected);
}

#[test]
fn the_learned_predictor_and_its_threshold_reach_the_engine() {
    let config = Config::parse(
        "engine:\n  procs: 8\n  admission: reject-predicted\n  predictor: learned\n  reject_above: 0.7\n",
    )
    .unwrap();
    assert_eq!(config.validate(), Vec::<String>::new());
    let engine = config.engine_config().unwrap();
    assert_eq!(engine.predictor, interstice_core::Predictor::Learned);
    assert_eq!(engine.reject_above, Some(0.7));
    for (yaml, problem) in [
        (
            "  admission: reject-predicted\n  reject_above: 1.5\n",
            "engine.reject_above: 1.5 is not a probability",
        ),
        (
            "  admission: admit-all\n  reject_above: 0.5\n",
            "engine.reject_above: it applies under",
        ),
    ] {
        let config = Config::parse(&format!("engine:\n  procs: 8\n{yaml}")).unwrap();
        let problems = config.validate();
        assert!(problems.iter().any(|p| p.starts_with(problem)), "{problems:?}");
    }
}

#[test]
fn the_reservation_depth_reaches_the_engine_and_bad_ones_name_the_key() {
    for (yaml, depth) in [("500", "500"), ("unlimited", "unlimited")] {
        let config = Config::parse(&format!(
            "engine:\n  procs: 8\n  policy: conservative\n  reservation_depth: {yaml}\n"
        ))
        .unwrap();
        assert_eq!(config.validate(), Vec::<String>::new());
        assert_eq!(
            config.engine_config().unwrap().reservation_depth.to_string(),
            depth
        );
    }
    for (yaml, problem) in [
        (
            "policy: conservative\n  reservation_depth: 0",
            "engine.reservation_depth: \"0\" is not a reservation depth",
        ),
        (
            "policy: conservative\n  reservation_depth: deep",
            "engine.reservation_depth: \"deep\" is not",
        ),
        (
            "policy: easy\n  reservation_depth: 10",
            "engine.reservation_depth: reservation depth 10 applies to",
        ),
    ] {
        let config = Config::parse(&format!("engine:\n  procs: 8\n  {yaml}\n")).unwrap();
        let problems = config.validate();
        assert!(problems.iter().any(|p| p.starts_with(problem)), "{problems:?}");
    }
}

#[test]
fn the_thesis_keys_reach_the_engine() {
    let config = Config::parse(
        "engine:\n  procs: 8\n  scheduling: shared-queue\n  predictor: thesis\n  latency: 2.5\n  beta: 30\n  \
         w_future: published\n  maintenance:\n    - {start: 1767225600, duration: 3600, procs: \"0-3,6\"}\n    - {start: 1767229200.5, \
         duration: 60, procs: 7}\n",
    )
    .unwrap();
    assert_eq!(config.validate(), Vec::<String>::new());
    let engine = config.engine_config().unwrap();
    assert_eq!(engine.scheduling, interstice_core::Scheduling::SharedQueue);
    assert_eq!(engine.predictor, interstice_core::Predictor::Thesis);
    assert_eq!(engine.thesis.latency, Time::from_secs_f64(2.5));
    assert_eq!(engine.thesis.w_future, interstice_core::WFuture::Published);
    assert_eq!(
        engine.thesis.beta,
        interstice_core::Beta::Wait(Time::from_secs(30))
    );
    assert_eq!(
        engine.maintenance,
        [
            interstice_core::Maintenance {
                start: Time::from_secs(1_767_225_600),
                duration: Time::from_secs(3600),
                procs: interstice_core::ProcSet::from_ranges([(0, 3), (6, 6)]),
            },
            interstice_core::Maintenance {
                start: Time::from_secs_f64(1_767_229_200.5),
                duration: Time::from_secs(60),
                procs: interstice_core::ProcSet::range(7, 7),
            },
        ]
    );
    assert_eq!(engine.validate(), Ok(()));
    let disqualify = Config::parse("engine: {procs: 8, beta: disqualify}\n").unwrap();
    assert_eq!(
        disqualify.engine_config().unwrap().thesis.beta,
        interstice_core::Beta::Disqualify
    );
}

#[test]
fn engine_eviction_is_checked() {
    let classes =
        "classes:\n  - {name: gold, slo: 1.0}\n  - {name: bronze, slo: 0.5}\ndefault_class: bronze\n";
    let problems = |text: &str| Config::parse(text).unwrap().validate().join("\n");
    let ok = format!("engine: {{procs: 4, policy: easy, eviction: qos-driven}}\n{classes}");
    assert_eq!(problems(&ok), "");
    assert_eq!(
        Config::parse(&ok).unwrap().engine.eviction(),
        Some(Eviction::QosDriven)
    );
    for (text, needle) in [
        (
            format!("engine: {{procs: 4, eviction: priority}}\n{classes}"),
            "needs fcfs or easy",
        ),
        (
            "engine: {procs: 4, policy: fcfs, eviction: priority}\n".to_string(),
            "give `classes:`",
        ),
        (
            format!("engine: {{procs: 4, policy: fcfs, eviction: owner-share}}\n{classes}"),
            "only the Slurm backend",
        ),
        (
            format!("engine: {{procs: 4, policy: fcfs, eviction: random}}\n{classes}"),
            "engine.eviction",
        ),
        (
            format!(
                "engine: {{procs: 4, policy: fcfs, eviction: priority}}\nbackend: {{type: slurm}}\n{classes}"
            ),
            "backend.eviction",
        ),
    ] {
        let found = problems(&text);
        assert!(
            found.contains("engine.eviction") && found.contains(needle),
            "{text}: {found}"
        );
    }
}

#[test]
fn the_daemons_own_eviction_on_slurm_is_checked_and_built() {
    let classes =
        "classes:\n  - {name: gold, slo: 1.0}\n  - {name: bronze, slo: 0.5}\ndefault_class: bronze\n";
    let parse = |backend: &str, extra: &str| {
        Config::parse(&format!(
            "engine: {{procs: 8}}\nbackend: {{type: slurm, {backend}}}\n{extra}"
        ))
        .unwrap()
    };
    let eviction = |config: &Config| config.slurm_eviction(config.class_table().unwrap().as_ref());
    assert!(eviction(&parse("partition_cloud: cloud", "")).unwrap().is_none());
    let qos = parse("eviction: qos-driven", classes);
    assert_eq!(qos.validate(), Vec::<String>::new());
    assert_eq!(
        eviction(&qos).unwrap().map(|p| p.eviction()),
        Some(Eviction::QosDriven)
    );
    let shares = parse("eviction: owner-share, tenants: [{name: alice, share: 4}]", "");
    assert_eq!(shares.validate(), Vec::<String>::new());
    let problems = |config: Config| config.validate().join("\n");
    assert!(problems(parse("eviction: qos", classes)).contains("backend.eviction: unknown eviction policy"));
    assert!(problems(parse("eviction: priority", "")).contains("give `classes:` and a `default_class:`"));
    assert!(problems(parse(
        "eviction: priority",
        "classes:\n  - {name: gold, slo: 1.0}\n"
    ))
    .contains("default_class"));
    assert!(problems(parse("eviction: owner-share", "")).contains("owner-share needs `backend.tenants:`"));
    assert!(
        problems(parse("tenants: [{name: a, share: 1}]", "")).contains("only backend.eviction: owner-share")
    );
    let twice = parse(
        "eviction: owner-share, tenants: [{name: a, share: 1}, {name: a, share: 2, weight: 1}]",
        "",
    );
    let text = problems(twice);
    assert!(text.contains("backend.tenants[1].name"), "{text}");
    assert!(text.contains("weight: only a replay"), "{text}");
}

#[test]
fn placement_keys_reach_a_member_and_a_broker_and_bad_ones_name_their_key() {
    let member =
        Config::parse("engine: {procs: 8, placement: topsis, placement_weights: 'margin=3,slack=1'}\n")
            .unwrap();
    assert_eq!(member.validate(), Vec::<String>::new());
    let engine = member.engine_config().unwrap();
    assert_eq!(engine.placement, Placement::Topsis);
    assert_eq!(engine.placement_weights.values(), [0.0, 0.25, 0.75, 0.0]);
    let broker = Config::parse("datacenter: {role: broker}\nengine: {placement: topsis}\n").unwrap();
    assert_eq!(broker.validate(), Vec::<String>::new());
    assert_eq!(broker.broker_rules().unwrap().topsis, Some(Weights::default()));
    let plain = Config::parse("datacenter: {role: broker}\n").unwrap();
    assert_eq!(plain.broker_rules().unwrap().topsis, None);
    let alone = Config::parse("engine: {procs: 8, placement_weights: 'margin=1'}\n").unwrap();
    assert!(alone
        .validate()
        .join("\n")
        .contains("engine.placement_weights: the placement is first-fit"));
    let slurm = Config::parse("engine: {procs: 8, placement: topsis}\nbackend: {type: slurm}\n").unwrap();
    assert!(slurm
        .validate()
        .join("\n")
        .contains("in Slurm mode Slurm places the cloud jobs"));
    let clouds =
        Config::parse("engine: {procs: 8}\nbackend: {type: slurm, partition_cloud: 'cloud, cloud_gold'}\n")
            .unwrap();
    assert_eq!(clouds.validate(), Vec::<String>::new());
    let overlap =
        Config::parse("engine: {procs: 8}\nbackend: {type: slurm, partition_cloud: 'cloud,hpc'}\n").unwrap();
    assert!(overlap
        .validate()
        .join("\n")
        .contains("backend.partition_cloud: \"cloud,hpc\" must name"));
    let bad = Config::parse("engine: {procs: 8, placement: best, placement_weights: 'risk=1'}\n").unwrap();
    let problems = bad.validate().join("\n");
    for needle in [
        "engine.placement: unknown placement \"best\": expected first-fit or topsis",
        "engine.placement_weights: unknown placement criterion \"risk\"",
    ] {
        assert!(problems.contains(needle), "missing {needle} in {problems}");
    }
}

#[test]
fn classes_make_a_table_and_bad_ones_name_their_key() {
    let config = Config::parse(
        "engine: {procs: 8}\nclasses:\n  - {name: gold, slo: 1.0}\n  - {name: bronze, slo: 0.5, importance: 1}\n\
         default_class: bronze\n",
    )
    .unwrap();
    assert_eq!(config.validate(), Vec::<String>::new());
    let table = config.class_table().unwrap().unwrap();
    assert_eq!(table.names(), ["gold", "bronze"]);
    assert_eq!(table.default, Some(1));
    assert_eq!(table.classes[0].importance, 2, "first listed, most important");
    assert_eq!(Config::parse(MINIMAL).unwrap().class_table(), Ok(None));
    let bad = Config::parse(
        "engine: {procs: 8}\nclasses:\n  - {name: \"gold star\", slo: 1.0, weight: 2}\n  - {name: b, slo: 1.5}\n\
         default_class: platinum\n",
    )
    .unwrap();
    let problems = bad.validate().join("\n");
    for needle in [
        "classes[0].name: --class must be",
        "classes[0].weight: only a replay draws classes by weight",
        "classes[1].slo: 1.5 is not an availability in (0, 1]",
    ] {
        assert!(problems.contains(needle), "missing {needle} in {problems}");
    }
    let default_only = Config::parse("engine: {procs: 8}\ndefault_class: gold\n").unwrap();
    assert!(default_only
        .validate()
        .join("\n")
        .contains("default_class: there are no classes"));
    let unknown =
        Config::parse("engine: {procs: 8}\nclasses: [{name: gold, slo: 1}]\ndefault_class: lead\n").unwrap();
    assert!(unknown
        .validate()
        .join("\n")
        .contains("default_class: unknown class \"lead\": this daemon's classes are gold"));
    let broker = Config::parse("datacenter: {role: broker}\nclasses: [{name: gold, slo: 1}]\n").unwrap();
    assert!(broker
        .validate()
        .join("\n")
        .contains("classes: a broker runs no jobs"));
}

#[test]
fn bad_thesis_keys_name_their_key_path() {
    // One bad key per line; the maintenance entries one per line.
    let config = Config::parse(concat!(
        "engine:\n  procs: 8\n  scheduling: together\n  predictor: oracle\n  latency: -1\n",
        "  beta: never\n  w_future: gaps\n  maintenance:\n",
        "    - {start: -5, duration: 10, procs: 0}\n",
        "    - {start: 0, duration: 0, procs: 1}\n",
        "    - {start: 0, duration: 10, procs: \"6-9\"}\n",
        "    - {start: 0, duration: 10, procs: \"1,,2\"}\n",
    ))
    .unwrap();
    let problems = config.validate();
    let expected = [
        "engine.scheduling: unknown scheduling mode \"together\": expected hpc-first or shared-queue",
        "engine.predictor: unknown predictor \"oracle\": expected exact, thesis or learned",
        "engine.latency: -1 must be a number of seconds from 0 to 1e12",
        "engine.beta: \"never\" is not a β",
        "engine.w_future: unknown W_future \"gaps\": expected holes (§4.5) or published",
        "engine.maintenance[0]: start \"-5\" is not a time in seconds",
        "engine.maintenance[1]: duration is 0: give a positive, finite number of seconds",
        "engine.maintenance[2]: processor 9 does not exist: the platform has processors 0-7",
        "engine.maintenance[3]: procs \"1,,2\": an item is empty",
    ];
    assert_eq!(problems.len(), expected.len(), "{problems:#?}");
    for (problem, expected) in problems.iter().zip(expected) {
        assert!(
            problem.starts_with(expected),
            "{problem:?} should start with {expected:?}"
        );
    }
    let err = Config::parse("engine:\n  procs: 8\n  maintenance: [{start: 0, duration: 1, cpus: 0}]\n")
        .unwrap_err()
        .to_string();
    assert!(err.contains("cpus") && err.contains("procs"), "{err}");
}

#[test]
fn a_member_names_its_broker_and_itself() {
    let config = Config::parse(
        "api: {socket: /run/m.sock}\nengine: {procs: 8, lambda: 1.5}\nbackend: {type: plugin}\n\
         datacenter: {role: member, broker: /run/b.sock, address: /run/m.sock, features: [gpu]}\n",
    )
    .unwrap();
    assert_eq!(config.validate(), Vec::<String>::new());
    let member = config.member().unwrap();
    assert_eq!(member.publish_every_seconds, 5.0);
    assert_eq!(member.features, ["gpu"]);
    assert!(config.broker().is_none());
    let bad = Config::parse(
        "api: {socket: /run/m.sock}\nengine: {procs: 8}\n\
         datacenter: {role: member, broker: b.sock, address: /run/other.sock, features: [''], \
         publish_every_seconds: 0}\n",
    )
    .unwrap();
    let problems = bad.validate().join("\n");
    for key in [
        "datacenter.broker: \"b.sock\" is neither",
        "datacenter.address: /run/other.sock is not this daemon's api.socket",
        "datacenter.features[0]",
        "datacenter.publish_every_seconds",
    ] {
        assert!(problems.contains(key), "missing {key} in {problems}");
    }
    let err =
        Config::parse("engine: {procs: 8}\ndatacenter: {role: member, broker: /b, address: /a, age: 3}\n")
            .unwrap_err()
            .to_string();
    assert!(err.contains("age"), "{err}");
    let err = Config::parse("engine: {procs: 8}\ndatacenter: {role: boss}\n")
        .unwrap_err()
        .to_string();
    assert!(err.contains("member") && err.contains("broker"), "{err}");
}

#[test]
fn trust_between_daemons_defaults_to_proof_and_bad_pins_are_named() {
    let pin = "AB:".repeat(31) + "AB";
    let config = Config::parse(&format!(
        "api: {{socket: /run/m.sock, listen: '127.0.0.1:9478', tls: {{certificate: /etc/c.pem, key: /etc/k.pem}}}}\n\
         engine: {{procs: 8}}\nbackend: {{type: plugin}}\n\
         datacenter: {{role: member, broker: 'https://b:9477', address: 'https://m:9478', tls_pins: ['{pin}'], \
         on_behalf_of: {{min_uid: 2000, allow: [42], deny: [3000]}}}}\n"
    ))
    .unwrap();
    assert_eq!(config.validate(), Vec::<String>::new());
    let member = config.member().unwrap();
    assert_eq!(member.pins().len(), 1);
    assert!(!member.peer_rule().unproven_remote);
    assert!(member.peer_rule().uids.contains(&0));
    let rule = &member.on_behalf_of;
    assert_eq!(rule.check(42), Ok(()));
    assert_eq!(rule.check(2000), Ok(()));
    for refused in [0, 1, 1999, 3000] {
        assert!(
            rule.check(refused)
                .unwrap_err()
                .contains("datacenter.on_behalf_of"),
            "{refused}"
        );
    }
    let bad = Config::parse(
        "api: {socket: /run/m.sock, tls: {certificate: /c, key: /k}}\nengine: {procs: 8}\n\
         datacenter: {role: member, broker: 'https://b:9477', address: 'https://m:9478', tls_pins: [nope]}\n",
    )
    .unwrap();
    let problems = bad.validate().join("\n");
    for key in ["api.tls: serves the TCP listener", "datacenter.tls_pins[0]"] {
        assert!(problems.contains(key), "missing {key} in {problems}");
    }
    let unpinned = Config::parse(
        "api: {socket: /run/m.sock}\nengine: {procs: 8}\n\
         datacenter: {role: member, broker: 'https://b:9477', address: 'https://m:9478'}\n",
    )
    .unwrap();
    let problems = unpinned.validate().join("\n");
    for key in [
        "datacenter.broker: an https:// broker needs datacenter.tls_pins",
        "datacenter.address: https:// needs api.tls",
    ] {
        assert!(problems.contains(key), "missing {key} in {problems}");
    }
}

#[test]
fn a_broker_reads_only_the_engines_admission_rules() {
    let config = Config::parse(
        "datacenter: {role: broker, member_max_age_seconds: 10}\n\
         engine: {admission: admit-all, tau: 2, beta: 5, max_resubmissions: 4}\n",
    )
    .unwrap();
    assert_eq!(config.validate(), Vec::<String>::new());
    assert_eq!(config.broker().unwrap().member_max_age_seconds, 10.0);
    let rules = config.broker_rules().unwrap();
    assert_eq!(rules.admission, Admission::AdmitAll);
    assert_eq!(rules.tau, 2.0);
    assert_eq!(rules.lifecycle.max_resubmissions, 4);
    assert_eq!(rules.thesis.beta, interstice_core::Beta::Wait(Time::from_secs(5)));
    // Without an engine section: the daemon's defaults.
    let bare = Config::parse("datacenter: {role: broker}\n").unwrap();
    assert_eq!(bare.validate(), Vec::<String>::new());
    assert_eq!(bare.broker_rules().unwrap().admission, DEFAULT_ADMISSION);
    let planning = Config::parse(
        "datacenter: {role: broker, timeout_seconds: -1}\nengine: {procs: 4, policy: easy}\nbackend: {type: plugin}\n",
    )
    .unwrap();
    let problems = planning.validate().join("\n");
    for key in [
        "engine.procs: a broker plans no jobs",
        "engine.policy",
        "backend: a broker",
        "datacenter.timeout_seconds",
    ] {
        assert!(problems.contains(key), "missing {key} in {problems}");
    }
    // F^r's configured inputs: a bandwidth > 0 and a monitoring delay >= 0.
    let f_r = Config::parse(
        "datacenter: {role: broker, bandwidth_bytes_per_second: 125e6, monitoring_seconds: 2}\n",
    )
    .unwrap();
    assert_eq!(f_r.validate(), Vec::<String>::new());
    assert_eq!(f_r.broker().unwrap().bandwidth_bytes_per_second, Some(125e6));
    let bad =
        Config::parse("datacenter: {role: broker, bandwidth_bytes_per_second: 0, monitoring_seconds: -1}\n")
            .unwrap();
    assert_eq!(
        bad.validate(),
        vec![
            "datacenter.bandwidth_bytes_per_second: 0 must be a positive number".to_string(),
            "datacenter.monitoring_seconds: -1 must be a number of seconds >= 0".to_string(),
        ]
    );
    // A member (or a daemon alone) still needs its processors.
    let alone = Config::parse("backend: {type: plugin}\n").unwrap();
    assert!(alone
        .validate()
        .join("\n")
        .contains("engine.procs: must be at least 1"));
}

#[test]
fn unknown_policy_or_admission_is_an_error_naming_its_key() {
    let config = Config::parse("engine: {procs: 8, policy: sjf, admission: maybe}\n").unwrap();
    let err = config.engine_config().unwrap_err();
    assert_eq!(err.problems.len(), 2, "{err}");
    assert!(
        err.problems[0].starts_with("engine.policy: unknown policy \"sjf\""),
        "{err}"
    );
    assert!(
        err.problems[1].starts_with("engine.admission: unknown admission mode \"maybe\""),
        "{err}"
    );
    let problems = config.validate().join("\n");
    assert!(
        problems.contains("engine.policy") && problems.contains("engine.admission"),
        "{problems}"
    );
}

/// `execution.limits`: defaults that confine without a key set (512
/// processes, memory by share, no CPU quota); a 0 is refused with the key
/// and the fix, an unknown key by its name.
#[test]
fn execution_limits_default_and_validate() {
    let config = Config::parse(MINIMAL).unwrap();
    assert_eq!(config.execution.limits, LimitsConfig::default());
    assert_eq!(config.execution.limits.pids, Some(512));
    assert!(!config.execution.limits.cpu_quota);
    let text = format!("{MINIMAL}execution: {{user: nobody, limits: {{pids: 0, max_memory_mb: 0}}}}\n");
    let problems = Config::parse(&text).unwrap().validate();
    assert!(
        problems
            .iter()
            .any(|p| p.starts_with("execution.limits.pids: 0") && p.contains("null")),
        "{problems:?}"
    );
    assert!(
        problems
            .iter()
            .any(|p| p.starts_with("execution.limits.max_memory_mb: 0")),
        "{problems:?}"
    );
    let text = format!("{MINIMAL}execution: {{limits: {{memory_mb: 5}}}}\n");
    let err = Config::parse(&text).unwrap_err().to_string();
    assert!(
        err.contains("memory_mb") && err.contains("memory_mb_per_proc"),
        "{err}"
    );
    let text = format!("{MINIMAL}execution: {{limits: {{pids: null, cpu_quota: true}}}}\n");
    let limits = Config::parse(&text).unwrap().execution.limits;
    assert_eq!((limits.pids, limits.cpu_quota), (None, true));
}

#[test]
fn candidate_rules_and_the_regulator_reach_the_engine_and_bad_ones_name_the_key() {
    let config = Config::parse(
        "engine:\n  procs: 8\n  candidates: {max_walltime_seconds: 3600, max_width: 4, min_slack: 1.5}\n  \
         regulate: {window_seconds: 1800, threshold: 0.8}\n",
    )
    .unwrap();
    assert_eq!(config.validate(), Vec::<String>::new());
    let engine = config.engine_config().unwrap();
    assert_eq!(
        engine.candidates,
        interstice_core::CandidateRules {
            max_walltime: Some(Time::from_secs(3600)),
            max_width: Some(4),
            min_slack: Some(1.5),
        }
    );
    assert_eq!(
        engine.regulation,
        Some(interstice_core::Regulation {
            window: Time::from_secs(1800),
            threshold: 0.8,
            per_user_share: None
        })
    );
    // Left out: no limits, no regulation (today's admissions).
    let plain = Config::parse("engine:\n  procs: 8\n")
        .unwrap()
        .engine_config()
        .unwrap();
    assert!(plain.candidates.is_unlimited() && plain.regulation.is_none());
    for (yaml, problem) in [
        (
            "  candidates: {max_walltime_seconds: 0}\n",
            "engine.candidates.max_walltime_seconds: 0 is not a positive",
        ),
        (
            "  candidates: {max_width: 0}\n",
            "engine.candidates: candidate max_width is 0",
        ),
        (
            "  candidates: {min_slack: -1}\n",
            "engine.candidates: candidate min_slack is -1",
        ),
        (
            "  regulate: {window_seconds: 0, threshold: 1}\n",
            "engine.regulate: regulation window is 0 s",
        ),
        (
            "  regulate: {window_seconds: 60, threshold: 0}\n",
            "engine.regulate: regulation threshold is 0",
        ),
    ] {
        let config = Config::parse(&format!("engine:\n  procs: 8\n{yaml}")).unwrap();
        let problems = config.validate();
        assert!(
            problems.iter().any(|p| p.starts_with(problem)),
            "{yaml}: {problems:?}"
        );
    }
    // A misspelt key is refused by name.
    let err = Config::parse("engine:\n  procs: 8\n  regulate: {window: 60, threshold: 1}\n").unwrap_err();
    assert!(err.to_string().contains("window"), "{err}");
}
