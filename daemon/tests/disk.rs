//! The daemon's disk, attacked and exhausted: a job's output is held to
//! one cap across its files, a job runs outside the state directory, and a
//! job that ends while the state disk is full is recorded once space
//! returns, never run again. Jobs run as a real unprivileged user
//! (`interstice-test-a`, as in `security.rs`) under a root daemon; as
//! anyone else the tests say so and pass.

mod common;

use common::users::{privileged, uid_of, USER_A as USER};
use interstice_api::client::{Client, DEFAULT_TIMEOUT};
use interstice_api::wire::JobView;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

const BIN: &str = env!("CARGO_BIN_EXE_intersticed");

/// A root daemon whose state directory is `dir/state` (made beforehand by
/// the test when it mounts something there), killed with its jobs on drop.
struct Daemon {
    dir: PathBuf,
    config: String,
    child: Option<Child>,
}

impl Daemon {
    /// Start with `execution` (the YAML mapping's contents).
    fn start(dir: &Path, execution: &str) -> Daemon {
        std::fs::set_permissions(dir, std::fs::Permissions::from_mode(0o755)).unwrap();
        let config = format!(
            "api: {{socket: {d}/d.sock}}\nstate_dir: {d}/state\n\
             engine: {{procs: 4, policy: conservative}}\nbackend: {{type: plugin}}\n\
             execution: {{grace_seconds: 1{sep}{execution}}}\nnode: {{busy_margin_cpus: 1000}}\n\
             log_level: info\n",
            d = dir.display(),
            sep = if execution.is_empty() { "" } else { ", " },
        );
        let mut daemon = Daemon {
            dir: dir.to_path_buf(),
            config,
            child: None,
        };
        daemon.restart();
        daemon
    }

    /// Kill the daemon (SIGKILL: a crash; its jobs run on).
    fn kill(&mut self) {
        if let Some(mut child) = self.child.take() {
            let _ = child.kill();
            let _ = child.wait();
        }
    }

    /// Start the daemon (again) and wait until it answers.
    fn restart(&mut self) {
        self.kill();
        std::fs::write(self.dir.join("d.yaml"), &self.config).unwrap();
        let log = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(self.dir.join("log"))
            .unwrap();
        let child = Command::new("sh")
            .arg("-c")
            .arg(format!(
                "umask 0007; exec {BIN} --config {}/d.yaml",
                self.dir.display()
            ))
            .stdout(Stdio::null())
            .stderr(log)
            .spawn()
            .unwrap();
        self.child = Some(child);
        let deadline = Instant::now() + Duration::from_secs(10);
        while self.root().health().is_err() {
            assert!(
                Instant::now() < deadline,
                "daemon did not come up: {}",
                self.log()
            );
            std::thread::sleep(Duration::from_millis(20));
        }
        std::fs::set_permissions(self.dir.join("d.sock"), std::fs::Permissions::from_mode(0o666)).unwrap();
    }

    fn log(&self) -> String {
        std::fs::read_to_string(self.dir.join("log")).unwrap_or_default()
    }

    fn state(&self) -> PathBuf {
        self.dir.join("state")
    }

    fn root(&self) -> Client {
        Client::new(self.dir.join("d.sock"), DEFAULT_TIMEOUT)
    }

    /// Submit `argv` as the test user (no workdir): the job's id.
    fn submitted(&self, argv: &[&str], walltime: f64) -> u64 {
        let body = format!(
            r#"{{"procs":1,"walltime":{walltime},"slo":600,"argv":{}}}"#,
            serde_json::to_string(argv).unwrap()
        );
        let output = common::users::as_user(USER)
            .args(["curl", "-s", "--unix-socket"])
            .arg(self.dir.join("d.sock"))
            .args(["-H", "Content-Type: application/json", "--data-binary", &body])
            .arg("http://localhost/v1/jobs")
            .output()
            .unwrap();
        let answer: serde_json::Value = serde_json::from_slice(&output.stdout)
            .unwrap_or_else(|err| panic!("{err}: {output:?}\n{}", self.log()));
        assert_eq!(answer["decision"], "accepted", "{answer}");
        answer["id"].as_u64().unwrap()
    }

    fn wait_for(&self, id: u64, timeout: Duration, done: impl Fn(&JobView) -> bool) -> JobView {
        let deadline = Instant::now() + timeout;
        loop {
            let view = self.root().job(id).unwrap();
            if done(&view) {
                return view;
            }
            assert!(
                Instant::now() < deadline,
                "job {id} stuck: {view:?}\n{}",
                self.log()
            );
            std::thread::sleep(Duration::from_millis(25));
        }
    }

