# vm-timeout: 400
# vm-cost: 22
# The compatibility lane on every kernel (tests/compat/*.bt, staged at /opt/compat): each script
# in bpftrace's syntax loads into this kernel's verifier, the control-flow scripts run with the
# numbers the host tests expect (bounded loops are 5.3+: 5.10's verifier must follow them too),
# kprobes.bt, the kernel-probe script, counts the workload's calls exactly, and agg_read.bt reads
# aggregations combined over both vCPUs where the kernel has bpf_map_lookup_percpu_elem.
SONDE_TIMEOUT=180
C=/opt/compat

# Map iteration is bpf_for_each_map_elem's (5.13+): older kernels get one sentence instead.
major=$(uname -r | cut -d. -f1)
minor=$(uname -r | cut -d. -f2)
old_kernel=0
{ [ "$major" -lt 5 ] || { [ "$major" -eq 5 ] && [ "$minor" -lt 13 ]; }; } && old_kernel=1
# Reading an aggregation in a probe is bpf_map_lookup_percpu_elem's (5.19+).
no_percpu_lookup=0
{ [ "$major" -lt 5 ] || { [ "$major" -eq 5 ] && [ "$minor" -lt 19 ]; }; } && no_percpu_lookup=1
for f in "$C"/*.bt; do
	# A `// params: A B` line gives the positional parameters the script's probe specs need.
	# shellcheck disable=SC2046 # the words are the parameters
	run_sonde --unsafe -e "$f" $(sed -n 's|^// params: ||p' "$f")
	if [ "$no_percpu_lookup" = 1 ] && [ "${f##*/}" = agg_read.bt ]; then
		expect_status 2
		expect_stderr_match 'needs the kernel.s bpf_map_lookup_percpu_elem \(Linux 5\.19 and later\), which this kernel lacks'
		continue
	fi
	if [ "$old_kernel" = 1 ] && grep -q 'for (\$[a-z_]* : @' "$f"; then
		expect_status 2
		expect_stderr_match 'needs the kernel.s bpf_for_each_map_elem \(Linux 5\.13 and later\), which this kernel lacks'
		continue
	fi
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

# Map iteration's callbacks (a BPF-to-BPF function with its own BTF func info) on each kernel
# that has bpf_for_each_map_elem, with the host's numbers.
if [ "$old_kernel" = 0 ]; then
	run_sonde -c 'sonde-workload comm wl_mapfor getppid 7' "$C/map_for.bt"
	expect_status 0
	expect_line 'sum=14'
	expect_line '@visits[1]: 7'
	expect_line '@visits[3]: 7'
	expect_map '@twos' 7
	expect_map '@seen' 3
	expect_line 'found 2'
	expect_no_line 'not reached'
fi

# Aggregations read in probes, combined over both vCPUs: 3 calls on CPU 0, then 4 on CPU 1.
if [ "$no_percpu_lookup" = 0 ]; then
	run_sonde -c 'sonde-workload comm wl_aggread cpu 0 getppid 3 cpu 1 getppid 4' "$C/agg_read.bt"
	expect_status 0
	expect_line 'fifth call'
	expect_line 'n=7 bytes=70 lo=1 hi=7'
	expect_line 'for 7 70'
fi
