//! Pointer fields of a tracepoint's record typed through BTF: the format file says
//! `struct __kernel_timespec * rqtp`, and `parse_format` (which knows no BTF) leaves it a
//! `void *`. Here such a field points to the kernel's `struct __kernel_timespec`, so
//! `args.rqtp->tv_sec` (and `$t = args.rqtp; $t.tv_sec`, bpftrace's automatic dereference) reads a
//! member. The memory stays where `parse_format` said: user memory for `syscalls` tracepoints.

use super::tracepoint_format::{declared_int, parse_format};
use crate::env::Env;
use crate::model::types::{Field, StructDef, Type};

/// `parse_format`, then typed from the kernel's BTF where it has the type: every integer field
/// declared with a typedef (`off_t`, `clockid_t`: the chain to its base integer gives size and
/// signedness), and every `struct NAME *` / `union NAME *` / `TYPEDEF *` field (one `*`, `const`
/// or `__user` allowed). Without BTF the integer list of `parse_format` stays, and pointers stay
/// `void *`.
pub fn parse_typed(
    category: &str,
    name: &str,
    text: &str,
    env: &dyn Env,
) -> Result<StructDef, String> {
    let mut def = parse_format(category, name, text)?;
    let decls: Vec<&str> = text
        .lines()
        .filter_map(|line| line.trim().strip_prefix("field:"))
        .map(|rest| rest.split(';').next().unwrap_or("").trim())
        .collect();
    let pointers: Vec<(String, &str)> = decls.iter().filter_map(|d| pointee_name(d)).collect();
    let integers: Vec<(String, &str)> = decls.iter().filter_map(|d| typedef_name(d)).collect();
    // The kernel's BTF is read only for a record that needs it (~1 ms and 1.5 MiB): a pointer
    // to type, or a typedef the list in `parse_format` does not know.
    let needs_btf = !pointers.is_empty() || integers.iter().any(|(t, _)| declared_int(t).is_none());
    if !needs_btf {
        return Ok(def);
    }
    let Ok(btf) = env.btf() else { return Ok(def) };
    for (base, field) in integers {
        if let Some(e) =
            base.strip_prefix("enum ").and_then(|n| crate::btf_types::named_enum(btf, n))
        {
            def.enums.push((field.to_string(), e));
        }
        let Some(ty) = crate::btf_types::named(btf, &base) else { continue };
        for f in def.fields.iter_mut().filter(|f| f.name == field) {
            retype_integer(f, &ty, category == "syscalls");
        }
    }
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

/// A field declared `TYPEDEF name` takes the integer BTF resolves the typedef to when it fits the
/// field's slot (`cap_user_header_t`, a typedef of a pointer, becomes that pointer, into user
/// memory in `syscalls` records).
fn retype_integer(f: &mut Field, ty: &Type, user_pointers: bool) {
    let slot = match f.ty {
        Type::Int { bytes, .. } => bytes as usize,
        Type::Ptr { .. } => 8,
        _ => return,
    };
    match ty {
        Type::Int { bytes, .. } if (*bytes as usize) <= slot => f.ty = ty.clone(),
        Type::Ptr { to, .. } if slot == 8 => {
            f.ty = Type::Ptr { to: to.clone(), user: user_pointers };
        }
        _ => {}
    }
}

/// `const clockid_t which_clock` -> ("clockid_t", "which_clock"): an integer field declared with a
/// type name other than C's own words (`unsigned long`), or an enum (`enum landlock_rule_type`).
fn typedef_name(decl: &str) -> Option<(String, &str)> {
    if decl.starts_with("__data_loc") || decl.contains(['*', '[']) {
        return None;
    }
    let (ty, field) = decl.rsplit_once(' ')?;
    let words: Vec<&str> =
        ty.split_whitespace().filter(|w| !matches!(*w, "const" | "volatile")).collect();
    let base = match words.as_slice() {
        ["enum", n] => format!("enum {}", n),
        [n] if !C_WORDS.contains(n) => n.to_string(),
        _ => return None,
    };
    Some((base, field.trim()))
}

/// The words of C's own integer types, which need no BTF.
const C_WORDS: &[&str] = &["int", "unsigned", "signed", "long", "short", "char", "bool", "_Bool"];

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
    use crate::env::BtfOnly as BtfEnv;
    use sonde_btf::{builder::Builder, Btf};

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

    /// Every integer argument of every syscall of the running kernel: typed as BTF types it, and
    /// the list used without BTF agrees (skipped where tracefs or BTF cannot be read).
    #[test]
    fn syscall_argument_types() {
        let root = std::path::Path::new("/sys/kernel/tracing/events/syscalls");
        let (Ok(dir), Ok(btf)) = (std::fs::read_dir(root), Btf::load_vmlinux()) else {
            eprintln!("no tracefs or no kernel BTF here: syscall argument types not checked");
            return;
        };
        let env = BtfEnv(btf);
        let mut checked = 0;
        for entry in dir.flatten() {
            let event = entry.file_name().to_string_lossy().into_owned();
            let Ok(text) = std::fs::read_to_string(entry.path().join("format")) else { continue };
            let def = parse_typed("syscalls", &event, &text, &env).unwrap();
            for decl in text.lines().filter_map(|l| l.trim().strip_prefix("field:")) {
                let decl = decl.split(';').next().unwrap().trim();
                let Some((name, field)) = typedef_name(decl) else { continue };
                let want = crate::btf_types::named(&env.0, &name)
                    .unwrap_or_else(|| panic!("{}: BTF lacks `{}`", event, name));
                let got = &def.fields.iter().find(|f| f.name == field).unwrap().ty;
                match &want {
                    Type::Int { .. } => {
                        assert_eq!(got, &want, "{}: `{}`", event, decl);
                        if !name.starts_with("enum ") {
                            let listed = declared_int(&name);
                            assert_eq!(listed, Some(want), "{}: the list types `{}`", event, name);
                        }
                    }
                    Type::Ptr { to, .. } => {
                        assert_eq!(got, &Type::Ptr { to: to.clone(), user: true }, "{}", decl)
                    }
                    t => panic!("{}: `{}` is {:?}", event, decl, t),
                }
                checked += 1;
            }
        }
        assert!(checked > 30, "only {} typedef arguments", checked);
    }

    #[test]
    fn typedef_integers_from_btf() {
        let mut b = Builder::new();
        let long = b.int("long int", 8, true);
        let kernel_off = b.typedef("__kernel_off_t", long);
        b.typedef("off_t", kernel_off);
        let int = b.int("int", 4, true);
        b.typedef("widget_t", int);
        let env = BtfEnv(Btf::from_bytes(b.build()).unwrap());
        let text = "format:
\tfield:unsigned int fd;\toffset:16;\tsize:8;\tsigned:0;
\tfield:off_t offset;\toffset:24;\tsize:8;\tsigned:0;
\tfield:const widget_t w;\toffset:32;\tsize:8;\tsigned:0;
";
        let def = parse_typed("syscalls", "sys_enter_lseek", text, &env).unwrap();
        assert_eq!(field(&def, "fd"), &Type::U32);
        assert_eq!(field(&def, "offset"), &Type::S64, "off_t through __kernel_off_t to long");
        assert_eq!(field(&def, "w"), &Type::S32);
        assert_eq!(
            typedef_name("const enum landlock_rule_type rule_type").unwrap().0,
            "enum landlock_rule_type"
        );
        assert_eq!(typedef_name("unsigned long len"), None);
    }

    /// A field declared with a kernel enum keeps its integer slot and records the enum, whose
    /// names its values print as.
    #[test]
    fn enum_fields_record_their_enum() {
        let mut b = Builder::new();
        b.enum32("drop_reason", 4, false, &[("NOT_SPECIFIED", 2), ("NO_SOCKET", 3)]);
        let env = BtfEnv(Btf::from_bytes(b.build()).unwrap());
        let text = "format:
\tfield:void * skbaddr;\toffset:8;\tsize:8;\tsigned:0;
\tfield:enum drop_reason reason;\toffset:16;\tsize:4;\tsigned:0;
";
        let def = parse_typed("skb", "kfree_skb", text, &env).unwrap();
        assert_eq!(field(&def, "reason"), &Type::U32);
        let e = def.enum_of("reason").expect("the enum is recorded");
        assert_eq!((e.name.as_str(), e.name_of(3)), ("drop_reason", Some("NO_SOCKET")));
        assert!(def.enum_of("skbaddr").is_none());
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
