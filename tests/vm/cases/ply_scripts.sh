# vm-timeout: 400
# vm-cost: 11
# SPDX-License-Identifier: GPL-2.0-only
# Holds three of ply's scripts, so this file keeps ply's licence (GPL-2.0; Copyright Tobias
# Waldekranz and ply's contributors), not sonde's. VM-lane test data, never compiled into
# sonde (docs/licensing.md).
# ply's example scripts (scripts/*.ply of github.com/wkz/ply) as program files with their
# `#!/sbin/ply` line: `%v`, maps without `@`, kprobe/kretprobe pairs sharing a map. They were
# written for kernels before 4.17; as in ply_manual.sh, the functions they name are renamed to
# today's (`SyS_execve` is `__x64_sys_execve`, whose argN sonde reads from the user registers it
# is handed; `do_sys_open` is inlined into the openat syscall, which calls `do_sys_openat2`,
# taking the same first two arguments). Unrenamed, sonde names the modern spelling.
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
run_sonde -e /tmp/execsnoop.ply
expect_status 2
expect_stderr_match "no kernel function \`SyS_execve\`.*syscalls are spelled \`__x64_sys_execve\` on this kernel"
sed -i 's/SyS_execve/__x64_sys_execve/' /tmp/execsnoop.ply
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
sed -i 's/do_sys_open$/do_sys_openat2/' /tmp/opensnoop.ply
check "opensnoop.ply now probes do_sys_openat2" test "$(grep -c ':do_sys_openat2$' /tmp/opensnoop.ply)" = 2
run_sonde -c 'sonde-workload comm wl_osnoop openat 2 /etc/sonde-opensnoop' /tmp/opensnoop.ply
expect_status 0
n=$(grep -cE '^[0-9]+ wl_osnoop /etc/sonde-opensnoop :-2$' "$SONDE_OUT_FILE")
[ "$n" = 2 ] || fail "expected 2 lines 'PID wl_osnoop /etc/sonde-opensnoop :-2', saw $n"

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
	n=$(grep -cE '^@rx\[(0x[0-9a-f]+|[0-9]+)\]: [0-9]+$' "$SONDE_OUT_FILE")
	[ "$n" -ge 1 ] || fail "rx has no entries after 3 pings over lo"
else
	note "this kernel has no ip_rcv_finish of its own (inlined): net-rx.ply cannot attach"
fi
