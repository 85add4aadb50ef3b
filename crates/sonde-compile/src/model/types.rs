//! The type system: C's integers, pointers, fixed-size strings and structs.

use std::fmt;
use std::rc::Rc;

/// Frames kept per stack at most (the kernel's PERF_MAX_STACK_DEPTH): a stack's depth unless
/// the program asks for fewer (`kstack(3)`).
pub const STACK_DEPTH: u32 = 127;

#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub enum Type {
    Void,
    /// An integer of 1, 2, 4 or 8 bytes.
    Int {
        bytes: u8,
        signed: bool,
    },
    /// A pointer; `user` is true for pointers into user memory (syscall arguments, uprobe args),
    /// which must be read with the `_user` probe-read helpers. Otherwise the memory is the
    /// kernel's or not known statically (kprobe arguments), and reads let the address decide.
    Ptr {
        to: Box<Type>,
        user: bool,
    },
    /// A NUL-terminated string in a buffer of this many bytes (`char[N]`).
    Str(usize),
    /// Raw bytes from `mem()`, printed as hex.
    Bytes(usize),
    /// A fixed array of non-char elements (from tracepoint fields such as `__u8 saddr[4]`).
    Array {
        elem: Box<Type>,
        len: usize,
    },
    Struct(Rc<StructDef>),
    /// A struct or union described by BTF (type `id`): the kernel's, or a user binary's. Its members are looked up
    /// when accessed, so types that point at each other (task_struct, mm_struct) stay finite.
    Btf {
        id: u32,
        name: String,
        size: usize,
        /// The user binary whose types (its DWARF or .BTF) `id` is in; `None`: the kernel's.
        user: Option<Rc<str>>,
    },
    /// A kernel address printed as a symbol (`caller`, `ksym()`).
    Sym,
    /// A user address printed as a symbol of the traced process (`usym()`; `-p` or `-c`).
    USym,
    /// A timestamp in nanoseconds since boot printed as wall-clock time (`walltime`).
    Walltime,
    /// A timestamp like `Walltime`, printed in local time with this strftime(3) format
    /// (bpftrace's `strftime(fmt, nsecs)`; `%f` is microseconds).
    Strftime(Rc<[u8]>),
    /// A stack trace id in the stack map of its depth (`kstack`), or for `ustack` the process id
    /// in the upper half and the stack id in the lower; printed as frames, one a line, as `mode`
    /// says. `frames` is bpftrace's limit (`kstack(3)`): the map's depth, so stacks that differ
    /// only deeper are one key.
    Stack {
        user: bool,
        mode: StackMode,
        frames: u8,
    },
    /// A cgroup id, printed as the cgroup's path (bpftrace's `cgroup_path(id)`), found in user
    /// space when the value is printed.
    CgroupPath,
    /// An error number, printed as strerror(3) does (bpftrace's `strerror(n)`).
    Strerror,
    /// An IP address for printing (bpftrace's `ntop`): the address family in a u64, then 16
    /// bytes of address (4 used for AF_INET), formatted by user space as inet_ntop(3) does.
    Inet,
    /// bpftrace's `buf(ptr, len)`: the length read in a u64, then up to this many bytes.
    Buf(usize),
    /// bpftrace's tuple: each element in a slot of its `slot_size()`, one after another.
    Tuple(Rc<[Type]>),
    /// bpftrace's record `(a=1, b="x")`: a tuple whose elements have names, laid out as one.
    Record {
        names: Rc<[String]>,
        elems: Rc<[Type]>,
    },
    /// A syscall number printed as the syscall's name (bpftrace's `syscall_name(nr)`).
    SyscallName,
    /// A user id printed as its name from /etc/passwd (bpftrace's `username`).
    Username,
    /// bpftrace's `macaddr(a)`: 6 bytes printed as a MAC address, `00:1A:2B:3C:4D:5E`.
    MacAddr,
    /// A script enum's value, printed as its enumerator's name (a number it has none for as
    /// the number); arithmetic makes it a plain integer.
    Enum(Rc<EnumDef>),
    /// A signal number printed as strsignal(3)'s text (bpftrace's `signal_name(n)`).
    SignalName,
    /// bpftrace's `bool`: 0 or 1 in a register, printed `true`/`false` (`%d` prints 1/0).
    Bool,
}

