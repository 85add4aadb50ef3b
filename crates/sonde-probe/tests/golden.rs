//! The surftrace guide's examples, each turned into the exact definition line against fixture BTF
//! (tests/common), and read back: `parse(render(def)) == def`.

mod common;

use common::Fixture;
use sonde_probe::{build, Definition, ProbeError, Target};

/// The definition line (and filter) an expression becomes.
fn line(expr: &str) -> (String, Option<String>) {
    let probe =
        build(expr, &Fixture::new(), "sonde", "f0").unwrap_or_else(|e| panic!("{expr}: {e}"));
    let Target::Dynamic(def) = &probe.target else { panic!("{expr}: not a dynamic event") };
    let text = def.to_string();
    let back: Definition = text.parse().unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(&back, def, "round trip of {text}");
    (text, probe.filter)
}

fn def(expr: &str) -> String {
    line(expr).0
}

fn err(expr: &str) -> ProbeError {
    match build(expr, &Fixture::new(), "sonde", "f0") {
        Ok(p) => panic!("{expr} was accepted: {:?}", p.target),
        Err(e) => e,
    }
}

#[test]
fn entry_and_return_without_arguments() {
    assert_eq!(def("p wake_up_new_task"), "p:sonde/f0 wake_up_new_task");
    assert_eq!(def("r wake_up_new_task"), "r:sonde/f0 wake_up_new_task");
}

#[test]
fn arguments_by_number_typed_from_btf() {
    assert_eq!(def("p do_filp_open dfd=%0"), "p:sonde/f0 do_filp_open dfd=%di:s32");
    assert_eq!(def("p do_filp_open dfd=X%0"), "p:sonde/f0 do_filp_open dfd=%di:x32");
    assert_eq!(def("p do_filp_open dfd=U%0"), "p:sonde/f0 do_filp_open dfd=%di:u32");
    assert_eq!(
        def("p do_filp_open name=%1->name"),
        "p:sonde/f0 do_filp_open name=+0x0(+0x0(%si)):string"
    );
    assert_eq!(def("p do_filp_open op=%2"), "p:sonde/f0 do_filp_open op=%dx:x64");
}

#[test]
fn member_chains() {
    assert_eq!(
        def("p wake_up_new_task comm=%0->comm"),
        "p:sonde/f0 wake_up_new_task comm=+0xae0(%di):string"
    );
    assert_eq!(
        def("p wake_up_new_task uesrs=S%0->mm->mm_users"),
        "p:sonde/f0 wake_up_new_task uesrs=+0x58(+0x850(%di)):s32"
    );
    assert_eq!(
        def("p wake_up_new_task node=%0->se.run_node.rb_left"),
        "p:sonde/f0 wake_up_new_task node=+0xa8(%di):x64"
    );
    assert_eq!(
        def("p wake_up_new_task node=U%0->se.run_node.rb_left"),
        "p:sonde/f0 wake_up_new_task node=+0xa8(%di):u64"
    );
}

#[test]
fn bitfields_arrays_and_indexes() {
    assert_eq!(
        def("p wake_up_new_task x=%0->in_iowait"),
        "p:sonde/f0 wake_up_new_task x=+0x7f0(%di):b1@4/32"
    );
    assert_eq!(
        def("p wake_up_new_task v=%0->vals"),
        "p:sonde/f0 wake_up_new_task v=+0x900(%di):s32[4]"
    );
    assert_eq!(
        def("p wake_up_new_task v=X%0->vals[2]"),
        "p:sonde/f0 wake_up_new_task v=+0x908(%di):x32"
    );
    assert_eq!(
        def("p wake_up_new_task c=X%0->comm[1]"),
        "p:sonde/f0 wake_up_new_task c=+0xae1(%di):x8"
    );
}

#[test]
fn filters() {
    assert_eq!(
        line("p wake_up_new_task comm=%0->comm f:comm==\"python3\""),
        (
            "p:sonde/f0 wake_up_new_task comm=+0xae0(%di):string".into(),
            Some("comm==\"python3\"".into())
        )
    );
    let p = build("e sched/sched_stat_wait f:delay>1000000", &Fixture::new(), "x", "y").unwrap();
    assert_eq!(
        p.target,
        Target::Tracepoint { group: "sched".into(), event: "sched_stat_wait".into() }
    );
    assert_eq!(p.filter.as_deref(), Some("delay>1000000"));
}

#[test]
fn casts_and_registers_inside_a_function() {
    assert_eq!(
        def("p do_filp_open+121 filp=X!(u64)%ax"),
        "p:sonde/f0 do_filp_open+0x79 filp=%ax:x64"
    );
    assert_eq!(
        def("p do_filp_open+121 pos=X!(struct file*)%ax->f_pos"),
        "p:sonde/f0 do_filp_open+0x79 pos=+0x68(%ax):x64"
    );
    assert_eq!(def("p do_filp_open+121 a=%rax"), "p:sonde/f0 do_filp_open+0x79 a=%ax:u64");
}

