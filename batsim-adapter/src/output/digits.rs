//! Numbers as `jobs.csv` writes them, without `core::fmt`: a row has up to
//! eight times and a few counts, and a replay writes hundreds of thousands
//! of rows, so the row thread spends most of its time here.
//!
//! Eight digits are made at once in the bytes of one `u64` (a few
//! multiplications and masks, no loop), and a time whose microseconds are
//! zero (every time of an SWF trace's jobs) gets its decimals as a constant.

use interstice_core::Time;

/// The eight decimal digits of `value` (below 10^8), leading zeros
/// included, as the byte values 0 to 9 in reading order (the first digit in
/// the lowest byte). Each step works on several digits at once, in lanes of
/// one word: split in two halves of four digits (32-bit lanes), each half
/// in two pairs (16-bit lanes, `x / 100` as `x * 10486 >> 20`, exact below
/// 10^4), each pair in two digits (8-bit lanes, `x / 10` as
/// `x * 103 >> 10`, exact below 100).
fn eight_digits(value: u32) -> u64 {
    debug_assert!(value < 100_000_000);
    let halves = u64::from(value / 10_000) | (u64::from(value % 10_000) << 32);
    let high_pairs = ((halves * 10_486) >> 20) & ((0x7F << 32) | 0x7F);
    let pairs = ((halves - 100 * high_pairs) << 16) + high_pairs;
    let tens = ((pairs * 103) >> 10) & ((0xF << 48) | (0xF << 32) | (0xF << 16) | 0xF);
    ((pairs - 10 * tens) << 8) + tens
}

/// [`eight_digits`] as ASCII.
fn eight_ascii(value: u32) -> [u8; 8] {
    (eight_digits(value) | 0x3030_3030_3030_3030).to_le_bytes()
}

/// Decimal digits of `value`.
#[inline]
pub(super) fn push_u64(line: &mut Vec<u8>, value: u64) {
    match u32::try_from(value) {
        Ok(short) if short < EIGHT => push_short(line, short),
        _ => push_long(line, value),
    }
}

/// 10^8: numbers below it are one [`eight_digits`].
const EIGHT: u32 = 100_000_000;

/// Decimal digits of `value`, below 10^8: its eight digits, written as one
/// word and cut after the last, with the leading zeros shifted out first
/// (no copy of a slice of variable length).
#[inline]
fn push_short(line: &mut Vec<u8>, value: u32) {
    let digits = eight_digits(value);
    // Leading zeros are the lowest zero bytes; zero itself keeps one.
    let zeros = if value == 0 {
        7
    } else {
        digits.trailing_zeros() / 8
    };
    let ascii = (digits | 0x3030_3030_3030_3030) >> (8 * zeros);
    let len = line.len();
    line.extend_from_slice(&ascii.to_le_bytes());
    line.truncate(len + 8 - zeros as usize);
}

/// Decimal digits of `value`, at least 10^8.
#[inline(never)]
fn push_long(line: &mut Vec<u8>, value: u64) {
    let eight = u64::from(EIGHT);
    push_u64(line, value / eight);
    line.extend_from_slice(&eight_ascii((value % eight) as u32));
}

/// Six decimals, like Batsim's `std::to_string(double)`, computed exactly
/// from ticks (microseconds); `inf` for an infinite time.
pub(super) fn push_time(line: &mut Vec<u8>, time: Time) {
    if time.is_infinite() {
        line.extend_from_slice(b"inf");
        return;
    }
    let ticks = time.ticks();
    if ticks < 0 {
        line.push(b'-');
    }
    let abs = ticks.unsigned_abs();
    push_u64(line, abs / 1_000_000);
    let micros = (abs % 1_000_000) as u32;
    if micros == 0 {
        line.extend_from_slice(b".000000");
    } else {
        let [_, _, a, b, c, d, e, f] = eight_ascii(micros);
        line.extend_from_slice(&[b'.', a, b, c, d, e, f]);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn time_text(ticks: i64) -> String {
        let mut line = Vec::new();
        push_time(&mut line, Time::from_ticks(ticks));
        String::from_utf8(line).unwrap()
    }

    #[test]
    fn edges_are_written_whole() {
        let mut line = Vec::new();
        push_u64(&mut line, u64::MAX);
        push_u64(&mut line, 0);
        assert_eq!(line, format!("{}0", u64::MAX).as_bytes());
        assert_eq!(time_text(0), "0.000000");
        assert_eq!(time_text(-1), "-0.000001");
        assert_eq!(time_text(-1_000_000), "-1.000000");
        assert_eq!(
            time_text(i64::MIN + 1),
            format!("-{}.{:06}", (i64::MAX) / 1_000_000, i64::MAX % 1_000_000)
        );
        assert_eq!(time_text(Time::INFINITY.ticks()), "inf");
    }

    #[test]
    fn every_number_below_ten_thousand_and_its_powers_of_ten() {
        for value in (0..10_000u64)
            .chain((0..20).map(|p| 10u64.pow(p)))
            .chain((1..20).map(|p| 10u64.pow(p) - 1))
        {
            let mut line = Vec::new();
            push_u64(&mut line, value);
            assert_eq!(line, value.to_string().into_bytes());
        }
    }

    proptest! {
        #[test]
        fn numbers_read_as_core_fmt_writes_them(value in any::<u64>(), small in 0u64..1_000_000_000, ticks in any::<i64>()) {
            let mut line = b"x".to_vec();
            push_u64(&mut line, value);
            push_u64(&mut line, small);
            prop_assert_eq!(line, format!("x{value}{small}").into_bytes());
            let time = Time::from_ticks(ticks);
            prop_assume!(!time.is_infinite());
            let sign = if ticks < 0 { "-" } else { "" };
            let abs = ticks.unsigned_abs();
            prop_assert_eq!(time_text(ticks), format!("{sign}{}.{:06}", abs / 1_000_000, abs % 1_000_000));
        }
    }
}
