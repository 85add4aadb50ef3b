# uprobe/uretprobe on a function of a shipped binary, and on libc found by name; -p limits them.
WL=$(command -v sonde-workload)
run_sonde -c 'sonde-workload ucall 50 libc-getpid 7' \
	"uprobe:$WL:sonde_workload_target /pid == cpid/ { @n = count(); @s = sum(arg0); } uretprobe:$WL:sonde_workload_target /pid == cpid/ { @r = sum(retval); } uprobe:libc:getpid /pid == cpid/ { @g = count(); }"
expect_status 0
expect_map '@n' 50
expect_map '@s' 1275
expect_map '@r' 2550
expect_map '@g' 7
