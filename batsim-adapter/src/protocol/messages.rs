//! Batsim 4's JSON messages: parsing what Batsim sends, writing what the
//! scheduler answers, and the other way round for the tiny Batsim of
//! [`super::driver`] ([`encode_message`], [`parse_reply`]), so both sides of
//! the protocol share these types.
//!
//! Parsing goes through `serde_json::Value` and hand-written field access so
//! that every problem names the JSON path that is wrong (`events[2].data.job_id`)
//! and what was expected, instead of serde's generic "invalid type".

use interstice_core::Time;
use serde_json::{json, Map, Value};
use std::fmt;

/// A message from Batsim: `{"now": …, "events": […]}`.
#[derive(Clone, Debug, PartialEq)]
pub struct Message {
    /// The simulation time of the message, in seconds.
    pub now: f64,
    /// The events, in Batsim's order (ascending timestamps).
    pub events: Vec<Event>,
}

/// One event of a [`Message`] from Batsim.
#[derive(Clone, Debug, PartialEq)]
pub struct Event {
    /// When it happened (≤ the message's `now`).
    pub timestamp: f64,
    /// What happened.
    pub kind: EventKind,
}

/// The events Batsim sends to a scheduler.
#[derive(Clone, Debug, PartialEq)]
pub enum EventKind {
    /// The first event: the platform and Batsim's configuration.
    SimulationBegins(SimulationBegins),
    /// The last event: answer with no events, then stop.
    SimulationEnds,
    /// A job arrived (static workload, or the acknowledgement of a registration).
    JobSubmitted(JobSubmitted),
    /// A job stopped (all final states).
    JobCompleted(JobCompleted),
    /// The jobs of a previous `KILL_JOB` are all stopped.
    JobKilled {
        /// The ids named in the `KILL_JOB`.
        job_ids: Vec<String>,
    },
    /// The answer to a `CALL_ME_LATER`.
    RequestedCall,
    /// A notification (`no_more_static_job_to_submit`, `no_more_external_event_to_occur`, …).
    Notify {
        /// The notification's `type`.
        notify_type: String,
    },
}

impl EventKind {
    /// Batsim's name of the event type.
    pub fn type_name(&self) -> &'static str {
        match self {
            EventKind::SimulationBegins(_) => "SIMULATION_BEGINS",
            EventKind::SimulationEnds => "SIMULATION_ENDS",
            EventKind::JobSubmitted(_) => "JOB_SUBMITTED",
            EventKind::JobCompleted(_) => "JOB_COMPLETED",
            EventKind::JobKilled { .. } => "JOB_KILLED",
            EventKind::RequestedCall => "REQUESTED_CALL",
            EventKind::Notify { .. } => "NOTIFY",
        }
    }
}

/// The content of `SIMULATION_BEGINS` the scheduler needs.
#[derive(Clone, Debug, PartialEq)]
pub struct SimulationBegins {
    /// Compute resource ids, in increasing order.
    pub compute_resources: Vec<u32>,
    /// `config.dynamic-jobs-enabled` (Batsim's `--enable-dynamic-jobs`).
    pub dynamic_jobs_enabled: bool,
    /// `config.dynamic-jobs-acknowledged` (Batsim's `--acknowledge-dynamic-jobs`).
    pub dynamic_jobs_acknowledged: bool,
    /// `config.sched-config` (Batsim's `--sched-cfg`), `""` when not given.
    pub sched_config: String,
    /// `workloads`: workload id → path, sorted by id.
    pub workloads: Vec<(String, String)>,
    /// `profiles`: workload id → profile name → profile JSON.
    pub profiles: Map<String, Value>,
}

/// The content of `JOB_SUBMITTED`.
#[derive(Clone, Debug, PartialEq)]
pub struct JobSubmitted {
    /// Batsim's job id (`w0!7`).
    pub job_id: String,
    /// The job's JSON description (`id`, `subtime`, `walltime`, `res`, `profile`
    /// and any pass-through fields such as `kind` and `slo`).
    pub job: Map<String, Value>,
}

