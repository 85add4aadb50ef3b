//! Raw bytes from the kernel (event records, map keys and values) -> values to print. Pure but
//! for the symbolizer, which names addresses; stacks stay ids here (`collect.rs` reads them).

use sonde_compile::env::STRING_SIZE;
use sonde_compile::tir::{AggFunc, MapInfo, MapValue, TsAgg};
use sonde_compile::types::Type;
use sonde_output::value::Value;
use sonde_symbols::Symbolizer;

fn u64_at(b: &[u8], at: usize) -> u64 {
    b.get(at..at + 8).map(|s| u64::from_le_bytes(s.try_into().unwrap())).unwrap_or(0)
}

/// A script struct's bitfield: `bits` bits from bit `shift` of the bytes at `offset`, its top
/// bit extended when the field's type is `signed` (`int x:3` holding 0b111 is -1).
fn bitfield(b: &[u8], offset: usize, (shift, bits): (u32, u32), signed: bool) -> Value {
    let mut word = [0u8; 16];
    let have = b.get(offset..).unwrap_or(&[]);
    let n = have.len().min(16);
    word[..n].copy_from_slice(&have[..n]);
    let raw = u128::from_le_bytes(word) >> shift;
    let mask = if bits >= 64 { u64::MAX } else { (1u64 << bits) - 1 };
    let v = raw as u64 & mask;
    if signed && (1..64).contains(&bits) {
        let up = 64 - bits;
        return Value::Int { v: (((v << up) as i64) >> up) as u64, signed: true };
    }
    Value::Int { v, signed: false }
}

/// What the run's program prints after a string `str()` cut (bpftrace's `str_trunc_trailer`),
/// and the size of `str()`'s strings (`max_strlen`); set once, before any value is read.
static TRUNC: std::sync::OnceLock<(Vec<u8>, usize)> = std::sync::OnceLock::new();

/// Sets the trailer of cut strings and `str()`'s size (the defaults are bpftrace's `..` and
/// sonde's 63).
pub fn set_trunc_trailer(trailer: &str, max_strlen: usize) {
    let _ = TRUNC.set((trailer.as_bytes().to_vec(), max_strlen));
}

/// A `char[N]`'s text, up to its NUL. A string of `str()`'s size that fills all its bytes was
/// cut there (the read takes one byte more than the string keeps) and gets the trailer, as
/// bpftrace prints it; a char array of another size may fill its bytes whole (`char s[5]`
/// holding "hello") and prints as it is, as in bpftrace.
fn string(s: &[u8]) -> Vec<u8> {
    let (trailer, size) =
        TRUNC.get().map_or((&b".."[..], STRING_SIZE), |(t, n)| (t.as_slice(), *n));
    match s.iter().position(|&c| c == 0) {
        Some(end) => s[..end].to_vec(),
        None if s.len() == size => [s, trailer].concat(),
        None => s.to_vec(),
    }
}

