# vm-cost: 19
# Nothing stays in the kernel after sonde exits by itself, on Ctrl-C (SIGINT), on SIGTERM or
# when SIGKILLed: the kernel's registered kprobes (debugfs kprobes/list), tracefs'
# kprobe_events and uprobe_events, and every BPF program, map and link (their ids, listed with
# `sonde-workload bpf-ids`) are as they were before. The program holds a kprobe, a kretprobe, a
# uprobe, a uretprobe, an fentry and a kprobe glob, so every kind of attachment is checked.
LIST=/sys/kernel/debug/kprobes/list
T=/sys/kernel/tracing
WL=$(command -v sonde-workload)
PROG="kprobe:__do_sys_getpid { @k = count(); } kretprobe:do_sys_openat2 { @r = count(); }
uprobe:$WL:sonde_workload_target { @u = count(); } uretprobe:$WL:sonde_workload_target { @ur = count(); }
fentry:do_sys_openat2 { @f = count(); } kprobe:vfs_read* { @g = count(); }"

# Everything sonde could leave behind, one line each.
state() {
	echo "kprobes: $(grep -c . "$LIST" 2>/dev/null)"
	echo "kprobe_events: $(grep -c . "$T/kprobe_events")"
	echo "uprobe_events: $(grep -c . "$T/uprobe_events")"
	sonde-workload bpf-ids
}
# The kernel frees BPF objects after an RCU grace period: allow it 5 s to get back to $before.
expect_clean() {
	_vm_check
	n=0
	while [ "$(state)" != "$before" ] && [ $n -lt 50 ]; do
		sleep 0.1
		n=$((n + 1))
	done
	if [ "$(state)" != "$before" ]; then
		fail "after $1, the kernel still holds what sonde made:
--- before
$before
--- after
$(state)"
	fi
}
# Starts sonde in the background (its output in out.$1, err.$1) and waits until it is attached
# and something of it shows in the kernel.
start_sonde() {
	: >"err.$1"
	sonde "$PROG" >"out.$1" 2>"err.$1" &
	pid=$!
	n=0
	while ! grep -q '^Attached' "err.$1" && [ $n -lt 300 ] && kill -0 "$pid" 2>/dev/null; do
		sleep 0.1
		n=$((n + 1))
	done
	_vm_check
	grep -q '^Attached' "err.$1" || fail "sonde never attached ($n waits; $(kill -0 "$pid" 2>/dev/null && echo running || echo exited)): $(cat "err.$1")"
	[ "$(state)" != "$before" ] || fail 'nothing showed up in the kernel while sonde was attached'
}

before=$(state)
note "before: $(echo "$before" | tr '\n' ';')"

run_sonde -c 'sonde-workload getpid 3 ucall 2 openat 1 /nonexistent-sonde' "$PROG"
expect_status 0
expect_line '@k: 3'
expect_line '@u: 2'
expect_line '@ur: 2'
expect_clean 'a normal exit (-c)'

for sig in INT TERM; do
	start_sonde "$sig"
	kill -"$sig" "$pid"
	wait "$pid"
	st=$?
	_vm_check
	[ "$st" = 0 ] || fail "sonde exited $st after SIG$sig: $(cat "err.$sig")"
	grep -q '^@k: ' "out.$sig" || fail "no maps printed after SIG$sig: $(cat "out.$sig")"
	expect_clean "SIG$sig"
done

start_sonde KILL
kill -KILL "$pid"
wait "$pid" 2>/dev/null
expect_clean 'SIGKILL'

# The tracefs events of a run that died (pid 2147483646 does not exist) are removed by the next run.
check 'a dead run'"'"'s kprobe event can be planted' sh -c "echo 'p:sonde/sonde_2147483646_0 do_sys_openat2' >>$T/kprobe_events"
check 'a dead run'"'"'s uprobe event can be planted' sh -c "echo 'p:sonde/sonde_2147483646_1 $WL:0x1000' >>$T/uprobe_events"
run_sonde -c 'sonde-workload getpid 1' 'kprobe:__do_sys_getpid { @ = count(); }'
expect_status 0
check 'the dead run'"'"'s kprobe event is gone' sh -c "! grep -q sonde_2147483646 $T/kprobe_events"
check 'the dead run'"'"'s uprobe event is gone' sh -c "! grep -q sonde_2147483646 $T/uprobe_events"
expect_clean 'a run that removed a dead run'"'"'s events'
