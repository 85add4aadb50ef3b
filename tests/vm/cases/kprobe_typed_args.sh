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
