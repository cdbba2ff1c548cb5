//! The `extern "C"` surface (`interstice.h`).
//!
//! Conventions (same as rustls-ffi):
//! - opaque handles are created by `_new` (or a call that returns one through an
//!   out-pointer) and released exactly once by their `_free`;
//! - every fallible call returns an [`interstice_result`]; outputs go through
//!   out-pointers that are written only when the result is `INTERSTICE_RESULT_OK`;
//! - every body runs inside `catch_unwind`: a panic becomes
//!   `INTERSTICE_RESULT_PANIC` and never unwinds into C;
//! - strings passed in are NUL-terminated UTF-8, borrowed for the call only;
//!   error text is copied into a caller buffer (pointer followed by its length).
#![allow(non_camel_case_types)]

use std::ffi::{c_char, CStr, CString};
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::Mutex;
use std::time::Duration;

use interstice_api::wire::{EventKind, HpcEventRequest, PredictRequest, SlotsResponse};
use interstice_api::{Client, ClientError};

// `include/interstice.h` repeats this enum: cbindgen generates the header
// from this file, and the `header_matches_cbindgen` test fails when the two
// differ. The CLI's exit statuses (`src/cli/exit.rs`) are a different table.
/// Result of every fallible call.
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum interstice_result {
    /// Success: out-pointers were written.
    Ok = 0,
    /// A required pointer argument was NULL.
    NullArgument = 1,
    /// An argument was unusable (not UTF-8, out of range, unknown enum value).
    InvalidArgument = 2,
    /// The daemon's socket could not be reached.
    Connect = 3,
    /// The daemon did not answer within the client's timeout.
    Timeout = 4,
    /// Reading or writing the socket failed.
    Io = 5,
    /// The daemon answered with an error status (its text is in the last error).
    Http = 6,
    /// The daemon's answer was not the expected HTTP/JSON.
    Protocol = 7,
    /// The caller's buffer was too small; the text was truncated.
    BufferTooSmall = 8,
    /// An index was past the end of a list.
    OutOfRange = 9,
    /// A bug: Rust panicked; the call did nothing.
    Panic = 10,
}

/// The kind of an HPC job event.
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum interstice_event_kind {
    /// The job entered the queue.
    Submitted = 0,
    /// The job started on processors.
    Started = 1,
    /// The job ended normally.
    Ended = 2,
    /// The job was killed or cancelled.
    Killed = 3,
}

/// A connection to one `intersticed` (socket path + per-call timeout).
///
/// Created by `interstice_client_new`, released by `interstice_client_free`.
/// Not thread-safe for concurrent calls on one handle's last-error text:
/// use one handle per thread, or accept that the last error may be another thread's.
pub struct interstice_client {
    client: Client,
    last_error: Mutex<CString>,
}

/// The idle slots published by the daemon, owned by the library.
///
/// Returned by `interstice_client_slots`, released by `interstice_slots_free`.
pub struct interstice_slots {
    slots: SlotsResponse,
    future_procs: Vec<CString>,
}

/// An HPC job event (`POST /v1/hpc/events`). All pointers are borrowed for the call.
#[repr(C)]
pub struct interstice_job_event {
    /// What happened.
    pub kind: interstice_event_kind,
    /// The batch system's job id, NUL-terminated UTF-8 (required).
    pub job_id: *const c_char,
    /// Processors the job takes.
    pub procs: u32,
    /// Requested walltime, seconds.
    pub walltime_seconds: f64,
    /// When it happened, epoch seconds; a negative value means "the daemon's now".
    pub time: f64,
    /// Which processors, interval-set text such as `"0-3 6"`; NULL if unknown.
    pub cpus: *const c_char,
}

/// A prediction/admission request for a cloud job (`POST /v1/predict`).
#[repr(C)]
pub struct interstice_predict_request {
    /// Processors the job needs (at least 1).
    pub procs: u32,
    /// Requested walltime, seconds (> 0).
    pub walltime_seconds: f64,
    /// Agreed maximum response time, seconds (> 0).
    pub slo_seconds: f64,
    /// true: the daemon counts and records this as an admission decision
    /// (only the batch system may: root, or `backend.slurm_user` in Slurm
    /// mode; others are refused).
    pub admission: bool,
}

