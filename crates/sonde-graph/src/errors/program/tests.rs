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
    let functions = ["do_sys_openat2", "path_openat", "link_path_walk", "lookup_fast", "may_open"];
    Kernel { functions: functions.iter().map(|f| f.to_string()).collect(), func_ip }
}

fn plan(tasks: Tasks) -> Plan {
    Plan {
        entry: "do_sys_openat2".into(),
        entry_returns: Returns::Errno64,
        inner: vec![
            ("path_openat".into(), Returns::Pointer),
            ("link_path_walk".into(), Returns::Errno32),
            ("lookup_fast".into(), Returns::Pointer),
            ("may_open".into(), Returns::Never),
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
    // Pointer (2 functions), errno32 and never: three programs, one link each.
    let mut rets = rets;
    rets.sort();
    assert_eq!(rets, vec![1, 1, 2]);
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
