//! The symbols slurmctld looks up in `job_submit_interstice.so`.
//!
//! Every entry point catches panics and returns `SLURM_SUCCESS`/`SLURM_ERROR`;
//! the only blocking call is the daemon request, bounded by `timeout_ms`.
#![allow(non_upper_case_globals)]

use std::ffi::{c_char, c_int, c_void};
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::RwLock;

use crate::config::Config;

const SLURM_SUCCESS: c_int = 0;
const SLURM_ERROR: c_int = -1;

/// Human-readable plugin name.
#[no_mangle]
#[used]
pub static plugin_name: [u8; 45] = *b"Interstice admission of evictable cloud jobs\0";
/// `job_submit/interstice`: the type slurmctld asks for (`JobSubmitPlugins=interstice`).
#[no_mangle]
#[used]
pub static plugin_type: [u8; 22] = *b"job_submit/interstice\0";
/// Must equal the `SLURM_VERSION_NUMBER` of the running slurmctld (checked by the loader).
#[no_mangle]
#[used]
pub static plugin_version: u32 = crate::SLURM_VERSION_NUMBER;

static CONFIG: RwLock<Option<Config>> = RwLock::new(None);

/// Called by slurmctld when it loads the plugin; non-zero refuses the load.
#[no_mangle]
pub extern "C" fn init() -> c_int {
    catch_unwind(init_inner).unwrap_or(SLURM_ERROR)
}

/// Called by slurmctld when it unloads the plugin.
#[no_mangle]
pub extern "C" fn fini() -> c_int {
    let _ = catch_unwind(|| *CONFIG.write().unwrap_or_else(|p| p.into_inner()) = None);
    SLURM_SUCCESS
}

#[cfg(not(interstice_slurm))]
fn init_inner() -> c_int {
    eprintln!(
        "job_submit/interstice: this build has no Slurm support: Slurm headers were not found at {} when it was \
         built. Install libslurm-dev (or slurm-devel), or set SLURM_INCLUDE_DIR, and rebuild the plugin",
        env!("INTERSTICE_SLURM_HEADERS")
    );
    SLURM_ERROR
}

#[cfg(interstice_slurm)]
fn init_inner() -> c_int {
    use crate::shim;
    if !shim::have_slurm_allocator() {
        shim::error("job_submit/interstice: slurm_xstrdup/slurm_xfree not found in the host process; refusing to load");
        return SLURM_ERROR;
    }
    let path = Config::default_path();
    match Config::load(&path) {
        Ok(config) => {
            shim::info(&format!(
                "job_submit/interstice: loaded (config {}, socket {}, timeout {} ms, fail_mode {:?}, cloud partition {:?})",
                config.source.as_ref().map_or_else(|| format!("{} absent: defaults", path.display()), |p| p.display().to_string()),
                config.socket.display(),
                config.timeout.as_millis(),
                config.fail_mode,
                config.cloud_partition,
            ));
            *CONFIG.write().unwrap_or_else(|p| p.into_inner()) = Some(config);
            SLURM_SUCCESS
        }
        Err(error) => {
            shim::error(&format!("job_submit/interstice: refusing to load: {error}"));
            SLURM_ERROR
        }
    }
}

/// Called for every submission (`sbatch`, `salloc`, `srun`).
///
/// # Safety
/// Called by slurmctld with a valid `job_desc_msg_t` and `err_msg` slot.
#[no_mangle]
pub unsafe extern "C" fn job_submit(
    job_desc: *mut c_void,
    submit_uid: u32,
    err_msg: *mut *mut c_char,
) -> c_int {
    catch_unwind(AssertUnwindSafe(|| submit_inner(job_desc, submit_uid, err_msg))).unwrap_or(SLURM_SUCCESS)
}

/// Called for `scontrol update job`: admission happens once, at submit;
/// only a comment that would rewrite the plugin's marker is refused, unless
/// root or slurmctld's own user makes the change
/// ([`crate::admission::comment_update`]).
///
/// # Safety
/// Called by slurmctld with a valid `job_desc_msg_t` and `err_msg` slot.
#[no_mangle]
pub unsafe extern "C" fn job_modify(
    job_desc: *mut c_void,
    _job_record: *mut c_void,
    submit_uid: u32,
    err_msg: *mut *mut c_char,
) -> c_int {
    catch_unwind(AssertUnwindSafe(|| modify_inner(job_desc, submit_uid, err_msg))).unwrap_or(SLURM_SUCCESS)
}

#[cfg(not(interstice_slurm))]
unsafe fn modify_inner(_job_desc: *mut c_void, _uid: u32, _err_msg: *mut *mut c_char) -> c_int {
    SLURM_SUCCESS
}

