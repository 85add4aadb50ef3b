//! Decoded values: what a map key/value or a printf argument turns into once read out of the
//! kernel, and how each prints as text, as JSON, and in sort order.

use std::cmp::Ordering;
use std::fmt;

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Value {
    /// Any integer, held as its 64-bit pattern; `signed` says how to read it.
    Int {
        v: u64,
        signed: bool,
    },
    /// A C string: printed up to the first NUL, non-printable bytes as `\xNN`.
    Str(Vec<u8>),
    /// Raw memory (`mem()`), printed as hex bytes `0a 1b ...`.
    Bytes(Vec<u8>),
    /// bpftrace's `buf()`: printed as `%r` prints it, printable ASCII as is and every other byte
    /// as `\xNN` (`%rx`: every byte as `\xNN`, `%rh`: as hex bytes `0a 1b`).
    Buf(Vec<u8>),
    /// A code address. `name` is whatever the resolver produced (e.g. `vfs_read+0x10`, see
    /// [`Value::sym_at`]); without one the address prints as `0x...`.
    Sym {
        addr: u64,
        name: Option<String>,
    },
    Tuple(Vec<Value>),
    /// A C array's elements: `[1,2,3]` in text (as bpftrace prints arrays), a JSON array.
    Array(Vec<Value>),
    /// bpftrace's record (a tuple with named fields) or a struct's members by name:
    /// `{ .a = 1, .b = x }`, a JSON object with the members in their own order.
    Record(Vec<(String, Value)>),
    /// bpftrace's `bool`: printed `true`/`false`, a JSON boolean.
    Bool(bool),
    /// A pointer: `0x...` in text, the number in JSON (as bpftrace prints pointers).
    Ptr(u64),
    /// A number with a name (a script enum's enumerator): the name in text, the number in
    /// JSON, ordered by the number.
    Named {
        v: i64,
        name: String,
    },
}

impl Value {
    pub fn int(v: i64) -> Value {
        Value::Int { v: v as u64, signed: true }
    }
    pub fn uint(v: u64) -> Value {
        Value::Int { v, signed: false }
    }
    pub fn str(s: impl AsRef<[u8]>) -> Value {
        Value::Str(s.as_ref().to_vec())
    }
    /// A symbol resolved to `name` starting at `start`: prints `name` or `name+0xoff`.
    pub fn sym_at(addr: u64, name: &str, start: u64) -> Value {
        let off = addr.wrapping_sub(start);
        let name = if off == 0 { name.to_string() } else { format!("{name}+0x{off:x}") };
        Value::Sym { addr, name: Some(name) }
    }

    /// An integer's or address's 64 bits.
    pub fn bits(&self) -> Option<u64> {
        match *self {
            Value::Int { v, .. } | Value::Ptr(v) | Value::Sym { addr: v, .. } => Some(v),
            _ => None,
        }
    }

    /// Value `i` of a record as an integer's or address's 64 bits (0 when it is missing or not
    /// one).
    pub fn u64_at(values: &[Value], i: usize) -> u64 {
        values.get(i).and_then(Value::bits).unwrap_or(0)
    }

    /// The integer read as i128 so signed and unsigned compare by numeric value.
    pub fn as_i128(&self) -> Option<i128> {
        match *self {
            Value::Int { v, signed: true } => Some(v as i64 as i128),
            Value::Int { v, signed: false } => Some(v as i128),
            _ => None,
        }
    }

    /// A key that orders values the way maps are sorted: integers numerically, strings
    /// bytewise (up to the NUL), symbols by address, tuples element by element.
    pub fn sort_key(&self) -> SortKey {
        match self {
            Value::Int { .. } => SortKey::Int(self.as_i128().unwrap_or(0)),
            Value::Sym { addr, .. } | Value::Ptr(addr) => SortKey::Int(*addr as i128),
            Value::Bool(b) => SortKey::Int(*b as i128),
            Value::Named { v, .. } => SortKey::Int(*v as i128),
            Value::Str(b) => SortKey::Bytes(until_nul(b).to_vec()),
            Value::Bytes(b) | Value::Buf(b) => SortKey::Bytes(b.clone()),
            Value::Tuple(vs) | Value::Array(vs) => {
                SortKey::Tuple(vs.iter().map(Value::sort_key).collect())
            }
            Value::Record(fs) => SortKey::Tuple(fs.iter().map(|(_, v)| v.sort_key()).collect()),
        }
    }

    /// Compare by [`Value::sort_key`].
    pub fn cmp_sort(&self, other: &Value) -> Ordering {
        self.sort_key().cmp(&other.sort_key())
    }

