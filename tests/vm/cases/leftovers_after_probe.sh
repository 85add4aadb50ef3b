# vm-cost: 32
# A SIGKILLed `sonde probe` leaves its kprobe and uprobe events (and fprobe events where the
# kernel has them) and its tracefs instance; the next sonde, whichever face it is (`-l`,
# `trace`, `probe --show`, a script), removes them, says so in one line on stderr, and leaves a
# live run's events and other tools' alone.
T=/sys/kernel/tracing
WL=$(command -v sonde-workload)
state() {
	for f in kprobe_events uprobe_events dynamic_events; do
		[ -e "$T/$f" ] && echo "$f: $(grep -c 'sonde_' "$T/$f")"
	done
	echo "instances: $(ls "$T/instances" | tr '\n' ' ')"
	echo "current_tracer: $(cat "$T/current_tracer")"
}
FPROBE=
grep -qF 'f[:[<group>/][<event>]]' "$T/README" 2>/dev/null && FPROBE=1
# SIGKILLs one `sonde probe` with a kprobe, a kretprobe and a uprobe, and one with an fprobe
# where the kernel has them, both running at once (a start cleans up after runs already dead);
# sets $dead to the line's pid list.
kill_probes() {
	start_sonde_until "$1" '^Tracing' probe 'p do_filp_open dfd=%0' 'r do_sys_openat2 r=$retval' \
		"P $WL:sonde_workload_target"
	dead=$BG_PID
	if [ -n "$FPROBE" ]; then
		start_sonde_until "$1.f" '^Tracing' probe --fprobe 'p vfs_read'
		dead="$dead, $BG_PID"
	fi
	for p in $(echo "$dead" | tr -d ,); do
		kill -KILL "$p"
		wait "$p" 2>/dev/null
	done
	[ "$(state)" != "$before" ] || fail "SIGKILL left nothing to clean before $1 (the case proves nothing)"
}
# The state is back to $before after `sonde ARGS`, which said what it removed.
expect_cleaned_by() {
	what=$1
	shift
	_vm_check
	[ "$(state)" = "$before" ] || fail "$what did not clean up after the killed sonde probe:
--- before
$before
--- after
$(state)"
	case "$dead" in
	*,*) expect_stderr_match "^sonde: removed [0-9]+ probe events and [0-9]+ tracefs instances? left by dead sonde runs \\(pids $dead\\)\$" ;;
	*) expect_stderr_match "^sonde: removed [0-9]+ probe events and 1 tracefs instance left by a dead sonde run \\(pid $dead\\)\$" ;;
	esac
}

# Other tools' event, and a live sonde probe's: both must stay.
check 'a foreign kprobe event' sh -c "echo 'p:mine/keep do_sys_openat2' >>$T/kprobe_events"
start_sonde_until live '^Tracing' probe 'p do_sys_openat2'
live=$BG_PID
before=$(state)
note "before: $(echo "$before" | tr '\n' ';')"

kill_probes list
run_sonde -l 'tracepoint:sched:sched_process_exec'
expect_status 0
expect_cleaned_by 'sonde -l'

kill_probes trace
run_sonde trace -o - -e getppid -- sonde-workload getppid 1
expect_status 0
expect_cleaned_by 'sonde trace'

kill_probes show
run_sonde probe --show 'p vfs_read'
expect_status 0
expect_cleaned_by 'sonde probe --show'

kill_probes script
run_sonde -c 'sonde-workload getpid 1' 'tracepoint:syscalls:sys_enter_getpid { @ = count(); }'
expect_status 0
expect_cleaned_by 'a script'

# Last, so that whatever a failed check above left is gone for the cases after this one.
kill_probes kprobe-script
run_sonde -c true 'kprobe:vfs_read { @ = count(); }'
expect_status 0
expect_cleaned_by 'a script that probes functions'

check 'the live sonde probe still runs' kill -0 "$live"
check 'its instance is still there' test -d "$T/instances/sonde-$live"
check 'its event is still there' grep -q "sonde_${live}_" "$T/kprobe_events"
kill -TERM "$live"
wait "$live"
check 'the foreign event is still there' grep -q '^p:mine/keep do_sys_openat2' "$T/kprobe_events"
check 'the foreign event can be removed' sh -c "echo '-:mine/keep' >>$T/kprobe_events"
