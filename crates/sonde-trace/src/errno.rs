//! errno names (from the `libc` crate's constants) and messages (the C library's, through std).

/// `(value, name)`; where two names share a value the first is the one strace prints.
macro_rules! errnos {
    ($($e:ident),* $(,)?) => {
        &[$((libc::$e, stringify!($e)),)*]
    };
}

const NAMES: &[(i32, &str)] = errnos!(
    EPERM,
    ENOENT,
    ESRCH,
    EINTR,
    EIO,
    ENXIO,
    E2BIG,
    ENOEXEC,
    EBADF,
    ECHILD,
    EAGAIN,
    ENOMEM,
    EACCES,
    EFAULT,
    ENOTBLK,
    EBUSY,
    EEXIST,
    EXDEV,
    ENODEV,
    ENOTDIR,
    EISDIR,
    EINVAL,
    ENFILE,
    EMFILE,
    ENOTTY,
    ETXTBSY,
    EFBIG,
    ENOSPC,
    ESPIPE,
    EROFS,
    EMLINK,
    EPIPE,
    EDOM,
    ERANGE,
    EDEADLK,
    ENAMETOOLONG,
    ENOLCK,
    ENOSYS,
    ENOTEMPTY,
    ELOOP,
    ENOMSG,
    EIDRM,
    ECHRNG,
    EL2NSYNC,
    EL3HLT,
    EL3RST,
    ELNRNG,
    EUNATCH,
    ENOCSI,
    EL2HLT,
    EBADE,
    EBADR,
    EXFULL,
    ENOANO,
    EBADRQC,
    EBADSLT,
    EBFONT,
    ENOSTR,
    ENODATA,
    ETIME,
    ENOSR,
    ENONET,
    ENOPKG,
    EREMOTE,
    ENOLINK,
    EADV,
    ESRMNT,
    ECOMM,
    EPROTO,
    EMULTIHOP,
    EDOTDOT,
    EBADMSG,
    EOVERFLOW,
    ENOTUNIQ,
    EBADFD,
    EREMCHG,
    ELIBACC,
    ELIBBAD,
    ELIBSCN,
    ELIBMAX,
    ELIBEXEC,
    EILSEQ,
    ERESTART,
    ESTRPIPE,
    EUSERS,
    ENOTSOCK,
    EDESTADDRREQ,
    EMSGSIZE,
    EPROTOTYPE,
    ENOPROTOOPT,
    EPROTONOSUPPORT,
    ESOCKTNOSUPPORT,
    EOPNOTSUPP,
    EPFNOSUPPORT,
    EAFNOSUPPORT,
    EADDRINUSE,
    EADDRNOTAVAIL,
    ENETDOWN,
    ENETUNREACH,
    ENETRESET,
    ECONNABORTED,
    ECONNRESET,
    ENOBUFS,
    EISCONN,
    ENOTCONN,
    ESHUTDOWN,
    ETOOMANYREFS,
    ETIMEDOUT,
    ECONNREFUSED,
    EHOSTDOWN,
    EHOSTUNREACH,
    EALREADY,
    EINPROGRESS,
    ESTALE,
    EUCLEAN,
    ENOTNAM,
    ENAVAIL,
    EISNAM,
    EREMOTEIO,
    EDQUOT,
    ENOMEDIUM,
    EMEDIUMTYPE,
    ECANCELED,
    ENOKEY,
    EKEYEXPIRED,
    EKEYREVOKED,
    EKEYREJECTED,
    EOWNERDEAD,
    ENOTRECOVERABLE,
    ERFKILL,
    EHWPOISON,
);

/// The kernel's own restart codes, which user space never sees but a tracer does
/// (include/linux/errno.h; the C library has no names for them).
const KERNEL_ONLY: &[(i32, &str, &str)] = &[
    (512, "ERESTARTSYS", "To be restarted if SA_RESTART is set"),
    (513, "ERESTARTNOINTR", "To be restarted"),
    (514, "ERESTARTNOHAND", "To be restarted if no handler"),
    (515, "ENOIOCTLCMD", "No ioctl command"),
    (516, "ERESTART_RESTARTBLOCK", "Interrupted by signal"),
];

/// `ENOENT` for 2; None for values with no name.
pub fn name(errno: i32) -> Option<&'static str> {
    NAMES
        .iter()
        .find(|(v, _)| *v == errno)
        .map(|(_, n)| *n)
        .or_else(|| KERNEL_ONLY.iter().find(|(v, ..)| *v == errno).map(|(_, n, _)| *n))
}

/// 2 for `ENOENT`; None for a name that is no errno.
pub fn value(name: &str) -> Option<i32> {
    NAMES
        .iter()
        .find(|(_, n)| *n == name)
        .map(|(v, _)| *v)
        .or_else(|| KERNEL_ONLY.iter().find(|(_, n, _)| *n == name).map(|(v, ..)| *v))
}

/// `No such file or directory` for 2.
pub fn message(errno: i32) -> String {
    if let Some((_, _, m)) = KERNEL_ONLY.iter().find(|(v, ..)| *v == errno) {
        return m.to_string();
    }
    let text = std::io::Error::from_raw_os_error(errno).to_string();
    // std appends " (os error N)".
    match text.rfind(" (os error") {
        Some(i) => text[..i].to_string(),
        None => text,
    }
}

/// The errno of a syscall's return value, if it is one (-4095..-1, as the kernel reserves).
pub fn of_return(ret: i64) -> Option<i32> {
    (-4095..0).contains(&ret).then_some(-ret as i32)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_and_messages() {
        assert_eq!(name(2), Some("ENOENT"));
        assert_eq!(
            (value("ENOENT"), value("EAGAIN"), value("ERESTARTSYS")),
            (Some(2), Some(11), Some(512))
        );
        assert_eq!(value("ENOSUCH"), None);
        assert_eq!(message(2), "No such file or directory");
        assert_eq!(name(11), Some("EAGAIN"), "EAGAIN before its alias EWOULDBLOCK");
        assert_eq!(name(95), Some("EOPNOTSUPP"));
        assert_eq!(name(512), Some("ERESTARTSYS"));
        assert_eq!(name(4000), None);
        assert_eq!(of_return(-2), Some(2));
        assert_eq!(of_return(3), None);
        assert_eq!(of_return(-5000), None, "a large negative value is not an errno");
    }
}
