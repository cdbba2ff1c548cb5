//! Integration tests of `interstice-swf`, one binary, modules by theme.

mod fixtures;
mod fuzz;
mod roundtrip;
mod traces;

use std::path::PathBuf;

/// A file of `tests/fixtures/`.
pub fn fixture(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests")
        .join("fixtures")
        .join(name)
}

/// A file of `../shared/data/` beside the repository.
pub fn shared_data(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../shared/data")
        .join(name)
}
