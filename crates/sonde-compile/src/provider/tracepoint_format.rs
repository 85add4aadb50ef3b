//! Parse a tracepoint's `format` file into the struct its programs see as `args` (or `data`).

use crate::model::types::{Field, StructDef, Type};

/// Parse the format text of tracepoint `category:name`. Pointers in `syscalls` tracepoints point into
/// user memory, everything else into the kernel.
pub fn parse_format(category: &str, name: &str, text: &str) -> Result<StructDef, String> {
    let user_pointers = category == "syscalls";
    let mut fields = Vec::new();
    let mut size = 0;
    for line in text.lines() {
        let line = line.trim();
        let Some(rest) = line.strip_prefix("field:") else { continue };
        let (field, slot) = parse_field(rest, user_pointers).ok_or_else(|| {
            format!(
                "cannot parse field `{}` in the format of tracepoint {}:{}",
                rest, category, name
            )
        })?;
        // The record ends after the last slot, which may be wider than the field's C type.
        size = size.max(field.offset + slot);
        fields.push(field);
    }
    if fields.is_empty() {
        return Err(format!("the format of tracepoint {}:{} lists no fields", category, name));
    }
    let name = format!("{}_{}", category, name);
    Ok(StructDef { name, size, align: None, fields, bitfields: Vec::new(), enums: Vec::new() })
}

/// `const char * filename;\toffset:24;\tsize:8;\tsigned:0;`: the field and its slot size.
fn parse_field(s: &str, user_pointers: bool) -> Option<(Field, usize)> {
    let mut parts = s.split(';').map(str::trim);
    let decl = parts.next()?;
    let mut offset = None;
    let mut size = None;
    let mut signed = false;
    for p in parts {
        if let Some(v) = p.strip_prefix("offset:") {
            offset = v.trim().parse::<usize>().ok();
        } else if let Some(v) = p.strip_prefix("size:") {
            size = v.trim().parse::<usize>().ok();
        } else if let Some(v) = p.strip_prefix("signed:") {
            signed = v.trim() == "1";
        }
    }
    let (offset, size) = (offset?, size?);
    let data_loc = decl.starts_with("__data_loc");
    // Split the declaration into type words and the name (with an optional [N]).
    let (ty_text, mut name) = match decl.rfind([' ', '*']) {
        Some(i) => (decl[..=i].trim(), decl[i + 1..].trim()),
        None => return None,
    };
    let mut array_len = None;
    if let Some(b) = name.find('[') {
        let n = name[b + 1..].trim_end_matches(']');
        array_len = Some(n.parse::<usize>().unwrap_or(0));
        name = &name[..b];
    }
    let base = ty_text.trim_start_matches("__data_loc").trim();
    let is_char = base.split_whitespace().any(|w| w == "char");
    let ty = if data_loc {
        Type::Str(0)
    } else if ty_text.contains('*') {
        // `const char *const * argv`: a pointer to string pointers; `char *` a string pointer.
        let mut to = if is_char { Type::Int { bytes: 1, signed: true } } else { Type::Void };
        for _ in 1..ty_text.matches('*').count() {
            to = Type::Ptr { to: Box::new(to), user: user_pointers };
        }
        Type::Ptr { to: Box::new(to), user: user_pointers }
    } else if let Some(len) = array_len {
        let elem_size = size.checked_div(len).unwrap_or(1);
        if is_char || (elem_size == 1 && base.contains("char")) {
            Type::Str(size)
        } else {
            match elem_size {
                1 | 2 | 4 | 8 => Type::Array {
                    elem: Box::new(Type::Int { bytes: elem_size as u8, signed }),
                    len,
                },
                _ => Type::Bytes(size),
            }
        }
    } else {
        // Syscall arguments sit in 8-byte slots whatever their C type (`int dfd; size:8; signed:0`):
        // the declared type, read from the low bytes, gives the value the user expects (-100, not 2^64-100).
        match (declared_int(base), size) {
            (Some(Type::Int { bytes, signed }), _) if (bytes as usize) <= size => {
                Type::Int { bytes, signed }
            }
            (_, 1 | 2 | 4 | 8) => Type::Int { bytes: size as u8, signed },
            _ => Type::Bytes(size),
        }
    };
    Some((Field { name: name.to_string(), offset, ty, data_loc }, size))
}

