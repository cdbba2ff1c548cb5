//! The platform keys of a `qos run` file beyond classes and tenants: the
//! hosts with their CPU, memory and labels, the allocation overheads, the
//! host events, and what a request needs (CPU, memory, constraints,
//! instances). Every error names the file and the key, and says the fix.
//!
//! ```yaml
//! hosts: [{ cpu: 8, memory: 16, labels: { arch: x86 } }, { count: 2, cpu: 4, memory: 32 }]
//! allocation_time: { hot: [1, 2], cold: { uniform: [5, 20] } }   # or seconds
//! tie_break: random         # host-index (default) | random (with `seed`)
//! events:
//!   - { at: 600, host: 0, event: fail }
//!   - { at: 900, host: 0, event: recover }
//!   - { at: 1200, event: add, host: { cpu: 8, memory: 16 } }
//! requests:
//!   - { cpu: 2, memory: 4, constraints: { arch: x86, disk: "!=hdd" }, instances: 3 }
//! ```

use super::QosErrors;
use crate::qos::QosFileError;
use interstice_core::qos::{Constraint, Draw, HostChange, HostEvent, HostSpec, Overheads};
use interstice_core::Time;
use serde::Deserialize;
use serde_yaml::Value;
use std::collections::BTreeMap;

/// One `hosts:` entry in the map form.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct HostEntry {
    #[serde(default)]
    count: Option<usize>,
    #[serde(default)]
    slots: Option<f64>,
    #[serde(default)]
    cpu: Option<f64>,
    #[serde(default)]
    memory: Option<f64>,
    #[serde(default)]
    labels: BTreeMap<String, String>,
    /// Work per second (osep, seed 002's heterogeneous machines; default 1).
    #[serde(default)]
    speed: Option<f64>,
}

/// The hosts of a `qos run` file.
pub(super) struct Hosts {
    /// Slots (CPU) per host.
    pub(super) slots: Vec<u32>,
    /// Memory and labels per host (empty when no host gives either).
    pub(super) specs: Vec<HostSpec>,
    /// Speed per host (1 unless given).
    pub(super) speeds: Vec<f64>,
}

/// A speed `> 0` at `key` (default 1), its line found by its value.
fn speed(errors: &QosErrors, key: String, speed: Option<f64>) -> Result<f64, QosFileError> {
    match speed {
        None => Ok(1.0),
        Some(s) if s.is_finite() && s > 0.0 => Ok(s),
        Some(s) => Err(errors.err_at(
            key,
            "speed",
            s,
            format!("{s} is not a speed: give the host's work per second, > 0 (1 is the reference)"),
        )),
    }
}

/// One `events:` entry.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct EventEntry {
    at: f64,
    event: String,
    host: Value,
}

/// The hosts of `hosts:`: slots per host, and (when any host gives memory
/// or labels) each host's memory and labels, and each host's speed. Forms:
/// a list of slots (`[10, 10, 16]`), `{ count, slots }` or `{ count, cpu,
/// memory, labels, speed }`, or a list of such maps (`count` default 1).
/// `cpu` is the host's slots; a host without `memory` does not constrain
/// memory; a speed is osep's (seed 002), 1 unless given.
/// The most hosts a platform may have (each is simulated: a million is
/// far beyond any study's, and bounded memory).
pub(super) const MAX_HOSTS: usize = 1_000_000;