/// One value of type `ty` from its slot (see `Type::slot_size`).
pub fn value(ty: &Type, b: &[u8], sym: &mut Symbolizer) -> Value {
    match ty {
        Type::Int { signed, .. } => Value::Int { v: u64_at(b, 0), signed: *signed },
        // Stacks stay ids here; the collector reads their frames from the stack map.
        Type::Ptr { .. } => Value::Ptr(u64_at(b, 0)),
        Type::Stack { .. } => Value::Int { v: u64_at(b, 0), signed: false },
        Type::Walltime => Value::Str(walltime(u64_at(b, 0)).into_bytes()),
        Type::Strftime(f) => Value::Str(crate::strftime::local(f, u64_at(b, 0))),
        Type::Sym => Value::Sym { addr: u64_at(b, 0), name: sym.ksym(u64_at(b, 0)) },
        Type::USym => Value::Sym { addr: u64_at(b, 0), name: sym.usym(u64_at(b, 0)) },
        Type::Str(n) => Value::Str(string(&b[..(*n).min(b.len())])),
        Type::Bytes(n) => Value::Bytes(b[..(*n).min(b.len())].to_vec()),
        Type::Tuple(elems) => Value::Tuple(values(elems, b, sym)),
        Type::Record { names, elems } => {
            Value::Record(names.iter().cloned().zip(values(elems, b, sym)).collect())
        }
        Type::Array { elem, len } => Value::Array(array(elem, *len, b, sym)),
        Type::Struct(def) => Value::Record(
            def.fields
                .iter()
                .map(|f| {
                    let bytes = b.get(f.offset..f.offset + f.ty.size()).unwrap_or(&[]);
                    let v = match def.bitfield(&f.name) {
                        Some(at) => bitfield(b, f.offset, at, f.ty.is_signed()),
                        None => packed(&f.ty, bytes, sym),
                    };
                    (f.name.clone(), v)
                })
                .collect(),
        ),
        Type::Buf(max) => {
            let n = (u64_at(b, 0) as usize).min(*max);
            Value::Buf(b.get(8..8 + n).unwrap_or(&[]).to_vec())
        }
        Type::SyscallName => Value::Str(syscall_name(u64_at(b, 0)).into_bytes()),
        Type::SignalName => {
            Value::Str(crate::signal_name::strsignal(u64_at(b, 0) as i64).into_bytes())
        }
        Type::Enum(def) => {
            let v = u64_at(b, 0);
            match def.name_of(v as i64) {
                Some(name) => Value::Named { v: v as i64, name: name.to_string() },
                None => Value::Int { v, signed: true },
            }
        }
        Type::MacAddr => {
            let hex: Vec<String> = b.iter().take(6).map(|x| format!("{:02X}", x)).collect();
            Value::Str(hex.join(":").into_bytes())
        }
        Type::Bool => Value::Bool(u64_at(b, 0) != 0),
        Type::Username => Value::Str(username(u64_at(b, 0)).into_bytes()),
        Type::Strerror => Value::Str(strerror(u64_at(b, 0) as i64).into_bytes()),
        Type::CgroupPath => Value::Str(crate::cgroup::printed(u64_at(b, 0)).into_bytes()),
        Type::Inet => Value::Str(inet(u64_at(b, 0), b.get(8..24).unwrap_or(&[])).into_bytes()),
        _ => Value::Bytes(b.to_vec()),
    }
}

/// An array's `len` elements, packed at their own size (C's layout, not slots).
fn array(elem: &Type, len: usize, b: &[u8], sym: &mut Symbolizer) -> Vec<Value> {
    let n = elem.size();
    (0..len).map(|i| packed(elem, b.get(i * n..(i + 1) * n).unwrap_or(&[]), sym)).collect()
}

/// A value of `ty` in exactly its own bytes (an array's element, a struct's member).
fn packed(ty: &Type, bytes: &[u8], sym: &mut Symbolizer) -> Value {
    match ty {
        Type::Int { signed, .. } => Value::Int { v: int_of(bytes, *signed), signed: *signed },
        Type::Bool => Value::Bool(bytes.iter().any(|&x| x != 0)),
        _ => value(ty, bytes, sym),
    }
}

/// A little-endian integer of 1 to 8 bytes, sign-extended when `signed`.
fn int_of(b: &[u8], signed: bool) -> u64 {
    let mut buf = [0u8; 8];
    let n = b.len().min(8);
    buf[..n].copy_from_slice(&b[..n]);
    let v = u64::from_le_bytes(buf);
    if signed && (1..8).contains(&n) {
        let shift = 64 - 8 * n as u32;
        (((v << shift) as i64) >> shift) as u64
    } else {
        v
    }
}

/// A record's or key's values laid out one slot after another.
pub fn values(types: &[Type], b: &[u8], sym: &mut Symbolizer) -> Vec<Value> {
    let mut at = 0;
    types
        .iter()
        .map(|t| {
            let end = (at + t.slot_size()).min(b.len());
            let v = value(t, &b[at.min(end)..end], sym);
            at += t.slot_size();
            v
        })
        .collect()
}

/// bpftrace's `syscall_name(nr)`: the name in `sonde trace`'s table (this architecture's
/// numbers, from libc's constants), or bpftrace's "Unknown syscall".
pub fn syscall_name(nr: u64) -> String {
    let found = u32::try_from(nr).ok().and_then(|n| sonde_trace::nr::all().find(|(k, _)| *k == n));
    found.map_or_else(|| "Unknown syscall".to_string(), |(_, name)| name.to_string())
}