#[cfg(interstice_slurm)]
unsafe fn modify_inner(job_desc: *mut c_void, submit_uid: u32, err_msg: *mut *mut c_char) -> c_int {
    if job_desc.is_null() {
        return SLURM_SUCCESS;
    }
    let comment = crate::shim::Desc::new(job_desc).comment();
    guard_comment(comment.as_deref(), submit_uid, err_msg, "update").unwrap_or(SLURM_SUCCESS)
}

/// The marker rule ([`crate::admission::comment_update`]) on a comment a
/// user writes, at submission and at update alike: the refusal (logged,
/// its reason in `err_msg`) when it holds a marker its user may not write.
#[cfg(interstice_slurm)]
unsafe fn guard_comment(
    comment: Option<&str>,
    submit_uid: u32,
    err_msg: *mut *mut c_char,
    what: &str,
) -> Option<c_int> {
    // slurmctld runs this plugin as its own user.
    let slurm_uid = libc::geteuid();
    let message = crate::admission::comment_update(comment, submit_uid, slurm_uid).err()?;
    crate::shim::info(&format!(
        "job_submit/interstice: uid {submit_uid}: {what} refused: {message}"
    ));
    if !err_msg.is_null() {
        *err_msg = crate::shim::slurm_string(&message);
    }
    Some(SLURM_ERROR)
}

#[cfg(not(interstice_slurm))]
unsafe fn submit_inner(_job_desc: *mut c_void, _uid: u32, _err_msg: *mut *mut c_char) -> c_int {
    SLURM_SUCCESS
}

#[cfg(interstice_slurm)]
unsafe fn submit_inner(job_desc: *mut c_void, submit_uid: u32, err_msg: *mut *mut c_char) -> c_int {
    use crate::admission::{decide, Submission, Verdict};
    use crate::shim::{self, Desc};
    use std::time::{Instant, SystemTime, UNIX_EPOCH};

    if job_desc.is_null() {
        return SLURM_SUCCESS;
    }
    let Some(config) = CONFIG.read().unwrap_or_else(|p| p.into_inner()).clone() else {
        return SLURM_SUCCESS;
    };
    let mut desc = Desc::new(job_desc);
    // A submitted comment may not forge the marker (evictable or not: the
    // daemon reads a cloud partition's jobs by their marker).
    if let Some(refused) = guard_comment(desc.comment().as_deref(), submit_uid, err_msg, "submission") {
        return refused;
    }
    let submission = Submission {
        partition: desc.partition(),
        qos: desc.qos(),
        spank_env: desc.spank_env(),
        time_limit_minutes: desc.time_limit_minutes(),
        procs: desc.procs(),
        comment: desc.comment(),
    };
    let now = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_secs() as i64);
    let started = Instant::now();
    let client = interstice_api::Client::new(&config.socket, config.timeout);
    let mut daemon_error = None;
    let verdict = decide(&config, &submission, now, |request| {
        client
            .predict(request)
            .inspect_err(|error| daemon_error = Some(error.to_string()))
    });
    let took_ms = started.elapsed().as_secs_f64() * 1000.0;
    match verdict {
        Verdict::NotEvictable => SLURM_SUCCESS,
        Verdict::Accept(routing) => {
            let mut ok = true;
            if let Some(partition) = &routing.partition {
                ok &= desc.set_partition(partition);
            }
            if let Some(qos) = &routing.qos {
                ok &= desc.set_qos(qos);
            }
            ok &= desc.set_comment(&routing.comment);
            desc.set_time_limit_minutes(routing.time_limit_minutes);
            if let Some(deadline) = routing.deadline {
                desc.set_deadline(deadline);
            }
            if routing.unpredicted {
                shim::error(&format!(
                    "job_submit/interstice: uid {submit_uid}: daemon unavailable ({}), accepted unpredicted \
                     (fail_mode open) after {took_ms:.1} ms",
                    daemon_error.unwrap_or_default()
                ));
            } else {
                shim::info(&format!(
                    "job_submit/interstice: uid {submit_uid}: accepted evictable job ({}) in {took_ms:.1} ms",
                    routing.comment
                ));
            }
            if !ok {
                shim::error(
                    "job_submit/interstice: could not rewrite the job description (allocator missing)",
                );
            }
            SLURM_SUCCESS
        }
        Verdict::Reject(message) => {
            shim::info(&format!(
                "job_submit/interstice: uid {submit_uid}: rejected in {took_ms:.1} ms: {message}"
            ));
            if !err_msg.is_null() {
                *err_msg = shim::slurm_string(&message);
            }
            SLURM_ERROR
        }
    }
}
