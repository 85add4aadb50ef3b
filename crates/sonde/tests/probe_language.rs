//! `sonde probe --to-language`: the printed program is one the language compiles and the kernel's
//! verifier loads (`sonde -e`), against this host's BTF, for kprobes, kretprobes, tracepoints,
//! uprobes, casts, atomic_t members, packet headers and filters.

mod common;

use common::sonde;

const EXPRS: [&str; 7] = [
    "p do_filp_open dfd=%0 name=%1->name f:dfd==-100",
    "r do_sys_openat2 ret=$retval f:ret<0",
    "p wake_up_new_task comm=%0->comm users=S%0->mm->mm_users node=%0->se.run_node.rb_left c=$comm f:comm==\"sh\"",
    "p do_filp_open+4 pos=X!(struct file *)%ax->f_pos",
    "p ip_rcv proto=@(struct iphdr *)l3%0->protocol ip_src=@(struct iphdr *)%0->saddr type=@(struct icmphdr *)l3%0->type b16_seq=@(struct icmphdr *)l3%0->un.echo.sequence f:proto==1&&ip_src==127.0.0.1",
    "e syscalls/sys_enter_openat f:dfd==-100 && common_pid!=1",
    "P libc:fopen p=X%0",
];

#[test]
fn printed_programs_pass_the_verifier() {
    require_tracepoints!();
    if !std::path::Path::new("/sys/kernel/btf/vmlinux").exists() {
        println!("skipped: no kernel BTF");
        return;
    }
    for e in EXPRS {
        let o = sonde(&["probe", "--to-language", e]);
        o.assert_ok();
        let program = o.stdout.trim().to_string();
        assert_eq!(program.lines().count(), 1, "{}", o.describe());
        let run = sonde(&["-e", &program]);
        assert!(
            run.code == Some(0) && run.stderr.contains("passed the verifier"),
            "{e}\n  became {program}\n{}",
            run.describe()
        );
    }
}
