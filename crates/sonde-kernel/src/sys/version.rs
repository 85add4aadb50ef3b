//! The running kernel's release (`uname -r`) and its version, for the few features that cannot
//! be probed cheaply (among them `memlock`'s: whether BPF memory is charged to RLIMIT_MEMLOCK)
//! and for sentences that name the version a feature needs.

/// The running kernel's release (`uname -r`), empty if uname fails.
pub fn kernel_release() -> String {
    // SAFETY: uname fills the struct we own; its fields are NUL-terminated.
    let mut u: libc::utsname = unsafe { std::mem::zeroed() };
    if unsafe { libc::uname(&mut u) } != 0 {
        return String::new();
    }
    let bytes: Vec<u8> = u.release.iter().take_while(|&&c| c != 0).map(|&c| c as u8).collect();
    String::from_utf8_lossy(&bytes).into_owned()
}

/// (major, minor) of a release string such as `5.10.0-46-cloud-amd64`.
pub fn parse(release: &str) -> Option<(u32, u32)> {
    let mut parts = release.split(|c: char| !c.is_ascii_digit());
    let major = parts.next()?.parse().ok()?;
    let minor = parts.next()?.parse().ok()?;
    Some((major, minor))
}

/// (major, minor) of the running kernel.
pub fn running() -> Option<(u32, u32)> {
    parse(&kernel_release())
}

#[cfg(test)]
mod tests {
    use super::parse;

    #[test]
    fn releases_parse_to_major_and_minor() {
        assert_eq!(parse("5.10.0-46-cloud-amd64"), Some((5, 10)));
        assert_eq!(parse("6.18.1"), Some((6, 18)));
        assert_eq!(parse("6.1"), Some((6, 1)));
        assert_eq!(parse("garbage"), None);
        assert_eq!(parse(""), None);
    }
}