/// bpftrace's `username`: the name of user `uid` in /etc/passwd, empty when it has none.
pub fn username(uid: u64) -> String {
    let passwd = std::fs::read_to_string("/etc/passwd").unwrap_or_default();
    passwd
        .lines()
        .find_map(|l| {
            let mut f = l.split(':');
            let name = f.next()?;
            (f.nth(1)? == uid.to_string()).then(|| name.to_string())
        })
        .unwrap_or_default()
}

/// bpftrace's `join()` record: NUL-terminated strings in slots of `JOIN_ARG_SIZE` bytes, up
/// to the first empty one, with `sep` between them.
pub fn join(rec: &[u8], sep: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    for (i, slot) in rec.chunks(sonde_compile::abi::JOIN_ARG_SIZE).enumerate() {
        let end = slot.iter().position(|&c| c == 0).unwrap_or(slot.len());
        if end == 0 {
            break;
        }
        if i > 0 {
            out.extend_from_slice(sep);
        }
        out.extend_from_slice(&slot[..end]);
    }
    out
}

/// strerror(3)'s text for error number `n` ("No such file or directory").
pub fn strerror(n: i64) -> String {
    let Ok(n) = i32::try_from(n) else { return format!("Unknown error {}", n) };
    let s = std::io::Error::from_raw_os_error(n).to_string();
    // std adds " (os error N)" to libc's text.
    s.strip_suffix(&format!(" (os error {})", n)).unwrap_or(&s).to_string()
}

/// An address as inet_ntop(3) writes it: AF_INET's first 4 bytes, AF_INET6's 16; another
/// family is named by its number.
pub fn inet(family: u64, addr: &[u8]) -> String {
    const AF_INET: u64 = 2;
    const AF_INET6: u64 = 10;
    match (family, addr.len()) {
        (AF_INET, 4..) => std::net::Ipv4Addr::new(addr[0], addr[1], addr[2], addr[3]).to_string(),
        (AF_INET6, 16..) => {
            let b: [u8; 16] = addr[..16].try_into().unwrap_or_default();
            std::net::Ipv6Addr::from(b).to_string()
        }
        _ => format!("(address family {})", family),
    }
}

/// One map entry's value, merged across CPUs for aggregations.
#[derive(Clone, Debug, PartialEq)]
pub enum Merged {
    Value(Value),
    /// Count of one histogram bucket.
    Bucket(u32, u64),
    /// avg and stats: (count, sum).
    CountSum(u64, u64),
    /// One tseries interval: its epoch (the time divided by the interval) and value.
    Point(u64, Value),
}

/// A tseries slot's CPUs' {value, meta, epoch} combined as bpftrace combines them: the values
/// of the latest epoch, the most recent (no agg: meta is the time), summed, the least or the
/// greatest, or averaged (meta counts them). Epoch 0 means unwritten, so a slot of epoch 0
/// alone (only a test's clock starts there) reads as epoch 0 with value 0, as in bpftrace.
fn tseries_point(cpus: &[Vec<u8>], agg: TsAgg, signed: bool) -> Option<(u64, u64)> {
    let slots = cpus.iter().map(|c| (u64_at(c, 0), u64_at(c, 8), u64_at(c, 16)));
    let latest = slots.clone().map(|s| s.2).max()?;
    if latest == 0 {
        return Some((0, 0));
    }
    let mut it = slots.filter(|s| s.2 == latest);
    let (mut val, mut meta, _) = it.next()?;
    let less = |a: u64, b: u64| if signed { (a as i64) < (b as i64) } else { a < b };
    for (v, m, _) in it {
        match agg {
            TsAgg::Last if m > meta => (val, meta) = (v, m),
            TsAgg::Last => {}
            TsAgg::Sum => val = val.wrapping_add(v),
            TsAgg::Avg => (val, meta) = (val.wrapping_add(v), meta.wrapping_add(m)),
            TsAgg::Min if less(v, val) => val = v,
            TsAgg::Max if less(val, v) => val = v,
            TsAgg::Min | TsAgg::Max => {}
        }
    }
    if agg == TsAgg::Avg && meta > 0 {
        val = if signed { ((val as i64) / meta as i64) as u64 } else { val / meta };
    }
    Some((latest, val))
}

