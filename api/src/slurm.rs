//! The Slurm text formats the daemon and the Slurm plugins share: the marker
//! `job_submit/interstice` writes into an admitted job's comment (the daemon's
//! Slurm backend reads it back from `squeue`), the `--slo` value
//! `spank_interstice` takes and `job_submit/interstice` reads back, Slurm's
//! duration syntax (time limits in `squeue` and `scontrol` output), Slurm's
//! hostlists (`n[1-3,5]`, in `scontrol`/`squeue` node fields), service-class
//! names and cloud-partition lists (`--class`, `cloud_partition=`), and the
//! `SLURM_VERSION_NUMBER` the plugins' build scripts hand to the compiler.

use crate::wire::PredictorVerdicts;
use std::fmt;

/// Where the marker starts in a job's comment.
pub const MARKER_PREFIX: &str = "interstice:";

/// What `job_submit/interstice` writes in an admitted job's comment:
/// `interstice:accepted slo=120 predicted_completion=1060 predicted_violation=0`
/// or, when the daemon did not answer and fail-open let the job in,
/// `interstice:unpredicted slo=120`.
///
/// Words after the verdict, each optional but `slo=`:
/// - `slo=SECONDS`: the job's SLO;
/// - `predicted_completion=EPOCH`: the predicted completion, rounded to whole
///   seconds (for people reading `squeue`; no verdict is derived from it);
/// - `predicted_violation=0|1`: the engine's verdict at admission
///   (`Prediction::predicts_violation` in `interstice-core`, sent by the daemon
///   as `PredictResponse::predicts_violation`): 1 when it predicted a
///   violation (a job admitted anyway under `admit-all`). Absent from markers
///   written by plugins older than the word and from unpredicted admissions:
///   then the verdict is unknown (`None`), never guessed;
/// - `violation_probability=P`: the probability of a violation the
///   admitting predictor gave (`PredictResponse::violation_probability`;
///   calibrated by the learned predictor, 0 or 1 from the others), three decimals;
/// - `verdicts=ETL`: every predictor's verdict, a digit each (0 or 1) for
///   exact, thesis and learned (`PredictResponse::verdicts`), so that the
///   daemon counts each one's confusion when the job ends;
/// - `hold=ID`: the daemon's admission hold for the job
///   (`PredictResponse::hold`): the slot it promised is held in its plan until
///   Slurm lists the job with a plan of its own;
/// - `class=NAME`: the job's service class (`--class`, [`parse_class`]).
#[derive(Clone, Debug, PartialEq)]
pub struct Marker {
    /// The daemon made a prediction and admitted the job (false: fail-open, unpredicted).
    pub predicted: bool,
    /// The SLO in seconds.
    pub slo_seconds: f64,
    /// The predicted completion (epoch seconds, written rounded), when the daemon gave one.
    pub predicted_completion: Option<f64>,
    /// Whether the admission predicted a violation, as the daemon answered;
    /// `None` when the marker does not say (see the type's doc).
    pub predicted_violation: Option<bool>,
    /// The admission's violation probability, when the daemon gave one.
    pub violation_probability: Option<f64>,
    /// Every predictor's verdict, when the daemon gave them.
    pub verdicts: Option<PredictorVerdicts>,
    /// The daemon's admission hold for this job, if it holds one.
    pub hold: Option<u64>,
    /// The job's service class, if it named one.
    pub class: Option<String>,
    /// The HPC job the daemon evicted this one for (`backend.eviction`
    /// other than `slurm`: the daemon cancels the job itself and says so
    /// here first, so its cancellation reads as an eviction).
    pub evicted_for: Option<String>,
}