/// The daemon's answer to a prediction. `has_*` says whether the value beside it is set.
#[repr(C)]
#[derive(Debug, Clone, Copy, Default)]
pub struct interstice_prediction {
    /// true when the SLO can be met (accepted).
    pub accepted: bool,
    /// Whether `predicted_start` is set.
    pub has_predicted_start: bool,
    /// Predicted start, epoch seconds.
    pub predicted_start: f64,
    /// Whether `predicted_completion` is set.
    pub has_predicted_completion: bool,
    /// Predicted completion, epoch seconds.
    pub predicted_completion: f64,
    /// Whether `violation_seconds` is set.
    pub has_violation_seconds: bool,
    /// Predicted completion minus (arrival + SLO): negative = slack, positive = violation.
    pub violation_seconds: f64,
    /// Whether `counter_offer_slo_seconds` is set.
    pub has_counter_offer_slo: bool,
    /// The SLO (seconds) that can be met, when rejected.
    pub counter_offer_slo_seconds: f64,
}

/// A processor idle now.
#[repr(C)]
#[derive(Debug, Clone, Copy, Default)]
pub struct interstice_immediate_slot {
    /// Processor index.
    pub proc_index: u32,
    /// false: idle with no end in the plan.
    pub has_idle_until: bool,
    /// Idle until, epoch seconds.
    pub idle_until: f64,
}

/// A future hole in the plan.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct interstice_future_slot {
    /// Start, epoch seconds.
    pub start: f64,
    /// false: open-ended.
    pub has_end: bool,
    /// End, epoch seconds.
    pub end: f64,
    /// Processors, NUL-terminated interval-set text (`"0-3 6"`). Borrowed: owned by
    /// the `interstice_slots` it came from and valid until that is freed.
    pub procs: *const c_char,
}

fn guard(body: impl FnOnce() -> interstice_result) -> interstice_result {
    guard_or(interstice_result::Panic, body)
}

/// Runs an FFI body that has no error channel: a panic becomes `fallback`.
fn guard_or<T>(fallback: T, body: impl FnOnce() -> T) -> T {
    catch_unwind(AssertUnwindSafe(body)).unwrap_or(fallback)
}

fn code_of(error: &ClientError) -> interstice_result {
    match error {
        ClientError::Connect { .. } => interstice_result::Connect,
        ClientError::Timeout(_) => interstice_result::Timeout,
        ClientError::Io(_) => interstice_result::Io,
        ClientError::Http { .. } => interstice_result::Http,
        _ => interstice_result::Protocol,
    }
}

/// Why a call did not succeed, before it becomes its [`interstice_result`].
enum Failure {
    /// A code without text (a NULL pointer, an index out of range, a short
    /// buffer): the handle's last error is left as it was.
    Code(interstice_result),
    /// An unusable argument (`INTERSTICE_RESULT_INVALID_ARGUMENT`); the text
    /// becomes the handle's last error.
    Invalid(String),
    /// The daemon call failed; its text becomes the handle's last error.
    Client(ClientError),
}

/// The failure of a required pointer that is NULL.
const NULL_ARGUMENT: Failure = Failure::Code(interstice_result::NullArgument);

impl From<ClientError> for Failure {
    fn from(error: ClientError) -> Self {
        Failure::Client(error)
    }
}

impl Failure {
    fn code(&self) -> interstice_result {
        match self {
            Failure::Code(code) => *code,
            Failure::Invalid(_) => interstice_result::InvalidArgument,
            Failure::Client(error) => code_of(error),
        }
    }
}

fn invalid(message: impl Into<String>) -> Failure {
    Failure::Invalid(message.into())
}

/// Runs a call's body under [`guard`]: `Ok` is `INTERSTICE_RESULT_OK`, a failure its code.
fn call(body: impl FnOnce() -> Result<(), Failure>) -> interstice_result {
    guard(|| match body() {
        Ok(()) => interstice_result::Ok,
        Err(failure) => failure.code(),
    })
}

