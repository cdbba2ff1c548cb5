//! How client commands print the daemon's answers for people: aligned
//! tables and `key: value` lines, times as UTC dates (RFC 3339), durations as
//! the CLI takes them (`1h30m`), absent values as `-` (as squeue/sacct do).
//! `--json` prints the daemon's JSON instead (times as epoch seconds).

use interstice_api::wire::{
    AreaResponse, HealthResponse, JobList, JobView, PredictResponse, SlotsResponse, SubmitResponse,
};
use interstice_core::ProcSet;
use std::time::{Duration, UNIX_EPOCH};

/// An epoch-seconds time as an RFC 3339 UTC date, `-` when absent, `never`
/// when not finite.
pub fn time(epoch: Option<f64>) -> String {
    match epoch {
        None => "-".into(),
        Some(t) if !t.is_finite() || t < 0.0 => "never".into(),
        Some(t) => humantime::format_rfc3339_seconds(UNIX_EPOCH + Duration::from_secs_f64(t)).to_string(),
    }
}

/// Seconds as the CLI reads durations back: `2d3h`, `1h30m`, `45s`, `1.5s`.
pub fn duration(seconds: f64) -> String {
    if !seconds.is_finite() {
        return "-".into();
    }
    let sign = if seconds < 0.0 { "-" } else { "" };
    let seconds = seconds.abs();
    if seconds < 60.0 && seconds.fract() != 0.0 {
        return format!("{sign}{seconds:.1}s");
    }
    let mut left = seconds.round() as u64;
    let mut out = String::from(sign);
    for (unit, size) in [("d", 86_400), ("h", 3_600), ("m", 60), ("s", 1)] {
        if left >= size {
            out.push_str(&format!("{}{unit}", left / size));
            left %= size;
        }
    }
    if out.len() == sign.len() {
        out.push_str("0s");
    }
    out
}

/// Rows under headers, each column as wide as its widest cell, two spaces apart.
pub fn table(headers: &[&str], rows: &[Vec<String>]) -> String {
    let mut widths: Vec<usize> = headers.iter().map(|h| h.chars().count()).collect();
    for row in rows {
        for (w, cell) in widths.iter_mut().zip(row) {
            *w = (*w).max(cell.chars().count());
        }
    }
    let line = |cells: Vec<&str>| {
        let mut text = String::new();
        for (i, (cell, w)) in cells.iter().zip(&widths).enumerate() {
            if i + 1 == cells.len() {
                text.push_str(cell);
            } else {
                text.push_str(&format!("{cell:<w$}  "));
            }
        }
        text.trim_end().to_string()
    };
    let mut out = vec![line(headers.to_vec())];
    out.extend(
        rows.iter()
            .map(|row| line(row.iter().map(String::as_str).collect())),
    );
    out.join("\n")
}

fn or_dash<T: ToString>(value: Option<T>) -> String {
    value.map_or_else(|| "-".to_string(), |v| v.to_string())
}

/// `interstice jobs`: one row per job.
pub fn jobs(list: &JobList) -> String {
    let rows: Vec<Vec<String>> = list
        .jobs
        .iter()
        .map(|job| {
            vec![
                job.id.to_string(),
                job.state.clone(),
                job.owner_uid.map_or("-".into(), user_name),
                job.procs.to_string(),
                duration(job.walltime),
                duration(job.slo),
                time(Some(job.submitted_at)),
                time(job.started_at),
                time(job.ended_at),
                job.evictions.to_string(),
                job.slo_violated
                    .map_or("-".into(), |v| if v { "no" } else { "yes" }.into()),
                job.cpus.clone().unwrap_or_else(|| "-".into()),
                job.memory_limit_bytes.map_or("-".into(), mebibytes),
                or_dash(job.pids_limit),
            ]
        })
        .collect();
    table(
        &[
            "ID",
            "STATE",
            "OWNER",
            "CPUS",
            "WALLTIME",
            "SLO",
            "SUBMITTED",
            "STARTED",
            "ENDED",
            "EVICTIONS",
            "SLO_MET",
            "ON_CPUS",
            "MEMORY",
            "PIDS",
        ],
        &rows,
    )
}

/// `bytes` in MiB (`512M`), as a job's memory limit.
fn mebibytes(bytes: u64) -> String {
    format!("{}M", bytes >> 20)
}

