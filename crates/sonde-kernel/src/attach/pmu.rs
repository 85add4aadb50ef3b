//! The kprobe and uprobe PMUs (4.17+): `perf_event_open` with a PMU's dynamic type creates a
//! probe that belongs to the fd alone, so the kernel removes it when the fd closes, even after
//! SIGKILL. Shared by `kprobe.rs` and `uprobe.rs`; where there is no PMU they fall back to
//! tracefs events (`probe_event.rs`).

use crate::error::{KernelError, Result};
use crate::tracefs::probe_event::Kind;
use crate::tracefs::Tracefs;
use std::sync::OnceLock;

/// Which kernel interface creates the probe.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ProbeVia {
    /// The PMU if the kernel has it, else tracefs.
    Auto,
    /// Only the kprobe/uprobe PMU.
    Pmu,
    /// Only tracefs `kprobe_events`/`uprobe_events` (the fallback; forced for tests).
    Tracefs,
}

/// A dynamic PMU's perf type and the config bit that makes a probe a return probe.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Pmu {
    pub(crate) type_: u32,
    pub(crate) retprobe: u64,
}

/// The kprobe or uprobe PMU, read from sysfs once per process. None if the kernel has none.
pub(crate) fn pmu(kind: Kind) -> Result<Option<Pmu>> {
    static KPROBE: OnceLock<Option<Pmu>> = OnceLock::new();
    static UPROBE: OnceLock<Option<Pmu>> = OnceLock::new();
    let cell = match kind {
        Kind::Kprobe => &KPROBE,
        Kind::Uprobe => &UPROBE,
        Kind::Fprobe => return Ok(None),
    };
    if let Some(p) = cell.get() {
        return Ok(*p);
    }
    let dir = format!("/sys/bus/event_source/devices/{}", kind.name());
    let type_path = format!("{dir}/type");
    let type_text = match std::fs::read_to_string(&type_path) {
        Ok(t) => t,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(*cell.get_or_init(|| None)),
        Err(e) => return Err(KernelError::Io { path: type_path, source: e }),
    };
    let type_ = type_text
        .trim()
        .parse()
        .map_err(|_| KernelError::Parse { path: type_path, text: type_text.trim().into() })?;
    let bit_path = format!("{dir}/format/retprobe");
    let bit_text = std::fs::read_to_string(&bit_path).map_err(KernelError::io(&bit_path))?;
    let retprobe = parse_config_bit(&bit_text)
        .ok_or_else(|| KernelError::Parse { path: bit_path, text: bit_text.trim().into() })?;
    Ok(*cell.get_or_init(|| Some(Pmu { type_, retprobe })))
}

/// `config:N` (a PMU format file naming one bit of `config`) to that bit's mask.
fn parse_config_bit(text: &str) -> Option<u64> {
    let bit: u32 = text.trim().strip_prefix("config:")?.parse().ok()?;
    (bit < 64).then(|| 1u64 << bit)
}

/// kprobes by either route (the PMU, or tracefs `kprobe_events` if tracefs is mounted). Public as
/// [`crate::features::has_kprobes`]; here because attaching needs the answer too.
pub(crate) fn kprobes_available() -> bool {
    std::path::Path::new("/sys/bus/event_source/devices/kprobe/type").is_file()
        || Tracefs::find().is_some_and(|t| Kind::Kprobe.available(&t))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pmu_format_bits_parse() {
        assert_eq!(parse_config_bit("config:0\n"), Some(1));
        assert_eq!(parse_config_bit("config:5"), Some(32));
        assert_eq!(parse_config_bit("config1:0"), None);
        assert_eq!(parse_config_bit("config:64"), None);
    }
}
