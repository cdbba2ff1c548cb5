//! The outputs of a run with service classes (`interstice qos run`,
//! `interstice replay --eviction`): `requests.csv` (one row per request),
//! `windows.csv` (one row per fairness window and class), and the
//! `classes` array and `qos` object of `summary.json` (a replay's writes
//! them through [`crate::output::ResultWriter::set_classes`]). Undefined values
//! are empty fields in CSV and `null` in JSON.

pub use crate::output::{REQUESTS_CSV, WINDOWS_CSV};

use crate::output::OutputError;
use interstice_core::qos::{ClassReport, Distribution, Outcome, QosConfig};
use interstice_core::Time;
use serde_json::{json, Value};
use std::fmt::Write as _;
use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::Path;

/// `requests.csv`'s header.
const REQUESTS_CSV_HEADER: &str = "id,class,tenant,procs,submit,end,run_time,discarded_time,pending_time,\
availability,slo,deficit,preemptions,overhead,penalty";

/// `windows.csv`'s header.
const WINDOWS_CSV_HEADER: &str = "start,end,class,active,gini,min_availability,fulfilment";

fn opt(v: Option<f64>) -> String {
    v.filter(|x| x.is_finite())
        .map(|x| x.to_string())
        .unwrap_or_default()
}

fn secs(t: Time) -> f64 {
    t.as_secs_f64()
}

fn create(dir: &Path, name: &str) -> Result<(BufWriter<File>, std::path::PathBuf), OutputError> {
    let path = dir.join(name);
    let file = File::create(&path).map_err(|source| OutputError::Io {
        path: path.clone(),
        source,
    })?;
    Ok((BufWriter::new(file), path))
}

/// Write `requests.csv` and `windows.csv` into `dir`.
pub fn write_tables(dir: &Path, cfg: &QosConfig, outcome: &Outcome) -> Result<(), OutputError> {
    let (mut out, path) = create(dir, REQUESTS_CSV)?;
    let io = |source| OutputError::Io {
        path: path.clone(),
        source,
    };
    writeln!(out, "{REQUESTS_CSV_HEADER}").map_err(io)?;
    let mut line = String::with_capacity(160);
    for r in &outcome.records {
        line.clear();
        let class = &cfg.classes[r.class];
        let _ = writeln!(
            line,
            "{},{},{},{},{},{},{},{},{},{},{},{},{},{},{}",
            r.id,
            class.name,
            cfg.tenants[r.tenant].name,
            r.procs,
            secs(r.submit),
            opt(r.end.map(secs)),
            secs(r.e),
            secs(r.d),
            secs(r.p),
            opt(r.availability),
            class.slo,
            opt(r.deficit),
            r.preemptions,
            r.overhead,
            r.penalty
        );
        out.write_all(line.as_bytes()).map_err(io)?;
    }
    out.flush().map_err(io)?;

    let (mut out, path) = create(dir, WINDOWS_CSV)?;
    let io = |source| OutputError::Io {
        path: path.clone(),
        source,
    };
    writeln!(out, "{WINDOWS_CSV_HEADER}").map_err(io)?;
    for w in &outcome.windows {
        for (class, stat) in cfg.classes.iter().zip(&w.classes) {
            if let Some(s) = stat {
                writeln!(
                    out,
                    "{},{},{},{},{},{},{}",
                    secs(w.start),
                    secs(w.end),
                    class.name,
                    s.active,
                    s.gini,
                    s.min_availability,
                    s.fulfilment
                )
                .map_err(io)?;
            }
        }
    }
    out.flush().map_err(io)
}

fn distribution(d: &Option<Distribution>) -> Value {
    match d {
        None => Value::Null,
        Some(d) => {
            json!({"mean": d.mean, "min": d.min, "p10": d.p10, "p50": d.p50, "p90": d.p90, "max": d.max})
        }
    }
}

fn finite(v: Option<f64>) -> Value {
    v.filter(|x| x.is_finite()).map_or(Value::Null, Value::from)
}