pub(super) fn parse_hosts(hosts: Value, errors: &QosErrors) -> Result<Hosts, QosFileError> {
    // A single map is named `hosts`, a list's entries `hosts[i]`.
    let (entries, single): (Vec<Value>, bool) = match hosts {
        Value::Sequence(items) => (items, false),
        one => (vec![one], true),
    };
    let mut slots = Vec::new();
    let mut specs = Vec::new();
    let mut speeds = Vec::new();
    for (i, entry) in entries.into_iter().enumerate() {
        let key = |k: &str| {
            if single {
                format!("hosts{k}")
            } else {
                format!("hosts[{i}]{k}")
            }
        };
        if let Some(n) = entry.as_f64() {
            slots.push(whole(errors, key(""), n, 1)?);
            specs.push(HostSpec::default());
            speeds.push(1.0);
            continue;
        }
        let e: HostEntry = serde_yaml::from_value(entry).map_err(|e| {
            errors.err(
                key(""),
                format!(
                    "{e}: give slots (10), or {{ count: 20, cpu: 10, memory: 10, labels: {{ arch: x86 }} }}"
                ),
            )
        })?;
        let (cpu, name) = match (e.cpu, e.slots) {
            (Some(_), Some(_)) => return Err(errors.err(key(".cpu"), "give cpu or slots, not both".into())),
            (Some(c), None) => (c, ".cpu"),
            (None, Some(s)) => (s, ".slots"),
            (None, None) => {
                return Err(errors.err(key(".cpu"), "missing: give the host's CPU (slots)".into()))
            }
        };
        let cpu = whole(errors, key(name), cpu, 1)?;
        let memory = e
            .memory
            .map(|m| whole(errors, key(".memory"), m, 1))
            .transpose()?;
        let speed = speed(errors, key(".speed"), e.speed)?;
        let count = e.count.unwrap_or(1);
        if count == 0 {
            return Err(errors.err(key(".count"), "0: give 1 host or more".into()));
        }
        // Checked before anything is allocated.
        if slots.len().saturating_add(count) > MAX_HOSTS {
            return Err(errors.err(
                key(".count"),
                format!("{count} hosts: give at most {MAX_HOSTS} hosts in all"),
            ));
        }
        let total: u64 = slots.iter().map(|&s| u64::from(s)).sum();
        if (count as u64)
            .saturating_mul(u64::from(cpu))
            .saturating_add(total)
            > u64::from(u32::MAX)
        {
            return Err(errors.err(
                "hosts".into(),
                format!(
                    "{count} hosts of {cpu} slots: give 1 to {} slots in all",
                    u32::MAX
                ),
            ));
        }
        for _ in 0..count {
            slots.push(cpu);
            speeds.push(speed);
            specs.push(HostSpec {
                memory,
                labels: e.labels.clone(),
            });
        }
    }
    if slots.is_empty() {
        return Err(errors.err("hosts".into(), "give at least one host".into()));
    }
    if specs.iter().all(|s| *s == HostSpec::default()) {
        specs.clear();
    }
    Ok(Hosts { slots, specs, speeds })
}

/// A whole number `>= min` that fits a `u32`, at `key` (CPU, memory).
pub(super) fn whole(errors: &QosErrors, key: String, v: f64, min: u32) -> Result<u32, QosFileError> {
    if v.fract() == 0.0 && v >= f64::from(min) && v <= f64::from(u32::MAX) {
        return Ok(v as u32);
    }
    Err(errors.err(
        key,
        format!(
            "{v}: give a whole number >= {min} (CPU and memory are whole units: scale normalised values, e.g. ×1000)"
        ),
    ))
}

/// `allocation_time:` seconds, or `{ hot: D, cold: D }` with `D` seconds, a
/// list of seconds (one drawn, each equally likely) or `{ uniform: [lo, hi] }`.
pub(super) fn parse_allocation(
    v: Value,
    errors: &QosErrors,
) -> Result<(Option<Time>, Option<Overheads>), QosFileError> {
    if let Some(a) = v.as_f64() {
        return Ok((Some(errors.seconds("allocation_time".into(), a)?), None));
    }
    let bad = |what: String| {
        errors.err(
            "allocation_time".into(),
            format!("{what}: give seconds, or {{ hot: [1, 2], cold: {{ uniform: [5, 20] }} }}"),
        )
    };
    let Value::Mapping(map) = v else {
        return Err(bad("not seconds nor a map".into()));
    };
    let mut hot = None;
    let mut cold = None;
    for (k, d) in map {
        match k.as_str() {
            Some("hot") => hot = Some(draw(d, "allocation_time.hot", errors)?),
            Some("cold") => cold = Some(draw(d, "allocation_time.cold", errors)?),
            _ => return Err(bad(format!("unknown key {k:?}"))),
        }
    }
    match (hot, cold) {
        (Some(hot), Some(cold)) => Ok((None, Some(Overheads { hot, cold }))),
        _ => Err(bad("give both hot and cold".into())),
    }
}

