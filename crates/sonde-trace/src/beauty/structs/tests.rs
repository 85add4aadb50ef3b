use super::*;

fn call<'a>(
    raw: &'a [u64; 6],
    ret: i64,
    input: Option<&'a [u8]>,
    output: Option<&'a [u8]>,
) -> Copied<'a> {
    Copied { raw, ret, input, output, all: &[], netlink: false }
}

fn words(w: &[u64]) -> Vec<u8> {
    w.iter().flat_map(|v| v.to_le_bytes()).collect()
}

fn stat_bytes(mode: u32, rdev: u64, size: u64) -> Vec<u8> {
    let mut b = vec![0u8; 64];
    b[24..28].copy_from_slice(&mode.to_le_bytes());
    b[40..48].copy_from_slice(&rdev.to_le_bytes());
    b[48..56].copy_from_slice(&size.to_le_bytes());
    b
}

#[test]
fn stat_as_strace_abbreviates_it() {
    let raw = [3, 1, 0x7ffd_0000, 0x1000, 0, 0];
    let b = stat_bytes(0o100644, 0, 38411);
    let t = decode("newfstatat", 2, &call(&raw, 0, None, Some(&b)));
    assert_eq!(t.unwrap(), "{st_mode=S_IFREG|0644, st_size=38411, ...}");
    let b = stat_bytes(0o20666, 0x103, 0);
    let t = decode("fstat", 1, &call(&[1, 0x7ffd_0000, 0, 0, 0, 0], 0, None, Some(&b)));
    assert_eq!(t.unwrap(), "{st_mode=S_IFCHR|0666, st_rdev=makedev(0x1, 0x3), ...}");
    // A failed call filled nothing: the pointer is printed.
    assert_eq!(decode("newfstatat", 2, &call(&raw, -2, None, Some(&b))), None);
}

#[test]
fn statx_as_strace_abbreviates_it() {
    let mut b = vec![0u8; 48];
    b[0..4].copy_from_slice(&0x17ffu32.to_le_bytes());
    b[28..30].copy_from_slice(&(0o40755u16).to_le_bytes());
    b[40..48].copy_from_slice(&4096u64.to_le_bytes());
    let raw = [0, 1, 0x900, 0x25e, 0x7ffd_0000, 0];
    assert_eq!(
        decode("statx", 4, &call(&raw, 0, None, Some(&b))).unwrap(),
        "{stx_mask=STATX_BASIC_STATS|STATX_MNT_ID, stx_attributes=0, stx_mode=S_IFDIR|0755, stx_size=4096, ...}"
    );
}

#[test]
fn read_buffers_up_to_what_was_read() {
    let raw = [3, 0x7ffd_0000, 832, 0, 0, 0];
    let elf = b"\x7fELF\x02\x01\x01\0\0\0\0\0\0\0\0\0\x03\0>\0\x01\0\0\0\0\0\0\0\0\0\0\0";
    assert_eq!(
        decode("read", 1, &call(&raw, 832, None, Some(elf))).unwrap(),
        r#""\177ELF\2\1\1\0\0\0\0\0\0\0\0\0\3\0>\0\1\0\0\0\0\0\0\0\0\0\0\0"..."#
    );
    let raw = [0x7ffd_0000, 1024, 0, 0, 0, 0];
    assert_eq!(
        decode("getcwd", 0, &call(&raw, 17, None, Some(b"/work/wt/tdecode\0xx"))).unwrap(),
        r#""/work/wt/tdecode""#
    );
    let raw = [1, 0x7ffd_0000, 22, 0, 0, 0];
    let link = b"../usr/lib/os-release\0\0\0\0\0\0\0\0\0\0\0";
    assert_eq!(
        decode("readlink", 1, &call(&raw, 21, None, Some(link))).unwrap(),
        r#""../usr/lib/os-release""#
    );
}

