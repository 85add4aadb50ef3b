//! The compatibility lane: scripts in bpftrace's current syntax (tests/compat/*.bt, our own) load
//! into the verifier and, where they need only tracepoints, run with exact numbers.
//! `tests/compat/run.sh` measures bpftrace's own tools/ the same way (they are not shipped here).

mod common;

use common::{sonde, wl, Sonde};

use common::compat_script as script;

#[test]
fn every_compat_script_loads() {
    require_bpf!();
    let dir = format!("{}/../../tests/compat", env!("CARGO_MANIFEST_DIR"));
    let mut n = 0;
    for e in std::fs::read_dir(dir).unwrap() {
        let p = e.unwrap().path();
        if p.extension().is_some_and(|x| x == "bt") {
            // --unsafe for signal.bt; it only allows, so every other script loads as without it.
            // A `// params: A B` line gives the positional parameters a script's specs need.
            let text = std::fs::read_to_string(&p).unwrap();
            let params = text.lines().find_map(|l| l.strip_prefix("// params: ")).unwrap_or("");
            let mut argv = vec!["--unsafe", "-e", p.to_str().unwrap()];
            argv.extend(params.split_whitespace());
            let o = sonde(&argv);
            o.assert_ok();
            assert!(o.stderr.contains("passed the verifier"), "{}", o.describe());
            n += 1;
        }
    }
    assert!(n >= 2);
}

#[test]
fn preprocessor_config_and_macros_run() {
    require_tracepoints!();
    // 35 getppid calls: the missing tracepoint is skipped with a warning (missing_probes),
    // TWICE(1) is 2 per call and CALLS_PER_RUN divides.
    let o =
        sonde(&["-c", &wl(&["comm", "wl_compat", "getppid", "35"]), &script("preprocessor.bt")]);
    o.assert_ok();
    assert_eq!(o.int("@calls"), 35, "{}", o.describe());
    assert_eq!(o.int("@twice"), 70, "{}", o.describe());
    assert!(o.stdout.contains("runs=5"), "{}", o.describe());
    assert!(o.stderr.contains("skipped (config missing_probes)"), "{}", o.describe());
}

#[test]
fn literals_types_and_time_run() {
    require_bpf!();
    let o = sonde(&[&script("literals.bt")]);
    o.assert_ok();
    assert!(o.stdout.contains("ok 1000 -1 0\n"), "{}", o.describe());
    // time("%H:%M:%S ") then strftime's date, time and microseconds.
    let line = o.lines().into_iter().find(|l| l.contains(" at ")).unwrap_or_default().to_string();
    let parts: Vec<&str> = line.split(' ').collect();
    assert_eq!(parts.len(), 4, "{}", o.describe());
    assert_eq!(parts[0].len(), 8, "{}", o.describe());
    assert_eq!(parts[2].len(), 10, "{}", o.describe());
    assert_eq!(parts[3].len(), 15, "{}", o.describe());
}

#[test]
fn config_errors_name_the_setting() {
    let o = sonde(&["-e", "config = { missing_probes = maybe } BEGIN { exit(); }"]);
    assert!(
        o.stderr.contains("`missing_probes` is `error`, `warn` or `ignore`"),
        "{}",
        o.describe()
    );
    let o = sonde(&["-e", "config = { max_strlenn = 1 } BEGIN { exit(); }"]);
    assert!(o.stderr.contains("did you mean `max_strlen`?"), "{}", o.describe());
    // bpftrace's environment variables are settings too, checked before anything runs.
    let o = Sonde::new(&["-e", "BEGIN { exit(); }"]).env("BPFTRACE_STACK_MODE", "pretty").run();
    o.assert_code(2);
    let want =
        "sonde: BPFTRACE_STACK_MODE: `stack_mode` is `bpftrace`, `perf` or `raw`, not `pretty`";
    assert!(o.stderr.contains(want), "{}", o.describe());
}

