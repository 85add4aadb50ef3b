# sonde graph: vfs_read's calls by one workload only, durations that add up, -n, --json,
# --comm, and every tracefs setting as it was afterwards (exit, SIGTERM, SIGKILL repaired by
# the next run).
# vm-timeout: 600
# vm-cost: 190
T=/sys/kernel/tracing
if ! grep -qw function_graph "$T/available_tracers"; then
	note "skipped: $(uname -r) has no function_graph tracer"
	run_sonde graph vfs_read
	expect_status 1
	expect_stderr_match 'this kernel has no function_graph tracer'
	exit 0
fi
settings() {
	for f in current_tracer set_graph_function set_ftrace_pid set_ftrace_notrace_pid max_graph_depth tracing_on options/funcgraph-proc options/funcgraph-tail options/function-fork events/sched/sched_process_exec/enable; do
		[ -e "$T/$f" ] && printf '%s: %s\n' "$f" "$(tr '\n' ' ' <"$T/$f")"
	done
	ls "$T/instances"
}
before=$(settings)
expect_same() {
	check "settings restored after $1" test "$(settings)" = "$before" || printf '%s\n---\n%s\n' "$before" "$(settings)"
}
# Starts `sonde graph ARGS` in the background and waits until it traces (setting the tracer up
# patches every function: seconds under TCG).
start_bg() {
	# Emptied here, not by the redirection: the child opens bg.err after the loop's first grep
	# may have run, and an earlier run's `Tracing` line would end the wait at once.
	: >bg.out
	: >bg.err
	sonde graph "$@" >>bg.out 2>>bg.err &
	bg=$!
	i=0
	while ! grep -q '^Tracing' bg.err && [ $i -lt 120 ]; do
		sleep 0.5
		i=$((i + 1))
	done
	check 'sonde graph started tracing' grep -q '^Tracing' bg.err
}

run_sonde graph -m tree vfs_read -- sonde-workload read 3 100
expect_status 0
expect_match '^call 1: vfs_read in sonde-workload-[0-9]+, cpu'
# One process only, named after the exec (not the held shell), and its 3 reads of /dev/zero.
check 'only the workload' test "$(grep '^call ' "$SONDE_OUT_FILE" | grep -vc ' in sonde-workload-')" = 0
check 'one pid' test "$(sed -n 's/^call [0-9]*: vfs_read in .*-\([0-9]*\), cpu.*/\1/p' "$SONDE_OUT_FILE" | sort -u | wc -l)" = 1
# The held shell's reads of its go line (a pipe) came before the exec: not counted.
check 'no gate-shell reads' test "$(grep -c ' pipe_read$' "$SONDE_OUT_FILE")" = 0
n=$(grep -c ' read_zero$' "$SONDE_OUT_FILE")
[ "$n" -ge 3 ] || fail "only $n reads of /dev/zero"
# Children's totals never exceed their parent's: the tree's first line (vfs_read) has the
# largest total of its call.
awk '/^ *[0-9.]+ (ns|us|ms|s) /{ t=$1; u=$2; v=(u=="ns")?t:(u=="us")?t*1000:(u=="ms")?t*1e6:t*1e9; if (first) { top=v; first=0 } else if (v > top) { print "child above parent: " $0; bad=1 } } /^call /{ first=1 } END { exit bad }' "$SONDE_OUT_FILE" || fail 'a child took longer than its call'
expect_same exit

run_sonde graph -n 3 vfs_read -- sonde-workload read 50 100
expect_status 0
check '-n 3 stops after 3' test "$(grep -c '^call ' "$SONDE_OUT_FILE")" = 3
expect_same '-n'