/// The final state of a job in `JOB_COMPLETED`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FinalState {
    /// `COMPLETED_SUCCESSFULLY`.
    Successful,
    /// `COMPLETED_FAILED`.
    Failed,
    /// `COMPLETED_WALLTIME_REACHED`.
    WalltimeReached,
    /// `COMPLETED_KILLED`.
    Killed,
    /// `REJECTED`.
    Rejected,
}

impl FinalState {
    /// Batsim's name of the state.
    pub fn name(self) -> &'static str {
        match self {
            FinalState::Successful => "COMPLETED_SUCCESSFULLY",
            FinalState::Failed => "COMPLETED_FAILED",
            FinalState::WalltimeReached => "COMPLETED_WALLTIME_REACHED",
            FinalState::Killed => "COMPLETED_KILLED",
            FinalState::Rejected => "REJECTED",
        }
    }

    /// The state named `s` (Batsim's name).
    pub fn from_name(s: &str) -> Option<FinalState> {
        [
            FinalState::Successful,
            FinalState::Failed,
            FinalState::WalltimeReached,
            FinalState::Killed,
            FinalState::Rejected,
        ]
        .into_iter()
        .find(|state| state.name() == s)
    }
}

/// The content of `JOB_COMPLETED`.
#[derive(Clone, Debug, PartialEq)]
pub struct JobCompleted {
    /// Batsim's job id.
    pub job_id: String,
    /// How it ended.
    pub state: FinalState,
    /// The job's return code, when Batsim gives it.
    pub return_code: Option<i64>,
    /// The resources it ran on (interval set), when Batsim gives them.
    pub alloc: Option<String>,
}

/// What is wrong with a message: the JSON path and the problem.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MessageError {
    /// Where, as a JSON path (`events[0].data.job_id`), empty for the whole message.
    pub path: String,
    /// What was found and what was expected.
    pub problem: String,
}

impl fmt::Display for MessageError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.path.is_empty() {
            f.write_str(&self.problem)
        } else {
            write!(f, "{}: {}", self.path, self.problem)
        }
    }
}

impl std::error::Error for MessageError {}

fn err(path: impl Into<String>, problem: impl Into<String>) -> MessageError {
    MessageError {
        path: path.into(),
        problem: problem.into(),
    }
}

fn describe(value: &Value) -> String {
    let text = value.to_string();
    if text.len() > 60 {
        format!(
            "{}…",
            &text[..text.char_indices().nth(60).map_or(text.len(), |(i, _)| i)]
        )
    } else {
        text
    }
}

fn field<'a>(obj: &'a Map<String, Value>, path: &str, key: &str) -> Result<&'a Value, MessageError> {
    obj.get(key)
        .ok_or_else(|| err(path, format!("missing field `{key}`")))
}

fn as_object<'a>(value: &'a Value, path: &str) -> Result<&'a Map<String, Value>, MessageError> {
    value
        .as_object()
        .ok_or_else(|| err(path, format!("expected an object, found {}", describe(value))))
}

fn as_f64(value: &Value, path: &str) -> Result<f64, MessageError> {
    match value.as_f64() {
        Some(number) if number.is_finite() => Ok(number),
        _ => Err(err(
            path,
            format!("expected a number of seconds, found {}", describe(value)),
        )),
    }
}

/// A time of the simulation: a number of seconds that is a valid instant
/// ([`Time::instant_from_secs_f64`]).
fn as_instant(value: &Value, path: &str) -> Result<f64, MessageError> {
    let secs = as_f64(value, path)?;
    match Time::instant_from_secs_f64(secs) {
        Some(_) => Ok(secs),
        None => Err(err(
            path,
            format!(
                "{secs} is not a simulation time: expected seconds from 0 to {:e}",
                Time::MAX_INSTANT_SECS
            ),
        )),
    }
}

fn as_str<'a>(value: &'a Value, path: &str) -> Result<&'a str, MessageError> {
    value
        .as_str()
        .ok_or_else(|| err(path, format!("expected a string, found {}", describe(value))))
}

fn bool_or(obj: &Map<String, Value>, path: &str, key: &str) -> Result<bool, MessageError> {
    match obj.get(key) {
        None | Some(Value::Null) => Ok(false),
        Some(Value::Bool(b)) => Ok(*b),
        Some(other) => Err(err(
            format!("{path}.{key}"),
            format!("expected true or false, found {}", describe(other)),
        )),
    }
}