#[test]
fn return_values() {
    assert_eq!(def("r do_filp_open filp=$retval"), "r:sonde/f0 do_filp_open filp=$retval:x64");
    assert_eq!(def("r do_filp_open filp=U$retval"), "r:sonde/f0 do_filp_open filp=$retval:u64");
    assert_eq!(
        def("r do_filp_open pos=$retval->f_pos"),
        "r:sonde/f0 do_filp_open pos=+0x68($retval):s64"
    );
}

#[test]
fn globals_comm_and_stack() {
    assert_eq!(
        def("p wake_up_new_task point=@task_group_cache"),
        "p:sonde/f0 wake_up_new_task point=@task_group_cache"
    );
    assert_eq!(
        def("p wake_up_new_task name=!(struct kmem_cache*)@task_group_cache->name size=!(struct kmem_cache*)@task_group_cache->size"),
        "p:sonde/f0 wake_up_new_task name=+0x0(+0x58(@task_group_cache)):string size=+0x18(@task_group_cache):u32"
    );
    assert_eq!(
        def("p wake_up_new_task name=!(struct kmem_cache*)@0xffffffff8647bc30->name"),
        "p:sonde/f0 wake_up_new_task name=+0x0(+0x58(@0xffffffff8647bc30)):string"
    );
    assert_eq!(
        def("p wake_up_new_task c=$comm s=X$stack2"),
        "p:sonde/f0 wake_up_new_task c=$comm:string s=$stack2:x64"
    );
}

#[test]
fn uprobes() {
    assert_eq!(def("P bash:readline"), "p:sonde/f0 /usr/bin/bash:0x8a870");
    assert_eq!(
        def("R bash:readline cmd=!(char *)$retval"),
        "r:sonde/f0 /usr/bin/bash:0x8a870 cmd=+0x0($retval):string"
    );
    assert_eq!(
        line("R libc:fopen file=$retval f:file==0"),
        ("r:sonde/f0 /lib64/libc-2.17.so:0x6eb40 file=$retval:u64".into(), Some("file==0".into()))
    );
    assert_eq!(def("P libc:fopen t=X%0"), "p:sonde/f0 /lib64/libc-2.17.so:0x6eb40 t=%di:x64");
}

#[test]
fn every_fetcharg_form_round_trips() {
    for text in [
        "p:g/e do_sys_open a=%ax:u8 b=@0xffff0000:s16 c=@jiffies+0x10:x32 d=@jiffies-0x8 e=$stack3:u64",
        "r16:g/e do_sys_open r=$retval:symbol s=$stack:x64 f=$arg2:s64 c=$comm:string",
        "p:g/e mod:func+0x10 a=+u0x8(%si):ustring b=-0x10(+0x8(%di)):b3@5/32 i=\\12 s=+0x0(%di):string[2]",
        "p:g/e 0xffffffff81000000 a=+0x4(%di):x16[4]",
        "p:g/e /bin/true:0x1234 a=+0x0(%di):ustring",
    ] {
        let d: Definition = text.parse().unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(d.to_string(), text);
    }
    assert!("x:g/e foo".parse::<Definition>().is_err());
    assert!("p:g/e foo a=%di:u12".parse::<Definition>().is_err());
}

#[test]
fn bad_input_is_one_sentence_each() {
    let near = err("p wake_up_new_task c=%0->com").to_string();
    assert!(near.contains("has no member `com`") && near.contains("`comm`"), "{near}");
    assert!(matches!(
        err("p wake_up_new_task c=!(struct nope *)%di->x"),
        ProbeError::UnknownType { .. }
    ));
    assert!(matches!(err("p wake_up_new_task c=%eax"), ProbeError::BadRegister { .. }));
    assert!(matches!(err("p wake_up_new_task c=$retval"), ProbeError::RetvalOnEntry { .. }));
    assert!(matches!(err("r wake_up_new_task c=%0"), ProbeError::ArgOnReturn { .. }));
    assert!(matches!(err("p wake_up_new_task c=%1"), ProbeError::NoSuchArg { .. }));
    assert!(matches!(err("p wake_up_new_task c=%0 f:c=="), ProbeError::BadFilter { .. }));
    assert!(matches!(err("p wake_up_new_task c=%0 f:d==1"), ProbeError::FilterField { .. }));
    assert!(matches!(err("p wake_up_new_tsk"), ProbeError::UnknownFunction { .. }));
    assert!(matches!(err("P nope:main"), ProbeError::UserTarget { .. }));
    assert!(matches!(err("p wake_up_new_task s=%0->se"), ProbeError::Aggregate { .. }));
    assert!(matches!(err("p wake_up_new_task s=%0.pid"), ProbeError::WrongAccess { .. }));
    assert!(matches!(err("p wake_up_new_task s=%ax->pid"), ProbeError::Untyped { .. }));
    assert!(matches!(err("p wake_up_new_task s=@nosuch"), ProbeError::UnknownSymbol { .. }));
    assert!(matches!(err("e sched/nope"), ProbeError::UnknownEvent { .. }));
    assert!(matches!(err("p wake_up_new_task c=$comm->x"), ProbeError::CommChain { .. }));
    for e in ["p wake_up_new_task c=%0->com", "x y", "p", "p wake_up_new_task a"] {
        let msg = build(e, &Fixture::new(), "g", "e").unwrap_err().to_string();
        assert!(!msg.contains('\n') && !msg.is_empty(), "{msg}");
    }
}
