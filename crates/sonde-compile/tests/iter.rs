//! `iter:NAME` against a small BTF that declares one iterator (`bpf_iter_task` and its
//! `struct bpf_iter__task`) beside a `bpf_iter_` kfunc that is none: what expands, how `ctx`
//! is typed, printf in the kernel's dialect, and the lowering (no stop check, the last run's
//! NULL object skipped, bpf_seq_printf on ctx->meta->seq).

use sonde_btf::{builder::Builder, Btf};
use sonde_compile::provider::{iter, AttachPoint, ProgKind};
use sonde_compile::tir::{KernelText, TStmtKind};
use sonde_compile::{BtfOnly as BtfEnv, Options};

fn env() -> BtfEnv {
    let mut b = Builder::new();
    let int = b.int("int", 4, true);
    let chr = b.int("char", 1, true);
    let idx = b.int("unsigned int", 4, false);
    let comm = b.array(chr, idx, 16);
    let task = b.struct_("task_struct", 32, &[("pid", int, 0), ("comm", comm, 64)]);
    let task_ptr = b.ptr(task);
    let meta = b.struct_("bpf_iter_meta", 8, &[("seq", task_ptr, 0)]);
    let meta_ptr = b.ptr(meta);
    b.struct_("bpf_iter__task", 16, &[("meta", meta_ptr, 0), ("task", task_ptr, 64)]);
    let proto = b.func_proto(int, &[("meta", meta_ptr), ("task", task_ptr)]);
    b.func("bpf_iter_task", proto, 1);
    let kfunc = b.func_proto(int, &[]);
    b.func("bpf_iter_num_new", kfunc, 1);
    BtfEnv(Btf::from_bytes(b.build()).unwrap())
}

fn check(program: &str) -> Result<sonde_compile::tir::TProgram, String> {
    let ast = sonde_syntax::parse(program).unwrap();
    sonde_compile::check(&ast, &env(), &Options::new()).map_err(|diags| {
        let file = sonde_syntax::diag::SourceFile { name: "stdin".into(), text: program.into() };
        diags.iter().map(|d| sonde_syntax::render::render(d, &file, false)).collect()
    })
}

#[test]
fn only_functions_with_a_context_struct_are_iterators() {
    assert_eq!(iter::targets(&env().0), ["task"]);
    let sites = iter::expand("task", &env()).unwrap();
    assert!(matches!(&sites[0].point, AttachPoint::Iter { name, .. } if name == "task"));
    assert_eq!(sites[0].kind, ProgKind::Iter);
    assert!(iter::expand("num_new", &env()).unwrap_err().contains("no `num_new` iterator"));
    assert!(iter::expand("tsak", &env()).unwrap_err().contains("did you mean `iter:task`?"));
    assert!(iter::expand("task:/sys/fs/bpf/x", &env()).unwrap_err().contains("iter:NAME"));
    assert!(iter::expand("ta*", &env()).is_err());
}

#[test]
fn printf_is_rewritten_for_bpf_seq_printf() {
    let typed =
        check(r#"iter:task { printf("%s %-5d %x 100%%\n", ctx.task.comm, ctx.task.pid, 7); }"#)
            .unwrap();
    let stmt = &typed.probes[0].body[0].kind;
    let TStmtKind::KernelPrintf { to, format, args } = stmt else { panic!("{stmt:?}") };
    assert_eq!(*to, KernelText::Iterator);
    assert_eq!(String::from_utf8_lossy(format), "%s %-5lld %llx 100%%\n");
    assert_eq!(args.len(), 3);
}

#[test]
fn what_bpf_seq_printf_cannot_print_is_refused() {
    let e = check(r#"iter:task { printf("%c\n", 65); }"#).unwrap_err();
    assert!(e.contains("bpf_seq_printf") && e.contains("`%c`"), "{e}");
    let e = check(r#"iter:task { printf("%.3d\n", 65); }"#).unwrap_err();
    assert!(e.contains("bpf_seq_printf"), "{e}");
    let thirteen =
        format!("iter:task {{ printf(\"{}\", {}); }}", "%d".repeat(13), ["1"; 13].join(", "));
    assert!(check(&thirteen).unwrap_err().contains("at most 12 values"));
}

#[test]
fn an_iterator_is_the_only_probe_besides_begin_and_end() {
    assert!(check("BEGIN { } iter:task { } END { }").is_ok());
    let e = check("iter:task { } interval:1s { }").unwrap_err();
    assert!(e.contains("only probe besides BEGIN and END"), "{e}");
    // Elsewhere `ctx` is the context's untyped address; BEGIN and END have none.
    assert!(check("interval:1s { @ = ctx; }").is_ok());
    let e = check("BEGIN { @ = ctx; }").unwrap_err();
    assert!(e.contains("`ctx` exists in every probe but BEGIN and END"), "{e}");
}

#[test]
fn the_program_skips_the_last_run_and_prints_through_the_seq_file() {
    let typed = check(r#"iter:task { printf("%d\n", ctx.task.pid); }"#).unwrap();
    let mut opts = Options::new();
    // -p filters probes by pid; an iterator runs in sonde and is never filtered.
    opts.filter_pid = Some(4242);
    let c = sonde_compile::lower(&typed, &opts).unwrap();
    let p = &c.programs[0];
    assert_eq!((p.kind, p.name.as_str()), (ProgKind::Iter, "iter:task"));
    let insns = &p.insns;
    // r9 = ctx; r1 = ctx->task; if r1 == 0 goto out.
    assert_eq!((insns[1].code, insns[1].dst, insns[1].src, insns[1].off), (0x79, 1, 9, 8));
    assert_eq!((insns[2].code, insns[2].imm), (0x15, 0));
    let calls: Vec<i32> = insns.iter().filter(|i| i.code == 0x85).map(|i| i.imm).collect();
    assert!(calls.contains(&126), "bpf_seq_printf: {calls:?}");
    assert!(!calls.contains(&14), "no pid filter: {calls:?}");
    assert!(!insns.iter().any(|i| i.imm == 4242), "no pid filter");
}
