//! What resolving an expression needs to know about the running system, behind a trait so the
//! goldens run against fixture BTF and made-up symbols, and the binary against the kernel.

use sonde_btf::Btf;

/// A user function resolved to the file and offset uprobe_events wants.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct UserSite {
    pub path: String,
    pub offset: u64,
}

/// Why kprobes cannot take a kernel function.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum FunctionMiss {
    /// The kernel has no function of that name; close names for a hint ([`near_functions`]).
    Unknown(Vec<String>),
    /// The kernel has it, on the kprobe blacklist.
    Blacklisted,
    /// The kernel has it, and does not list it as traceable (notrace, or inlined everywhere).
    NotTraceable,
}

/// Names to offer for a function `name` the kernel does not have: the compiler's copies of it
/// (`NAME.constprop.0`, `NAME.isra.0`, `NAME.part.0`), which are all there is of a function
/// it specialised, else the closest name.
pub fn near_functions(name: &str, all: &[&str]) -> Vec<String> {
    let copy = |f: &&str| {
        f.strip_prefix(name).and_then(|rest| rest.strip_prefix('.')).is_some_and(|suffix| {
            ["constprop.", "isra.", "part."].iter().any(|k| suffix.starts_with(k))
        })
    };
    let mut copies: Vec<String> = all.iter().filter(|f| copy(f)).map(|f| f.to_string()).collect();
    if !copies.is_empty() {
        copies.sort();
        copies.dedup();
        return copies;
    }
    sonde_syntax::closest(name, all.iter().copied())
        .map(|s| vec![s.to_string()])
        .unwrap_or_default()
}

pub trait Env {
    /// The kernel's BTF, if it has one.
    fn btf(&self) -> Option<&Btf>;
    /// `Ok` if `name` is a kernel function kprobes may take; else why not.
    fn kernel_function(&self, name: &str) -> Result<(), FunctionMiss>;
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

#[cfg(test)]
mod tests {
    use super::near_functions;

    #[test]
    fn a_specialised_function_is_offered_by_its_copys_name() {
        let all = ["netif_receive_skb_core", "__netif_receive_skb_core.constprop.0", "tcp_v4_rcv"];
        assert_eq!(
            near_functions("__netif_receive_skb_core", &all),
            ["__netif_receive_skb_core.constprop.0"]
        );
        let all = ["do_filp_open", "tcp_v4_rcv", "tcp_v4_rcv_x.isra.0"];
        assert_eq!(near_functions("tcp_v4_rvc", &all), ["tcp_v4_rcv"]);
        assert_eq!(near_functions("tcp_v4_rcv_x", &all), ["tcp_v4_rcv_x.isra.0"]);
    }
}
