//! The committed `include/interstice.h` must be exactly what cbindgen generates
//! from the sources. `INTERSTICE_UPDATE_HEADER=1 cargo test -p interstice-ffi --test header`
//! rewrites it.

use std::path::Path;

#[test]
fn header_matches_cbindgen() {
    let crate_dir = Path::new(env!("CARGO_MANIFEST_DIR"));
    let config = cbindgen::Config::from_file(crate_dir.join("cbindgen.toml")).expect("read cbindgen.toml");
    let mut generated = Vec::new();
    cbindgen::Builder::new()
        .with_crate(crate_dir)
        .with_config(config)
        .generate()
        .expect("cbindgen generates the header")
        .write(&mut generated);
    let generated = String::from_utf8(generated).expect("header is UTF-8");
    let committed_path = crate_dir.join("include").join("interstice.h");
    let committed = std::fs::read_to_string(&committed_path).unwrap_or_default();
    if std::env::var_os("INTERSTICE_UPDATE_HEADER").is_some() {
        std::fs::write(&committed_path, &generated).expect("write include/interstice.h");
        return;
    }
    assert!(
        committed == generated,
        "{} is stale or missing: run `INTERSTICE_UPDATE_HEADER=1 cargo test -p interstice-ffi --test header` \
         and commit the result",
        committed_path.display()
    );
}
