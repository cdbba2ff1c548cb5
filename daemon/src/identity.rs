//! Who a job runs as: the user who submitted it (the Unix socket's peer
//! credentials), with root mapped to `execution.user` unless
//! `execution.allow_root`, and `execution.allow_users`/`deny_users`
//! applied. This module is the one home of that rule, and of dropping to a
//! job's user (supplementary groups, gid, uid) in the helper processes of
//! [`crate::exec`].

use crate::config::ExecutionConfig;
use nix::unistd::{Gid, Uid, User};
use std::ffi::CString;

/// The identity a job's processes get.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RunAs {
    /// User id.
    pub uid: u32,
    /// Primary group id (the user's, from the user database).
    pub gid: u32,
}

/// Why a caller may not submit (a 403).
#[derive(Debug, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct Refused(pub String);

/// True if `entry` (a name or a uid) names `uid`/`name`.
fn names(entry: &str, uid: u32, name: Option<&str>) -> bool {
    match entry.parse::<u32>() {
        Ok(number) => number == uid,
        Err(_) => name == Some(entry),
    }
}

/// The identity a job submitted by `caller_uid` runs as. `None` when the
/// daemon is not root: jobs run as the daemon's own user, who cannot be
/// anyone else.
pub fn run_as(caller_uid: u32, config: &ExecutionConfig) -> Result<Option<RunAs>, Refused> {
    let caller = User::from_uid(Uid::from_raw(caller_uid)).ok().flatten();
    if caller_uid != 0 {
        let name = caller.as_ref().map(|user| user.name.as_str());
        if config
            .deny_users
            .iter()
            .any(|entry| names(entry, caller_uid, name))
        {
            return Err(Refused(format!(
                "uid {caller_uid} may not submit jobs on this node (execution.deny_users)"
            )));
        }
        if !config.allow_users.is_empty()
            && !config
                .allow_users
                .iter()
                .any(|entry| names(entry, caller_uid, name))
        {
            return Err(Refused(format!(
                "uid {caller_uid} may not submit jobs on this node (not in execution.allow_users)"
            )));
        }
    }
    if !nix::unistd::geteuid().is_root() {
        return Ok(None);
    }
    if caller_uid == 0 && !config.allow_root {
        return match User::from_name(&config.user) {
            Ok(Some(user)) => Ok(Some(RunAs {
                uid: user.uid.as_raw(),
                gid: user.gid.as_raw(),
            })),
            _ => Err(Refused(format!(
                "execution.user {:?} does not exist on this node",
                config.user
            ))),
        };
    }
    match caller {
        Some(user) => Ok(Some(RunAs {
            uid: user.uid.as_raw(),
            gid: user.gid.as_raw(),
        })),
        None => Err(Refused(format!(
            "uid {caller_uid} has no entry in the user database of this node; jobs run as their submitter"
        ))),
    }
}

/// Become `uid`/`gid` for good, with the user's supplementary groups
/// (`initgroups`): called in the job wrapper and the access-check helper,
/// single-threaded processes of their own. Fails if root could be regained.
pub fn drop_to(uid: u32, gid: u32) -> Result<(), String> {
    let (uid, gid) = (Uid::from_raw(uid), Gid::from_raw(gid));
    match User::from_uid(uid) {
        Ok(Some(user)) => {
            let name = CString::new(user.name).map_err(|err| err.to_string())?;
            nix::unistd::initgroups(&name, gid).map_err(|err| format!("initgroups: {err}"))?;
        }
        // A uid without a name (recovered from the store after the user
        // was removed): no supplementary groups at all.
        _ => nix::unistd::setgroups(&[gid]).map_err(|err| format!("setgroups: {err}"))?,
    }
    nix::unistd::setresgid(gid, gid, gid).map_err(|err| format!("setresgid({gid}): {err}"))?;
    nix::unistd::setresuid(uid, uid, uid).map_err(|err| format!("setresuid({uid}): {err}"))?;
    if !uid.is_root() && nix::unistd::setuid(Uid::from_raw(0)).is_ok() {
        return Err("could regain root after dropping privileges".to_string());
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lists_name_users_by_name_or_uid() {
        assert!(names("1000", 1000, Some("alice")));
        assert!(names("alice", 1000, Some("alice")));
        assert!(!names("bob", 1000, Some("alice")));
        assert!(!names("alice", 1000, None));
    }

    #[test]
    fn deny_and_allow_lists_refuse_with_the_key_named() {
        let mut config = ExecutionConfig {
            deny_users: vec!["4242".to_string()],
            ..ExecutionConfig::default()
        };
        let err = run_as(4242, &config).unwrap_err();
        assert!(err.0.contains("execution.deny_users"), "{err}");
        config.deny_users.clear();
        config.allow_users = vec!["4243".to_string()];
        let err = run_as(4242, &config).unwrap_err();
        assert!(err.0.contains("execution.allow_users"), "{err}");
        // Root, the administrator, is never refused by the lists.
        assert!(run_as(0, &config).is_ok());
    }
}