/// A script's `enum [NAME] { A = 1, ... }`.
#[derive(Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct EnumDef {
    /// Empty for an anonymous enum.
    pub name: String,
    pub values: Vec<(String, i64)>,
}

impl EnumDef {
    /// The enumerator named for `v`, the first when several are.
    pub fn name_of(&self, v: i64) -> Option<&str> {
        self.values.iter().find(|(_, x)| *x == v).map(|(n, _)| n.as_str())
    }
}

#[derive(Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct StructDef {
    pub name: String,
    pub size: usize,
    /// The alignment a script's `__attribute__((packed))` or `aligned(N)` gave the struct,
    /// where it is not its fields' largest.
    #[serde(default)]
    pub align: Option<usize>,
    pub fields: Vec<Field>,
    /// A script's bitfields: the field's name, its first bit past the field's byte offset, and
    /// its width.
    #[serde(default)]
    pub bitfields: Vec<(String, u32, u32)>,
    /// Fields declared with a kernel enum (`enum skb_drop_reason reason`): read, they are that
    /// enum's values, printed by `%s` and in maps as their enumerators' names.
    #[serde(default)]
    pub enums: Vec<(String, Rc<EnumDef>)>,
}

impl StructDef {
    /// Where bitfield `name` is in the bytes at its field's offset: (shift, width).
    pub fn bitfield(&self, name: &str) -> Option<(u32, u32)> {
        self.bitfields.iter().find(|b| b.0 == name).map(|b| (b.1, b.2))
    }

    /// The enum field `name` was declared with, if any.
    pub fn enum_of(&self, name: &str) -> Option<&Rc<EnumDef>> {
        self.enums.iter().find(|e| e.0 == name).map(|e| &e.1)
    }
}

#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Field {
    pub name: String,
    pub offset: usize,
    pub ty: Type,
    /// `__data_loc` fields: a u32 holding (length << 16 | offset) of data stored after the record.
    pub data_loc: bool,
}

/// How a stack prints, bpftrace's stack modes: `do_mmap+0x1` (bpftrace), the address then the
/// symbol as perf prints it (perf), or the address alone (raw).
#[derive(
    Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, serde::Serialize, serde::Deserialize,
)]
pub enum StackMode {
    Bpftrace,
    Perf,
    Raw,
}

impl StackMode {
    /// The mode bpftrace spells `name` (in `kstack(perf)` and `config = { stack_mode = ... }`).
    pub fn named(name: &str) -> Option<StackMode> {
        match name {
            "bpftrace" => Some(StackMode::Bpftrace),
            "perf" => Some(StackMode::Perf),
            "raw" => Some(StackMode::Raw),
            _ => None,
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            StackMode::Bpftrace => "bpftrace",
            StackMode::Perf => "perf",
            StackMode::Raw => "raw",
        }
    }
}

impl Type {
    pub const U8: Type = Type::Int { bytes: 1, signed: false };
    pub const U16: Type = Type::Int { bytes: 2, signed: false };
    pub const U32: Type = Type::Int { bytes: 4, signed: false };
    pub const U64: Type = Type::Int { bytes: 8, signed: false };
    pub const S32: Type = Type::Int { bytes: 4, signed: true };
    pub const S64: Type = Type::Int { bytes: 8, signed: true };

