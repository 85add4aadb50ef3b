# sonde graph --errors: openat of a path under a missing directory fails with -ENOENT in the
# path walk; the failing path is printed with the function the error came from (a path-walk
# function below path_openat), each frame's result, and the syscall's typed arguments; calls
# that succeed print nothing; folded, JSON and Perfetto outputs of the same failure.
# vm-timeout: 900
# vm-cost: 55
# Each run reads the function list and BTF under TCG: tens of seconds.
SONDE_TIMEOUT=150
F=/sys/kernel/tracing/available_filter_functions
# The path walk's functions this kernel can probe (which are inlined differs by kernel).
walk=""
for f in do_filp_open path_openat link_path_walk walk_component step_into handle_mounts \
	traverse_mounts lookup_fast lookup_slow __lookup_slow path_init complete_walk \
	do_open may_open d_alloc_parallel; do
	grep -qx "$f" "$F" && walk="$walk -a $f"
done
# A glob as well (one kprobe_multi link where the kernel has them).
grep -q '^link_path_walk' "$F" && walk="$walk -a link_path_wal*"
note "recorded inside do_sys_openat2:$walk"
missing=/sonde-missing-dir/sub/file

# The call of one path, from a tree output (the workload's loader fails to open libraries too).
call_of() {
	awk -v want="filename=\"$1\"" '/^call /{ block=$0 "\n"; next } /^$/{ if (index(block, want)) printf "%s", block; block=""; next } { block=block $0 "\n" } END { if (index(block, want)) printf "%s", block }' "$SONDE_OUT_FILE" >call.txt
}

run_sonde graph --errors do_sys_openat2 $walk -- sonde-workload openat 1 "$missing"
expect_status 0
call_of "$missing"
cat call.txt
check 'the failed call is shown once' test "$(grep -c '^call ' call.txt)" = 1
check 'its heading' grep -qE '^call [0-9]+: do_sys_openat2 failed with -ENOENT in sonde-workload-[0-9]+ \(tid [0-9]+\), cpu [0-9]+, after ' call.txt
# The entry function's BTF-typed arguments, the path among them.
check 'its arguments' grep -qE "^  do_sys_openat2\(dfd=-100, filename=\"$missing\", how=0x[0-9a-f]+\)$" call.txt
# The failure's origin: the deepest frame, marked, and below path_openat in the walk.
origin=$(sed -n 's/^ *[0-9.]* [num]*s  *\([^ ]*\) *\([a-z_0-9.]*\)  <- the failure starts here$/\2 \1/p' call.txt)
note "$(uname -r): the failure starts in: $origin"
check 'an origin is marked' test -n "$origin"
case "${origin%% *}" in
link_path_walk* | walk_component | step_into | handle_mounts | traverse_mounts | lookup_* | __lookup_slow | path_init | complete_walk | do_open | may_open) ;;
*) fail "the origin ${origin%% *} is not a path-walk function" ;;
esac
check 'the origin returned ENOENT' sh -c "echo '$origin' | grep -q 'ENOENT'"
check 'path_openat is on the path' grep -qE '^ +[0-9.]+ [num]?s +ERR_PTR\(-ENOENT\) +path_openat$' call.txt
check 'every call shown failed' test "$(grep '^call ' "$SONDE_OUT_FILE" | grep -vc ' failed with ')" = 0

# docs/graph.md's example, as written there.
run_sonde graph --errors do_sys_openat2 -a do_filp_open -a path_openat -a 'link_path_wal*' -a walk_component -a step_into -- sonde-workload openat 1 /sonde-missing-dir/sub/file
expect_status 0
call_of "$missing"
check "the docs' example names the origin" grep -qE ' step_into  <- the failure starts here$' call.txt

# Calls that succeed print nothing: the opens of /proc/version are not shown (the loader's
# failed ones are).
run_sonde graph --errors do_sys_openat2 $walk -- sonde-workload openat 3 /proc/version
expect_status 0
check 'no successful open shown' test "$(grep -c 'filename="/proc/version"' "$SONDE_OUT_FILE")" = 0
check 'every call shown failed' test "$(grep '^call ' "$SONDE_OUT_FILE" | grep -vc ' failed with ')" = 0
run_sonde graph --errors __x64_sys_getppid -- sonde-workload getppid 3
expect_status 0
check 'getppid never fails' test "$(grep -c '^call ' "$SONDE_OUT_FILE")" = 0
expect_stderr_match 'no call of .*getppid failed while recording'

