# sonde trace's strace flags on each kernel: -P chosen in the kernel (every syscall on the raw
# tracepoints, and a few on their own), -X and -Y spellings, -v's struct stat, -k's frames,
# -ff's files, and -c's table shaped by -U and -S.
for e in '' 'openat,close,mmap,write'; do
    if [ -n "$e" ]; then set -- -e "$e"; else set --; fi
    run_cmd sonde trace --strace -qq -o - -P /etc/hostname "$@" -- sonde-workload openat-cold /etc/hostname openat-cold /etc/passwd openat 1 /etc/hostname
    expect_status 0
    check "-P ${e:-(every syscall)}: the opens of the path and their closes only" test "$(grep -c . "$SONDE_OUT_FILE")" = 4
    check "-P ${e:-(every syscall)}: the cold path decided at the exit" test "$(grep -c '^openat(AT_FDCWD, "/etc/hostname", O_RDONLY) = [0-9]*$' "$SONDE_OUT_FILE")" = 2
    check "-P ${e:-(every syscall)}: the fds closed" test "$(grep -c '^close([0-9]*) *= 0$' "$SONDE_OUT_FILE")" = 2
done

run_cmd sonde trace --strace -qq -o - -X verbose -e openat,kill -- sonde-workload openat 1 /etc/hostname kill 1 0
expect_status 0
check '-X verbose: numbers and names' grep -q '^openat(-100 /\* AT_FDCWD \*/, "/etc/hostname", 0 /\* O_RDONLY \*/) = [0-9]' "$SONDE_OUT_FILE"
run_cmd sonde trace --strace -qq -o - -X raw -e openat -- sonde-workload openat 1 /etc/hostname
check '-X raw: numbers' grep -q '^openat(-100, "/etc/hostname", 0) = [0-9]' "$SONDE_OUT_FILE"

run_cmd sonde trace --strace -qq -o - -Y -e getpid -- sonde-workload comm ywork getpid 1
expect_status 0
check '-Y: the comm beside the pid' grep -q '^getpid() = [0-9]*<ywork>$' "$SONDE_OUT_FILE"

run_cmd sonde trace --strace -qq -o - -v -e fstat,newfstatat -- sonde-workload openat 1 /etc/hostname
expect_status 0
check '-v: struct stat whole' grep -q 'st_ino=[0-9]*, st_mode=S_IF.*st_ctime_nsec=[0-9]*}' "$SONDE_OUT_FILE"

# The frames are named from the mappings when the records are read: the process must still run.
run_cmd sonde trace --strace -qq -o - -k -e getpid -- sonde-workload getpid 1 sleep 5000
expect_status 0
check "-k: the caller's frame as strace names it" grep -q '^ > /.*libc\.so\.6(syscall+0x[0-9a-f]*) \[0x[0-9a-f]*\]$' "$SONDE_OUT_FILE"

dir=$(mktemp -d)
run_cmd sonde trace --strace -ff -o "$dir/out" -e getpid,prctl -- sonde-workload getpid 1 fork kid
expect_status 0
check '-ff: a file per task' test "$(ls "$dir" | grep -c '^out\.[0-9]*$')" = 2
check "-ff: the child's calls in its own file, without [pid N]" grep -lq '^prctl(PR_SET_NAME, "kid") = 0$' "$dir"/out.*
rm -rf "$dir"

run_cmd sonde trace -c -o - -U name,calls,errors -S calls -- sonde-workload getpid 5 lseek 3
expect_status 0
check "-U: strace's header" test "$(head -1 "$SONDE_OUT_FILE")" = 'syscall              calls    errors'
check '-U/-S: getpid with its 5 calls' grep -qx 'getpid                   5          ' "$SONDE_OUT_FILE"
check '-U/-S: lseek with its 3 failures' grep -qx 'lseek                    3         3' "$SONDE_OUT_FILE"
