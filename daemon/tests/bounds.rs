//! Bounds a local user cannot push the daemon past (issue 42): the memory a
//! `GET /v1/jobs` connection holds, the rejected submissions one user leaves
//! stored, the state directory's lock and the state directory itself. Each
//! test is the attack, made by an unprivileged user the tests create
//! (`interstice-test-a`, `setpriv` + `curl --unix-socket`) on a root daemon
//! started under a 022 umask (the finding's). They need root; as anyone
//! else they say so and pass.

mod common;

use common::users::{privileged, uid_of, USER_A as USER};
use interstice_api::client::{Client, DEFAULT_TIMEOUT};
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

const BIN: &str = env!("CARGO_BIN_EXE_intersticed");

/// `args` run as the test user (`setpriv`).
fn as_user(args: &[&str]) -> Command {
    let mut command = common::users::as_user(USER);
    command.args(args);
    command
}

/// A root daemon in a temp dir (state in `<dir>/state`, unless the config
/// says otherwise) whose socket the test user can reach; killed on drop.
struct Daemon {
    dir: tempfile::TempDir,
    child: Option<Child>,
}

impl Daemon {
    /// A temp dir with the daemon's config, `more` YAML appended (`{d}` is
    /// the dir); not started.
    fn configured(more: &str) -> Daemon {
        let dir = tempfile::tempdir().unwrap();
        std::fs::set_permissions(dir.path(), std::fs::Permissions::from_mode(0o755)).unwrap();
        let d = dir.path().display().to_string();
        let state = if more.contains("state_dir:") {
            String::new()
        } else {
            format!("state_dir: {d}/state\n")
        };
        let config = format!(
            "api: {{socket: {d}/d.sock}}\n{state}engine: {{procs: 4, policy: conservative}}\n\
             backend: {{type: plugin}}\nexecution: {{grace_seconds: 1}}\nnode: {{busy_margin_cpus: 1000}}\n\
             log_level: info\n{}",
            more.replace("{d}", &d)
        );
        std::fs::write(dir.path().join("d.yaml"), config).unwrap();
        Daemon { dir, child: None }
    }

    /// Start it (under umask 022); wait until it answers or exits: its
    /// exit status's text and log if it exited.
    fn start(&mut self) -> Result<(), String> {
        let log = std::fs::File::create(self.dir.path().join("log")).unwrap();
        let mut child = Command::new("sh")
            .arg("-c")
            .arg(format!(
                "umask 022; exec {BIN} --config {}/d.yaml",
                self.dir.path().display()
            ))
            .stdout(Stdio::null())
            .stderr(log)
            .spawn()
            .unwrap();
        let deadline = Instant::now() + Duration::from_secs(20);
        while self.root().health().is_err() {
            if let Ok(Some(status)) = child.try_wait() {
                return Err(format!("exited with {status}: {}", self.log()));
            }
            assert!(
                Instant::now() < deadline,
                "daemon did not come up: {}",
                self.log()
            );
            std::thread::sleep(Duration::from_millis(20));
        }
        std::fs::set_permissions(self.socket(), std::fs::Permissions::from_mode(0o666)).unwrap();
        self.child = Some(child);
        Ok(())
    }

    fn started(more: &str) -> Daemon {
        let mut daemon = Daemon::configured(more);
        daemon.start().unwrap();
        daemon
    }

    /// SIGTERM and wait for the exit.
    fn stop(&mut self) {
        if let Some(mut child) = self.child.take() {
            let pid = nix::unistd::Pid::from_raw(child.id() as i32);
            let _ = nix::sys::signal::kill(pid, nix::sys::signal::Signal::SIGTERM);
            let _ = child.wait();
        }
    }

    fn pid(&self) -> u32 {
        self.child.as_ref().unwrap().id()
    }

    fn log(&self) -> String {
        std::fs::read_to_string(self.dir.path().join("log")).unwrap_or_default()
    }

    fn socket(&self) -> PathBuf {
        self.dir.path().join("d.sock")
    }

    fn state(&self) -> PathBuf {
        self.dir.path().join("state")
    }

