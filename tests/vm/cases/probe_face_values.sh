# vm-cost: 18
# `sonde probe`: the kernel accepts the definitions sonde-probe builds from BTF, and the values
# are right: the dfd and file name of the workload's openat (do_filp_open's int and
# pathname->name), its comm ($comm, and task_struct->comm of a forked child), the return value of
# a failed open (-2), mm->mm_users through atomic_t; a filter; a kernel refusal in its own words.
# (Entry probes show +0x4 on kernels with IBT, such as Debian's 6.12: the endbr64 is skipped.)
T=/sys/kernel/tracing

# start_probe NAME EXPR...: sonde probe in the background until it says it is tracing.
start_probe() {
	_n="$1"
	shift
	: >"err.$_n"
	sonde probe "$@" >"out.$_n" 2>"err.$_n" &
	pid=$!
	n=0
	while ! grep -q '^Tracing' "err.$_n" && [ $n -lt 600 ] && kill -0 "$pid" 2>/dev/null; do
		sleep 0.1
		n=$((n + 1))
	done
	_vm_check
	grep -q '^Tracing' "err.$_n" || fail "sonde probe never started: $(cat "err.$_n")"
}
stop_probe() {
	sleep 1
	kill -TERM "$pid"
	wait "$pid"
	st=$?
	_vm_check
	[ "$st" = 0 ] || fail "sonde probe exited $st after SIGTERM: $(cat "err.$1")"
	note "out.$1: $(grep -v -e ' name=/sys/' -e 'c=sh$' -e 'comm=sh ' "out.$1" | head -c 3000)"
}

run_sonde probe --show 'p do_filp_open dfd=%0 name=%1->name'
expect_status 0
grep -qF " do_filp_open dfd=%di:s32 name=+0x0(+0x0(%si)):string' >> $T/kprobe_events" "$SONDE_OUT_FILE" ||
	fail 'the --show line is not the expected definition'

start_probe open 'p do_filp_open dfd=%0 name=%1->name c=$comm f:dfd==-100' 'r do_sys_openat2 ret=$retval'
sonde-workload comm wl_probe openat 2 /etc/sonde-probe-nonexistent
stop_probe open
[ "$(grep -c 'do_filp_open: (do_filp_open+0x[0-9a-f]*/0x[0-9a-f]*) dfd=-100 name=/etc/sonde-probe-nonexistent c=wl_probe$' out.open)" = 2 ] ||
	fail "expected 2 do_filp_open lines with dfd=-100, the name and comm=wl_probe"
grep -q 'do_sys_openat2%return: (.*) ret=-2$' out.open || fail 'no ret=-2 from do_sys_openat2'

start_probe fork 'p wake_up_new_task comm=%0->comm users=S%0->mm->mm_users pid=%0->pid'
sonde-workload comm wl_parent fork wl_child
stop_probe fork
grep -q 'wake_up_new_task: (wake_up_new_task+0x[0-9a-f]*/0x[0-9a-f]*) comm=wl_parent users=1 pid=[0-9]*$' out.fork ||
	fail 'no wake_up_new_task line with comm=wl_parent users=1'

# A definition sonde cannot know is wrong: the kernel refuses it and says why (error_log).
run_sonde probe 'p do_filp_open+1'
expect_status 1
expect_stderr_match 'the kernel refused `p:sonde/sonde_[0-9]+_0 do_filp_open\+0x1` \(E[A-Z]+\): trace_kprobe: error: '

# Mistakes are caught before anything is written.
before="$(cat $T/kprobe_events)"
run_sonde probe 'p do_filp_open x=%1->nme'
expect_status 2
expect_stderr_match 'has no member `nme` \(did you mean `name`\?\)'
run_sonde probe 'p do_filp_open x=$retval'
expect_status 2
expect_stderr_match 'only in return probes'
[ "$(cat $T/kprobe_events)" = "$before" ] || fail 'a refused expression left something in kprobe_events'

