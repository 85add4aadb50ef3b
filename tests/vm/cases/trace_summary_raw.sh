# vm-cost: 10
# sonde trace -c aggregates on the BTF-typed raw sys_enter/sys_exit tracepoints where the kernel
# types them (5.10 names their arguments arg0.. only): exact call and error counts per syscall;
# then lines on the same tracepoints.
run_cmd sonde trace -c -o - -- sonde-workload getppid 17 gettid 9 openat 5 /nonexistent-sonde
expect_status 0
row() { awk -v n="$1" '$1 == n { print $2, $3 }' "$SONDE_OUT_FILE" | head -1; }
check 'getppid: 17 calls, 0 errors' test "$(row getppid)" = '17 0'
check 'gettid: 9 calls, 0 errors' test "$(row gettid)" = '9 0'
# openat also counts the dynamic loader's own opens (some failing): at least the workload's 5.
check 'openat: the 5 failed calls' test "$(row openat | awk '{ print ($1 >= $2 && $2 >= 5) }')" = 1

# A full table: tables of 2 rows, the workload's first call owns its CPU's rows, its 6 children's
# prctls need a row each: 4 calls not counted, said, and a failed run.
set=prctl,getppid,gettid,vhangup,acct,swapon,swapoff,syncfs,pivot_root
run_cmd sonde trace -c -o - -e "$set" --summary-rows 2 -- sonde-workload cpu 0 getppid 3 fork a fork a fork a fork a fork a fork a
expect_status 1
check 'the calls not counted, said' grep -qx "sonde: 4 calls not counted: the summary's table of 2 (thread, syscall) rows was full" "$SONDE_ERR_FILE"
# The total's row comes last.
check 'the counted ones: 2 prctl' test "$(awk '$1 == "prctl" { r = $2 } END { print r }' "$SONDE_OUT_FILE")" = 2

# Lines on the same raw tracepoints (every syscall: the arguments from the registers), with the
# command's fate as strace prints it (siginfo and exit codes read through BTF), its exit status,
# and a path whose page the call itself faults in, read again at the exit.
run_cmd sonde trace --strace -o - -- sonde-workload getppid 3 catch 10 raise 10 openat-cold /etc/hostname exit 3
expect_status 3
check 'three getppid lines' test "$(grep -c '^getppid() = ' "$SONDE_OUT_FILE")" = 3
check 'the handled signal, as strace prints it' grep -q '^--- SIGUSR1 {si_signo=SIGUSR1, si_code=SI_USER, si_pid=[0-9]*, si_uid=0} ---$' "$SONDE_OUT_FILE"
check 'the exit, as strace prints it' grep -q '^+++ exited with 3 +++$' "$SONDE_OUT_FILE"
check 'the cold path read again at exit' grep -q '^openat(AT_FDCWD, "/etc/hostname", O_RDONLY) = [0-9]' "$SONDE_OUT_FILE"
check 'the return from the handler, as strace prints it' grep -q '^rt_sigreturn({mask=\[\]}) = 0$' "$SONDE_OUT_FILE"