    fn root(&self) -> Client {
        Client::new(self.socket(), DEFAULT_TIMEOUT)
    }

    /// `curl` as the test user on the daemon's socket, with `args` before the URL of `path`.
    fn curl(&self, args: &[&str], path: &str) -> Command {
        let mut command = as_user(&["curl", "-s", "--unix-socket"]);
        command
            .arg(self.socket())
            .args(args)
            .arg(format!("http://localhost{path}"));
        command
    }

    /// `method path [body]` as the test user: (HTTP status, body).
    fn ask(&self, method: &str, path: &str, body: Option<&str>) -> (u16, String) {
        let mut args = vec![
            "-X",
            method,
            "-w",
            "\n%{http_code}",
            "-H",
            "Content-Type: application/json",
        ];
        if let Some(body) = body {
            args.extend(["--data-binary", body]);
        }
        let output = self.curl(&args, path).output().unwrap();
        let text = String::from_utf8_lossy(&output.stdout).to_string();
        let (body, status) = text.rsplit_once('\n').unwrap_or(("", &text));
        let status = status.trim().parse();
        (
            status.unwrap_or_else(|_| panic!("no status from curl: {text:?}")),
            body.to_string(),
        )
    }
}

impl Drop for Daemon {
    fn drop(&mut self) {
        if let Some(mut child) = self.child.take() {
            let _ = child.kill();
            let _ = child.wait();
        }
    }
}

/// Resident memory of process `pid`, bytes.
fn rss(pid: u32) -> u64 {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap();
    let line = status.lines().find(|line| line.starts_with("VmRSS:")).unwrap();
    let kib: u64 = line.split_whitespace().nth(1).unwrap().parse().unwrap();
    kib << 10
}

/// Store `count` ended jobs of `uid` each with `argv_bytes` of argv in the
/// stopped daemon's database: what a user's submissions leave over weeks,
/// written at once.
/// `count` jobs of `uid`, each with `argv_bytes` of argv, that ended in the
/// last day (within `store.finished_retention_seconds`: kept at start).
fn store_ended_jobs(db: &Path, uid: u32, count: u64, argv_bytes: usize) {
    let day_ago = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_secs_f64()
        - 86_400.0;
    let mut conn = rusqlite::Connection::open(db).unwrap();
    let tx = conn.transaction().unwrap();
    for id in 1..=count {
        let argv = serde_json::to_string(&[
            "/bin/true".to_string(),
            format!("{id:08}{}", "x".repeat(argv_bytes)),
        ])
        .unwrap();
        tx.execute(
            "INSERT INTO jobs (id, owner_uid, procs, walltime, slo, argv, submitted_at, decision, state, \
             started_at, ended_at, exit_code) VALUES (?1, ?2, 1, 60, 600, ?3, ?4, 'accepted', 'ended', ?4, ?4, 0)",
            rusqlite::params![id as i64, uid, argv, day_ago + id as f64],
        )
        .unwrap();
    }
    tx.commit().unwrap();
}