run_sonde graph --json -n 2 vfs_read -- sonde-workload read 5 100
expect_status 0
# Records in the one envelope (docs/json.md): two calls, the summary, then lost_events last.
# (Members in name order: a node's name follows its children.)
check 'two JSON calls' test "$(grep -cE '^\{"type": "graph_call", "data": \{"comm": "sonde-workload", "cpus": \[[0-9,]+\], "index": [12], ' "$SONDE_OUT_FILE")" = 2
expect_match '"irq": false, "name": "vfs_read", "own_ns": [0-9]+, "total_ns": [0-9]+\}\}\}$'
expect_match '^\{"type": "graph_summary", "data": \{"calls": 2, "function": "vfs_read", "incomplete_calls": [0-9]+\}\}$'
check 'lost_events last' test "$(tail -n 1 "$SONDE_OUT_FILE" | grep -cE '^\{"type": "lost_events", "count": [0-9]+, "data": \{"events": [0-9]+\}\}$')" = 1

run_sonde graph -m folded vfs_read -- sonde-workload read 3 100
expect_status 0
expect_match '^vfs_read;rw_verify_area'
expect_same folded

run_sonde graph -m svg --step 1 -o svgs vfs_read -- sonde-workload read 3 100
expect_status 0
n=$(ls svgs | grep -c '^vfs_read-[0-9]*\.svg$')
[ "$n" -ge 3 ] || fail "$n per-call SVGs"
check 'the summed SVG' grep -q 'vfs_read' svgs/vfs_read.svg
check 'the summed SVG is titled with the function' grep -q '>vfs_read: [0-9]* calls<' svgs/vfs_read.svg
check 'N+1 files' test "$(ls svgs | wc -l)" = $((n + 1))

# --comm without a pid: a loop of workloads, only their calls.
(while :; do sonde-workload read 20 100; sleep 0.1; done) &
loop=$!
run_sonde graph --comm sonde-workload -n 3 vfs_read
expect_status 0
kill $loop
wait $loop 2>/dev/null
check '--comm: 3 calls' test "$(grep -c '^call ' "$SONDE_OUT_FILE")" = 3
check '--comm: all the workload' test "$(grep '^call ' "$SONDE_OUT_FILE" | grep -vc ' in sonde-workload-')" = 0
expect_same '--comm'

start_bg vfs_read
kill -TERM $bg
wait $bg
st=$?
check 'SIGTERM: exit 0' test $st = 0 || cat bg.err
expect_same SIGTERM

# A second sonde graph while one runs: one sentence naming it, and the first one unharmed.
start_bg vfs_read
run_sonde graph -n 1 vfs_read
expect_status 1
expect_stderr_match "another \`sonde graph\` \(pid $bg\) is using the function tracer"
check 'the first still runs' kill -0 $bg
kill -TERM $bg
wait $bg
expect_same 'a second sonde graph'

start_bg vfs_read
kill -9 $bg
wait $bg 2>/dev/null
run_sonde graph -n 1 vfs_read -- sonde-workload read 1 100
expect_status 0
expect_same 'SIGKILL and the next run'

# Bad input: one sentence each, and nothing changed.
run_sonde graph no_such_function_xyz
expect_status 2
expect_stderr_match 'no traceable function `no_such_function_xyz`'
run_sonde graph vfs_reed
expect_status 2
expect_stderr_match 'did you mean .*vfs_read'
# __schedule is notrace: in kallsyms, not in available_filter_functions.
if grep -q ' __schedule$' /proc/kallsyms && ! grep -q '^__schedule$' "$T/available_filter_functions"; then
	run_sonde graph __schedule
	expect_status 2
	expect_stderr_match '`__schedule` cannot be traced: the kernel has it but marks it notrace'
else
	note '__schedule is traceable here: notrace sentence not checked'
fi
# Another user's tracer: named, and left alone.
echo function >"$T/current_tracer"
run_sonde graph vfs_read
expect_status 1
expect_stderr_match 'in use by someone else \(current_tracer is `function`\)'
check 'the other tracer left alone' grep -qx function "$T/current_tracer"
echo nop >"$T/current_tracer"
run_sonde graph -m svg -o /proc/nope.svg vfs_read
expect_status 2
expect_stderr_match 'cannot write /proc/nope.svg'
expect_same 'bad input'
