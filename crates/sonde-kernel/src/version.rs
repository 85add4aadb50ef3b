//! The running kernel's version, for the few features that cannot be probed cheaply and for
//! sentences that name the version a feature needs.

/// (major, minor) of a release string such as `5.10.0-46-cloud-amd64`.
pub fn parse(release: &str) -> Option<(u32, u32)> {
    let mut parts = release.split(|c: char| !c.is_ascii_digit());
    let major = parts.next()?.parse().ok()?;
    let minor = parts.next()?.parse().ok()?;
    Some((major, minor))
}

/// (major, minor) of the running kernel.
pub fn running() -> Option<(u32, u32)> {
    parse(&crate::sys::kernel_release())
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
