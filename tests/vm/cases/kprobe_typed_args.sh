# vm-cost: 12
# arg0 typed from BTF: wake_up_new_task(struct task_struct *p) prints the new task's comm and pid.
# The child is forked by a workload named wl_parent, so the new task's comm is wl_parent.
run_sonde -c 'sonde-workload comm wl_parent fork wl_child' \
	'kprobe:wake_up_new_task /arg0->comm == "wl_parent"/ { printf("%s %d %d\n", arg0->comm, arg0->pid, arg0->tgid == arg0->pid); }'
expect_status 0
expect_match '^wl_parent [0-9]+ 1$'
# A cast to a kernel type works the same way, and a missing member is a clear error.
run_sonde -c 'sonde-workload comm wl_parent fork wl_child' \
	'kprobe:wake_up_new_task /((struct task_struct *)arg0)->comm == "wl_parent"/ { @n = count(); }'
expect_status 0
expect_map '@n' 1
run_sonde 'kprobe:wake_up_new_task { printf("%d\n", arg0->pidd); }'
expect_status 2
expect_stderr_match 'has no member `pidd`'
expect_stderr_match 'pid'
# Members of every shape, resolved from this kernel's BTF (offsets differ between 6.1 and 6.12):
# an enum and a pointer in a struct in an anonymous union, a function pointer as a symbol, an
# element of a flexible array of structs, a one-bit bitfield, a u32, a char of a char array.
# (crates/sonde/tests/probes.rs has the same program on the host's kernel.)
run_sonde -c 'sonde-workload comm wl_mem reset-on-fork personality 262144 sleep 1' \
	'tracepoint:syscalls:sys_exit_nanosleep /pid == cpid/ { printf("%d %d %s %d %d %d %c\n", curtask->restart_block.nanosleep.type, curtask->restart_block.nanosleep.rmtp != 0, ksym(curtask->restart_block.fn), curtask->thread_pid->numbers[0].nr == tid, curtask->sched_reset_on_fork, curtask->personality, curtask->comm[3]); }'
expect_status 0
expect_line '1 1 do_no_restart_syscall 1 1 262144 m'
# Through a kprobe's typed argument, wake_up_new_task(struct task_struct *p): a pointer chain to
# the parent, and the bitfield set in the parent and cleared in the child (what "reset on fork"
# means).
run_sonde -c 'sonde-workload comm wl_rof reset-on-fork fork wl_child' \
	'kprobe:wake_up_new_task /arg0->real_parent->comm == "wl_rof"/ { printf("%s %d %d\n", arg0->real_parent->comm, arg0->real_parent->sched_reset_on_fork, arg0->sched_reset_on_fork); }'
expect_status 0
expect_line 'wl_rof 1 0'
