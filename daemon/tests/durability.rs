//! The state's durability against a damaged or full disk: the database is
//! private (0600), a damaged file is refused at start with how to recover,
//! and a state that cannot be written makes the daemon not ready (`/healthz`
//! and admissions 503) until a write succeeds again. Real `intersticed`,
//! real SQLite; the full file system is a small tmpfs mounted by the test
//! (skipped when mounting is impossible).

mod common;

use interstice_api::client::{Client, ClientError, DEFAULT_TIMEOUT};
use interstice_api::wire::SubmitRequest;
use std::io::{Seek, SeekFrom, Write};
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

const BIN: &str = env!("CARGO_BIN_EXE_intersticed");

struct Daemon {
    child: Child,
    log: PathBuf,
    socket: PathBuf,
    state: PathBuf,
}

impl Drop for Daemon {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
        // Its jobs outlive it (a restarted daemon adopts them): end them.
        interstice_daemon::exec::end_all_jobs(&self.state);
    }
}

impl Daemon {
    fn log(&self) -> String {
        std::fs::read_to_string(&self.log).unwrap_or_default()
    }

    fn client(&self) -> Client {
        Client::new(&self.socket, DEFAULT_TIMEOUT)
    }

    fn stop(mut self) {
        let _ = Command::new("kill")
            .args(["-TERM", &self.child.id().to_string()])
            .status();
        let status = self.child.wait().unwrap();
        assert!(status.success(), "{status}: {}", self.log());
    }
}

/// Start a daemon whose state is `state` (its socket and log in `dir`);
/// `Err(log)` if it exits before it is up.
fn start(dir: &Path, state: &Path) -> Result<Daemon, String> {
    let config = dir.join("d.yaml");
    std::fs::write(
        &config,
        format!(
            "api: {{socket: {dir}/d.sock}}\nstate_dir: {state}\nengine: {{procs: 4, admission: admit-all}}\n\
             backend: {{type: plugin}}\nlog_level: info\n",
            dir = dir.display(),
            state = state.display()
        ),
    )
    .unwrap();
    let log = dir.join("log");
    let child = Command::new(BIN)
        .arg("--config")
        .arg(&config)
        .stdout(Stdio::null())
        .stderr(std::fs::File::create(&log).unwrap())
        .spawn()
        .unwrap();
    let mut daemon = Daemon {
        child,
        log,
        socket: dir.join("d.sock"),
        state: state.to_path_buf(),
    };
    let client = daemon.client();
    let log_path = daemon.log.clone();
    common::wait_answering(&client, &mut daemon.child, || {
        std::fs::read_to_string(&log_path).unwrap_or_default()
    })?;
    Ok(daemon)
}

fn job() -> SubmitRequest {
    SubmitRequest::new(&["/bin/sleep", "600"], 1, 600.0, 1.0e6)
}

fn mode(path: &Path) -> u32 {
    std::fs::metadata(path).unwrap().permissions().mode() & 0o777
}

#[test]
fn the_database_is_private_and_a_damaged_one_is_refused_with_how_to_recover() {
    let dir = tempfile::tempdir().unwrap();
    let state = dir.path().join("state");
    let db = state.join("interstice.sqlite");
    let daemon = start(dir.path(), &state).unwrap();
    daemon.client().submit(&job()).unwrap();
    for file in [
        db.clone(),
        state.join("interstice.sqlite-wal"),
        state.join("interstice.sqlite-shm"),
    ] {
        assert_eq!(mode(&file), 0o600, "{}", file.display());
    }
    daemon.stop();
    // A database made 0644 elsewhere is made private again at start.
    std::fs::set_permissions(&db, std::fs::Permissions::from_mode(0o644)).unwrap();
    start(dir.path(), &state).unwrap().stop();
    assert_eq!(mode(&db), 0o600);

    // Overwrite pages in the middle of the file.
    let len = std::fs::metadata(&db).unwrap().len();
    assert!(len >= 4 * 4096, "database of {len} bytes");
    let mut file = std::fs::OpenOptions::new().write(true).open(&db).unwrap();
    file.seek(SeekFrom::Start(len / 2 / 4096 * 4096)).unwrap();
    file.write_all(&[0x5a; 8192]).unwrap();
    file.sync_all().unwrap();
    drop(file);
    let err = start(dir.path(), &state)
        .err()
        .expect("a damaged database is refused");
    assert!(err.contains("damaged"), "{err}");
    assert!(
        err.contains("move it aside") && err.contains("restore a backup"),
        "{err}"
    );

    // The advice works: moved aside, the daemon starts empty.
    std::fs::rename(&db, state.join("interstice.sqlite.damaged")).unwrap();
    let _ = std::fs::remove_file(state.join("interstice.sqlite-wal"));
    let _ = std::fs::remove_file(state.join("interstice.sqlite-shm"));
    let daemon = start(dir.path(), &state).unwrap();
    assert!(daemon.client().jobs().unwrap().jobs.is_empty());
}

