//! What a SIGHUP changes: the keys that differ between the configuration
//! in effect and the file as it is now, split into those applied at once
//! (the [`Reloadable`](crate::actor::Reloadable) sections, and the area's
//! size) and those that need a restart.

use serde_yaml::Value;
use std::path::Path;

/// Top-level sections SIGHUP applies without a restart.
pub const RELOADABLE_SECTIONS: [&str; 3] = ["execution", "node", "metrics"];

/// Keys outside those sections that SIGHUP applies too: the convergence
/// area's size (the engine resizes the area, `POST /v1/area`'s rule).
pub const RELOADABLE_KEYS: [&str; 1] = ["engine.conv_procs"];

/// Keys of the reloadable sections that still need a restart (the jobs'
/// containment, its cgroup controllers and the jobs' working directories are
/// set up once, at start).
pub const RESTART_KEYS: [&str; 3] = [
    "execution.cgroup",
    "execution.work_root",
    "execution.limits.cpu_quota",
];

/// The configuration file as written, to compare reloads against.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ConfigText(Value);

/// The keys a reload changed.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Changes {
    /// Applied now (`execution.grace_seconds`…).
    pub applied: Vec<String>,
    /// Changed in the file but in effect only after a restart (`engine.procs`…).
    pub need_restart: Vec<String>,
}

impl ConfigText {
    /// Read `path` as YAML (`None` if it cannot be read or parsed; the
    /// config loader reports why).
    pub fn read(path: &Path) -> Option<ConfigText> {
        let text = std::fs::read_to_string(path).ok()?;
        serde_yaml::from_str(&text).ok().map(ConfigText)
    }

    /// The keys that differ from `new`, and the text now in effect once the
    /// reloadable sections of `new` are applied.
    pub fn reload(&self, new: &ConfigText) -> (Changes, ConfigText) {
        let mut changed = Vec::new();
        diff("", &self.0, &new.0, &mut changed);
        let (applied, need_restart) = changed.into_iter().partition(|key: &String| {
            RELOADABLE_KEYS.contains(&key.as_str())
                || RELOADABLE_SECTIONS.iter().any(|section| in_section(key, section))
                    && !RESTART_KEYS.iter().any(|restart| in_section(key, restart))
        });
        let mut in_effect = self.0.clone();
        if let (Value::Mapping(effect), Value::Mapping(new)) = (&mut in_effect, &new.0) {
            for section in RELOADABLE_SECTIONS {
                let key = Value::String(section.to_string());
                match new.get(&key) {
                    Some(value) => effect.insert(key, value.clone()),
                    None => effect.remove(&key),
                };
            }
        }
        for key in RELOADABLE_KEYS {
            let path: Vec<&str> = key.split('.').collect();
            let now = path
                .iter()
                .try_fold(&new.0, |value, name| value.get(*name))
                .cloned();
            keep(&mut in_effect, &path, now);
        }
        // What needs a restart stays as it was loaded.
        for key in RESTART_KEYS {
            let path: Vec<&str> = key.split('.').collect();
            let old = path
                .iter()
                .try_fold(&self.0, |value, name| value.get(*name))
                .cloned();
            keep(&mut in_effect, &path, old);
        }
        (
            Changes {
                applied,
                need_restart,
            },
            ConfigText(in_effect),
        )
    }
}

/// Set the value at `path` in `value` to `old` (None: remove it), where
/// the mappings above it exist.
fn keep(value: &mut Value, path: &[&str], old: Option<Value>) {
    let Some((last, above)) = path.split_last() else {
        return;
    };
    let parent = above.iter().try_fold(value, |value, name| value.get_mut(*name));
    if let Some(Value::Mapping(parent)) = parent {
        let field = Value::String(last.to_string());
        match old {
            Some(old) => parent.insert(field, old),
            None => parent.remove(&field),
        };
    }
}

fn in_section(key: &str, section: &str) -> bool {
    key == section
        || key
            .strip_prefix(section)
            .is_some_and(|rest| rest.starts_with('.'))
}

/// Dotted paths of every leaf that differs (added, removed or changed).
fn diff(path: &str, old: &Value, new: &Value, out: &mut Vec<String>) {
    match (old, new) {
        (Value::Mapping(old), Value::Mapping(new)) => {
            let mut keys: Vec<String> = old.keys().chain(new.keys()).map(key_text).collect();
            keys.sort();
            keys.dedup();
            for key in keys {
                let child = if path.is_empty() {
                    key.clone()
                } else {
                    format!("{path}.{key}")
                };
                let lookup = Value::String(key);
                match (old.get(&lookup), new.get(&lookup)) {
                    (Some(a), Some(b)) => diff(&child, a, b, out),
                    (None, None) => {}
                    _ => out.push(child),
                }
            }
        }
        (a, b) if a != b => out.push(if path.is_empty() {
            "(whole file)".to_string()
        } else {
            path.to_string()
        }),
        _ => {}
    }
}

