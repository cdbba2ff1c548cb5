//! The `slurm_spank_*` entry points. Each catches panics and returns 0
//! unless the user gave a bad option value (then sbatch reports it).

use std::ffi::{c_char, c_int, CStr};
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::Mutex;
use std::time::Duration;

use interstice_api::slurm::{parse_class, parse_slo, planned_walltime};
use interstice_api::wire::{EventKind, HpcEventRequest};
use interstice_api::Client;

use crate::args::{
    count_procs, cpus_to_interval_set, parse_job_details, Args, ArgsError, JobDetails, NodeShare,
};
use crate::slurm::{self, Context, Spank, SpankOption};

const OPT_SLO: c_int = 1;
const OPT_EVICTABLE: c_int = 2;
const OPT_CLASS: c_int = 3;

static SLO_OPTION: SpankOption = SpankOption {
    name: c"slo".as_ptr(),
    arginfo: c"SECONDS".as_ptr(),
    usage: c"Evictable cloud job: agreed maximum response time in seconds (Interstice admission)".as_ptr(),
    has_arg: 1,
    val: OPT_SLO,
    cb: Some(option_callback),
};

static EVICTABLE_OPTION: SpankOption = SpankOption {
    name: c"evictable".as_ptr(),
    arginfo: std::ptr::null(),
    usage: c"Run as an evictable cloud job in the holes of the HPC schedule (Interstice)".as_ptr(),
    has_arg: 0,
    val: OPT_EVICTABLE,
    cb: Some(option_callback),
};

static CLASS_OPTION: SpankOption = SpankOption {
    name: c"class".as_ptr(),
    arginfo: c"NAME".as_ptr(),
    usage: c"Evictable cloud job: its service class (e.g. gold, silver, bronze; Interstice)".as_ptr(),
    has_arg: 1,
    val: OPT_CLASS,
    cb: Some(option_callback),
};

#[derive(Default)]
struct Options {
    slo: Option<u64>,
    evictable: bool,
    class: Option<String>,
}

static OPTIONS: Mutex<Options> = Mutex::new(Options {
    slo: None,
    evictable: false,
    class: None,
});

unsafe extern "C" fn option_callback(val: c_int, optarg: *const c_char, _remote: c_int) -> c_int {
    catch_unwind(|| {
        let mut options = OPTIONS.lock().unwrap_or_else(|p| p.into_inner());
        // SAFETY: Slurm passes the option's NUL-terminated argument (or NULL).
        let text = if optarg.is_null() {
            String::new()
        } else {
            unsafe { CStr::from_ptr(optarg) }.to_string_lossy().into_owned()
        };
        match val {
            OPT_SLO => match parse_slo(&text) {
                Ok(seconds) => {
                    options.slo = Some(seconds);
                    0
                }
                Err(error) => {
                    slurm::error(&format!("spank_interstice: {error}"));
                    -1
                }
            },
            OPT_EVICTABLE => {
                options.evictable = true;
                0
            }
            OPT_CLASS => match parse_class(&text) {
                Ok(class) => {
                    options.class = Some(class);
                    0
                }
                Err(error) => {
                    slurm::error(&format!("spank_interstice: {error}"));
                    -1
                }
            },
            _ => 0,
        }
    })
    .unwrap_or(-1)
}

unsafe fn plugin_args(ac: c_int, av: *mut *mut c_char) -> Result<Args, ArgsError> {
    let mut words = Vec::new();
    for index in 0..usize::try_from(ac).unwrap_or(0) {
        let word = *av.add(index);
        if !word.is_null() {
            words.push(CStr::from_ptr(word).to_string_lossy().into_owned());
        }
    }
    Args::parse(words.iter().map(String::as_str))
}

/// Registers the options.
///
/// # Safety
/// Called by Slurm with a valid handle and argument vector.
#[no_mangle]
pub unsafe extern "C" fn slurm_spank_init(spank: Spank, ac: c_int, av: *mut *mut c_char) -> c_int {
    catch_unwind(AssertUnwindSafe(|| {
        if crate::SLURM_VERSION_NUMBER == 0 {
            slurm::error(&format!(
                "spank_interstice: built without Slurm headers (looked in {}); rebuild with libslurm-dev installed",
                env!("INTERSTICE_SLURM_HEADERS")
            ));
            return -1;
        }
        if let Err(error) = plugin_args(ac, av) {
            slurm::error(&format!("spank_interstice: {error}"));
            return -1;
        }
        for option in [&SLO_OPTION, &EVICTABLE_OPTION, &CLASS_OPTION] {
            // Registration is refused in some contexts (slurmd); that is harmless.
            let _ = slurm::option_register(spank, option);
        }
        0
    }))
    .unwrap_or(0)
}

/// Passes the options to the job (sbatch/salloc/srun).
///
/// # Safety
/// Called by Slurm with a valid handle.
#[no_mangle]
pub unsafe extern "C" fn slurm_spank_init_post_opt(spank: Spank, _ac: c_int, _av: *mut *mut c_char) -> c_int {
    catch_unwind(AssertUnwindSafe(|| {
        if !matches!(slurm::context(), Context::Local | Context::Allocator) {
            return 0;
        }
        let options = OPTIONS.lock().unwrap_or_else(|p| p.into_inner());
        let mut failed = false;
        if let Some(slo) = options.slo {
            failed |= slurm::job_control_setenv(spank, "INTERSTICE_SLO", &slo.to_string()).is_err();
        }
        if let Some(class) = &options.class {
            failed |= slurm::job_control_setenv(spank, "INTERSTICE_CLASS", class).is_err();
        }
        if options.evictable || options.slo.is_some() || options.class.is_some() {
            failed |= slurm::job_control_setenv(spank, "INTERSTICE_EVICTABLE", "1").is_err();
        }
        if failed {
            slurm::error(
                "spank_interstice: could not pass --slo/--evictable/--class to the job (spank_job_control_setenv)",
            );
            return -1;
        }
        0
    }))
    .unwrap_or(0)
}