/// `{"now": …, "events": […]}`: the time and the events, either way of the protocol.
fn parse_envelope(bytes: &[u8]) -> Result<(f64, Vec<Value>), MessageError> {
    let text = std::str::from_utf8(bytes).map_err(|e| err("", format!("not UTF-8 text ({e})")))?;
    let mut value: Value =
        serde_json::from_str(text).map_err(|e| err("", format!("not valid JSON ({e})")))?;
    let obj = as_object(&value, "")?;
    let now = as_instant(field(obj, "", "now")?, "now")?;
    match value.get_mut("events").map(Value::take) {
        Some(Value::Array(events)) => Ok((now, events)),
        Some(other) => Err(err(
            "events",
            format!("expected an array, found {}", describe(&other)),
        )),
        None => Err(err("", "missing field `events`")),
    }
}

/// `data.key`: an array of strings (job ids).
fn strings(data: &Map<String, Value>, data_path: &str, key: &str) -> Result<Vec<String>, MessageError> {
    let path = format!("{data_path}.{key}");
    let value = field(data, data_path, key)?;
    let items = value
        .as_array()
        .ok_or_else(|| err(&path, format!("expected an array, found {}", describe(value))))?;
    items
        .iter()
        .enumerate()
        .map(|(i, id)| as_str(id, &format!("{path}[{i}]")).map(str::to_string))
        .collect()
}

/// Parse one message from Batsim.
pub fn parse_message(bytes: &[u8]) -> Result<Message, MessageError> {
    let (now, events_array) = parse_envelope(bytes)?;
    let mut events = Vec::with_capacity(events_array.len());
    for (idx, event) in events_array.iter().enumerate() {
        let path = format!("events[{idx}]");
        let event = parse_event(event, &path)?;
        if event.timestamp > now {
            return Err(err(
                format!("{path}.timestamp"),
                format!(
                    "{} is after the message's now {now}: event timestamps must be <= now",
                    event.timestamp
                ),
            ));
        }
        events.push(event);
    }
    Ok(Message { now, events })
}

fn parse_event(value: &Value, path: &str) -> Result<Event, MessageError> {
    let obj = as_object(value, path)?;
    let timestamp = as_instant(field(obj, path, "timestamp")?, &format!("{path}.timestamp"))?;
    let type_name = as_str(field(obj, path, "type")?, &format!("{path}.type"))?;
    let data_path = format!("{path}.data");
    let data_value = field(obj, path, "data")?;
    let empty = Map::new();
    // Batsim sends `{}` for SIMULATION_ENDS and REQUESTED_CALL; accept null too.
    let data = if data_value.is_null() {
        &empty
    } else {
        as_object(data_value, &data_path)?
    };
    let kind = match type_name {
        "SIMULATION_BEGINS" => EventKind::SimulationBegins(parse_simulation_begins(data, &data_path)?),
        "SIMULATION_ENDS" => EventKind::SimulationEnds,
        "JOB_SUBMITTED" => {
            let job_id = as_str(field(data, &data_path, "job_id")?, &format!("{data_path}.job_id"))?;
            let job = match data.get("job") {
                Some(job) => as_object(job, &format!("{data_path}.job"))?.clone(),
                None => return Err(err(
                    &data_path,
                    "missing field `job`: run Batsim without Redis so job descriptions come in the message",
                )),
            };
            EventKind::JobSubmitted(JobSubmitted {
                job_id: job_id.to_string(),
                job,
            })
        }
        "JOB_COMPLETED" => {
            let job_id = as_str(field(data, &data_path, "job_id")?, &format!("{data_path}.job_id"))?;
            let state_path = format!("{data_path}.job_state");
            let state_name = as_str(field(data, &data_path, "job_state")?, &state_path)?;
            let state = FinalState::from_name(state_name).ok_or_else(|| {
                err(
                    &state_path,
                    format!(
                        "{state_name:?} is not a final job state: expected COMPLETED_SUCCESSFULLY, \
                         COMPLETED_FAILED, COMPLETED_WALLTIME_REACHED, COMPLETED_KILLED or REJECTED"
                    ),
                )
            })?;
            EventKind::JobCompleted(JobCompleted {
                job_id: job_id.to_string(),
                state,
                return_code: data.get("return_code").and_then(Value::as_i64),
                alloc: data.get("alloc").and_then(Value::as_str).map(str::to_string),
            })
        }
        "JOB_KILLED" => EventKind::JobKilled {
            job_ids: strings(data, &data_path, "job_ids")?,
        },
        "REQUESTED_CALL" => EventKind::RequestedCall,
        "NOTIFY" => {
            let notify_type = as_str(field(data, &data_path, "type")?, &format!("{data_path}.type"))?;
            EventKind::Notify {
                notify_type: notify_type.to_string(),
            }
        }
        other => {
            return Err(err(
                format!("{path}.type"),
                format!(
                    "unsupported event type {other:?}: this scheduler handles SIMULATION_BEGINS, \
                     SIMULATION_ENDS, JOB_SUBMITTED, JOB_COMPLETED, JOB_KILLED, REQUESTED_CALL and NOTIFY"
                ),
            ))
        }
    };
    Ok(Event { timestamp, kind })
}