#[test]
fn signal_sets_and_actions() {
    let all_but_32_33 = (!(3u64 << 31)).to_le_bytes();
    assert_eq!(sigset(&all_but_32_33), "~[RTMIN RT_1]");
    assert_eq!(sigset(&(1u64 << 12).to_le_bytes()), "[PIPE]");
    assert_eq!(sigset(&0u64.to_le_bytes()), "[]");
    assert_eq!(sigset(&(!0u64).to_le_bytes()), "~[]");
    let with = ((1u64 << 1) | (1u64 << 33) | (1u64 << 63)).to_le_bytes();
    assert_eq!(sigset(&with), "[INT RT_2 RT_32]");
    let mut act = vec![0u8; 32];
    act[0..8].copy_from_slice(&1u64.to_le_bytes());
    act[8..16].copy_from_slice(&0x1400_0000u64.to_le_bytes());
    act[16..24].copy_from_slice(&0x7f3b_6a8e_8050u64.to_le_bytes());
    act[24..32].copy_from_slice(&(1u64 << 33).to_le_bytes());
    assert_eq!(
        sigaction(&act).unwrap(),
        "{sa_handler=SIG_IGN, sa_mask=[RT_2], sa_flags=SA_RESTORER|SA_RESTART, sa_restorer=0x7f3b6a8e8050}"
    );
    assert_eq!(sigaction(&[0u8; 32]).unwrap(), "{sa_handler=SIG_DFL, sa_mask=[], sa_flags=0}");
}

#[test]
fn limits_statuses_and_fd_pairs() {
    let mut b = (8192u64 * 1024).to_le_bytes().to_vec();
    b.extend(u64::MAX.to_le_bytes());
    let raw = [0, 3, 0, 0x7ffd_0000, 0, 0];
    assert_eq!(
        decode("prlimit64", 3, &call(&raw, 0, None, Some(&b))).unwrap(),
        "{rlim_cur=8192*1024, rlim_max=RLIM64_INFINITY}"
    );
    let raw = [u64::MAX, 0x7ffd_0000, 0, 0, 0, 0];
    assert_eq!(
        decode("wait4", 1, &call(&raw, 5893, None, Some(&0u32.to_le_bytes()))).unwrap(),
        "[{WIFEXITED(s) && WEXITSTATUS(s) == 0}]"
    );
    assert_eq!(
        decode("wait4", 1, &call(&raw, 5893, None, Some(&0x8bu32.to_le_bytes()))).unwrap(),
        "[{WIFSIGNALED(s) && WTERMSIG(s) == SIGSEGV && WCOREDUMP(s)}]"
    );
    let fds = [3u32.to_le_bytes(), 4u32.to_le_bytes()].concat();
    let raw = [0x7ffd_0000, 0, 0, 0, 0, 0];
    assert_eq!(decode("pipe2", 0, &call(&raw, 0, None, Some(&fds))).unwrap(), "[3, 4]");
}

#[test]
fn socket_addresses() {
    let mut inet = vec![0u8; 16];
    inet[0..2].copy_from_slice(&2u16.to_le_bytes());
    inet[2..4].copy_from_slice(&8080u16.to_be_bytes());
    inet[4..8].copy_from_slice(&[127, 0, 0, 1]);
    let raw = [3, 0x7ffd_0000, 16, 0, 0, 0];
    assert_eq!(
        decode("bind", 1, &call(&raw, 0, Some(&inet), None)).unwrap(),
        r#"{sa_family=AF_INET, sin_port=htons(8080), sin_addr=inet_addr("127.0.0.1")}"#
    );
    let mut unix = vec![0u8; 110];
    unix[0..2].copy_from_slice(&1u16.to_le_bytes());
    unix[2..22].copy_from_slice(b"/var/run/nscd/socket");
    let raw = [3, 0x7ffd_0000, 110, 0, 0, 0];
    assert_eq!(
        decode("connect", 1, &call(&raw, -2, Some(&unix), None)).unwrap(),
        r#"{sa_family=AF_UNIX, sun_path="/var/run/nscd/socket"}"#
    );
    let raw = [3, 0x7ffd_0000, 0x7ffd_0100, 0, 0, 0];
    let len = 16u32.to_le_bytes();
    assert_eq!(decode("getsockname", 2, &call(&raw, 0, Some(&len), Some(&len))).unwrap(), "[16]");
    let big = 128u32.to_le_bytes();
    assert_eq!(
        decode("accept4", 2, &call(&raw, 4, Some(&big), Some(&len))).unwrap(),
        "[128 => 16]"
    );
    let mut ts = 0u64.to_le_bytes().to_vec();
    ts.extend(1_000_000u64.to_le_bytes());
    let raw = [0, 0, 0x7ffd_0000, 0, 0, 0];
    assert_eq!(
        decode("clock_nanosleep", 2, &call(&raw, 0, Some(&ts), None)).unwrap(),
        "{tv_sec=0, tv_nsec=1000000}"
    );
}