#[test]
fn print_maps_on_exit_from_the_program_or_the_environment() {
    let program = "BEGIN { @a = 1; @b[2] = count(); exit(); }";
    let o = sonde(&[program]);
    o.assert_ok();
    assert!(o.stdout.contains("@a: 1") && o.stdout.contains("@b[2]: 1"), "{}", o.describe());
    let o = sonde(&[&format!("config = {{ print_maps_on_exit = 0 }} {}", program)]);
    o.assert_ok();
    // bpftrace's end of the run, two newlines, and no maps.
    assert_eq!(o.stdout, "\n\n", "{}", o.describe());
    // The environment wins over the program.
    let quiet = format!("config = {{ print_maps_on_exit = 1 }} {}", program);
    let o = Sonde::new(&[&quiet]).env("BPFTRACE_PRINT_MAPS_ON_EXIT", "0").run();
    o.assert_ok();
    assert_eq!(o.stdout, "\n\n", "{}", o.describe());
}

/// The kallsyms address of `name`, as root sees it.
fn kallsyms_address(name: &str) -> Option<u64> {
    let text = std::fs::read_to_string("/proc/kallsyms").ok()?;
    text.lines().find_map(|l| {
        let mut f = l.split_whitespace();
        let (addr, _, sym) = (f.next()?, f.next()?, f.next()?);
        (sym == name && f.next().is_none()).then(|| u64::from_str_radix(addr, 16).ok())?
    })
}

#[test]
fn has_key_delete_ppid_kaddr_and_enums_run() {
    require_tracepoints!();
    let o = sonde(&["-c", &wl(&["comm", "wl_values", "getppid", "7"]), &script("values.bt")]);
    o.assert_ok();
    // TCP_ESTABLISHED and TCP_FIN_WAIT1 from the kernel's BTF (include/net/tcp_states.h).
    assert!(o.stdout.contains("enum 1 4\n"), "{}", o.describe());
    let addr = kallsyms_address("vfs_read").expect("vfs_read in /proc/kallsyms");
    assert!(o.stdout.contains(&format!("kaddr {}\n", addr)), "{}", o.describe());
    // has_key is false for a tid never stored, and true in the exit probe's predicate.
    assert_eq!(o.int("@absent"), 7, "{}", o.describe());
    // getppid returns the parent's tgid: ppid agrees on every call.
    assert_eq!(o.int("@parent"), 7, "{}", o.describe());
    // delete() is 1 for the element present, 0 once it is gone.
    assert_eq!(o.int("@deleted"), 7, "{}", o.describe());
    assert_eq!(o.int("@redeleted"), 0, "{}", o.describe());
}

#[test]
fn value_builtin_errors_say_what_to_write() {
    let o = sonde(&["-e", "BEGIN { @m[1] = 1; if (has_key(@m)) { exit(); } }"]);
    assert!(
        o.stderr.contains("has_key() takes a map and its key, like `has_key(@m, pid)`"),
        "{}",
        o.describe()
    );
    let o = sonde(&["-e", "BEGIN { printf(\"%lu\\n\", kaddr(\"no_such_symbol_xyz\")); }"]);
    assert!(o.stderr.contains("`no_such_symbol_xyz` is not in /proc/kallsyms"), "{}", o.describe());
    // len(@map) counts a map with keys (crates/sonde/tests/compat_builtins.rs); one without
    // keys is refused, as bpftrace refuses it.
    let o = sonde(&["-e", "BEGIN { @m = 1; printf(\"%d\\n\", len(@m)); }"]);
    assert!(
        o.stderr.contains("len(@m): bpftrace's len() takes a map with keys"),
        "{}",
        o.describe()
    );
    let o = sonde(&["-e", "BEGIN { printf(\"%d\\n\", TCP_FIN_WAIT_ONE); }"]);
    assert!(o.stderr.contains("unknown variable `TCP_FIN_WAIT_ONE`"), "{}", o.describe());
}

