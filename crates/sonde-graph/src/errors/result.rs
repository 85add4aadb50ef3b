//! A return value as a person reads it, by what the function returns: `-ENOENT`, `NULL`,
//! `ERR_PTR(-ENOENT)`, a number or an address.

use super::program::Returns;

/// The errno a return value stands for, if it is one.
pub fn errno(returns: Returns, v: u64) -> Option<i32> {
    let e = match returns {
        Returns::Errno32 | Returns::Unknown => v as u32 as i32 as i64,
        Returns::Errno64 | Returns::Pointer => v as i64,
        Returns::Never | Returns::Void => return None,
    };
    sonde_trace::errno::of_return(e)
}

/// `-ENOENT` (or `-523` for an errno with no name).
fn errno_text(e: i32) -> String {
    match sonde_trace::errno::name(e) {
        Some(n) => format!("-{n}"),
        None => format!("-{e}"),
    }
}

pub fn text(returns: Returns, v: u64) -> String {
    match (returns, errno(returns, v)) {
        (Returns::Pointer, Some(e)) => format!("ERR_PTR({})", errno_text(e)),
        (_, Some(e)) => errno_text(e),
        (Returns::Pointer, None) if v == 0 => "NULL".into(),
        (Returns::Pointer, None) => format!("0x{v:x}"),
        (Returns::Errno32 | Returns::Unknown, None) => (v as u32 as i32).to_string(),
        (Returns::Errno64, None) => (v as i64).to_string(),
        (Returns::Never, None) => v.to_string(),
        (Returns::Void, None) => "void".into(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values_read_by_return_type() {
        assert_eq!(text(Returns::Errno32, 0xffff_fffe), "-ENOENT");
        assert_eq!(text(Returns::Errno32, 3), "3");
        assert_eq!(text(Returns::Errno64, -2i64 as u64), "-ENOENT");
        assert_eq!(text(Returns::Errno64, 0xffff_fffe), "4294967294");
        assert_eq!(text(Returns::Pointer, 0), "NULL");
        assert_eq!(text(Returns::Pointer, -20i64 as u64), "ERR_PTR(-ENOTDIR)");
        assert_eq!(text(Returns::Pointer, 0xffff_8880_0000_1000), "0xffff888000001000");
        assert_eq!(text(Returns::Unknown, -512i64 as u64), "-ERESTARTSYS");
        assert_eq!(text(Returns::Never, 1), "1");
        assert_eq!(text(Returns::Errno32, -600i32 as u32 as u64), "-600");
    }
}
