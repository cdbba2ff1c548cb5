//! `hosts:` of a service-class file: slots per host as a list (each entry
//! its slots or `{ slots, speed }`), or `{ count, slots, speed }`.

use serde::Deserialize;

/// A bad `hosts:`: the key, the message, and the bad speed when it is one
/// (so the file's reader can find its line).
#[derive(Debug)]
pub(super) struct HostsError {
    pub(super) key: String,
    pub(super) message: String,
    pub(super) speed: Option<f64>,
}

/// `hosts: { count, slots, speed }` (the other form is a list of slots or
/// of `{ slots, speed }`).
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct UniformHosts {
    count: usize,
    slots: u32,
    #[serde(default)]
    speed: Option<f64>,
}

/// One host of a list: its slots, or its slots and speed.
#[derive(Deserialize)]
#[serde(untagged)]
enum HostEntry {
    Slots(u32),
    Host(OneHost),
}

/// `{ slots, speed }`.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct OneHost {
    slots: u32,
    #[serde(default)]
    speed: Option<f64>,
}

/// `hosts:`: slots per host as a list (each entry its slots or `{ slots,
/// speed }`), or `{ count, slots, speed }`; each host has a slot and a
/// speed > 0 (default 1), and the total fits a `u32` (checked before
/// anything is allocated). Returns the slots and the speeds.
pub(super) fn parse_hosts(hosts: serde_yaml::Value) -> Result<(Vec<u32>, Vec<f64>), HostsError> {
    let bad_hosts = |message: String| HostsError {
        key: "hosts".into(),
        message,
        speed: None,
    };
    let check_speed = |key: String, speed: Option<f64>| match speed {
        None => Ok(1.0),
        Some(s) if s.is_finite() && s > 0.0 => Ok(s),
        Some(s) => Err(HostsError {
            key,
            message: format!("{s} is not a speed: give the host's work per second, > 0 (1 is the reference)"),
            speed: Some(s),
        }),
    };
    let (hosts, speeds) = if hosts.is_sequence() {
        let entries = serde_yaml::from_value::<Vec<HostEntry>>(hosts).map_err(|e| {
            bad_hosts(format!(
                "{e}: give slots per host, e.g. [10, 10, 16], or {{ slots: 1, speed: 2.0 }} entries"
            ))
        })?;
        let mut hosts = Vec::with_capacity(entries.len());
        let mut speeds = Vec::with_capacity(entries.len());
        for (i, h) in entries.into_iter().enumerate() {
            let (slots, speed) = match h {
                HostEntry::Slots(s) => (s, None),
                HostEntry::Host(OneHost { slots, speed }) => (slots, speed),
            };
            hosts.push(slots);
            speeds.push(check_speed(format!("hosts[{i}].speed"), speed)?);
        }
        (hosts, speeds)
    } else {
        let UniformHosts { count, slots, speed } = serde_yaml::from_value(hosts).map_err(|e| {
            bad_hosts(format!(
                "{e}: give {{ count: 20, slots: 10 }} (and a speed) or a list of slots"
            ))
        })?;
        if count == 0 || (count as u64).saturating_mul(u64::from(slots)) > u64::from(u32::MAX) {
            return Err(bad_hosts(format!(
                "{count} hosts of {slots} slots: give 1 to {} slots in all",
                u32::MAX
            )));
        }
        let speed = check_speed("hosts.speed".into(), speed)?;
        (vec![slots; count], vec![speed; count])
    };
    if hosts.is_empty() || hosts.contains(&0) {
        return Err(bad_hosts(
            "give at least one host, each with at least one slot".into(),
        ));
    }
    Ok((hosts, speeds))
}
