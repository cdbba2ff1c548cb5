//! Property: parse → write → parse gives equal records and header.

use interstice_swf::{write_trace, Header, Record, Strictness, SwfReader};
use proptest::prelude::*;

fn opt_f64() -> impl Strategy<Value = Option<f64>> {
    prop_oneof![
        Just(None),
        (0u32..10_000_000).prop_map(|v| Some(f64::from(v))),
        (0.0f64..1e7).prop_map(Some),
        (-1e4f64..-1.5).prop_map(Some),
    ]
}

fn opt_i64() -> impl Strategy<Value = Option<i64>> {
    prop_oneof![
        Just(None),
        (0i64..5_000_000).prop_map(Some),
        (-1000i64..-1).prop_map(Some)
    ]
}

prop_compose! {
    fn record()(
        job in 0u64..u32::MAX as u64,
        times in proptest::array::uniform7(opt_f64()),
        ints in proptest::array::uniform9(opt_i64()),
        think in opt_f64(),
    ) -> Record {
        Record {
            job,
            submit: times[0],
            wait: times[1],
            run_time: times[2],
            allocated_procs: ints[0],
            avg_cpu_time: times[3],
            used_memory: times[4],
            requested_procs: ints[1],
            requested_time: times[5],
            requested_memory: times[6],
            status: ints[2],
            user: ints[3],
            group: ints[4],
            executable: ints[5],
            queue: ints[6],
            partition: ints[7],
            preceding_job: ints[8],
            think_time: think,
        }
    }
}

/// Header text as the parser produces it: trimmed lines, no empty lines.
fn value() -> impl Strategy<Value = String> {
    proptest::collection::vec("[A-Za-z0-9][A-Za-z0-9 ./:()=<>-]{0,20}[A-Za-z0-9.)]", 1..3)
        .prop_map(|lines| lines.join("\n"))
}

fn opt_value() -> impl Strategy<Value = Option<String>> {
    proptest::option::of(value())
}

prop_compose! {
    fn header()(
        texts in proptest::array::uniform8(opt_value()),
        nums in proptest::array::uniform8(proptest::option::of(0u64..1_000_000_000)),
        unix in proptest::option::of(-1_000_000i64..2_000_000_000),
        allow in proptest::option::of(any::<bool>()),
        queue in proptest::collection::vec(value(), 0..3),
        notes in proptest::collection::vec(value(), 0..3),
        other in proptest::collection::vec(("X[a-z]{1,8}", value()), 0..3),
    ) -> Header {
        Header {
            version: texts[0].clone(),
            computer: texts[1].clone(),
            installation: texts[2].clone(),
            information: texts[3].clone(),
            preemption: texts[4].clone(),
            time_zone_string: texts[5].clone(),
            start_time: texts[6].clone(),
            partitions: texts[7].clone(),
            max_jobs: nums[0],
            max_records: nums[1],
            max_nodes: nums[2],
            max_procs: nums[3],
            max_runtime: nums[4],
            max_memory: nums[5],
            max_queues: nums[6],
            max_partitions: nums[7],
            unix_start_time: unix,
            allow_overuse: allow,
            queue,
            notes,
            other,
            ..Header::default()
        }
    }
}

fn parse(bytes: &[u8]) -> (Header, Vec<Record>) {
    let mut reader = SwfReader::new(bytes, "gen.swf", Strictness::Strict).expect("header parses");
    let records = reader
        .by_ref()
        .collect::<Result<Vec<_>, _>>()
        .expect("records parse");
    (reader.header().clone(), records)
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 128, ..ProptestConfig::default() })]

    #[test]
    fn write_then_parse_gives_equal_records_and_header(
        h in header(),
        records in proptest::collection::vec(record(), 0..40),
    ) {
        let mut out = Vec::new();
        write_trace(&h, &records, &mut out).unwrap();
        let (h2, r2) = parse(&out);
        prop_assert_eq!(&h2, &h, "written:\n{}", String::from_utf8_lossy(&out));
        prop_assert_eq!(&r2, &records);
        // And once more: parse → write → parse is stable.
        let mut again = Vec::new();
        write_trace(&h2, &r2, &mut again).unwrap();
        prop_assert_eq!(parse(&again), (h, records));
    }
}

#[test]
fn real_trace_round_trips() {
    use std::io::Read;
    let mut text = Vec::new();
    let input = interstice_swf::input::open(&crate::shared_data("KTH-SP2-1996-2.1-cln.swf.gz")).unwrap();
    input.reader.take(200_000).read_to_end(&mut text).unwrap();
    // Cut at the last full line.
    let end = text.iter().rposition(|&b| b == b'\n').unwrap() + 1;
    let (h, r) = parse(&text[..end]);
    assert_eq!(h.max_procs, Some(100));
    assert!(r.len() > 1000);
    let mut out = Vec::new();
    write_trace(&h, &r, &mut out).unwrap();
    assert_eq!(parse(&out), (h, r));
}
