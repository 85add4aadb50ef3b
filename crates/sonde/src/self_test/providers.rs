//! Every provider tried for real: a one-probe program compiled, loaded, attached and detached
//! through the path scripts take (`sonde-compile`, `load.rs`, `attach.rs`); BEGIN and END are
//! run. The verdict is the first thing that refused, in the words sonde would use for a script.

use super::report::{Check, Group, Report};
use crate::error::Failure;
use crate::host_env::HostEnv;
use crate::run::bpf::Loaded;
use sonde_compile::provider::AttachPoint;
use sonde_compile::Options;
use sonde_syntax::diag::SourceFile;

/// (name, program, needed, what to do when it fails).
const TRIALS: &[(&str, &str, bool, &str)] = &[
    (
        "BEGIN/END",
        "BEGIN { @b = count(); } END { @e = count(); }",
        true,
        "Linux 5.10 or later (BPF_PROG_TEST_RUN for raw tracepoints)",
    ),
    (
        "tracepoint",
        "tracepoint:syscalls:sys_enter_getpid { @ = count(); }",
        true,
        "tracefs (mount -t tracefs nodev /sys/kernel/tracing) and CONFIG_FTRACE_SYSCALLS=y",
    ),
    ("interval", "interval:1s { @ = count(); }", false, PERF),
    ("profile", "profile:hz:99 { @ = count(); }", false, PERF),
    ("software", "software:page-faults:1000 { @ = count(); }", false, PERF),
    ("kprobe", "kprobe:vfs_read { @ = count(); }", false, KPROBES),
    ("kretprobe", "kretprobe:vfs_read { @ = count(); }", false, KPROBES),
    ("fentry", "fentry:vfs_read { @ = count(); }", false, FENTRY),
    ("fexit", "fexit:vfs_read { @ = count(); }", false, FENTRY),
    ("rawtracepoint", "rawtracepoint:sched_switch { @ = count(); }", false, RAW_TP),
    ("uprobe", "uprobe:libc:getpid { @ = count(); }", false, UPROBES),
    ("uretprobe", "uretprobe:libc:getpid { @ = count(); }", false, UPROBES),
    ("iter", "iter:task { @ = count(); }", false, ITER),
    ("watchpoint", "watchpoint:0x10000000:8:w { @ = count(); }", false, BREAKPOINTS),
];

const PERF: &str =
    "perf events (CONFIG_PERF_EVENTS=y); as root, kernel.perf_event_paranoid does not apply";
const KPROBES: &str =
    "a kernel built with CONFIG_KPROBES=y and CONFIG_KPROBE_EVENTS=y; meanwhile tracepoints (and fentry:, where it works)";
const FENTRY: &str =
    "BTF and BPF trampolines, and no security policy (lockdown, SELinux, a BPF LSM) refusing tracing programs; meanwhile kprobe:";
const RAW_TP: &str =
    "the kernel's BTF (CONFIG_DEBUG_INFO_BTF=y) for tp_btf programs; meanwhile tracepoint:";
const UPROBES: &str = "a kernel built with CONFIG_UPROBE_EVENTS=y";
const ITER: &str =
    "Linux 5.8 or later with BTF, and no security policy (lockdown, SELinux, a BPF LSM) refusing tracing programs";
const BREAKPOINTS: &str =
    "CONFIG_HAVE_HW_BREAKPOINT and a free debug register on every CPU (debuggers use them too)";

pub fn check(r: &mut Report) {
    let env = HostEnv::new();
    for &(name, program, needed, fix) in TRIALS {
        let (ok, detail) = match attempt(&env, program) {
            Ok(()) => (true, format!("{} attached and detached", program)),
            Err(f) => (false, f.sentence()),
        };
        let fix = Some(fix.to_string());
        r.add(Check { group: Group::Provider, name, ok, needed, detail, fix });
    }
}

/// Compile, load and attach `text`, run its BEGIN and END, then let everything go.
fn attempt(env: &HostEnv, text: &str) -> Result<(), Failure> {
    let source = SourceFile { name: "<self-test>".into(), text: text.into() };
    let compile_error = |d| Failure::Compile(d, source.clone());
    let ast = sonde_syntax::parse(text).map_err(compile_error)?;
    let opts = Options::new();
    let typed = sonde_compile::check(&ast, env, &opts).map_err(compile_error)?;
    let compiled = sonde_compile::lower(&typed, &opts).map_err(compile_error)?;
    let loaded = Loaded::load(&compiled, &source)?;
    let attached = loaded.attach(&compiled, env, Default::default())?;
    loaded.run_special(&compiled, &AttachPoint::Begin)?;
    loaded.run_special(&compiled, &AttachPoint::End)?;
    attached.detach(false).finish();
    Ok(())
}
