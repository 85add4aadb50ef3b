# vm-timeout: 600
# vm-cost: 101
# Every kprobe example of the ply manual, as written there but with today's kernel names:
# `SyS_X` is `__x64_sys_X` (a syscall wrapper: sonde reads the syscall's own arguments from the
# user registers it is handed, so `str(arg1)` is still the file name), and the network example's
# functions take `struct sk_buff **` / are compiler copies today (see the last part). Each one
# runs against a workload whose calls are known, and the numbers and strings are checked.

# Hundreds of kprobes attach and detach one by one on 6.1 (no kprobe_multi): about 40 s a run.
SONDE_TIMEOUT=180

# kprobe:SyS_openat { print(comm, pid, str(arg1)); }
run_sonde -c 'sonde-workload comm wl_ply openat 3 /etc/sonde-ply' 'kprobe:__x64_sys_openat { print(comm, pid, str(arg1)); }'
expect_status 0
n=$(grep -cE '^wl_ply, [0-9]+, /etc/sonde-ply$' "$SONDE_OUT_FILE")
[ "$n" = 3 ] || fail "expected 3 lines 'wl_ply, PID, /etc/sonde-ply', saw $n"
# The wrapper's arguments by name too, typed from the syscall's format (flags is an int).
run_sonde -c 'sonde-workload comm wl_ply openat 2 /etc/sonde-ply' \
	'kprobe:__x64_sys_openat /comm == "wl_ply"/ { printf("%s %d\n", str(args->filename), args->flags); }'
expect_status 0
n=$(grep -cE '^/etc/sonde-ply [0-9]+$' "$SONDE_OUT_FILE")
[ "$n" = 2 ] || fail "expected 2 lines '/etc/sonde-ply FLAGS', saw $n"

# kretprobe:SyS_read { @["dist"] = quantize(retval); } (system-wide: only the workload reads
# 2-4 KiB at a time in this guest)
run_sonde -c 'sonde-workload read 5 3333' 'kretprobe:__x64_sys_read { @["dist"] = quantize(retval); }'
expect_status 0
expect_line '@[dist]:'
expect_match '^\[2K, 4K\) +5 \|@* *\|$'

# kprobe:SyS_* { @[caller] = count(); }: every syscall function (hundreds of probes)
run_sonde -c 'sonde-workload comm wl_all read 4 100 write 3 10' 'kprobe:__x64_sys_* { @[caller] = count(); }'
expect_status 0
expect_stderr_match '^Attached [0-9]{3} probes$'
for f in read write; do
	v=$(map_value "@[__x64_sys_$f]") || fail "no @[__x64_sys_$f] line"
	[ "${v:-0}" -ge 3 ] || fail "@[__x64_sys_$f] is ${v:-none}, the workload alone made 3 or more"
done

# kprobe:SyS_* / !strcmp(execname, "dd") / { @[caller] = count(); }: exactly the workload's calls
run_sonde -c 'sonde-workload comm dd read 4 100 write 3 10' 'kprobe:__x64_sys_* / !strcmp(execname, "dd") / { @[caller] = count(); }'
expect_status 0
expect_line '@[__x64_sys_read]: 4'
expect_line '@[__x64_sys_write]: 3'

# kretprobe:schedule
run_sonde -c 'sonde-workload sleep 100' 'kretprobe:schedule { @ = count(); }'
expect_status 0
n=$(map_value '@') || fail 'no @ line'
[ "${n:-0}" -ge 1 ] || fail "kretprobe:schedule never fired"

# kprobe:dev_hard_start_xmit+8: an offset must start an instruction; on x86 today that is +4
# (after endbr64, 6.12 with IBT) or +5 (after the 5-byte fentry nop, 6.1). The case tries both.
ip link set lo up
ok=0
for off in 4 5; do
	run_sonde -c 'ping -c 3 -i 0.2 127.0.0.1' "kprobe:dev_hard_start_xmit+$off { @xmit = count(); }"
	if [ "$SONDE_STATUS" = 0 ]; then
		expect_map '@xmit' 6
		ok=1
	else
		expect_stderr_match 'the offset is not at the start of an instruction'
	fi
done
[ "$ok" = 1 ] || fail 'no offset into dev_hard_start_xmit could be probed'

# kprobe:__netif_receive_skb_core { rx[arg0] = time; }
# kprobe:ip_rcv / rx[arg0] / { @["diff"] = quantize(time - rx[arg0]); }
# Today __netif_receive_skb_core takes `struct sk_buff **pskb` and the kernel has only the
# compiler's copy `__netif_receive_skb_core.constprop.0` (6.1, 6.12), which sonde probes in its place (with a
# warning): its arg0 is dereferenced to get the skb that ip_rcv is passed. 3 pings over lo are 6
# packets: 6 samples.
hist_total() { awk 'match($0, /[0-9]+ \|/) { n += substr($0, RSTART, RLENGTH - 2) } END { print n + 0 }' "$SONDE_OUT_FILE"; }
run_sonde -c 'ping -c 3 -i 0.2 127.0.0.1' \
	'kprobe:__netif_receive_skb_core { rx[*(u64 *)arg0] = time; } kprobe:ip_rcv / rx[arg0] / { @["diff"] = quantize(time - rx[arg0]); }'
expect_status 0
# (5.10 still has the function itself: no warning there.)
if grep -q ' __netif_receive_skb_core$' /proc/kallsyms; then
	check 'no warning where the kernel has the function itself' sh -c "! grep -q constprop '$SONDE_ERR_FILE'"
else
	expect_stderr_match "^warning: the kernel has no \`__netif_receive_skb_core\` of its own, only the compiler's specialized copy \`__netif_receive_skb_core\.constprop\.0\`"
fi
expect_line '@[diff]:'
[ "$(hist_total)" = 6 ] || fail "expected 6 samples in @[diff], saw $(hist_total)"
# __netif_receive_skb still takes the skb itself, as the manual's version did.
run_sonde -c 'ping -c 3 -i 0.2 127.0.0.1' \
	'kprobe:__netif_receive_skb { rx[arg0] = time; } kprobe:ip_rcv / rx[arg0] / { @["diff"] = quantize(time - rx[arg0]); }'
expect_status 0
[ "$(hist_total)" = 6 ] || fail "expected 6 samples in @[diff], saw $(hist_total)"
