//! Types written in casts: `u32`, `unsigned long`, `char *`, and kernel types from BTF
//! (`struct task_struct *`, `pid_t`).

use crate::model::types::Type;
use sonde_syntax::ast::TypeName;

pub fn resolve(t: &TypeName, btf: Option<&sonde_btf::Btf>) -> Result<Type, String> {
    let base = match t.base.as_str() {
        "u8" | "uint8" | "uint8_t" | "__u8" | "unsigned char" | "bool" | "_Bool" => Type::U8,
        "s8" | "i8" | "int8" | "int8_t" | "__s8" | "signed char" | "char" => {
            Type::Int { bytes: 1, signed: true }
        }
        "u16" | "uint16" | "uint16_t" | "__u16" | "unsigned short" | "unsigned short int" => {
            Type::U16
        }
        "s16" | "i16" | "int16" | "int16_t" | "__s16" | "short" | "short int" | "signed short" => {
            Type::Int { bytes: 2, signed: true }
        }
        "u32" | "uint32" | "uint32_t" | "__u32" | "unsigned" | "unsigned int" => Type::U32,
        "s32" | "i32" | "int32" | "int32_t" | "__s32" | "int" | "signed" | "signed int"
        | "pid_t" => Type::S32,
        "u64" | "uint64" | "uint64_t" | "__u64" | "unsigned long" | "unsigned long long"
        | "size_t" | "unsigned long int" | "uintptr_t" => Type::U64,
        "s64" | "i64" | "int64" | "int64_t" | "__s64" | "long" | "long long" | "signed long"
        | "long int" | "ssize_t" | "loff_t" => Type::S64,
        "void" => Type::Void,
        b => match btf {
            Some(btf) => crate::btf_types::named(btf, b).ok_or_else(|| {
                format!("unknown type `{}`: the kernel's BTF does not define it", b)
            })?,
            None if b.starts_with("struct ")
                || b.starts_with("union ")
                || b.starts_with("enum ") =>
            {
                return Err(format!(
                    "`{}` is a kernel type, and this kernel has no BTF to describe it",
                    b
                ));
            }
            None => return Err(format!("unknown type `{}`", b)),
        },
    };
    let mut ty = base;
    for _ in 0..t.pointers {
        ty = Type::Ptr { to: Box::new(ty), user: false };
    }
    if ty == Type::Void {
        return Err("cannot cast to `void`".into());
    }
    Ok(ty)
}