/// Tells the node daemon an HPC job takes processors here.
///
/// # Safety
/// Called by slurmd with a valid handle and argument vector.
#[no_mangle]
pub unsafe extern "C" fn slurm_spank_job_prolog(spank: Spank, ac: c_int, av: *mut *mut c_char) -> c_int {
    let _ = catch_unwind(AssertUnwindSafe(|| report(spank, ac, av, EventKind::Started)));
    0
}

/// Tells the node daemon an HPC job released its processors here.
///
/// # Safety
/// Called by slurmd with a valid handle and argument vector.
#[no_mangle]
pub unsafe extern "C" fn slurm_spank_job_epilog(spank: Spank, ac: c_int, av: *mut *mut c_char) -> c_int {
    let _ = catch_unwind(AssertUnwindSafe(|| report(spank, ac, av, EventKind::Ended)));
    0
}

unsafe fn report(spank: Spank, ac: c_int, av: *mut *mut c_char, kind: EventKind) {
    let args = match plugin_args(ac, av) {
        Ok(args) => args,
        Err(error) => return slurm::error(&format!("spank_interstice: {error}")),
    };
    if !args.report {
        return;
    }
    let env = |name: &str| std::env::var(name).ok().filter(|value| !value.is_empty());
    if env("SPANK_INTERSTICE_EVICTABLE").is_some()
        || env("SLURM_JOB_PARTITION").is_some_and(|partition| args.is_cloud_partition(&partition))
    {
        return; // cloud work is the daemon's own, not an HPC job
    }
    let Some(job_id) = slurm::job_id(spank)
        .map(|id| id.to_string())
        .or_else(|| env("SLURM_JOB_ID"))
    else {
        return slurm::error("spank_interstice: job prolog/epilog without a job id");
    };
    let node = this_node();
    let Some(socket) = args.socket_on(node.as_deref()) else {
        return slurm::error(&format!(
            "spank_interstice: job {job_id} {kind} not reported: socket={} needs this node's name (%n) \
             and SLURMD_NODENAME is not set",
            args.socket.display()
        ));
    };
    // The prolog/epilog environment carries neither the cores nor the time
    // limit (checked on Slurm 22.05): ask slurmctld, bounded by the same
    // timeout. The epilog too: the daemon refuses an event without a
    // positive walltime, ended ones included (the job is still known to
    // slurmctld while its epilog runs).
    let details = job_details(&job_id, args.timeout).unwrap_or_default();
    let share = match slurm::job_alloc_cores(spank) {
        Some(cores) => {
            let cpus = cpus_to_interval_set(&cores);
            NodeShare {
                procs: count_procs(&cpus),
                cpus: Some(cpus),
            }
        }
        None => match details.share_on(node.as_deref()) {
            Ok(share) => share,
            Err(error) => {
                return slurm::error(&format!(
                    "spank_interstice: job {job_id} {kind} not reported: {error}"
                ))
            }
        },
    };
    let NodeShare { cpus, procs } = share;
    // A job without a limit (or whose limit scontrol did not tell) holds
    // its processors until its epilog reports it ended.
    let walltime = planned_walltime(details.time_limit_seconds) as f64;
    let event = HpcEventRequest {
        kind,
        id: job_id.clone(),
        procs,
        walltime,
        time: None,
        cpus: cpus.clone(),
    };
    let client = Client::new(&socket, args.timeout.max(Duration::from_millis(1)));
    match client.hpc_event(&event) {
        Ok(answer) => slurm::info(&format!(
            "spank_interstice: job {job_id} {kind} on node {} cpus {} ({procs}) reported to {}; daemon evicted {} cloud job(s)",
            node.as_deref().unwrap_or("?"),
            cpus.as_deref().unwrap_or("?"),
            socket.display(),
            answer.evicted.len()
        )),
        Err(error) => slurm::error(&format!(
            "spank_interstice: job {job_id} {kind} not reported: {error}"
        )),
    }
}

/// Runs `scontrol -o -d show job ID`, killed if it outlives `timeout` or
/// prints more than [`JOB_DETAILS_LIMIT`].
fn job_details(job_id: &str, timeout: Duration) -> Option<JobDetails> {
    use interstice_api::command::run_bounded;
    use std::process::{Command, Stdio};
    let mut command = Command::new("scontrol");
    command
        .args(["-o", "-d", "show", "job", job_id])
        .stdin(Stdio::null());
    match run_bounded(&mut command, timeout, JOB_DETAILS_LIMIT) {
        Ok(output) => Some(parse_job_details(&String::from_utf8_lossy(&output.stdout))),
        Err(err) => {
            slurm::error(&format!("spank_interstice: scontrol show job {job_id}: {err}"));
            None
        }
    }
}

/// The most `scontrol -o -d show job` may print for one job.
const JOB_DETAILS_LIMIT: usize = 4 << 20;

/// This node's Slurm name: `SLURMD_NODENAME`, which slurmd puts in the
/// prolog/epilog environment (SPANK has no item for it), else the short
/// host name (the node name on most clusters). `None` when neither is known.
fn this_node() -> Option<String> {
    std::env::var("SLURMD_NODENAME")
        .ok()
        .or_else(|| std::fs::read_to_string("/proc/sys/kernel/hostname").ok())
        .map(|name| name.trim().split('.').next().unwrap_or_default().to_string())
        .filter(|name| !name.is_empty())
}