/// Merge per-CPU values (or the single value of a plain map).
pub fn merge(info: &MapInfo, key: &[u8], cpus: &[Vec<u8>], sym: &mut Symbolizer) -> Option<Merged> {
    match &info.value {
        MapValue::Plain(t) => Some(Merged::Value(value(t, cpus.first()?, sym))),
        MapValue::Agg { func, signed } => {
            let signed = *signed;
            let sum = |off: usize| cpus.iter().fold(0u64, |a, c| a.wrapping_add(u64_at(c, off)));
            Some(match func {
                AggFunc::Count => Merged::Value(Value::Int { v: sum(0), signed: false }),
                AggFunc::Sum => Merged::Value(Value::Int { v: sum(0), signed }),
                AggFunc::Min | AggFunc::Max => {
                    let set = cpus.iter().filter(|c| u64_at(c, 8) != 0).map(|c| u64_at(c, 0));
                    let best = if signed {
                        let it = set.map(|v| v as i64);
                        if *func == AggFunc::Min { it.min() } else { it.max() }.map(|v| v as u64)
                    } else if *func == AggFunc::Min {
                        set.min()
                    } else {
                        set.max()
                    };
                    Merged::Value(Value::Int { v: best?, signed })
                }
                AggFunc::Avg | AggFunc::Stats => Merged::CountSum(sum(0), sum(8)),
                AggFunc::Quantize { .. } | AggFunc::Lhist { .. } => {
                    Merged::Bucket(u64_at(key, key.len() - 8) as u32, sum(0))
                }
                AggFunc::Tseries { agg, .. } => {
                    let (epoch, v) = tseries_point(cpus, *agg, signed)?;
                    Merged::Point(epoch, Value::Int { v, signed })
                }
            })
        }
    }
}

/// Integer average as bpftrace prints it.
pub fn average(count: u64, sum: u64, signed: bool) -> Value {
    if count == 0 {
        return Value::Int { v: 0, signed };
    }
    if signed {
        Value::Int { v: ((sum as i64) / count as i64) as u64, signed }
    } else {
        Value::Int { v: sum / count, signed }
    }
}

/// A `bpf_ktime_get_ns()` timestamp as UTC wall-clock time (RFC 3339, nanoseconds).
pub fn walltime(monotonic_ns: u64) -> String {
    let offset = sonde_kernel::host::clock::realtime_ns() as i128
        - sonde_kernel::host::clock::monotonic_ns() as i128;
    let t = (monotonic_ns as i128 + offset).max(0) as u64;
    let (secs, nanos) = (t / 1_000_000_000, t % 1_000_000_000);
    let (days, rem) = (secs / 86_400, secs % 86_400);
    let (y, m, d) = civil_from_days(days as i64);
    format!(
        "{:04}-{:02}-{:02}T{:02}:{:02}:{:02}.{:09}Z",
        y,
        m,
        d,
        rem / 3600,
        rem / 60 % 60,
        rem % 60,
        nanos
    )
}

pub use sonde_output::calendar::civil_from_days;

#[cfg(test)]
mod tests {
    use super::{inet, strerror, tseries_point, value};
    use sonde_compile::tir::TsAgg;

    #[test]
    fn tseries_slots_combine_across_cpus_as_bpftrace_does() {
        let slot = |v: i64, meta: u64, epoch: u64| {
            [v as u64, meta, epoch].iter().flat_map(|x| x.to_le_bytes()).collect::<Vec<u8>>()
        };
        let cpus = [slot(3, 20, 7), slot(5, 10, 7), slot(9, 99, 6)];
        assert_eq!(tseries_point(&cpus, TsAgg::Last, false), Some((7, 3)));
        assert_eq!(tseries_point(&cpus, TsAgg::Sum, false), Some((7, 8)));
        assert_eq!(tseries_point(&cpus, TsAgg::Max, false), Some((7, 5)));
        let avg = [slot(-6, 2, 4), slot(-2, 2, 4)];
        assert_eq!(tseries_point(&avg, TsAgg::Avg, true), Some((4, (-2i64) as u64)));
        assert_eq!(tseries_point(&[slot(5, 1, 0)], TsAgg::Last, false), Some((0, 0)));
    }
    use sonde_compile::types::Type;
    use sonde_symbols::Symbolizer;

