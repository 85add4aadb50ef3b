# rawtracepoint:NAME (tp_btf): a tracepoint's C arguments typed from BTF. Names come from the
# kernel's probe stub (__probestub_NAME, 6.4+) or its class function (__bpf_trace_NAME); an event
# of a shared class on an older kernel has typed arguments named arg0.. (sched_wakeup on 5.10).
run_sonde -c 'sonde-workload getppid 17 gettid 9' 'rawtracepoint:sys_enter /pid == cpid/ { @[args->id] = count(); }'
expect_status 0
expect_map '@[110]' 17
expect_map '@[186]' 9
run_sonde -c 'sonde-workload comm wl_rtp sleep 1 sleep 1 sleep 1' 'rt:vmlinux:sched_switch /args->next->pid == cpid/ { @[args->next->comm] = count(); }'
expect_status 0
n=$(map_value '@[wl_rtp]') || n=0
[ "${n:-0}" -ge 3 ] || fail "sched_switch saw the workload switched in $n times, expected at least 3"
# sched_wakeup: arg0 is the woken task on every kernel, by whatever name.
run_sonde -c 'sonde-workload comm wl_rtw sleep 1 sleep 1' 'rawtracepoint:sched_wakeup /((struct task_struct *)arg0)->pid == cpid/ { @n = count(); }'
expect_status 0
n=$(map_value '@n') || n=0
[ "${n:-0}" -ge 2 ] || fail "sched_wakeup saw the workload woken $n times, expected at least 2"
run_sonde -lv 'rawtracepoint:sched_switch'
expect_status 0
expect_match 'struct task_struct \* args->next'