#[test]
fn execve_arrays_as_strace_prints_them() {
    use crate::memory::{ARGC_INDEX, ARGV_INDEX, ENVC_INDEX};
    let packed = |n: u64| (n | (32 << 32)).to_le_bytes().to_vec();
    let strings = vec![
        (ARGC_INDEX, packed(3)),
        (ENVC_INDEX, packed(25)),
        (ARGV_INDEX, b"ls".to_vec()),
        (ARGV_INDEX + 1, b"-la".to_vec()),
        (ARGV_INDEX + 2, b"/etc/aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa".to_vec()),
    ];
    assert_eq!(
        exec_array(true, 0x7ffc_0000, &strings).unwrap(),
        r#"["ls", "-la", "/etc/aaaaaaaaaaaaaaaaaaaaaaaaaaa"...]"#
    );
    assert_eq!(exec_array(false, 0x7ffc_0000, &strings).unwrap(), "0x7ffc0000 /* 25 vars */");
    // More strings than were copied: strace's `...` after the last shown.
    let mut more = strings.clone();
    more[0] = (ARGC_INDEX, packed(4));
    assert_eq!(exec_array(true, 1, &more).unwrap().rsplit(", ").next(), Some("...]"));
}

#[test]
fn directory_entries_are_counted() {
    let raw = [3, 0x55d0_0000_1000, 32768, 0, 0, 0];
    let n = 156u64.to_le_bytes();
    assert_eq!(
        decode("getdents64", 1, &call(&raw, 4952, None, Some(&n))).unwrap(),
        "0x55d000001000 /* 156 entries */"
    );
}

#[test]
fn uname_groups_and_cpus() {
    let mut u = vec![0u8; 130];
    u[..5].copy_from_slice(b"Linux");
    u[65..67].copy_from_slice(b"vm");
    let raw = [0x7ffd_0000, 0, 0, 0, 0, 0];
    assert_eq!(
        decode("uname", 0, &call(&raw, 0, None, Some(&u))).unwrap(),
        r#"{sysname="Linux", nodename="vm", ...}"#
    );
    let raw = [0, 0x7ffd_0000, 0, 0, 0, 0];
    assert_eq!(decode("getgroups", 1, &call(&raw, 0, None, Some(&[0; 128]))).unwrap(), "[]");
    let raw = [2, 0x7ffd_0000, 0, 0, 0, 0];
    let g = [0u32.to_le_bytes(), 27u32.to_le_bytes()].concat();
    assert_eq!(decode("getgroups", 1, &call(&raw, 2, None, Some(&g))).unwrap(), "[0, 27]");
    let raw = [0, 128, 0x7ffd_0000, 0, 0, 0];
    let mut set = vec![0u8; 128];
    set[0] = 0b11;
    assert_eq!(decode("sched_getaffinity", 2, &call(&raw, 32, None, Some(&set))).unwrap(), "[0 1]");
}