fn parse_simulation_begins(data: &Map<String, Value>, path: &str) -> Result<SimulationBegins, MessageError> {
    let res_path = format!("{path}.compute_resources");
    let resources_value = field(data, path, "compute_resources")?;
    let resources = resources_value.as_array().ok_or_else(|| {
        err(
            &res_path,
            format!("expected an array, found {}", describe(resources_value)),
        )
    })?;
    let mut compute_resources = Vec::with_capacity(resources.len());
    for (idx, resource) in resources.iter().enumerate() {
        let rpath = format!("{res_path}[{idx}]");
        let robj = as_object(resource, &rpath)?;
        let id_value = field(robj, &rpath, "id")?;
        let id = id_value
            .as_u64()
            .and_then(|id| u32::try_from(id).ok())
            .ok_or_else(|| {
                err(
                    format!("{rpath}.id"),
                    format!("expected a resource number, found {}", describe(id_value)),
                )
            })?;
        compute_resources.push(id);
    }
    compute_resources.sort_unstable();
    if compute_resources.windows(2).any(|w| w[0] == w[1]) {
        return Err(err(&res_path, "two compute resources have the same id"));
    }
    if compute_resources.is_empty() {
        return Err(err(&res_path, "the platform has no compute resource"));
    }
    let empty = Map::new();
    let config = match data.get("config") {
        Some(config) => as_object(config, &format!("{path}.config"))?,
        None => &empty,
    };
    let config_path = format!("{path}.config");
    let sched_config = match config.get("sched-config") {
        None | Some(Value::Null) => String::new(),
        Some(Value::String(s)) => s.clone(),
        // Batsim forwards `--sched-cfg` as a string; accept an object too.
        Some(obj @ Value::Object(_)) => obj.to_string(),
        Some(other) => {
            return Err(err(
                format!("{config_path}.sched-config"),
                format!("expected a JSON string, found {}", describe(other)),
            ))
        }
    };
    let mut workloads = Vec::new();
    if let Some(value) = data.get("workloads") {
        for (name, path_value) in as_object(value, &format!("{path}.workloads"))? {
            let file = path_value.as_str().unwrap_or_default().to_string();
            workloads.push((name.clone(), file));
        }
    }
    workloads.sort();
    let profiles = match data.get("profiles") {
        Some(value) => as_object(value, &format!("{path}.profiles"))?.clone(),
        None => Map::new(),
    };
    Ok(SimulationBegins {
        compute_resources,
        dynamic_jobs_enabled: bool_or(config, &config_path, "dynamic-jobs-enabled")?,
        dynamic_jobs_acknowledged: bool_or(config, &config_path, "dynamic-jobs-acknowledged")?,
        sched_config,
        workloads,
        profiles,
    })
}

