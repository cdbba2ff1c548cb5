//! Loading a whole workload: an SWF trace or a Batsim workload JSON, told
//! apart by the file's name or its first byte, read into a sorted
//! [`Workload`].

use crate::batsim_json;
use crate::error::SwfError;
use crate::extract::ExtractOptions;
use crate::input;
use crate::jobs::JobStream;
use crate::label;
use crate::reader::SwfReader;
use crate::workload::Workload;
use std::io::BufRead;
use std::path::Path;

/// Load an SWF trace or a Batsim workload JSON from `path` (`-` is stdin,
/// gzip is detected). JSON is recognised by a `.json` name or by content
/// starting with `{`.
pub fn load_workload(path: &Path, opts: &ExtractOptions) -> Result<Workload, SwfError> {
    let input = input::open(path)?;
    load(input.reader, &input.name, opts, named_json(path))
}

/// A workload named `*.json` is Batsim JSON whatever it starts with (other
/// names are told by their content: [`input::looks_like_json`]).
pub(crate) fn named_json(path: &Path) -> bool {
    path.extension().is_some_and(|e| e.eq_ignore_ascii_case("json"))
}

/// Like [`load_workload`], from an already decompressed reader named `name`.
pub fn load_workload_from<R: BufRead + 'static>(
    reader: R,
    name: &str,
    opts: &ExtractOptions,
) -> Result<Workload, SwfError> {
    load(Box::new(reader), name, opts, false)
}

fn load(
    mut reader: Box<dyn BufRead>,
    name: &str,
    opts: &ExtractOptions,
    is_json_name: bool,
) -> Result<Workload, SwfError> {
    let json = is_json_name
        || input::looks_like_json(&mut reader).map_err(|source| SwfError::Io {
            action: "read",
            path: name.into(),
            source,
        })?;
    if json {
        return batsim_json::read_workload(reader, name, opts);
    }
    let swf = SwfReader::new(reader, name, opts.mode)?;
    let mut stream = JobStream::new(swf, opts);
    let mut jobs = Vec::new();
    for job in stream.by_ref() {
        jobs.push(job?);
    }
    batsim_json::sort_jobs(&mut jobs);
    Ok(Workload {
        jobs,
        labels: label::JobLabels::new(),
        machine_procs: stream.machine_procs(),
        header: Some(stream.header().clone()),
        stats: stream.stats(),
    })
}