/// One overhead distribution at `key`.
fn draw(v: Value, key: &str, errors: &QosErrors) -> Result<Draw, QosFileError> {
    let secs = |x: &Value| -> Result<Time, QosFileError> {
        let n = x
            .as_f64()
            .ok_or_else(|| errors.err(key.into(), format!("{x:?} is not seconds")))?;
        errors.seconds(key.into(), n)
    };
    match &v {
        Value::Number(_) => Ok(Draw::Values(vec![secs(&v)?])),
        Value::Sequence(items) if !items.is_empty() => {
            Ok(Draw::Values(items.iter().map(secs).collect::<Result<_, _>>()?))
        }
        Value::Mapping(m) if m.len() == 1 => match m.get("uniform").and_then(Value::as_sequence) {
            Some(b) if b.len() == 2 => {
                let (lo, hi) = (secs(&b[0])?, secs(&b[1])?);
                if lo > hi {
                    return Err(errors.err(key.into(), "uniform: give [lo, hi] with lo <= hi".into()));
                }
                Ok(Draw::Uniform(lo, hi))
            }
            _ => Err(errors.err(key.into(), "give { uniform: [lo, hi] }".into())),
        },
        _ => Err(errors.err(
            key.into(),
            "give seconds, a list of seconds, or { uniform: [lo, hi] }".into(),
        )),
    }
}

/// `events:`: each `{ at, host, event }`, `event` fail or recover with
/// `host` an index, or add with `host` a host (as in `hosts:`, one host).
pub(super) fn parse_events(
    entries: Vec<EventEntry>,
    errors: &QosErrors,
) -> Result<Vec<HostEvent>, QosFileError> {
    let mut events = Vec::new();
    for (i, e) in entries.into_iter().enumerate() {
        let key = |k: &str| format!("events[{i}].{k}");
        let at = errors.seconds(key("at"), e.at)?;
        let index = || -> Result<usize, QosFileError> {
            e.host
                .as_u64()
                .map(|h| h as usize)
                .ok_or_else(|| errors.err(key("host"), "give the host's index (0 is the first)".into()))
        };
        let change = match e.event.as_str() {
            "fail" => HostChange::Fail(index()?),
            "recover" => HostChange::Recover(index()?),
            "add" => {
                let Hosts { slots, specs, speeds } = parse_hosts(e.host.clone(), errors).map_err(|err| {
                    errors.err(
                        key("host"),
                        format!("{err}: give one host, e.g. {{ cpu: 8, memory: 16 }}"),
                    )
                })?;
                if slots.len() != 1 {
                    return Err(errors.err(key("host"), "give one host (no count)".into()));
                }
                if speeds[0] != 1.0 {
                    return Err(errors.err(
                        key("host"),
                        "osep runs fixed hosts: a host added later has no speed".into(),
                    ));
                }
                HostChange::Add(slots[0], specs.into_iter().next().unwrap_or_default())
            }
            other => return Err(errors.err(key("event"), format!("{other:?}: give fail, recover or add"))),
        };
        events.push(HostEvent { at, change });
    }
    Ok(events)
}