impl fmt::Display for Marker {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let verdict = if self.predicted { "accepted" } else { "unpredicted" };
        write!(f, "{MARKER_PREFIX}{verdict} slo={}", self.slo_seconds)?;
        if let Some(completion) = self.predicted_completion {
            write!(f, " predicted_completion={completion:.0}")?;
        }
        if let Some(violation) = self.predicted_violation {
            write!(f, " predicted_violation={}", u8::from(violation))?;
        }
        if let Some(p) = self.violation_probability.filter(|p| p.is_finite()) {
            write!(f, " violation_probability={p:.3}")?;
        }
        if let Some(verdicts) = self.verdicts {
            write!(f, " verdicts={verdicts}")?;
        }
        if let Some(hold) = self.hold {
            write!(f, " hold={hold}")?;
        }
        if let Some(class) = &self.class {
            write!(f, " class={class}")?;
        }
        if let Some(job) = &self.evicted_for {
            write!(f, " {EVICTED_FOR}{job}")?;
        }
        Ok(())
    }
}

/// The comment of a job the daemon cancels to make room for `hpc_job`:
/// `comment` with `evicted_for=` appended, which ends its marker (the last
/// one), as [`Marker`]'s `Display` writes it, so [`parse_marker`] reads it.
pub fn mark_evicted(comment: &str, hpc_job: &str) -> String {
    format!("{} {EVICTED_FOR}{hpc_job}", comment.trim())
}

/// The marker in a comment: the last one (`job_submit/interstice` appends
/// its marker to the user's own text, which may hold a marker-like string of
/// the user's); `None` without one or without its `slo=`. A
/// `predicted_violation=` other than `0` or `1` reads as absent.
pub fn parse_marker(comment: &str) -> Option<Marker> {
    let start = comment.rfind(MARKER_PREFIX)?;
    let mut words = comment[start + MARKER_PREFIX.len()..].split_whitespace();
    let predicted = match words.next()? {
        "accepted" => true,
        "unpredicted" => false,
        _ => return None,
    };
    let mut slo_seconds = None;
    let mut predicted_completion = None;
    let mut predicted_violation = None;
    let mut violation_probability = None;
    let mut verdicts = None;
    let mut hold = None;
    let mut class = None;
    let mut evicted_for = None;
    for word in words {
        if let Some(value) = word.strip_prefix("slo=") {
            slo_seconds = value.parse::<f64>().ok();
        } else if let Some(value) = word.strip_prefix("predicted_completion=") {
            predicted_completion = value.parse::<f64>().ok();
        } else if let Some(value) = word.strip_prefix("predicted_violation=") {
            predicted_violation = match value {
                "0" => Some(false),
                "1" => Some(true),
                _ => None,
            };
        } else if let Some(value) = word.strip_prefix("violation_probability=") {
            violation_probability = value.parse::<f64>().ok().filter(|p| (0.0..=1.0).contains(p));
        } else if let Some(value) = word.strip_prefix("verdicts=") {
            verdicts = value.parse::<PredictorVerdicts>().ok();
        } else if let Some(value) = word.strip_prefix("hold=") {
            hold = value.parse::<u64>().ok();
        } else if let Some(value) = word.strip_prefix("class=") {
            class = parse_class(value).ok();
        } else if let Some(value) = word.strip_prefix(EVICTED_FOR) {
            evicted_for = Some(value.to_string()).filter(|id| !id.is_empty());
        }
    }
    Some(Marker {
        predicted,
        slo_seconds: slo_seconds?,
        predicted_completion,
        predicted_violation,
        violation_probability,
        verdicts,
        hold,
        class,
        evicted_for,
    })
}

/// The marker word the daemon appends to a cloud job's comment before it
/// cancels the job for an HPC job (`evicted_for=<HPC job id>`).
pub const EVICTED_FOR: &str = "evicted_for=";

/// The partitions a comma-separated list names: a setting (the daemon's
/// `backend.partition_cloud`, the SPANK plugin's `cloud_partition=`: one,
/// or one per service class, `class_partitions` of `job_submit`), or a
/// job's partition (`%P`, `--partition`) when it was submitted to several.
/// Blanks around names and empty items are ignored.
pub fn partition_list(list: &str) -> impl Iterator<Item = &str> {
    list.split(',').map(str::trim).filter(|name| !name.is_empty())
}

