//! Bytes in C quotes as strace writes them (its `string_quote`): `\"`, `\\`, `\f\n\r\t\v`,
//! printable ASCII as is, other bytes in octal, three digits when an octal digit follows (so
//! `\0` then `1` reads `\0001`); or every byte in hex (`\x0a`, getrandom's).

use std::fmt::Write;

pub fn escape(bytes: &[u8]) -> String {
    let mut s = String::with_capacity(bytes.len() + 2);
    for (i, &b) in bytes.iter().enumerate() {
        match b {
            b'"' => s.push_str("\\\""),
            b'\\' => s.push_str("\\\\"),
            0x0c => s.push_str("\\f"),
            b'\n' => s.push_str("\\n"),
            b'\r' => s.push_str("\\r"),
            b'\t' => s.push_str("\\t"),
            0x0b => s.push_str("\\v"),
            0x20..=0x7e => s.push(b as char),
            _ => {
                let octal_next = bytes.get(i + 1).is_some_and(|n| (b'0'..=b'7').contains(n));
                let _ = match octal_next {
                    true => write!(s, "\\{b:03o}"),
                    false => write!(s, "\\{b:o}"),
                };
            }
        }
    }
    s
}

/// A buffer of `len` bytes of which `copied` were copied: up to `len`, `...` after when the
/// copy was shorter.
pub fn buffer(copied: &[u8], len: u64) -> String {
    let n = copied.len().min(len as usize);
    let cut = if len as usize > n { "..." } else { "" };
    format!("\"{}\"{cut}", escape(&copied[..n]))
}

/// Every byte in hex, as strace prints getrandom's.
pub fn hex_buffer(copied: &[u8], len: u64) -> String {
    let n = copied.len().min(len as usize);
    let cut = if len as usize > n { "..." } else { "" };
    let hex: String = copied[..n].iter().map(|b| format!("\\x{b:02x}")).collect();
    format!("\"{hex}\"{cut}")
}

/// A NUL-ended string (a path the call filled).
pub fn c_string(copied: &[u8]) -> String {
    let end = copied.iter().position(|&b| b == 0).unwrap_or(copied.len());
    format!("\"{}\"", escape(&copied[..end]))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn octal_as_strace_writes_it() {
        let elf = b"\x7fELF\x02\x01\x01\0\0\0\0\0\0\0\0\0\x03\0>\0\x01\0\0\0";
        assert_eq!(escape(elf), r"\177ELF\2\1\1\0\0\0\0\0\0\0\0\0\3\0>\0\1\0\0\0");
        assert_eq!(escape(b"\x001"), r"\0001");
        assert_eq!(escape(b"\x009"), r"\09");
        assert_eq!(escape(b"a\"\\\r\x0b\x0c"), r#"a\"\\\r\v\f"#);
    }

    #[test]
    fn buffers_are_cut_with_dots() {
        assert_eq!(buffer(b"0123", 10), r#""0123"..."#);
        assert_eq!(buffer(b"ping\n\0\0\0", 5), r#""ping\n""#);
        assert_eq!(hex_buffer(b"\xeb\x0f", 2), r#""\xeb\x0f""#);
        assert_eq!(c_string(b"/work\0junk"), r#""/work""#);
    }
}
