//! The exec wrapper, `intersticed __exec-job [NAME=VALUE...] -- argv...`
//! (see `crate::exec`'s docs): step by step, as root it joins the job's
//! cgroups, pins itself to the job's CPUs (`cpus=`), sets the resource
//! limits, reads the job's environment and becomes the
//! job's user; as that user it opens the output files, enters the working
//! directory and runs the job as its child, copying its stdout and stderr
//! into the output files under the per-job cap ([`super::output`]); then it
//! records how the job ended in the status file (its stdin) and exits the
//! same way.

use nix::sys::resource::setrlimit;
use std::fs::{File, OpenOptions};
use std::io::Write;
use std::os::fd::AsFd;
use std::os::unix::fs::OpenOptionsExt;
use std::os::unix::process::ExitStatusExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use super::output;

/// The hidden first argument that turns `intersticed` into the exec wrapper.
pub const EXEC_WRAPPER_ARG: &str = "__exec-job";

/// The wrapper's settings (`NAME=VALUE` before `--`).
#[derive(Default)]
struct WrapperSettings {
    limits: Vec<(nix::sys::resource::Resource, &'static str, u64)>,
    cgroups: Vec<PathBuf>,
    cpus: Option<Vec<u32>>,
    uid: Option<u32>,
    gid: Option<u32>,
    stdout: Option<PathBuf>,
    stderr: Option<PathBuf>,
    workdir: Option<PathBuf>,
    env: Option<PathBuf>,
    /// The most bytes stdout and stderr may hold together.
    output_cap: Option<u64>,
}

impl WrapperSettings {
    fn parse(args: &[String]) -> Result<WrapperSettings, String> {
        use nix::sys::resource::Resource;
        let mut settings = WrapperSettings::default();
        for arg in args {
            let Some((name, value)) = arg.split_once('=') else {
                return Err(format!("bad setting {arg:?}"));
            };
            let number = || {
                value
                    .parse::<u64>()
                    .map_err(|_| format!("bad value {value:?} for {name}"))
            };
            let limit = |resource, name| -> Result<_, String> { Ok((resource, name, number()?)) };
            match name {
                "NOFILE" => settings.limits.push(limit(Resource::RLIMIT_NOFILE, "NOFILE")?),
                "AS" => settings.limits.push(limit(Resource::RLIMIT_AS, "AS")?),
                "CORE" => settings.limits.push(limit(Resource::RLIMIT_CORE, "CORE")?),
                "NPROC" => settings.limits.push(limit(Resource::RLIMIT_NPROC, "NPROC")?),
                "FSIZE" => settings.limits.push(limit(Resource::RLIMIT_FSIZE, "FSIZE")?),
                "cgroup" => settings.cgroups.push(PathBuf::from(value)),
                "cpus" => {
                    let cpus = crate::cgroup::parse_cpu_list(value)
                        .ok_or_else(|| format!("bad value {value:?} for cpus"))?;
                    settings.cpus = Some(cpus);
                }
                "uid" => settings.uid = Some(number()? as u32),
                "gid" => settings.gid = Some(number()? as u32),
                "stdout" => settings.stdout = Some(PathBuf::from(value)),
                "stderr" => settings.stderr = Some(PathBuf::from(value)),
                "workdir" => settings.workdir = Some(PathBuf::from(value)),
                "env" => settings.env = Some(PathBuf::from(value)),
                "output_cap" => settings.output_cap = Some(number()?),
                _ => return Err(format!("unknown setting {name:?}")),
            }
        }
        Ok(settings)
    }
}

/// A job's output file, opened as the job's user: created 0600, appended
/// to, never through a symlink.
fn open_output(path: &Path) -> std::io::Result<std::fs::File> {
    OpenOptions::new()
        .create(true)
        .append(true)
        .mode(0o600)
        .custom_flags(nix::libc::O_NOFOLLOW)
        .open(path)
}

/// Read (and remove) the job's environment file the daemon wrote
/// (`write_env_file`: NUL-terminated `NAME=VALUE` entries).
fn read_env_file(path: &Path) -> std::io::Result<Vec<(String, String)>> {
    use std::io::Read;
    let mut text = Vec::new();
    OpenOptions::new()
        .read(true)
        .custom_flags(nix::libc::O_NOFOLLOW)
        .open(path)?
        .read_to_end(&mut text)?;
    let _ = std::fs::remove_file(path);
    Ok(text
        .split(|&byte| byte == 0)
        .filter(|entry| !entry.is_empty())
        .filter_map(|entry| {
            let entry = String::from_utf8_lossy(entry);
            let (name, value) = entry.split_once('=')?;
            Some((name.to_string(), value.to_string()))
        })
        .collect())
}

/// What the root steps leave for the job: its argv, its environment, its
/// output files (opened as the job's user) and its working directory.
struct Prepared<'a> {
    argv: &'a [String],
    env: Vec<(String, String)>,
    stdout: Option<File>,
    stderr: Option<File>,
    workdir: Option<PathBuf>,
    output_cap: Option<u64>,
}

