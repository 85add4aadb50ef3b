# sonde graph's trees show return values where the kernel has funcgraph-retval (6.5+ built with
# CONFIG_FUNCTION_GRAPH_RETVAL), and the option is put back afterwards. None of the lane's Debian
# kernels (5.10, 6.1, 6.12) is built with it: there the trees are unchanged (graph_tree.sh).
# vm-timeout: 600
T=/sys/kernel/tracing
if ! grep -qw function_graph "$T/available_tracers" || [ ! -e "$T/options/funcgraph-retval" ]; then
	note "$(uname -r) has no funcgraph-retval: trees without return values (graph_tree.sh)"
	exit 0
fi
# function_graph under TCG: setting up and restoring take long.
SONDE_TIMEOUT=240
before=$(cat "$T/options/funcgraph-retval")
run_sonde graph vfs_read -- sonde-workload read 3 100
expect_status 0
# The workload's own reads of 100 bytes from /dev/zero return 0x64.
expect_match ' vfs_read = 0x64$'
check 'funcgraph-retval put back' test "$(cat "$T/options/funcgraph-retval")" = "$before"
