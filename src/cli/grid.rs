//! `interstice sweep --grid FILE`: a YAML grid file is the sweep's own options
//! written down. Each key is a long option of `interstice sweep` in
//! snake_case (`cloud_procs` is `--cloud-procs`), each value one value or a
//! list; the file's options are put on the command line right after
//! `--grid FILE`, and clap then reads them exactly as typed ones. So an
//! option means the same in a file as on the command line, and has one
//! parser.
//!
//! Two spellings are the file's own: `conv: machine` with `procs: [M, …]`
//! is `--machine M,…` (the thesis's m = m_conv), and `clip: true` is `--clip`.
//! An option also typed on the command line is the command line's.

use super::sweep::SweepArgs;
use clap::ArgAction;
use serde_yaml::Value;
use std::ffi::{OsStr, OsString};
use std::path::{Path, PathBuf};

/// A grid file that cannot be used: the file and what to change.
#[derive(Debug, thiserror::Error)]
#[error("{}: {problem}", path.display())]
pub struct GridFileError {
    pub path: PathBuf,
    pub problem: String,
}

/// Options a grid file may not give: they say where and how this machine
/// runs the grid, not what the grid is.
const COMMAND_LINE_ONLY: [&str; 10] = [
    "grid",
    "out",
    "force",
    "jobs",
    "quiet",
    "keep-runs",
    "no-jobs-csv",
    "help",
    "slurm-array",
    "cell",
];

/// Options that together say what machine and area a run has: typing any of
/// them replaces the file's whole group (`--conv 10` with a `conv: machine`
/// file means that area, not a clash with the file's `--machine`).
const MACHINE_GROUP: [&str; 4] = ["machine", "procs", "conv", "clip"];

/// The option a key names, and how it takes values.
struct SweepOption {
    long: String,
    list: bool,
    switch: bool,
}

/// The options of `interstice sweep`, from its clap definition.
fn sweep_options() -> Vec<SweepOption> {
    let command = <SweepArgs as clap::Args>::augment_args(clap::Command::new("sweep"));
    command
        .get_arguments()
        .filter_map(|arg| {
            let long = arg.get_long()?.to_string();
            Some(SweepOption {
                list: matches!(arg.get_action(), ArgAction::Append),
                switch: matches!(arg.get_action(), ArgAction::SetTrue),
                long,
            })
        })
        .collect()
}

/// A YAML scalar as command-line text.
fn scalar(value: &Value) -> Option<String> {
    match value {
        Value::String(text) => Some(text.clone()),
        Value::Number(number) => Some(number.to_string()),
        Value::Bool(flag) => Some(flag.to_string()),
        _ => None,
    }
}

/// The command-line options a grid file stands for: per key, its long option
/// and the arguments that give it.
pub fn options_of(path: &Path, text: &str) -> Result<Vec<(String, Vec<OsString>)>, GridFileError> {
    let bad = |problem: String| GridFileError {
        path: path.to_path_buf(),
        problem,
    };
    let document: Value = serde_yaml::from_str(text).map_err(|err| bad(format!("not YAML: {err}")))?;
    let Value::Mapping(mapping) = document else {
        return Err(bad(
            "a grid file is a mapping of option names to values, e.g. `slack: [1.25, 2]`".to_string(),
        ));
    };
    let options = sweep_options();
    let machine = mapping
        .get("conv")
        .is_some_and(|conv| conv.as_str() == Some("machine"));
    let mut out: Vec<(String, Vec<OsString>)> = Vec::new();
    for (key, value) in &mapping {
        let Some(key) = key.as_str() else {
            return Err(bad(format!("key {key:?} is not an option name")));
        };
        let long = key.replace('_', "-");
        if COMMAND_LINE_ONLY.contains(&long.as_str()) {
            return Err(bad(format!(
                "`{key}` belongs on the command line (--{long}), not in the grid file"
            )));
        }
        let Some(option) = options.iter().find(|o| o.long == long) else {
            return Err(bad(format!(
                "unknown key `{key}`: the keys are `interstice sweep`'s options in snake_case \
                 (see `interstice sweep --help`)"
            )));
        };
        if machine && key == "conv" {
            continue;
        }
        let (long, option_list) = if machine && key == "procs" {
            ("machine".to_string(), true)
        } else {
            (long, option.list)
        };
        let values: Vec<String> = match value {
            Value::Sequence(items) => items
                .iter()
                .map(|item| {
                    scalar(item).ok_or_else(|| bad(format!("`{key}`: {item:?} is not a single value")))
                })
                .collect::<Result<_, _>>()?,
            value => vec![scalar(value).ok_or_else(|| bad(format!("`{key}`: {value:?} is not a value")))?],
        };
        if values.is_empty() {
            return Err(bad(format!("`{key}` is an empty list: give at least one value")));
        }
        let mut args: Vec<OsString> = Vec::new();
        if option.switch || long == "clip" {
            match values.as_slice() {
                [flag] if flag == "true" => args.push(format!("--{long}").into()),
                [flag] if flag == "false" => {}
                [target] if long == "clip" => args.push(format!("--clip={target}").into()),
                _ => return Err(bad(format!("`{key}` is true or false"))),
            }
        } else {
            if values.len() > 1 && !option_list {
                return Err(bad(format!("`{key}` takes one value, not a list")));
            }
            for value in values {
                args.push(format!("--{long}").into());
                args.push(value.into());
            }
        }
        out.push((long, args));
    }
    if machine && !mapping.contains_key("procs") {
        return Err(bad(
            "`conv: machine` needs `procs: [M, …]`, the machine sizes (each all area)".to_string(),
        ));
    }
    Ok(out)
}