/// [`call`] on a client handle: a NULL handle is `INTERSTICE_RESULT_NULL_ARGUMENT`;
/// the text of an invalid argument or of the daemon's error becomes the handle's last error.
///
/// # Safety
/// `client` must be NULL or a live handle.
unsafe fn call_client(
    client: *const interstice_client,
    body: impl FnOnce(&interstice_client) -> Result<(), Failure>,
) -> interstice_result {
    guard(|| {
        let Some(client) = client.as_ref() else {
            return interstice_result::NullArgument;
        };
        match body(client) {
            Ok(()) => interstice_result::Ok,
            Err(failure) => {
                match &failure {
                    Failure::Invalid(message) => client.remember(message),
                    Failure::Client(error) => client.remember(&error.to_string()),
                    Failure::Code(_) => {}
                }
                failure.code()
            }
        }
    })
}

/// A required out-pointer: NULL is a failure.
fn required<T>(out: *mut T) -> Result<*mut T, Failure> {
    if out.is_null() {
        Err(NULL_ARGUMENT)
    } else {
        Ok(out)
    }
}

/// Releases a handle made by `Box::into_raw`; NULL is ignored.
///
/// # Safety
/// `handle` must be NULL or a handle of this type not yet freed.
unsafe fn free_handle<T>(handle: *mut T) {
    guard_or((), || {
        if !handle.is_null() {
            drop(Box::from_raw(handle));
        }
    });
}

impl interstice_client {
    fn remember(&self, message: &str) {
        let text = CString::new(message.replace('\0', " ")).unwrap_or_default();
        *self
            .last_error
            .lock()
            .unwrap_or_else(|poison| poison.into_inner()) = text;
    }
}

/// A borrowed C string argument named `name`: `None` for NULL, a failure
/// naming it when it is not UTF-8.
///
/// # Safety
/// `text` must be NULL or a NUL-terminated string.
unsafe fn borrow_str<'a>(text: *const c_char, name: &str) -> Result<Option<&'a str>, Failure> {
    if text.is_null() {
        return Ok(None);
    }
    CStr::from_ptr(text)
        .to_str()
        .map(Some)
        .map_err(|_| invalid(format!("{name} is not UTF-8")))
}

/// A number of seconds that must be finite and > 0.
fn positive_seconds(value: f64, name: &str) -> Result<f64, Failure> {
    if value.is_finite() && value > 0.0 {
        Ok(value)
    } else {
        Err(invalid(format!("{name} must be a finite number > 0")))
    }
}

/// Creates a client for the daemon listening on `socket_path` (NUL-terminated,
/// copied). Every later call on it completes or fails within `timeout_ms`
/// milliseconds (at least 1). No connection is made here. On success writes the
/// new handle to `*out_client`; release it with `interstice_client_free`.
///
/// # Safety
/// `socket_path` must be NULL or a NUL-terminated string; `out_client` must be NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn interstice_client_new(
    socket_path: *const c_char,
    timeout_ms: u32,
    out_client: *mut *mut interstice_client,
) -> interstice_result {
    call(|| {
        let out_client = required(out_client)?;
        let path = borrow_str(socket_path, "socket_path")?.ok_or(NULL_ARGUMENT)?;
        if path.is_empty() || timeout_ms == 0 {
            return Err(Failure::Code(interstice_result::InvalidArgument));
        }
        let client = interstice_client {
            client: Client::new(path, Duration::from_millis(u64::from(timeout_ms))),
            last_error: Mutex::new(CString::default()),
        };
        out_client.write(Box::into_raw(Box::new(client)));
        Ok(())
    })
}

/// Releases a client created by `interstice_client_new`. NULL is ignored.
///
/// # Safety
/// `client` must be NULL or a handle from `interstice_client_new` not yet freed.
#[no_mangle]
pub unsafe extern "C" fn interstice_client_free(client: *mut interstice_client) {
    free_handle(client);
}

