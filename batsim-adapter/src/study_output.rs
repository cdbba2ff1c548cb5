//! The outputs of `interstice qos study` (seed 001's study): `study.json`,
//! per infrastructure size and policy the total penalty, per class the
//! paired availabilities' squares and quadrants, per contention level and
//! class the fairness metrics as means with 95 % intervals; and
//! `requests.csv`, every request's availability under both policies.
//! Undefined values are `null` in JSON and empty fields in CSV.

use crate::output::OutputError;
use interstice_core::qos::study::tally::{Metric, Pair};
use interstice_core::qos::study::{Contention, HeatMap, SizeReport, POLICIES, SIZES};
use serde_json::{json, Map, Value};
use std::io::Write;
use std::path::Path;

/// The study's summary.
pub const STUDY_JSON: &str = "study.json";
/// The paired availabilities.
pub const STUDY_REQUESTS_CSV: &str = "requests.csv";
/// `requests.csv`'s header.
pub const STUDY_REQUESTS_HEADER: &str = "sample,size,id,class,priority_availability,qos_driven_availability";

/// A class as the study's outputs name it.
#[derive(Clone, Debug)]
pub struct ClassInfo {
    /// Its name.
    pub name: String,
    /// Its SLO.
    pub slo: f64,
}

fn per_policy(values: [Value; 2]) -> Value {
    let [a, b] = values;
    json!({ POLICIES[0]: a, POLICIES[1]: b })
}

fn metric(m: &Metric) -> Value {
    per_policy(m.map(|ci| match ci {
        Some(ci) => json!({ "n": ci.n, "mean": ci.mean, "ci95": ci.half_width }),
        None => Value::Null,
    }))
}

fn heat(h: &HeatMap, class: &ClassInfo) -> Value {
    let share = |k: u64| (h.requests > 0).then(|| k as f64 / h.requests as f64);
    let rows: Vec<&[u64]> = h
        .counts
        .chunks(interstice_core::qos::study::paired::SQUARES)
        .collect();
    let fulfilment = h.fulfilment();
    json!({
        "class": class.name,
        "slo": class.slo,
        "requests": h.requests,
        "quadrants": {
            "both": share(h.both),
            "priority_only": share(h.priority_only),
            "qos_driven_only": share(h.qos_only),
            "neither": share(h.neither),
        },
        "above_identity": share(h.above),
        "below_identity": share(h.below),
        "fulfilment": per_policy([json!(fulfilment.map(|f| f.0)), json!(fulfilment.map(|f| f.1))]),
        "squares": { "size": 0.05, "counts_by_qos_driven_then_priority": rows },
    })
}

/// `study.json`'s `sizes` array: one object per size, in [`SIZES`]' order.
pub fn sizes_json(reports: &[SizeReport], classes: &[ClassInfo]) -> Value {
    let sizes: Vec<Value> = reports
        .iter()
        .zip(SIZES)
        .map(|(r, size)| {
            let windows: Map<String, Value> = Contention::ALL
                .iter()
                .map(|l| (l.name().to_string(), json!(r.windows[*l as usize])))
                .collect();
            let levels: Vec<Value> = r
                .levels
                .iter()
                .map(|l| {
                    json!({
                        "level": l.level.name(),
                        "class": classes[l.class].name,
                        "windows": l.windows,
                        "gini": metric(&l.gini),
                        "min_availability": metric(&l.min_availability),
                        "fulfilment": metric(&l.fulfilment),
                    })
                })
                .collect();
            json!({
                "size": size,
                "samples": r.samples,
                "penalty": per_policy([json!(r.penalty[0]), json!(r.penalty[1])]),
                "penalty_increase": r.penalty_increase,
                "unpaired_requests": r.unpaired,
                "windows": windows,
                "classes": r
                    .heat
                    .iter()
                    .zip(&r.class_penalty)
                    .zip(classes)
                    .map(|((h, p), c)| {
                        let mut v = heat(h, c);
                        v["penalty"] = per_policy([json!(p[0]), json!(p[1])]);
                        v
                    })
                    .collect::<Vec<_>>(),
                "contention": levels,
            })
        })
        .collect();
    Value::Array(sizes)
}

/// Write `value` as `dir/study.json`.
pub fn write_json(dir: &Path, value: &Value) -> Result<(), OutputError> {
    let path = dir.join(STUDY_JSON);
    let mut text = serde_json::to_string_pretty(value).expect("a JSON value serialises");
    text.push('\n');
    std::fs::write(&path, text).map_err(|source| OutputError::Io { path, source })
}

/// Appends `requests.csv` rows as the runs finish.
pub struct PairsWriter {
    out: std::io::BufWriter<std::fs::File>,
    path: std::path::PathBuf,
}

impl PairsWriter {
    /// Create `dir/requests.csv` with its header.
    pub fn create(dir: &Path) -> Result<PairsWriter, OutputError> {
        let path = dir.join(STUDY_REQUESTS_CSV);
        let file = std::fs::File::create(&path).map_err(|source| OutputError::Io {
            path: path.clone(),
            source,
        })?;
        let mut w = PairsWriter {
            out: std::io::BufWriter::new(file),
            path,
        };
        w.line(format_args!("{STUDY_REQUESTS_HEADER}"))?;
        Ok(w)
    }

    fn line(&mut self, args: std::fmt::Arguments<'_>) -> Result<(), OutputError> {
        writeln!(self.out, "{args}").map_err(|source| OutputError::Io {
            path: self.path.clone(),
            source,
        })
    }

    /// The pairs of sample `sample` (1-based) at size `size` (index into [`SIZES`]).
    pub fn add(
        &mut self,
        sample: usize,
        size: usize,
        pairs: &[Pair],
        classes: &[ClassInfo],
    ) -> Result<(), OutputError> {
        let f = |a: Option<f64>| {
            a.filter(|x| x.is_finite())
                .map(|x| x.to_string())
                .unwrap_or_default()
        };
        for &(id, class, x, y) in pairs {
            self.line(format_args!(
                "{sample},{},{id},{},{},{}",
                SIZES[size],
                classes[class].name,
                f(x),
                f(y)
            ))?;
        }
        Ok(())
    }

    /// Flush to disk.
    pub fn finish(mut self) -> Result<(), OutputError> {
        self.out.flush().map_err(|source| OutputError::Io {
            path: self.path.clone(),
            source,
        })
    }
}
