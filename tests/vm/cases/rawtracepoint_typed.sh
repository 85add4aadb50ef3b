# rawtracepoint:NAME (tp_btf): a tracepoint's C arguments typed from BTF. Names come from the
# kernel's probe stub (__probestub_NAME, 6.4+) or its class function (__bpf_trace_NAME); 5.10's
# BTF has neither (they are notrace, which its pahole left out), so there the arguments are typed
# but named arg0, arg1...
if sonde -lv 'rawtracepoint:sys_enter' | grep -q 'args->id$'; then
	id='args->id' next='args->next'
else
	note "$(uname -r): BTF names no raw tracepoint argument: arg0.. only"
	id='arg1' next='arg2'
	run_sonde 'rawtracepoint:sched_switch { @[args->next] = count(); }'
	expect_status 2
	expect_stderr_match 'its fields are: arg0, arg1, arg2'
fi
run_sonde -c 'sonde-workload getppid 17 gettid 9' "rawtracepoint:sys_enter /pid == cpid/ { @[$id] = count(); }"
expect_status 0
expect_map '@[110]' 17
expect_map '@[186]' 9
# sched_switch's third argument is the `struct task_struct *` switched to, named or not.
run_sonde -c 'sonde-workload comm wl_rtp sleep 1 sleep 1 sleep 1' "rt:vmlinux:sched_switch /$next->pid == cpid/ { @[$next->comm] = count(); }"
expect_status 0
n=$(map_value '@[wl_rtp]') || n=0
[ "${n:-0}" -ge 3 ] || fail "sched_switch saw the workload switched in $n times, expected at least 3"
# sched_wakeup (an event of a shared class): arg0 is the woken task on every kernel.
run_sonde -c 'sonde-workload comm wl_rtw sleep 1 sleep 1' 'rawtracepoint:sched_wakeup /arg0->pid == cpid/ { @n = count(); }'
expect_status 0
n=$(map_value '@n') || n=0
[ "${n:-0}" -ge 2 ] || fail "sched_wakeup saw the workload woken $n times, expected at least 2"
run_sonde -lv 'rawtracepoint:sched_switch'
expect_status 0
expect_match '^    struct task_struct \* args->(next|arg2)$'
