# bpftrace 0.24-0.26's spellings that need kprobes: a probe on an absolute kernel address (with
# --unsafe; `probe` names it by the address), is_err() of a kretprobe's ERR_PTR return, and
# container_of() from a member's pointer back to its task_struct.
addr=$(awk '$3 == "__do_sys_getpid" && $2 ~ /^[tT]$/ { print $1; exit }' /proc/kallsyms | sed 's/^0*//')
run_sonde --unsafe -c 'sonde-workload getpid 100' "kprobe:0x$addr /pid == cpid/ { @n = count(); @p[probe] = count(); }"
expect_status 0
expect_map '@n' 100
expect_line "@p[kprobe:0x$addr]: 100"
run_sonde -e "kprobe:0x$addr { }"
expect_status 2
expect_stderr_match 'needs --unsafe'
# do_filp_open returns ERR_PTR(-ENOENT) for each missing path.
run_sonde -c 'sonde-workload comm wl_enoent openat 5 /nonexistent-sonde' 'kretprobe:do_filp_open /comm == "wl_enoent"/ { @e[is_err(retval)] = count(); @n[(int64)retval] = count(); }'
expect_status 0
expect_line '@e[true]: 5'
expect_line '@n[-2]: 5'
run_sonde -c 'sonde-workload getpid 10' 'kprobe:__do_sys_getpid /pid == cpid/ { $p = (struct list_head *)((uint64)curtask + offsetof(struct task_struct, tasks)); $t = container_of($p, struct task_struct, tasks); @same[$t == curtask, $t.pid == tid] = count(); }'
expect_status 0
expect_line '@same[1, 1]: 10'