#[test]
fn netlink_and_socket_options() {
    let mut nl = vec![0u8; 12];
    nl[0..2].copy_from_slice(&16u16.to_le_bytes());
    let raw = [3, 0x7ffd_0000, 12, 0, 0, 0];
    assert_eq!(
        decode("bind", 1, &call(&raw, 0, Some(&nl), None)).unwrap(),
        "{sa_family=AF_NETLINK, nl_pid=0, nl_groups=00000000}"
    );
    let raw = [5, 1, 4, 0x7ffd_0000, 0x7ffd_0100, 0];
    let refused = 111u32.to_le_bytes();
    assert_eq!(
        decode("getsockopt", 3, &call(&raw, 0, None, Some(&refused))).unwrap(),
        "[ECONNREFUSED]"
    );
    let four = 4u32.to_le_bytes();
    assert_eq!(decode("getsockopt", 4, &call(&raw, 0, Some(&four), Some(&four))).unwrap(), "[4]");
    let t = crate::beauty::strace::shape(
        "socket",
        &[16, 3, 0, 0, 0, 0],
        vec!["AF_NETLINK".into(), "SOCK_RAW".into(), "0".into()],
    );
    assert_eq!(t[2], "NETLINK_ROUTE");
}

#[test]
fn special_mode_bits_and_alternate_stacks() {
    assert_eq!(mode(0o41777), "S_IFDIR|S_ISVTX|0777");
    assert_eq!(mode(0o104755), "S_IFREG|S_ISUID|0755");
    assert_eq!(mode(0o100000), "S_IFREG|000");
    let mut st = 0x7f00_0000_1000u64.to_le_bytes().to_vec();
    st.extend(0u64.to_le_bytes());
    st.extend(65536u64.to_le_bytes());
    let raw = [0x7ffd_0000, 0, 0, 0, 0, 0];
    assert_eq!(
        decode("sigaltstack", 0, &call(&raw, 0, Some(&st), None)).unwrap(),
        "{ss_sp=0x7f0000001000, ss_flags=0, ss_size=65536}"
    );
}

