//! The compiler's `Env` answered by this host: tracepoint formats and the traceable functions
//! from tracefs, kernel types from BTF, kernel symbols from kallsyms, uprobe targets from ELF files.

use sonde_compile::{Env, EnvError};
use sonde_kernel::tracefs::Tracefs;
use std::cell::OnceCell;
use std::collections::HashMap;

/// Finds (or mounts) tracefs on first use, so programs that need no tracepoint never touch it.
pub struct HostEnv {
    tracefs: OnceCell<Result<Tracefs, String>>,
    list: OnceCell<Result<Vec<(String, String)>, String>>,
    /// Loaded on first use (about 1 ms), so tracepoint-only programs never read it.
    btf: OnceCell<Result<sonde_btf::Btf, String>>,
    functions: OnceCell<Result<Vec<String>, String>>,
    /// Unlisted names of traceable addresses (kallsyms), for globs and unlisted names only.
    aliases: OnceCell<Result<Vec<(String, String)>, String>>,
    /// Read only where the kernel has no bpf_get_func_ip (see `kernel_symbol_address`).
    kallsyms: OnceCell<Option<sonde_symbols::kallsyms::KernelSymbols>>,
    /// `-p PID`: library names in uprobes resolve to what that process has mapped.
    pid: Option<u32>,
    /// `--unsafe`: uprobes go where sonde cannot check they start an instruction.
    unchecked_uprobes: bool,
    /// Each user binary's types (casts in uprobes), read once.
    user_types: std::cell::RefCell<HashMap<String, Result<sonde_btf::Btf, String>>>,
}

impl HostEnv {
    pub fn new() -> HostEnv {
        HostEnv::for_pid(None)
    }

    pub fn for_pid(pid: Option<u32>) -> HostEnv {
        HostEnv {
            tracefs: OnceCell::new(),
            list: OnceCell::new(),
            btf: OnceCell::new(),
            functions: OnceCell::new(),
            aliases: OnceCell::new(),
            kallsyms: OnceCell::new(),
            pid,
            unchecked_uprobes: false,
            user_types: Default::default(),
        }
    }

    /// With `--unsafe`: uprobes at addresses, offsets and symbols sonde cannot check.
    pub fn unchecked_uprobes(mut self, unchecked: bool) -> HostEnv {
        self.unchecked_uprobes = unchecked;
        self
    }

    /// Why the kernel's types were asked for and could not be had, if they were: said once after
    /// a program compiles (errors that needed the types say it themselves).
    pub fn btf_missing(&self) -> Option<&str> {
        self.btf.get()?.as_ref().err().map(String::as_str)
    }

    pub fn tracefs(&self) -> Result<&Tracefs, EnvError> {
        self.tracefs
            .get_or_init(|| Tracefs::find_or_mount().map_err(|e| e.to_string()))
            .as_ref()
            .map_err(|e| EnvError::Unavailable(e.clone()))
    }

    /// A uprobe's binary: a path as written; a bare name (`bash`, `libc`) found like surftrace
    /// does (in what `-p`'s process has mapped, when given).
    fn locate_binary(&self, binary: &str) -> Result<std::path::PathBuf, EnvError> {
        let found = if let (Some(pid), true) = (self.pid, binary.starts_with('/')) {
            return Ok(sonde_symbols::locate::path_for_pid(binary, pid));
        } else if binary.contains('/') {
            return Ok(std::path::PathBuf::from(binary));
        } else if let Some(pid) = self.pid {
            sonde_symbols::locate::locate_for_pid(binary, pid)
        } else {
            sonde_symbols::locate::locate(binary)
        };
        found.map_err(|e| EnvError::NotFound(e.to_string()))
    }
}

impl Env for HostEnv {
    fn c_constant(&self, name: &str) -> Option<i64> {
        if let Some(call) = name.strip_prefix("__NR_").or_else(|| name.strip_prefix("SYS_")) {
            return sonde_trace::nr::number(call).map(i64::from);
        }
        sonde_trace::errno::value(name).map(i64::from)
    }

