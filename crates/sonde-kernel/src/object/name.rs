//! Object names as the kernel takes them: at most 15 bytes of `[A-Za-z0-9_.]` plus a NUL. The kernel
//! rejects any other byte with EINVAL, so we replace them rather than fail a whole load over a name.

pub(crate) fn obj_name(name: &str) -> [u8; 16] {
    let mut out = [0u8; 16];
    for (o, b) in out[..15].iter_mut().zip(name.bytes()) {
        *o = if b.is_ascii_alphanumeric() || b == b'_' || b == b'.' { b } else { b'_' };
    }
    out
}

#[cfg(test)]
mod tests {
    use super::obj_name;

    #[test]
    fn names_are_truncated_and_sanitized() {
        assert_eq!(&obj_name("a:b-c.d")[..8], b"a_b_c.d\0");
        let long = obj_name("tracepoint_syscalls_sys_enter");
        assert_eq!(&long[..15], b"tracepoint_sysc");
        assert_eq!(long[15], 0);
    }
}