    /// Wait until `path` (a job's working directory) is gone.
    fn wait_removed(&self, path: &Path, timeout: Duration) {
        let deadline = Instant::now() + timeout;
        while path.exists() {
            assert!(
                Instant::now() < deadline,
                "{} is still there\n{}",
                path.display(),
                self.log()
            );
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    fn output(&self, id: u64, name: &str) -> Vec<u8> {
        std::fs::read(self.state().join(format!("jobs/{id}/{name}"))).unwrap_or_default()
    }
}

impl Drop for Daemon {
    fn drop(&mut self) {
        if let Some(mut child) = self.child.take() {
            let _ = child.kill();
            let _ = child.wait();
        }
        interstice_daemon::exec::end_all_jobs(&self.state());
    }
}

#[test]
fn stdout_and_stderr_together_stop_at_the_per_job_cap() {
    if !privileged() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let cap: u64 = 1 << 20;
    let daemon = Daemon::start(dir.path(), &format!("max_output_bytes: {cap}"));
    // 1 MiB cap: 768 KiB to stdout, then 768 KiB to stderr (each under the
    // cap alone, over it together), then a marker that must never appear.
    let id = daemon.submitted(
        &[
            "/bin/sh",
            "-c",
            "head -c 786432 /dev/zero; head -c 786432 /dev/zero >&2; echo NOT-STOPPED >&2; sleep 30",
        ],
        60.0,
    );
    let view = daemon.wait_for(id, Duration::from_secs(20), |view| view.ended_at.is_some());
    let (out, err) = (daemon.output(id, "stdout"), daemon.output(id, "stderr"));
    let total = (out.len() + err.len()) as u64;
    assert!(total <= cap, "{total} bytes of output, over the {cap}-byte cap");
    assert!(total > cap - 1024, "output cut well before the cap: {total}");
    assert_eq!(out.len(), 786_432);
    let text = String::from_utf8_lossy(&err);
    assert!(
        text.contains("execution.max_output_bytes"),
        "no note: {}",
        &text[text.len().saturating_sub(200)..]
    );
    assert!(!text.contains("NOT-STOPPED"));
    // Stopped at the cap, not at its walltime: the writer got SIGPIPE.
    assert_eq!(view.state, "failed", "{view:?}");
    assert!(
        view.ended_at.unwrap() - view.started_at.unwrap() < 20.0,
        "{view:?}"
    );
}

#[test]
fn a_job_without_workdir_runs_outside_the_state_directory() {
    if !privileged() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let daemon = Daemon::start(dir.path(), "keep_work_dirs: true");
    let id = daemon.submitted(&["/bin/sh", "-c", "pwd; head -c 4096 /dev/zero > scratch"], 10.0);
    let view = daemon.wait_for(id, Duration::from_secs(10), |view| view.ended_at.is_some());
    assert_eq!(view.state, "completed", "{view:?}\n{}", daemon.log());
    let pwd = PathBuf::from(String::from_utf8_lossy(&daemon.output(id, "stdout")).trim());
    let state = daemon.state().canonicalize().unwrap();
    assert!(
        !pwd.starts_with(&state),
        "the job ran in {} inside {}",
        pwd.display(),
        state.display()
    );
    assert_eq!(pwd, dir.path().join(format!("state-work/{id}")));
    // What it wrote is there, its user's, not in the state directory.
    let scratch = std::fs::metadata(pwd.join("scratch")).unwrap();
    assert_eq!(
        std::os::unix::fs::MetadataExt::uid(&scratch),
        uid_of(USER).unwrap()
    );
    assert!(!daemon.state().join(format!("jobs/{id}/scratch")).exists());
}

/// The finding: three 60 MB jobs filled the file system and their files
/// stayed after they ended. A job's own working directory now goes once it
/// is over (cancelled too), as root but never through what the job planted:
/// a link to a directory it may not write, and what the link points to,
/// stay untouched.
#[test]
fn a_finished_jobs_own_working_directory_is_removed_never_through_its_links() {
    if !privileged() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let victim = dir.path().join("victim");
    std::fs::create_dir(&victim).unwrap();
    std::fs::write(victim.join("keep"), "root's").unwrap();
    let daemon = Daemon::start(dir.path(), "");
    let script = format!(
        "mkdir -p a/b && head -c 65536 /dev/zero > a/b/big && ln -s {v} a/link && ln -s {v}/keep k",
        v = victim.display()
    );
    let id = daemon.submitted(&["/bin/sh", "-c", &script], 10.0);
    let view = daemon.wait_for(id, Duration::from_secs(10), |view| view.ended_at.is_some());
    assert_eq!(view.state, "completed", "{view:?}\n{}", daemon.log());
    daemon.wait_removed(
        &dir.path().join(format!("state-work/{id}")),
        Duration::from_secs(10),
    );
    assert_eq!(std::fs::read_to_string(victim.join("keep")).unwrap(), "root's");
    // A cancelled job's too.
    let id = daemon.submitted(&["/bin/sh", "-c", "echo x > f; sleep 60"], 120.0);
    daemon.wait_for(id, Duration::from_secs(10), |view| view.pid.is_some());
    daemon.root().cancel(id).unwrap();
    daemon.wait_removed(
        &dir.path().join(format!("state-work/{id}")),
        Duration::from_secs(15),
    );
}

/// The finding: three 60 MB jobs in their own directories filled the disk
/// the daemon records on. A root daemon now holds each job's own directory
/// to `execution.work_dir_quota_mb` as a tmpfs of its own: the job gets
/// ENOSPC at its quota, and the directory and its mount go when it ends.
#[test]
fn a_job_writes_at_most_its_quota_in_its_own_directory() {
    if !privileged() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let daemon = Daemon::start(dir.path(), "work_dir_quota_mb: 1");
    let script = "head -c 2097152 /dev/zero > big; echo \"wrote=$?\"; stat -f -c %T .; stat -c %s big";
    let id = daemon.submitted(&["/bin/sh", "-c", script], 10.0);
    let view = daemon.wait_for(id, Duration::from_secs(10), |view| view.ended_at.is_some());
    let out = String::from_utf8_lossy(&daemon.output(id, "stdout")).to_string();
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(
        lines.first(),
        Some(&"wrote=1"),
        "{out}\n{view:?}\n{}",
        daemon.log()
    );
    assert_eq!(lines.get(1), Some(&"tmpfs"), "{out}");
    let size: u64 = lines
        .get(2)
        .and_then(|size| size.parse().ok())
        .unwrap_or(u64::MAX);
    assert!(size <= 1 << 20, "{size} bytes written past a 1 MiB quota");
    daemon.wait_removed(
        &dir.path().join(format!("state-work/{id}")),
        Duration::from_secs(10),
    );
    assert_eq!(
        interstice_daemon::exec::mount_points_under(dir.path()),
        Vec::<PathBuf>::new(),
        "a mount left behind"
    );
}

/// A daemon that stopped between a job's end and the removal of its
/// directory left the directory's tmpfs mounted, holding memory: the next
/// start removes what no live job owns, and leaves a name that is not a
/// job's alone.
#[test]
fn a_start_removes_the_working_directories_of_jobs_that_are_over() {
    if !privileged() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let work = dir.path().join("state-work");
    std::fs::create_dir(&work).unwrap();
    let (stale, other) = (work.join("41"), work.join("notes"));
    std::fs::create_dir(&stale).unwrap();
    std::fs::create_dir(&other).unwrap();
    let status = Command::new("mount")
        .args(["-t", "tmpfs", "-o", "size=1m", "tmpfs"])
        .arg(&stale)
        .status()
        .unwrap();
    assert!(status.success(), "mount -t tmpfs failed");
    std::fs::write(stale.join("left"), "x").unwrap();
    let daemon = Daemon::start(dir.path(), "");
    daemon.wait_removed(&stale, Duration::from_secs(10));
    assert_eq!(
        interstice_daemon::exec::mount_points_under(dir.path()),
        Vec::<PathBuf>::new(),
        "a mount left behind"
    );
    assert!(other.exists(), "a directory that is no job's was removed");
}

/// `intersticed --check-config` on `config` (`{d}`: a fresh directory):
/// must fail; what it said.
fn refused_config(config: &str) -> String {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("d.yaml");
    std::fs::write(&path, config.replace("{d}", &dir.path().display().to_string())).unwrap();
    let output = Command::new(BIN)
        .args(["--config", &path.display().to_string(), "--check-config"])
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&output.stderr).to_string();
    assert!(!output.status.success(), "{err}");
    err
}

/// Without a quota, a root daemon refuses a work_root on the state's disk.
#[test]
fn a_work_root_on_the_state_disk_without_a_quota_is_refused() {
    if !privileged() {
        return;
    }
    let err = refused_config(
        "api: {socket: {d}/d.sock}\nstate_dir: {d}/state\nengine: {procs: 4}\n\
         backend: {type: plugin}\nexecution: {work_dir_quota_mb: null}\n",
    );
    assert!(
        err.contains("execution.work_root") && err.contains("work_dir_quota_mb"),
        "{err}"
    );
}

#[test]
fn a_work_root_inside_the_state_directory_is_refused() {
    let err = refused_config("state_dir: {d}/state\nexecution: {work_root: {d}/state/work}\n");
    assert!(
        err.contains("execution.work_root") && err.contains("inside state_dir"),
        "{err}"
    );
}

/// A small tmpfs mounted on `dir/state` (the daemon's state directory),
/// unmounted on drop.
struct SmallDisk(PathBuf);

impl SmallDisk {
    fn mount(dir: &Path) -> SmallDisk {
        let state = dir.join("state");
        std::fs::create_dir(&state).unwrap();
        let status = Command::new("mount")
            .args(["-t", "tmpfs", "-o", "size=4m,mode=0711", "tmpfs"])
            .arg(&state)
            .status()
            .unwrap();
        assert!(status.success(), "mount -t tmpfs failed");
        SmallDisk(state)
    }

