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

/// The guide's skb example, exactly: `ip_src` has no mark (l3 by default), `sdata[1]` is bytes
/// 2-3 after the IP header.
#[test]
fn packet_parsing_the_guides_icmp_example() {
    assert_eq!(
        line("p __netif_receive_skb_core proto=@(struct iphdr *)l3%0->protocol ip_src=@(struct iphdr *)%0->saddr ip_dst=@(struct iphdr *)l3%0->daddr data=X@(struct iphdr *)l3%0->sdata[1] f:proto==1&&ip_src==127.0.0.1"),
        (
            "p:sonde/f0 __netif_receive_skb_core proto=+0x9(+0xe8(%di)):u8 ip_src=+0xc(+0xe8(%di)):u32 ip_dst=+0x10(+0xe8(%di)):u32 data=+0x16(+0xe8(%di)):x16".into(),
            Some("proto==1 && ip_src==0x100007f".into())
        )
    );
}

#[test]
fn packet_parsing_marks_headers_and_xdata() {
    let p = "p __netif_receive_skb_core";
    // data at layer 2: the IP header is past the 14-byte Ethernet header, ICMP past both.
    assert_eq!(
        def(&format!("{p} t=@(struct icmphdr *)l2%0->type ip_d=@(struct iphdr *)l2%0->daddr")),
        format!("{}:sonde/f0 __netif_receive_skb_core t=+0x22(+0xe8(%di)):u8 ip_d=+0x1e(+0xe8(%di)):u32", "p")
    );
    assert_eq!(
        def(&format!(
            "{p} t=@(struct icmphdr *)l3%0->type s=@(struct icmphdr *)l3%0->un.echo.sequence"
        )),
        "p:sonde/f0 __netif_receive_skb_core t=+0x14(+0xe8(%di)):u8 s=+0x1a(+0xe8(%di)):u16"
    );
    assert_eq!(
        def(&format!("{p} v=@(struct iphdr *)%0->version e=@(struct ethhdr *)l2%0->h_proto")),
        "p:sonde/f0 __netif_receive_skb_core v=+0x0(+0xe8(%di)):b4@4/32 e=+0xc(+0xe8(%di)):u16"
    );
    assert_eq!(
        def(&format!("{p} c=@(struct udphdr *)l4%0->cdata[3] q=X@(struct tcphdr *)l4%0->qdata l=@(struct icmphdr *)l4%0->ldata[1] s=@(struct udphdr *)l4%0->Sdata[2]")),
        "p:sonde/f0 __netif_receive_skb_core c=+0xb(+0xe8(%di)):u8 q=+0x14(+0xe8(%di)):x64 l=+0xc(+0xe8(%di)):u32 s=+0xa(+0xe8(%di)):string"
    );
}

#[test]
fn packet_parsing_mistakes() {
    let p = "p __netif_receive_skb_core";
    let e = err(&format!("{p} x=@(struct ethhdr *)l3%0->h_proto")).to_string();
    assert!(e.contains("layer 2 header, below the l3"), "{e}");
    let e = err(&format!("{p} x=@(struct file *)%0->f_pos")).to_string();
    assert!(e.contains("is not one of struct ethhdr *"), "{e}");
    let e = err(&format!("{p} x=@(struct iphdr *)%0->sadr")).to_string();
    assert!(e.contains("did you mean `saddr`"), "{e}");
    let e = err("p netif_receive_skb_list_internal x=@(struct iphdr *)%0->saddr").to_string();
    assert!(e.contains("reads a `struct sk_buff *`, and this is `struct sk_buff **`"), "{e}");
    let e = err(&format!("{p} x=@(struct iphdr *)%0->sdata->x")).to_string();
    assert!(e.contains("takes only an index"), "{e}");
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

/// A cast in a uprobe names the program's own type (its DWARF, here fixture BTF), never the
/// kernel's; a binary without types says so.
#[test]
fn casts_in_uprobes_take_the_programs_types() {
    assert_eq!(
        def("P tprog:work x=!(struct pt *)%0->x y=!(struct pt *)%0->y n=!(struct pt *)%0->name"),
        "p:sonde/f0 /opt/tprog:0x1139 x=+0x0(%di):s32 y=+0x8(%di):s64 n=+0x10(%di):string"
    );
    let e = err("P tprog:work f=!(struct file *)%0->f_pos");
    assert!(matches!(e, ProbeError::UnknownUserType { .. }), "{e}");
    assert_eq!(
        e.to_string(),
        "`!(struct file *)%0->f_pos`: /opt/tprog has no type `struct file *` in its debug info"
    );
    let e = err("R libc:fopen pos=!(struct file *)$retval->f_pos");
    assert_eq!(
        e.to_string(),
        "`!(struct file *)$retval->f_pos`: /lib64/libc-2.17.so has no type information"
    );
    // C's own scalar types are the kernel's too.
    assert_eq!(
        def("R libc:fopen c=!(unsigned char *)$retval"),
        "r:sonde/f0 /lib64/libc-2.17.so:0x6eb40 c=+0x0($retval):string"
    );
    // Without a cast there is no type to follow, in any binary.
    assert!(matches!(err("P tprog:work x=%0->x"), ProbeError::Untyped { .. }));
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
    assert_eq!(
        err("p wake_up_new_task d=!(struct sock *)%0->sk_dport").to_string(),
        "`!(struct sock *)%0->sk_dport`: `struct sock` has no member `sk_dport` (did you mean `__sk_common.skc_dport`?)"
    );
    assert_eq!(
        def("p wake_up_new_task d=!(struct sock *)%0->__sk_common.skc_dport"),
        "p:sonde/f0 wake_up_new_task d=+0xc(%di):u16"
    );
    assert_eq!(
        err("p do_int3").to_string(),
        "kprobes cannot trace `do_int3`: the kernel has it, and lists it on the kprobe blacklist (/sys/kernel/debug/kprobes/blacklist)"
    );
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