#[test]
fn messages_select_epoll_and_rusage_as_strace_prints_them() {
    use crate::memory::{in_index, nested_index, out_index, NESTED_BUFFERS, NESTED_SHOWN};
    // sendto on a NETLINK_ROUTE socket: the message decoded; elsewhere -s of its bytes.
    let mut m = vec![24, 0, 0, 0, 22, 0, 1, 3, 0, 0, 0, 0, 0, 0, 0, 0];
    m.extend([0; 8]);
    let raw = [3, 0x1000, 24, 0, 0, 0];
    let all = vec![(nested_index(false, NESTED_SHOWN), 4u64.to_le_bytes().to_vec())];
    let c = Copied { netlink: true, all: &all, ..call(&raw, 24, Some(&m), None) };
    assert!(decode("sendto", 1, &c).unwrap().starts_with("[{nlmsg_len=24, nlmsg_type=RTM_GETADDR"));
    let c = Copied { netlink: false, ..c };
    assert_eq!(decode("sendto", 1, &c).unwrap(), r#""\30\0\0\0"..."#);
    // writev's iovecs, each with its buffer.
    let iov = words(&[0x1000u64, 3, 0x2000, 4]);
    let all = vec![
        (nested_index(false, NESTED_BUFFERS), b"abc".to_vec()),
        (nested_index(false, NESTED_BUFFERS + 1), b"defg".to_vec()),
    ];
    let raw = [7, 0x500, 2, 0, 0, 0];
    let c = Copied { all: &all, ..call(&raw, 7, Some(&iov), None) };
    assert_eq!(
        decode("writev", 1, &c).unwrap(),
        r#"[{iov_base="abc", iov_len=3}, {iov_base="defg", iov_len=4}]"#
    );
    // pselect6: the set read at entry, and the result with the ready set and the time left.
    let mut set = vec![0u8; 128];
    set[0] = 0b1000;
    let left = words(&[0u64, 999994851]);
    let raw = [4, 0x100, 0, 0, 0x200, 0];
    let all = vec![(in_index(1), set.clone()), (out_index(1), set.clone()), (out_index(4), left)];
    let c = Copied { all: &all, ..call(&raw, 1, Some(&set), None) };
    assert_eq!(decode("pselect6", 1, &c).unwrap(), "[3]");
    assert_eq!(result("pselect6", &c).unwrap(), "1 (in [3], left {tv_sec=0, tv_nsec=999994851})");
    // epoll_wait's events at exit; getrusage's times.
    let ev = [1u32.to_le_bytes().to_vec(), 3u64.to_le_bytes().to_vec()].concat();
    let raw = [5, 0x100, 1023, 1000, 0, 0];
    let c = call(&raw, 1, None, Some(&ev));
    assert_eq!(decode("epoll_wait", 1, &c).unwrap(), "[{events=EPOLLIN, data={u32=3, u64=3}}]");
    // The events after the first come one copy each.
    let second = [4u32.to_le_bytes().to_vec(), 7u64.to_le_bytes().to_vec()].concat();
    let all = vec![(crate::memory::nested_index(true, crate::memory::NESTED_BUFFERS), second)];
    let c = Copied { all: &all, ..call(&raw, 2, None, Some(&ev)) };
    assert_eq!(
        decode("epoll_wait", 1, &c).unwrap(),
        "[{events=EPOLLIN, data={u32=3, u64=3}}, {events=EPOLLOUT, data={u32=7, u64=7}}]"
    );
    let ru = words(&[0u64, 1770, 0, 0]);
    let raw = [0, 0x100, 0, 0, 0, 0];
    assert_eq!(
        decode("getrusage", 1, &call(&raw, 0, None, Some(&ru))).unwrap(),
        "{ru_utime={tv_sec=0, tv_usec=1770}, ru_stime={tv_sec=0, tv_usec=0}, ...}"
    );
}

#[test]
fn ppoll_pselect6_and_epoll_pwait_with_their_masks_as_strace_prints_them() {
    use crate::memory::{in_index, nested_index, out_index, NESTED_SIGSET};
    let usr1 = (1u64 << 9).to_le_bytes().to_vec();
    let ts = words(&[1u64, 0]);
    let left = words(&[0u64, 999996884]);
    let pollfd = [3i32.to_le_bytes().to_vec(), vec![1, 0, 1, 0]].concat();
    let raw = [0x100, 1, 0x200, 0x300, 8, 0];
    let all = vec![
        (in_index(0), pollfd.clone()),
        (out_index(0), pollfd),
        (in_index(2), ts.clone()),
        (out_index(2), left),
        (in_index(3), usr1.clone()),
    ];
    let c = Copied { all: &all, ..call(&raw, 1, Some(&ts), None) };
    assert_eq!(decode("ppoll", 2, &c).unwrap(), "{tv_sec=1, tv_nsec=0}");
    let c = Copied { all: &all, ..call(&raw, 1, Some(&usr1), None) };
    assert_eq!(decode("ppoll", 3, &c).unwrap(), "[USR1]");
    assert_eq!(
        result("ppoll", &c).unwrap(),
        "1 ([{fd=3, revents=POLLIN}], left {tv_sec=0, tv_nsec=999996884})"
    );
    // pselect6's pair: the sigset it points to, and its size.
    let pair = words(&[0x7ffc_0000_0480u64, 8]);
    let all = vec![(nested_index(false, NESTED_SIGSET), usr1.clone())];
    let raw = [4, 0x100, 0, 0, 0x200, 0x300];
    let c = Copied { all: &all, ..call(&raw, 1, Some(&pair), None) };
    assert_eq!(decode("pselect6", 5, &c).unwrap(), "{sigmask=[USR1], sigsetsize=8}");
    let raw = [5, 0x100, 1, 10, 0x300, 8];
    assert_eq!(decode("epoll_pwait", 4, &call(&raw, 1, Some(&usr1), None)).unwrap(), "[USR1]");
}
