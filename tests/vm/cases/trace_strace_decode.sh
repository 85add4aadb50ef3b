# vm-cost: 14
# sonde trace --strace decodes structs and buffers from the memory its program copies, with
# loops for execve's arrays, getdents' entries and iovecs (bpf_loop callbacks on 6.1 and 6.12,
# bounded loops on 5.10): the verifier of each kernel takes the program, and the uapi layouts
# read back as strace prints them.
run_cmd sonde trace --strace -o - -- sonde-workload openat 1 /etc/hostname read 1 10 connect 1 9 sleep 1 fork wl_kid
expect_status 0
has() { grep -qF -- "$1" "$SONDE_OUT_FILE"; }
check 'execve: argv and the count of envp' has ', "openat", "1", "/etc/hostname", "read", "1", "10",'
check 'execve: envp counted' grep -q 'vars \*/) = 0$' "$SONDE_OUT_FILE"
check 'read: the bytes read' has 'read(3, "\0\0\0\0\0\0\0\0\0\0", 10) = 10'
check 'connect: the sockaddr' has 'connect(3, {sa_family=AF_INET, sin_port=htons(9), sin_addr=inet_addr("127.0.0.1")}, 16) = 0'
check 'nanosleep: the timespec' has 'nanosleep({tv_sec=0, tv_nsec=1000000}, 0x'
check 'wait4: the status' has '[{WIFEXITED(s) && WEXITSTATUS(s) == 0}], 0, NULL) = '
check 'prctl: the name' has 'prctl(PR_SET_NAME, "wl_kid") = 0'
run_cmd sonde trace --strace -o - -e getdents64,newfstatat,fstat,statx -- busybox ls -l /
expect_status 0
check 'getdents64: entries counted' grep -q 'getdents64(3, 0x[0-9a-f]* /\* [1-9][0-9]* entries \*/, ' "$SONDE_OUT_FILE"
# msghdrs lead to their name, iovecs and buffers (nested copies, a chunked first buffer), decoded
# as netlink messages on the NETLINK_ROUTE socket the trace saw created: traced with every
# syscall (raw tracepoints) and on recvmsg's own tracepoints.
run_cmd sonde trace --strace -o - -- busybox ip addr
expect_status 0
check 'recvmsg: the msghdr and its name' has 'recvmsg(3, {msg_name={sa_family=AF_NETLINK, nl_pid=0, nl_groups=00000000}, msg_namelen=12, msg_iov=[{iov_base=['
check 'recvmsg: netlink messages' has 'nlmsg_type=NLMSG_DONE, nlmsg_flags=NLM_F_MULTI'
check 'recvmsg: address messages' has 'nlmsg_type=RTM_NEWADDR, nlmsg_flags=NLM_F_MULTI'
run_cmd sonde trace --strace -o - -e socket,recvmsg -- busybox ip addr
expect_status 0
check 'recvmsg on its own tracepoints' has 'nlmsg_type=NLMSG_DONE, nlmsg_flags=NLM_F_MULTI'
