use super::*;

#[test]
fn signal_lines_as_strace_prints_them() {
    // Texts from strace 6.x on this host.
    let kill = SigInfo { signo: 10, word: 3237, ..SigInfo::default() };
    assert_eq!(
        kill.line(),
        "--- SIGUSR1 {si_signo=SIGUSR1, si_code=SI_USER, si_pid=3237, si_uid=0} ---"
    );
    let child = SigInfo { signo: 17, code: 1, word: 3238, status: 2, ..SigInfo::default() };
    assert_eq!(
        child.line(),
        "--- SIGCHLD {si_signo=SIGCHLD, si_code=CLD_EXITED, si_pid=3238, si_uid=0, si_status=2, si_utime=0, si_stime=0} ---"
    );
    let killed = SigInfo { code: 2, status: 9, ..child };
    assert!(killed
        .line()
        .contains("si_code=CLD_KILLED, si_pid=3238, si_uid=0, si_status=SIGKILL,"));
    let fault = SigInfo { signo: 11, code: 1, word: 0, ..SigInfo::default() };
    assert_eq!(
        fault.line(),
        "--- SIGSEGV {si_signo=SIGSEGV, si_code=SEGV_MAPERR, si_addr=NULL} ---"
    );
    let at = SigInfo { word: 0x1234, ..fault };
    assert_eq!(
        at.line(),
        "--- SIGSEGV {si_signo=SIGSEGV, si_code=SEGV_MAPERR, si_addr=0x1234} ---"
    );
    let kernel = SigInfo::without_info(11, 1, 5, 6);
    assert_eq!(
        kernel.line(),
        "--- SIGSEGV {si_signo=SIGSEGV, si_code=SI_KERNEL, si_addr=NULL} ---"
    );
    let tkill = SigInfo { signo: 33, code: -6, word: 7 | 1000 << 32, ..SigInfo::default() };
    assert_eq!(
        tkill.line(),
        "--- SIGRT_1 {si_signo=SIGRT_1, si_code=SI_TKILL, si_pid=7, si_uid=1000} ---"
    );
}

#[test]
fn a_signal_sent_without_siginfo_is_the_senders() {
    let s = SigInfo::without_info(13, 0, 42, 1000);
    assert_eq!(
        s.line(),
        "--- SIGPIPE {si_signo=SIGPIPE, si_code=SI_USER, si_pid=42, si_uid=1000} ---"
    );
}

#[test]
fn exit_lines_as_strace_prints_them() {
    assert_eq!(exit_line(3 << 8), "+++ exited with 3 +++");
    assert_eq!(exit_line(0), "+++ exited with 0 +++");
    assert_eq!(exit_line(9), "+++ killed by SIGKILL +++");
    assert_eq!(exit_line(11 | 0x80), "+++ killed by SIGSEGV (core dumped) +++");
    assert_eq!(exit_line(exit_code_of_status(139)), "+++ killed by SIGSEGV +++");
    assert_eq!(exit_line(exit_code_of_status(3)), "+++ exited with 3 +++");
}

#[test]
fn names_of_real_time_signals() {
    assert_eq!(signal_name(32), "SIGRTMIN");
    assert_eq!(signal_name(34), "SIGRT_2");
    assert_eq!(signal_name(15), "SIGTERM");
}

#[test]
fn a_fatal_signal_never_delivered_is_said_once_before_the_end() {
    let mut sent = Sent::default();
    sent.sent(7, SigInfo { signo: 10, word: 3, ..SigInfo::default() });
    sent.sent(7, SigInfo { signo: 12, word: 3, ..SigInfo::default() });
    sent.delivered(7, 12);
    assert_eq!(sent.killing(7, 12), None);
    assert_eq!(sent.killing(7, 0), None);
    assert_eq!(sent.killing(7, 10).map(|s| s.signo), Some(10));
    assert_eq!(sent.killing(7, 10), None);
}

#[test]
fn only_sondes_own_sigcont_is_the_release() {
    let cont = |pid: u32| SigInfo::without_info(libc::SIGCONT, 0, pid, 0);
    assert!(cont(4242).is_release_by(4242));
    assert!(!cont(4243).is_release_by(4242), "another process's SIGCONT is the program's");
    let usr1 = SigInfo::without_info(libc::SIGUSR1, 0, 4242, 0);
    assert!(!usr1.is_release_by(4242), "only SIGCONT releases the held command");
    let kernel = SigInfo::without_info(libc::SIGCONT, 1, 4242, 0);
    assert!(!kernel.is_release_by(4242), "the kernel's SIGCONT is not sonde's");
}
