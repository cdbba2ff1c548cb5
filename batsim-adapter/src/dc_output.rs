//! The result files of a data-center replay: `jobs.csv` with one row per
//! attempt (Batsim's columns, then `scheduler`, `attempt` and `job_violated`)
//! and one `summary.json` with the data center's totals, one object per
//! scheduler (its counters and the usual run summary over its attempts),
//! the migrations and the Petri net's counts.

use crate::output::{JobsCsv, Naming, OutputError, JOBS_CSV, SUMMARY_JSON};
use crate::sim::datacenter::{AttemptSink, DatacenterRun};
use crate::sim::SimError;
use crate::summary_json::summary_value;
use interstice_core::datacenter::{Attempt, PetriNet, Place, SchedulerTotals, Totals, Transition};
use interstice_core::{EngineConfig, SummaryTally};
use serde_json::{json, Map, Value};
use std::fs::File;
use std::io::BufWriter;
use std::path::{Path, PathBuf};

/// The extra columns of a data-center `jobs.csv`.
pub const ATTEMPT_COLUMNS: &str = "scheduler,attempt,job_violated";

/// Writes a data-center replay's files as it runs.
pub struct DatacenterWriter<'n> {
    dir: PathBuf,
    names: Vec<String>,
    csv: Option<JobsCsv<'n, BufWriter<File>>>,
    tallies: Vec<SummaryTally>,
}

impl<'n> DatacenterWriter<'n> {
    /// Create `dir` if needed and start `dir/jobs.csv` (unless `jobs_csv` is
    /// false) for schedulers named `names`.
    pub fn create(
        dir: &Path,
        names: Vec<String>,
        naming: Naming<'n>,
        jobs_csv: bool,
    ) -> Result<DatacenterWriter<'n>, OutputError> {
        crate::output::prepare_out_dir(dir, jobs_csv)?;
        let csv = if jobs_csv {
            let path = dir.join(JOBS_CSV);
            Some(
                File::create(&path)
                    .and_then(|file| JobsCsv::with_columns(BufWriter::new(file), naming, ATTEMPT_COLUMNS))
                    .map_err(|source| OutputError::Io { path, source })?,
            )
        } else {
            None
        };
        Ok(DatacenterWriter {
            dir: dir.to_path_buf(),
            tallies: names.iter().map(|_| SummaryTally::default()).collect(),
            names,
            csv,
        })
    }

    fn io(&self, source: std::io::Error) -> OutputError {
        OutputError::Io {
            path: self.dir.join(JOBS_CSV),
            source,
        }
    }

    /// Write the remaining rows and `summary.json`; `configs` are the
    /// schedulers' engine configs, `datacenter` the data center's settings.
    pub fn finish(
        self,
        run: &DatacenterRun,
        configs: &[EngineConfig],
        roles: &[&str],
        datacenter: Value,
    ) -> Result<Value, OutputError> {
        if let Some(csv) = self.csv {
            csv.finish().map_err(|source| OutputError::Io {
                path: self.dir.join(JOBS_CSV),
                source,
            })?;
        }
        let summary_path = self.dir.join(SUMMARY_JSON);
        let json_err = |source| OutputError::Json {
            path: summary_path.clone(),
            source,
        };
        let mut schedulers = Map::new();
        for (i, name) in self.names.iter().enumerate() {
            let config = &configs[i];
            let summary = self.tallies[i].clone().summary(config.procs);
            let mut object = counters(&run.schedulers[i]);
            object.insert("role".into(), json!(roles[i]));
            object.insert(
                "summary".into(),
                summary_value(&summary, config, name, None).map_err(json_err)?,
            );
            schedulers.insert(name.clone(), Value::Object(object));
        }
        let mut value = json!({
            "datacenter": datacenter_totals(&run.totals, run, datacenter),
            "migrations": run.totals.migrations,
            "schedulers": schedulers,
            "petri_net": petri_net(&run.net),
        });
        if !run.classes.is_empty() {
            value["classes"] = crate::qos_output::reports_json(&run.classes);
        }
        let mut text = serde_json::to_string_pretty(&value).map_err(json_err)?;
        text.push('\n');
        std::fs::write(&summary_path, text).map_err(|source| OutputError::Io {
            path: summary_path,
            source,
        })?;
        Ok(value)
    }
}