/// Finding 3: `GET /v1/jobs` answered every stored job at once, and each
/// connection that did not read its answer held all of it (16 took the
/// daemon to 2.18 GB). A page is now bounded, so idle readers cost little,
/// and the client's paged listing is the whole list.
#[test]
fn idle_job_listings_keep_the_daemon_small_and_pages_add_up_to_the_list() {
    if !privileged() {
        return;
    }
    const JOBS: u64 = 1_000;
    const ARGV: usize = 60 << 10;
    const READERS: usize = 8;
    let uid = uid_of(USER).unwrap();
    let mut daemon = Daemon::started("");
    daemon.stop();
    store_ended_jobs(&daemon.state().join("interstice.sqlite"), uid, JOBS, ARGV);
    daemon.start().unwrap();
    assert_eq!(daemon.ask("GET", "/healthz", None).0, 200);
    let before = rss(daemon.pid());

    // Readers that take a byte a second: the daemon holds what they do not read.
    let mut readers: Vec<Child> = (0..READERS)
        .map(|_| {
            daemon
                .curl(&["--limit-rate", "1", "-m", "60", "-o", "/dev/null"], "/v1/jobs")
                .spawn()
                .unwrap()
        })
        .collect();
    let mut peak = 0;
    let deadline = Instant::now() + Duration::from_secs(8);
    while Instant::now() < deadline {
        peak = peak.max(rss(daemon.pid()));
        std::thread::sleep(Duration::from_millis(100));
    }
    let alive = readers
        .iter_mut()
        .map(|reader| reader.try_wait().unwrap().is_none())
        .filter(|alive| *alive)
        .count();
    for reader in &mut readers {
        let _ = reader.kill();
        let _ = reader.wait();
    }
    let grown = peak.saturating_sub(before);
    eprintln!(
        "RSS before {} MiB, peak with {READERS} idle readers {} MiB (+{} MiB)",
        before >> 20,
        peak >> 20,
        grown >> 20
    );
    assert_eq!(alive, READERS, "every reader was still connected while measured");
    // Today's pages: 256 KiB of JSON each. One unpaged answer was 60 MB.
    assert!(
        grown < 48 << 20,
        "{READERS} idle GET /v1/jobs grew the daemon by {} MiB (bound: 48 MiB)",
        grown >> 20
    );

    // The paged listing is the whole list, in order, argv intact.
    let listed = daemon.root().jobs().unwrap().jobs;
    assert_eq!(
        listed.iter().map(|job| job.id).collect::<Vec<_>>(),
        (1..=JOBS).collect::<Vec<_>>()
    );
    assert!(listed
        .iter()
        .all(|job| job.argv[1].len() == 8 + ARGV && job.argv[1].starts_with(&format!("{:08}", job.id))));
    // A user's first page is bounded and says where the next starts.
    let (status, body) = daemon.ask("GET", "/v1/jobs?limit=1000", None);
    assert_eq!(status, 200, "{body}");
    let page: interstice_api::wire::JobList = serde_json::from_str(&body).unwrap();
    assert!(body.len() < 512 << 10, "a page of {} bytes", body.len());
    assert_eq!(
        page.jobs.last().unwrap().id,
        JOBS,
        "the first page holds the newest"
    );
    assert!(page.next_cursor.is_some(), "more pages");
    // Small pages walked by hand add up to the same list.
    let mut walked = Vec::new();
    let mut cursor: Option<String> = None;
    loop {
        let page = daemon.root().jobs_page(Some(7), cursor.as_deref()).unwrap();
        assert!(page.jobs.len() <= 7);
        walked.splice(0..0, page.jobs.iter().map(|job| job.id));
        cursor = page.next_cursor;
        if cursor.is_none() {
            break;
        }
    }
    assert_eq!(walked, (1..=JOBS).collect::<Vec<_>>());
    let (status, body) = daemon.ask("GET", "/v1/jobs?limit=0", None);
    assert_eq!((status, body.contains("limit: 0")), (400, true), "{body}");
    let (status, body) = daemon.ask("GET", "/v1/jobs?cursor=12", None);
    assert_eq!((status, body.contains("cursor")), (400, true), "{body}");
}

/// Rows `(id, state)` of `uid`'s jobs in the running daemon's database, by id.
fn stored_jobs_of(db: &Path, uid: u32) -> Vec<(u64, String)> {
    let conn = rusqlite::Connection::open_with_flags(db, rusqlite::OpenFlags::SQLITE_OPEN_READ_ONLY).unwrap();
    let mut statement = conn
        .prepare("SELECT id, state FROM jobs WHERE owner_uid = ?1 ORDER BY id")
        .unwrap();
    let rows = statement
        .query_map([uid], |row| Ok((row.get::<_, i64>(0)? as u64, row.get(1)?)))
        .unwrap();
    rows.collect::<Result<_, _>>().unwrap()
}