fn key_text(key: &Value) -> String {
    match key {
        Value::String(text) => text.clone(),
        other => serde_yaml::to_string(other)
            .unwrap_or_default()
            .trim()
            .to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn text(yaml: &str) -> ConfigText {
        ConfigText(serde_yaml::from_str(yaml).unwrap())
    }

    #[test]
    fn changed_keys_are_split_into_applied_and_needing_a_restart() {
        let old = text("engine: {procs: 4, policy: easy}\nexecution: {grace_seconds: 1}\nlog_level: info\n");
        let new = text(
            "engine: {procs: 8, policy: easy}\nexecution: {grace_seconds: 2, user: nobody, cgroup: none}\nlog_level: info\nnode: {x: 1}\n",
        );
        let (changes, in_effect) = old.reload(&new);
        assert_eq!(
            changes.applied,
            ["execution.grace_seconds", "execution.user", "node"]
        );
        assert_eq!(changes.need_restart, ["engine.procs", "execution.cgroup"]);
        // Still pending at the next reload; the applied ones are not.
        let (again, _) = in_effect.reload(&new);
        assert!(again.applied.is_empty());
        assert_eq!(again.need_restart, ["engine.procs", "execution.cgroup"]);
    }

    #[test]
    fn the_thesis_engine_keys_need_a_restart_like_the_policy() {
        let old = text("engine: {procs: 4, policy: easy}\n");
        let new = text(
            "engine:\n  procs: 4\n  policy: easy\n  scheduling: shared-queue\n  predictor: thesis\n  latency: 1\n  \
             beta: disqualify\n  maintenance: [{start: 0, duration: 60, procs: 0}]\n",
        );
        let (changes, _) = old.reload(&new);
        assert!(changes.applied.is_empty());
        assert_eq!(
            changes.need_restart,
            [
                "engine.beta",
                "engine.latency",
                "engine.maintenance",
                "engine.predictor",
                "engine.scheduling"
            ]
        );
        let moved = text(
            "engine:\n  procs: 4\n  policy: easy\n  scheduling: shared-queue\n  predictor: thesis\n  latency: 1\n  \
             beta: disqualify\n  maintenance: [{start: 0, duration: 90, procs: 0}]\n",
        );
        assert_eq!(new.reload(&moved).0.need_restart, ["engine.maintenance"]);
    }

    /// Turning the CPU quota on takes a restart (its controller is found at
    /// start); the memory and process limits apply at the next start.
    #[test]
    fn the_cpu_quota_needs_a_restart_the_other_limits_do_not() {
        let old = text("execution: {limits: {pids: 512}}\n");
        let new = text("execution: {limits: {pids: 64, cpu_quota: true}}\n");
        let (changes, in_effect) = old.reload(&new);
        assert_eq!(changes.applied, ["execution.limits.pids"]);
        assert_eq!(changes.need_restart, ["execution.limits.cpu_quota"]);
        assert_eq!(in_effect, text("execution: {limits: {pids: 64}}\n"));
    }

    /// The area's size is applied (a resize); the rest of `engine` is not.
    #[test]
    fn the_area_size_is_applied_without_a_restart() {
        let old = text("engine: {procs: 64, conv_procs: 64, policy: easy}\n");
        let new = text("engine: {procs: 64, conv_procs: 32, policy: conservative}\n");
        let (changes, in_effect) = old.reload(&new);
        assert_eq!(changes.applied, ["engine.conv_procs"]);
        assert_eq!(changes.need_restart, ["engine.policy"]);
        assert_eq!(
            in_effect,
            text("engine: {procs: 64, conv_procs: 32, policy: easy}\n")
        );
        let (again, _) = in_effect.reload(&new);
        assert!(again.applied.is_empty());
        // Removed from the file: the area is the whole machine again.
        let (dropped, _) = in_effect.reload(&text("engine: {procs: 64, policy: easy}\n"));
        assert_eq!(dropped.applied, ["engine.conv_procs"]);
    }

    #[test]
    fn an_unchanged_file_changes_nothing() {
        let same = text("engine: {procs: 4}\n");
        assert_eq!(same.reload(&same).0, Changes::default());
    }
}
