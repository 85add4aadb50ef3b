//! Pointer fields of a tracepoint's record typed through BTF: the format file says
//! `struct __kernel_timespec * rqtp`, and `parse_format` (which knows no BTF) leaves it a
//! `void *`. Here such a field points to the kernel's `struct __kernel_timespec`, so
//! `args.rqtp->tv_sec` (and `$t = args.rqtp; $t.tv_sec`, bpftrace's automatic dereference) reads a
//! member. The memory stays where `parse_format` said: user memory for `syscalls` tracepoints.

use super::tracepoint_format::parse_format;
use crate::env::Env;
use crate::model::types::{StructDef, Type};

/// `parse_format`, then every `struct NAME *` / `union NAME *` / `TYPEDEF *` field (one `*`,
/// `const` or `__user` allowed) typed from the kernel's BTF where it has that type. Without BTF
/// (or for a name it lacks) the field stays a `void *`.
pub fn parse_typed(
    category: &str,
    name: &str,
    text: &str,
    env: &dyn Env,
) -> Result<StructDef, String> {
    let mut def = parse_format(category, name, text)?;
    let pointers: Vec<(String, &str)> = text
        .lines()
        .filter_map(|line| line.trim().strip_prefix("field:"))
        .filter_map(|rest| pointee_name(rest.split(';').next().unwrap_or("").trim()))
        .collect();
    // The kernel's BTF is read only for a record with such a field (~1 ms and 1.5 MiB).
    if pointers.is_empty() {
        return Ok(def);
    }
    let Ok(btf) = env.btf() else { return Ok(def) };
    for (base, field) in pointers {
        let Some(to) = crate::btf_types::named(btf, &base) else { continue };
        if to == Type::Void {
            continue;
        }
        for f in def.fields.iter_mut().filter(|f| f.name == field) {
            if let Type::Ptr { to: old, .. } = &mut f.ty {
                if **old == Type::Void {
                    **old = to.clone();
                }
            }
        }
    }
    Ok(def)
}

/// `const struct __kernel_timespec * rqtp` -> ("struct __kernel_timespec", "rqtp"). Only
/// single pointers to a named type other than `void` and `char` (which `parse_format` types).
fn pointee_name(decl: &str) -> Option<(String, &str)> {
    if decl.starts_with("__data_loc") || decl.matches('*').count() != 1 {
        return None;
    }
    let (ty, field) = decl.split_once('*')?;
    let field = field.trim();
    if field.is_empty() || !field.bytes().all(|c| c.is_ascii_alphanumeric() || c == b'_') {
        return None;
    }
    let words: Vec<&str> = ty
        .split_whitespace()
        .filter(|w| !matches!(*w, "const" | "volatile" | "__user" | "restrict"))
        .collect();
    let base = match words.as_slice() {
        [kind @ ("struct" | "union"), n] => format!("{} {}", kind, n),
        [n] if !matches!(*n, "void" | "char") => n.to_string(),
        _ => return None,
    };
    Some((base, field))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::env::EnvError;
    use sonde_btf::{builder::Builder, Btf};

    struct BtfEnv(Btf);
    impl Env for BtfEnv {
        fn tracepoint_format(&self, _: &str, _: &str) -> Result<String, EnvError> {
            Err(EnvError::NotFound("none".into()))
        }
        fn tracepoints(&self) -> Result<Vec<(String, String)>, EnvError> {
            Ok(Vec::new())
        }
        fn btf(&self) -> Result<&Btf, EnvError> {
            Ok(&self.0)
        }
    }

    const NANOSLEEP: &str = "format:
\tfield:int __syscall_nr;\toffset:8;\tsize:4;\tsigned:1;
\tfield:struct __kernel_timespec * rqtp;\toffset:16;\tsize:8;\tsigned:0;
\tfield:const struct missing_t * other;\toffset:24;\tsize:8;\tsigned:0;
\tfield:const char * name;\toffset:32;\tsize:8;\tsigned:0;
\tfield:u32 * nums;\toffset:40;\tsize:8;\tsigned:0;
";

    fn env() -> BtfEnv {
        let mut b = Builder::new();
        let long = b.int("long long int", 8, true);
        b.struct_("__kernel_timespec", 16, &[("tv_sec", long, 0), ("tv_nsec", long, 64)]);
        let uint = b.int("unsigned int", 4, false);
        b.typedef("u32", uint);
        BtfEnv(Btf::from_bytes(b.build()).unwrap())
    }

    fn field<'a>(def: &'a StructDef, name: &str) -> &'a Type {
        &def.fields.iter().find(|f| f.name == name).unwrap().ty
    }

    #[test]
    fn struct_pointers_are_typed_from_btf() {
        let def = parse_typed("syscalls", "sys_enter_nanosleep", NANOSLEEP, &env()).unwrap();
        match field(&def, "rqtp") {
            Type::Ptr { to, user: true } => {
                assert!(
                    matches!(&**to, Type::Btf { name, size: 16, .. } if name == "struct __kernel_timespec"),
                    "{:?}",
                    to
                )
            }
            t => panic!("rqtp is {:?}", t),
        }
        // A struct BTF lacks stays `void *`; a char pointer stays a string pointer.
        assert_eq!(field(&def, "other"), &Type::Ptr { to: Box::new(Type::Void), user: true });
        assert_eq!(
            field(&def, "name"),
            &Type::Ptr { to: Box::new(Type::Int { bytes: 1, signed: true }), user: true }
        );
        assert_eq!(field(&def, "nums"), &Type::Ptr { to: Box::new(Type::U32), user: true });
    }

    #[test]
    fn declarations() {
        assert_eq!(
            pointee_name("const struct __kernel_timespec * rqtp"),
            Some(("struct __kernel_timespec".into(), "rqtp"))
        );
        assert_eq!(pointee_name("char * * argv"), None);
        assert_eq!(pointee_name("void * buf"), None);
        assert_eq!(pointee_name("__data_loc char[] name"), None);
        assert_eq!(pointee_name("int fd"), None);
    }
}
