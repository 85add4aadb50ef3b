//! The running kernel's build configuration: `/proc/config.gz` (CONFIG_IKCONFIG_PROC) or the
//! distribution's `/boot/config-RELEASE`. Only for explaining: what sonde can do is always
//! answered by trying (see `features`); the config says why something is missing.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

#[derive(Clone, Debug)]
pub struct KernelConfig {
    /// Where it was read from.
    pub path: PathBuf,
    values: HashMap<String, String>,
}

impl KernelConfig {
    /// The running kernel's config, if it can be found and read.
    pub fn running() -> Option<KernelConfig> {
        let boot = PathBuf::from(format!("/boot/config-{}", crate::sys::version::kernel_release()));
        [PathBuf::from("/proc/config.gz"), boot].into_iter().find_map(|p| KernelConfig::read(&p))
    }

    /// A config file, gzipped (by its magic bytes) or plain.
    pub fn read(path: &Path) -> Option<KernelConfig> {
        let raw = std::fs::read(path).ok()?;
        let text = if raw.starts_with(&[0x1f, 0x8b]) { gunzip(&raw)? } else { raw };
        Some(KernelConfig {
            path: path.to_path_buf(),
            values: parse(&String::from_utf8_lossy(&text)),
        })
    }

    /// `y`, `m`, a number or string; `None` for "is not set" and options this kernel lacks.
    pub fn get(&self, name: &str) -> Option<&str> {
        self.values.get(name).map(String::as_str)
    }

    /// Built in or a module.
    pub fn enabled(&self, name: &str) -> bool {
        matches!(self.get(name), Some("y" | "m"))
    }
}

fn parse(text: &str) -> HashMap<String, String> {
    text.lines()
        .filter_map(|l| l.split_once('='))
        .filter(|(k, _)| k.starts_with("CONFIG_"))
        .map(|(k, v)| (k.to_string(), v.trim_matches('"').to_string()))
        .collect()
}

/// A gzip member (RFC 1952): the header, optional fields, then raw deflate.
fn gunzip(raw: &[u8]) -> Option<Vec<u8>> {
    let flags = *raw.get(3)?;
    let mut at = 10;
    if flags & 0x04 != 0 {
        let xlen = u16::from_le_bytes([*raw.get(at)?, *raw.get(at + 1)?]) as usize;
        at += 2 + xlen;
    }
    for bit in [0x08, 0x10] {
        // FNAME, FCOMMENT: NUL-terminated.
        if flags & bit != 0 {
            at += raw.get(at..)?.iter().position(|&b| b == 0)? + 1;
        }
    }
    if flags & 0x02 != 0 {
        at += 2;
    }
    miniz_oxide::inflate::decompress_to_vec(raw.get(at..)?).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_parse() {
        let v = parse("# comment\nCONFIG_KPROBES=y\n# CONFIG_FPROBE is not set\nCONFIG_X=\"a b\"\nCONFIG_HZ=250\n");
        assert_eq!(v.get("CONFIG_KPROBES").map(String::as_str), Some("y"));
        assert_eq!(v.get("CONFIG_FPROBE"), None);
        assert_eq!(v.get("CONFIG_X").map(String::as_str), Some("a b"));
        assert_eq!(v.get("CONFIG_HZ").map(String::as_str), Some("250"));
    }

    #[test]
    fn gzip_with_a_name_inflates() {
        // `printf 'CONFIG_A=y\n' | gzip -n` with FNAME "c" added by hand (flags 0x08).
        let deflated = miniz_oxide::deflate::compress_to_vec(b"CONFIG_A=y\n", 6);
        let mut gz = vec![0x1f, 0x8b, 8, 0x08, 0, 0, 0, 0, 0, 3, b'c', 0];
        gz.extend_from_slice(&deflated);
        gz.extend_from_slice(&[0; 8]);
        assert_eq!(gunzip(&gz).as_deref(), Some(&b"CONFIG_A=y\n"[..]));
    }

    #[test]
    fn this_kernels_config_reads_when_present() {
        if let Some(c) = KernelConfig::running() {
            assert!(c.enabled("CONFIG_BPF_SYSCALL"), "{}", c.path.display());
        }
    }
}
