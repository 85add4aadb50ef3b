//! `watchpoint:ADDR:LEN:MODE` (short `w:`): a hardware breakpoint on LEN (1, 2, 4 or 8) bytes at
//! ADDR, firing on MODE: reads and writes (`rw`), writes (`w`) or execution (`x`), as the CPU
//! offers them. In the `-p`/`-c` process's threads, else on every CPU (kernel addresses).

use crate::model::site::{AttachPoint, ProgKind, Site};

/// The access combinations this CPU's debug registers offer (bpftrace's `watchpoint_modes`).
#[cfg(target_arch = "x86_64")]
const MODES: &[&str] = &["rw", "w", "x"];
#[cfg(not(target_arch = "x86_64"))]
const MODES: &[&str] = &["r", "rw", "w", "x"];

pub fn expand(definition: &str) -> Result<Vec<Site>, String> {
    let parts: Vec<&str> = definition.split(':').collect();
    let [addr, len, mode] = parts[..] else {
        return Err(format!(
            "`watchpoint:{}` is not a watchpoint: write `watchpoint:ADDRESS:LENGTH:MODE`, e.g. \
             `watchpoint:0x10000000:8:w`",
            definition
        ));
    };
    let addr = super::kprobe::address(addr).ok_or_else(|| {
        format!("`{}` is not an address: write it as 0x10000000 or in decimal", addr)
    })?;
    if addr == 0 {
        return Err("a watchpoint needs a non-zero address".into());
    }
    let len = match len.parse::<u64>() {
        Ok(n @ (1 | 2 | 4 | 8)) => n,
        _ => return Err(format!("watchpoint length `{}` is not one of 1, 2, 4 or 8", len)),
    };
    let mode = canonical_mode(mode)?;
    let point = AttachPoint::Watchpoint { addr, len, mode };
    Ok(vec![Site::new(point, ProgKind::PerfEvent)])
}

/// `wr` is `rw`: the letters sorted, each once, in a combination the CPU offers.
fn canonical_mode(mode: &str) -> Result<String, String> {
    let mut letters: Vec<char> = mode.chars().collect();
    letters.sort_unstable();
    if letters.is_empty() || letters.iter().any(|c| !"rwx".contains(*c)) {
        return Err(format!("watchpoint mode `{}` is not a combination of r, w and x", mode));
    }
    if letters.windows(2).any(|w| w[0] == w[1]) {
        return Err(format!("watchpoint mode `{}` names a letter twice", mode));
    }
    let sorted: String = letters.into_iter().collect();
    if !MODES.contains(&sorted.as_str()) {
        return Err(format!(
            "this CPU cannot watch for `{}`: its modes are {}",
            mode,
            MODES.join(", ")
        ));
    }
    Ok(sorted)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn point(d: &str) -> Result<AttachPoint, String> {
        expand(d).map(|s| s[0].point.clone())
    }

    #[test]
    fn address_length_and_mode() {
        let w = |addr, len, mode: &str| AttachPoint::Watchpoint { addr, len, mode: mode.into() };
        assert_eq!(point("0x10000000:8:w"), Ok(w(0x10000000, 8, "w")));
        assert_eq!(point("4096:1:wr"), Ok(w(4096, 1, "rw")));
        assert_eq!(point("0x10000000:1:x"), Ok(w(0x10000000, 1, "x")));
    }

    #[test]
    fn refusals_say_what_is_wrong() {
        assert!(point("0x1000:8").unwrap_err().contains("ADDRESS:LENGTH:MODE"));
        assert!(point("main:8:w").unwrap_err().contains("not an address"));
        assert!(point("0:8:w").unwrap_err().contains("non-zero"));
        assert!(point("0x1000:3:w").unwrap_err().contains("1, 2, 4 or 8"));
        assert!(point("0x1000:8:q").unwrap_err().contains("combination of r, w and x"));
        assert!(point("0x1000:8:ww").unwrap_err().contains("twice"));
        assert!(point("0x1000:8:").unwrap_err().contains("combination"));
    }

    #[cfg(target_arch = "x86_64")]
    #[test]
    fn x86_watches_no_reads_alone() {
        assert!(point("0x1000:8:r").unwrap_err().contains("modes are rw, w, x"));
        assert!(point("0x1000:8:rwx").is_err());
    }
}