/// A service-class name that is not 1–64 letters, digits, `_`, `-` or `.`.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("--class must be 1-64 letters, digits, '_', '-' or '.', found {found:?}")]
pub struct ClassNameError {
    /// The value given.
    pub found: String,
}

/// A service-class name (`--class` of the SPANK plugin and of `interstice
/// submit`, `class=` in the marker, the daemon's `classes[].name`): 1–64
/// ASCII letters, digits, `_`, `-`, `.`, so that it is one word of the
/// marker and a Prometheus label value as typed.
pub fn parse_class(text: &str) -> Result<String, ClassNameError> {
    let text = text.trim();
    let valid = !text.is_empty()
        && text.len() <= 64
        && text
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.'));
    if valid {
        Ok(text.to_string())
    } else {
        Err(ClassNameError {
            found: text.to_string(),
        })
    }
}

/// A `--slo` value that is not a whole number of seconds > 0.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("--slo must be a whole number of seconds > 0, found {found:?}")]
pub struct SloError {
    /// The value given.
    pub found: String,
}

/// A `--slo` value: whole seconds > 0, blanks around it ignored (the SPANK
/// option as the user types it, and as `job_submit` reads it back from the
/// job's environment).
pub fn parse_slo(text: &str) -> Result<u64, SloError> {
    match text.trim().parse::<u64>() {
        Ok(seconds) if seconds > 0 => Ok(seconds),
        _ => Err(SloError {
            found: text.to_string(),
        }),
    }
}

/// The partition evictable (cloud) jobs go to unless configured otherwise:
/// `job_submit`'s and SPANK's `cloud_partition`, the daemon's
/// `backend.partition_cloud`. All three must name the same partitions.
pub const DEFAULT_CLOUD_PARTITION: &str = "cloud";

/// A year: the walltime planned for a Slurm job without a time limit.
pub const UNLIMITED_WALLTIME_SECONDS: u64 = 365 * 86_400;

/// The walltime, in seconds, the daemon plans for a Slurm job whose time
/// limit is `limit` seconds (`None`: `UNLIMITED`, or not known): the limit,
/// at least a second and at most [`UNLIMITED_WALLTIME_SECONDS`]. A job
/// without a limit holds its processors until it is seen to end.
pub fn planned_walltime(limit: Option<u64>) -> u64 {
    limit
        .unwrap_or(UNLIMITED_WALLTIME_SECONDS)
        .clamp(1, UNLIMITED_WALLTIME_SECONDS)
}

/// A Slurm duration in seconds: `MM`, `MM:SS`, `HH:MM:SS`, `D-HH`,
/// `D-HH:MM`, `D-HH:MM:SS` (as `sbatch --time` takes them and `squeue`/
/// `scontrol` print them); `None` for `UNLIMITED`, `INVALID`, `N/A`, garbage
/// and values beyond `u64` seconds.
pub fn parse_duration(text: &str) -> Option<u64> {
    let numbers = |text: &str| {
        text.split(':')
            .map(|part| part.parse::<u64>().ok())
            .collect::<Option<Vec<_>>>()
    };
    let seconds = |hours: u64, minutes: u64, seconds: u64| {
        hours
            .checked_mul(3600)?
            .checked_add(minutes.checked_mul(60)?)?
            .checked_add(seconds)
    };
    match text.trim().split_once('-') {
        Some((days, rest)) => {
            let days = days.parse::<u64>().ok()?;
            let time = match numbers(rest)?.as_slice() {
                [hours] => seconds(*hours, 0, 0),
                [hours, minutes] => seconds(*hours, *minutes, 0),
                [hours, minutes, secs] => seconds(*hours, *minutes, *secs),
                _ => None,
            }?;
            days.checked_mul(86_400)?.checked_add(time)
        }
        None => match numbers(text.trim())?.as_slice() {
            [minutes] => seconds(0, *minutes, 0),
            [minutes, secs] => seconds(0, *minutes, *secs),
            [hours, minutes, secs] => seconds(*hours, *minutes, *secs),
            _ => None,
        },
    }
}