    #[test]
    fn arrays_are_packed_elements_and_pointers_hex() {
        let mut sym = Symbolizer::new(None);
        let int = Type::Int { bytes: 4, signed: true };
        let row = Type::Array { elem: Box::new(int), len: 2 };
        let grid = Type::Array { elem: Box::new(row), len: 2 };
        let mut b = Vec::new();
        for v in [5i32, 6, -7, 8] {
            b.extend_from_slice(&v.to_le_bytes());
        }
        assert_eq!(value(&grid, &b, &mut sym).to_string(), "[[5,6],[-7,8]]");
        let bytes = Type::Array { elem: Box::new(Type::U8), len: 3 };
        assert_eq!(value(&bytes, &[0xff, 1, 2, 0, 0, 0, 0, 0], &mut sym).to_string(), "[255,1,2]");
        let field = |name: &str, offset, ty| sonde_compile::types::Field {
            name: name.into(),
            offset,
            ty,
            data_loc: false,
        };
        let def = sonde_compile::types::StructDef {
            name: "Foo".into(),
            size: 8,
            align: None,
            fields: vec![field("m", 0, Type::S32), field("n", 4, Type::U16)],
            bitfields: Vec::new(),
            enums: Vec::new(),
        };
        let foo = Type::Struct(std::rc::Rc::new(def));
        assert_eq!(
            value(&foo, &[0xfe, 0xff, 0xff, 0xff, 3, 0, 9, 9], &mut sym).to_string(),
            "{ .m = -2, .n = 3 }"
        );
        // `struct { T x:1, y:1, z:2; }` holding 0x1e: a signed field's top bit extends.
        let bits = |ty: Type| {
            let def = sonde_compile::types::StructDef {
                name: "Bits".into(),
                size: 8,
                align: None,
                fields: ["x", "y", "z"].iter().map(|n| field(n, 0, ty.clone())).collect(),
                bitfields: vec![("x".into(), 0, 1), ("y".into(), 1, 1), ("z".into(), 2, 2)],
                enums: Vec::new(),
            };
            Type::Struct(std::rc::Rc::new(def))
        };
        let read = |ty: Type, sym: &mut Symbolizer| {
            value(&bits(ty), &0x1eu64.to_le_bytes(), sym).to_string()
        };
        assert_eq!(read(Type::U64, &mut sym), "{ .x = 0, .y = 1, .z = 3 }");
        assert_eq!(read(Type::S64, &mut sym), "{ .x = 0, .y = -1, .z = -1 }");
        let ptr = Type::Ptr { to: Box::new(Type::U32), user: false };
        assert_eq!(value(&ptr, &0x36u64.to_le_bytes(), &mut sym).to_string(), "0x36");
    }

    #[test]
    fn a_string_of_str_s_size_that_fills_it_was_cut_and_says_so() {
        use sonde_compile::env::STRING_SIZE;
        use sonde_output::value::Value;
        let mut sym = Symbolizer::new(None);
        let mut full = vec![b'x'; STRING_SIZE];
        let cut = value(&Type::Str(STRING_SIZE), &full, &mut sym);
        assert_eq!(cut, Value::Str([&full[..], b".."].concat()));
        full[3] = 0;
        assert_eq!(value(&Type::Str(STRING_SIZE), &full, &mut sym), Value::Str(b"xxx".to_vec()));
        // A char array of another size is whole when it fills its bytes.
        assert_eq!(value(&Type::Str(5), b"hello", &mut sym), Value::Str(b"hello".to_vec()));
    }

    #[test]
    fn error_numbers() {
        assert_eq!(strerror(2), "No such file or directory");
        assert_eq!(strerror(1), "Operation not permitted");
        assert_eq!(strerror(1 << 40), "Unknown error 1099511627776");
    }

    #[test]
    fn inet_addresses() {
        let mut v4 = [0u8; 16];
        v4[..4].copy_from_slice(&[127, 0, 0, 1]);
        assert_eq!(inet(2, &v4), "127.0.0.1");
        let mut v6 = [0u8; 16];
        v6[15] = 1;
        assert_eq!(inet(10, &v6), "::1");
        v6[10..12].copy_from_slice(&[0xff, 0xff]);
        v6[12..].copy_from_slice(&[10, 0, 0, 2]);
        assert_eq!(inet(10, &v6), "::ffff:10.0.0.2");
        assert_eq!(inet(1, &v6), "(address family 1)");
    }
}
