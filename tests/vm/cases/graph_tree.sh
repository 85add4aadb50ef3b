# sonde graph: vfs_read's calls by one workload only, durations that add up, -n, and every
# tracefs setting as it was afterwards (exit, SIGTERM, SIGKILL repaired by the next run).
T=/sys/kernel/tracing
settings() {
	for f in current_tracer set_graph_function set_ftrace_pid max_graph_depth tracing_on options/funcgraph-proc options/funcgraph-tail options/function-fork; do
		printf '%s: %s\n' "$f" "$(tr '\n' ' ' <"$T/$f")"
	done
	ls "$T/instances"
}
before=$(settings)
expect_same() {
	check "settings restored after $1" test "$(settings)" = "$before" || printf '%s\n---\n%s\n' "$before" "$(settings)"
}

run_sonde graph -m tree vfs_read -- sonde-workload read 3 100
expect_status 0
expect_match '^call 1: vfs_read in '
# One process only (the tracer's comm column may still say `sh` from before the exec, so pids
# are compared), and its 3 reads of /dev/zero are there.
check 'only the workload' test "$(sed -n 's/^call [0-9]*: vfs_read in .*-\([0-9]*\), cpu.*/\1/p' "$SONDE_OUT_FILE" | sort -u | wc -l)" = 1
n=$(grep -c ' read_zero$' "$SONDE_OUT_FILE")
[ "$n" -ge 3 ] || fail "only $n reads of /dev/zero"
# Children's totals never exceed their parent's: own time (column 2) is never negative, and
# the tree's first line (vfs_read) has the largest total of its call.
awk '/^ *[0-9.]+ (ns|us|ms|s) /{ t=$1; u=$2; v=(u=="ns")?t:(u=="us")?t*1000:(u=="ms")?t*1e6:t*1e9; if (first) { top=v; first=0 } else if (v > top) { print "child above parent: " $0; bad=1 } } /^call /{ first=1 } END { exit bad }' "$SONDE_OUT_FILE" || fail 'a child took longer than its call'
expect_same exit

run_sonde graph -n 3 vfs_read -- sonde-workload read 50 100
expect_status 0
check '-n 3 stops after 3' test "$(grep -c '^call ' "$SONDE_OUT_FILE")" = 3
expect_same '-n'

run_sonde graph -m folded vfs_read -- sonde-workload read 3 100
expect_status 0
expect_match '^vfs_read;rw_verify_area'
expect_same folded

run_sonde graph -m svg -s 1 -o svgs vfs_read -- sonde-workload read 3 100
expect_status 0
n=$(ls svgs | grep -c '^vfs_read-[0-9]*\.svg$')
[ "$n" -ge 3 ] || fail "$n per-call SVGs"
check 'the summed SVG' grep -q 'vfs_read' svgs/vfs_read.svg

run_sonde_for 2 graph vfs_read
expect_same SIGTERM

sonde graph vfs_read >/dev/null 2>&1 &
pid=$!
sleep 2
kill -9 $pid
wait $pid 2>/dev/null
run_sonde graph -n 1 vfs_read -- sonde-workload read 1 100
expect_status 0
expect_same 'SIGKILL and the next run'

run_sonde graph no_such_function_xyz
expect_status 2
expect_stderr_match 'no traceable function `no_such_function_xyz`'
