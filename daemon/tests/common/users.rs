//! The unprivileged users the attack tests act as (`interstice-test-a`,
//! `interstice-test-b`, created on first use as system users) and the
//! tools they act with.

use std::process::{Command, Stdio};
use std::sync::OnceLock;

/// The attacker of the tests.
pub const USER_A: &str = "interstice-test-a";
/// The victim, or a second user.
pub const USER_B: &str = "interstice-test-b";

/// True (after creating the test users) if the tests can run: as root,
/// with `setpriv`, `curl`, `flock` and `/usr/bin/python3` (a squatter's listener);
/// else says why once and returns false.
pub fn privileged() -> bool {
    static READY: OnceLock<Result<(), String>> = OnceLock::new();
    let ready = READY.get_or_init(|| {
        if !nix::unistd::geteuid().is_root() {
            return Err("not root: the attack tests need to create users and run root daemons".into());
        }
        for tool in ["setpriv", "curl", "useradd", "flock", "/usr/bin/python3"] {
            let found = Command::new("sh")
                .args(["-c", &format!("command -v {tool}")])
                .stdout(Stdio::null())
                .status()
                .is_ok_and(|status| status.success());
            if !found {
                return Err(format!("{tool} is not installed"));
            }
        }
        for user in [USER_A, USER_B] {
            if uid_of(user).is_none() {
                let status = Command::new("useradd")
                    .args([
                        "--system",
                        "--no-create-home",
                        "--shell",
                        "/usr/sbin/nologin",
                        user,
                    ])
                    .status()
                    .map_err(|err| err.to_string())?;
                if !status.success() && uid_of(user).is_none() {
                    return Err(format!("useradd {user} failed"));
                }
            }
        }
        Ok(())
    });
    match ready {
        Ok(()) => true,
        Err(why) => {
            eprintln!("SKIPPED: {why}");
            false
        }
    }
}

/// The uid of `user`, if it exists.
pub fn uid_of(user: &str) -> Option<u32> {
    nix::unistd::User::from_name(user)
        .ok()
        .flatten()
        .map(|user| user.uid.as_raw())
}

/// A command run as `user` (`setpriv`, its own uid, gid and groups): the
/// program and its arguments are the caller's to add.
pub fn as_user(user: &str) -> Command {
    let mut command = Command::new("setpriv");
    command.args(["--reuid", user, "--regid", user, "--init-groups"]);
    command
}
