//! The admission decision, free of Slurm and of I/O: what the plugin does with
//! one submission given its settings and the daemon's answer.

use interstice_api::slurm::{parse_class, parse_slo, ClassNameError, Marker, SloError};
use interstice_api::wire::{PredictRequest, PredictResponse, RefusalView};
use interstice_api::ClientError;
use interstice_core::{slo_for, Refusal, Time};

use crate::config::{Config, FailMode};

/// The job-control variable `spank_interstice` sets for `--slo`. In the job
/// description's `spank_job_env` it has no prefix (verified on slurmctld
/// 22.05); prolog/epilog see it as `SPANK_INTERSTICE_SLO`, the job as
/// `SLURM_SPANK_INTERSTICE_SLO`.
pub const SLO_VARIABLE: &str = "INTERSTICE_SLO";
/// The job-control variable `spank_interstice` sets for `--evictable`.
pub const EVICTABLE_VARIABLE: &str = "INTERSTICE_EVICTABLE";
/// The job-control variable `spank_interstice` sets for `--class`.
pub const CLASS_VARIABLE: &str = "INTERSTICE_CLASS";

/// Why an evictable job's options are refused.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum RequestError {
    /// `--slo` is not a whole number of seconds.
    #[error(transparent)]
    Slo(#[from] SloError),
    /// `--class` is not a class name.
    #[error(transparent)]
    Class(#[from] ClassNameError),
}

/// What the plugin knows about a submission.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Submission {
    /// Requested partition, if any.
    pub partition: Option<String>,
    /// Requested QOS, if any.
    pub qos: Option<String>,
    /// The job-control environment (`NAME=value`), where SPANK options arrive.
    pub spank_env: Vec<String>,
    /// Requested time limit in minutes, if any.
    pub time_limit_minutes: Option<u32>,
    /// Processors requested.
    pub procs: u32,
    /// The user's comment, if any.
    pub comment: Option<String>,
}

/// What to do with the submission.
#[derive(Debug, Clone, PartialEq)]
pub enum Verdict {
    /// Not an evictable job: leave it alone.
    NotEvictable,
    /// Let it in, with these changes.
    Accept(Routing),
    /// Refuse it; the text goes to the user (`err_msg`).
    Reject(String),
}

/// The changes made to an accepted evictable job.
#[derive(Debug, Clone, PartialEq)]
pub struct Routing {
    /// New partition (None: unchanged).
    pub partition: Option<String>,
    /// New QOS (None: unchanged).
    pub qos: Option<String>,
    /// Time limit in minutes (= walltime).
    pub time_limit_minutes: u32,
    /// Deadline, epoch seconds (None: unchanged).
    pub deadline: Option<i64>,
    /// New comment (the user's, plus the interstice marker).
    pub comment: String,
    /// true when the daemon did not answer and fail-open let the job in.
    pub unpredicted: bool,
}

/// The SLO, walltime and class of an evictable job.
#[derive(Debug, Clone, PartialEq)]
pub struct Request {
    /// Seconds.
    pub slo_seconds: u64,
    /// Seconds.
    pub walltime_seconds: u64,
    /// Processors.
    pub procs: u32,
    /// Its service class (`--class`), if it names one.
    pub class: Option<String>,
}

/// `NAME=value` lookup; also accepts the `SPANK_`-prefixed spelling.
fn variable<'a>(env: &'a [String], name: &str) -> Option<&'a str> {
    env.iter().find_map(|entry| {
        let entry = entry.strip_prefix("SPANK_").unwrap_or(entry);
        entry.strip_prefix(name).and_then(|rest| rest.strip_prefix('='))
    })
}