    fn tracepoint_format(&self, category: &str, name: &str) -> Result<String, EnvError> {
        self.tracefs()?.tracepoint_format(category, name).map_err(|e| match e {
            sonde_kernel::error::KernelError::UnknownTracepoint { .. } => {
                EnvError::NotFound(e.to_string())
            }
            other => EnvError::Unavailable(other.to_string()),
        })
    }

    fn kernel_functions(&self) -> Result<&[String], EnvError> {
        self.functions
            .get_or_init(|| {
                let _ = self.tracefs(); // available_filter_functions lives in tracefs
                let all = sonde_symbols::traceable::TraceableFunctions::load()
                    .map_err(|e| e.to_string())?;
                let blacklist = sonde_symbols::traceable::Blacklist::load().ok();
                Ok(all
                    .names()
                    .filter(|n| !blacklist.as_ref().is_some_and(|b| b.contains(n)))
                    .map(String::from)
                    .collect())
            })
            .as_deref()
            .map_err(|e| EnvError::Unavailable(e.clone()))
    }

    fn kernel_function_aliases(&self) -> Result<&[(String, String)], EnvError> {
        let listed = self.kernel_functions()?;
        self.aliases
            .get_or_init(|| {
                let syms = self
                    .kallsyms
                    .get_or_init(|| sonde_symbols::kallsyms::KernelSymbols::load().ok())
                    .as_ref()
                    .ok_or("kallsyms is unreadable or hides its addresses")?;
                let known: std::collections::HashSet<&str> =
                    listed.iter().map(String::as_str).collect();
                Ok(sonde_symbols::address_aliases(syms, |n| known.contains(n)))
            })
            .as_deref()
            .map_err(|e: &String| EnvError::Unavailable(e.clone()))
    }

    fn user_symbol(&self, binary: &str, symbol: &str) -> Result<(String, u64), EnvError> {
        let path = self.locate_binary(binary)?;
        let target = sonde_symbols::resolve_uprobe(&path, symbol, !self.unchecked_uprobes)
            .map_err(|e| EnvError::NotFound(e.to_string()))?;
        Ok((target.path.to_string_lossy().into_owned(), target.offset))
    }

    fn user_source_line(
        &self,
        binary: &str,
        place: &sonde_compile::SourceLine,
    ) -> Result<(String, u64), EnvError> {
        use sonde_symbols::debuginfo::lines::{line_offset, SourcePlace};
        let path = self.locate_binary(binary)?;
        let at = SourcePlace { file: place.file, line: place.line, column: place.column };
        let (offset, _) = line_offset(&path, &at).map_err(EnvError::NotFound)?;
        Ok((path.to_string_lossy().into_owned(), offset))
    }

    fn user_functions(&self, binary: &str) -> Result<Vec<String>, EnvError> {
        let path = self.locate_binary(binary)?;
        let functions =
            sonde_symbols::functions(&path).map_err(|e| EnvError::NotFound(e.to_string()))?;
        Ok(functions.into_iter().map(|f| f.name).collect())
    }

    fn user_function_at(&self, path: &str, offset: u64) -> Option<String> {
        let mut elf = sonde_symbols::elf::ElfSymbols::load(std::path::Path::new(path)).ok()?;
        let vaddr = elf.file_offset_to_vaddr(offset)?;
        if elf.function_holding(vaddr).is_none() {
            elf.add_debug_symbols();
        }
        elf.function_holding(vaddr).map(|(name, _, _)| name)
    }

    fn target_binaries(&self) -> Result<Vec<String>, EnvError> {
        let Some(pid) = self.pid else {
            let why = "`uprobe:*:…` probes the files of one process: give it with -p PID";
            return Err(EnvError::Unavailable(why.into()));
        };
        let files = sonde_symbols::locate::mapped_files(pid)
            .map_err(|e| EnvError::Unavailable(e.to_string()))?;
        Ok(files.into_iter().map(|p| p.to_string_lossy().into_owned()).collect())
    }

