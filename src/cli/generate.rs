//! `interstice __generate DIR` (hidden): the man pages and shell completions
//! of `interstice` and `intersticed`, rendered from their clap definitions,
//! for the Debian package (`packaging/build-deb.sh` runs it before
//! `cargo deb --no-build`). Writes
//!
//! - `DIR/man/interstice.1`, one `interstice-<subcommand>[-<subcommand>].1`
//!   per visible subcommand, and `DIR/man/intersticed.8` (a daemon in
//!   `/usr/sbin`: section 8);
//! - `DIR/completions/{bash,zsh,fish}/` for both programs, under the names
//!   bash-completion, zsh and fish look up (`interstice`, `_interstice`,
//!   `interstice.fish`).
//!
//! Hidden subcommands (this one) appear in neither.

use anyhow::{bail, Context};
use clap::{Args, Command};
use clap_complete::Shell;
use std::path::{Path, PathBuf};

/// Arguments of `interstice __generate`.
#[derive(Args, Debug)]
pub struct GenerateArgs {
    /// Directory to write `man/` and `completions/` into (created if missing).
    #[arg(value_name = "DIR")]
    pub dir: PathBuf,
}

/// The section of each program's man page, and so of its subcommands' pages.
const PROGRAMS: [(&str, &str); 2] = [("interstice", "1"), ("intersticed", "8")];

/// Write the man pages and completions of `interstice` (`cli`, the whole
/// command as `main` defines it) and `intersticed` into `args.dir`.
pub fn run(args: GenerateArgs, cli: Command) -> anyhow::Result<()> {
    let dir = &args.dir;
    if dir.exists() && !dir.is_dir() {
        bail!("{} exists and is not a directory", dir.display());
    }
    let daemon = <interstice_daemon::cli::Args as clap::CommandFactory>::command();
    let man = dir.join("man");
    create_dir(&man)?;
    let mut pages = 0;
    for (mut cmd, (name, section)) in [cli, daemon].into_iter().zip(PROGRAMS) {
        assert_eq!(cmd.get_name(), name, "PROGRAMS lists the programs in order");
        cmd = cmd.disable_help_subcommand(true);
        cmd.build();
        pages += man_pages(&cmd, section, &man)?;
        let completed = without_hidden_subcommands(&cmd, name);
        for shell in [Shell::Bash, Shell::Zsh, Shell::Fish] {
            let shell_dir = dir.join("completions").join(shell.to_string());
            create_dir(&shell_dir)?;
            let path = clap_complete::generate_to(shell, &mut completed.clone(), name, &shell_dir)
                .with_context(|| format!("cannot write {shell} completions into {}", shell_dir.display()))?;
            // bash-completion loads /usr/share/bash-completion/completions/NAME.
            if shell == Shell::Bash {
                let plain = shell_dir.join(name);
                std::fs::rename(&path, &plain)
                    .with_context(|| format!("cannot rename {} to {}", path.display(), plain.display()))?;
            }
        }
    }
    outln!(
        "{pages} man pages in {}, completions for bash, zsh and fish in {}",
        man.display(),
        dir.join("completions").display()
    )
}

/// `cmd` (built) without its hidden subcommands, which clap_complete's bash
/// and fish generators would offer.
fn without_hidden_subcommands(cmd: &Command, name: &'static str) -> Command {
    let mut root = Command::new(name)
        .disable_help_flag(true)
        .disable_version_flag(true)
        .disable_help_subcommand(true)
        .args(cmd.get_arguments().cloned())
        .subcommands(cmd.get_subcommands().filter(|sub| !sub.is_hide_set()).cloned());
    if let Some(about) = cmd.get_about() {
        root = root.about(about.clone());
    }
    // Both programs carry the workspace's version (their copied --version
    // flag needs one).
    if cmd.get_version().is_some() {
        root = root.version(env!("CARGO_PKG_VERSION"));
    }
    root
}

fn create_dir(dir: &Path) -> anyhow::Result<()> {
    std::fs::create_dir_all(dir).with_context(|| format!("cannot create {}", dir.display()))
}

/// The page of `cmd` and of each of its visible subcommands, recursively;
/// returns how many were written. `cmd` is built, so subcommands carry their
/// display names (`interstice-swf-stats`) and usage (`interstice swf stats`).
fn man_pages(cmd: &Command, section: &str, dir: &Path) -> anyhow::Result<usize> {
    let mut written = 0;
    for sub in cmd.get_subcommands().filter(|sub| !sub.is_hide_set()) {
        written += man_pages(sub, section, dir)?;
    }
    let man = clap_mangen::Man::new(cmd.clone())
        .section(section)
        .source(format!("interstice {}", env!("CARGO_PKG_VERSION")))
        .manual("Interstice");
    let path = dir.join(man.get_filename());
    let mut page = Vec::new();
    man.render(&mut page)
        .with_context(|| format!("cannot render {}", path.display()))?;
    std::fs::write(&path, page).with_context(|| format!("cannot write {}", path.display()))?;
    Ok(written + 1)
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::CommandFactory;

    fn cli() -> Command {
        crate::Cli::command()
    }

    #[test]
    fn writes_both_programs_pages_and_completions_without_hidden_commands() {
        let dir = tempfile::tempdir().unwrap();
        run(
            GenerateArgs {
                dir: dir.path().to_path_buf(),
            },
            cli(),
        )
        .unwrap();
        let read = |path: &str| std::fs::read_to_string(dir.path().join(path)).unwrap();
        assert!(read("man/interstice.1").contains(".TH interstice 1"));
        assert!(read("man/interstice-submit.1").contains(".TH interstice-submit 1"));
        assert!(read("man/interstice-swf-stats.1").contains("interstice swf stats"));
        let daemon = read("man/intersticed.8");
        assert!(daemon.contains(".TH intersticed 8"), "{daemon}");
        assert!(daemon.contains("check\\-config"), "{daemon}");
        for path in [
            "completions/bash/interstice",
            "completions/bash/intersticed",
            "completions/zsh/_interstice",
            "completions/zsh/_intersticed",
            "completions/fish/interstice.fish",
            "completions/fish/intersticed.fish",
        ] {
            // A visible subcommand named `generate` (`qos generate`) is
            // spelled `…__subcmd__generate` in the scripts; the hidden
            // command would be `…__subcmd____generate` and `'__generate`.
            let text = read(path).replace("__subcmd__generate", "");
            assert!(
                !text.contains("__generate"),
                "{path} offers the hidden __generate"
            );
        }
        assert!(read("completions/bash/interstice").contains("replay"));
        assert!(read("completions/fish/intersticed.fish").contains("check-config"));
        for page in std::fs::read_dir(dir.path().join("man")).unwrap() {
            let page = page.unwrap().path();
            let text = std::fs::read_to_string(&page).unwrap();
            assert!(
                !text.contains("__generate"),
                "{} shows __generate",
                page.display()
            );
        }
    }

    #[test]
    fn a_file_in_the_way_is_a_clear_error() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("file");
        std::fs::write(&file, "").unwrap();
        let err = run(GenerateArgs { dir: file.clone() }, cli()).unwrap_err();
        assert!(err.to_string().contains("is not a directory"), "{err:#}");
    }
}
