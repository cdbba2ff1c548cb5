//! The report's numbers: the thesis's own aggregation of prediction quality
//! (per-run values averaged, ± the standard deviation, over the runs whose
//! area is at most 320 processors, and again over those with f < 5), the
//! thesis's claims beside this sweep's numbers, and the per-class table.
//!
//! A per-run value that is undefined (no predicted or no occurred violation)
//! is left out of the mean and counted as such, never taken as 0.

use super::tables::{ClassRun, Dimension, Run};
use interstice_core::PredictionQuality;
use serde::Serialize;
use std::collections::BTreeMap;

/// The thesis leaves the areas above 320 processors out of its prediction
/// figures (no violation occurred or was predicted there, §6.8.2).
pub const THESIS_MAX_AREA: u32 = 320;
/// The thesis's "relevant" slacks: f < 5 (1.25, 1.5, 2, 3 and 4).
pub const THESIS_SLACK_BELOW: f64 = 5.0;

/// Mean and sample standard deviation (n − 1; `None` for one value) of `values`.
pub fn mean_sd(values: &[f64]) -> Option<(f64, Option<f64>)> {
    if values.is_empty() {
        return None;
    }
    let n = values.len() as f64;
    let mean = values.iter().sum::<f64>() / n;
    let sd = (values.len() > 1).then(|| {
        let squares: f64 = values.iter().map(|v| (v - mean).powi(2)).sum();
        (squares / (n - 1.0)).sqrt()
    });
    Some((mean, sd))
}

/// A per-run metric averaged over runs: how many runs had it defined, how
/// many did not, and its mean ± sd over the defined ones.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Aggregate {
    pub runs: usize,
    pub undefined: usize,
    pub mean: Option<f64>,
    pub sd: Option<f64>,
}

impl Aggregate {
    /// `metric` over `runs` (a sweep's runs, or one class's rows).
    pub fn of<'a, T: 'a>(runs: impl IntoIterator<Item = &'a T>, metric: fn(&T) -> Option<f64>) -> Aggregate {
        let (mut values, mut undefined) = (Vec::new(), 0);
        for run in runs {
            match metric(run).filter(|v| v.is_finite()) {
                Some(value) => values.push(value),
                None => undefined += 1,
            }
        }
        let (mean, sd) = mean_sd(&values).map_or((None, None), |(mean, sd)| (Some(mean), sd));
        Aggregate {
            runs: values.len(),
            undefined,
            mean,
            sd,
        }
    }

    /// `0.123 ± 0.045 (n = 12, 3 undefined)`.
    pub fn text(&self) -> String {
        let Some(mean) = self.mean else {
            return match self.undefined {
                0 => "no run in this scope".to_string(),
                n => format!("undefined in all {n} runs"),
            };
        };
        let mut text = format!("{mean:.3}");
        if let Some(sd) = self.sd {
            text.push_str(&format!(" ± {sd:.3}"));
        }
        text.push_str(&format!(" (n = {}", self.runs));
        if self.undefined > 0 {
            text.push_str(&format!(", {} undefined", self.undefined));
        }
        text.push(')');
        text
    }
}

/// The thesis's prediction aggregation for one predictor and one setting
/// (the admitting predictor when it varies, and the other settings that
/// vary) over one scope of runs.
#[derive(Clone, Debug, Serialize)]
pub struct PredictionRow {
    /// The predictor scored.
    pub predictor: String,
    pub setting: String,
    pub scope: String,
    pub thesis_accuracy: Aggregate,
    pub thesis_precision: Aggregate,
    pub precision: Aggregate,
    pub recall: Aggregate,
    pub f1: Aggregate,
    pub accuracy: Aggregate,
    pub brier: Aggregate,
    /// The confusion matrix summed over the scope's runs.
    pub tp: u64,
    pub fp: u64,
    #[serde(rename = "fn")]
    pub fn_: u64,
    pub tn: u64,
}

