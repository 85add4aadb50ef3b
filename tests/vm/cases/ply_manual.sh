# The ply manual's kprobe examples with today's names (the others are in kprobe_*.sh):
# kretprobe:schedule, and kprobe:dev_hard_start_xmit+OFF (an offset at an instruction boundary:
# right after the 5-byte fentry nop on 6.1, after endbr64 on 6.12 (IBT): the case tries both).
run_sonde -c 'sonde-workload sleep 100' 'kretprobe:schedule { @ = count(); }'
expect_status 0
n=$(map_value '@') || fail 'no @ line'
[ "${n:-0}" -ge 1 ] || fail "kretprobe:schedule never fired"
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