    /// Fill it up (as root): every page taken, as a runaway writer leaves it.
    fn fill(&self) {
        use std::io::Write;
        let mut filler = std::fs::File::create(self.0.join("filler")).unwrap();
        let chunk = vec![0u8; 4096];
        while filler.write_all(&chunk).is_ok() {}
        let _ = filler.sync_all();
        assert!(
            std::fs::write(self.0.join("probe"), b"x").is_err(),
            "the disk is not full"
        );
    }

    fn free(&self) {
        std::fs::remove_file(self.0.join("filler")).unwrap();
    }
}

impl Drop for SmallDisk {
    fn drop(&mut self) {
        let _ = Command::new("umount").arg("-l").arg(&self.0).status();
    }
}

/// Start a job that counts its runs in its working directory, fill the
/// state disk while it runs and wait until its process has ended: the job's
/// id and its runs file.
fn a_job_ends_on_a_full_disk(daemon: &Daemon, disk: &SmallDisk) -> (u64, PathBuf) {
    let id = daemon.submitted(&["/bin/sh", "-c", "echo run >> runs; sleep 2"], 30.0);
    let view = daemon.wait_for(id, Duration::from_secs(10), |view| view.pid.is_some());
    // Once the job runs (its wrapper has removed the environment file, and
    // freed its page), nothing on the disk is freed until the job ends.
    let runs = daemon.dir.join(format!("state-work/{id}/runs"));
    let deadline = Instant::now() + Duration::from_secs(10);
    while !runs.exists() {
        assert!(Instant::now() < deadline, "job {id} did not run");
        std::thread::sleep(Duration::from_millis(10));
    }
    disk.fill();
    let proc = PathBuf::from(format!("/proc/{}", view.pid.unwrap()));
    let deadline = Instant::now() + Duration::from_secs(10);
    while proc.exists() {
        assert!(Instant::now() < deadline, "job {id} did not end");
        std::thread::sleep(Duration::from_millis(25));
    }
    // The daemon reaps it and tries to record its end: the store is full.
    std::thread::sleep(Duration::from_millis(1500));
    let view = daemon.root().job(id).unwrap();
    assert_eq!(
        view.state, "running",
        "the end was stored on a full disk? {view:?}"
    );
    (id, runs)
}

#[test]
fn an_end_seen_on_a_full_disk_is_recorded_once_space_returns() {
    if !privileged() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let disk = SmallDisk::mount(dir.path());
    let daemon = Daemon::start(dir.path(), "keep_work_dirs: true");
    let (id, runs) = a_job_ends_on_a_full_disk(&daemon, &disk);
    disk.free();
    let view = daemon.wait_for(id, Duration::from_secs(10), |view| view.ended_at.is_some());
    assert_eq!(view.state, "completed", "{view:?}\n{}", daemon.log());
    assert_eq!(view.pid, None);
    assert_eq!(std::fs::read_to_string(&runs).unwrap(), "run\n");
}

#[test]
fn a_restart_never_runs_again_a_job_that_ended_on_a_full_disk() {
    if !privileged() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let disk = SmallDisk::mount(dir.path());
    let mut daemon = Daemon::start(dir.path(), "keep_work_dirs: true");
    let (id, runs) = a_job_ends_on_a_full_disk(&daemon, &disk);
    // The daemon dies before space returns: only the job's status file
    // knows how it ended.
    daemon.kill();
    disk.free();
    daemon.restart();
    let view = daemon.wait_for(id, Duration::from_secs(10), |view| view.ended_at.is_some());
    assert_eq!(view.state, "completed", "{view:?}\n{}", daemon.log());
    // Give a wrongly requeued run the time to start and count itself.
    std::thread::sleep(Duration::from_millis(1500));
    assert_eq!(
        std::fs::read_to_string(&runs).unwrap(),
        "run\n",
        "{}",
        daemon.log()
    );
    assert_eq!(daemon.root().job(id).unwrap().state, "completed");
}