/// The prediction table: per predictor scored and setting, over m_conv ≤
/// 320 and over m_conv ≤ 320 with f < 5. Every run scores every predictor
/// over the same cloud jobs, and again over its foreseeable ones; the
/// admitting predictor is part of the setting only when it varies (under
/// admit-all it changes no decision).
pub fn prediction_rows(runs: &[Run]) -> Vec<PredictionRow> {
    let varying = Dimension::varying(runs, &[]);
    let mut settings: BTreeMap<(&'static str, String), Vec<(&Run, PredictionQuality)>> = BTreeMap::new();
    for run in runs {
        for (predictor, quality) in run.scored().into_iter().chain(run.scored_foreseeable()) {
            settings
                .entry((predictor, run.setting(&varying)))
                .or_default()
                .push((run, quality));
        }
    }
    type Scope = (String, fn(&Run) -> bool);
    let scopes: [Scope; 2] = [
        (format!("m_conv ≤ {THESIS_MAX_AREA}"), |r| {
            r.conv <= THESIS_MAX_AREA
        }),
        (
            format!("m_conv ≤ {THESIS_MAX_AREA}, f < {THESIS_SLACK_BELOW}"),
            |r| r.conv <= THESIS_MAX_AREA && r.slack < THESIS_SLACK_BELOW,
        ),
    ];
    let mut rows = Vec::new();
    for ((predictor, setting), runs) in settings {
        for (scope, keep) in &scopes {
            let scoped: Vec<&PredictionQuality> =
                runs.iter().filter(|(r, _)| keep(r)).map(|(_, q)| q).collect();
            let of =
                |metric: fn(&PredictionQuality) -> Option<f64>| Aggregate::of(scoped.iter().copied(), metric);
            let sum = |count: fn(&PredictionQuality) -> u64| scoped.iter().map(|q| count(q)).sum();
            rows.push(PredictionRow {
                predictor: predictor.to_string(),
                setting: setting.clone(),
                scope: scope.clone(),
                thesis_accuracy: of(|q| q.thesis_accuracy),
                thesis_precision: of(|q| q.thesis_precision),
                precision: of(|q| q.precision),
                recall: of(|q| q.recall),
                f1: of(|q| q.f1),
                accuracy: of(|q| q.accuracy),
                brier: of(|q| q.brier),
                tp: sum(|q| q.tp),
                fp: sum(|q| q.fp),
                fn_: sum(|q| q.fn_),
                tn: sum(|q| q.tn),
            });
        }
    }
    rows
}

/// One of the thesis's claims beside this sweep's number.
#[derive(Clone, Debug, Serialize)]
pub struct Claim {
    pub claim: String,
    pub thesis: String,
    pub here: String,
}

/// `x %` of the runs at a point of the grid (each named by its other
/// settings when there are several); none without a run there.
fn at_point(runs: &[Run], conv: u32, width: &str, slack: f64) -> Option<String> {
    let varying = Dimension::varying(runs, &[]);
    let values: Vec<String> = runs
        .iter()
        .filter(|r| r.conv == conv && r.cloud_procs == width && r.slack == slack)
        .map(|r| {
            let value = match r.violation_percent {
                Some(percent) => format!("{percent:.4} % ({} of {})", r.violations, r.cloud_jobs),
                None => "undefined (no cloud job)".to_string(),
            };
            match r.setting(&varying) {
                setting if setting.is_empty() => value,
                setting => format!("{setting}: {value}"),
            }
        })
        .collect();
    (!values.is_empty()).then(|| values.join("; "))
}

/// The largest violation % among `runs` and where; none without a run.
fn largest(runs: &[&Run]) -> Option<String> {
    let worst = runs
        .iter()
        .filter_map(|r| r.violation_percent.map(|p| (p, r)))
        .max_by(|a, b| a.0.total_cmp(&b.0));
    Some(match worst {
        Some((percent, r)) => format!(
            "largest {percent:.4} % (m_conv {}, h {}, f {}), {} of {} runs with no violation",
            r.conv,
            r.cloud_procs,
            r.slack,
            runs.iter().filter(|r| r.violations == 0).count(),
            runs.len()
        ),
        None if runs.is_empty() => return None,
        None => format!("undefined in all {} runs (no cloud job)", runs.len()),
    })
}

/// The thesis's claims (chapter 6) beside this sweep's numbers, and the
/// claims about points (areas, widths, slacks) where the sweep has no run.
pub fn claims(runs: &[Run], prediction: &[PredictionRow]) -> (Vec<Claim>, Vec<String>) {
    let mut claims = Vec::new();
    let mut left_out = Vec::new();
    let mut claim = |claim: String, thesis: String, here: Option<String>| match here {
        Some(here) => claims.push(Claim { claim, thesis, here }),
        None => left_out.push(claim),
    };
    for (slack, thesis) in [(1.25, "0.0018"), (1.5, "0.0014"), (2.0, "0.0009")] {
        let fraction: f64 = thesis.parse().unwrap_or(f64::NAN);
        let which = if slack == 1.25 {
            " (the thesis's largest)"
        } else {
            ""
        };
        claim(
            format!("violations at m_conv 10, h 4, f {slack}{which}"),
            format!(
                "{thesis} — read as a percentage: {thesis} %; read as a fraction: {:.2} %",
                fraction * 100.0
            ),
            at_point(runs, 10, "4", slack),
        );
    }
    claim(
        "violations at m_conv 10, h 1, f 5 (the thesis's worked example)".to_string(),
        "34 violations of ≈ 267,840 cloud jobs (0.0127 %), thesis precision 21/34 = 0.61".to_string(),
        at_point(runs, 10, "1", 5.0),
    );
    let all: Vec<&Run> = runs.iter().collect();
    claim(
        "largest violation share of the whole grid".to_string(),
        "0.0018 at m_conv 10, h 4, f 1.25".to_string(),
        largest(&all),
    );
    let at_15: Vec<&Run> = runs.iter().filter(|r| r.slack == 15.0).collect();
    claim(
        "violations at f = 15".to_string(),
        "none".to_string(),
        largest(&at_15),
    );
    let large: Vec<&Run> = runs.iter().filter(|r| r.conv > THESIS_MAX_AREA).collect();
    claim(
        format!("violations at m_conv > {THESIS_MAX_AREA}"),
        "none, and none predicted".to_string(),
        largest(&large),
    );
    // The thesis's figures are its own F^σ's: set beside the thesis predictor's rows.
    let thesis_rows = prediction.iter().filter(|r| r.predictor == "thesis");
    for row in thesis_rows {
        let (thesis_accuracy, thesis_precision) = if row.scope.contains("f <") {
            ("0.90", "0.96")
        } else {
            ("0.97 ± 0.07", "0.84")
        };
        claims.push(Claim {
            claim: match row.setting.as_str() {
                "" => format!("prediction over {}, thesis predictor", row.scope),
                setting => format!("prediction over {}, thesis predictor, {setting}", row.scope),
            },
            thesis: format!(
                "accuracy {thesis_accuracy}, precision {thesis_precision} (per-run mean ± sd, its own F^σ predictor)"
            ),
            here: format!(
                "accuracy {}; precision {}",
                row.thesis_accuracy.text(),
                row.thesis_precision.text()
            ),
        });
    }
    let changed = runs.iter().filter(|r| r.hpc_makespan_delta != 0.0).count();
    let biggest = runs
        .iter()
        .map(|r| r.hpc_makespan_delta.abs())
        .fold(0.0, f64::max);
    let hpc_first = runs.iter().all(|r| r.scheduling == "hpc-first");
    claims.push(Claim {
        claim: "HPC makespan with cloud jobs against without".to_string(),
        thesis: "no significant change".to_string(),
        here: format!(
            "changed in {changed} of {} runs, by at most {biggest:.0} s{}",
            runs.len(),
            if hpc_first && changed == 0 {
                " — every run is hpc-first, where HPC work never waits for a cloud job: 0 by construction, not a finding"
            } else {
                ""
            }
        ),
    });
    (claims, left_out)
}

/// One line of the per-class table: a class under an eviction policy at an
/// area and the other settings that vary, averaged over the runs there (seeds).
#[derive(Clone, Debug, Serialize)]
pub struct ClassRow {
    pub eviction: Option<String>,
    pub conv: u32,
    /// The other settings that vary between the runs (`policy=easy f=2 h=4`), or empty.
    pub setting: String,
    pub class: String,
    pub runs: usize,
    pub requests: u64,
    pub penalty: Aggregate,
    pub gini_mean: Aggregate,
    pub slo_fulfilment: Aggregate,
    pub availability_mean: Aggregate,
    pub availability_p10: Aggregate,
    pub availability_min: Aggregate,
    pub mean_deficit: Aggregate,
    pub preemptions: u64,
}

/// The settings of a class row's run besides its eviction policy and area:
/// the varying columns, the slack and the cloud width when they vary.
pub fn class_setting(runs: &[Run]) -> impl Fn(u64) -> String + '_ {
    let varying = Dimension::varying(runs, &[Dimension::Eviction]);
    let first = runs.first();
    let slacks_vary = runs.iter().any(|r| Some(r.slack) != first.map(|f| f.slack));
    let widths_vary = runs
        .iter()
        .any(|r| Some(&r.cloud_procs) != first.map(|f| &f.cloud_procs));
    let by_id: std::collections::HashMap<u64, &Run> = runs.iter().map(|r| (r.run, r)).collect();
    move |id: u64| {
        let Some(run) = by_id.get(&id) else {
            return String::new();
        };
        let mut parts = vec![run.setting(&varying)];
        if widths_vary {
            parts.push(format!("h={}", run.cloud_procs));
        }
        if slacks_vary {
            parts.push(format!("f={}", run.slack));
        }
        parts.retain(|part| !part.is_empty());
        parts.join(" ")
    }
}

