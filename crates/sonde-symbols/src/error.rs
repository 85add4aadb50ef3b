//! One error type for the crate; every message reads as a plain sentence.

use std::path::PathBuf;

/// Everything that can go wrong while finding or reading symbols.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    #[error("could not read {path}: {source}")]
    Io {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },

    #[error(
        "/proc/kallsyms shows only zero addresses: reading kernel addresses needs root \
         (CAP_SYSLOG) and kernel.kptr_restrict below 2"
    )]
    KernelAddressesHidden,

    #[error(
        "tracefs is not mounted (looked for {tried}); mount it with \
         `mount -t tracefs nodev /sys/kernel/tracing`"
    )]
    TracefsMissing { tried: String },

    #[error(
        "could not read {path}: {source}; this kernel (or the sandbox it runs in) does not \
         let us list the traceable kernel functions"
    )]
    TraceableUnreadable {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },

    #[error("{path} is not an ELF file")]
    NotElf { path: PathBuf },

    #[error("{path} is not a valid ELF file: {reason}")]
    BadElf { path: PathBuf, reason: String },

    #[error("{path} has no symbol {symbol}{}", near_names(.near))]
    SymbolNotFound { path: PathBuf, symbol: String, near: Vec<String> },

    #[error(
        "{path} has no symbol {symbol}: it is in {libc} (glibc 2.34 moved libpthread, librt, libdl \
         and libutil into libc)"
    )]
    SymbolInLibc { path: PathBuf, symbol: String, libc: PathBuf },

    #[error("`{spec}` is not a valid symbol: {reason}")]
    BadSymbolSpec { spec: String, reason: String },

    #[error(
        "offset {offset:#x} is past the end of {symbol} in {path}, which is {size} bytes long"
    )]
    OffsetOutsideSymbol { path: PathBuf, symbol: String, offset: u64, size: u64 },

    #[error(
        "{symbol}+{offset:#x} in {path} is inside an instruction (it runs from {symbol}+{starts:#x} \
         to {symbol}+{next:#x}): a breakpoint there would change the program's code; \
         use an offset where an instruction starts"
    )]
    OffsetInsideInstruction { path: PathBuf, symbol: String, offset: u64, starts: u64, next: u64 },

    #[error(
        "cannot check that {symbol}+{offset:#x} in {path} starts an instruction: the bytes at \
         {symbol}+{at:#x} do not decode as x86 code"
    )]
    UndecodableCode { path: PathBuf, symbol: String, offset: u64, at: u64 },

    #[error(
        "{symbol} in {path} has size 0, so sonde cannot tell whether a probe there is on its \
         code; --unsafe probes it unchecked"
    )]
    UnsizedSymbol { path: PathBuf, symbol: String },

    #[error(
        "address {address:#x} in {path} is in no function with a size, so sonde cannot check \
         that it starts an instruction; --unsafe probes it unchecked"
    )]
    AddressInNoFunction { path: PathBuf, address: u64 },

    #[error(
        "{path} is not an ELF file, so sonde cannot check that offset {offset:#x} starts an \
         instruction; --unsafe probes that file offset unchecked"
    )]
    UncheckedFileOffset { path: PathBuf, offset: u64 },

    #[error("offset {offset:#x} is past the end of {path}, which is {len} bytes long")]
    PastEndOfFile { path: PathBuf, offset: u64, len: u64 },

    #[error("address {address:#x} in {path} is not inside any loadable segment")]
    NotInLoadSegment { path: PathBuf, address: u64 },

    #[error("could not find a binary or library named `{name}` (searched {searched})")]
    NotFound { name: String, searched: String },

    #[error("process {pid} does not exist (or has exited)")]
    NoSuchProcess { pid: u32 },
}

fn near_names(near: &[String]) -> String {
    if near.is_empty() {
        String::new()
    } else {
        format!("; did you mean {}?", near.join(", "))
    }
}

impl Error {
    pub(crate) fn io(path: impl Into<PathBuf>, source: std::io::Error) -> Self {
        Error::Io { path: path.into(), source }
    }
}

pub type Result<T, E = Error> = std::result::Result<T, E>;
