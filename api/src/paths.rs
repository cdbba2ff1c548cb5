//! Where things are unless configured otherwise: the daemon's socket, and the
//! environment variable and files that locate the `job_submit` plugin's
//! settings.
//!
//! The socket is `/run/interstice/interstice.sock`: the packaged daemon
//! (`packaging/intersticed.service`, `RuntimeDirectory=interstice`, reading
//! `/etc/interstice/interstice.yaml`) listens there, so the daemon's config
//! default, the CLI's `--daemon` default and the Slurm plugins' `socket`
//! default are all this one path.

use std::ffi::OsString;
use std::path::{Path, PathBuf};

/// The daemon's Unix socket (`api.socket`, `--daemon`, the plugins' `socket`).
pub const DEFAULT_SOCKET: &str = "/run/interstice/interstice.sock";

/// Names the `job_submit` plugin's settings file, overriding the lookup beside
/// `$SLURM_CONF`.
pub const PLUGIN_CONFIG_ENV: &str = "INTERSTICE_CONF";

/// The `job_submit` plugin's settings file name, looked up beside `slurm.conf`.
pub const PLUGIN_CONFIG_FILE: &str = "interstice.conf";

/// Where the plugin's settings file is without `$INTERSTICE_CONF` or `$SLURM_CONF`.
pub const DEFAULT_PLUGIN_CONFIG: &str = "/etc/slurm/interstice.conf";

/// The `job_submit` plugin's settings file: `$INTERSTICE_CONF`, else
/// `interstice.conf` beside `$SLURM_CONF`, else [`DEFAULT_PLUGIN_CONFIG`].
pub fn plugin_config_path() -> PathBuf {
    plugin_config_path_from(
        std::env::var_os(PLUGIN_CONFIG_ENV),
        std::env::var_os("SLURM_CONF"),
    )
}

fn plugin_config_path_from(interstice_conf: Option<OsString>, slurm_conf: Option<OsString>) -> PathBuf {
    if let Some(path) = interstice_conf {
        return PathBuf::from(path);
    }
    if let Some(slurm_conf) = slurm_conf {
        if let Some(dir) = Path::new(&slurm_conf).parent() {
            return dir.join(PLUGIN_CONFIG_FILE);
        }
    }
    PathBuf::from(DEFAULT_PLUGIN_CONFIG)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plugin_config_is_found_by_env_then_beside_slurm_conf() {
        assert_eq!(
            plugin_config_path_from(
                Some("/x/i.conf".into()),
                Some("/etc/slurm-llnl/slurm.conf".into())
            ),
            PathBuf::from("/x/i.conf")
        );
        assert_eq!(
            plugin_config_path_from(None, Some("/etc/slurm-llnl/slurm.conf".into())),
            PathBuf::from("/etc/slurm-llnl/interstice.conf")
        );
        assert_eq!(
            plugin_config_path_from(None, None),
            PathBuf::from(DEFAULT_PLUGIN_CONFIG)
        );
    }
}