    /// Size in bytes of a value of this type in memory.
    pub fn size(&self) -> usize {
        match self {
            Type::Void => 0,
            Type::Int { bytes, .. } => *bytes as usize,
            Type::Ptr { .. }
            | Type::Sym
            | Type::USym
            | Type::Walltime
            | Type::Strftime(_)
            | Type::CgroupPath
            | Type::Strerror
            | Type::SyscallName
            | Type::Username
            | Type::Bool
            | Type::SignalName
            | Type::Enum(_)
            | Type::Stack { .. } => 8,
            Type::Inet => 24,
            Type::MacAddr => 6,
            Type::Buf(n) => 8 + n,
            Type::Str(n) | Type::Bytes(n) => *n,
            Type::Array { elem, len } => elem.size() * len,
            Type::Struct(s) => s.size,
            Type::Btf { size, .. } => *size,
            Type::Tuple(elems) | Type::Record { elems, .. } => {
                elems.iter().map(Type::slot_size).sum()
            }
        }
    }

    /// Values that live in a register (integers, pointers, addresses).
    pub fn is_scalar(&self) -> bool {
        matches!(
            self,
            Type::Int { .. }
                | Type::Ptr { .. }
                | Type::Sym
                | Type::USym
                | Type::Walltime
                | Type::Strftime(_)
                | Type::CgroupPath
                | Type::Strerror
                | Type::SyscallName
                | Type::Username
                | Type::Bool
                | Type::SignalName
                | Type::Enum(_)
                | Type::Stack { .. }
        )
    }

    pub fn is_signed(&self) -> bool {
        matches!(self, Type::Int { signed: true, .. })
    }

    pub fn is_string(&self) -> bool {
        matches!(self, Type::Str(_))
    }

    /// Values `==` and `!=` compare byte by byte, whole (strings stop at their NUL): arrays
    /// and `buf()`s.
    pub fn compares_bytes(&self) -> bool {
        matches!(self, Type::Array { .. } | Type::Buf(_))
    }

    /// Size of this type as stored in a map key, map value or event record: scalars widen to 8 bytes,
    /// buffers round up to 8 so every field stays aligned.
    pub fn slot_size(&self) -> usize {
        if self.is_scalar() {
            8
        } else {
            (self.size() + 7) & !7
        }
    }

    /// Two types can share a map slot or variable: scalars with scalars, strings with strings of any size.
    pub fn compatible(&self, other: &Type) -> bool {
        match (self, other) {
            (a, b) if a.is_scalar() && b.is_scalar() => true,
            (Type::Str(_), Type::Str(_)) => true,
            (Type::Bytes(_), Type::Bytes(_)) => true,
            // Element by element; the map or variable takes the widest of each (`widen_strings`).
            (Type::Tuple(a), Type::Tuple(b)) => {
                a.len() == b.len() && a.iter().zip(b.iter()).all(|(x, y)| x.compatible(y))
            }
            (Type::Record { names: n, elems: a }, Type::Record { names: m, elems: b }) => {
                n == m && Type::Tuple(a.clone()).compatible(&Type::Tuple(b.clone()))
            }
            (a, b) => a == b,
        }
    }

    /// A map or variable of this type that is also given `new` (`compatible`) holds the longer
    /// of two strings or buffers, in tuples element by element.
    pub fn widen_strings(&mut self, new: &Type) {
        match (self, new) {
            (Type::Str(a), Type::Str(b)) | (Type::Bytes(a), Type::Bytes(b)) => *a = (*a).max(*b),
            (Type::Tuple(a), Type::Tuple(b)) if a.len() == b.len() => {
                let mut elems = a.to_vec();
                for (x, y) in elems.iter_mut().zip(b.iter()) {
                    x.widen_strings(y);
                }
                *a = elems.into();
            }
            // Field by field, by name (a record may be given one of another field order).
            (Type::Record { names, elems }, Type::Record { names: m, elems: b }) => {
                let mut widened = elems.to_vec();
                for (x, name) in widened.iter_mut().zip(names.iter()) {
                    if let Some(y) = m.iter().position(|n| n == name).and_then(|j| b.get(j)) {
                        x.widen_strings(y);
                    }
                }
                *elems = widened.into();
            }
            _ => {}
        }
    }

