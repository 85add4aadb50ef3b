//! The fixed BTF header: magic, version, and where the type and string sections lie.

use std::ops::Range;

use crate::error::BtfError;

pub(crate) const MAGIC: u16 = 0xeb9f;
/// The size of the header as first defined; later versions may only grow it (`hdr_len`).
const MIN_HEADER_LEN: usize = 24;

/// The two sections, as absolute byte ranges into the data (already bounds-checked).
#[derive(Debug, Clone)]
pub(crate) struct Header {
    pub types: Range<usize>,
    pub strings: Range<usize>,
}

pub(crate) fn u16_at(data: &[u8], off: usize) -> u16 {
    match data.get(off..off + 2) {
        Some(b) => u16::from_le_bytes([b[0], b[1]]),
        None => 0,
    }
}

/// Reads a little-endian u32; out-of-range reads give 0 so that no input can panic.
/// Callers only read inside records whose bounds the index has already checked.
pub(crate) fn u32_at(data: &[u8], off: usize) -> u32 {
    match data.get(off..off.saturating_add(4)) {
        Some(b) => u32::from_le_bytes([b[0], b[1], b[2], b[3]]),
        None => 0,
    }
}

impl Header {
    pub(crate) fn parse(data: &[u8]) -> Result<Header, BtfError> {
        if data.len() < 4 {
            return Err(BtfError::Truncated { what: "header" });
        }
        let magic = u16_at(data, 0);
        if magic != MAGIC {
            return Err(BtfError::BadMagic { found: magic });
        }
        if data[2] != 1 {
            return Err(BtfError::UnsupportedVersion(data[2]));
        }
        if data.len() < MIN_HEADER_LEN {
            return Err(BtfError::Truncated { what: "header" });
        }
        // Offsets are kept as u32 in the index, so the whole blob must be addressable by one.
        if u32::try_from(data.len()).is_err() {
            return Err(BtfError::Malformed("the data is larger than 4 GiB".into()));
        }
        let hdr_len = u32_at(data, 4) as usize;
        if hdr_len < MIN_HEADER_LEN {
            return Err(BtfError::Malformed(format!(
                "header length {hdr_len} is below {MIN_HEADER_LEN}"
            )));
        }
        if hdr_len > data.len() {
            return Err(BtfError::Truncated { what: "header" });
        }
        let section = |off_at: usize, what: &'static str| -> Result<Range<usize>, BtfError> {
            let start = hdr_len.checked_add(u32_at(data, off_at) as usize);
            let end = start.and_then(|s| s.checked_add(u32_at(data, off_at + 4) as usize));
            match (start, end) {
                (Some(start), Some(end)) if end <= data.len() => Ok(start..end),
                _ => Err(BtfError::Truncated { what }),
            }
        };
        let types = section(8, "type section")?;
        let strings = section(16, "string section")?;
        Ok(Header { types, strings })
    }
}
