//! Slurm's SPANK functions, looked up in the host process at run time.
//!
//! They live in `sbatch`/`slurmstepd`, not in a library we could link; looking
//! them up with `dlsym(RTLD_DEFAULT, …)` keeps the unit tests linkable and
//! turns a missing symbol into a logged error instead of a failed dlopen.

use std::ffi::{c_char, c_int, c_void, CStr, CString};
use std::sync::OnceLock;

/// `spank_t`.
pub type Spank = *mut c_void;
/// `spank_opt_cb_f`.
pub type OptionCallback = unsafe extern "C" fn(val: c_int, optarg: *const c_char, remote: c_int) -> c_int;

/// `struct spank_option`.
#[repr(C)]
pub struct SpankOption {
    /// Long option name.
    pub name: *const c_char,
    /// Argument description.
    pub arginfo: *const c_char,
    /// Usage text.
    pub usage: *const c_char,
    /// 1 when the option takes an argument.
    pub has_arg: c_int,
    /// Value passed to the callback.
    pub val: c_int,
    /// Callback.
    pub cb: Option<OptionCallback>,
}

// SAFETY: the pointers are to 'static NUL-terminated literals and are never written.
unsafe impl Sync for SpankOption {}

/// `S_CTX_*` values of `enum spank_context`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Context {
    /// srun.
    Local,
    /// slurmstepd.
    Remote,
    /// sbatch/salloc.
    Allocator,
    /// slurmd.
    Slurmd,
    /// prolog/epilog.
    JobScript,
    /// Unknown.
    Error,
}

/// `S_JOB_ID` in `enum spank_item`.
const S_JOB_ID: c_int = 2;
/// `S_JOB_ALLOC_CORES` in `enum spank_item`.
const S_JOB_ALLOC_CORES: c_int = 25;

struct Functions {
    option_register: Option<unsafe extern "C" fn(Spank, *const SpankOption) -> c_int>,
    job_control_setenv: Option<unsafe extern "C" fn(Spank, *const c_char, *const c_char, c_int) -> c_int>,
    context: Option<unsafe extern "C" fn() -> c_int>,
    get_item: Option<unsafe extern "C" fn(Spank, c_int, ...) -> c_int>,
    info: Option<unsafe extern "C" fn(*const c_char, ...)>,
    error: Option<unsafe extern "C" fn(*const c_char, ...)>,
}

fn functions() -> &'static Functions {
    static FUNCTIONS: OnceLock<Functions> = OnceLock::new();
    FUNCTIONS.get_or_init(|| {
        fn lookup(name: &CStr) -> *mut c_void {
            // SAFETY: `name` is NUL-terminated; RTLD_DEFAULT searches the loaded objects.
            unsafe { libc::dlsym(libc::RTLD_DEFAULT, name.as_ptr()) }
        }
        macro_rules! resolve {
            ($name:literal) => {{
                let address = lookup($name);
                // SAFETY: the symbol, when present, is the Slurm function with the
                // signature declared in spank.h, which the field's type mirrors.
                (!address.is_null()).then(|| unsafe { std::mem::transmute::<*mut c_void, _>(address) })
            }};
        }
        Functions {
            option_register: resolve!(c"spank_option_register"),
            job_control_setenv: resolve!(c"spank_job_control_setenv"),
            context: resolve!(c"spank_context"),
            get_item: resolve!(c"spank_get_item"),
            info: resolve!(c"slurm_info"),
            error: resolve!(c"slurm_error"),
        }
    })
}

fn c_text(text: &str) -> CString {
    CString::new(text.replace('\0', " ")).unwrap_or_default()
}

/// Logs at info level (stderr outside Slurm).
pub fn info(message: &str) {
    let text = c_text(message);
    match functions().info {
        // SAFETY: "%s" with one NUL-terminated string.
        Some(info) => unsafe { info(c"%s".as_ptr(), text.as_ptr()) },
        None => eprintln!("{message}"),
    }
}

/// Logs at error level (stderr outside Slurm).
pub fn error(message: &str) {
    let text = c_text(message);
    match functions().error {
        // SAFETY: as above.
        Some(error) => unsafe { error(c"%s".as_ptr(), text.as_ptr()) },
        None => eprintln!("{message}"),
    }
}

/// The context this plugin instance runs in.
pub fn context() -> Context {
    // SAFETY: no arguments.
    match functions().context.map(|context| unsafe { context() }) {
        Some(1) => Context::Local,
        Some(2) => Context::Remote,
        Some(3) => Context::Allocator,
        Some(4) => Context::Slurmd,
        Some(5) => Context::JobScript,
        _ => Context::Error,
    }
}

/// Registers a command-line option; returns Slurm's error code.
pub fn option_register(spank: Spank, option: &'static SpankOption) -> Result<(), c_int> {
    let register = functions().option_register.ok_or(-1)?;
    // SAFETY: `option` is 'static; `spank` comes from Slurm.
    match unsafe { register(spank, option) } {
        0 => Ok(()),
        code => Err(code),
    }
}

/// Sets `SPANK_<name>` in the job-control environment (reaches job_submit and prolog/epilog).
pub fn job_control_setenv(spank: Spank, name: &str, value: &str) -> Result<(), c_int> {
    let setenv = functions().job_control_setenv.ok_or(-1)?;
    let (name, value) = (c_text(name), c_text(value));
    // SAFETY: NUL-terminated strings that outlive the call.
    match unsafe { setenv(spank, name.as_ptr(), value.as_ptr(), 1) } {
        0 => Ok(()),
        code => Err(code),
    }
}

/// The job id (`S_JOB_ID`).
pub fn job_id(spank: Spank) -> Option<u32> {
    let get_item = functions().get_item?;
    let mut id: u32 = 0;
    // SAFETY: S_JOB_ID takes one `uint32_t *`.
    (unsafe { get_item(spank, S_JOB_ID, &mut id as *mut u32) } == 0).then_some(id)
}

/// The job's allocated cores on this node (`S_JOB_ALLOC_CORES`, Slurm list form `"0-3,6"`).
pub fn job_alloc_cores(spank: Spank) -> Option<String> {
    let get_item = functions().get_item?;
    let mut cores: *const c_char = std::ptr::null();
    // SAFETY: S_JOB_ALLOC_CORES takes one `char **`; the string stays owned by Slurm.
    let code = unsafe { get_item(spank, S_JOB_ALLOC_CORES, &mut cores as *mut *const c_char) };
    // SAFETY: on success `cores` is NULL or a NUL-terminated string.
    (code == 0 && !cores.is_null()).then(|| unsafe { CStr::from_ptr(cores) }.to_string_lossy().into_owned())
}