/// The most names one hostlist may expand to: more is refused as an error
/// (`n[0-99999999999]` would otherwise take all memory), far above any
/// real cluster's node count.
pub const MAX_HOSTLIST_NAMES: usize = 1 << 20;

/// A hostlist that is not well formed: the whole list and what is wrong.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("hostlist {list:?}: {reason}")]
pub struct HostlistError {
    /// The hostlist given.
    pub list: String,
    /// What is wrong with it.
    pub reason: String,
}

/// The host names of a Slurm hostlist, in order, as Slurm expands them:
/// comma-separated names (`a,b`), each with bracketed numeric ranges
/// anywhere in it (`n[1-3,5]`, `rack[1-2]n[1-2]`: every combination, left
/// to right), text before and after a bracket kept (`n[1-2]-ib`). A range
/// keeps the width of its first number, so `n[01-10]` gives `n01`…`n10`
/// and `n[8-10]` gives `n8 n9 n10`. Malformed lists (unbalanced or nested
/// brackets, empty names or ranges, a range ending below its start,
/// non-digits in a range, more than [`MAX_HOSTLIST_NAMES`] names) are an
/// error naming the list, never a panic.
pub fn expand_hostlist(list: &str) -> Result<Vec<String>, HostlistError> {
    let fail = |reason: String| HostlistError {
        list: list.to_string(),
        reason,
    };
    let mut names = Vec::new();
    for item in split_hostlist(list).map_err(fail)? {
        let expanded = expand_host(item, MAX_HOSTLIST_NAMES - names.len()).map_err(fail)?;
        names.extend(expanded);
    }
    if names.is_empty() {
        return Err(fail("no host names".to_string()));
    }
    Ok(names)
}

/// Whether `name` is one of the hosts of `list` (see [`expand_hostlist`]).
pub fn hostlist_contains(list: &str, name: &str) -> Result<bool, HostlistError> {
    Ok(expand_hostlist(list)?.iter().any(|host| host == name))
}

/// The hostlist's names before expansion: split at the commas outside
/// brackets, each checked for balanced, unnested brackets and non-empty.
fn split_hostlist(list: &str) -> Result<Vec<&str>, String> {
    let mut items = Vec::new();
    let (mut start, mut open) = (0, false);
    for (index, character) in list.char_indices() {
        match character {
            '[' if open => return Err(format!("nested '[' at byte {index}")),
            '[' => open = true,
            ']' if !open => return Err(format!("']' without '[' at byte {index}")),
            ']' => open = false,
            ',' if !open => {
                items.push(&list[start..index]);
                start = index + 1;
            }
            _ => {}
        }
    }
    if open {
        return Err("'[' without ']'".to_string());
    }
    items.push(&list[start..]);
    for item in &items {
        if item.trim().is_empty() {
            return Err("an empty host name".to_string());
        }
        if item.chars().any(char::is_whitespace) {
            return Err(format!("blank inside host name {item:?}"));
        }
    }
    Ok(items)
}

