# Nothing stays registered after sonde exits, is interrupted or is killed: the kernel's own list of
# kprobes (kprobes/list in debugfs) and tracefs' kprobe_events/uprobe_events are checked.
LIST=/sys/kernel/debug/kprobes/list
registered() { grep -c 'do_sys_openat2\|__do_sys_getpid' "$LIST" 2>/dev/null || true; }
before=$(registered)
run_sonde -c 'sonde-workload getpid 3' 'kprobe:__do_sys_getpid { @ = count(); } kretprobe:do_sys_openat2 { @r = count(); }'
expect_status 0
[ "$(registered)" = "$before" ] || fail "kprobes left after a normal exit: $(cat $LIST)"
run_sonde_for 1 'kprobe:__do_sys_getpid { @ = count(); }'
[ "$(registered)" = "$before" ] || fail "kprobes left after SIGTERM: $(cat $LIST)"
sonde 'kprobe:__do_sys_getpid { @ = count(); } kretprobe:do_sys_openat2 { @r = count(); }' >/dev/null 2>&1 &
pid=$!
sleep 1
[ "$(registered)" != "$before" ] || fail 'the probes never showed up in kprobes/list while sonde ran'
kill -9 "$pid"
wait "$pid" 2>/dev/null
sleep 0.2
[ "$(registered)" = "$before" ] || fail "kprobes left after SIGKILL: $(cat $LIST)"
check 'no sonde kprobe_events' sh -c '! grep -q sonde /sys/kernel/tracing/kprobe_events'
check 'no sonde uprobe_events' sh -c '! grep -q sonde /sys/kernel/tracing/uprobe_events'
