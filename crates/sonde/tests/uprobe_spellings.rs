//! bpftrace's other ways to name a uprobe's place, run on this host: a virtual address in an ELF
//! file, `"FUNC"+OFF`, a file offset in a flat binary (`--unsafe`), a symbol of size 0, every
//! file of a process (`uprobe:*:FUNC` with `-p`), and a path in the process's own mount
//! namespace. The C programs are built here; each run's counts are worked out from them.

mod common;

use common::{skip_reason_uprobes, temp_path, Output, Sonde};
use std::path::{Path, PathBuf};
use std::process::{Child, Command};
use std::time::Duration;

macro_rules! require_uprobes {
    () => {
        if let Some(reason) = skip_reason_uprobes() {
            println!("skipped: {reason}");
            return;
        }
    };
}

/// `target(i)` for i in 1..=N (N from argv[1]), or forever every 10 ms with `loop`; `flat FILE N`
/// maps FILE executable and calls its first byte as `int f(int)` for i in 1..=N.
const PROGRAM: &str = r#"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <unistd.h>
#include <sys/mman.h>
__attribute__((noinline)) int target(int x) { __asm__ volatile(""); return x * 3; }
int main(int argc, char **argv) {
    int s = 0;
    if (argc > 1 && strcmp(argv[1], "loop") == 0)
        for (int i = 1;; i++) { s += target(i); usleep(10000); }
    if (argc > 3 && strcmp(argv[1], "flat") == 0) {
        int fd = open(argv[2], O_RDONLY);
        int (*f)(int) = (int (*)(int))mmap(0, 4096, PROT_READ | PROT_EXEC, MAP_PRIVATE, fd, 0);
        for (int i = 1; i <= atoi(argv[3]); i++) s += f(i);
    } else {
        for (int i = 1; i <= atoi(argv[1]); i++) s += target(i);
    }
    printf("%d\n", s);
    return 0;
}
"#;

/// The function of the flat binary: its code is the file's first bytes.
const FLAT: &str = "int flat(int x) { return x * 3; }\n";

fn cc(source: &str, tag: &str, args: &[&str]) -> PathBuf {
    let src = temp_path(&format!("{tag}.c"));
    std::fs::write(&src, source).unwrap();
    let out = temp_path(tag);
    let ok = Command::new("cc").args(args).arg("-o").arg(&out).arg(&src).status().unwrap();
    assert!(ok.success(), "cc {args:?} failed");
    out
}

fn program() -> PathBuf {
    cc(PROGRAM, "uprog", &["-O1", "-no-pie", "-fno-inline"])
}

/// `target`'s virtual address in `bin`, from `nm`.
fn address_of(bin: &Path, name: &str) -> u64 {
    let out = Command::new("nm").arg(bin).output().unwrap();
    let text = String::from_utf8(out.stdout).unwrap();
    let line = text.lines().find(|l| l.ends_with(&format!(" T {name}"))).unwrap();
    u64::from_str_radix(line.split(' ').next().unwrap(), 16).unwrap()
}

fn run(args: &[&str]) -> Output {
    Sonde::new(args).timeout(Duration::from_secs(20)).run()
}

fn count_and_sum(bin: &Path, spec: &str, extra: &[&str], n: u32) -> Output {
    let program = format!("uprobe:{}:{spec} {{ @n = count(); @s = sum(arg0); }}", bin.display());
    let command = format!("{} {n}", bin.display());
    let mut args = extra.to_vec();
    args.extend(["-c", &command, &program]);
    run(&args)
}

#[test]
fn a_virtual_address_is_the_function_it_is_in() {
    require_uprobes!();
    let bin = program();
    let addr = address_of(&bin, "target");
    for spec in [format!("{addr:#x}"), addr.to_string(), "\"target\"+0".into()] {
        let o = count_and_sum(&bin, &spec, &[], 5);
        assert_eq!((o.int("@n"), o.int("@s")), (5, 15), "{spec}\n{}", o.describe());
    }
    // A uretprobe at a function's first address: target(i) returns 3 * i.
    let program = format!("uretprobe:{}:{addr:#x} {{ @r = sum(retval); }}", bin.display());
    let o = run(&["-c", &format!("{} 5", bin.display()), &program]);
    assert_eq!(o.int("@r"), 45, "{}", o.describe());
    // `func` is the function holding the address, as bpftrace names it.
    let program =
        format!("uprobe:{}:{addr:#x} {{ printf(\"%s\\n\", func); exit(); }}", bin.display());
    let o = run(&["-c", &format!("{} 1", bin.display()), &program]);
    // The command's own line (its sum, 3) shares the output.
    let lines: Vec<&str> = o.stdout.lines().filter(|l| !l.is_empty()).collect();
    assert!(lines == ["target", "3"] || lines == ["3", "target"], "{}", o.describe());
}

#[test]
fn an_address_in_no_function_or_inside_an_instruction_is_refused() {
    require_uprobes!();
    let bin = program();
    let o = count_and_sum(&bin, "10", &[], 1);
    let want = format!(
        "error: address 0xa in {} is in no function with a size, so sonde cannot check that it \
         starts an instruction; --unsafe probes it unchecked",
        bin.display()
    );
    assert!(o.stderr.contains(&want), "{}", o.describe());
    o.assert_code(2);
    // `lea (%rdi,%rdi,2),%eax` or any first instruction longer than one byte.
    let inside = format!("{:#x}", address_of(&bin, "target") + 1);
    let o = count_and_sum(&bin, &inside, &[], 1);
    assert!(o.stderr.contains("target+0x1 in"), "{}", o.describe());
    assert!(o.stderr.contains("is inside an instruction"), "{}", o.describe());
    let o = count_and_sum(&bin, "target+100000", &[], 1);
    assert!(o.stderr.contains("offset 0x186a0 is past the end of target in"), "{}", o.describe());
}