/// The login name of `uid` on this host, or the number when it has none
/// (a job submitted from another host, a user since removed).
fn user_name(uid: u32) -> String {
    match nix::unistd::User::from_uid(nix::unistd::Uid::from_raw(uid)) {
        Ok(Some(user)) => user.name,
        _ => uid.to_string(),
    }
}

/// `interstice jobs ID` and `cancel`: one job, `key: value`.
pub fn job(job: &JobView) -> String {
    [
        ("id", job.id.to_string()),
        ("state", job.state.clone()),
        ("decision", job.decision.clone()),
        ("owner", job.owner_uid.map_or("-".into(), user_name)),
        ("owner uid", or_dash(job.owner_uid)),
        ("cpus", job.procs.to_string()),
        ("walltime", duration(job.walltime)),
        ("slo", duration(job.slo)),
        ("command", job.argv.join(" ")),
        ("submitted", time(Some(job.submitted_at))),
        ("predicted start", time(job.predicted_start)),
        ("predicted completion", time(job.predicted_completion)),
        (
            "counter-offer slo",
            job.counter_offer_slo.map_or("-".into(), duration),
        ),
        ("started", time(job.started_at)),
        ("ended", time(job.ended_at)),
        ("exit code", or_dash(job.exit_code)),
        ("pid", or_dash(job.pid)),
        ("end reason", job.end_reason.clone().unwrap_or_else(|| "-".into())),
        ("on node cpus", job.cpus.clone().unwrap_or_else(|| "-".into())),
        (
            "memory limit",
            job.memory_limit_bytes.map_or("-".into(), mebibytes),
        ),
        ("pids limit", or_dash(job.pids_limit)),
        ("evictions", job.evictions.to_string()),
        (
            "slo met",
            job.slo_violated
                .map_or("-".into(), |v| if v { "no" } else { "yes" }.into()),
        ),
    ]
    .iter()
    .map(|(key, value)| format!("{key:<21} {value}"))
    .collect::<Vec<_>>()
    .join("\n")
}

/// The prediction's lines of `submit` and `predict`: start, completion and
/// the counter-offer, if any.
fn prediction_lines(start: Option<f64>, completion: Option<f64>, counter_offer_slo: Option<f64>) -> String {
    let mut out = format!(
        "predicted start       {}\npredicted completion  {}",
        time(start),
        time(completion)
    );
    if let Some(slo) = counter_offer_slo {
        out.push_str(&format!(
            "\ncounter-offer slo     {} ({} s)",
            duration(slo),
            slo.ceil()
        ));
    }
    out
}

/// `interstice submit`: the verdict on one line, then the prediction.
pub fn submitted(answer: &SubmitResponse) -> String {
    let by = answer
        .member
        .as_ref()
        .map_or(String::new(), |member| format!(" by {member}"));
    format!(
        "job {} {}{by}\n{}",
        answer.id,
        answer.decision,
        prediction_lines(
            answer.predicted_start,
            answer.predicted_completion,
            answer.counter_offer_slo
        )
    )
}

/// `interstice predict`.
pub fn predicted(answer: &PredictResponse) -> String {
    format!(
        "{}\n{}",
        answer.decision,
        prediction_lines(
            answer.predicted_start,
            answer.predicted_completion,
            answer.counter_offer_slo
        )
    )
}

/// The end of an idle stretch: a date, or `forever` when nothing is planned after it.
fn until(end: Option<f64>) -> String {
    match end {
        Some(t) if t.is_finite() => time(Some(t)),
        _ => "forever".into(),
    }
}

/// `interstice slots`: the processors idle now and until when, then the later holes.
pub fn slots(slots: &SlotsResponse) -> String {
    let now: Vec<Vec<String>> = idle_now_by_end(slots)
        .into_iter()
        .map(|(end, procs)| vec![procs.to_string(), procs.len().to_string(), end])
        .collect();
    let later: Vec<Vec<String>> = slots
        .future
        .iter()
        .map(|s| vec![s.procs.clone(), time(Some(s.start)), until(s.end)])
        .collect();
    format!(
        "idle now ({}):\n{}\n\nidle later:\n{}",
        time(Some(slots.now)),
        table(&["PROCS", "COUNT", "IDLE_UNTIL"], &now),
        table(&["PROCS", "FROM", "UNTIL"], &later)
    )
}