impl AttemptSink for DatacenterWriter<'_> {
    fn attempt(&mut self, seq: u64, attempt: Attempt) -> Result<(), SimError> {
        if let Some(i) = attempt.scheduler {
            if attempt.last {
                self.tallies[i].add(&attempt.record);
            } else {
                // Not the job's outcome: an attempt evicted and sent on is
                // no SLO verdict here.
                let mut record = attempt.record.clone();
                record.job.slo = None;
                self.tallies[i].add(&record);
            }
        }
        if let Some(csv) = &mut self.csv {
            let scheduler = attempt.scheduler.map_or("", |i| self.names[i].as_str());
            let violated = match attempt.violated {
                Some(true) => "1",
                Some(false) => "0",
                None => "",
            };
            let extra = format!("{scheduler},{},{violated}", attempt.attempt);
            csv.add_with(seq, &attempt.record, &extra);
        }
        Ok(())
    }

    fn reached(&mut self, now: interstice_core::Time) -> Result<(), SimError> {
        if let Some(csv) = &mut self.csv {
            if let Err(source) = csv.write_before(now) {
                return Err(SimError::Output(self.io(source)));
            }
        }
        Ok(())
    }
}

fn counters(t: &SchedulerTotals) -> Map<String, Value> {
    let value = json!({
        "sent": t.sent,
        "migrated_in": t.migrated_in,
        "migrated_out": t.migrated_out,
        "resubmitted": t.resubmitted,
        "evictions": t.evictions,
        "last_attempts": t.last_attempts,
        "violations": t.violations,
        "direct": t.direct,
        "publications": t.publications,
    });
    match value {
        Value::Object(map) => map,
        _ => unreachable!("a JSON object literal"),
    }
}

/// A ratio, `null` when undefined.
fn ratio(num: u64, den: u64) -> Value {
    if den == 0 {
        Value::Null
    } else {
        json!(num as f64 / den as f64)
    }
}

fn datacenter_totals(t: &Totals, run: &DatacenterRun, settings: Value) -> Value {
    json!({
        "settings": settings,
        "cloud_jobs": t.arrived,
        "accepted": t.accepted,
        "refused": t.refused,
        "completed": t.completed,
        "failed": t.failed,
        "unfinished": t.unfinished,
        "violations": t.violations,
        "violation_ratio": ratio(t.violations, t.accepted),
        "evictions": t.evictions,
        "migrations": t.migrations,
        "resubmissions_in_place": t.resubmissions_in_place,
        "prediction": {
            "tp": t.true_positives,
            "fp": t.false_positives,
            "fn": t.false_negatives,
            "tn": t.true_negatives,
            "precision": ratio(t.true_positives, t.true_positives + t.false_positives),
            "recall": ratio(t.true_positives, t.true_positives + t.false_negatives),
        },
        "passes": run.passes,
        "end_time": run.end_time.as_secs_f64(),
    })
}

fn petri_net(net: &PetriNet) -> Value {
    let transitions: Map<String, Value> = Transition::ALL
        .iter()
        .map(|t| (t.to_string(), json!(net.fired(*t))))
        .collect();
    let places: Map<String, Value> = Place::ALL
        .iter()
        .map(|p| (p.to_string(), json!(net.tokens(*p))))
        .collect();
    json!({
        "transitions": transitions,
        "places": places,
        "entered": net.entered(),
        "finished": net.finished(),
        "conserves_tokens": net.conserves_tokens(),
    })
}