/// An event the scheduler sends to Batsim.
#[derive(Clone, Debug, PartialEq)]
pub enum Outgoing {
    /// Start a job on an interval set of resources.
    ExecuteJob {
        /// Batsim's job id.
        job_id: String,
        /// The canonical interval set (`"0-3 8"`).
        alloc: String,
    },
    /// Refuse a submitted job.
    RejectJob {
        /// Batsim's job id.
        job_id: String,
    },
    /// Kill running jobs (evictions); Batsim answers with one `JOB_KILLED`.
    KillJob {
        /// Batsim's job ids.
        job_ids: Vec<String>,
    },
    /// Ask for a `REQUESTED_CALL` at this time (seconds).
    CallMeLater {
        /// When.
        at: f64,
    },
    /// Register a profile for dynamic jobs.
    RegisterProfile {
        /// The workload the profile belongs to.
        workload_name: String,
        /// The profile's name.
        profile_name: String,
        /// The profile's JSON (`{"type": "delay", "delay": 90}`).
        profile: Value,
    },
    /// Register a dynamic job (its id is `workload!name`).
    RegisterJob {
        /// Batsim's job id.
        job_id: String,
        /// The job's JSON description.
        job: Value,
    },
    /// A notification (`registration_finished`).
    Notify {
        /// The notification's `type`.
        notify_type: String,
    },
}

impl Outgoing {
    /// Batsim's name of the event type.
    pub fn type_name(&self) -> &'static str {
        match self {
            Outgoing::ExecuteJob { .. } => "EXECUTE_JOB",
            Outgoing::RejectJob { .. } => "REJECT_JOB",
            Outgoing::KillJob { .. } => "KILL_JOB",
            Outgoing::CallMeLater { .. } => "CALL_ME_LATER",
            Outgoing::RegisterProfile { .. } => "REGISTER_PROFILE",
            Outgoing::RegisterJob { .. } => "REGISTER_JOB",
            Outgoing::Notify { .. } => "NOTIFY",
        }
    }

    fn data(&self) -> Value {
        match self {
            Outgoing::ExecuteJob { job_id, alloc } => json!({"job_id": job_id, "alloc": alloc}),
            Outgoing::RejectJob { job_id } => json!({"job_id": job_id}),
            Outgoing::KillJob { job_ids } => json!({"job_ids": job_ids}),
            Outgoing::CallMeLater { at } => json!({"timestamp": at}),
            Outgoing::RegisterProfile {
                workload_name,
                profile_name,
                profile,
            } => {
                json!({"workload_name": workload_name, "profile_name": profile_name, "profile": profile})
            }
            Outgoing::RegisterJob { job_id, job } => json!({"job_id": job_id, "job": job}),
            Outgoing::Notify { notify_type } => json!({"type": notify_type}),
        }
    }
}

/// Write the scheduler's reply: every event is stamped `now`.
pub fn encode_reply(now: f64, events: &[Outgoing]) -> String {
    let events: Vec<Value> = events
        .iter()
        .map(|event| json!({"timestamp": now, "type": event.type_name(), "data": event.data()}))
        .collect();
    json!({"now": now, "events": events}).to_string()
}

impl SimulationBegins {
    /// The event's `data` as Batsim 4.2.1 writes it (resources named
    /// `host<id>`, no storage, sharing off for compute resources).
    fn data(&self) -> Value {
        let resources: Vec<Value> = self
            .compute_resources
            .iter()
            .map(|id| json!({"id": id, "name": format!("host{id}"), "state": "idle", "properties": {}}))
            .collect();
        let workloads: Map<String, Value> = self
            .workloads
            .iter()
            .map(|(name, path)| (name.clone(), json!(path)))
            .collect();
        let nb_res = self.compute_resources.len();
        json!({
            "nb_resources": nb_res, "nb_compute_resources": nb_res, "nb_storage_resources": 0,
            "allow_compute_sharing": false, "allow_storage_sharing": true,
            "config": {
                "redis-enabled": false, "profiles-forwarded-on-submission": false,
                "dynamic-jobs-enabled": self.dynamic_jobs_enabled,
                "dynamic-jobs-acknowledged": self.dynamic_jobs_acknowledged,
                "profile-reuse-enabled": false, "sched-config": self.sched_config,
                "forward-unknown-events": false,
            },
            "compute_resources": resources, "storage_resources": [],
            "workloads": workloads,
            "profiles": self.profiles,
        })
    }
}