#[test]
fn tuples_as_values_keys_and_elements_run() {
    require_tracepoints!();
    let o = sonde(&["-c", &wl(&["comm", "wl_tuples", "getppid", "5"]), &script("tuples.bt")]);
    o.assert_ok();
    // The workload's one thread: its tid, as the tuple value (tid, comm) shows it.
    let pair = o.lines().into_iter().find(|l| l.starts_with("@pair[")).unwrap_or_default();
    let tid = pair.trim_start_matches("@pair[").split(']').next().unwrap_or_default().to_string();
    assert_eq!(pair, format!("@pair[{tid}]: ({tid}, wl_tuples)"), "{}", o.describe());
    // `@calls[$key]` with `$key = (pid, "getppid")` is the element `@same[pid, "getppid"]`.
    assert!(o.stdout.contains(&format!("@calls[{tid}, getppid]: 5\n")), "{}", o.describe());
    assert!(o.stdout.contains(&format!("@same[{tid}, getppid]: 5\n")), "{}", o.describe());
    // has_key and delete take the tuple variable as the key too.
    assert_eq!(o.int("@found"), 5, "{}", o.describe());
    assert!(!o.stdout.contains("@start["), "{}", o.describe());
    // Elements, nested elements, print() of a tuple and a tuple map value.
    assert_eq!(o.stdout.matches("ret 1 1 x\n").count(), 5, "{}", o.describe());
    assert!(o.stdout.contains("(1, two, (-3, 4))\n"), "{}", o.describe());
    assert!(o.stdout.contains("@tup: (-5, five)\n"), "{}", o.describe());
}

#[test]
fn tuple_errors_say_what_to_write() {
    let o = sonde(&["-e", "BEGIN { $t = (1, 2); printf(\"%d\\n\", $t.2); }"]);
    assert!(o.stderr.contains("this tuple has 2 elements: `.0` to `.1`"), "{}", o.describe());
    let o = sonde(&["-e", "BEGIN { $t = 1; printf(\"%d\\n\", $t.0); }"]);
    assert!(o.stderr.contains("`.0` reads an element of a tuple"), "{}", o.describe());
    let o = sonde(&["-e", "BEGIN { $t = (1, 2); $t = (1, \"x\"); }"]);
    assert!(o.stderr.contains("`$t` holds a `(s64, s64)`"), "{}", o.describe());
}

#[test]
fn ntop_bswap_and_cgroup_path_run() {
    require_tracepoints!();
    let o = sonde(&["-c", &wl(&["comm", "wl_net", "connect", "4", "4242"]), &script("net.bt")]);
    o.assert_ok();
    // The workload's 4 connect() calls to 127.0.0.1:4242, the port in network order swapped.
    let line = "connect 127.0.0.1:4242 family 2\n";
    assert_eq!(o.stdout.matches(line).count(), 4, "{}", o.describe());
    assert!(o.stdout.contains("@dst[127.0.0.1, 4242]: 4\n"), "{}", o.describe());
    // Our own cgroup (v2), which the workload inherits, as /proc names it, in bpftrace's
    // `unified:` hierarchy.
    let own = std::fs::read_to_string("/proc/self/cgroup").unwrap_or_default();
    if let Some(path) = own.lines().find_map(|l| l.strip_prefix("0::")) {
        assert!(o.stdout.contains(&format!("@cg[unified:{path}]: 4\n")), "{}", o.describe());
    }
}

