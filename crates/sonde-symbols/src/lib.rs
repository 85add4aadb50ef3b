//! Symbols and addresses for sonde: kernel symbols (kallsyms), traceable kernel
//! functions (tracefs), ELF symbols for uprobes, finding binaries and libraries
//! by short name, and turning user-space addresses back into names.

pub mod debuginfo;
pub mod elf;
mod elf_read;
pub mod error;
pub mod insn;
pub mod kallsyms;
pub mod locate;
pub mod maps;
pub mod process;
pub mod symbolizer;
pub mod traceable;
pub mod uprobe;
pub mod user_types;

pub use elf::{functions, resolve_symbol, ElfFunction, ElfSymbols, UprobeTarget};
pub use error::{Error, Result};
pub use kallsyms::{KernelSymbol, KernelSymbols, PendingKernelSymbols};
pub use locate::{locate, locate_for_pid};
pub use maps::MapEntry;
pub use process::{ProcessSymbols, UserSymbol};
pub use symbolizer::Symbolizer;
pub use traceable::{
    address_aliases, tracefs_dir, Blacklist, GlobMatches, SkipReason, Skipped, TraceableFunctions,
};
pub use uprobe::resolve_uprobe;