/// A tmpfs of `size` mounted at `at`, unmounted on drop.
struct Tmpfs(PathBuf);

impl Tmpfs {
    fn mount(at: &Path, size: &str) -> Option<Tmpfs> {
        std::fs::create_dir_all(at).unwrap();
        let status = Command::new("mount")
            .args(["-t", "tmpfs", "-o", &format!("size={size},mode=0755"), "tmpfs"])
            .arg(at)
            .stderr(Stdio::null())
            .status()
            .ok()?;
        status.success().then(|| Tmpfs(at.to_path_buf()))
    }
}

impl Drop for Tmpfs {
    fn drop(&mut self) {
        let _ = Command::new("umount").arg("-l").arg(&self.0).status();
    }
}

/// Fill the file system of `path` with `path`; returns the bytes written.
fn fill(path: &Path) -> u64 {
    let mut file = std::fs::File::create(path).unwrap();
    let chunk = vec![0u8; 64 * 1024];
    let mut written = 0;
    loop {
        match file.write(&chunk) {
            Ok(0) | Err(_) => break,
            Ok(n) => written += n as u64,
        }
    }
    // Single bytes too, up to the last block.
    while let Ok(1) = file.write(&[0]) {
        written += 1;
    }
    let _ = file.sync_all();
    written
}

#[test]
fn a_full_state_file_system_makes_the_daemon_not_ready_until_it_can_write() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::set_permissions(dir.path(), std::fs::Permissions::from_mode(0o755)).unwrap();
    let state = dir.path().join("state");
    let Some(_tmpfs) = Tmpfs::mount(&state, "4m") else {
        eprintln!("skipped: cannot mount a tmpfs (needs root and CAP_SYS_ADMIN)");
        return;
    };
    let daemon = start(dir.path(), &state).unwrap();
    let client = daemon.client();
    client.submit(&job()).unwrap();
    let filler = state.join("filler");
    assert!(fill(&filler) > 0);
    // Admissions until one cannot be recorded (the WAL grows into the full disk).
    let mut failed = None;
    for _ in 0..200 {
        match client.submit(&job()) {
            Ok(_) => continue,
            Err(err) => {
                failed = Some(err);
                break;
            }
        }
    }
    let failed =
        failed.unwrap_or_else(|| panic!("every admission was recorded on a full disk: {}", daemon.log()));
    assert!(
        matches!(failed, ClientError::Http { status: 503, .. }),
        "the first admission the disk refuses is a 503 like the ones after it: {failed:?}"
    );
    // Not ready, saying why; admissions 503.
    match client.health() {
        Err(ClientError::Http {
            status: 503,
            ref message,
        }) => {
            assert!(message.contains("cannot be written"), "{message}")
        }
        other => panic!("{other:?}"),
    }
    match client.submit(&job()) {
        Err(ClientError::Http {
            status: 503,
            ref message,
        }) => assert!(message.contains("cannot be written"), "{message}"),
        other => panic!("{other:?}"),
    }
    // Space again: ready within a few retries, admissions recorded.
    std::fs::remove_file(&filler).unwrap();
    let deadline = Instant::now() + Duration::from_secs(10);
    while client.health().is_err() {
        assert!(Instant::now() < deadline, "still not ready: {}", daemon.log());
        std::thread::sleep(Duration::from_millis(100));
    }
    client.submit(&job()).unwrap();
    assert!(
        daemon.log().contains("cannot write the state"),
        "{}",
        daemon.log()
    );
    drop(daemon);
}
