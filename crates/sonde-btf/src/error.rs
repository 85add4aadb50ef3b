//! What can go wrong when loading BTF, phrased for the person running sonde.

use std::path::PathBuf;

/// Why BTF could not be loaded. Lookups on a loaded [`crate::Btf`] never fail with an error:
/// they return `None` (or void) for names and ids that are not there.
#[derive(Debug, thiserror::Error)]
pub enum BtfError {
    /// The kernel was built without `CONFIG_DEBUG_INFO_BTF`.
    #[error("this kernel has no BTF ({} is missing): kernel types are unavailable; integer arguments still work", path.display())]
    NoKernelBtf { path: PathBuf },

    /// The module is not loaded, or was built without BTF.
    #[error("module {module} has no BTF ({} is missing): is the module loaded?", path.display())]
    NoModuleBtf { module: String, path: PathBuf },

    #[error("cannot read BTF from {}: {source}", path.display())]
    Io {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },

    #[error("this is not BTF data: it starts with {found:#06x}, but BTF starts with 0xeb9f")]
    BadMagic { found: u16 },

    #[error("BTF version {0} is not supported (only version 1 is)")]
    UnsupportedVersion(u8),

    #[error("the BTF data is truncated: its {what} runs past the end of the data")]
    Truncated { what: &'static str },

    #[error("the BTF data is malformed: {0}")]
    Malformed(String),

    /// A kind added to the format after this crate was written: its record length is unknown,
    /// so no type after it can be found.
    #[error("BTF type {id} has kind {kind}, which this version of sonde does not know")]
    UnknownKind { id: u32, kind: u8 },

    #[error("split BTF needs vmlinux BTF as its base, but the base given is itself split BTF")]
    BaseIsSplit,
}
