# kprobe on a syscall function counts exactly the workload's getpid() calls.
run_sonde -c 'sonde-workload getpid 100' 'kprobe:__do_sys_getpid /pid == cpid/ { @n = count(); }'
expect_status 0
expect_map '@n' 100