/// Copies the text of the last error on `client` into `buf` (`len` bytes,
/// always NUL-terminated when `len > 0`) and writes the text's length (without
/// the NUL) to `*out_len` when `out_len` is not NULL. Returns
/// `INTERSTICE_RESULT_BUFFER_TOO_SMALL` when the text was truncated (`*out_len`
/// then tells the size needed minus one). The text is empty when no call failed yet.
///
/// # Safety
/// `client` must be a live handle; `buf` must have room for `len` bytes; `out_len` NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn interstice_client_last_error(
    client: *const interstice_client,
    buf: *mut c_char,
    len: usize,
    out_len: *mut usize,
) -> interstice_result {
    call_client(client, |client| {
        if buf.is_null() && len > 0 {
            return Err(NULL_ARGUMENT);
        }
        let text = client
            .last_error
            .lock()
            .unwrap_or_else(|poison| poison.into_inner())
            .clone();
        let bytes = text.as_bytes();
        if !out_len.is_null() {
            *out_len = bytes.len();
        }
        let copied = if len == 0 {
            0
        } else {
            let copied = bytes.len().min(len - 1);
            std::ptr::copy_nonoverlapping(bytes.as_ptr(), buf.cast::<u8>(), copied);
            *buf.add(copied) = 0;
            copied
        };
        if copied < bytes.len() {
            Err(Failure::Code(interstice_result::BufferTooSmall))
        } else {
            Ok(())
        }
    })
}

/// Checks that the daemon answers (`GET /healthz`).
///
/// # Safety
/// `client` must be a live handle.
#[no_mangle]
pub unsafe extern "C" fn interstice_client_health(client: *const interstice_client) -> interstice_result {
    call_client(client, |client| {
        client.client.health()?;
        Ok(())
    })
}

/// Reports an HPC job event. On success writes to `*out_n_evicted` (if not
/// NULL) how many local cloud jobs the daemon evicted to make room. Only the
/// batch system may report (root, or `backend.slurm_user` in Slurm mode);
/// others are refused.
///
/// # Safety
/// `client` must be a live handle, `event` a valid pointer whose strings are NULL or NUL-terminated.
#[no_mangle]
pub unsafe extern "C" fn interstice_client_report_event(
    client: *const interstice_client,
    event: *const interstice_job_event,
    out_n_evicted: *mut u32,
) -> interstice_result {
    call_client(client, |client| {
        let event = event.as_ref().ok_or(NULL_ARGUMENT)?;
        let job_id = borrow_str(event.job_id, "job_id")?.ok_or(NULL_ARGUMENT)?;
        if job_id.is_empty() {
            return Err(invalid("job_id is empty"));
        }
        let cpus = borrow_str(event.cpus, "cpus")?.map(str::to_string);
        if !event.walltime_seconds.is_finite() || event.walltime_seconds < 0.0 {
            return Err(invalid("walltime_seconds must be a finite number >= 0"));
        }
        // Read the kind as an integer: C may pass any value in the enum's storage.
        let kind = match *(std::ptr::addr_of!(event.kind).cast::<u32>()) {
            0 => EventKind::Submitted,
            1 => EventKind::Started,
            2 => EventKind::Ended,
            3 => EventKind::Killed,
            other => return Err(invalid(format!("unknown event kind {other}"))),
        };
        let request = HpcEventRequest {
            kind,
            id: job_id.to_string(),
            procs: event.procs,
            walltime: event.walltime_seconds,
            time: (event.time.is_finite() && event.time >= 0.0).then_some(event.time),
            cpus,
        };
        let answer = client.client.hpc_event(&request)?;
        if !out_n_evicted.is_null() {
            *out_n_evicted = u32::try_from(answer.evicted.len()).unwrap_or(u32::MAX);
        }
        Ok(())
    })
}

/// Asks the daemon whether a cloud job would meet its SLO (and, with
/// `admission`, records the decision). Writes the answer to `*out_prediction` on success.
///
/// # Safety
/// `client` must be a live handle, `request` readable, `out_prediction` writable.
#[no_mangle]
pub unsafe extern "C" fn interstice_client_predict(
    client: *const interstice_client,
    request: *const interstice_predict_request,
    out_prediction: *mut interstice_prediction,
) -> interstice_result {
    call_client(client, |client| {
        let request = request.as_ref().ok_or(NULL_ARGUMENT)?;
        let out_prediction = required(out_prediction)?;
        if request.procs == 0 {
            return Err(invalid("procs must be at least 1"));
        }
        let wire = PredictRequest {
            procs: request.procs,
            walltime: positive_seconds(request.walltime_seconds, "walltime_seconds")?,
            slo: positive_seconds(request.slo_seconds, "slo_seconds")?,
            admission: request.admission,
            features: Vec::new(),
            class: None,
            bytes: None,
        };
        let prediction = client.client.predict(&wire)?;
        let (has_predicted_start, predicted_start) = split(prediction.predicted_start);
        let (has_predicted_completion, predicted_completion) = split(prediction.predicted_completion);
        let (has_violation_seconds, violation_seconds) = split(prediction.violation_seconds);
        let (has_counter_offer_slo, counter_offer_slo_seconds) = split(prediction.counter_offer_slo);
        out_prediction.write(interstice_prediction {
            accepted: prediction.accepted(),
            has_predicted_start,
            predicted_start,
            has_predicted_completion,
            predicted_completion,
            has_violation_seconds,
            violation_seconds,
            has_counter_offer_slo,
            counter_offer_slo_seconds,
        });
        Ok(())
    })
}