impl Event {
    /// The event as Batsim writes it (the inverse of [`parse_message`]).
    pub fn to_json(&self) -> Value {
        let data = match &self.kind {
            EventKind::SimulationBegins(begins) => begins.data(),
            EventKind::SimulationEnds | EventKind::RequestedCall => json!({}),
            EventKind::JobSubmitted(submitted) => {
                json!({"job_id": submitted.job_id, "job": Value::Object(submitted.job.clone())})
            }
            EventKind::JobCompleted(completed) => {
                let mut data = json!({"job_id": completed.job_id, "job_state": completed.state.name()});
                if let Some(code) = completed.return_code {
                    data["return_code"] = json!(code);
                }
                if let Some(alloc) = &completed.alloc {
                    data["alloc"] = json!(alloc);
                }
                data
            }
            EventKind::JobKilled { job_ids } => json!({"job_ids": job_ids, "job_progress": {}}),
            EventKind::Notify { notify_type } => json!({"type": notify_type}),
        };
        json!({"timestamp": self.timestamp, "type": self.kind.type_name(), "data": data})
    }
}

/// Write a message from Batsim (what the tiny Batsim of [`super::driver`] sends).
pub fn encode_message(message: &Message) -> String {
    let events: Vec<Value> = message.events.iter().map(Event::to_json).collect();
    json!({"now": message.now, "events": events}).to_string()
}

/// A scheduler's reply as Batsim reads it: `now` and the events with their timestamps.
#[derive(Clone, Debug, PartialEq)]
pub struct Reply {
    /// The reply's time, seconds.
    pub now: f64,
    /// `(timestamp, event)` in the reply's order.
    pub events: Vec<(f64, Outgoing)>,
}

/// Parse a scheduler's reply (the Batsim side of [`encode_reply`]), naming
/// the JSON path of any problem.
pub fn parse_reply(bytes: &[u8]) -> Result<Reply, MessageError> {
    let (now, events_array) = parse_envelope(bytes)?;
    let mut events = Vec::with_capacity(events_array.len());
    for (idx, event) in events_array.iter().enumerate() {
        let path = format!("events[{idx}]");
        let event_obj = as_object(event, &path)?;
        let timestamp = as_instant(
            field(event_obj, &path, "timestamp")?,
            &format!("{path}.timestamp"),
        )?;
        let type_name = as_str(field(event_obj, &path, "type")?, &format!("{path}.type"))?;
        let data_path = format!("{path}.data");
        let data = as_object(field(event_obj, &path, "data")?, &data_path)?;
        let text_field = |key: &str| -> Result<String, MessageError> {
            as_str(field(data, &data_path, key)?, &format!("{data_path}.{key}")).map(str::to_string)
        };
        let object_field = |key: &str| -> Result<Value, MessageError> {
            let value = field(data, &data_path, key)?;
            as_object(value, &format!("{data_path}.{key}"))?;
            Ok(value.clone())
        };
        let outgoing = match type_name {
            "EXECUTE_JOB" => Outgoing::ExecuteJob {
                job_id: text_field("job_id")?,
                alloc: text_field("alloc")?,
            },
            "REJECT_JOB" => Outgoing::RejectJob {
                job_id: text_field("job_id")?,
            },
            "KILL_JOB" => Outgoing::KillJob {
                job_ids: strings(data, &data_path, "job_ids")?,
            },
            "CALL_ME_LATER" => Outgoing::CallMeLater {
                at: as_f64(
                    field(data, &data_path, "timestamp")?,
                    &format!("{data_path}.timestamp"),
                )?,
            },
            "REGISTER_PROFILE" => Outgoing::RegisterProfile {
                workload_name: text_field("workload_name")?,
                profile_name: text_field("profile_name")?,
                profile: object_field("profile")?,
            },
            "REGISTER_JOB" => Outgoing::RegisterJob {
                job_id: text_field("job_id")?,
                job: object_field("job")?,
            },
            "NOTIFY" => Outgoing::Notify {
                notify_type: text_field("type")?,
            },
            other => {
                return Err(err(
                    format!("{path}.type"),
                    format!(
                        "unknown event type {other:?}: expected EXECUTE_JOB, REJECT_JOB, KILL_JOB, \
                         CALL_ME_LATER, REGISTER_PROFILE, REGISTER_JOB or NOTIFY"
                    ),
                ))
            }
        };
        events.push((timestamp, outgoing));
    }
    Ok(Reply { now, events })
}