/// Reads the evictable flag, SLO and class; `Ok(None)` when the job is not
/// evictable (`--class` alone makes it evictable, as `--slo` does).
pub fn evictable_request(config: &Config, submission: &Submission) -> Result<Option<Request>, RequestError> {
    let slo = variable(&submission.spank_env, SLO_VARIABLE)
        .map(parse_slo)
        .transpose()?;
    let class = variable(&submission.spank_env, CLASS_VARIABLE)
        .map(parse_class)
        .transpose()?;
    let flagged = variable(&submission.spank_env, EVICTABLE_VARIABLE).is_some_and(|value| value != "0");
    let in_partition = submission.partition.as_deref().is_some_and(|partition| {
        interstice_api::slurm::partition_list(partition)
            .any(|p| config.evictable_partitions.iter().any(|e| e == p))
    });
    let in_qos = submission
        .qos
        .as_deref()
        .is_some_and(|qos| config.evictable_qos.iter().any(|e| e == qos));
    if !(flagged || slo.is_some() || class.is_some() || in_partition || in_qos) {
        return Ok(None);
    }
    let walltime_seconds = submission
        .time_limit_minutes
        .map_or(config.default_walltime_seconds, |minutes| u64::from(minutes) * 60);
    let slo_seconds =
        slo.unwrap_or_else(|| default_slo_seconds(walltime_seconds, config.default_slack_factor));
    Ok(Some(Request {
        slo_seconds,
        walltime_seconds,
        procs: submission.procs.max(1),
        class,
    }))
}

/// Whether `uid` may give a job the comment `comment` (`sbatch --comment`,
/// `scontrol update Comment=`): the marker (`interstice:…`) is the plugin's record of the
/// admission, its class and the daemon's eviction mark, so only root and
/// slurmctld's own user (`slurm_uid`: the daemon marks the jobs it evicts)
/// may write one; anyone may write a comment without one (which drops the
/// job's marker: it is no longer accounted, and a daemon evicting by class
/// gives it its default class).
pub fn comment_update(comment: Option<&str>, uid: u32, slurm_uid: u32) -> Result<(), String> {
    match comment {
        Some(text) if uid != 0 && uid != slurm_uid && text.contains(interstice_api::slurm::MARKER_PREFIX) => {
            Err(format!(
                "a comment may not hold \"{}\": job_submit/interstice writes that marker itself",
                interstice_api::slurm::MARKER_PREFIX
            ))
        }
        _ => Ok(()),
    }
}

/// The SLO of a job without `--slo`: the engine's rule ([`slo_for`]) with the
/// configured slack factor, rounded up to whole seconds for Slurm.
pub fn default_slo_seconds(walltime_seconds: u64, slack: f64) -> u64 {
    let walltime = Time::from_secs(i64::try_from(walltime_seconds).unwrap_or(i64::MAX));
    let slo = slo_for(walltime, slack);
    if slo.is_infinite() {
        return u64::MAX;
    }
    let ticks = u64::try_from(slo.ticks()).unwrap_or(0);
    ticks.div_ceil(Time::from_secs(1).ticks().unsigned_abs())
}

/// The message a rejected user reads: why (the daemon's refusal), and what
/// to resubmit with.
pub fn rejection_message(slo_seconds: u64, prediction: &PredictResponse) -> String {
    match prediction.refusal.as_ref() {
        Some(refusal) if refusal.reason == Refusal::NOT_CANDIDATE => not_candidate_message(refusal),
        Some(refusal) if refusal.reason == Refusal::REGULATED => {
            match prediction.counter_offer_slo.filter(|offer| offer.is_finite()) {
                Some(offer) => format!(
                    "Interstice holds this evictable job back: {}; resubmit with --slo={}",
                    refusal.message,
                    offer.ceil() as u64
                ),
                None => format!(
                    "Interstice holds this evictable job back: {}; resubmit later or as a regular job",
                    refusal.message
                ),
            }
        }
        _ => predicted_violation_message(slo_seconds, prediction),
    }
}

/// A job outside the daemon's candidate rules: the reason, and the nearest
/// acceptable request in sbatch's terms (whole minutes for `--time`, the
/// longest that fits; the SLO rounded up).
fn not_candidate_message(refusal: &RefusalView) -> String {
    let head = format!("Interstice does not take this evictable job: {}", refusal.message);
    let Some(nearest) = refusal.nearest else {
        return head;
    };
    let minutes = (nearest.walltime / 60.0).floor();
    if minutes < 1.0 {
        return format!(
            "{head}; no Slurm time limit (whole minutes) is within it: submit it as a regular job"
        );
    }
    let slo = nearest
        .slo
        .map(|slo| format!(" --slo={}", slo.ceil() as u64))
        .unwrap_or_default();
    format!(
        "{head}; resubmit with --time={}{slo} on at most {} CPUs, or as a regular job",
        minutes as u64, nearest.procs
    )
}

