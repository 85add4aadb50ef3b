use super::*;

fn words(w: &[u64]) -> Vec<u8> {
    w.iter().flat_map(|v| v.to_le_bytes()).collect()
}

fn nested<'a>(
    name: Option<&'a [u8]>,
    iov: Option<&'a [u8]>,
    buffers: Vec<Option<&[u8]>>,
) -> Nested<'a> {
    let buffers = buffers.into_iter().map(|b| b.map(<[u8]>::to_vec)).collect();
    let (control, namelen_before) = (None, None);
    Nested { name, iov, namelen_before, control, buffers, shown: 32, filled: None, netlink: false }
}

#[test]
fn sendmsg_s_name_and_iovecs() {
    let name = [&[2u8, 0][..], &48256u16.to_be_bytes(), &[127, 0, 0, 1], &[0; 8]].concat();
    let hdr = words(&[0x7ff0_0000_1000, 16, 0x7ff0_0000_2000, 2, 0, 0, 0]);
    let iov = words(&[0x7ff0_0000_3000, 6, 0x7ff0_0000_4000, 5]);
    let n = nested(Some(&name), Some(&iov), vec![Some(b"hello xxx"), Some(b"world")]);
    assert_eq!(
        msghdr(&hdr, &n).unwrap(),
        "{msg_name={sa_family=AF_INET, sin_port=htons(48256), sin_addr=inet_addr(\"127.0.0.1\")}, \
         msg_namelen=16, msg_iov=[{iov_base=\"hello \", iov_len=6}, {iov_base=\"world\", \
         iov_len=5}], msg_iovlen=2, msg_controllen=0, msg_flags=0}"
    );
}

#[test]
fn recvmsg_peeking_at_a_netlink_socket() {
    let name = [&[16u8, 0, 0, 0][..], &[0; 8]].concat();
    let hdr = words(&[0x7ff0_0000_1000, 12, 0x7ff0_0000_2000, 1, 0, 0, 0x20]);
    let iov = words(&[0, 0]);
    let n = Nested { filled: Some(2952), netlink: true, ..nested(Some(&name), Some(&iov), vec![]) };
    assert_eq!(
        msghdr(&hdr, &n).unwrap(),
        "{msg_name={sa_family=AF_NETLINK, nl_pid=0, nl_groups=00000000}, msg_namelen=12, \
         msg_iov=[{iov_base=NULL, iov_len=0}], msg_iovlen=1, msg_controllen=0, msg_flags=MSG_TRUNC}"
    );
}

#[test]
fn readv_shows_what_its_result_filled_and_writev_its_lengths() {
    let iov = words(&[0x1000, 2, 0x2000, 5, 0x3000, 4]);
    let read = Nested {
        filled: Some(7),
        ..nested(None, None, vec![Some(b"ab"), Some(b"cdefgXYZ"), Some(b"zz")])
    };
    assert_eq!(
        iovec(&iov, 3, &read),
        "[{iov_base=\"ab\", iov_len=2}, {iov_base=\"cdefg\", iov_len=5}, {iov_base=\"\", iov_len=4}]"
    );
    let long = [b'x'; 40];
    let write = nested(None, None, vec![Some(&long)]);
    let iov = words(&[0x1000, 40]);
    assert_eq!(
        iovec(&iov, 1, &write),
        format!("[{{iov_base=\"{}\"..., iov_len=40}}]", "x".repeat(32))
    );
}

#[test]
fn ancillary_data_passing_fds_and_credentials() {
    let hdr = words(&[0, 0, 0x7ff0_0000_2000, 1, 0x7ff0_0000_5000, 24, 0]);
    let iov = words(&[0x7ff0_0000_3000, 1]);
    let rights =
        [words(&[20]), vec![1, 0, 0, 0, 1, 0, 0, 0], 5i32.to_le_bytes().to_vec(), vec![0; 4]]
            .concat();
    let n = Nested { control: Some(&rights), ..nested(None, Some(&iov), vec![Some(b"x")]) };
    assert_eq!(
        msghdr(&hdr, &n).unwrap(),
        "{msg_name=NULL, msg_namelen=0, msg_iov=[{iov_base=\"x\", iov_len=1}], msg_iovlen=1, \
         msg_control=[{cmsg_len=20, cmsg_level=SOL_SOCKET, cmsg_type=SCM_RIGHTS, cmsg_data=[5]}], \
         msg_controllen=24, msg_flags=0}"
    );
    // recvmsg: a name buffer the call filled with nothing.
    let hdr = words(&[0x7ffe_c398_a730, 0, 0x7ff0_0000_2000, 1, 0, 0, 0]);
    let n = Nested { namelen_before: Some(110), ..nested(None, Some(&iov), vec![Some(b"x")]) };
    assert!(
        msghdr(&hdr, &n).unwrap().starts_with("{msg_name=0x7ffec398a730, msg_namelen=110 => 0, "),
        "{:?}",
        msghdr(&hdr, &n)
    );
    let creds = [words(&[28]), vec![1, 0, 0, 0, 2, 0, 0, 0], words(&[1965]), vec![0; 12]].concat();
    assert_eq!(
        cmsgs(&creds, 32),
        "[{cmsg_len=28, cmsg_level=SOL_SOCKET, cmsg_type=SCM_CREDENTIALS, cmsg_data={pid=1965, uid=0, gid=0}}]"
    );
}
