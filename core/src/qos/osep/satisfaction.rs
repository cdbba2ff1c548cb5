//! The user satisfaction `SU_i` of seed 002 (eq. 4.4): the mean, over a
//! tenant's completed tasks, of `(CT_ideal − AT) / (CT_real − AT) × 100`.

use crate::qos::config::{QosConfig, Request};
use crate::qos::report::RequestRecord;

/// One task's satisfaction, percent: `(ideal − submit) / (end − submit) ×
/// 100`, where `ideal − submit` is its work at the platform's fastest
/// speed (the seed's expectation: the task run at once on the best machine,
/// as §5.3 sizes its tasks; 100 % when that happened). `None` for a task
/// that did not complete (or took no time).
pub fn of_task(work: f64, fastest: f64, submit: f64, end: Option<f64>) -> Option<f64> {
    let taken = end? - submit;
    (taken > 0.0).then(|| work / fastest / taken * 100.0)
}

/// `SU_i` of every tenant of `cfg`: the mean of its completed tasks'
/// satisfactions (`None` when none completed: the seed's `n` counts tasks
/// submitted, but a task still running has no `CT_real`).
pub fn per_tenant(cfg: &QosConfig, requests: &[&Request], records: &[RequestRecord]) -> Vec<Option<f64>> {
    let fastest = (0..cfg.hosts.len()).map(|h| cfg.speed(h)).fold(0.0, f64::max);
    let mut sums = vec![(0.0, 0usize); cfg.tenants.len()];
    for (req, rec) in requests.iter().zip(records) {
        let Some(work) = req.duration else { continue };
        let su = of_task(
            work.as_secs_f64(),
            fastest,
            rec.submit.as_secs_f64(),
            rec.end.map(|e| e.as_secs_f64()),
        );
        if let Some(su) = su {
            sums[req.tenant].0 += su;
            sums[req.tenant].1 += 1;
        }
    }
    sums.into_iter()
        .map(|(sum, n)| (n > 0).then(|| sum / n as f64))
        .collect()
}
