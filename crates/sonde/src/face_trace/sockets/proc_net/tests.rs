use super::*;

const TCP: &str = "  sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode
   0: 0100007F:1F90 00000000:0000 0A 00000000:00000000 00:00000000 00000000     0        0 40001 1 0000000000000000 100 0 0 10 0
   1: 0100007F:9C40 0100007F:1F90 01 00000000:00000000 00:00000000 00000000     0        0 40002 1 0000000000000000 20 4 30 10 -1
   2: 00000000:0016 00000000:0000 0A 00000000:00000000 00:00000000 00000000     0        0 40003 1 0000000000000000 100 0 0 10 0
";

const TCP6: &str = "  sl  local_address                         remote_address                        st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode
   0: 00000000000000000000000001000000:0016 00000000000000000000000000000000:0000 0A 00000000:00000000 00:00000000 00000000     0        0 50001 1 0000000000000000 100 0 0 10 0
   1: 00000000000000000000000001000000:C350 00000000000000000000000001000000:0016 01 00000000:00000000 00:00000000 00000000     0        0 50002 1 0000000000000000 20 4 30 10 -1
   2: 0000000000000000FFFF00000100007F:1F90 0000000000000000FFFF00000100007F:9C40 01 00000000:00000000 00:00000000 00000000     0        0 50003 1 0000000000000000 20 4 30 10 -1
   3: 00000000000000000000000004030201:0035 00000000000000000000000000000000:0000 07 00000000:00000000 00:00000000 00000000     0        0 50004 2 0000000000000000 0
";

const UDP: &str = "   sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode ref pointer drops
  100: 0100007F:14E9 00000000:0000 07 00000000:00000000 00:00000000 00000000     0        0 60001 2 0000000000000000 0
  101: 0100007F:D0EE 0100007F:14E9 01 00000000:00000000 00:00000000 00000000     0        0 60002 2 0000000000000000 0
";

const UNIX: &str = "Num       RefCount Protocol Flags    Type St Inode Path
0000000000000000: 00000002 00000000 00010000 0001 01 70001 /run/foo.sock
0000000000000000: 00000003 00000000 00000000 0001 03 70002
0000000000000000: 00000002 00000000 00010000 0001 01 70003 @abs x
0000000000000000: 00000002 00000000 00010000 0001 01 70004 /tmp/a b
";

const NETLINK: &str =
    "sk               Eth Pid        Groups   Rmem     Wmem     Dump  Locks    Drops    Inode
0000000000000000 0   1234       00000000 0        0        0     2        0        80001
0000000000000000 4   0          00000000 0        0        0     2        0        80002
0000000000000000 99  77         00000000 0        0        0     2        0        80003
";

#[test]
fn tcp_listener_and_connection_as_strace_spells_them() {
    assert_eq!(inet(TCP, 40001).as_deref(), Some("127.0.0.1:8080"));
    assert_eq!(inet(TCP, 40002).as_deref(), Some("127.0.0.1:40000->127.0.0.1:8080"));
    assert_eq!(inet(TCP, 40003).as_deref(), Some("0.0.0.0:22"));
    assert_eq!(inet(TCP, 4), None);
    assert!(listening(TCP, 40001));
    assert!(!listening(TCP, 40002));
}

#[test]
fn tcp6_addresses_in_brackets_as_inet_ntop_writes_them() {
    assert_eq!(inet(TCP6, 50001).as_deref(), Some("[::1]:22"));
    assert_eq!(inet(TCP6, 50002).as_deref(), Some("[::1]:50000->[::1]:22"));
    assert_eq!(
        inet(TCP6, 50003).as_deref(),
        Some("[::ffff:127.0.0.1]:8080->[::ffff:127.0.0.1]:40000")
    );
    assert_eq!(inet(TCP6, 50004).as_deref(), Some("[::1.2.3.4]:53"));
}

#[test]
fn udp_bound_and_connected() {
    assert_eq!(inet(UDP, 60001).as_deref(), Some("127.0.0.1:5353"));
    assert_eq!(inet(UDP, 60002).as_deref(), Some("127.0.0.1:53486->127.0.0.1:5353"));
}

#[test]
fn unix_paths_with_spaces_and_abstract_names() {
    assert_eq!(unix_path(UNIX, 70001).as_deref(), Some("/run/foo.sock"));
    assert_eq!(unix_path(UNIX, 70002), None);
    assert_eq!(unix_path(UNIX, 70003).as_deref(), Some("@abs x"));
    assert_eq!(unix_path(UNIX, 70004).as_deref(), Some("/tmp/a b"));
    assert_eq!(unix_path(UNIX, 1), None);
}

#[test]
fn netlink_protocol_names_without_their_prefix() {
    assert_eq!(netlink(NETLINK, 80001).as_deref(), Some("ROUTE:1234"));
    assert_eq!(netlink(NETLINK, 80002).as_deref(), Some("SOCK_DIAG:0"));
    assert_eq!(netlink(NETLINK, 80003).as_deref(), Some("99:77"));
    assert_eq!(netlink(NETLINK, 1), None);
}

#[test]
fn malformed_tables_find_nothing() {
    assert_eq!(inet("header\n 0: zz:1 00:00 0A a b c d e 40001\n", 40001), None);
    assert_eq!(inet("", 1), None);
    assert_eq!(unix_path("h\n0: 1 2\n", 2), None);
    assert_eq!(netlink("h\n0 x\n", 0), None);
}
