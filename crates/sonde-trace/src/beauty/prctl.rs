//! prctl as strace prints it: the arguments each option uses, capabilities by name
//! (`prctl(PR_CAPBSET_READ, CAP_MAC_OVERRIDE)`), the name PR_SET_NAME gives as a string.

use super::consts;

/// strace 6.1's capabilities; later ones print as `0x29 /* CAP_??? */`.
const CAPS: &[&str] = &[
    "CAP_CHOWN",
    "CAP_DAC_OVERRIDE",
    "CAP_DAC_READ_SEARCH",
    "CAP_FOWNER",
    "CAP_FSETID",
    "CAP_KILL",
    "CAP_SETGID",
    "CAP_SETUID",
    "CAP_SETPCAP",
    "CAP_LINUX_IMMUTABLE",
    "CAP_NET_BIND_SERVICE",
    "CAP_NET_BROADCAST",
    "CAP_NET_ADMIN",
    "CAP_NET_RAW",
    "CAP_IPC_LOCK",
    "CAP_IPC_OWNER",
    "CAP_SYS_MODULE",
    "CAP_SYS_RAWIO",
    "CAP_SYS_CHROOT",
    "CAP_SYS_PTRACE",
    "CAP_SYS_PACCT",
    "CAP_SYS_ADMIN",
    "CAP_SYS_BOOT",
    "CAP_SYS_NICE",
    "CAP_SYS_RESOURCE",
    "CAP_SYS_TIME",
    "CAP_SYS_TTY_CONFIG",
    "CAP_MKNOD",
    "CAP_LEASE",
    "CAP_AUDIT_WRITE",
    "CAP_AUDIT_CONTROL",
    "CAP_SETFCAP",
    "CAP_MAC_OVERRIDE",
    "CAP_MAC_ADMIN",
    "CAP_SYSLOG",
    "CAP_WAKE_ALARM",
    "CAP_BLOCK_SUSPEND",
    "CAP_AUDIT_READ",
    "CAP_PERFMON",
    "CAP_BPF",
    "CAP_CHECKPOINT_RESTORE",
];

fn cap(v: u64) -> String {
    match CAPS.get(v as usize) {
        Some(n) => n.to_string(),
        None => format!("{v:#x} /* CAP_??? */"),
    }
}

/// Options whose name carries everything (getters returning their value).
fn no_argument(option: i32) -> bool {
    matches!(
        option,
        libc::PR_GET_DUMPABLE
            | libc::PR_GET_KEEPCAPS
            | libc::PR_GET_SECCOMP
            | libc::PR_GET_TIMERSLACK
            | libc::PR_GET_NO_NEW_PRIVS
            | libc::PR_GET_THP_DISABLE
    )
}

/// The texts strace prints for `prctl(option, arg2..arg5)`, given each argument's own.
pub fn args(raw: &[u64; 6], mut texts: Vec<String>) -> Vec<String> {
    let option = raw[0] as i32;
    match option {
        _ if no_argument(option) => texts.truncate(1),
        libc::PR_CAPBSET_READ | libc::PR_CAPBSET_DROP => {
            texts.truncate(1);
            texts.push(cap(raw[1]));
        }
        libc::PR_SET_PDEATHSIG => {
            texts.truncate(1);
            texts.push(consts::signal_or_zero(raw[1] as i64));
        }
        // The name (decoded from the copy where there is one) is the only argument.
        libc::PR_SET_NAME | libc::PR_GET_NAME => texts.truncate(2),
        _ => {}
    }
    texts
}

#[cfg(test)]
mod tests {
    use super::*;

    fn texts() -> Vec<String> {
        ["PR_X", "a2", "a3", "a4", "a5"].iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn options_print_the_arguments_they_use() {
        let raw = [libc::PR_CAPBSET_READ as u64, 32, 0, 0, 0, 0];
        assert_eq!(args(&raw, texts())[1], "CAP_MAC_OVERRIDE");
        let raw = [libc::PR_CAPBSET_READ as u64, 0x30, 0, 0, 0, 0];
        assert_eq!(args(&raw, texts())[1], "0x30 /* CAP_??? */");
        let raw = [libc::PR_GET_DUMPABLE as u64, 0, 0, 0, 0, 0];
        assert_eq!(args(&raw, texts()).len(), 1);
        let raw = [libc::PR_SET_NAME as u64, 0x7f00, 0, 0, 0, 0];
        assert_eq!(args(&raw, texts()), ["PR_X", "a2"]);
        let raw = [libc::PR_SET_PDEATHSIG as u64, 9, 0, 0, 0, 0];
        assert_eq!(args(&raw, texts())[1], "SIGKILL");
    }
}
