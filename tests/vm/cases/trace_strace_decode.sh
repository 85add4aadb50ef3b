# vm-cost: 14
# sonde trace --strace decodes structs and buffers from the memory its program copies, with
# bounded loops for execve's arrays and getdents' entries: the verifier of each kernel takes the
# program, and the uapi layouts read back as strace prints them.
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
