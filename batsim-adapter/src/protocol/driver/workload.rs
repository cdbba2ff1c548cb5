//! Reading a Batsim workload file (`{"nb_res", "jobs", "profiles"}`) into a
//! [`Workload`] for the tiny Batsim.

use super::{DriverError, Workload, WorkloadError, WorkloadJob};
use interstice_core::Time;
use interstice_swf::JobDescription;
use serde_json::{json, Value};
use std::path::Path;

impl Workload {
    /// Read a Batsim workload file as workload `name` (`w0`).
    pub fn load(path: &Path, name: &str) -> Result<Workload, DriverError> {
        let display = path.display().to_string();
        let text = interstice_swf::input_file::read_text(path, interstice_swf::input_file::MAX_TEXT_BYTES)
            .map_err(|e| DriverError::Workload {
                path: display.clone(),
                problem: WorkloadError::Read(e),
            })?;
        Workload::from_json(&text, name, &display)
    }

    /// Parse a Batsim workload (`{"nb_res", "jobs", "profiles"}`).
    pub fn from_json(text: &str, name: &str, path: &str) -> Result<Workload, DriverError> {
        let bad = |problem| DriverError::Workload {
            path: path.to_string(),
            problem,
        };
        let value: Value = serde_json::from_str(text).map_err(|e| bad(WorkloadError::NotJson(e)))?;
        let nb_res = value
            .get("nb_res")
            .and_then(Value::as_u64)
            .and_then(|n| u32::try_from(n).ok())
            .ok_or_else(|| bad(WorkloadError::NbRes))?;
        let profiles = value
            .get("profiles")
            .and_then(Value::as_object)
            .cloned()
            .unwrap_or_default();
        let jobs_value = value
            .get("jobs")
            .and_then(Value::as_array)
            .ok_or_else(|| bad(WorkloadError::Jobs))?;
        let mut jobs = Vec::with_capacity(jobs_value.len());
        for (idx, job) in jobs_value.iter().enumerate() {
            let obj = job
                .as_object()
                .ok_or_else(|| bad(WorkloadError::JobNotObject(idx)))?;
            let raw_id = match obj.get("id") {
                Some(Value::String(s)) => s.clone(),
                Some(Value::Number(n)) => n.to_string(),
                _ => return Err(bad(WorkloadError::JobId(idx))),
            };
            let id = if raw_id.contains('!') {
                raw_id
            } else {
                format!("{name}!{raw_id}")
            };
            let description = JobDescription::from_object(obj)
                .map_err(|error| bad(WorkloadError::JobField { index: idx, error }))?;
            let subtime = description
                .subtime
                .filter(|t| t.is_finite() && *t >= 0.0)
                .ok_or_else(|| bad(WorkloadError::Subtime(idx)))?;
            let walltime = description.walltime_secs().map(Time::from_secs_f64);
            let res = description
                .procs()
                .and_then(|n| u32::try_from(n).ok())
                .ok_or_else(|| bad(WorkloadError::Res(idx)))?;
            let profile = description.profile;
            if !profiles.contains_key(&profile) {
                return Err(bad(WorkloadError::NoProfile { index: idx, profile }));
            }
            let mut description = obj.clone();
            description.insert("id".into(), json!(id));
            jobs.push(WorkloadJob {
                id,
                subtime: Time::from_secs_f64(subtime),
                walltime,
                res,
                profile,
                description,
            });
        }
        Ok(Workload {
            name: name.to_string(),
            path: path.to_string(),
            nb_res,
            jobs,
            profiles,
        })
    }
}
