//! bpftrace's tools as Debian ships them (`apt install bpftrace`: /usr/sbin/*.bt, bpftrace 0.17's
//! texts, which nobody here wrote) load into this kernel's verifier under `sonde -e`; the few that
//! cannot on this machine get the sentence that says why, and bpftrace itself cannot run them
//! either (or, 0.17 on a glibc of 2.34 and later, attaches where nothing ever fires).

mod common;

use common::sonde;
use std::path::PathBuf;

/// Debian's tools: the `.bt` files in /usr/sbin.
fn debian_tools() -> Vec<PathBuf> {
    let mut tools: Vec<PathBuf> = std::fs::read_dir("/usr/sbin")
        .map(|d| d.filter_map(|e| e.ok().map(|e| e.path())).collect())
        .unwrap_or_default();
    tools.retain(|p| p.extension().is_some_and(|x| x == "bt"));
    tools.sort();
    tools
}

/// Why a tool may not load here, when this machine lacks what it needs: its sentence must say so.
fn allowed_failure(tool: &str, stderr: &str) -> bool {
    let has = |s: &str| stderr.contains(s);
    match tool {
        // A data symbol, listed in kallsyms only with CONFIG_KALLSYMS_ALL.
        "loads.bt" => has("`avenrun` is not in /proc/kallsyms (data symbols are listed only"),
        // Later kernels (6.18 here; 6.12 still has it) renamed the member; bpftrace stops at the
        // same line.
        "runqlen.bt" => has("`struct cfs_rq` has no member `nr_running`"),
        // OpenSSL 3 keeps these functions static and strips them; the help names the setting
        // that skips them.
        "ssllatency.bt" | "sslsnoop.bt" => {
            has("libcrypto.so has no symbol rsa_ossl_") && has("missing_probes = \"warn\"")
        }
        // glibc 2.34 moved pthread_create into libc.
        "threadsnoop.bt" => has("no symbol pthread_create: it is in /"),
        // Kernel-function globs, on a kernel without the function tracer's list.
        "dcsnoop.bt" | "vfscount.bt" | "vfsstat.bt" => has("list the traceable kernel functions"),
        _ => false,
    }
}

#[test]
fn debian_bpftrace_tools_load_or_say_why() {
    require_bpf!();
    let tools = debian_tools();
    if tools.is_empty() {
        println!("skipped: bpftrace's tools are not installed (apt install bpftrace)");
        return;
    }
    let mut loaded = 0;
    let mut bad = Vec::new();
    for tool in &tools {
        let name = tool.file_name().unwrap().to_string_lossy().into_owned();
        let o = sonde(&["-e", tool.to_str().unwrap()]);
        if o.code == Some(0) && o.stderr.contains("passed the verifier") {
            loaded += 1;
        } else if !allowed_failure(&name, &o.stderr) {
            bad.push(format!("{name}:\n{}", o.describe()));
        }
    }
    println!("{loaded} of {} Debian bpftrace tools loaded", tools.len());
    assert!(bad.is_empty(), "{}", bad.join("\n"));
    // Debian's bpftrace 0.17 ships 38; on this project's host 30 load.
    assert!(loaded * 4 >= tools.len() * 3, "only {loaded} of {} loaded", tools.len());
}
