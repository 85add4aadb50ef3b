# sonde trace -c aggregates on the BTF-typed raw sys_enter/sys_exit tracepoints where the kernel
# types them (5.10 names their arguments arg0.. only): exact call and error counts per syscall.
run_cmd sonde trace -c -o - -- sonde-workload getppid 17 gettid 9 openat 5 /nonexistent-sonde
expect_status 0
row() { awk -v n="$1" '$1 == n { print $2, $3 }' "$SONDE_OUT_FILE" | head -1; }
check 'getppid: 17 calls, 0 errors' test "$(row getppid)" = '17 0'
check 'gettid: 9 calls, 0 errors' test "$(row gettid)" = '9 0'
# openat also counts the dynamic loader's own opens (some failing): at least the workload's 5.
check 'openat: the 5 failed calls' test "$(row openat | awk '{ print ($1 >= $2 && $2 >= 5) }')" = 1
