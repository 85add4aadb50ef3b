//! The kernel's facts: each read or tried (sonde-kernel's `features`), explained from the kernel
//! config where one was found.

use super::report::{Check, Group, Report};
use sonde_kernel::features;
use sonde_kernel::features::kconfig::KernelConfig;

/// The oldest kernel sonde supports: the ring buffer (5.8) and BPF_PROG_TEST_RUN for raw
/// tracepoints (5.10).
const OLDEST: (u32, u32) = (5, 10);

pub fn check(r: &mut Report, config: Option<&KernelConfig>) {
    // "CONFIG_X is not set" when the config says so; else the empty string.
    let unset = |options: &[&str]| -> String {
        let Some(c) = config else { return String::new() };
        let off: Vec<&str> = options.iter().copied().filter(|o| !c.enabled(o)).collect();
        match off.as_slice() {
            [] => String::new(),
            [one] => format!(" ({} is not set)", one),
            many => format!(" ({} are not set)", many.join(", ")),
        }
    };
    let mut add = |name, ok, needed, detail: String, fix: &str| {
        let fix = (!fix.is_empty()).then(|| fix.to_string());
        r.add(Check { group: Group::Kernel, name, ok, needed, detail, fix });
    };

    let release = sonde_kernel::sys::version::kernel_release();
    let version = sonde_kernel::sys::version::parse(&release);
    add(
        "kernel version",
        version.is_some_and(|v| v >= OLDEST),
        true,
        format!("{} (sonde needs {}.{} or later)", release, OLDEST.0, OLDEST.1),
        "upgrade the kernel: sonde needs the BPF ring buffer and BPF_PROG_TEST_RUN",
    );

    let caps = sonde_kernel::sys::has_bpf_capabilities();
    match features::bpf_syscall() {
        Ok(()) => add("bpf(2) syscall", true, true, "BPF maps can be created".into(), ""),
        Err(e) => add(
            "bpf(2) syscall",
            false,
            true,
            format!("{}{}", e, unset(&["CONFIG_BPF_SYSCALL"])),
            if caps {
                "a kernel built with CONFIG_BPF_SYSCALL=y, without a policy that forbids BPF"
            } else {
                "run sonde as root (it needs CAP_BPF and CAP_PERFMON, or CAP_SYS_ADMIN)"
            },
        ),
    }

    let always_on = config.is_some_and(|c| c.enabled("CONFIG_BPF_JIT_ALWAYS_ON"));
    let (ok, detail) = match features::jit_enable() {
        _ if always_on => (true, "always on (CONFIG_BPF_JIT_ALWAYS_ON)".to_string()),
        Some(0) => {
            (false, "off: programs run in the interpreter (net.core.bpf_jit_enable = 0)".into())
        }
        Some(n) => (true, format!("on (net.core.bpf_jit_enable = {})", n)),
        None => (false, format!("no JIT{}", unset(&["CONFIG_BPF_JIT"]))),
    };
    add(
        "JIT",
        ok,
        false,
        detail,
        "sysctl -w net.core.bpf_jit_enable=1 (probes then cost a fraction)",
    );

    let btf = features::btf_vmlinux_available();
    add(
        "BTF",
        btf,
        false,
        if btf {
            "/sys/kernel/btf/vmlinux: arguments and struct members are typed".into()
        } else {
            format!("no /sys/kernel/btf/vmlinux{}", unset(&["CONFIG_DEBUG_INFO_BTF"]))
        },
        "a kernel built with CONFIG_DEBUG_INFO_BTF=y; meanwhile integer arguments and tracepoints work, fentry does not",
    );

    let ring = features::ringbuf_supported();
    add(
        "ring buffer",
        ring,
        true,
        if ring { "BPF_MAP_TYPE_RINGBUF".into() } else { "BPF_MAP_TYPE_RINGBUF refused".into() },
        "Linux 5.8 or later",
    );

    let kprobes = features::has_kprobes();
    add(
        "kprobes",
        kprobes,
        false,
        if kprobes {
            "the kprobe PMU or kprobe_events".into()
        } else {
            format!("no kprobe PMU and no kprobe_events{}", unset(&["CONFIG_KPROBES", "CONFIG_KPROBE_EVENTS"]))
        },
        "a kernel built with CONFIG_KPROBES=y and CONFIG_KPROBE_EVENTS=y; tracepoints and fentry: work without",
    );

    let multi = kprobes && features::has_kprobe_multi();
    add(
        "kprobe_multi",
        multi,
        false,
        if multi {
            "a glob attaches as one link".into()
        } else if !kprobes {
            "no kprobes".into()
        } else {
            format!(
                "refused{}: a glob attaches one kprobe per function (slower to attach and detach)",
                unset(&["CONFIG_FPROBE"])
            )
        },
        "Linux 5.18 or later built with CONFIG_FPROBE=y",
    );

    let tramp = btf && features::has_trampolines();
    add(
        "fentry/trampolines",
        tramp,
        false,
        if tramp {
            "a TRACING program loads on a kernel function".into()
        } else if !btf {
            "needs BTF".into()
        } else {
            format!(
                "the kernel refused a TRACING program{} (the fentry line below says why)",
                unset(&["CONFIG_DYNAMIC_FTRACE_WITH_DIRECT_CALLS"])
            )
        },
        "a kernel with BPF trampolines (x86-64 or arm64, CONFIG_DYNAMIC_FTRACE_WITH_DIRECT_CALLS=y) and no policy forbidding tracing programs; kprobe: works without",
    );

    let uprobes = features::has_uprobes();
    add(
        "uprobes",
        uprobes,
        false,
        if uprobes {
            "the uprobe PMU or uprobe_events".into()
        } else {
            format!(
                "no uprobe PMU and no uprobe_events{}",
                unset(&["CONFIG_UPROBES", "CONFIG_UPROBE_EVENTS"])
            )
        },
        "a kernel built with CONFIG_UPROBE_EVENTS=y",
    );

    let tracefs = sonde_kernel::tracefs::Tracefs::find();
    add(
        "tracefs",
        tracefs.is_some(),
        false,
        match &tracefs {
            Some(t) => format!("{}", t.root().display()),
            None => format!("not mounted{}", unset(&["CONFIG_TRACING"])),
        },
        "mount -t tracefs nodev /sys/kernel/tracing (sonde mounts it itself when it may)",
    );

    let tracers = features::available_tracers().unwrap_or_default();
    let has = |t: &str| tracers.iter().any(|x| x == t);
    add(
        "function tracer",
        has("function") && has("function_graph"),
        false,
        match (tracefs.is_some(), has("function"), has("function_graph")) {
            (false, ..) => "unknown without tracefs".into(),
            (true, true, true) => "function and function_graph (sonde graph)".into(),
            (true, f, g) => format!(
                "available_tracers lacks{}{}{}",
                if f { "" } else { " function" },
                if g { "" } else { " function_graph" },
                unset(&["CONFIG_FUNCTION_TRACER", "CONFIG_FUNCTION_GRAPH_TRACER"])
            ),
        },
        "a kernel built with CONFIG_FUNCTION_GRAPH_TRACER=y (for `sonde graph`)",
    );

    let lockdown = features::lockdown();
    add(
        "lockdown",
        lockdown.as_deref() != Some("confidentiality"),
        false,
        match &lockdown {
            Some(mode) => format!("{} (/sys/kernel/security/lockdown)", mode),
            None => "no lockdown (no /sys/kernel/security/lockdown)".into(),
        },
        "confidentiality mode forbids reading kernel memory from BPF: boot with lockdown=integrity or none (or disable Secure Boot's lockdown)",
    );

    let unpriv = features::unprivileged_bpf_disabled();
    add(
        "unprivileged BPF",
        true,
        false,
        match unpriv {
            Some(0) => "allowed (kernel.unprivileged_bpf_disabled = 0); sonde still needs root to trace".into(),
            Some(n) => format!("disabled (kernel.unprivileged_bpf_disabled = {}): sonde needs root, as it does anyway", n),
            None => "unknown (no kernel.unprivileged_bpf_disabled)".into(),
        },
        "",
    );
    if !caps {
        add(
            "privileges",
            false,
            true,
            "this process lacks CAP_BPF and CAP_PERFMON (and CAP_SYS_ADMIN)".into(),
            "run sonde as root",
        );
    }
}