/// One class object of `summary.json`'s `classes`.
fn class_json(c: &ClassReport) -> Value {
    json!({
        "name": c.name,
        "slo": c.slo,
        "requests": c.requests,
        "completed": c.completed,
        "availability": distribution(&c.availability),
        "slo_fulfilment": finite(c.fulfilment),
        "mean_deficit": finite(c.mean_deficit),
        "violations": c.violations,
        "penalty": c.penalty,
        "preemptions": c.preemptions,
        "gini_mean": finite(c.gini_mean),
        "gini_max": finite(c.gini_max),
    })
}

/// `summary.json`'s `classes` array: one object per class, in the config's order.
pub fn classes_json(outcome: &Outcome) -> Value {
    reports_json(&outcome.classes)
}

/// A `classes` array of these reports (a class run's, a data center's).
pub fn reports_json(reports: &[ClassReport]) -> Value {
    Value::Array(reports.iter().map(class_json).collect())
}

/// `summary.json`'s `qos` object: the scheduler's settings and totals.
pub fn qos_json(cfg: &QosConfig, outcome: &Outcome) -> Value {
    json!({
        "eviction": cfg.eviction.name(),
        "on_preempt": cfg.on_preempt.name(),
        "allocation_time": secs(cfg.allocation_time),
        "watchdog": secs(cfg.watchdog),
        "window": cfg.window.map(secs),
        "hosts": cfg.hosts,
        "requests": outcome.records.len(),
        "preemptions": outcome.preemptions.len(),
        "preemptions_for_capacity": outcome.preemptions_for_capacity(),
        "penalty": outcome.penalty(),
        "end": secs(outcome.end),
        "classes": cfg.classes.iter().map(|c| json!({
            "name": c.name,
            "importance": c.importance,
            "slo": c.slo,
            "margin": secs(c.margin),
            "overhead_limit": c.overhead_limit,
            "credit": c.credit.bands,
        })).collect::<Vec<_>>(),
        "tenants": cfg.tenants.iter().map(|t| json!({"name": t.name, "share": t.share})).collect::<Vec<_>>(),
    })
}

/// Write `summary.json` of a `qos run`: `classes` and `qos`.
pub fn write_summary(dir: &Path, cfg: &QosConfig, outcome: &Outcome) -> Result<(), OutputError> {
    let mut value = json!({ "classes": classes_json(outcome), "qos": qos_json(cfg, outcome) });
    if let (Some(satisfaction), Some(qos)) = (&outcome.satisfaction, value["qos"].as_object_mut()) {
        add_osep(qos, cfg, satisfaction);
    }
    write_json(&dir.join(crate::output::SUMMARY_JSON), &value)
}

/// An osep run's additions to `qos`: the hosts' speeds, OSEP's settings,
/// and each tenant's portion and satisfaction `SU_i` (percent; `null`: no
/// completed task). The other policies' summaries stay as they were.
fn add_osep(qos: &mut serde_json::Map<String, Value>, cfg: &QosConfig, satisfaction: &[Option<f64>]) {
    let speeds: Vec<f64> = (0..cfg.hosts.len()).map(|h| cfg.speed(h)).collect();
    qos.insert("speeds".into(), json!(speeds));
    qos.insert(
        "osep".into(),
        json!({
            "rule": cfg.osep.rule.name(),
            "condition": cfg.osep.condition.name(),
            "period": secs(cfg.osep.period),
            "maxt": cfg.osep.maxt,
            "block": secs(cfg.osep.block),
        }),
    );
    let total = cfg.total_power();
    let tenants: Vec<Value> = cfg
        .tenants
        .iter()
        .enumerate()
        .map(|(t, tenant)| {
            json!({
                "name": tenant.name,
                "share": tenant.share,
                "portion": cfg.portion(t),
                "portion_fraction": cfg.portion(t) / total,
                "satisfaction": finite(satisfaction.get(t).copied().flatten()),
            })
        })
        .collect();
    qos.insert("tenants".into(), Value::Array(tenants));
}

fn write_json(path: &Path, value: &Value) -> Result<(), OutputError> {
    let mut text = serde_json::to_string_pretty(value).map_err(|source| OutputError::Json {
        path: path.to_path_buf(),
        source,
    })?;
    text.push('\n');
    std::fs::write(path, text).map_err(|source| OutputError::Io {
        path: path.to_path_buf(),
        source,
    })
}