/// The per-class table, in (eviction, area, setting, class) order.
pub fn class_rows(runs: &[Run], classes: &[ClassRun]) -> Vec<ClassRow> {
    let setting = class_setting(runs);
    let mut groups: BTreeMap<(Option<String>, u32, String, String), Vec<&ClassRun>> = BTreeMap::new();
    for class in classes {
        groups
            .entry((
                class.eviction.clone(),
                class.conv,
                setting(class.run),
                class.class.clone(),
            ))
            .or_default()
            .push(class);
    }
    let of = |rows: &[&ClassRun], metric| Aggregate::of(rows.iter().copied(), metric);
    groups
        .into_iter()
        .map(|((eviction, conv, setting, class), rows)| ClassRow {
            eviction,
            conv,
            setting,
            class,
            runs: rows.len(),
            requests: rows.iter().map(|r| r.requests).sum(),
            penalty: of(&rows, |r| Some(r.penalty)),
            gini_mean: of(&rows, |r| r.gini_mean),
            slo_fulfilment: of(&rows, |r| r.slo_fulfilment),
            availability_mean: of(&rows, |r| r.availability_mean),
            availability_p10: of(&rows, |r| r.availability_p10),
            availability_min: of(&rows, |r| r.availability_min),
            mean_deficit: of(&rows, |r| r.mean_deficit),
            preemptions: rows.iter().map(|r| r.preemptions).sum(),
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mean_and_sample_standard_deviation() {
        let (mean, sd) = mean_sd(&[2.0, 4.0, 4.0, 4.0, 5.0, 5.0, 7.0, 9.0]).unwrap();
        assert_eq!(mean, 5.0);
        assert!((sd.unwrap() - (32.0f64 / 7.0).sqrt()).abs() < 1e-12);
        assert_eq!(mean_sd(&[3.0]), Some((3.0, None)));
        assert_eq!(mean_sd(&[]), None);
    }
}
