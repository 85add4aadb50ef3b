# sonde graph's trees show return values where the kernel has funcgraph-retval (6.5+): a read
# of 100 bytes returns 0x64; the option is put back afterwards. Kernels without it show none.
# vm-timeout: 300
T=/sys/kernel/tracing
if ! grep -qw function_graph "$T/available_tracers"; then
	note "skipped: $(uname -r) has no function_graph tracer"
	exit 0
fi
run_sonde graph -n 1 vfs_read -- sonde-workload read 1 100
expect_status 0
expect_match '^call 1: vfs_read in sonde-workload-[0-9]+, cpu'
if [ -e "$T/options/funcgraph-retval" ]; then
	before=$(cat "$T/options/funcgraph-retval")
	expect_match ' vfs_read = 0x64$'
	run_sonde graph --json -n 1 vfs_read -- sonde-workload read 1 100
	expect_status 0
	expect_match '"name": "vfs_read", "own_ns": [0-9]+, "retval": "0x64", "total_ns": [0-9]+\}\}\}$'
	check 'funcgraph-retval put back' test "$(cat "$T/options/funcgraph-retval")" = "$before"
else
	note "$(uname -r) has no funcgraph-retval: no return values"
	check 'no return values' test "$(grep -c ' = ' "$SONDE_OUT_FILE")" = 0
fi
