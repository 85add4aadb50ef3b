use super::*;
use sonde_compile::{Env, EnvError, Options};
use std::path::PathBuf;

/// A kernel that lists a few functions, with or without `bpf_get_func_ip` (5.15), and no BTF.
struct Kernel {
    functions: Vec<String>,
    func_ip: bool,
}

impl Env for Kernel {
    fn tracepoint_format(&self, category: &str, name: &str) -> Result<String, EnvError> {
        let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/events");
        std::fs::read_to_string(root.join(category).join(name).join("format"))
            .map_err(|e| EnvError::NotFound(e.to_string()))
    }
    fn tracepoints(&self) -> Result<Vec<(String, String)>, EnvError> {
        Ok(vec![])
    }
    fn kernel_functions(&self) -> Result<&[String], EnvError> {
        Ok(&self.functions)
    }
    fn has_helper(&self, id: u32) -> bool {
        self.func_ip || id != sonde_bpf::helper::GET_FUNC_IP
    }
    fn kernel_symbol_address(&self, name: &str) -> Option<u64> {
        let i = self.functions.iter().position(|f| f == name)?;
        Some(0xffff_ffff_8100_0000 + 0x100 * i as u64)
    }
}

fn kernel(func_ip: bool) -> Kernel {
    let functions =
        ["do_sys_openat2", "path_openat", "link_path_walk", "lookup_fast", "may_open", "mntput"];
    Kernel { functions: functions.iter().map(|f| f.to_string()).collect(), func_ip }
}

fn function(name: &str, returns: Returns) -> Function {
    Function { name: name.into(), returns, trampoline: false }
}

fn plan(tasks: Tasks) -> Plan {
    Plan {
        entry: function("do_sys_openat2", Returns::Errno64),
        inner: vec![
            function("path_openat", Returns::Pointer),
            function("link_path_walk", Returns::Errno32),
            function("lookup_fast", Returns::Pointer),
            function("may_open", Returns::Never),
            function("mntput", Returns::Void),
        ],
        args: vec![Arg::Int, Arg::Str, Arg::Int],
        tasks,
        comm: Some("cat\"; exit(); \"".into()),
        latency_ns: Some(10_000_000),
    }
}

fn compiles(text: &str, env: &Kernel) -> sonde_compile::Compiled {
    let mut opts = Options::new();
    opts.string_size = ARG_STRING_BYTES;
    match sonde_compile::compile(text, env, &opts) {
        Ok(c) => c,
        Err(d) => panic!("{text}\n{d:?}"),
    }
}

#[test]
fn the_program_compiles_with_and_without_func_ip() {
    for func_ip in [true, false] {
        for tasks in [Tasks::AllBut(1), Tasks::Pids(vec![42])] {
            let env = kernel(func_ip);
            let c = compiles(&plan(tasks).program(), &env);
            assert!(!c.programs.is_empty());
        }
    }
}

#[test]
fn returns_share_one_program_per_failure_test_where_func_ip_exists() {
    let c = compiles(&plan(Tasks::AllBut(1)).program(), &kernel(true));
    let rets: Vec<usize> = c
        .programs
        .iter()
        .filter(|p| {
            p.sites.iter().all(|s| {
                matches!(&s.point, sonde_compile::provider::AttachPoint::Kprobe { retprobe: true, symbol, .. } if symbol != "do_sys_openat2")
            })
        })
        .map(|p| p.sites.len())
        .collect();
    // Pointer (2 functions), errno32, never and void: four programs, one link each.
    let mut rets = rets;
    rets.sort();
    assert_eq!(rets, vec![1, 1, 1, 2]);
}

#[test]
fn user_text_cannot_leave_its_string() {
    let text = plan(Tasks::AllBut(1)).program();
    assert!(text.contains(r#"comm == "cat\x22\x3b exit\x28\x29\x3b \x22""#), "{text}");
}

#[test]
fn no_inner_function_leaves_the_entry_alone() {
    let mut p = plan(Tasks::AllBut(1));
    p.inner.clear();
    p.comm = None;
    p.latency_ns = None;
    compiles(&p.program(), &kernel(true));
}

/// The fixture kernel with this machine's BTF, for fentry/fexit.
struct WithBtf(Kernel, sonde_btf::Btf);

impl Env for WithBtf {
    fn tracepoint_format(&self, category: &str, name: &str) -> Result<String, EnvError> {
        self.0.tracepoint_format(category, name)
    }
    fn tracepoints(&self) -> Result<Vec<(String, String)>, EnvError> {
        self.0.tracepoints()
    }
    fn kernel_functions(&self) -> Result<&[String], EnvError> {
        self.0.kernel_functions()
    }
    fn has_helper(&self, id: u32) -> bool {
        self.0.has_helper(id)
    }
    fn kernel_symbol_address(&self, name: &str) -> Option<u64> {
        self.0.kernel_symbol_address(name)
    }
    fn btf(&self) -> Result<&sonde_btf::Btf, EnvError> {
        Ok(&self.1)
    }
}

#[test]
fn trampolines_and_kprobes_mix_in_one_program() {
    let Ok(btf) = sonde_btf::Btf::load_vmlinux() else {
        eprintln!("skipped: this machine has no kernel BTF");
        return;
    };
    for func_ip in [true, false] {
        let env = WithBtf(kernel(func_ip), btf.clone());
        let mut p = plan(Tasks::AllBut(1));
        p.entry.trampoline = true;
        for f in p.inner.iter_mut().filter(|f| f.name != "link_path_walk") {
            f.trampoline = true;
        }
        let text = p.program();
        assert!(text.contains("fexit:do_sys_openat2 /@ed[tid] > 0/"), "{text}");
        assert!(text.contains("fentry:path_openat, kprobe:link_path_walk"), "{text}");
        let c = match sonde_compile::compile(&text, &env, &Options::new()) {
            Ok(c) => c,
            Err(d) => panic!("{text}\n{d:?}"),
        };
        assert!(c.programs.len() > 6);
    }
}
