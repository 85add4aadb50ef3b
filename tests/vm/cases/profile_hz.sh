# profile:hz:N samples every CPU; a busy workload on the guest shows up.
run_sonde -c 'sonde-workload sleep 600' 'profile:hz:99 { @samples = count(); }'
expect_status 0
n=$(map_value '@samples') || fail 'no @samples line'
[ "${n:-0}" -ge 20 ] || fail "too few samples for 0.6 s on 2 CPUs at 99 Hz: $n"
