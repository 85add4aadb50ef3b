# `sonde probe` leaves kprobe_events, uprobe_events and instances/ as they were after SIGTERM and
# SIGINT; after SIGKILL the next run removes what the dead one left (and only that).
T=/sys/kernel/tracing
WL=$(command -v sonde-workload)
state() {
	echo "kprobe_events: $(grep -c . "$T/kprobe_events")"
	echo "uprobe_events: $(grep -c . "$T/uprobe_events")"
	echo "instances: $(ls "$T/instances" | tr '\n' ' ')"
}
start() {
	: >"err.$1"
	sonde probe 'p do_filp_open dfd=%0' 'r do_sys_openat2 r=$retval' "P $WL:sonde_workload_target" \
		'e sched/sched_process_exec' >"out.$1" 2>"err.$1" &
	pid=$!
	n=0
	while ! grep -q '^Tracing' "err.$1" && [ $n -lt 600 ] && kill -0 "$pid" 2>/dev/null; do
		sleep 0.1
		n=$((n + 1))
	done
	_vm_check
	grep -q '^Tracing' "err.$1" || fail "sonde probe never started: $(cat "err.$1")"
	[ "$(state)" != "$before" ] || fail 'nothing showed in tracefs while sonde probe ran'
}
# A foreign event sonde must never touch.
check 'a foreign kprobe event' sh -c "echo 'p:mine/keep do_sys_openat2' >>$T/kprobe_events"
before=$(state)
for sig in TERM INT; do
	start "$sig"
	kill -"$sig" "$pid"
	wait "$pid"
	st=$?
	_vm_check
	[ "$st" = 0 ] || fail "exit $st after SIG$sig: $(cat "err.$sig")"
	[ "$(state)" = "$before" ] || fail "after SIG$sig: $(state)"
done
start KILL
kill -KILL "$pid"
wait "$pid" 2>/dev/null
[ "$(state)" != "$before" ] || fail 'SIGKILL left nothing to clean (the test proves nothing)'
start next
kill -TERM "$pid"
wait "$pid"
_vm_check
[ "$(state)" = "$before" ] || fail "the next run did not remove the killed run's leftovers: $(state)"
grep -q '^p:mine/keep do_sys_openat2' "$T/kprobe_events" || fail 'the foreign event was removed'
check 'the foreign event can be removed' sh -c "echo '-:mine/keep' >>$T/kprobe_events"
