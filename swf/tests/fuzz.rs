//! Arbitrary input never panics: every outcome is a record, a skip or an error.

use interstice_swf::{load_workload_from, ExtractOptions, Strictness, SwfReader};
use proptest::prelude::*;

fn read_all(bytes: &[u8], mode: Strictness) {
    if let Ok(reader) = SwfReader::new(bytes, "fuzz.swf", mode) {
        for item in reader {
            if let Err(e) = item {
                // Errors render, naming the input.
                assert!(e.to_string().starts_with("fuzz.swf:"), "{e}");
            }
        }
    }
}

/// Lines made of SWF-ish tokens, to get past the field count more often.
fn swfish() -> impl Strategy<Value = Vec<u8>> {
    let token = prop_oneof![
        Just("-1".to_string()),
        Just(";".to_string()),
        Just("; MaxProcs:".to_string()),
        Just("\t".to_string()),
        Just("\r".to_string()),
        Just("1e999".to_string()),
        Just("nan".to_string()),
        Just("-".to_string()),
        Just("99999999999999999999".to_string()),
        "[0-9.eE+-]{1,12}",
        "[ -~]{0,6}",
    ];
    let line = proptest::collection::vec(token, 0..22).prop_map(|t| t.join(" "));
    proptest::collection::vec(line, 0..12).prop_map(|lines| lines.join("\n").into_bytes())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

    #[test]
    fn arbitrary_bytes_never_panic(bytes in proptest::collection::vec(any::<u8>(), 0..600)) {
        read_all(&bytes, Strictness::Strict);
        read_all(&bytes, Strictness::Lenient);
        for mode in [Strictness::Strict, Strictness::Lenient] {
            let opts = ExtractOptions { mode, machine_procs: Some(4), ..ExtractOptions::new() };
            let _ = load_workload_from(std::io::Cursor::new(bytes.clone()), "fuzz", &opts);
        }
    }

    #[test]
    fn swf_like_input_never_panics(bytes in swfish()) {
        read_all(&bytes, Strictness::Strict);
        read_all(&bytes, Strictness::Lenient);
        // A leading comment line keeps the input SWF: one whose first
        // non-blank byte is `{` is taken for a Batsim JSON workload by design.
        let swf = [b"; fuzz\n".as_slice(), &bytes].concat();
        for clip in [None, Some(2)] {
            let opts = ExtractOptions { mode: Strictness::Lenient, clip, clip_to_machine: false, machine_procs: Some(4), walltime_factor: 1.5 };
            let w = load_workload_from(std::io::Cursor::new(swf.clone()), "fuzz", &opts).unwrap();
            prop_assert!(w.jobs.iter().all(|j| j.procs >= 1 && j.procs <= 4));
            prop_assert_eq!(w.stats.jobs as usize, w.jobs.len());
        }
    }

    #[test]
    fn json_like_input_never_panics(body in "[\\[\\]{}\":,0-9a-z_ .-]{0,200}") {
        let text = format!("{{\"nb_res\": 4, \"jobs\": [{body}");
        let _ = load_workload_from(std::io::Cursor::new(text.into_bytes()), "fuzz.json", &ExtractOptions::new());
    }
}