fn split(value: Option<f64>) -> (bool, f64) {
    (value.is_some(), value.unwrap_or(0.0))
}

/// Reads the daemon's idle slots. On success writes a new handle to
/// `*out_slots`; read it with the `interstice_slots_*` accessors and release it
/// with `interstice_slots_free`.
///
/// # Safety
/// `client` must be a live handle, `out_slots` writable.
#[no_mangle]
pub unsafe extern "C" fn interstice_client_slots(
    client: *const interstice_client,
    out_slots: *mut *mut interstice_slots,
) -> interstice_result {
    call_client(client, |client| {
        let out_slots = required(out_slots)?;
        let slots = client.client.slots()?;
        let future_procs = slots
            .future
            .iter()
            .map(|slot| CString::new(slot.procs.replace('\0', "")).unwrap_or_default())
            .collect();
        out_slots.write(Box::into_raw(Box::new(interstice_slots { slots, future_procs })));
        Ok(())
    })
}

/// Releases slots from `interstice_client_slots`. NULL is ignored.
///
/// # Safety
/// `slots` must be NULL or a handle not yet freed.
#[no_mangle]
pub unsafe extern "C" fn interstice_slots_free(slots: *mut interstice_slots) {
    free_handle(slots);
}

/// A value read from a slots handle: `fallback` for NULL (and if reading panics).
///
/// # Safety
/// `slots` must be NULL or a live handle.
unsafe fn read_slots<T: Copy>(
    slots: *const interstice_slots,
    fallback: T,
    read: impl FnOnce(&interstice_slots) -> T,
) -> T {
    guard_or(fallback, || slots.as_ref().map_or(fallback, read))
}

/// Copies one slot, chosen by `get` (`None`: index out of range), into `*out_slot`.
///
/// # Safety
/// `slots` must be NULL or a live handle, `out_slot` NULL or writable.
unsafe fn copy_slot<T>(
    slots: *const interstice_slots,
    out_slot: *mut T,
    get: impl FnOnce(&interstice_slots) -> Option<T>,
) -> interstice_result {
    call(|| {
        let slots = slots.as_ref().ok_or(NULL_ARGUMENT)?;
        let out_slot = required(out_slot)?;
        let slot = get(slots).ok_or(Failure::Code(interstice_result::OutOfRange))?;
        out_slot.write(slot);
        Ok(())
    })
}

/// The daemon's clock when it computed the slots (epoch seconds); 0 for NULL.
///
/// # Safety
/// `slots` must be NULL or a live handle.
#[no_mangle]
pub unsafe extern "C" fn interstice_slots_now(slots: *const interstice_slots) -> f64 {
    read_slots(slots, 0.0, |slots| slots.slots.now)
}

/// How many processors are idle now; 0 for NULL.
///
/// # Safety
/// `slots` must be NULL or a live handle.
#[no_mangle]
pub unsafe extern "C" fn interstice_slots_immediate_len(slots: *const interstice_slots) -> usize {
    read_slots(slots, 0, |slots| slots.slots.immediate.len())
}

/// Copies immediate slot `index` into `*out_slot`.
///
/// # Safety
/// `slots` must be a live handle, `out_slot` writable.
#[no_mangle]
pub unsafe extern "C" fn interstice_slots_immediate_get(
    slots: *const interstice_slots,
    index: usize,
    out_slot: *mut interstice_immediate_slot,
) -> interstice_result {
    copy_slot(slots, out_slot, |slots| {
        let slot = slots.slots.immediate.get(index)?;
        let (has_idle_until, idle_until) = split(slot.idle_until);
        Some(interstice_immediate_slot {
            proc_index: slot.proc,
            has_idle_until,
            idle_until,
        })
    })
}