/// The wrapper: `intersticed __exec-job [NAME=VALUE...] -- argv...`, with
/// the job's status file as stdin (see the module docs). Returns the exit
/// code to leave with (a job killed by a signal is re-raised instead).
pub fn exec_wrapper(args: &[String]) -> i32 {
    let Prepared {
        argv,
        env,
        stdout,
        stderr,
        workdir,
        output_cap,
    } = match prepare(args) {
        Ok(prepared) => prepared,
        Err(err) => {
            eprintln!("intersticed {EXEC_WRAPPER_ARG}: {err}");
            return 127;
        }
    };
    let complaints = stderr.as_ref().and_then(|file| file.try_clone().ok());
    let complain = |message: String| complain(complaints.as_ref(), message);
    let Some(program) = argv.first() else {
        complain(format!("intersticed {EXEC_WRAPPER_ARG}: empty argv"));
        return 127;
    };
    let mut status_file = std::io::stdin().as_fd().try_clone_to_owned().map(File::from).ok();
    leave_group_signals_to_the_job();
    let mut command = Command::new(program);
    command
        .env_clear()
        .envs(env)
        .args(&argv[1..])
        .stdin(Stdio::null());
    let copiers = match (stdout, stderr) {
        (Some(stdout), Some(stderr)) => match output::capped(stdout, stderr, output_cap) {
            Ok((stdout, stderr, copiers)) => {
                command.stdout(stdout).stderr(stderr);
                Some(copiers)
            }
            Err(err) => {
                complain(format!(
                    "intersticed {EXEC_WRAPPER_ARG}: cannot pipe the job's output: {err}"
                ));
                return 127;
            }
        },
        (stdout, stderr) => {
            command.stdout(stdout.map_or_else(Stdio::inherit, Stdio::from));
            if let Some(stderr) = stderr {
                command.stderr(stderr);
            }
            None
        }
    };
    let (record, exit) = run_job(&mut command, workdir.as_deref(), program, &complain);
    if let Some(copiers) = copiers {
        copiers.finish();
    }
    if let Some(file) = status_file.as_mut() {
        record_end(file, &record);
    }
    match exit {
        Ok(code) => code,
        Err(signal) => {
            let _ = signal_hook::low_level::emulate_default_handler(signal);
            128 + signal
        }
    }
}

/// The steps before the job's argv is looked at: the settings, the root
/// steps ([`become_the_job`]) and the output files. An error is the
/// message after `intersticed __exec-job: `.
fn prepare(args: &[String]) -> Result<Prepared<'_>, String> {
    let Some(split) = args.iter().position(|arg| arg == "--") else {
        return Err("missing -- before the job's argv".to_string());
    };
    let settings = WrapperSettings::parse(&args[..split])?;
    let env = become_the_job(&settings)?;
    let (stdout, stderr) = open_outputs(&settings)?;
    Ok(Prepared {
        argv: &args[split + 1..],
        env,
        stdout,
        stderr,
        workdir: settings.workdir,
        output_cap: settings.output_cap,
    })
}

/// The root steps, in order: into the job's cgroups first (everything the
/// job starts is in them), onto its CPUs, the resource limits, the job's
/// environment (read and removed while still root: it is given to the job
/// only, never to this process), then the job's user. Returns the
/// environment.
fn become_the_job(settings: &WrapperSettings) -> Result<Vec<(String, String)>, String> {
    for procs in &settings.cgroups {
        std::fs::write(procs, std::process::id().to_string())
            .map_err(|err| format!("cannot join {}: {err}", procs.display()))?;
    }
    if let Some(cpus) = &settings.cpus {
        pin(cpus)?;
    }
    for (resource, name, value) in &settings.limits {
        setrlimit(*resource, *value, *value).map_err(|err| format!("cannot set {name}={value}: {err}"))?;
    }
    let env = match &settings.env {
        Some(path) => read_env_file(path)
            .map_err(|err| format!("cannot read the job's environment {}: {err}", path.display()))?,
        None => Vec::new(),
    };
    if let (Some(uid), Some(gid)) = (settings.uid, settings.gid) {
        crate::identity::drop_to(uid, gid).map_err(|err| format!("cannot become uid {uid}: {err}"))?;
    }
    Ok(env)
}

