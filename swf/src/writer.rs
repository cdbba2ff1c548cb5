//! Writing SWF: a header then records, in the normalised layout. Reading
//! what this writes gives back equal records and an equal header.

use crate::header::Header;
use crate::record::Record;
use std::io::{self, Write};

/// Write a whole trace: the header (if not empty), then each record.
pub fn write_trace<'a, W: Write>(
    header: &Header,
    records: impl IntoIterator<Item = &'a Record>,
    out: &mut W,
) -> io::Result<()> {
    header.write_to(out)?;
    for r in records {
        r.write_to(out)?;
    }
    Ok(())
}
