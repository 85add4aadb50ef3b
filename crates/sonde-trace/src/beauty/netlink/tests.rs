use super::*;

fn header(len: u32, ty: u16, flags: u16, seq: u32, pid: u32) -> Vec<u8> {
    [
        &len.to_le_bytes()[..],
        &ty.to_le_bytes(),
        &flags.to_le_bytes(),
        &seq.to_le_bytes(),
        &pid.to_le_bytes(),
    ]
    .concat()
}

fn attr(ty: u16, value: &[u8]) -> Vec<u8> {
    let len = 4 + value.len();
    let mut a = [&(len as u16).to_le_bytes()[..], &ty.to_le_bytes(), value].concat();
    a.resize((len + 3) & !3, 0);
    a
}

#[test]
fn ip_addr_s_link_request() {
    let m =
        [header(40, 18, 0x301, 1795662542, 0), vec![0; 16], attr(29, &1u32.to_le_bytes())].concat();
    assert_eq!(
        messages(&m, 40).unwrap(),
        "[{nlmsg_len=40, nlmsg_type=RTM_GETLINK, nlmsg_flags=NLM_F_REQUEST|NLM_F_DUMP, \
         nlmsg_seq=1795662542, nlmsg_pid=0}, {ifi_family=AF_UNSPEC, ifi_type=ARPHRD_NETROM, \
         ifi_index=0, ifi_flags=0, ifi_change=0}, [{nla_len=8, nla_type=IFLA_EXT_MASK}, \
         RTEXT_FILTER_VF]]"
    );
}

#[test]
fn ip_addr_s_address_request_in_a_longer_buffer() {
    let mut m = [header(24, 22, 0x301, 1795662543, 0), vec![0; 8]].concat();
    m.resize(152, 0);
    assert_eq!(
        messages(&m, 152).unwrap(),
        "[[{nlmsg_len=24, nlmsg_type=RTM_GETADDR, nlmsg_flags=NLM_F_REQUEST|NLM_F_DUMP, \
         nlmsg_seq=1795662543, nlmsg_pid=0}, {ifa_family=AF_UNSPEC, ifa_prefixlen=0, ifa_flags=0, \
         ifa_scope=RT_SCOPE_UNIVERSE, ifa_index=0}], {nlmsg_len=0, nlmsg_type=0 /* NLMSG_??? */, \
         nlmsg_flags=0, nlmsg_seq=0, nlmsg_pid=0}]"
    );
}

#[test]
fn done_and_addresses() {
    let done = [header(20, 3, 2, 1795662542, 26856), vec![0; 4]].concat();
    assert_eq!(
        messages(&done, 20).unwrap(),
        "[{nlmsg_len=20, nlmsg_type=NLMSG_DONE, nlmsg_flags=NLM_F_MULTI, nlmsg_seq=1795662542, \
         nlmsg_pid=26856}, 0]"
    );
    let cache: Vec<u8> =
        [u32::MAX, u32::MAX, 17, 17].iter().flat_map(|v| v.to_le_bytes()).collect();
    let body = [
        vec![libc::AF_INET as u8, 8, 0x80, 254],
        1u32.to_le_bytes().to_vec(),
        attr(1, &[127, 0, 0, 1]),
        attr(3, b"lo\0"),
        attr(8, &0x80u32.to_le_bytes()),
        attr(6, &cache),
    ]
    .concat();
    let m = [header(16 + body.len() as u32, 20, 2, 7, 9), body].concat();
    let lo = index(1);
    assert_eq!(
        messages(&m, m.len()).unwrap(),
        format!(
            "[{{nlmsg_len=68, nlmsg_type=RTM_NEWADDR, nlmsg_flags=NLM_F_MULTI, nlmsg_seq=7, \
             nlmsg_pid=9}}, {{ifa_family=AF_INET, ifa_prefixlen=8, ifa_flags=IFA_F_PERMANENT, \
             ifa_scope=RT_SCOPE_HOST, ifa_index={lo}}}, [[{{nla_len=8, nla_type=IFA_ADDRESS}}, \
             inet_addr(\"127.0.0.1\")], [{{nla_len=7, nla_type=IFA_LABEL}}, \"lo\"], [{{nla_len=8, \
             nla_type=IFA_FLAGS}}, IFA_F_PERMANENT], [{{nla_len=20, nla_type=IFA_CACHEINFO}}, \
             {{ifa_prefered=4294967295, ifa_valid=4294967295, cstamp=17, tstamp=17}}]]]"
        )
    );
    assert!(lo == "1" || lo == "if_nametoindex(\"lo\")", "{lo}");
    assert_eq!(messages(&[0; 8], 8), None, "less than a header");
}