/// The processors idle now, grouped by when their idle stretch ends (as
/// [`until`] writes it), earliest first and `forever` last: one row per end,
/// not per processor.
fn idle_now_by_end(slots: &SlotsResponse) -> Vec<(String, ProcSet)> {
    let mut by_end: Vec<(Option<f64>, Vec<u32>)> = Vec::new();
    for slot in &slots.immediate {
        let end = slot.idle_until.filter(|t| t.is_finite());
        match by_end.iter_mut().find(|(e, _)| *e == end) {
            Some((_, procs)) => procs.push(slot.proc),
            None => by_end.push((end, vec![slot.proc])),
        }
    }
    by_end.sort_by(|a, b| match (a.0, b.0) {
        (Some(x), Some(y)) => x.total_cmp(&y),
        (Some(_), None) => std::cmp::Ordering::Less,
        (None, Some(_)) => std::cmp::Ordering::Greater,
        (None, None) => std::cmp::Ordering::Equal,
    });
    by_end
        .into_iter()
        .map(|(end, procs)| (until(end), ProcSet::from_ids(procs)))
        .collect()
}

/// `interstice health`.
pub fn health(health: &HealthResponse) -> String {
    format!(
        "{} (intersticed {}, backend {}): {} running, {} queued, plan age {}",
        health.status,
        health.version,
        health.backend,
        health.running,
        health.queued,
        health.plan_age_seconds.map_or("-".into(), duration)
    )
}

/// `interstice area`: the area now, and what a resize did.
pub fn area(area: &AreaResponse) -> String {
    let mut text = match area.from {
        Some(from) => format!("area resized from 0..{from} to 0..{} processors", area.procs),
        None => format!("area: processors 0..{}", area.procs),
    };
    text.push_str(&format!(
        " (configured 0..{}, platform {})",
        area.configured, area.platform
    ));
    let ids = |jobs: &[u64]| jobs.iter().map(u64::to_string).collect::<Vec<_>>().join(" ");
    if !area.evicted.is_empty() {
        text.push_str(&format!(
            "\nevicted (re-queued if their resubmissions allow): {}",
            ids(&area.evicted)
        ));
    }
    if !area.waiting.is_empty() {
        text.push_str(&format!("\nwaiting for the area to grow: {}", ids(&area.waiting)));
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn durations_print_as_they_are_typed() {
        assert_eq!(duration(5400.0), "1h30m");
        assert_eq!(duration(90_061.0), "1d1h1m1s");
        assert_eq!(duration(45.0), "45s");
        assert_eq!(duration(1.5), "1.5s");
        assert_eq!(duration(0.0), "0s");
        assert_eq!(duration(-120.0), "-2m");
        assert_eq!(duration(f64::NAN), "-");
    }

    #[test]
    fn times_are_utc_dates_and_absent_ones_dashes() {
        assert_eq!(time(Some(1_795_246_200.0)), "2026-11-21T07:30:00Z");
        assert_eq!(time(None), "-");
        assert_eq!(time(Some(f64::INFINITY)), "never");
    }

    #[test]
    fn an_idle_stretch_without_end_lasts_forever() {
        assert_eq!(until(None), "forever");
        assert_eq!(until(Some(f64::INFINITY)), "forever");
        assert_eq!(until(Some(0.0)), "1970-01-01T00:00:00Z");
    }

    #[test]
    fn idle_processors_are_grouped_by_the_end_of_their_stretch() {
        let immediate = [
            (0, None),
            (1, Some(100.0)),
            (2, None),
            (3, None),
            (7, Some(100.0)),
        ]
        .into_iter()
        .map(|(proc, idle_until)| interstice_api::wire::ImmediateSlotView { proc, idle_until })
        .collect();
        let response = SlotsResponse {
            now: 0.0,
            immediate,
            future: vec![interstice_api::wire::FutureSlotView {
                start: 50.0,
                end: None,
                procs: "4-6".into(),
            }],
        };
        let text = slots(&response);
        assert!(text.contains("1 7    2      1970-01-01T00:01:40Z"), "{text}");
        assert!(text.contains("0 2-3  3      forever"), "{text}");
        assert!(text.contains("4-6    1970-01-01T00:00:50Z  forever"), "{text}");
        assert!(!text.contains("never"), "{text}");
    }

    #[test]
    fn owners_are_login_names_when_the_host_knows_them() {
        assert_eq!(user_name(0), "root");
        assert_eq!(user_name(4_242_424), "4242424");
    }

    #[test]
    fn tables_align_columns() {
        let text = table(
            &["ID", "STATE"],
            &[vec!["7".into(), "running".into()], vec!["12".into(), "-".into()]],
        );
        assert_eq!(text, "ID  STATE\n7   running\n12  -");
    }
}