/// One name of a hostlist (`n[1-2]x[3,5]`, brackets already checked to be
/// balanced): every combination of its ranges, at most `room` names.
fn expand_host(item: &str, room: usize) -> Result<Vec<String>, String> {
    let mut names = vec![String::new()];
    let mut rest = item;
    while !rest.is_empty() {
        let Some(open) = rest.find('[') else {
            names.iter_mut().for_each(|name| name.push_str(rest));
            break;
        };
        let literal = &rest[..open];
        let close = open + rest[open..].find(']').ok_or("'[' without ']'")?;
        let numbers = expand_ranges(&rest[open + 1..close], room)?;
        if names.len().saturating_mul(numbers.len()) > room {
            return Err(format!("more than {MAX_HOSTLIST_NAMES} host names"));
        }
        names = names
            .iter()
            .flat_map(|name| {
                numbers
                    .iter()
                    .map(move |number| format!("{name}{literal}{number}"))
            })
            .collect();
        rest = &rest[close + 1..];
    }
    Ok(names)
}

/// The inside of one bracket (`1-3,05`): each number as it is written in
/// the host name, zero-padded to the width of its range's first number.
fn expand_ranges(inside: &str, room: usize) -> Result<Vec<String>, String> {
    let mut numbers = Vec::new();
    for range in inside.split(',') {
        let (low_text, high_text) = range.split_once('-').unwrap_or((range, range));
        let number = |text: &str| {
            if text.is_empty() || !text.bytes().all(|byte| byte.is_ascii_digit()) {
                return Err(format!("range {range:?} is not N or N-M"));
            }
            text.parse::<u64>()
                .map_err(|_| format!("range {range:?} is too large"))
        };
        let (low, high) = (number(low_text)?, number(high_text)?);
        if high < low {
            return Err(format!("range {range:?} ends before it starts"));
        }
        let count = usize::try_from(high - low)
            .ok()
            .and_then(|span| span.checked_add(1));
        match count {
            Some(count) if count <= room.saturating_sub(numbers.len()) => {}
            _ => return Err(format!("more than {MAX_HOSTLIST_NAMES} host names")),
        }
        let width = low_text.len();
        numbers.extend((low..=high).map(|value| format!("{value:0width$}")));
    }
    Ok(numbers)
}