# Packet parsing (the guide's skb example, on ip_rcv where skb->data is at the IP header): a ping
# over loopback shows dotted addresses, the ICMP type of the request (8) and the reply (0), and
# the echo sequence byte-swapped from network order (b16_; busybox's ping counts from 0).
ip link set lo up
start_probe ping 'p ip_rcv proto=@(struct iphdr *)l3%0->protocol ip_src=@(struct iphdr *)%0->saddr ip_dst=@(struct iphdr *)l3%0->daddr type=@(struct icmphdr *)l3%0->type b16_seq=@(struct icmphdr *)l3%0->un.echo.sequence f:proto==1&&ip_dst==127.0.0.1'
ping -c 2 -i 0.2 127.0.0.1 >/dev/null 2>&1 || fail 'ping over loopback failed'
stop_probe ping
for t in 8 0; do
	for s in 0 1; do
		grep -q "ip_rcv: (ip_rcv+0x[0-9a-f]*/0x[0-9a-f]*) proto=1 ip_src=127.0.0.1 ip_dst=127.0.0.1 type=$t b16_seq=$s$" out.ping ||
			fail "no ip_rcv line with dotted 127.0.0.1, type=$t and seq=$s"
	done
done

# -c and --json on a kprobe: only the command's events, one probe_event record each (docs/json.md),
# and the run ends with it.
run_sonde probe --json -c 'sonde-workload comm wl_pj openat 2 /etc/sonde-probe-json' 'p do_filp_open dfd=%0 name=%1->name'
expect_status 0
# (The comm column is the kernel's cached name: 5.10 still shows sonde-workload after `comm`.)
[ "$(grep -cE '^\{"type": "probe_event", "data": \{"args": \{"dfd": -100, "name": "/etc/sonde-probe-json"\}, "comm": "[^"]*", "cpu": [0-9]+, "pid": [0-9]+, "probe": "do_filp_open", "site": "do_filp_open\+0x[0-9a-f]+/0x[0-9a-f]+", "time": [0-9.]+\}\}$' "$SONDE_OUT_FILE")" = 2 ] ||
	fail 'expected 2 JSON events of the command opening /etc/sonde-probe-json'
# Before its `comm` step the command is still named sonde-workload (or `<...>`): its pid tells.
[ "$(grep -o '"pid": [0-9]*' "$SONDE_OUT_FILE" | sort -u | wc -l)" = 1 ] || fail 'another process was recorded under -c'

# --fprobe: BTF-aware fprobe events where the kernel has them (its README documents `f:`), else
# one sentence and nothing written.
if grep -qF 'f[:[<group>/][<event>]]' $T/README; then
	note 'this kernel has fprobe events'
	start_probe fp --fprobe 'p do_filp_open dfd=%0 name=%1->name c=$comm f:dfd==-100' 'r do_sys_openat2 ret=$retval'
	sonde-workload comm wl_fprobe openat 2 /etc/sonde-fprobe-nonexistent
	stop_probe fp
	[ "$(grep -c 'do_filp_open: (do_filp_open+0x[0-9a-f]*/0x[0-9a-f]*) dfd=-100 name=/etc/sonde-fprobe-nonexistent c=wl_fprobe$' out.fp)" = 2 ] ||
		fail "expected 2 fprobe lines with dfd=-100, the name and comm=wl_fprobe"
	grep -q 'do_sys_openat2%return: (.*) ret=-2$' out.fp || fail 'no ret=-2 from the do_sys_openat2 fprobe'
else
	note 'this kernel has no fprobe events'
	run_sonde probe --fprobe 'p do_filp_open dfd=%0'
	expect_status 2
	expect_stderr_match 'this kernel has no fprobe events'
fi
grep -q sonde_ $T/dynamic_events && fail "sonde's events are left in dynamic_events: $(cat $T/dynamic_events)"
true