/// The C integer types whose size and signedness are fixed on 64-bit Linux, and the kernel's
/// typedefs of them that syscall arguments use: what `args` fields get where BTF is absent (the
/// host test `syscall_argument_types` checks it against BTF for every syscall argument).
pub(crate) fn declared_int(base: &str) -> Option<Type> {
    let words: Vec<&str> =
        base.split_whitespace().filter(|w| *w != "const" && *w != "volatile").collect();
    let t = match words.join(" ").as_str() {
        "int" | "signed int" | "pid_t" | "s32" | "__s32" | "int32_t" | "clockid_t" | "timer_t"
        | "key_t" | "mqd_t" | "rwf_t" | "key_serial_t" => Type::S32,
        "unsigned int" | "unsigned" | "u32" | "__u32" | "uint32_t" | "uid_t" | "gid_t"
        | "qid_t" => Type::U32,
        "long" | "long int" | "long long" | "s64" | "__s64" | "ssize_t" | "loff_t" | "int64_t"
        | "off_t" => Type::S64,
        "unsigned long" | "unsigned long long" | "size_t" | "u64" | "__u64" | "uint64_t"
        | "aio_context_t" => Type::U64,
        "short" | "s16" | "__s16" => Type::Int { bytes: 2, signed: true },
        "unsigned short" | "u16" | "__u16" | "umode_t" => Type::U16,
        "char" | "signed char" | "s8" | "__s8" => Type::Int { bytes: 1, signed: true },
        "unsigned char" | "u8" | "__u8" | "bool" => Type::U8,
        _ => return None,
    };
    Some(t)
}

#[cfg(test)]
mod tests {
    use super::*;

    const OPENAT: &str = "name: sys_enter_openat
ID: 637
format:
\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;
\tfield:unsigned char common_flags;\toffset:2;\tsize:1;\tsigned:0;
\tfield:unsigned char common_preempt_count;\toffset:3;\tsize:1;\tsigned:0;
\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;

\tfield:int __syscall_nr;\toffset:8;\tsize:4;\tsigned:1;
\tfield:int dfd;\toffset:16;\tsize:8;\tsigned:0;
\tfield:const char * filename;\toffset:24;\tsize:8;\tsigned:0;
\tfield:int flags;\toffset:32;\tsize:8;\tsigned:0;
\tfield:umode_t mode;\toffset:40;\tsize:8;\tsigned:0;

print fmt: \"dfd: 0x%08lx\", ((unsigned long)(REC->dfd))
";

    #[test]
    fn syscall_format() {
        let s = parse_format("syscalls", "sys_enter_openat", OPENAT).unwrap();
        assert_eq!(s.fields.len(), 9);
        let f = s.fields.iter().find(|f| f.name == "filename").unwrap();
        assert_eq!(f.offset, 24);
        assert_eq!(
            f.ty,
            Type::Ptr { to: Box::new(Type::Int { bytes: 1, signed: true }), user: true }
        );
        let f = s.fields.iter().find(|f| f.name == "dfd").unwrap();
        assert_eq!(f.ty, Type::S32, "declared `int` in an 8-byte slot reads as s32");
        let f = s.fields.iter().find(|f| f.name == "mode").unwrap();
        assert_eq!(f.ty, Type::U16);
        let f = s.fields.iter().find(|f| f.name == "common_pid").unwrap();
        assert_eq!(f.ty, Type::S32);
        assert_eq!(s.size, 48);
    }

    #[test]
    fn pointers_to_pointers() {
        let text = "format:
\tfield:const char *const * argv;\toffset:24;\tsize:8;\tsigned:0;
\tfield:void * * pages;\toffset:32;\tsize:8;\tsigned:0;
";
        let s = parse_format("syscalls", "sys_enter_execve", text).unwrap();
        let char_ptr = Type::Ptr { to: Box::new(Type::Int { bytes: 1, signed: true }), user: true };
        assert_eq!(s.fields[0].ty, Type::Ptr { to: Box::new(char_ptr), user: true });
        let void_ptr = Type::Ptr { to: Box::new(Type::Void), user: true };
        assert_eq!(s.fields[1].ty, Type::Ptr { to: Box::new(void_ptr), user: true });
    }

    #[test]
    fn arrays_and_data_loc() {
        let text = "format:
\tfield:char prev_comm[16];\toffset:8;\tsize:16;\tsigned:0;
\tfield:__u8 saddr[4];\toffset:28;\tsize:4;\tsigned:0;
\tfield:__data_loc char[] name;\toffset:40;\tsize:4;\tsigned:1;
";
        let s = parse_format("x", "y", text).unwrap();
        assert_eq!(s.fields[0].ty, Type::Str(16));
        assert_eq!(s.fields[1].ty, Type::Array { elem: Box::new(Type::U8), len: 4 });
        assert!(s.fields[2].data_loc);
        assert_eq!(s.fields[2].offset, 40);
    }
}