/// Run on `cpus` only (`sched_setaffinity`, which the job's children
/// inherit): the cpuset confines the job too where the node has one; this
/// pins it where it has none, and the moment it starts where it has.
fn pin(cpus: &[u32]) -> Result<(), String> {
    let mut set = nix::sched::CpuSet::new();
    for &cpu in cpus {
        set.set(cpu as usize)
            .map_err(|err| format!("cannot pin to CPU {cpu}: {err}"))?;
    }
    nix::sched::sched_setaffinity(nix::unistd::Pid::from_raw(0), &set)
        .map_err(|err| format!("cannot pin to CPUs {}: {err}", crate::cgroup::cpu_list(cpus)))
}

/// The job's stdout and stderr files, opened as the job's user (none
/// given: the wrapper's own stdout, and no stderr file).
fn open_outputs(settings: &WrapperSettings) -> Result<(Option<File>, Option<File>), String> {
    let open = |path: &Option<PathBuf>| {
        path.as_deref()
            .map(|path| {
                open_output(path)
                    .map_err(|err| format!("cannot open the job's output: {}: {err}", path.display()))
            })
            .transpose()
    };
    Ok((open(&settings.stdout)?, open(&settings.stderr)?))
}

/// Tell the job's user about a failure: into the job's stderr file when it
/// has one, else to the wrapper's own stderr.
fn complain(stderr: Option<&File>, message: String) {
    match stderr {
        Some(mut file) => {
            let _ = writeln!(file, "{message}");
        }
        None => eprintln!("{message}"),
    }
}

/// Signals for the job's group are the job's to handle: the wrapper stays
/// to record how it ended (the job gets default dispositions).
fn leave_group_signals_to_the_job() {
    for signal in [
        signal_hook::consts::SIGTERM,
        signal_hook::consts::SIGINT,
        signal_hook::consts::SIGHUP,
    ] {
        let _ = signal_hook::flag::register(
            signal,
            std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false)),
        );
    }
}

/// Enter `workdir` and run the job to its end: the status file's record
/// (`exit N` or `signal N`) and how to leave (`Ok(code)`, or `Err(signal)`
/// to re-raise). A workdir or program that fails is told to the job's user
/// and recorded as `exit 127`.
fn run_job(
    command: &mut Command,
    workdir: Option<&Path>,
    program: &str,
    complain: &dyn Fn(String),
) -> (String, Result<i32, i32>) {
    let entered = match workdir {
        Some(dir) => std::env::set_current_dir(dir).map_err(|_| {
            format!(
                "interstice: cannot enter workdir {}: not found or not accessible",
                dir.display()
            )
        }),
        None => Ok(()),
    };
    let waited = entered.map(|()| {
        let mut child = command.spawn()?;
        // The command holds the pipes' write ends: closed here, the copiers
        // see the end of the output when the job (and what it left) closes its own.
        command.stdout(Stdio::null()).stderr(Stdio::null());
        child.wait()
    });
    match waited {
        Ok(Ok(status)) => match (status.code(), status.signal()) {
            (Some(code), _) => (format!("exit {code}"), Ok(code)),
            (None, Some(signal)) => (format!("signal {signal}"), Err(signal)),
            (None, None) => ("exit 127".to_string(), Ok(127)),
        },
        Ok(Err(err)) => {
            complain(format!("interstice: cannot execute {program:?}: {err}"));
            ("exit 127".to_string(), Ok(127))
        }
        Err(message) => {
            complain(message);
            ("exit 127".to_string(), Ok(127))
        }
    }
}

/// Write how the job ended and when (Unix seconds) to its status file, and
/// sync it: the daemon reads it even after a crash.
fn record_end(file: &mut File, record: &str) {
    let ended_at = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0.0, |elapsed| elapsed.as_secs_f64());
    let _ = writeln!(file, "{record} {ended_at:.6}").and_then(|()| file.sync_data());
}
