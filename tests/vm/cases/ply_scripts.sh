# vm-timeout: 400
# ply's example scripts (scripts/*.ply of github.com/wkz/ply), verbatim as program files with
# their `#!/sbin/ply` line: ply's SyS_ names, `%v`, maps without `@`.
SONDE_TIMEOUT=180

cat >/tmp/execsnoop.ply <<'PLY'
#!/sbin/ply

kprobe:SyS_execve {
	execs[kpid] = str(arg0, 48);
}

kretprobe:SyS_execve {
	printf("(%4u) %v %3ld\n", uid, execs[kpid], retval);
}
PLY
# The -c command is exec'd by sonde: its successful execve prints with retval 0.
run_sonde -c 'sonde-workload getpid 1' /tmp/execsnoop.ply
expect_status 0
expect_match '^\(   0\) /[^ ]*sonde-workload   0$'

cat >/tmp/opensnoop.ply <<'PLY'
#!/sbin/ply

kprobe:do_sys_open
{
	path[kpid] = str(arg1);
}

kretprobe:do_sys_open
{
	printf("%v %v %v :%d\n", pid, comm, path[kpid], retval);
}
PLY
if grep -q ' do_sys_open$' /proc/kallsyms; then
	run_sonde -c 'sonde-workload comm wl_osnoop openat 2 /etc/sonde-opensnoop' /tmp/opensnoop.ply
	expect_status 0
	n=$(grep -cE '^[0-9]+ wl_osnoop /etc/sonde-opensnoop :-2$' "$SONDE_OUT_FILE")
	[ "$n" = 2 ] || fail "expected 2 lines 'PID wl_osnoop /etc/sonde-opensnoop :-2', saw $n"
else
	note "this kernel has no do_sys_open of its own (inlined): opensnoop.ply cannot attach"
fi

cat >/tmp/net-rx.ply <<'PLY'
#!/sbin/ply

kprobe:__netif_receive_skb_core
{
	rx[arg0] = time;
}

kprobe:ip_rcv_finish / rx[arg2] /
{
	@["rx"] = quantize(time - rx[arg2]);
}
PLY
# Loopback pings are received packets: rx fills. (Today __netif_receive_skb_core takes
# `struct sk_buff **`, so rx's keys are not ip_rcv_finish's skb and @rx stays empty;
# ply_manual.sh measures the same interval with today's arguments.)
ip link set lo up
if grep -q ' ip_rcv_finish$' /proc/kallsyms; then
	run_sonde -c 'ping -c 3 -i 0.2 127.0.0.1' /tmp/net-rx.ply
	expect_status 0
	n=$(grep -cE '^@rx\[[0-9]+\]: [0-9]+$' "$SONDE_OUT_FILE")
	[ "$n" -ge 1 ] || fail "rx has no entries after 3 pings over lo"
else
	note "this kernel has no ip_rcv_finish of its own (inlined): net-rx.ply cannot attach"
fi