    fn user_symbol_address(&self, path: &str, symbol: &str) -> Result<(u64, u64), EnvError> {
        const ET_EXEC: u16 = 2;
        let head = std::fs::read(path).map_err(|e| EnvError::NotFound(format!("{path}: {e}")))?;
        let e_type = head.get(16..18).map(|b| u16::from_le_bytes([b[0], b[1]]));
        if e_type != Some(ET_EXEC) {
            return Err(EnvError::Unavailable(format!(
                "{path} is position-independent: its symbols' addresses depend on where each process loads it"
            )));
        }
        let mut elf = sonde_symbols::elf::ElfSymbols::load(std::path::Path::new(path))
            .map_err(|e| EnvError::NotFound(e.to_string()))?;
        let found = match elf.resolve(symbol) {
            Err(_) if elf.add_debug_symbols() => elf.resolve(symbol),
            other => other,
        };
        let t = found.map_err(|e| EnvError::NotFound(e.to_string()))?;
        Ok((t.address, t.size))
    }

    fn user_types(&self, path: &str) -> Result<sonde_btf::Btf, EnvError> {
        let read = || {
            sonde_symbols::user_types::user_types(std::path::Path::new(path))
                .map_err(|e| e.to_string())
        };
        let mut cache = self.user_types.borrow_mut();
        cache.entry(path.to_string()).or_insert_with(read).clone().map_err(EnvError::NotFound)
    }

    fn kernel_symbol_exists(&self, name: &str) -> Option<bool> {
        // Only on the error path: reading kallsyms costs tens of milliseconds.
        let syms = sonde_symbols::kallsyms::KernelSymbols::load_names().ok()?;
        Some(syms.lookup(name).is_some())
    }

    fn kernel_module_loaded(&self, name: &str) -> Option<bool> {
        match std::fs::read_to_string("/proc/modules") {
            Ok(modules) => Some(modules.lines().any(|l| l.split(' ').next() == Some(name))),
            // A mounted /proc without the file: a kernel built without modules.
            Err(_) if std::path::Path::new("/proc/self").exists() => Some(false),
            Err(_) => None,
        }
    }

    fn has_helper(&self, id: u32) -> bool {
        // Every helper sonde asks about is a tracing one: a kprobe program tells.
        sonde_kernel::features::has_helper(sonde_kernel::object::prog::ProgType::Kprobe, id)
    }

    fn has_signed_division(&self) -> bool {
        sonde_kernel::features::has_signed_division()
    }

    fn online_cpus(&self) -> Option<u32> {
        sonde_kernel::host::cpus::online_cpus().ok().map(|c| c.len() as u32)
    }

    fn cpu_ids(&self) -> Option<u32> {
        sonde_kernel::host::cpus::possible_cpus().ok()?.iter().max().map(|c| c + 1)
    }

    fn kernel_symbol_address(&self, name: &str) -> Option<u64> {
        // Only on kernels without bpf_get_func_ip: reading kallsyms costs tens of milliseconds.
        let syms =
            self.kallsyms.get_or_init(|| sonde_symbols::kallsyms::KernelSymbols::load().ok());
        syms.as_ref()?.address(name).filter(|&a| a != 0)
    }

    fn btf(&self) -> Result<&sonde_btf::Btf, EnvError> {
        self.btf
            .get_or_init(|| {
                sonde_btf::Btf::load_vmlinux().map_err(|e| match e {
                    sonde_btf::BtfError::NoKernelBtf { path } => {
                        format!("this kernel has no BTF ({} is missing)", path.display())
                    }
                    other => other.to_string(),
                })
            })
            .as_ref()
            .map_err(|e| EnvError::Unavailable(e.clone()))
    }

    fn tracepoints(&self) -> Result<Vec<(String, String)>, EnvError> {
        let tfs = self.tracefs()?;
        self.list
            .get_or_init(|| tfs.list_tracepoints().map_err(|e| e.to_string()))
            .clone()
            .map_err(EnvError::Unavailable)
    }
}
