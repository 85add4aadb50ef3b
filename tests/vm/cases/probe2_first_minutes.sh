# sonde probe and sonde graph, second round: a function on the kprobe blacklist is said to be
# one; --show checks names against kallsyms; a function the compiler left only as
# NAME.constprop.0 is offered by that name; sk_dport (a macro) gets `__sk_common.skc_dport`; a
# task whose name the tracer lost is named from its pid; two copies of an `-o` script run side by
# side and each stops on TERM; --max-depth 2 is FUNCTION and what it calls; a --min-duration
# run that matches nothing prints its summary.
# vm-timeout: 600
# vm-cost: 60
T=/sys/kernel/tracing
WL=$(command -v sonde-workload)
BL=/sys/kernel/debug/kprobes/blacklist

# A function the kernel has and kprobes refuse (do_int3 where it is a function of its own).
bl=$(awk 'NR==FNR { if ($2 !~ /\[/) black[$2] = 1; next } ($3 in black) && $2 ~ /^[tT]$/ { print $3; exit }' "$BL" /proc/kallsyms)
grep -q ' do_int3$' /proc/kallsyms && grep -qw do_int3 "$BL" && bl=do_int3
if [ -n "$bl" ]; then
	run_sonde probe --show "p $bl"
	expect_status 2
	expect_stderr_match "kprobes cannot trace \`$bl\`: the kernel has it, and lists it on the kprobe blacklist"
else
	note 'no blacklisted function in kallsyms: blacklist sentence not checked'
fi

run_sonde probe --show 'p wake_up_new_taskk'
expect_status 2
expect_stderr_match 'no function `wake_up_new_taskk` to probe \(did you mean `wake_up_new_task`\?\)'

# A specialised copy whose plain name the kernel does not have (the guide's
# __netif_receive_skb_core on 6.x).
cp=$(awk 'NR==FNR { have[$3] = 1; next } $1 ~ /^[a-z_0-9]+\.constprop\.0$/ { b = $1; sub(/\.constprop\.0$/, "", b); if (!(b in have)) { print $1; exit } }' /proc/kallsyms "$T/available_filter_functions")
if [ -n "$cp" ]; then
	run_sonde probe --show "p ${cp%.constprop.0}"
	expect_status 2
	expect_stderr_match "did you mean .*\`$cp\`"
else
	note 'no NAME.constprop.0 without NAME: not checked'
fi

run_sonde probe --show 'p tcp_v4_connect d=%0->sk_dport'
expect_status 2
expect_stderr_match 'did you mean `__sk_common.skc_dport`'
run_sonde probe --show 'p tcp_v4_connect d=%0->__sk_common.skc_dport'
expect_status 0

# A comm cache of one entry and two tasks taking turns: the tracer prints `<...>` for the one it
# lost, sonde names it from /proc/PID/comm.
old=$(cat "$T/saved_cmdlines_size")
steps() {
	i=0
	while [ $i -lt 150 ]; do
		printf ' getpid 1 sleep 20'
		i=$((i + 1))
	done
}
$WL comm wl_ca $(steps) &
wa=$!
$WL comm wl_cb $(steps) &
wb=$!
echo 1 >"$T/saved_cmdlines_size"
run_sonde probe --json --duration 1 'e syscalls/sys_enter_getpid f:common_pid!=1'
echo "$old" >"$T/saved_cmdlines_size"
kill $wa $wb 2>/dev/null
wait $wa $wb 2>/dev/null
expect_status 0
check 'events of both tasks' sh -c "grep -q '\"comm\": \"wl_ca\"' $SONDE_OUT_FILE && grep -q '\"comm\": \"wl_cb\"' $SONDE_OUT_FILE"
check 'no <...>' sh -c "! grep -q '<\.\.\.>' $SONDE_OUT_FILE"

# Two copies of one `-o` script: each its own instance and group; TERM stops each, and the
# second's end leaves the first's events on.
state() {
	echo "kprobe_events: $(grep -c sonde_ "$T/kprobe_events")"
	echo "uprobe_events: $(grep -c sonde_ "$T/uprobe_events")"
	echo "instances: $(ls "$T/instances" | tr '\n' ' ')"
}
before=$(state)
run_sonde probe -o probe.sh 'p do_sys_openat2' "P $WL:sonde_workload_target"
expect_status 0
started() {
	n=0
	while ! [ -e "$T/instances/sonde-$1" ] && [ $n -lt 300 ]; do
		sleep 0.1
		n=$((n + 1))
	done
	sleep 0.5
}
enabled() {
	cat "$T/instances/sonde-$1/events/sonde_$1/"*/enable 2>/dev/null | tr -d '\n'
}
sh probe.sh >s1.out 2>s1.err &
s1=$!
started $s1
sh probe.sh >s2.out 2>s2.err &
s2=$!
started $s2
check 'both copies enabled' test "$(enabled $s1)/$(enabled $s2)" = 11/11 || cat s1.err s2.err
kill -TERM $s2
wait $s2
check 'the second copy stopped on TERM' sh -c "! kill -0 $s2 2>/dev/null"
check "the second copy's end left the first's events on" test "$(enabled $s1)" = 11
$WL openat 3 /etc/hostname >/dev/null
sleep 0.5
check 'the first copy still records' grep -q 'sonde_.*do_sys_openat2' s1.out
kill -TERM $s1
wait $s1
check 'the first copy stopped on TERM' sh -c "! kill -0 $s1 2>/dev/null"
check 'nothing left behind' test "$(state)" = "$before" || state

if grep -qw function_graph "$T/available_tracers"; then
	# Patching every function in and out takes a minute and more under TCG on a busy host (6.12).
	SONDE_TIMEOUT=240
	run_sonde graph --max-depth 2 -m folded vfs_read -- sonde-workload read 3 100
	expect_status 0
	expect_match '^vfs_read;'
	depth=$(awk '{ n = split($1, f, ";"); if (n > m) m = n } END { print m }' "$SONDE_OUT_FILE")
	check "--max-depth 2: FUNCTION and what it calls (deepest: $depth)" test "$depth" = 2
	run_sonde graph --min-duration 100s vfs_read -- sonde-workload read 3 100
	expect_status 0
	expect_stderr_match '^sonde: 0 calls of vfs_read \([0-9]+ shorter than --min-duration left out\)$'
	run_sonde graph --json --min-duration 100s vfs_read -- sonde-workload read 3 100
	expect_status 0
	expect_match '^\{"type": "graph_summary", "data": \{"calls": 0, '
else
	note "$(uname -r) has no function_graph tracer: --max-depth and --min-duration not checked"
fi
