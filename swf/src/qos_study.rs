//! The study file of `interstice qos study FILE` (seed 001 §4): a
//! service-class file — its classes and the scheduler's settings, as for
//! `qos run`, without `hosts` or `requests` (the study sizes the hosts and
//! brings the requests) — with a `study:` section and the generator's
//! `sample:` section ([`crate::google_like::GeneratorParams`]).
//!
//! ```yaml
//! study:
//!   samples: 10          # workload samples (default 10)
//!   seed: 1              # sample k uses seed + k (default 1)
//!   scale: 100           # slots per unit of the largest machine (default 100)
//!   traces: [a.csv]      # instead of generated samples: request traces, one per sample
//! sample: { horizon_days: 7 }   # the generator's parameters (docs/qos.md, "Request traces")
//! allocation_time: 1
//! on_preempt: resume
//! ```
//!
//! Requests and machines are normalised to the largest machine (as in
//! Google's trace); the scheduler counts whole slots and memory units, so a
//! study multiplies both by `scale` and rounds up (a request's CPU at least
//! one slot).

use crate::google_like::GeneratorParams;
use crate::qos::{QosFileError, QosSpec};
use crate::request_trace::{Host, TraceRequest};
use interstice_core::qos::{Constraint, Eviction, Needs, Request, ServiceClass};
use interstice_core::Time;
use serde::Deserialize;
use std::path::{Path, PathBuf};

/// Where a study's samples come from.
#[derive(Clone, Debug, PartialEq)]
pub enum SampleSource {
    /// Generated from the `sample:` parameters, sample `k` with seed `seed + k`.
    Generated(GeneratorParams),
    /// Request traces, one per sample (relative paths resolved against the study file).
    Traces(Vec<PathBuf>),
}

/// A study as its file describes it.
#[derive(Clone, Debug)]
pub struct StudySpec {
    /// The classes and the scheduler's settings (no hosts, no requests).
    pub qos: QosSpec,
    /// Samples.
    pub samples: u32,
    /// The first sample's seed is `seed + 1`.
    pub seed: u64,
    /// Slots (and memory units) per unit of the largest machine.
    pub scale: u32,
    /// The samples' source.
    pub source: SampleSource,
    /// The generator's parameters (its machine types are the host pool).
    pub params: GeneratorParams,
}

#[derive(Deserialize, Default)]
#[serde(deny_unknown_fields)]
struct Section {
    #[serde(default)]
    samples: Option<u32>,
    #[serde(default)]
    seed: Option<u64>,
    #[serde(default)]
    scale: Option<u32>,
    #[serde(default)]
    traces: Vec<PathBuf>,
}

#[derive(Deserialize)]
struct File {
    #[serde(default)]
    study: Option<Section>,
    #[serde(default)]
    sample: Option<serde_yaml::Value>,
}

impl StudySpec {
    /// The largest `scale` (a host of the largest machine then has a million slots).
    pub const MAX_SCALE: u32 = 1_000_000;

    /// The most generated samples (each is a whole simulation per policy:
    /// ten thousand already take hours; more is a typo, refused before
    /// anything is allocated for them).
    pub const MAX_SAMPLES: u32 = 10_000;

    /// Read the study file `path`.
    pub fn load(path: &Path) -> Result<StudySpec, QosFileError> {
        let text = crate::input_file::read_text(path, crate::input_file::MAX_TEXT_BYTES)
            .map_err(|e| QosFileError(format!("{}: cannot read: {e}", path.display())))?;
        let place = path.display().to_string();
        let qos = QosSpec::parse(&text, path, 0)?;
        let bad = |key: &str, msg: String| QosFileError(format!("{place}: {key}: {msg}"));
        if !qos.config.hosts.is_empty() || !qos.requests.is_empty() {
            return Err(bad(
                "hosts/requests",
                "a study sizes its hosts and brings its requests: remove `hosts` and `requests`".into(),
            ));
        }
        if qos.config.eviction != Eviction::default() && qos.config.eviction != Eviction::Priority {
            return Err(bad(
                "eviction",
                "a study runs priority and qos-driven itself: remove `eviction`".into(),
            ));
        }
        let file: File = crate::error::from_yaml(&text, &place).map_err(QosFileError)?;
        let section = file.study.unwrap_or_default();
        let params = match file.sample {
            Some(_) => GeneratorParams::from_yaml(&text, &place).map_err(QosFileError)?,
            None => GeneratorParams::default(),
        };
        let samples = section.samples.unwrap_or(10);
        let scale = section.scale.unwrap_or(100);
        if !(1..=Self::MAX_SCALE).contains(&scale) {
            return Err(bad(
                "study.scale",
                format!("{scale}: give 1 to {}", Self::MAX_SCALE),
            ));
        }
        let source = if section.traces.is_empty() {
            if !(1..=Self::MAX_SAMPLES).contains(&samples) {
                return Err(bad(
                    "study.samples",
                    format!("{samples}: give 1 to {} samples", Self::MAX_SAMPLES),
                ));
            }
            SampleSource::Generated(params.clone())
        } else {
            let dir = path.parent().unwrap_or(Path::new("."));
            SampleSource::Traces(section.traces.iter().map(|t| dir.join(t)).collect())
        };
        let samples = match &source {
            SampleSource::Traces(t) => t.len() as u32,
            SampleSource::Generated(_) => samples,
        };
        Ok(StudySpec {
            qos,
            samples,
            seed: section.seed.unwrap_or(1),
            scale,
            source,
            params,
        })
    }
}

