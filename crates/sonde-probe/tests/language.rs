//! `--to-language`: the guide's examples as sonde programs, exactly (the host test in
//! crates/sonde/tests/probe_language.rs checks that the kernel's verifier takes such programs).

mod common;

use common::Fixture;
use sonde_probe::{build, to_language};

fn lang(expr: &str) -> String {
    let f = Fixture::new();
    let p = build(expr, &f, "sonde", "f0").unwrap_or_else(|e| panic!("{expr}: {e}"));
    to_language(&p, &f).unwrap_or_else(|e| panic!("{expr}: {e}"))
}

fn refused(expr: &str) -> String {
    let f = Fixture::new();
    let p = build(expr, &f, "sonde", "f0").unwrap();
    match to_language(&p, &f) {
        Ok(l) => panic!("{expr} became {l}"),
        Err(e) => e.to_string(),
    }
}

#[test]
fn a_filter_string_stays_one_string_of_the_program() {
    // ftrace strings have no escapes: a `"` in a '...' string is text, escaped in the program.
    assert_eq!(
        lang(r#"e sched/sched_stat_wait f:comm=='a"/ { } BEGIN { system("touch PWNED"); } k /"\'"#),
        r#"tracepoint:sched:sched_stat_wait /args->comm == "a\"/ { } BEGIN { system(\"touch PWNED\"); } k /\"\\"/ { print(args->comm, args->pid, args->delay); }"#
    );
}

#[test]
fn kprobes_and_filters() {
    assert_eq!(
        lang("p do_filp_open dfd=%0 name=%1->name f:dfd==-100"),
        r#"kprobe:do_filp_open /arg0 == -100/ { printf("dfd=%d name=%s\n", arg0, str(arg1->name)); }"#
    );
    assert_eq!(
        lang("p wake_up_new_task comm=%0->comm uesrs=S%0->mm->mm_users f:comm==\"python3\""),
        r#"kprobe:wake_up_new_task /str(arg0->comm) == "python3"/ { printf("comm=%s uesrs=%d\n", str(arg0->comm), arg0->mm->mm_users.counter); }"#
    );
    assert_eq!(
        lang("p wake_up_new_task node=%0->se.run_node.rb_left x=X%0->vals[2] c=$comm"),
        r#"kprobe:wake_up_new_task { printf("node=0x%x x=0x%x c=%s\n", arg0->se.run_node.rb_left, arg0->vals[2], comm); }"#
    );
    assert_eq!(
        lang("p do_filp_open+121 pos=!(struct file *)%ax->f_pos f:pos==0"),
        r#"kprobe:do_filp_open+121 /((struct file *)regs->ax)->f_pos == 0/ { printf("pos=%d\n", ((struct file *)regs->ax)->f_pos); }"#
    );
    assert_eq!(lang("r wake_up_new_task"), r#"kretprobe:wake_up_new_task { printf("\n"); }"#);
}

#[test]
fn tracepoints_uprobes_and_packets() {
    assert_eq!(
        lang("e sched/sched_stat_wait f:delay>1000000 || common_pid==1"),
        "tracepoint:sched:sched_stat_wait /args->delay > 1000000 || pid == 1/ { print(args->comm, args->pid, args->delay); }"
    );
    assert_eq!(
        lang("R bash:readline s=$retval"),
        r#"uretprobe:bash:readline { printf("s=%u\n", retval); }"#
    );
    assert_eq!(lang("P libc:fopen p=X%0"), r#"uprobe:libc:fopen { printf("p=0x%x\n", arg0); }"#);
    assert_eq!(
        lang("p __netif_receive_skb_core ip_src=@(struct iphdr *)%0->saddr t=@(struct icmphdr *)l3%0->type b16_x=@(struct udphdr *)l4%0->dest"),
        "kprobe:__netif_receive_skb_core { printf(\"ip_src=%u.%u.%u.%u t=%u b16_x=%u\\n\", \
(((struct iphdr *)((struct sk_buff *)arg0)->data)->saddr >> 0) & 0xff, \
(((struct iphdr *)((struct sk_buff *)arg0)->data)->saddr >> 8) & 0xff, \
(((struct iphdr *)((struct sk_buff *)arg0)->data)->saddr >> 16) & 0xff, \
(((struct iphdr *)((struct sk_buff *)arg0)->data)->saddr >> 24) & 0xff, \
((struct icmphdr *)(((struct sk_buff *)arg0)->data + 20))->type, \
((((((struct udphdr *)((struct sk_buff *)arg0)->data)->dest) >> 0) & 0xff) << 8 | \
(((((struct udphdr *)((struct sk_buff *)arg0)->data)->dest) >> 8) & 0xff) << 0)); }"
    );
}

#[test]
fn what_the_language_lacks_is_one_sentence() {
    assert!(refused("p wake_up_new_task s=$stack2").contains("no `$stackN`"));
    assert!(refused("p wake_up_new_task g=@task_group_cache").contains("no kernel globals"));
    assert!(refused("P bash:readline a=%ax").contains("kprobes only"));
    let e = refused("p __netif_receive_skb_core d=@(struct iphdr *)%0->sdata[1]");
    assert!(e.contains("cannot be written in the sonde language"), "{e}");
}

fn fprobe(expr: &str) -> Result<String, String> {
    let f = Fixture::new();
    let p = build(expr, &f, "sonde", "f0").unwrap_or_else(|e| panic!("{expr}: {e}"));
    sonde_probe::fprobe_line(&p, &f).map_err(|e| e.to_string())
}

/// `--fprobe`: the same expressions as BTF-aware fprobe events.
#[test]
fn fprobe_lines() {
    assert_eq!(
        fprobe("p do_filp_open dfd=%0 name=%1->name c=$comm").unwrap(),
        "f:sonde/f0 do_filp_open dfd=dfd name=pathname->name:string c=$comm:string"
    );
    assert_eq!(
        fprobe("p wake_up_new_task users=S%0->mm->mm_users x=X%0->pid").unwrap(),
        "f:sonde/f0 wake_up_new_task users=p->mm->mm_users.counter:s32 x=p->pid:x32"
    );
    assert_eq!(
        fprobe("r do_filp_open pos=$retval->f_pos").unwrap(),
        "f:sonde/f0 do_filp_open%return pos=$retval->f_pos"
    );
    assert!(fprobe("p do_filp_open+4 a=%ax").unwrap_err().contains("not inside"));
    assert!(fprobe("p do_filp_open a=!(u64)%0").unwrap_err().contains("casts"));
    assert!(fprobe("e sched/sched_stat_wait").unwrap_err().contains("`p` and `r`"));
}