/// The long option an argument gives (`--slack 2`, `--slack=2`), if any.
fn long_option(arg: &OsStr) -> Option<String> {
    let text = arg.to_str()?.strip_prefix("--")?;
    Some(text.split('=').next().unwrap_or(text).to_string())
}

/// `argv` with the options of its `sweep --grid FILE` inserted after it; any
/// other command line unchanged. An option both in the file and on the
/// command line is the command line's (`--until 86400` tries a grid on a day).
pub fn expand(argv: Vec<OsString>) -> Result<Vec<OsString>, GridFileError> {
    if argv.get(1).map(OsString::as_os_str) != Some(OsStr::new("sweep")) {
        return Ok(argv);
    }
    let Some(at) = argv
        .iter()
        .position(|arg| long_option(arg).as_deref() == Some("grid"))
    else {
        return Ok(argv);
    };
    let (path, value_end) = match argv[at].to_str().and_then(|arg| arg.strip_prefix("--grid=")) {
        Some(path) => (PathBuf::from(path), at + 1),
        None => match argv.get(at + 1) {
            Some(path) => (PathBuf::from(path), at + 2),
            // clap reports the missing value.
            None => return Ok(argv),
        },
    };
    let text = interstice_swf::input_file::read_text(&path, interstice_swf::input_file::MAX_TEXT_BYTES)
        .map_err(|err| GridFileError {
            path: path.clone(),
            problem: format!("cannot read the grid file: {err}"),
        })?;
    let given: Vec<String> = argv.iter().filter_map(|arg| long_option(arg)).collect();
    // An option on the command line replaces the file's (a machine option the group).
    let machine_typed = given.iter().any(|long| MACHINE_GROUP.contains(&long.as_str()));
    let options = options_of(&path, &text)?
        .into_iter()
        .filter(|(long, _)| !given.contains(long))
        .filter(|(long, _)| !(machine_typed && MACHINE_GROUP.contains(&long.as_str())))
        .flat_map(|(_, args)| args);
    let mut expanded = argv[..value_end].to_vec();
    expanded.extend(options);
    expanded.extend_from_slice(&argv[value_end..]);
    Ok(expanded)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn options(text: &str) -> Result<Vec<String>, GridFileError> {
        options_of(Path::new("grid.yaml"), text).map(|options| {
            options
                .into_iter()
                .flat_map(|(_, args)| args)
                .map(|arg| arg.into_string().unwrap())
                .collect()
        })
    }

    #[test]
    fn keys_are_the_options_in_snake_case_and_lists_are_repeated_options() {
        let options = options(
            "policy: convergence\ncloud_procs: [1, \"1,2,4\"]\nslack: [1.25, 2]\nclip: true\nuntil: 2678400\n",
        )
        .unwrap();
        assert_eq!(
            options,
            [
                "--policy",
                "convergence",
                "--cloud-procs",
                "1",
                "--cloud-procs",
                "1,2,4",
                "--slack",
                "1.25",
                "--slack",
                "2",
                "--clip",
                "--until",
                "2678400"
            ]
        );
    }

    #[test]
    fn conv_machine_turns_procs_into_machine_sizes() {
        let options = options("conv: machine\nprocs: [10, 20]\n").unwrap();
        assert_eq!(options, ["--machine", "10", "--machine", "20"]);
        let err = options_of(Path::new("g.yaml"), "conv: machine\n").unwrap_err();
        assert!(err.to_string().contains("needs `procs"), "{err}");
    }

    #[test]
    fn bad_files_name_the_file_and_the_key() {
        for (text, needle) in [
            ("slak: [1]\n", "unknown key `slak`"),
            ("until: [1, 2]\n", "`until` takes one value"),
            ("out: x\n", "belongs on the command line"),
            ("slack: []\n", "empty list"),
            ("- 1\n", "mapping"),
            ("slack: {a: 1}\n", "not a value"),
        ] {
            let err = options_of(Path::new("g.yaml"), text).unwrap_err().to_string();
            assert!(
                err.starts_with("g.yaml: ") && err.contains(needle),
                "{text:?}: {err}"
            );
        }
    }

    #[test]
    fn the_files_options_go_after_it_and_the_command_line_wins() {
        let dir = tempfile::tempdir().unwrap();
        let grid = dir.path().join("grid.yaml");
        std::fs::write(&grid, "slack: [2, 3]\n").unwrap();
        let argv = |args: &[&str]| args.iter().map(OsString::from).collect::<Vec<_>>();
        let grid_arg = grid.to_str().unwrap();
        let expanded = expand(argv(&[
            "interstice",
            "sweep",
            "w.swf",
            "--grid",
            grid_arg,
            "--out",
            "o",
        ]))
        .unwrap();
        assert_eq!(
            expanded,
            argv(&[
                "interstice",
                "sweep",
                "w.swf",
                "--grid",
                grid_arg,
                "--slack",
                "2",
                "--slack",
                "3",
                "--out",
                "o"
            ])
        );
        let typed = argv(&["interstice", "sweep", "w.swf", "--grid", grid_arg, "--slack=4"]);
        assert_eq!(
            expand(typed.clone()).unwrap(),
            typed,
            "the command line's --slack replaces the file's"
        );
        std::fs::write(&grid, "conv: machine\nprocs: [10, 20]\nslack: 2\n").unwrap();
        let area = argv(&["interstice", "sweep", "w.swf", "--grid", grid_arg, "--conv", "10"]);
        let mut expected = area.clone();
        expected.splice(5..5, ["--slack", "2"].map(OsString::from));
        assert_eq!(
            expand(area).unwrap(),
            expected,
            "a typed --conv replaces the file's machines"
        );
        let other = argv(&["interstice", "replay", "--grid", "x"]);
        assert_eq!(
            expand(other.clone()).unwrap(),
            other,
            "only sweep reads grid files"
        );
    }
}
