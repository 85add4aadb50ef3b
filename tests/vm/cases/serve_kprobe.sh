# sonde serve with a kprobe program: a scrape (busybox wget) shows the workload's exact count;
# once attached, sonde keeps only the capabilities a reload needs, and with those a SIGHUP
# loads a kretprobe program beside it.
mkdir progs
cat >progs/getpid.bt <<'PROG'
// getpid() calls of the workload.
kprobe:__do_sys_getpid /comm == "wl_serve"/ { @getpids = count(); @by_comm[comm] = count(); }
PROG
start_sonde_until serve 'serving .* at http://' serve --listen 127.0.0.1:19435 progs
run_cmd sonde-workload comm wl_serve getpid 100
run_cmd wget -q -O - http://127.0.0.1:19435/metrics
expect_status 0
expect_line 'sonde_getpids_total 100'
expect_line 'sonde_by_comm_total{comm="wl_serve"} 100'
# CAP_DAC_READ_SEARCH, CAP_SYS_PTRACE, CAP_SYS_ADMIN, CAP_SYSLOG, CAP_PERFMON, CAP_BPF.
check 'only what a reload needs is kept' grep -q '^CapEff:[[:space:]]*000000c400280004$' "/proc/$BG_PID/status"
grep Cap "/proc/$BG_PID/status" | sed 's/^/  /'

cat >progs/rets.bt <<'PROG'
kretprobe:__do_sys_getpid /comm == "wl_serve"/ { @rets = count(); }
PROG
kill -HUP "$BG_PID"
n=0
while ! grep -q 'reloaded' err.serve && [ $n -lt 600 ]; do
	sleep 0.1
	n=$((n + 1))
done
check 'the reload finished' grep -q 'reloaded: serving 2 program' err.serve
run_cmd sonde-workload comm wl_serve getpid 50
run_cmd wget -q -O - http://127.0.0.1:19435/metrics
expect_line 'sonde_getpids_total 150'
expect_line 'sonde_rets_total 50'
expect_line 'sonde_serve_last_reload_successful 1'
kill -TERM "$BG_PID"
wait "$BG_PID"
SONDE_STATUS=$?
expect_status 0