# The syscall wrapper as the entry: its arguments are the syscall's.
run_sonde graph --errors __x64_sys_openat $walk -a do_sys_openat2 -- sonde-workload openat 1 "$missing"
expect_status 0
call_of "$missing"
cat call.txt
check 'the wrapper failed' grep -qE '^call [0-9]+: __x64_sys_openat failed with -ENOENT ' call.txt
check 'do_sys_openat2 below it' grep -qE ' -ENOENT +do_sys_openat2$' call.txt

# JSON: the record names the origin; folded and Perfetto outputs of the same.
run_sonde graph --errors --json do_sys_openat2 $walk -- sonde-workload openat 2 "$missing"
expect_status 0
check 'two graph_error records for the path' test "$(grep '^{"type": "graph_error", ' "$SONDE_OUT_FILE" | grep -c "$missing")" = 2
expect_match "\"errno\": 2, .*\"origin\": \"${origin%% *}\", "
expect_match '^\{"type": "graph_summary", "data": \{"calls": [0-9]+, "function": "do_sys_openat2", "incomplete_calls": 0\}\}$'
run_sonde graph --errors -m folded do_sys_openat2 $walk -- sonde-workload openat 3 "$missing"
expect_status 0
expect_match "^do_sys_openat2;do_filp_open;path_openat;.*${origin%% *}_\\[(ERR_PTR\\()?-ENOENT\\)?\\] [0-9]+\$"
run_sonde graph --errors -m perfetto -o trace.json do_sys_openat2 $walk -- sonde-workload openat 1 "$missing"
expect_status 0
check 'a trace-event document' grep -q '^{"displayTimeUnit":"ns","otherData":{"producer":"sonde graph --errors"},"traceEvents":\[' trace.json
check 'complete events' grep -q '"ph":"X"' trace.json
check 'the origin marked' grep -q '"origin":true' trace.json
check 'the path in the arguments' grep -q "sonde-missing-dir" trace.json

# Many functions (globs of the dcache's): kprobe_multi links where the kernel has them (6.12 here;
# Debian's 5.10 and 6.1 would take a kprobe each, minutes under TCG).
case "$(uname -r)" in
5.* | 6.1.*) note "no kprobe_multi here: the wide glob is not tried" ;;
*)
	run_sonde graph --errors do_sys_openat2 $walk -a 'd_*' -a '__d_*' -- sonde-workload openat 1 "$missing"
	expect_status 0
	call_of "$missing"
	cat call.txt
	check 'the failed call among many functions' grep -qE '^call [0-9]+: do_sys_openat2 failed with -ENOENT ' call.txt
	check 'path_openat on its path' grep -qE ' ERR_PTR\(-ENOENT\) +path_openat$' call.txt
	;;
esac

# --latency: a slow call fails too (nanosleep is slow, and never an error here).
# (The sleeping functions' returns are seen because they are probed through trampolines, or
# kprobe_multi: a kretprobe's few instances are taken by every task sleeping there.)
run_sonde graph --errors --latency 5ms __x64_sys_nanosleep -a hrtimer_nanosleep -a do_nanosleep -- sonde-workload sleep 20
expect_status 0
expect_match '^call 1: __x64_sys_nanosleep returned 0 in sonde-workload'
expect_match ' do_nanosleep  <- the failure starts here$'
check 'every return seen' test "$(grep -c 'returned unseen' "$SONDE_OUT_FILE")" = 0

# Bad input: one sentence each.
run_sonde graph --errors do_sys_openat2 -a 'no_such_fn_xyz_*'
expect_status 2
expect_stderr_match 'no traceable kernel function matches `no_such_fn_xyz_\*`'
run_sonde graph --errors -m svg do_sys_openat2
expect_status 2
