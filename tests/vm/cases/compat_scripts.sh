# vm-timeout: 400
# The compatibility lane on every kernel (tests/compat/*.bt, staged at /opt/compat): each script
# in bpftrace's syntax loads into this kernel's verifier, the control-flow scripts run with the
# numbers the host tests expect (bounded loops are 5.3+: 5.10's verifier must follow them too),
# and kprobes.bt, the kernel-probe script, counts the workload's calls exactly.
SONDE_TIMEOUT=180
C=/opt/compat

for f in "$C"/*.bt; do
	run_sonde --unsafe -e "$f"
	expect_status 0
	expect_stderr_match 'passed the verifier'
done

run_sonde -c 'sonde-workload comm wl_loops getppid 7' "$C/loops.bt"
expect_status 0
expect_line 'while=55 for=18 unroll=32'
expect_map '@calls' 7
expect_line '@seen[0]: 7'
expect_line '@seen[3]: 7'
expect_no_line '@seen[4]: 7'

run_sonde -c 'sonde-workload comm wl_let getppid 7' "$C/let.bt"
expect_status 0
expect_map '@inner' 287
expect_map '@inner2' 14
expect_line '@plain[a longer string]: 7'

run_sonde -c 'sonde-workload comm wl_kprobes read 5 64 getppid 7' "$C/kprobes.bt"
expect_status 0
expect_line '@reads[vfs_read]: 5'
expect_map '@bytes' 320
expect_map '@twice' 640
expect_line '@ret[64]: 5'
# Each getppid: 0+1+2+3 from the for, 5 from the while.
expect_map '@loop' 77
expect_line '@seen[1, getppid]: 7'
expect_map '@fbytes' 320
expect_map '@fret' 320
