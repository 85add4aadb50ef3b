//! What the compiler needs to know about the running kernel, behind a trait so tests can hand it
//! fixtures and the compiler never reads /sys itself.

use std::fmt;

#[derive(Debug, Clone, PartialEq)]
pub enum EnvError {
    /// The thing asked for does not exist on this kernel.
    NotFound(String),
    /// It could not be read (no tracefs, permissions): a sentence saying why.
    Unavailable(String),
}

impl fmt::Display for EnvError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            EnvError::NotFound(s) | EnvError::Unavailable(s) => f.write_str(s),
        }
    }
}

pub trait Env {
    /// The text of `events/CATEGORY/NAME/format`.
    fn tracepoint_format(&self, category: &str, name: &str) -> Result<String, EnvError>;
    /// Every tracepoint as (category, name), for glob expansion and hints.
    fn tracepoints(&self) -> Result<Vec<(String, String)>, EnvError>;
    /// The kernel functions kprobes can attach to (tracefs' available_filter_functions, less
    /// the kprobe blacklist), for globs, checks and hints.
    fn kernel_functions(&self) -> Result<&[String], EnvError> {
        Err(EnvError::Unavailable("this kernel does not list its traceable functions".into()))
    }
    /// Kernel function names that share an address with one of `kernel_functions` but are not
    /// listed themselves, as (alias, listed twin) sorted by alias: the list names each address
    /// once (see `provider::kernel_functions`). Asked only for globs and unlisted names.
    fn kernel_function_aliases(&self) -> Result<&[(String, String)], EnvError> {
        Ok(&[])
    }
    /// Is `name` a function in the kernel's symbol table (kallsyms)? None when unknown. Tells a
    /// function that cannot be traced from one that does not exist.
    fn kernel_symbol_exists(&self, name: &str) -> Option<bool> {
        let _ = name;
        None
    }
    /// Is kernel module `name` loaded (/proc/modules)? None when unknown.
    fn kernel_module_loaded(&self, name: &str) -> Option<bool> {
        let _ = name;
        None
    }
    /// Does the running kernel's verifier know BPF helper `id` (`sonde_bpf::helper::*`)? The
    /// default models the newest kernel; the binary asks the kernel once (a feature probe).
    fn has_helper(&self, id: u32) -> bool {
        let _ = id;
        true
    }
    /// The address of kernel function `name` (kallsyms), for `caller` in return and trampoline
    /// probes on kernels without `bpf_get_func_ip`. None when unknown or hidden.
    fn kernel_symbol_address(&self, name: &str) -> Option<u64> {
        let _ = name;
        None
    }
    /// Does the running kernel's verifier know BPF's signed division and remainder (`BPF_SDIV`,
    /// `BPF_SMOD`: 6.6+)? Without them `/` and `%` of signed operands are a longer sequence of
    /// unsigned instructions with the same results. The default models the newest kernel.
    fn has_signed_division(&self) -> bool {
        true
    }
    /// A constant of the C headers bpftrace's scripts include that sonde has no table of:
    /// syscall numbers (`__NR_read`, `SYS_read`) and errno values (`EPERM`). None otherwise.
    fn c_constant(&self, name: &str) -> Option<i64> {
        let _ = name;
        None
    }
    /// How many CPUs are online, for bpftrace's `ncpus`. None when unknown.
    fn online_cpus(&self) -> Option<u32> {
        None
    }
    /// One more than the highest possible CPU (the kernel's nr_cpu_ids): the CPUs a per-CPU
    /// map has a value for, for reading an aggregation in a probe. None when unknown.
    fn cpu_ids(&self) -> Option<u32> {
        None
    }
    /// The running kernel's BTF, for typed arguments and struct members.
    fn btf(&self) -> Result<&sonde_btf::Btf, EnvError> {
        Err(EnvError::Unavailable(
            "this kernel has no BTF (/sys/kernel/btf/vmlinux): kernel types are unavailable".into(),
        ))
    }
    /// The types of the user binary at `path` (its DWARF or .BTF section), for casts in
    /// uprobes; `Err` says why there are none.
    fn user_types(&self, path: &str) -> Result<sonde_btf::Btf, EnvError> {
        Err(EnvError::Unavailable(format!("{path} has no type information that sonde can read")))
    }
    /// The file and file offset of `symbol` (`SYM` or `SYM+OFF`) in `binary` (a path, or a
    /// name found like `bash` or `libc`), for uprobes; with the path it resolved to.
    fn user_symbol(&self, binary: &str, symbol: &str) -> Result<(String, u64), EnvError> {
        let _ = (binary, symbol);
        Err(EnvError::Unavailable("user symbols are unavailable".into()))
    }
    /// The names of the functions in `binary` (found as `user_symbol` finds it), sorted, for
    /// a uprobe's wildcard.
    fn user_functions(&self, binary: &str) -> Result<Vec<String>, EnvError> {
        let _ = binary;
        Err(EnvError::Unavailable("user symbols are unavailable".into()))
    }
    /// The file and file offset of a source position in `binary` (found as `user_symbol` finds
    /// it), from its DWARF line tables, for `uprobe:BIN@FILE:LINE[:COL]`.
    fn user_source_line(
        &self,
        binary: &str,
        place: &SourceLine,
    ) -> Result<(String, u64), EnvError> {
        let _ = (binary, place);
        Err(EnvError::Unavailable("user debug info is unavailable".into()))
    }
    /// The name of the function of the user binary `path` that holds file offset `offset`, for
    /// `func` in a uprobe at an address or a source line; None when no function does.
    fn user_function_at(&self, path: &str, offset: u64) -> Option<String> {
        let _ = (path, offset);
        None
    }
    /// The executable files `-p`'s process has mapped (its binary and libraries), as paths
    /// this process can open, for `uprobe:*:FUNC`; `Err` says why there are none (no `-p`).
    fn target_binaries(&self) -> Result<Vec<String>, EnvError> {
        Err(EnvError::Unavailable(
            "`uprobe:*:…` probes the files of one process: give it with -p PID".into(),
        ))
    }
    /// The address and size of `symbol` (a variable, say) in the executable `path` as it is
    /// loaded (its ELF symbol table; not a position-independent one, whose address depends on
    /// the process), for bpftrace's `uaddr("sym")`.
    fn user_symbol_address(&self, path: &str, symbol: &str) -> Result<(u64, u64), EnvError> {
        let _ = (path, symbol);
        Err(EnvError::Unavailable("user symbols are unavailable".into()))
    }
}

