//! The running kernel's syscall tracepoints: every one has a number and its named arguments
//! (skipped where tracefs is not mounted).

use sonde_compile::{Env, EnvError};
use sonde_kernel::tracefs::Tracefs;
use sonde_trace::syscalls::SyscallTable;

struct Host(Tracefs);

impl Env for Host {
    fn tracepoint_format(&self, category: &str, name: &str) -> Result<String, EnvError> {
        self.0.tracepoint_format(category, name).map_err(|e| EnvError::NotFound(e.to_string()))
    }
    fn tracepoints(&self) -> Result<Vec<(String, String)>, EnvError> {
        self.0.list_tracepoints().map_err(|e| EnvError::Unavailable(e.to_string()))
    }
}

#[test]
fn every_syscall_of_this_kernel_has_a_number_and_named_arguments() {
    let Some(tfs) = Tracefs::find() else {
        eprintln!("skipped: tracefs is not mounted");
        return;
    };
    let dir = tfs.root().join("events/syscalls");
    let Ok(entries) = std::fs::read_dir(&dir) else {
        eprintln!("skipped: no syscall tracepoints");
        return;
    };
    let names: Vec<String> = entries
        .filter_map(|e| e.ok()?.file_name().into_string().ok())
        .filter_map(|n| n.strip_prefix("sys_enter_").map(String::from))
        .collect();
    let table = SyscallTable::load(&Host(tfs)).unwrap();
    for tp in &names {
        let sc = table.iter().find(|s| &s.tracepoint == tp);
        let sc =
            sc.unwrap_or_else(|| panic!("sys_enter_{tp} has no syscall number in sonde's table"));
        let format = std::fs::read_to_string(dir.join(format!("sys_enter_{tp}/format"))).unwrap();
        let fields = format.matches("field:").count() - 5; // common_* and __syscall_nr
        assert_eq!(sc.args.len(), fields, "{tp}: {:?}", sc.args);
    }
    assert_eq!(table.len(), names.len());
}