    /// Integers as numbers, tuples as arrays, everything else as its text form.
    pub fn to_json(&self) -> serde_json::Value {
        match *self {
            Value::Int { v, signed: true } => (v as i64).into(),
            Value::Int { v, signed: false } => v.into(),
            Value::Tuple(ref vs) | Value::Array(ref vs) => vs.iter().map(Value::to_json).collect(),
            Value::Record(ref fs) => {
                fs.iter().map(|(name, v)| (name.clone(), v.to_json())).collect()
            }
            Value::Bool(b) => b.into(),
            Value::Ptr(p) => p.into(),
            Value::Named { v, .. } => v.into(),
            _ => self.json_text().into(),
        }
    }

    /// The value as text inside a JSON string: a string's characters as they are (the JSON
    /// quoting escapes a newline as `\n`, as bpftrace's does), other values as printed.
    pub fn json_text(&self) -> String {
        match self {
            Value::Str(b) => json_str(b),
            _ => self.to_string(),
        }
    }
}

/// Up to the NUL; valid UTF-8 as is, control characters included (JSON's quoting escapes them),
/// other bytes as `\xNN` (JSON strings hold only UTF-8).
fn json_str(b: &[u8]) -> String {
    let mut out = String::new();
    for chunk in until_nul(b).utf8_chunks() {
        out.push_str(chunk.valid());
        for byte in chunk.invalid() {
            out.push_str(&format!("\\x{byte:02x}"));
        }
    }
    out
}

/// Sort order for [`Value`]s; derive(Ord) ranks kinds Int < Bytes < Tuple when they differ.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum SortKey {
    Int(i128),
    Bytes(Vec<u8>),
    Tuple(Vec<SortKey>),
}

/// A C string's bytes before its terminating NUL.
pub fn until_nul(b: &[u8]) -> &[u8] {
    b.iter().position(|&c| c == 0).map_or(b, |n| &b[..n])
}

/// bpftrace's `%r`: printable ASCII as is, every other byte as `\xNN`.
pub fn escape_bytes(b: &[u8]) -> String {
    b.iter()
        .map(|&c| match c {
            0x20..=0x7e => (c as char).to_string(),
            _ => format!("\\x{:02x}", c),
        })
        .collect()
}

/// Up to the NUL; printable ASCII and valid non-control UTF-8 as is, other bytes as `\xNN`.
pub fn escape_str(b: &[u8]) -> String {
    let mut out = String::new();
    for chunk in until_nul(b).utf8_chunks() {
        for c in chunk.valid().chars() {
            if c.is_control() {
                let mut buf = [0u8; 4];
                for byte in c.encode_utf8(&mut buf).bytes() {
                    out.push_str(&format!("\\x{byte:02x}"));
                }
            } else {
                out.push(c);
            }
        }
        for byte in chunk.invalid() {
            out.push_str(&format!("\\x{byte:02x}"));
        }
    }
    out
}