/// A request's `constraints:` map: `key: value` (the host's label equals
/// it) or `key: "!=value"` (it does not, or the host has no such label).
pub(super) fn constraints(map: &BTreeMap<String, String>) -> Vec<Constraint> {
    map.iter()
        .map(|(k, v)| match v.strip_prefix("!=") {
            Some(rest) => Constraint {
                key: k.clone(),
                value: rest.to_string(),
                equal: false,
            },
            None => Constraint {
                key: k.clone(),
                value: v.clone(),
                equal: true,
            },
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use crate::qos::{QosFileError, QosSpec};
    use interstice_core::qos::{Constraint, Draw, HostChange, HostSpec, TieBreak};
    use interstice_core::Time;
    use std::path::Path;

    fn parse(text: &str) -> Result<QosSpec, QosFileError> {
        QosSpec::parse(text, Path::new("q.yaml"), 100)
    }

    fn error(text: &str) -> String {
        parse(text).unwrap_err().to_string()
    }

    /// Hosts are counted before any is allocated (400 million used to
    /// abort the process).
    #[test]
    fn a_host_count_beyond_the_bound_is_refused_before_allocating() {
        for count in ["400000000", "18446744073709551615"] {
            let e = parse(&format!("hosts: {{ count: {count}, slots: 1 }}\n"))
                .unwrap_err()
                .to_string();
            assert!(
                e.contains("hosts.count") && e.contains("at most 1000000 hosts"),
                "{e}"
            );
        }
    }

    #[test]
    fn hosts_requests_overheads_and_events_are_read() {
        let s = parse(
            "hosts:\n  - { cpu: 8, memory: 16, labels: { arch: x86 } }\n  - { count: 2, cpu: 4 }\n  - 2\n\
             allocation_time: { hot: [1, 2], cold: { uniform: [5, 20] } }\ntie_break: random\nseed: 9\n\
             events:\n  - { at: 60, host: 1, event: fail }\n  - { at: 90, event: add, host: { cpu: 3, memory: 5 } }\n\
             requests:\n  - { cpu: 2, memory: 4, constraints: { arch: x86, disk: \"!=hdd\" }, instances: 3 }\n",
        )
        .expect("valid");
        let c = &s.config;
        assert_eq!(c.hosts, vec![8, 4, 4, 2]);
        assert_eq!(c.host_specs[0].memory, Some(16));
        assert_eq!(c.host_specs[0].labels["arch"], "x86");
        assert_eq!(c.host_specs[1], HostSpec::default());
        assert_eq!(c.tenants[0].share, 18);
        let o = c.overheads.as_ref().expect("overheads");
        assert_eq!(o.hot, Draw::Values(vec![Time::from_secs(1), Time::from_secs(2)]));
        assert_eq!(o.cold, Draw::Uniform(Time::from_secs(5), Time::from_secs(20)));
        assert_eq!((c.tie_break, c.seed), (TieBreak::Random, 9));
        assert_eq!(c.events[0].change, HostChange::Fail(1));
        assert!(matches!(&c.events[1].change, HostChange::Add(3, spec) if spec.memory == Some(5)));
        assert_eq!(s.requests[0].procs, 2);
        let n = &s.needs[0];
        assert_eq!((n.memory, n.instances), (4, 3));
        assert_eq!(
            n.constraints,
            vec![
                Constraint {
                    key: "arch".into(),
                    value: "x86".into(),
                    equal: true
                },
                Constraint {
                    key: "disk".into(),
                    value: "hdd".into(),
                    equal: false
                },
            ]
        );
        // The old forms: no memory, no labels.
        let s = parse("hosts: { count: 2, slots: 4 }\nallocation_time: 3\n").expect("valid");
        assert!(s.config.host_specs.is_empty() && s.config.overheads.is_none());
        assert_eq!(s.config.allocation_time, Time::from_secs(3));
    }

    #[test]
    fn bad_platform_input_names_the_key_and_the_fix() {
        let e = error("hosts: [{ cpu: 2, memory: -1 }]\n");
        assert!(
            e.contains("q.yaml: hosts[0].memory: -1: give a whole number >= 1"),
            "{e}"
        );
        let e = error("hosts: [2]\nrequests: [{ memory: -1 }]\n");
        assert!(e.contains("requests[0].memory: -1"), "{e}");
        let e = error("hosts: [{ cpu: 2, memory: 4 }]\nrequests: [{ memory: 5 }]\n");
        assert!(e.contains("requests[0].memory") && e.contains("at most 4"), "{e}");
        let e = error("hosts: [2]\nrequests: [{ cpu: 0.5 }]\n");
        assert!(e.contains("requests[0].cpu: 0.5") && e.contains("whole"), "{e}");
        let e = error("hosts: [2]\nrequests: [{ cpu: 1, procs: 1 }]\n");
        assert!(e.contains("requests[0].cpu") && e.contains("not both"), "{e}");
        let e = error("hosts: [2]\nrequests: [{ instances: 0 }]\n");
        assert!(e.contains("requests[0].instances"), "{e}");
        let e = error("hosts: [2]\nevents: [{ at: 5, host: 0, event: explode }]\n");
        assert!(
            e.contains("events[0].event") && e.contains("fail, recover or add"),
            "{e}"
        );
        let e = error("hosts: [2]\nevents: [{ at: 5, host: x, event: fail }]\n");
        assert!(e.contains("events[0].host"), "{e}");
        let e = error("allocation_time: { hot: 1 }\n");
        assert!(e.contains("allocation_time") && e.contains("both"), "{e}");
        let e = error("allocation_time: { hot: 1, cold: { uniform: [5, 2] } }\n");
        assert!(e.contains("allocation_time.cold"), "{e}");
        let e = error("tie_break: coin\n");
        assert!(e.contains("tie_break"), "{e}");
    }
}