/// `x` in the largest machine's units as whole units at `scale`, rounded up.
fn units(x: f64, scale: u32) -> u32 {
    (x * f64::from(scale)).ceil().clamp(0.0, f64::from(u32::MAX)) as u32
}

/// The hosts of a pool as the scheduler's slots and memory.
pub fn pool(hosts: &[Host], scale: u32) -> Vec<(u32, u32)> {
    hosts
        .iter()
        .map(|h| (units(h.cpu, scale).max(1), units(h.memory, scale)))
        .collect()
}

/// A sample's rows as the scheduler's requests (ids from 1 in row order,
/// the default tenant), each with its memory, constraints and instances;
/// a class the file does not define is an error naming the row.
pub fn requests(
    rows: &[TraceRequest],
    classes: &[ServiceClass],
    scale: u32,
    place: &str,
) -> Result<Vec<(Request, Needs)>, QosFileError> {
    rows.iter()
        .enumerate()
        .map(|(i, r)| {
            let class = classes.iter().position(|c| c.name == r.class).ok_or_else(|| {
                let names: Vec<&str> = classes.iter().map(|c| c.name.as_str()).collect();
                QosFileError(format!(
                    "{place}: request {}: class `{}` is not one of the study's classes ({})",
                    i + 1,
                    r.class,
                    names.join(", ")
                ))
            })?;
            let request = Request {
                id: i as u64 + 1,
                submit: Time::from_secs_f64(r.submit),
                procs: units(r.cpu, scale).max(1),
                duration: r.duration.map(Time::from_secs_f64),
                class,
                tenant: 0,
            };
            let needs = Needs {
                memory: units(r.memory, scale),
                constraints: r
                    .constraints
                    .iter()
                    .map(|(key, value)| Constraint {
                        key: key.clone(),
                        value: value.clone(),
                        equal: true,
                    })
                    .collect(),
                instances: r.instances.max(1),
            };
            Ok((request, needs))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(cpu: f64, memory: f64, class: &str) -> TraceRequest {
        TraceRequest {
            submit: 1.5,
            duration: Some(60.0),
            cpu,
            memory,
            instances: 3,
            class: class.into(),
            user: "u".into(),
            constraints: vec![("arch".into(), "x86".into())],
        }
    }

    #[test]
    fn rows_become_whole_units_rounded_up() {
        let classes = ServiceClass::paper_classes();
        let r = requests(
            &[row(0.0125, 0.031, "silver"), row(0.0, 0.0, "gold")],
            &classes,
            100,
            "s",
        )
        .unwrap();
        assert_eq!((r[0].0.procs, r[0].1.memory, r[0].1.instances), (2, 4, 3));
        assert_eq!(
            (r[1].0.procs, r[1].1.memory),
            (1, 0),
            "a request holds at least one slot"
        );
        assert_eq!(r[0].0.class, 1);
        assert_eq!(r[0].1.constraints[0].key, "arch");
        assert_eq!(r[1].0.id, 2);
        let err = requests(&[row(0.1, 0.1, "platinum")], &classes, 100, "s.csv")
            .unwrap_err()
            .to_string();
        assert!(err.contains("s.csv: request 1: class `platinum`"), "{err}");
        assert_eq!(
            pool(
                &[Host {
                    cpu: 0.5,
                    memory: 0.25
                }],
                100
            ),
            vec![(50, 25)]
        );
    }
}