/// The first bytes of a message, for error messages (at most 120 characters).
pub fn excerpt(bytes: &[u8]) -> String {
    let text = String::from_utf8_lossy(bytes);
    let mut out: String = text.chars().take(120).collect();
    if text.chars().count() > 120 {
        out.push('…');
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn replies_stamp_every_event_with_now() {
        let reply = encode_reply(
            2.5,
            &[
                Outgoing::KillJob {
                    job_ids: vec!["w0!1".into()],
                },
                Outgoing::ExecuteJob {
                    job_id: "w0!2".into(),
                    alloc: "0-3 8".into(),
                },
                Outgoing::CallMeLater { at: 7.25 },
            ],
        );
        let value: Value = serde_json::from_str(&reply).unwrap();
        assert_eq!(
            value,
            json!({"now": 2.5, "events": [
                {"timestamp": 2.5, "type": "KILL_JOB", "data": {"job_ids": ["w0!1"]}},
                {"timestamp": 2.5, "type": "EXECUTE_JOB", "data": {"job_id": "w0!2", "alloc": "0-3 8"}},
                {"timestamp": 2.5, "type": "CALL_ME_LATER", "data": {"timestamp": 7.25}},
            ]})
        );
    }

    #[test]
    fn messages_read_back_as_written() {
        let message = Message {
            now: 5.0,
            events: vec![
                Event {
                    timestamp: 4.0,
                    kind: EventKind::JobCompleted(JobCompleted {
                        job_id: "w0!1".into(),
                        state: FinalState::WalltimeReached,
                        return_code: Some(-1),
                        alloc: Some("0-3".into()),
                    }),
                },
                Event {
                    timestamp: 5.0,
                    kind: EventKind::JobKilled {
                        job_ids: vec!["w0!2".into()],
                    },
                },
                Event {
                    timestamp: 5.0,
                    kind: EventKind::Notify {
                        notify_type: "no_more_static_job_to_submit".into(),
                    },
                },
            ],
        };
        assert_eq!(
            parse_message(encode_message(&message).as_bytes()).unwrap(),
            message
        );
    }

    #[test]
    fn replies_read_back_as_written() {
        let events = vec![
            Outgoing::RegisterProfile {
                workload_name: "interstice".into(),
                profile_name: "cloud0".into(),
                profile: json!({"type": "delay", "delay": 9}),
            },
            Outgoing::RegisterJob {
                job_id: "interstice!cloud0".into(),
                job: json!({"res": 2, "profile": "cloud0"}),
            },
            Outgoing::RejectJob {
                job_id: "w0!3".into(),
            },
            Outgoing::Notify {
                notify_type: "registration_finished".into(),
            },
        ];
        let reply = parse_reply(encode_reply(4.0, &events).as_bytes()).unwrap();
        assert_eq!(reply.now, 4.0);
        assert_eq!(
            reply.events,
            events.into_iter().map(|event| (4.0, event)).collect::<Vec<_>>()
        );
        let bad = parse_reply(
            br#"{"now": 1, "events": [{"timestamp": 1, "type": "EXECUTE_JOB", "data": {"job_id": "w0!1"}}]}"#,
        );
        assert_eq!(bad.unwrap_err().path, "events[0].data");
    }

    #[test]
    fn parsing_names_the_path_of_the_problem() {
        let message = parse_message(
            br#"{"now": 3, "events": [{"timestamp": 3, "type": "JOB_KILLED", "data": {"job_ids": ["a!1", 2]}}]}"#,
        );
        assert_eq!(message.unwrap_err().path, "events[0].data.job_ids[1]");
        let message = parse_message(
            br#"{"now": 3, "events": [{"timestamp": 1, "type": "NOTIFY", "data": {"type": "x"}}]}"#,
        );
        assert_eq!(
            message.unwrap().events[0].kind,
            EventKind::Notify {
                notify_type: "x".into()
            }
        );
        assert!(parse_message(b"\xff").unwrap_err().problem.contains("UTF-8"));
        assert_eq!(excerpt("é".repeat(200).as_bytes()).chars().count(), 121);
    }
}