#[test]
fn a_symbol_of_size_0_needs_unsafe() {
    require_uprobes!();
    let bin = program();
    let o = count_and_sum(&bin, "_init", &[], 1);
    let want = format!(
        "error: _init in {} has size 0, so sonde cannot tell whether a probe there is on its \
         code; --unsafe probes it unchecked",
        bin.display()
    );
    assert!(o.stderr.contains(&want), "{}", o.describe());
    // The loader runs _init once, after the exec sonde lets the command make.
    let o = count_and_sum(&bin, "_init", &["--unsafe"], 1);
    assert_eq!(o.int("@n"), 1, "{}", o.describe());
}

#[test]
fn a_flat_binary_is_probed_at_a_file_offset_with_unsafe() {
    require_uprobes!();
    let bin = program();
    let object = cc(FLAT, "flat.o", &["-O1", "-c"]);
    let flat = temp_path("flat.bin");
    let ok = Command::new("objcopy")
        .args(["-O", "binary", "-j", ".text"])
        .arg(&object)
        .arg(&flat)
        .status()
        .unwrap();
    assert!(ok.success(), "objcopy failed");
    let command = format!("{} flat {} 4", bin.display(), flat.display());
    let program = format!("uprobe:{}:0x0 {{ @n = count(); @s = sum(arg0); }}", flat.display());
    let o = run(&["-c", &command, &program]);
    let want = format!(
        "error: {} is not an ELF file, so sonde cannot check that offset 0x0 starts an \
         instruction; --unsafe probes that file offset unchecked",
        flat.display()
    );
    assert!(o.stderr.contains(&want), "{}", o.describe());
    let o = run(&["--unsafe", "-c", &command, &program]);
    assert_eq!((o.int("@n"), o.int("@s")), (4, 10), "{}", o.describe());
}

/// Waits until process `pid` runs `bin`: until its exec, it maps the test's own binary.
fn exec_done(pid: &str, bin: &Path) {
    let deadline = std::time::Instant::now() + Duration::from_secs(10);
    while std::fs::read_link(format!("/proc/{pid}/exe")).ok().as_deref() != Some(bin) {
        assert!(std::time::Instant::now() < deadline, "{pid} did not exec {}", bin.display());
        std::thread::sleep(Duration::from_millis(5));
    }
}

/// A process calling `target` every 10 ms until killed.
struct Looping(Child);

impl Drop for Looping {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

#[test]
fn a_star_binary_is_every_file_of_the_process() {
    require_uprobes!();
    let bin = program();
    let looping = Looping(Command::new(&bin).arg("loop").spawn().unwrap());
    let pid = looping.0.id().to_string();
    exec_done(&pid, &bin);
    for spec in ["target", "targ*"] {
        let program =
            format!("uprobe:*:{spec} {{ printf(\"%s %d\\n\", func, arg0 > 0); exit(); }}");
        let o = run(&["-p", &pid, &program]);
        assert!(o.stderr.contains("Attached 1 probe\n"), "{}", o.describe());
        assert_eq!(o.stdout.trim(), "target 1", "{}", o.describe());
    }
    let o = run(&["uprobe:*:target { exit(); }"]);
    assert!(o.stderr.contains("give it with -p PID"), "{}", o.describe());
}

#[test]
fn a_path_in_the_process_mount_namespace() {
    require_uprobes!();
    let bin = program();
    let dir = temp_path("mountns");
    std::fs::create_dir(&dir).unwrap();
    // The process sees its binary in a tmpfs on `dir` that only its mount namespace has.
    let script = format!(
        "mount -t tmpfs none {d} && cp {b} {d}/prog && exec {d}/prog loop",
        d = dir.display(),
        b = bin.display()
    );
    let child = Command::new("unshare")
        .args(["-m", "--propagation", "private", "sh", "-c", &script])
        .spawn();
    let Ok(child) = child else {
        println!("skipped: no unshare");
        return;
    };
    let looping = Looping(child);
    let pid = looping.0.id().to_string();
    let inside = dir.join("prog");
    exec_done(&pid, &inside);
    assert!(!inside.exists(), "{inside:?} is visible outside the process's namespace");
    let program =
        format!("uprobe:{}:target {{ printf(\"%s\\n\", func); exit(); }}", inside.display());
    let o = run(&["-p", &pid, &program]);
    assert_eq!(o.stdout.trim(), "target", "{}", o.describe());
    drop(looping);
    let _ = std::fs::remove_dir(&dir);
}

#[test]
fn config_reads_the_settings() {
    if let Some(reason) = common::skip_reason() {
        println!("skipped: {reason}");
        return;
    }
    let program = "config = { max_strlen = 8; stack_mode = \"perf\"; max_map_keys = 10 } \
        BEGIN { printf(\"%d %s %d %d %d\\n\", config().max_strlen, config().stack_mode, \
        __builtin_config.max_map_keys, config().print_maps_on_exit, \
        config().max_strlen == __builtin_config.max_strlen); exit(); }";
    let o = run(&[program]);
    assert_eq!(o.stdout.trim(), "8 perf 10 1 1", "{}", o.describe());
    let o = Sonde::new(&["BEGIN { printf(\"%d\\n\", config().max_strlen); exit(); }"])
        .env("BPFTRACE_MAX_STRLEN", "20")
        .run();
    assert_eq!(o.stdout.trim(), "20", "{}", o.describe());
}
