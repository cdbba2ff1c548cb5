//! The C ABI from C: `tests/c/ffi_client.c` is compiled with `cc` against the
//! committed `plugin-ffi/include/interstice.h` and `libinterstice_ffi.so`,
//! then run against a live `intersticed` (plugin backend, 8 processors) and a
//! socket that never answers.

use std::os::unix::net::UnixListener;
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

struct Guard(Child);

impl Drop for Guard {
    fn drop(&mut self) {
        let _ = Command::new("kill")
            .arg("-TERM")
            .arg(self.0.id().to_string())
            .status();
        let deadline = Instant::now() + Duration::from_secs(10);
        while Instant::now() < deadline {
            if let Ok(Some(_)) = self.0.try_wait() {
                return;
            }
            std::thread::sleep(Duration::from_millis(50));
        }
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

fn start_daemon(dir: &Path) -> (Guard, std::path::PathBuf) {
    let socket = dir.join("intersticed.sock");
    let config = dir.join("intersticed.yaml");
    std::fs::write(
        &config,
        format!(
            "api:\n  socket: {}\nstate_dir: {}\nengine:\n  procs: 8\nbackend:\n  type: plugin\nexecution:\n  user: nobody\n",
            socket.display(),
            dir.join("state").display()
        ),
    )
    .expect("write daemon config");
    let log = dir.join("intersticed.log");
    let child = Command::new(interstice_tests::artifact("intersticed"))
        .args(["--config", &config.display().to_string()])
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(std::fs::File::create(&log).expect("log file"))
        .spawn()
        .expect("start intersticed");
    let mut guard = Guard(child);
    let deadline = Instant::now() + Duration::from_secs(20);
    while !socket.exists() {
        if let Ok(Some(status)) = guard.0.try_wait() {
            panic!(
                "intersticed exited with {status}: {}",
                std::fs::read_to_string(&log).unwrap_or_default()
            );
        }
        assert!(
            Instant::now() < deadline,
            "intersticed did not create {}",
            socket.display()
        );
        std::thread::sleep(Duration::from_millis(50));
    }
    (guard, socket)
}

#[test]
fn c_program_drives_the_whole_api_against_a_live_daemon() {
    let library = interstice_tests::artifact("libinterstice_ffi.so");
    let root = interstice_tests::repo_root();
    let dir = tempfile::tempdir().expect("scratch dir");
    let program = dir.path().join("ffi_client");
    let compile = Command::new("cc")
        .args([
            "-std=c11",
            "-Wall",
            "-Wextra",
            "-Werror",
            "-D_POSIX_C_SOURCE=200809L",
            "-o",
        ])
        .arg(&program)
        .arg(root.join("tests/c/ffi_client.c"))
        .arg("-I")
        .arg(root.join("plugin-ffi/include"))
        .arg("-L")
        .arg(library.parent().expect("target dir"))
        .args(["-linterstice_ffi", "-lm"])
        .output()
        .expect("run cc");
    assert!(
        compile.status.success(),
        "cc failed:\n{}",
        String::from_utf8_lossy(&compile.stderr)
    );

    let (_daemon, socket) = start_daemon(dir.path());
    // A socket that accepts and never answers: the C side must time out on its own.
    let silent_path = dir.path().join("silent.sock");
    let silent = UnixListener::bind(&silent_path).expect("bind silent socket");
    let holder = std::thread::spawn(move || {
        let held: Vec<_> = silent.incoming().take(1).collect();
        std::thread::sleep(Duration::from_millis(1500));
        drop(held);
    });

    let run = Command::new(&program)
        .arg(&socket)
        .arg(&silent_path)
        .env("LD_LIBRARY_PATH", library.parent().expect("target dir"))
        .output()
        .expect("run the C program");
    let stdout = String::from_utf8_lossy(&run.stdout);
    assert!(
        run.status.success(),
        "C program failed:\n{stdout}\n{}",
        String::from_utf8_lossy(&run.stderr)
    );
    assert!(stdout.contains(", 0 failed"), "{stdout}");
    assert!(!stdout.contains("FAIL"), "{stdout}");
    holder.join().expect("silent socket thread");
}
