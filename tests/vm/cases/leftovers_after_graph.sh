# A SIGKILLed `sonde graph` leaves the function tracer on (current_tracer, set_graph_function,
# set_ftrace_pid, funcgraph-* options, max_graph_depth) or an instance of its own; the next
# sonde, whichever face it is (`-l`, `trace`, `probe --show`, a script), puts every setting back
# from the run's record, removes the instance, and says so in one line on stderr.
# vm-timeout: 600
# vm-cost: 136
T=/sys/kernel/tracing
if ! grep -qw function_graph "$T/available_tracers"; then
	note "skipped: $(uname -r) has no function_graph tracer"
	run_sonde -l 'tracepoint:sched:sched_process_exec'
	expect_status 0
	exit 0
fi
settings() {
	for f in current_tracer set_graph_function set_ftrace_pid set_ftrace_notrace_pid max_graph_depth tracing_on options/funcgraph-proc options/funcgraph-cpu options/funcgraph-tail options/funcgraph-abstime options/function-fork events/sched/sched_process_exec/enable; do
		[ -e "$T/$f" ] && printf '%s: %s\n' "$f" "$(tr '\n' ' ' <"$T/$f")"
	done
	echo "instances: $(ls "$T/instances" | tr '\n' ' ')"
	for f in kprobe_events uprobe_events dynamic_events; do
		[ -e "$T/$f" ] && echo "$f: $(grep -c 'sonde_' "$T/$f")"
	done
	# Run records only: sonde trace's syscall table and programs kept there (syscalls-*, trace-*)
	# are caches.
	ls /run/sonde 2>/dev/null | grep -v -e '^syscalls-' -e '^trace-' || true
}
before=$(settings)
note "before: $(echo "$before" | tr '\n' ';')"
# SIGKILLs a `sonde graph` that traced one process at a limited depth (so that set_ftrace_pid,
# function-fork, max_graph_depth and sched_process_exec are changed too).
kill_graph() {
	sleep 1000 &
	sleeper=$!
	start_sonde_until "$1" '^Tracing' graph --max-depth 3 -p "$sleeper" --comm sleep vfs_read
	kill -KILL "$BG_PID"
	wait "$BG_PID" 2>/dev/null
	kill "$sleeper"
	wait "$sleeper" 2>/dev/null
	dead=$BG_PID
	[ "$(settings)" != "$before" ] || fail "SIGKILL left nothing to restore before $1 (the case proves nothing)"
}
expect_restored_by() {
	_vm_check
	[ "$(settings)" = "$before" ] || fail "$1 did not restore what the killed sonde graph changed:
--- before
$before
--- after
$(settings)"
	expect_stderr_match "^sonde: .*(restored the tracer settings|removed 1 tracefs instance).* left by a dead sonde run \\(pid $dead\\)\$"
}

kill_graph list
run_sonde -l 'tracepoint:sched:sched_process_exec'
expect_status 0
expect_restored_by 'sonde -l'

kill_graph trace
run_sonde trace -o - -e getppid -- sonde-workload getppid 1
expect_status 0
expect_restored_by 'sonde trace'

kill_graph show
run_sonde probe --show 'p vfs_read'
expect_status 0
expect_restored_by 'sonde probe --show'

kill_graph probe
run_sonde probe -c 'sonde-workload getpid 1' 'p __do_sys_getpid'
expect_status 0
expect_restored_by 'sonde probe'

kill_graph script
run_sonde -c 'sonde-workload getpid 1' 'tracepoint:syscalls:sys_enter_getpid { @ = count(); }'
expect_status 0
expect_restored_by 'a script'

# Last, so that whatever a failed check above left is gone for the cases after this one.
kill_graph kprobe-script
run_sonde -c true 'kprobe:vfs_read { @ = count(); }'
expect_status 0
expect_restored_by 'a script that probes functions'