    /// Byte offset of each element of a tuple in its buffer.
    pub fn tuple_offsets(elems: &[Type]) -> Vec<usize> {
        elems
            .iter()
            .scan(0, |at, t| {
                let o = *at;
                *at += t.slot_size();
                Some(o)
            })
            .collect()
    }

    /// A char element makes an array a string.
    pub fn is_char(&self) -> bool {
        matches!(self, Type::Int { bytes: 1, .. })
    }
}

impl fmt::Display for Type {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Type::Void => write!(f, "void"),
            Type::Int { bytes, signed } => {
                write!(f, "{}{}", if *signed { "s" } else { "u" }, *bytes as u32 * 8)
            }
            Type::Ptr { to, .. } => write!(f, "{} *", to),
            Type::Str(n) => write!(f, "char[{}]", n),
            Type::Bytes(n) => write!(f, "u8[{}] (bytes)", n),
            Type::Array { elem, len } => write!(f, "{}[{}]", elem, len),
            Type::Struct(s) => write!(f, "struct {}", s.name),
            Type::Btf { name, .. } => f.write_str(name),
            Type::Sym => write!(f, "symbol"),
            Type::USym => write!(f, "user symbol"),
            Type::Walltime => write!(f, "walltime"),
            Type::Strftime(_) => write!(f, "strftime"),
            Type::CgroupPath => write!(f, "cgroup path"),
            Type::Strerror => write!(f, "strerror"),
            Type::SyscallName => write!(f, "syscall name"),
            Type::Username => write!(f, "username"),
            Type::Bool => write!(f, "bool"),
            Type::SignalName => write!(f, "signal name"),
            Type::MacAddr => write!(f, "mac address"),
            Type::Enum(e) if e.name.is_empty() => write!(f, "enum"),
            Type::Enum(e) => write!(f, "enum {}", e.name),
            Type::Inet => write!(f, "inet address"),
            Type::Buf(n) => write!(f, "buffer[{}]", n),
            Type::Stack { user, mode, frames } => {
                f.write_str(if *user { "ustack" } else { "kstack" })?;
                match (mode, *frames as u32 == STACK_DEPTH) {
                    (StackMode::Bpftrace, true) => Ok(()),
                    (StackMode::Bpftrace, false) => write!(f, "({})", frames),
                    (_, true) => write!(f, "({})", mode.name()),
                    (_, false) => write!(f, "({}, {})", mode.name(), frames),
                }
            }
            Type::Tuple(elems) => {
                let parts: Vec<String> = elems.iter().map(Type::to_string).collect();
                write!(f, "({})", parts.join(", "))
            }
            Type::Record { names, elems } => {
                let parts: Vec<String> =
                    names.iter().zip(elems.iter()).map(|(n, t)| format!("{}={}", n, t)).collect();
                write!(f, "({})", parts.join(", "))
            }
        }
    }
}

/// C's usual arithmetic conversions, simplified to 64 bits: unsigned if either side is a u64 or pointer.
pub fn arith_type(a: &Type, b: &Type) -> Type {
    let unsigned64 = |t: &Type| {
        matches!(
            t,
            Type::Int { bytes: 8, signed: false }
                | Type::Ptr { .. }
                | Type::Sym
                | Type::Walltime
                | Type::Strftime(_)
        )
    };
    if unsigned64(a) || unsigned64(b) {
        Type::U64
    } else {
        Type::S64
    }
}

#[cfg(test)]
mod tests {
    use super::Type;

    #[test]
    fn a_record_widens_its_strings_field_by_name() {
        let record = |names: &[&str], elems: Vec<Type>| Type::Record {
            names: names.iter().map(|n| n.to_string()).collect(),
            elems: elems.into(),
        };
        let mut held = record(&["foo", "y"], vec![Type::S64, Type::Str(2)]);
        held.widen_strings(&record(&["y", "foo"], vec![Type::Str(3), Type::S64]));
        assert_eq!(held, record(&["foo", "y"], vec![Type::S64, Type::Str(3)]));
    }
}