/// How many future holes the plan has; 0 for NULL.
///
/// # Safety
/// `slots` must be NULL or a live handle.
#[no_mangle]
pub unsafe extern "C" fn interstice_slots_future_len(slots: *const interstice_slots) -> usize {
    read_slots(slots, 0, |slots| slots.slots.future.len())
}

/// Copies future slot `index` into `*out_slot` (its `procs` text stays owned by `slots`).
///
/// # Safety
/// `slots` must be a live handle, `out_slot` writable.
#[no_mangle]
pub unsafe extern "C" fn interstice_slots_future_get(
    slots: *const interstice_slots,
    index: usize,
    out_slot: *mut interstice_future_slot,
) -> interstice_result {
    copy_slot(slots, out_slot, |slots| {
        let (slot, procs) = (slots.slots.future.get(index)?, slots.future_procs.get(index)?);
        let (has_end, end) = split(slot.end);
        Some(interstice_future_slot {
            start: slot.start,
            has_end,
            end,
            procs: procs.as_ptr(),
        })
    })
}

/// A static, NUL-terminated name for a result code (`"INTERSTICE_RESULT_OK"`, …); never NULL, never freed.
/// Total: a value outside `interstice_result` (a C caller may pass any int)
/// gives `"INTERSTICE_RESULT_UNKNOWN"`. Takes the code as an `int32_t`, the
/// storage of a C enum, so that no value is undefined behaviour.
#[no_mangle]
pub extern "C" fn interstice_result_name(result: i32) -> *const c_char {
    result_name(result).as_ptr().cast()
}

/// The name behind [`interstice_result_name`], with its NUL.
fn result_name(result: i32) -> &'static [u8] {
    const NAMES: [(interstice_result, &[u8]); 11] = [
        (interstice_result::Ok, b"INTERSTICE_RESULT_OK\0"),
        (
            interstice_result::NullArgument,
            b"INTERSTICE_RESULT_NULL_ARGUMENT\0",
        ),
        (
            interstice_result::InvalidArgument,
            b"INTERSTICE_RESULT_INVALID_ARGUMENT\0",
        ),
        (interstice_result::Connect, b"INTERSTICE_RESULT_CONNECT\0"),
        (interstice_result::Timeout, b"INTERSTICE_RESULT_TIMEOUT\0"),
        (interstice_result::Io, b"INTERSTICE_RESULT_IO\0"),
        (interstice_result::Http, b"INTERSTICE_RESULT_HTTP\0"),
        (interstice_result::Protocol, b"INTERSTICE_RESULT_PROTOCOL\0"),
        (
            interstice_result::BufferTooSmall,
            b"INTERSTICE_RESULT_BUFFER_TOO_SMALL\0",
        ),
        (interstice_result::OutOfRange, b"INTERSTICE_RESULT_OUT_OF_RANGE\0"),
        (interstice_result::Panic, b"INTERSTICE_RESULT_PANIC\0"),
    ];
    NAMES
        .iter()
        .find(|(code, _)| *code as i32 == result)
        .map_or(b"INTERSTICE_RESULT_UNKNOWN\0", |(_, name)| *name)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::ffi::CStr;

    fn name(code: i32) -> &'static str {
        // SAFETY: interstice_result_name returns a static NUL-terminated string.
        unsafe { CStr::from_ptr(interstice_result_name(code)) }
            .to_str()
            .expect("ASCII")
    }

    #[test]
    fn result_names_are_total() {
        assert_eq!(name(interstice_result::Ok as i32), "INTERSTICE_RESULT_OK");
        assert_eq!(name(interstice_result::Panic as i32), "INTERSTICE_RESULT_PANIC");
        for code in 0..=10 {
            assert_ne!(name(code), "INTERSTICE_RESULT_UNKNOWN", "{code}");
        }
        for code in [11, 99, -1, i32::MIN, i32::MAX] {
            assert_eq!(name(code), "INTERSTICE_RESULT_UNKNOWN", "{code}");
        }
    }
}