/// The `SLURM_VERSION_NUMBER` a plugin's build script passed as decimal text
/// (`INTERSTICE_SLURM_VERSION_NUMBER`, read with `env!`): usable in a `const`,
/// so the plugin's exported `plugin_version` is fixed at compile time. Anything
/// but a decimal `u32` gives 0, which the plugins treat as "built without
/// Slurm headers" and refuse to load.
pub const fn version_number(decimal: &str) -> u32 {
    let bytes = decimal.as_bytes();
    if bytes.is_empty() {
        return 0;
    }
    let mut value = 0u32;
    let mut index = 0;
    while index < bytes.len() {
        let digit = bytes[index];
        if !digit.is_ascii_digit() {
            return 0;
        }
        value = match value.checked_mul(10) {
            Some(tens) => match tens.checked_add((digit - b'0') as u32) {
                Some(next) => next,
                None => return 0,
            },
            None => return 0,
        };
        index += 1;
    }
    value
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn host_lists_expand_as_slurm_writes_them() {
        let hosts = |list: &str| expand_hostlist(list).unwrap();
        assert_eq!(hosts("n1"), ["n1"]);
        assert_eq!(hosts("n[1-3,5]"), ["n1", "n2", "n3", "n5"]);
        assert_eq!(hosts("n[08-10]"), ["n08", "n09", "n10"]);
        assert_eq!(hosts("a[1-2],b3"), ["a1", "a2", "b3"]);
        assert_eq!(hosts("r[1-2]n[3-4]"), ["r1n3", "r1n4", "r2n3", "r2n4"]);
        assert_eq!(hosts("n[1-2]-ib"), ["n1-ib", "n2-ib"]);
        for bad in [
            "n[1-",
            "n]1[",
            "n[a-b]",
            "n[3-1]",
            "n[1-99999999999]",
            "a,,b",
            "n[[1]]",
        ] {
            assert!(expand_hostlist(bad).is_err(), "{bad} should not parse");
        }
    }

    #[test]
    fn the_plugins_marker_is_the_last_one() {
        let marker =
            parse_marker("interstice:accepted slo=1 hold=9 interstice:accepted slo=60 hold=42").unwrap();
        assert_eq!((marker.slo_seconds, marker.hold), (60.0, Some(42)));
    }

    #[test]
    fn an_evicted_jobs_comment_reads_back_as_evicted_for_its_hpc_job() {
        let comment = "my run interstice:accepted slo=60 predicted_violation=0 hold=42 ";
        let marked = mark_evicted(comment, "1234");
        let marker = parse_marker(&marked).unwrap();
        assert_eq!(
            (marker.evicted_for.as_deref(), marker.hold),
            (Some("1234"), Some(42))
        );
        let written = Marker {
            evicted_for: Some("1234".to_string()),
            ..parse_marker(comment).unwrap()
        };
        assert_eq!(marked, format!("my run {written}"));
    }

    #[test]
    fn the_marker_carries_the_hold() {
        let marker = parse_marker("x interstice:accepted slo=60 predicted_violation=0 hold=42").unwrap();
        assert_eq!(marker.hold, Some(42));
        assert_eq!(parse_marker(&marker.to_string()), Some(marker));
        assert_eq!(parse_marker("interstice:accepted slo=60").unwrap().hold, None);
    }

    #[test]
    fn slo_values_are_whole_seconds() {
        assert_eq!(parse_slo("120"), Ok(120));
        assert_eq!(parse_slo(" 120 "), Ok(120));
        assert_eq!(
            parse_slo("0").unwrap_err().to_string(),
            "--slo must be a whole number of seconds > 0, found \"0\""
        );
        assert!(parse_slo("2m").is_err() && parse_slo("-5").is_err() && parse_slo("1.5").is_err());
    }

    #[test]
    fn durations() {
        assert_eq!(parse_duration("1-02:03:04"), Some(93_784));
        assert_eq!(parse_duration("1-00:00:10"), Some(86_410));
        assert_eq!(parse_duration("2:00"), Some(120));
        assert_eq!(parse_duration("05:30"), Some(330));
        assert_eq!(parse_duration("00:02:00"), Some(120));
        assert_eq!(parse_duration("10"), Some(600));
        assert_eq!(parse_duration("INVALID"), None);
        assert_eq!(parse_duration("UNLIMITED"), None);
        assert_eq!(parse_duration("N/A"), None);
        assert_eq!(parse_duration(""), None);
        assert_eq!(parse_duration("1:2:3:4"), None);
    }

    #[test]
    fn a_job_without_a_limit_is_planned_for_a_year() {
        assert_eq!(planned_walltime(parse_duration("UNLIMITED")), 365 * 86_400);
        assert_eq!(planned_walltime(parse_duration("1:00")), 60);
        assert_eq!(planned_walltime(Some(0)), 1);
        assert_eq!(planned_walltime(Some(u64::MAX)), UNLIMITED_WALLTIME_SECONDS);
    }

    #[test]
    fn durations_with_days_count_hours_after_the_dash() {
        assert_eq!(parse_duration("2-3"), Some(2 * 86_400 + 3 * 3600));
        assert_eq!(parse_duration("1-02:03"), Some(86_400 + 2 * 3600 + 3 * 60));
    }

    #[test]
    fn huge_durations_are_refused_not_wrapped() {
        assert_eq!(parse_duration("18446744073709551615"), None);
        assert_eq!(parse_duration("999999999999999-00:00:00"), None);
    }

    /// A marker that says only whether the job was predicted, and its SLO.
    fn bare(predicted: bool, slo_seconds: f64) -> Marker {
        Marker {
            predicted,
            slo_seconds,
            predicted_completion: None,
            predicted_violation: None,
            violation_probability: None,
            verdicts: None,
            hold: None,
            class: None,
            evicted_for: None,
        }
    }

    #[test]
    fn markers_are_found_in_comments() {
        assert_eq!(
            parse_marker("interstice:unpredicted slo=410"),
            Some(bare(false, 410.0))
        );
        assert_eq!(
            parse_marker("run 7 interstice:accepted slo=300 predicted_completion=1060"),
            Some(Marker {
                predicted_completion: Some(1060.0),
                ..bare(true, 300.0)
            })
        );
        assert_eq!(
            parse_marker("interstice:accepted slo=300 predicted_completion=1060 predicted_violation=1"),
            Some(Marker {
                predicted_completion: Some(1060.0),
                predicted_violation: Some(true),
                ..bare(true, 300.0)
            })
        );
        assert_eq!(
            parse_marker("interstice:accepted slo=300 predicted_violation=yes")
                .and_then(|marker| marker.predicted_violation),
            None,
            "only 0 and 1 are verdicts"
        );
        assert_eq!(
            parse_marker("interstice:accepted predicted_completion=1060"),
            None
        );
        assert_eq!(parse_marker("interstice:maybe slo=3"), None);
        assert_eq!(parse_marker("nothing here"), None);
    }

    #[test]
    fn markers_read_back_what_they_write() {
        let accepted = Marker {
            predicted_completion: Some(1060.4),
            predicted_violation: Some(false),
            ..bare(true, 120.0)
        };
        assert_eq!(
            accepted.to_string(),
            "interstice:accepted slo=120 predicted_completion=1060 predicted_violation=0"
        );
        assert_eq!(
            parse_marker(&accepted.to_string()),
            Some(Marker {
                predicted_completion: Some(1060.0),
                ..accepted.clone()
            })
        );
        let late = Marker {
            predicted_violation: Some(true),
            ..accepted.clone()
        };
        assert_eq!(
            late.to_string(),
            "interstice:accepted slo=120 predicted_completion=1060 predicted_violation=1"
        );
        assert_eq!(
            parse_marker(&late.to_string()).and_then(|marker| marker.predicted_violation),
            Some(true)
        );
        let learned = Marker {
            violation_probability: Some(0.03125),
            verdicts: Some(PredictorVerdicts {
                exact: true,
                thesis: false,
                learned: false,
            }),
            hold: Some(7),
            ..accepted.clone()
        };
        assert_eq!(
            learned.to_string(),
            "interstice:accepted slo=120 predicted_completion=1060 predicted_violation=0 \
             violation_probability=0.031 verdicts=100 hold=7"
        );
        let read = parse_marker(&learned.to_string()).unwrap();
        assert_eq!(
            (read.violation_probability, read.verdicts, read.hold),
            (Some(0.031), learned.verdicts, Some(7))
        );
        for bad in [
            "verdicts=10",
            "verdicts=102",
            "verdicts=abc",
            "violation_probability=1.5",
        ] {
            let read = parse_marker(&format!("interstice:accepted slo=1 {bad}")).unwrap();
            assert_eq!(
                (read.verdicts, read.violation_probability),
                (None, None),
                "{bad} reads as absent"
            );
        }
        let unpredicted = bare(false, 410.0);
        assert_eq!(unpredicted.to_string(), "interstice:unpredicted slo=410");
        assert_eq!(parse_marker(&unpredicted.to_string()), Some(unpredicted.clone()));
        let evicted = Marker {
            class: Some("bronze".into()),
            evicted_for: Some("42_3".into()),
            ..unpredicted.clone()
        };
        assert_eq!(
            evicted.to_string(),
            "interstice:unpredicted slo=410 class=bronze evicted_for=42_3"
        );
        assert_eq!(parse_marker(&evicted.to_string()), Some(evicted));
        let gold = Marker {
            class: Some("gold".into()),
            hold: Some(7),
            ..accepted
        };
        assert_eq!(
            gold.to_string(),
            "interstice:accepted slo=120 predicted_completion=1060 predicted_violation=0 hold=7 class=gold"
        );
        assert_eq!(
            parse_marker(&gold.to_string()).unwrap().class.as_deref(),
            Some("gold")
        );
        assert_eq!(
            parse_marker("interstice:accepted slo=1 class=g@ld")
                .unwrap()
                .class,
            None,
            "a class that is no class name reads as absent"
        );
    }

    #[test]
    fn cloud_partition_lists_ignore_blanks() {
        assert_eq!(partition_list(" a, ,b ").collect::<Vec<_>>(), ["a", "b"]);
        assert_eq!(partition_list("").count(), 0);
    }

    #[test]
    fn class_names_are_one_marker_word_and_a_label_value() {
        for good in ["gold", "silver-2", "a.b_c", " bronze "] {
            assert_eq!(parse_class(good).unwrap(), good.trim());
        }
        let long = "x".repeat(65);
        for bad in ["", "gold class", "g=1", "é", long.as_str()] {
            assert!(parse_class(bad).is_err(), "{bad:?} accepted");
        }
        assert_eq!(
            parse_class("a b").unwrap_err().to_string(),
            "--class must be 1-64 letters, digits, '_', '-' or '.', found \"a b\""
        );
    }

    fn hosts(list: &str) -> Vec<String> {
        expand_hostlist(list).unwrap_or_else(|error| panic!("{error}"))
    }

    #[test]
    fn hostlists_expand_as_slurm_does() {
        assert_eq!(hosts("n1"), ["n1"]);
        assert_eq!(hosts("n[1-3,5]"), ["n1", "n2", "n3", "n5"]);
        assert_eq!(hosts("n[8-10]"), ["n8", "n9", "n10"]);
        assert_eq!(hosts("n[01-03]"), ["n01", "n02", "n03"]);
        assert_eq!(hosts("n[098-100]"), ["n098", "n099", "n100"]);
        assert_eq!(hosts("a[1-2],b3"), ["a1", "a2", "b3"]);
        assert_eq!(hosts("n[1-2]-ib,login"), ["n1-ib", "n2-ib", "login"]);
        assert_eq!(
            hosts("rack[1-2]n[1,3]"),
            ["rack1n1", "rack1n3", "rack2n1", "rack2n3"]
        );
        assert_eq!(hosts("[1-2]"), ["1", "2"]);
        assert_eq!(hosts("vm"), ["vm"]);
        assert!(hostlist_contains("n[1-3]", "n2").unwrap());
        assert!(!hostlist_contains("n[1-3]", "n4").unwrap());
        assert!(
            !hostlist_contains("n[01-03]", "n1").unwrap(),
            "padding is part of the name"
        );
    }

    #[test]
    fn malformed_hostlists_are_errors_naming_the_list() {
        for bad in [
            "",
            "n[1-3",
            "n1-3]",
            "n[[1]]",
            "n[]",
            "n[1-]",
            "n[-2]",
            "n[3-1]",
            "n[a-b]",
            "n[1,,2]",
            "a,,b",
            ",a",
            "a,",
            "n[1-2",
            "n]1[",
            "a b",
            "n[1 -2]",
            "n[99999999999999999999]",
            "n[0-99999999999]",
            "a[1-1024]b[1-1024]c[1-2]",
        ] {
            let error = expand_hostlist(bad).expect_err(bad);
            assert_eq!(error.list, bad, "{error}");
            assert!(
                error.to_string().starts_with(&format!("hostlist {bad:?}: ")),
                "{error}"
            );
            assert!(hostlist_contains(bad, "n1").is_err(), "{bad}");
        }
    }

    #[test]
    fn version_numbers_are_decimal_or_zero() {
        const VERSION: u32 = version_number("1443074");
        assert_eq!(VERSION, 0x160502);
        assert_eq!(version_number("0"), 0);
        assert_eq!(version_number(""), 0);
        assert_eq!(version_number("0x160502"), 0);
        assert_eq!(version_number("99999999999"), 0);
    }
}
