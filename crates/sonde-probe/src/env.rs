//! What resolving an expression needs to know about the running system, behind a trait so the
//! goldens run against fixture BTF and made-up symbols, and the binary against the kernel.

use sonde_btf::Btf;

/// A user function resolved to the file and offset uprobe_events wants.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct UserSite {
    pub path: String,
    pub offset: u64,
}

pub trait Env {
    /// The kernel's BTF, if it has one.
    fn btf(&self) -> Option<&Btf>;
    /// `Ok` if `name` is a kernel function kprobes may take; else close names for a hint.
    fn kernel_function(&self, name: &str) -> Result<(), Vec<String>>;
    /// Whether `name` is a kernel symbol (`@SYM`).
    fn kernel_symbol(&self, name: &str) -> bool;
    /// The fields of tracepoint `group/event`, or `None` if it does not exist.
    fn tracepoint_fields(&self, group: &str, event: &str) -> Option<Vec<String>>;
    /// `BIN:SYM[+OFF]` (a path or a name such as `bash` or `libc`) to a file offset; `Err` is the
    /// sentence saying why not.
    fn user_function(&self, binary: &str, symbol: &str) -> Result<UserSite, String>;
    /// The types of the user binary at `path` (its DWARF or .BTF), for casts in uprobes; `Err`
    /// is the sentence saying why there are none.
    fn user_types(&self, path: &str) -> Result<Btf, String>;
}