impl fmt::Display for Value {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Value::Int { v, signed: true } => write!(f, "{}", *v as i64),
            Value::Int { v, signed: false } => write!(f, "{v}"),
            Value::Str(b) => f.write_str(&escape_str(b)),
            Value::Bytes(b) => {
                let hex: Vec<String> = b.iter().map(|x| format!("{x:02x}")).collect();
                f.write_str(&hex.join(" "))
            }
            Value::Sym { name: Some(n), .. } => f.write_str(n),
            Value::Sym { addr, name: None } | Value::Ptr(addr) => write!(f, "0x{addr:x}"),
            Value::Bool(b) => write!(f, "{b}"),
            Value::Named { name, .. } => f.write_str(name),
            Value::Buf(b) => f.write_str(&escape_bytes(b)),
            Value::Tuple(vs) => {
                let parts: Vec<String> = vs.iter().map(Value::to_string).collect();
                write!(f, "({})", parts.join(", "))
            }
            Value::Array(vs) => {
                let parts: Vec<String> = vs.iter().map(Value::to_string).collect();
                write!(f, "[{}]", parts.join(","))
            }
            Value::Record(fs) => {
                let parts: Vec<String> = fs.iter().map(|(n, v)| format!(".{n} = {v}")).collect();
                write!(f, "{{ {} }}", parts.join(", "))
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn display_ints() {
        assert_eq!(Value::int(-5).to_string(), "-5");
        assert_eq!(Value::Int { v: u64::MAX, signed: false }.to_string(), "18446744073709551615");
        assert_eq!(Value::Int { v: u64::MAX, signed: true }.to_string(), "-1");
        assert_eq!(Value::uint(42).to_string(), "42");
    }

    #[test]
    fn records_print_their_field_names() {
        let inner = Value::Record(vec![("x".into(), Value::int(1)), ("y".into(), Value::int(2))]);
        let pair = Value::Tuple(vec![Value::int(5), Value::int(6)]);
        let r = Value::Record(vec![
            ("a".into(), Value::int(0)),
            ("c".into(), Value::str("str")),
            ("d".into(), pair),
            ("e".into(), inner),
        ]);
        assert_eq!(r.to_string(), "{ .a = 0, .c = str, .d = (5, 6), .e = { .x = 1, .y = 2 } }");
        let json = r.to_json().to_string();
        assert_eq!(json, r#"{"a":0,"c":"str","d":[5,6],"e":{"x":1,"y":2}}"#);
    }

    #[test]
    fn display_strings() {
        assert_eq!(Value::str("bash\0junk").to_string(), "bash");
        assert_eq!(Value::str(b"a\tb\x01\xff").to_string(), "a\\x09b\\x01\\xff");
        assert_eq!(Value::str(b"a\nb\xff\0c").json_text(), "a\nb\\xff");
        assert_eq!(Value::str("héllo").to_string(), "héllo");
        assert_eq!(Value::str(b"").to_string(), "");
        // A C1 control character is escaped byte by byte.
        assert_eq!(Value::str("\u{85}").to_string(), "\\xc2\\x85");
    }

    #[test]
    fn display_bytes_syms_tuples() {
        assert_eq!(Value::Bytes(vec![0x0a, 0x1b, 0, 0xff]).to_string(), "0a 1b 00 ff");
        assert_eq!(Value::Bytes(vec![]).to_string(), "");
        assert_eq!(Value::Buf(b"ab\0\x7f\n".to_vec()).to_string(), "ab\\x00\\x7f\\x0a");
        assert_eq!(
            Value::Sym { addr: 0xffffffff81000000, name: None }.to_string(),
            "0xffffffff81000000"
        );
        assert_eq!(Value::sym_at(0x1010, "vfs_read", 0x1000).to_string(), "vfs_read+0x10");
        assert_eq!(Value::sym_at(0x1000, "vfs_read", 0x1000).to_string(), "vfs_read");
        assert_eq!(Value::Ptr(0x34).to_string(), "0x34");
        assert_eq!(Value::Ptr(0x34).to_json(), serde_json::json!(0x34));
        assert_eq!(Value::Ptr(0x34).bits(), Some(0x34));
        let t = Value::Tuple(vec![Value::str("bash"), Value::int(-1), Value::uint(3)]);
        assert_eq!(t.to_string(), "(bash, -1, 3)");
        let row = |a, b| Value::Array(vec![Value::int(a), Value::int(b)]);
        let nested = Value::Array(vec![row(5, 6), row(-7, 8)]);
        assert_eq!(nested.to_string(), "[[5,6],[-7,8]]");
        assert_eq!(nested.to_json(), serde_json::json!([[5, 6], [-7, 8]]));
        assert_eq!(Value::Tuple(vec![Value::int(1), row(1, 2)]).to_string(), "(1, [1,2])");
        let s = Value::Record(vec![("m".into(), Value::int(2)), ("n".into(), row(3, 4))]);
        assert_eq!(s.to_string(), "{ .m = 2, .n = [3,4] }");
        assert_eq!(s.to_json(), serde_json::json!({"m": 2, "n": [3, 4]}));
    }

    #[test]
    fn json() {
        assert_eq!(Value::int(-1).to_json(), serde_json::json!(-1));
        assert_eq!(Value::uint(u64::MAX).to_json(), serde_json::json!(u64::MAX));
        assert_eq!(Value::str("sh\0x").to_json(), serde_json::json!("sh"));
        assert_eq!(Value::Bytes(vec![1, 2]).to_json(), serde_json::json!("01 02"));
        let t = Value::Tuple(vec![Value::str("a"), Value::int(2)]);
        assert_eq!(t.to_json(), serde_json::json!(["a", 2]));
    }

    #[test]
    fn sorting() {
        let mut vs = [Value::uint(10), Value::int(-3), Value::uint(u64::MAX), Value::int(2)];
        vs.sort_by(Value::cmp_sort);
        let s: Vec<String> = vs.iter().map(Value::to_string).collect();
        assert_eq!(s, ["-3", "2", "10", "18446744073709551615"]);
        assert_eq!(Value::str("ab\0z").cmp_sort(&Value::str("ab\0a")), Ordering::Equal);
        assert_eq!(Value::str("ab").cmp_sort(&Value::str("b")), Ordering::Less);
        let t1 = Value::Tuple(vec![Value::uint(1), Value::str("z")]);
        let t2 = Value::Tuple(vec![Value::uint(2), Value::str("a")]);
        assert_eq!(t1.cmp_sort(&t2), Ordering::Less);
        assert_eq!(Value::uint(5).cmp_sort(&Value::str("0")), Ordering::Less);
    }
}
