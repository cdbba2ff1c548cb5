//! Declarations of the C shim (`csrc/shim.c`) and safe wrappers over it.
#![cfg(interstice_slurm)]

use std::ffi::{c_char, c_int, c_void, CStr, CString};

/// `job_desc_msg_t`, opaque on the Rust side.
pub type JobDesc = c_void;

extern "C" {
    fn isx_have_slurm_allocator() -> c_int;
    fn isx_log_info(message: *const c_char);
    fn isx_log_error(message: *const c_char);
    fn isx_xstrdup(text: *const c_char) -> *mut c_char;
    fn isx_partition(desc: *const JobDesc) -> *const c_char;
    fn isx_set_partition(desc: *mut JobDesc, value: *const c_char) -> c_int;
    fn isx_qos(desc: *const JobDesc) -> *const c_char;
    fn isx_set_qos(desc: *mut JobDesc, value: *const c_char) -> c_int;
    fn isx_comment(desc: *const JobDesc) -> *const c_char;
    fn isx_set_comment(desc: *mut JobDesc, value: *const c_char) -> c_int;
    fn isx_time_limit(desc: *const JobDesc) -> u32;
    fn isx_set_time_limit(desc: *mut JobDesc, minutes: u32);
    fn isx_set_deadline(desc: *mut JobDesc, epoch: i64);
    fn isx_min_cpus(desc: *const JobDesc) -> u32;
    fn isx_num_tasks(desc: *const JobDesc) -> u32;
    fn isx_cpus_per_task(desc: *const JobDesc) -> u32;
    fn isx_no_val() -> u32;
    fn isx_no_val16() -> u16;
    fn isx_spank_env_size(desc: *const JobDesc) -> u32;
    fn isx_spank_env(desc: *const JobDesc, index: u32) -> *const c_char;
}

fn c_text(text: &str) -> CString {
    CString::new(text.replace('\0', " ")).unwrap_or_default()
}

/// Whether Slurm's allocator resolved (false outside a Slurm daemon).
pub fn have_slurm_allocator() -> bool {
    // SAFETY: no arguments; reads two weak symbol addresses.
    unsafe { isx_have_slurm_allocator() != 0 }
}

/// Logs at info level in the host daemon's log.
pub fn info(message: &str) {
    let text = c_text(message);
    // SAFETY: `text` is NUL-terminated and outlives the call.
    unsafe { isx_log_info(text.as_ptr()) }
}

/// Logs at error level in the host daemon's log.
pub fn error(message: &str) {
    let text = c_text(message);
    // SAFETY: as above.
    unsafe { isx_log_error(text.as_ptr()) }
}

/// A copy of `message` in Slurm's allocator, for `*err_msg` (Slurm xfree's it); NULL if unavailable.
pub fn slurm_string(message: &str) -> *mut c_char {
    let text = c_text(message);
    // SAFETY: `text` is NUL-terminated; the shim returns NULL without Slurm.
    unsafe { isx_xstrdup(text.as_ptr()) }
}

unsafe fn owned(text: *const c_char) -> Option<String> {
    (!text.is_null()).then(|| CStr::from_ptr(text).to_string_lossy().into_owned())
}

/// Read access to a `job_desc_msg_t` for the duration of a `job_submit` call.
pub struct Desc(*mut JobDesc);

impl Desc {
    /// # Safety
    /// `desc` must be a valid `job_desc_msg_t` for as long as the value lives.
    pub unsafe fn new(desc: *mut JobDesc) -> Self {
        Desc(desc)
    }

    /// Requested partition.
    pub fn partition(&self) -> Option<String> {
        // SAFETY: `self.0` is valid (constructor contract).
        unsafe { owned(isx_partition(self.0)) }
    }

    /// Requested QOS.
    pub fn qos(&self) -> Option<String> {
        // SAFETY: as above.
        unsafe { owned(isx_qos(self.0)) }
    }

    /// The user's comment.
    pub fn comment(&self) -> Option<String> {
        // SAFETY: as above.
        unsafe { owned(isx_comment(self.0)) }
    }

    /// Requested time limit in minutes.
    pub fn time_limit_minutes(&self) -> Option<u32> {
        // SAFETY: as above.
        let minutes = unsafe { isx_time_limit(self.0) };
        // SAFETY: no arguments.
        // NO_VAL: not given; u32::MAX is INFINITE: use the default walltime for both.
        (minutes != unsafe { isx_no_val() } && minutes != 0 && minutes != u32::MAX).then_some(minutes)
    }

    /// Processors requested: the largest of `min_cpus` and tasks × CPUs per task, at least 1.
    pub fn procs(&self) -> u32 {
        // SAFETY: as above; the shim only reads fields.
        let (no_val, no_val16, min_cpus, tasks, per_task) = unsafe {
            (
                isx_no_val(),
                isx_no_val16(),
                isx_min_cpus(self.0),
                isx_num_tasks(self.0),
                isx_cpus_per_task(self.0),
            )
        };
        let valid =
            |value: u32| (value != no_val && value != u32::from(no_val16) && value != 0).then_some(value);
        let per_task = valid(per_task).unwrap_or(1);
        let by_tasks = valid(tasks).map_or(0, |tasks| tasks.saturating_mul(per_task));
        valid(min_cpus).unwrap_or(0).max(by_tasks).max(1)
    }

    /// The job-control (`spank_job_env`) environment.
    pub fn spank_env(&self) -> Vec<String> {
        // SAFETY: indices below the size the shim reports; the shim checks NULL.
        unsafe {
            (0..isx_spank_env_size(self.0))
                .filter_map(|index| owned(isx_spank_env(self.0, index)))
                .collect()
        }
    }

    /// Sets the partition (Slurm-allocated copy).
    pub fn set_partition(&mut self, value: &str) -> bool {
        let text = c_text(value);
        // SAFETY: valid desc; the shim copies `text` with slurm_xstrdup.
        unsafe { isx_set_partition(self.0, text.as_ptr()) == 0 }
    }

    /// Sets the QOS (Slurm-allocated copy).
    pub fn set_qos(&mut self, value: &str) -> bool {
        let text = c_text(value);
        // SAFETY: as above.
        unsafe { isx_set_qos(self.0, text.as_ptr()) == 0 }
    }

    /// Sets the comment (Slurm-allocated copy).
    pub fn set_comment(&mut self, value: &str) -> bool {
        let text = c_text(value);
        // SAFETY: as above.
        unsafe { isx_set_comment(self.0, text.as_ptr()) == 0 }
    }

    /// Sets the time limit in minutes.
    pub fn set_time_limit_minutes(&mut self, minutes: u32) {
        // SAFETY: valid desc.
        unsafe { isx_set_time_limit(self.0, minutes) }
    }

    /// Sets the deadline (epoch seconds).
    pub fn set_deadline(&mut self, epoch: i64) {
        // SAFETY: valid desc.
        unsafe { isx_set_deadline(self.0, epoch) }
    }
}