#[test]
fn pcomm_ncpus_numaid_rand_and_strerror_run() {
    require_tracepoints!();
    let wl = wl(&["comm", "wl_builtins", "openat", "20", "/nonexistent"]);
    let o = sonde(&["-c", &wl, &script("builtins.bt")]);
    o.assert_ok();
    let online = std::fs::read_to_string("/sys/devices/system/cpu/online").unwrap_or_default();
    let cpus: usize = online
        .trim()
        .split(',')
        .map(|r| match r.split_once('-') {
            Some((a, b)) => b.parse::<usize>().unwrap_or(0) - a.parse::<usize>().unwrap_or(0) + 1,
            None => 1,
        })
        .sum();
    assert!(o.stdout.contains(&format!("ncpus {cpus}\n")), "{}", o.describe());
    // Every failed open is ENOENT, named as strerror(3) names it.
    assert!(o.stdout.contains("@errors[No such file or directory]: 20\n"), "{}", o.describe());
    // The process is its own group leader; on a one-node machine the node is 0.
    let nodes = std::fs::read_to_string("/sys/devices/system/node/online").unwrap_or_default();
    if nodes.trim() == "0" {
        assert!(o.stdout.contains("@procs[wl_builtins, 0]: 20\n"), "{}", o.describe());
    } else {
        assert!(o.stdout.contains("@procs[wl_builtins, "), "{}", o.describe());
    }
    // The workload's parent is sonde, whose parent is the test's thread that started it.
    let test = std::fs::read_to_string("/proc/thread-self/comm").unwrap_or_default();
    let parents = format!("@parents[sonde, {}]: 20\n", test.trim());
    assert!(o.stdout.contains(&parents), "{}", o.describe());
    // 20 draws of a 32-bit random number are not all the same.
    let (lo, hi) = (o.int("@rand_min"), o.int("@rand_max"));
    assert!(lo < hi && hi <= u32::MAX as i64, "{}", o.describe());
}

#[test]
fn print_top_entries_runs() {
    require_tracepoints!();
    let o = sonde(&["-c", &wl(&["comm", "wl_top", "getppid", "7"]), &script("print_top.bt")]);
    o.assert_ok();
    // 7 calls: @by[i] = 10 i for i = 1..7, and print(@by, 2) keeps the two largest.
    assert!(o.stdout.starts_with("@by[6]: 60\n@by[7]: 70\n\n"), "{}", o.describe());
    // i % 3 counts 1 -> 3 (1, 4, 7), 2 -> 2, 0 -> 2: the top one only.
    assert!(o.stdout.contains("\n@hits[1]: 3\n\n"), "{}", o.describe());
    assert!(!o.stdout.contains("@hits[0]"), "{}", o.describe());
    assert_eq!(o.int("@seq"), 7, "{}", o.describe());
}

#[test]
fn print_top_entries_divided() {
    // bpftrace's print(@m, top, div): the two largest averages, each divided by 10.
    let program = "BEGIN { @[\"a\"] = avg(10); @[\"b\"] = avg(25); @[\"c\"] = avg(-40); @[\"d\"] = avg(40); print(@, 2, 10); clear(@); exit(); }";
    let o = sonde(&[program]);
    o.assert_ok();
    assert!(o.stdout.starts_with("@[b]: 2\n@[d]: 4\n\n"), "{}", o.describe());
}

#[test]
fn sizeof_and_offsetof_run() {
    require_tracepoints!();
    let o = sonde(&["-c", &wl(&["comm", "wl_sizes", "getppid", "3"]), &script("sizes.bt")]);
    o.assert_ok();
    // struct sockaddr_in is 16 bytes with sin_addr at 4 (the ABI); u16 is 2, comm 16.
    assert!(o.stdout.contains("sizes 16 4 2 16\n"), "{}", o.describe());
    // task_struct's comm read at curtask + offsetof(struct task_struct, comm).
    assert!(o.stdout.contains("@by_offset[wl_sizes]: 3\n"), "{}", o.describe());
}

#[test]
fn string_indexing_runs() {
    require_tracepoints!();
    let o = sonde(&["-c", &wl(&["comm", "wl_index", "getppid", "4"]), &script("strings.bt")]);
    o.assert_ok();
    // 'w' 'l' and the NUL after "wl_index", as integers; '_' at index 2.
    assert!(o.stdout.contains("@first[119, 108, 0]: 4\n"), "{}", o.describe());
    assert_eq!(o.int("@underscore"), 4, "{}", o.describe());
    // len(): "wl_index" is 8 bytes before its NUL.
    assert!(o.stdout.contains("@lens[8, 4, 0]: 4\n"), "{}", o.describe());
}