/// The ids of the test user's `GET /v1/jobs`, every page walked.
fn listed_ids(daemon: &Daemon) -> Vec<u64> {
    let mut ids = Vec::new();
    let mut path = "/v1/jobs".to_string();
    loop {
        let (status, body) = daemon.ask("GET", &path, None);
        assert_eq!(status, 200, "{body}");
        let page: interstice_api::wire::JobList = serde_json::from_str(&body).unwrap();
        ids.splice(0..0, page.jobs.iter().map(|job| job.id));
        match page.next_cursor {
            Some(cursor) => path = format!("/v1/jobs?cursor={cursor}"),
            None => return ids,
        }
    }
}

/// A submission as the test user that the SLO makes a rejection (the area
/// is held by HPC work): its HTTP status and answer.
fn submit_rejected(daemon: &Daemon, argv_bytes: usize) -> (u16, String) {
    let argv = serde_json::to_string(&["/bin/true".to_string(), "y".repeat(argv_bytes)]).unwrap();
    let body = format!(r#"{{"procs":1,"walltime":10,"slo":20,"argv":{argv}}}"#);
    daemon.ask("POST", "/v1/jobs", Some(&body))
}

/// Keep all 4 processors busy with HPC work for an hour (root reports it).
fn fill_with_hpc(daemon: &Daemon) {
    let event = interstice_api::wire::HpcEventRequest {
        kind: interstice_api::wire::EventKind::Submitted,
        id: "hpc-1".to_string(),
        procs: 4,
        walltime: 3600.0,
        time: None,
        cpus: None,
    };
    daemon.root().hpc_event(&event).unwrap();
}

/// Medium finding: a user's rejected submissions were stored forever (336 MB
/// in 20 s from one user). Flooding rejections now leaves that user's newest
/// `store.max_rejected_per_user`, others' jobs untouched, the pruning counted.
#[test]
fn a_user_flooding_rejections_keeps_only_the_quota() {
    if !privileged() {
        return;
    }
    const QUOTA: usize = 10;
    const FLOOD: usize = 40;
    let uid = uid_of(USER).unwrap();
    let daemon = Daemon::started(&format!("store: {{max_rejected_per_user: {QUOTA}}}\n"));
    fill_with_hpc(&daemon);
    let mut ids = Vec::new();
    for _ in 0..FLOOD {
        let (status, body) = submit_rejected(&daemon, 32 << 10);
        assert_eq!(status, 200, "{body}");
        let answer: interstice_api::wire::SubmitResponse = serde_json::from_str(&body).unwrap();
        assert_eq!(answer.decision, "rejected", "{body}");
        ids.push(answer.id);
    }
    let stored = stored_jobs_of(&daemon.state().join("interstice.sqlite"), uid);
    let expected: Vec<(u64, String)> = ids[FLOOD - QUOTA..]
        .iter()
        .map(|id| (*id, "rejected".to_string()))
        .collect();
    assert_eq!(
        stored, expected,
        "the user's newest {QUOTA} rejections, and only those"
    );
    // The user's own listing says the same; the pruning is counted.
    assert_eq!(listed_ids(&daemon), ids[FLOOD - QUOTA..]);
    let metrics = daemon.root().metrics().unwrap();
    let pruned = format!(
        "interstice_rejected_pruned_total{{reason=\"quota\"}} {}",
        FLOOD - QUOTA
    );
    assert!(metrics.contains(&pruned), "{pruned} in\n{metrics}");
}

/// Rejected submissions older than `store.rejected_retention_seconds` are
/// pruned as time passes (but the newest job, where ids count from).
#[test]
fn rejected_submissions_expire_after_the_retention() {
    if !privileged() {
        return;
    }
    let uid = uid_of(USER).unwrap();
    let daemon = Daemon::started("store: {rejected_retention_seconds: 1}\n");
    fill_with_hpc(&daemon);
    let ids: Vec<u64> = (0..3)
        .map(|_| {
            let (status, body) = submit_rejected(&daemon, 16);
            assert_eq!(status, 200, "{body}");
            serde_json::from_str::<interstice_api::wire::SubmitResponse>(&body)
                .unwrap()
                .id
        })
        .collect();
    let db = daemon.state().join("interstice.sqlite");
    let deadline = Instant::now() + Duration::from_secs(10);
    while stored_jobs_of(&db, uid).len() > 1 {
        assert!(
            Instant::now() < deadline,
            "still stored: {:?}",
            stored_jobs_of(&db, uid)
        );
        std::thread::sleep(Duration::from_millis(200));
    }
    assert_eq!(stored_jobs_of(&db, uid), vec![(ids[2], "rejected".to_string())]);
    let metrics = daemon.root().metrics().unwrap();
    assert!(
        metrics.contains("interstice_rejected_pruned_total{reason=\"retention\"} 2"),
        "{metrics}"
    );
}

/// Medium finding: `state/lock` was 0644 under a 022 umask, so any local
/// user could hold it (`flock` needs only read access) while the daemon was
/// down and keep it from starting. Now only the daemon's user can open it,
/// and a lock file another user owns is refused, naming it and the fix.
#[test]
fn no_other_user_can_hold_the_state_lock() {
    if !privileged() {
        return;
    }
    let mut daemon = Daemon::started("");
    daemon.stop();
    let lock = daemon.state().join("lock");
    // While the daemon is down, the user tries to take its lock and keep it.
    let mut holder = as_user(&["flock", "--nonblock", "--conflict-exit-code", "3"])
        .arg(&lock)
        .args(["sleep", "30"])
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    std::thread::sleep(Duration::from_millis(300));
    let held = holder.try_wait().unwrap().is_none();
    let started = daemon.start();
    let _ = holder.kill();
    let output = holder.wait_with_output().unwrap();
    assert!(
        !held,
        "{USER} holds {} (mode {:o}) and the daemon's start says: {started:?}",
        lock.display(),
        std::fs::metadata(&lock).unwrap().permissions().mode() & 0o777
    );
    assert!(
        String::from_utf8_lossy(&output.stderr).contains("Permission denied"),
        "{output:?}"
    );
    started.expect("the daemon starts again");
    assert_eq!(
        std::fs::metadata(&lock).unwrap().permissions().mode() & 0o777,
        0o600
    );

    // A lock file the user owns (planted, or chowned by mistake) is refused.
    daemon.stop();
    let uid = uid_of(USER).unwrap();
    std::os::unix::fs::chown(&lock, Some(uid), None).unwrap();
    let err = daemon
        .start()
        .expect_err("a lock file another user owns is refused");
    assert!(
        err.contains(&format!("{} is owned by uid {uid}", lock.display())) && err.contains("rm "),
        "{err}"
    );
}

/// Low finding: a symbolic link planted where `state_dir` should be was
/// followed (the daemon made its database wherever the link pointed). It is
/// now refused at start, naming the part of the path another user holds;
/// nothing is written there. (A link root planted itself, refused too, is
/// `state_dir.rs`'s unit test.)
#[test]
fn a_symlink_at_the_state_dir_is_refused_not_followed() {
    if !privileged() {
        return;
    }
    let mut daemon = Daemon::configured("state_dir: {d}/planted/state\n");
    let planted = daemon.dir.path().join("planted");
    // A directory the user may write, and in it a link to one of theirs.
    std::fs::create_dir(&planted).unwrap();
    std::os::unix::fs::chown(&planted, uid_of(USER), None).unwrap();
    let theirs = planted.join("theirs");
    let made = as_user(&["sh", "-c"])
        .arg(format!(
            "mkdir {t} && ln -s {t} {p}/state",
            t = theirs.display(),
            p = planted.display()
        ))
        .status()
        .unwrap();
    assert!(made.success());
    let err = daemon.start().expect_err("a symlinked state_dir is refused");
    // Refused at the first part of the path the user could plant in: the
    // directory of theirs that holds the link.
    assert!(
        err.contains(&format!(
            "state_dir: {} is a directory owned by uid {}",
            planted.display(),
            uid_of(USER).unwrap()
        )),
        "{err}"
    );
    assert_eq!(
        std::fs::read_dir(&theirs).unwrap().count(),
        0,
        "nothing written through the link"
    );
}