/// A source position a uprobe names: `FILE:LINE[:COL]`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SourceLine<'a> {
    pub file: &'a str,
    pub line: u64,
    pub column: Option<u64>,
}

/// `max_strlen` unless the program says: 63 characters and the NUL fill a 64-byte slot of
/// the 512-byte BPF stack.
pub const STRING_SIZE: usize = 63;

/// Compile-time facts that come from the session rather than the kernel.
#[derive(Clone, Debug, Default)]
pub struct Options {
    /// `-p PID` or the `-c` child: every probe gets `pid == PID` as an extra predicate.
    pub filter_pid: Option<u32>,
    /// The `-c` child's pid, for `cpid` and `$target`.
    pub child_pid: Option<u32>,
    /// `bpf_ktime_get_ns()` at start-up, for `elapsed`.
    pub start_ns: u64,
    /// `--unsafe`: actions that change the traced system (bpftrace's `signal()`) are allowed.
    pub allow_unsafe: bool,
    /// The characters a string read with `str()` keeps by default (bpftrace's `max_strlen`):
    /// its `char[N]`, read with one byte more to tell a string cut there.
    pub string_size: usize,
    /// The words after the program: bpftrace's positional parameters `$1`.., `$#`.
    pub params: Vec<String>,
    /// The words after the program that start with `--`: bpftrace's named options, read by
    /// `getopt("name")`: `--name` (no value) or `--name=value`.
    pub named: Vec<(String, Option<String>)>,
    /// `exit()` also silences every probe in the kernel at once (CONTROL_MAP's flag), so nothing
    /// after it is recorded, or lost, while the exit record waits to be read. Not in `sonde
    /// serve`, which ignores `exit()`.
    pub exit_silences: bool,
    /// bpftrace's settings from the environment (`BPFTRACE_STACK_MODE=raw`, as
    /// `sema::config::Config::from_environment` keeps them), which win over `config = { }`.
    pub settings: Vec<(String, String)>,
    /// The real-time clock minus the boot clock at start-up: `tseries()` intervals follow the
    /// wall clock.
    pub wall_offset_ns: u64,
    /// bpftrace's test hook `BPFTRACE_DUMMY_TS_MAP=@m`: `tseries()` reads the time from the
    /// key-less map `@m` instead of the clock.
    pub dummy_ts_map: Option<String>,
    /// sonde's own pid namespace (the device and inode of /proc/self/ns/pid) when it is not the
    /// initial one: `pid` and `tid` are then seen from it, as bpftrace sees them.
    pub pid_namespace: Option<(u64, u64)>,
}

impl Options {
    pub fn new() -> Options {
        Options { string_size: STRING_SIZE, ..Options::default() }
    }
}

/// A kernel known only by its types: no tracepoints, nothing else. What a test that builds
/// its own BTF compiles against.
pub struct BtfOnly(pub sonde_btf::Btf);

impl Env for BtfOnly {
    fn tracepoint_format(&self, category: &str, name: &str) -> Result<String, EnvError> {
        Err(EnvError::NotFound(format!("no tracepoint {}:{}", category, name)))
    }
    fn tracepoints(&self) -> Result<Vec<(String, String)>, EnvError> {
        Ok(Vec::new())
    }
    fn btf(&self) -> Result<&sonde_btf::Btf, EnvError> {
        Ok(&self.0)
    }
}