#[test]
fn signal_needs_unsafe_and_ends_the_process() {
    require_tracepoints!();
    let o = sonde(&["-e", &script("signal.bt")]);
    assert_eq!(o.code, Some(2), "{}", o.describe());
    assert!(o.stderr.contains("it is allowed only with --unsafe"), "{}", o.describe());
    let wl = wl(&["comm", "wl_signal", "getppid", "5"]);
    let o = sonde(&["--unsafe", "-c", &wl, &script("signal.bt")]);
    // SIGUSR1 on the first of 5 getppid() calls ends the workload there.
    assert_eq!(o.int("@calls"), 1, "{}", o.describe());
}

#[test]
fn cat_prints_a_file() {
    require_bpf!();
    let o = sonde(&[&script("cat.bt")]);
    o.assert_ok();
    let ostype = std::fs::read_to_string("/proc/sys/kernel/ostype").unwrap_or_default();
    assert!(o.stdout.contains(&format!("os: {ostype}")), "{}", o.describe());
    // The name is a printf format of its arguments, as in bpftrace (BEGIN runs in sonde).
    let o = sonde(&["BEGIN { cat(\"/proc/%d/%s\", pid, \"status\"); exit(); }"]);
    o.assert_ok();
    assert!(o.stdout.starts_with("Name:\tsonde"), "{}", o.describe());
    let o = Sonde::new(&["BEGIN { cat(\"/proc/loadavg\"); cat(\"/no/such\"); exit(); }"])
        .env("BPFTRACE_MAX_CAT_BYTES", "1")
        .run();
    assert_eq!(o.stdout.chars().filter(|c| !c.is_whitespace()).count(), 1, "{}", o.describe());
    let missing = "ERROR: failed to open file '/no/such' (No such file or directory)";
    assert!(o.stderr.contains(missing), "{}", o.describe());
}

#[test]
fn buf_prints_raw_bytes_escaped() {
    require_tracepoints!();
    let o = sonde(&["-c", &wl(&["comm", "wl_buf", "write", "3", "5"]), &script("buf.bt")]);
    o.assert_ok();
    // The workload writes 5 bytes of 'x' each time; comm's 8 bytes end in NULs.
    let line = "data [xxxxx] comm [wl_buf\\x00\\x00]\n";
    assert_eq!(o.stdout.matches(line).count(), 3, "{}", o.describe());
}

#[test]
fn star_on_an_integer_reads_a_u64_there() {
    require_bpf!();
    // bpftrace's loads.bt: `*($avenrun + 8)` on kaddr()'s integer, the same 8 bytes as a cast.
    let o = sonde(&[
        "BEGIN { $a = kaddr(\"vfs_read\"); printf(\"%d\\n\", *($a + 8) == *(uint64 *)($a + 8)); print(sizeof(*$a)); exit(); }",
    ]);
    o.assert_ok();
    assert_eq!(o.stdout, "1\n8\n\n\n", "{}", o.describe());
}

#[test]
fn a_wildcard_matching_nothing_in_a_list_is_skipped_with_a_warning() {
    require_tracepoints!();
    let o = sonde(&[
        "-c",
        &wl(&["getppid", "3"]),
        // Only the command's calls: a shell other tests start asks getppid() for its $PPID.
        "tracepoint:syscalls:sys_enter_getppid, tracepoint:nosuch_group:x* /pid == cpid/ { @ = count(); }",
    ]);
    o.assert_ok();
    assert_eq!(o.int("@"), 3, "{}", o.describe());
    assert!(
        o.stderr.contains("warning: skipped: no tracepoint matches `nosuch_group:x*`"),
        "{}",
        o.describe()
    );
    // A list whose every wildcard matches nothing is still refused, each named.
    let o = sonde(&["tracepoint:nosuch_group:y*, tracepoint:nosuch_group:x* { @ = count(); }"]);
    o.assert_code(2);
    assert!(
        o.stderr.contains("error: no tracepoint matches `nosuch_group:y*`"),
        "{}",
        o.describe()
    );
    assert!(
        o.stderr.contains("error: no tracepoint matches `nosuch_group:x*`"),
        "{}",
        o.describe()
    );
}