/// A predicted violation: the counter-offered SLO, if any.
fn predicted_violation_message(slo_seconds: u64, prediction: &PredictResponse) -> String {
    // A probability strictly between 0 and 1 is the learned predictor's:
    // the user sees how likely the miss was (a yes/no predictor's 1 says nothing more).
    let odds = prediction
        .violation_probability
        .filter(|p| *p > 0.0 && *p < 1.0)
        .map(|p| format!(" (predicted violation probability {p:.2})"))
        .unwrap_or_default();
    let message = match prediction.counter_offer_slo {
        Some(offer) if offer.is_finite() => {
            let offer = offer.ceil() as u64;
            format!(
                "cannot meet --slo={slo_seconds} on the current backfill plan; earliest predicted response time \
                 {offer} s: resubmit with --slo={offer}"
            )
        }
        _ => format!(
            "cannot meet --slo={slo_seconds} on the current backfill plan, and no response time can be \
             promised now (no hole is large enough): resubmit later or as a regular job"
        ),
    };
    message + &odds
}

/// Decides one submission at `now` (epoch seconds); `ask` calls the daemon.
pub fn decide(
    config: &Config,
    submission: &Submission,
    now: i64,
    ask: impl FnOnce(&PredictRequest) -> Result<PredictResponse, ClientError>,
) -> Verdict {
    let request = match evictable_request(config, submission) {
        Ok(None) => return Verdict::NotEvictable,
        Ok(Some(request)) => request,
        Err(error) => return Verdict::Reject(error.to_string()),
    };
    let wire = PredictRequest {
        procs: request.procs,
        walltime: request.walltime_seconds as f64,
        slo: request.slo_seconds as f64,
        admission: true,
        features: Vec::new(),
        class: request.class.clone(),
        bytes: None,
    };
    // The marker of a fail-open admission; the daemon's answer fills it in.
    let fail_open = Marker {
        predicted: false,
        slo_seconds: request.slo_seconds as f64,
        predicted_completion: None,
        predicted_violation: None,
        violation_probability: None,
        verdicts: None,
        hold: None,
        class: request.class.clone(),
        evicted_for: None,
    };
    let (marker, unpredicted) = match ask(&wire) {
        Ok(prediction) if prediction.accepted() => (
            Marker {
                predicted: true,
                predicted_completion: prediction.predicted_completion,
                predicted_violation: prediction.predicts_violation,
                violation_probability: prediction.violation_probability,
                verdicts: prediction.verdicts,
                hold: prediction.hold,
                ..fail_open
            },
            false,
        ),
        Ok(prediction) => return Verdict::Reject(rejection_message(request.slo_seconds, &prediction)),
        // The daemon answered and refuses the job itself (an unknown
        // --class, more processors than the cluster): no fail-open for that.
        Err(ClientError::Http {
            status: 400 | 422,
            message,
        }) => return Verdict::Reject(format!("Interstice refuses this evictable job: {message}")),
        Err(error) => match config.fail_mode {
            FailMode::Open => (fail_open, true),
            FailMode::Closed => {
                return Verdict::Reject(format!(
                    "the Interstice admission service is unavailable ({error}); evictable jobs are refused \
                     until it is back (fail_mode = closed): resubmit later or without --evictable/--slo"
                ))
            }
        },
    };
    let comment = match submission
        .comment
        .as_deref()
        .map(str::trim)
        .filter(|c| !c.is_empty())
    {
        Some(user) => format!("{user} {marker}"),
        None => marker.to_string(),
    };
    let non_empty = |text: &str| (!text.is_empty()).then(|| text.to_string());
    Verdict::Accept(Routing {
        partition: config.partition_for(request.class.as_deref()),
        qos: non_empty(&config.cloud_qos),
        time_limit_minutes: u32::try_from(request.walltime_seconds.div_ceil(60)).unwrap_or(u32::MAX),
        deadline: config
            .set_deadline
            .then(|| now + i64::try_from(request.slo_seconds).unwrap_or(i64::MAX / 2)),
        comment,
        unpredicted,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_root_and_slurmctld_write_the_marker_into_a_comment() {
        let forged = Some("mine interstice:accepted slo=9 class=gold");
        assert!(comment_update(forged, 1000, 64)
            .unwrap_err()
            .contains("interstice:"));
        assert_eq!(comment_update(forged, 0, 64), Ok(()));
        assert_eq!(comment_update(forged, 64, 64), Ok(()));
        assert_eq!(comment_update(Some("just text"), 1000, 64), Ok(()));
        assert_eq!(comment_update(None, 1000, 64), Ok(()));
    }
    use std::path::PathBuf;

    fn prediction(decision: &str, offer: Option<f64>) -> PredictResponse {
        PredictResponse {
            decision: decision.into(),
            predicted_start: Some(1000.0),
            predicted_completion: Some(1060.0),
            violation_seconds: Some(-10.0),
            predicts_violation: Some(decision == "rejected"),
            violation_probability: Some(if decision == "rejected" { 0.875 } else { 0.125 }),
            verdicts: Some(interstice_api::wire::PredictorVerdicts {
                exact: true,
                thesis: false,
                learned: decision == "rejected",
            }),
            counter_offer_slo: offer,
            hold: (decision == "accepted").then_some(7),
            refusal: None,
        }
    }

    fn evictable(slo: u64) -> Submission {
        Submission {
            spank_env: vec![format!("{SLO_VARIABLE}={slo}"), format!("{EVICTABLE_VARIABLE}=1")],
            time_limit_minutes: Some(1),
            procs: 2,
            ..Submission::default()
        }
    }

    #[test]
    fn plain_jobs_are_left_alone_without_asking() {
        let verdict = decide(&Config::default(), &Submission::default(), 0, |_| {
            panic!("must not ask")
        });
        assert_eq!(verdict, Verdict::NotEvictable);
    }

    #[test]
    fn accepted_job_is_routed_with_limits_and_deadline() {
        let mut asked = None;
        let verdict = decide(&Config::default(), &evictable(120), 5000, |request| {
            asked = Some(request.clone());
            Ok(prediction("accepted", None))
        });
        let asked = asked.unwrap();
        assert_eq!(
            (asked.procs, asked.walltime, asked.slo, asked.admission),
            (2, 60.0, 120.0, true)
        );
        let Verdict::Accept(routing) = verdict else {
            panic!("expected accept, got {verdict:?}")
        };
        assert_eq!(routing.partition.as_deref(), Some("cloud"));
        assert_eq!(routing.time_limit_minutes, 1);
        assert_eq!(routing.deadline, Some(5120));
        assert_eq!(
            routing.comment,
            "interstice:accepted slo=120 predicted_completion=1060 predicted_violation=0 \
             violation_probability=0.125 verdicts=100 hold=7",
            "the marker names the daemon's probability, every predictor's verdict (counted when the job \
             ends) and its hold, so the daemon can release it once Slurm lists the job"
        );
        assert!(!routing.unpredicted);
    }

    #[test]
    fn the_marker_carries_the_daemons_verdict_not_a_guess() {
        let comment = |predicts_violation| {
            let verdict = decide(&Config::default(), &evictable(120), 0, |_| {
                Ok(PredictResponse {
                    predicts_violation,
                    ..prediction("accepted", None)
                })
            });
            match verdict {
                Verdict::Accept(routing) => routing.comment,
                other => panic!("expected accept, got {other:?}"),
            }
        };
        // admit-all lets in a job whose prediction is late: the marker says so.
        assert_eq!(
            comment(Some(true)),
            "interstice:accepted slo=120 predicted_completion=1060 predicted_violation=1 \
             violation_probability=0.125 verdicts=100 hold=7"
        );
        // A daemon that does not send the verdicts: the marker does not invent them.
        let old_daemon = decide(&Config::default(), &evictable(120), 0, |_| {
            Ok(PredictResponse {
                predicts_violation: None,
                violation_probability: None,
                verdicts: None,
                ..prediction("accepted", None)
            })
        });
        match old_daemon {
            Verdict::Accept(routing) => assert_eq!(
                routing.comment,
                "interstice:accepted slo=120 predicted_completion=1060 hold=7"
            ),
            other => panic!("expected accept, got {other:?}"),
        }
    }

    #[test]
    fn a_non_candidate_is_told_why_and_the_nearest_request_in_sbatch_terms() {
        // The daemon's candidate limit is 3600 s; the job asked for 7200 s.
        let refusal = RefusalView {
            reason: "not-candidate".into(),
            message: "not a candidate for the convergence area: walltime 7200 s exceeds the candidate limit \
                      3600 s: ask for at most 3600 s; nearest acceptable request: 2 processors, walltime 3600 s, \
                      SLO 14400 s"
                .into(),
            nearest: Some(interstice_api::wire::NearestRequest {
                procs: 2,
                walltime: 3600.0,
                slo: Some(14_400.0),
            }),
        };
        let verdict = decide(&Config::default(), &evictable(14_400), 0, |_| {
            Ok(PredictResponse {
                refusal: Some(refusal.clone()),
                ..prediction("rejected", None)
            })
        });
        assert_eq!(
            verdict,
            Verdict::Reject(
                "Interstice does not take this evictable job: not a candidate for the convergence area: walltime \
                 7200 s exceeds the candidate limit 3600 s: ask for at most 3600 s; nearest acceptable request: 2 \
                 processors, walltime 3600 s, SLO 14400 s; resubmit with --time=60 --slo=14400 on at most 2 CPUs, \
                 or as a regular job"
                    .into()
            )
        );
        // A limit under a minute: Slurm cannot express it.
        let short = RefusalView {
            nearest: Some(interstice_api::wire::NearestRequest {
                procs: 2,
                walltime: 30.0,
                slo: None,
            }),
            ..refusal
        };
        let message = not_candidate_message(&short);
        assert!(
            message.ends_with("no Slurm time limit (whole minutes) is within it: submit it as a regular job")
        );
    }

    #[test]
    fn a_regulated_job_gets_the_later_slo() {
        let refusal = RefusalView {
            reason: "regulated".into(),
            message:
                "the cloud work admitted over the last 3600 s would be 1.20 times the area's idle capacity"
                    .into(),
            nearest: None,
        };
        let verdict = decide(&Config::default(), &evictable(120), 0, |_| {
            Ok(PredictResponse {
                refusal: Some(refusal.clone()),
                ..prediction("rejected", Some(899.5))
            })
        });
        assert_eq!(
            verdict,
            Verdict::Reject(
                "Interstice holds this evictable job back: the cloud work admitted over the last 3600 s would be \
                 1.20 times the area's idle capacity; resubmit with --slo=900"
                    .into()
            )
        );
    }

    #[test]
    fn predicted_violation_rejects_with_the_counter_offer() {
        let verdict = decide(&Config::default(), &evictable(120), 0, |_| {
            Ok(prediction("rejected", Some(409.2)))
        });
        assert_eq!(
            verdict,
            Verdict::Reject(
                "cannot meet --slo=120 on the current backfill plan; earliest predicted response time 410 s: \
                 resubmit with --slo=410 (predicted violation probability 0.88)"
                    .into()
            )
        );
        // A yes/no predictor's certainty adds nothing to the message.
        let certain = decide(&Config::default(), &evictable(120), 0, |_| {
            Ok(PredictResponse {
                violation_probability: Some(1.0),
                ..prediction("rejected", Some(409.2))
            })
        });
        assert_eq!(
            certain,
            Verdict::Reject(
                "cannot meet --slo=120 on the current backfill plan; earliest predicted response time 410 s: \
                 resubmit with --slo=410"
                    .into()
            )
        );
    }

    #[test]
    fn unreachable_daemon_fails_open_or_closed_as_configured() {
        let down = || {
            Err(ClientError::Connect {
                path: PathBuf::from("/x"),
                source: std::io::ErrorKind::NotFound.into(),
            })
        };
        let Verdict::Accept(routing) = decide(&Config::default(), &evictable(120), 0, |_| down()) else {
            panic!("fail-open must accept")
        };
        assert!(routing.unpredicted);
        assert_eq!(routing.comment, "interstice:unpredicted slo=120");
        let closed = Config {
            fail_mode: FailMode::Closed,
            ..Config::default()
        };
        assert!(
            matches!(decide(&closed, &evictable(120), 0, |_| down()), Verdict::Reject(m) if m.contains("unavailable"))
        );
    }

    #[test]
    fn configured_partition_makes_a_job_evictable_with_the_default_slack() {
        let config = Config {
            evictable_partitions: vec!["cloud".into()],
            ..Config::default()
        };
        let submission = Submission {
            partition: Some("cloud".into()),
            time_limit_minutes: Some(10),
            ..Submission::default()
        };
        let request = evictable_request(&config, &submission).unwrap().unwrap();
        assert_eq!(
            request,
            Request {
                slo_seconds: 1200,
                walltime_seconds: 600,
                procs: 1,
                class: None,
            }
        );
    }

    #[test]
    fn a_class_makes_a_job_evictable_and_is_written_in_the_marker() {
        let submission = Submission {
            spank_env: vec![format!("{CLASS_VARIABLE}=gold")],
            time_limit_minutes: Some(1),
            ..Submission::default()
        };
        let Verdict::Accept(routing) = decide(&Config::default(), &submission, 0, |_| {
            Ok(prediction("accepted", None))
        }) else {
            panic!("a job with --class is evictable and accepted")
        };
        assert!(routing.comment.ends_with(" class=gold"), "{}", routing.comment);
        let down = Err(ClientError::Connect {
            path: PathBuf::from("/x"),
            source: std::io::ErrorKind::NotFound.into(),
        });
        let Verdict::Accept(routing) = decide(&Config::default(), &submission, 0, |_| down) else {
            panic!("fail-open")
        };
        assert!(
            routing.comment.starts_with("interstice:unpredicted slo=120")
                && routing.comment.ends_with(" class=gold"),
            "{}",
            routing.comment
        );
        let bad = Submission {
            spank_env: vec![format!("{CLASS_VARIABLE}=gold star")],
            ..Submission::default()
        };
        assert!(matches!(
            decide(&Config::default(), &bad, 0, |_| panic!("must not ask")),
            Verdict::Reject(m) if m.contains("--class must be")
        ));
    }

    #[test]
    fn a_job_the_daemon_refuses_is_rejected_whatever_the_fail_mode() {
        let submission = Submission {
            spank_env: vec![format!("{CLASS_VARIABLE}=platinum")],
            ..Submission::default()
        };
        let refused = |status| {
            move |request: &PredictRequest| {
                assert_eq!(request.class.as_deref(), Some("platinum"), "the class is sent");
                Err(ClientError::Http {
                    status,
                    message: "class: unknown class \"platinum\": this daemon's classes are gold".into(),
                })
            }
        };
        let Verdict::Reject(message) = decide(&Config::default(), &submission, 0, refused(400)) else {
            panic!("an unknown class is no reason to fail open")
        };
        assert!(message.contains("unknown class \"platinum\""), "{message}");
        // A daemon in trouble (503) is: fail-open accepts, unpredicted.
        let Verdict::Accept(routing) = decide(&Config::default(), &submission, 0, refused(503)) else {
            panic!("fail-open")
        };
        assert!(routing.unpredicted);
    }

    #[test]
    fn default_slo_is_the_engines_rule_rounded_up_to_seconds() {
        assert_eq!(default_slo_seconds(600, interstice_core::DEFAULT_SLACK), 1200);
        assert_eq!(default_slo_seconds(600, 2.34), 1404);
        assert_eq!(default_slo_seconds(7, 1.1), 8);
        assert_eq!(default_slo_seconds(0, 2.0), 0);
    }

    #[test]
    fn bad_slo_is_refused_with_the_fix() {
        let submission = Submission {
            spank_env: vec![format!("{SLO_VARIABLE}=soon")],
            ..Submission::default()
        };
        assert!(matches!(
            decide(&Config::default(), &submission, 0, |_| panic!("must not ask")),
            Verdict::Reject(m) if m.contains("--slo must be a whole number")
        ));
    }

    #[test]
    fn user_comment_is_kept() {
        let submission = Submission {
            comment: Some("run 7".into()),
            ..evictable(300)
        };
        let Verdict::Accept(routing) = decide(&Config::default(), &submission, 0, |_| {
            Ok(prediction("accepted", None))
        }) else {
            panic!()
        };
        assert!(
            routing.comment.starts_with("run 7 interstice:accepted slo=300"),
            "{}",
            routing.comment
        );
    }
}
