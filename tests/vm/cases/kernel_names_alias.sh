# vm-cost: 48
# Syscalls without arguments: `__x64_sys_getppid` shares `__do_sys_getppid`'s address, and
# available_filter_functions lists only one of them. The kernel accepts both names, so sonde
# does too: exact names, globs (one probe per address: no call counted twice), fentry through
# the alias's BTF twin, and the `-l` listing. Exact counts from the workload's calls.
T=/sys/kernel/tracing
for sc in getpid getppid gettid; do
	if grep -qx "__x64_sys_$sc" "$T/available_filter_functions"; then
		note "__x64_sys_$sc is listed here: the alias path is not needed for it"
	fi
	run_sonde -c "sonde-workload $sc 37" "kprobe:__x64_sys_$sc /pid == cpid/ { @n = count(); }"
	expect_status 0
	expect_map '@n' 37
	run_sonde -c "sonde-workload $sc 23" "kretprobe:__x64_sys_$sc /pid == cpid/ { @n = count(); }"
	expect_status 0
	expect_map '@n' 23
done

# A glob over the wrappers takes the aliases, each once; and a glob matching both names of one
# address (`*sys_getppid`: __do_sys_, __x64_sys_, __ia32_sys_) still counts each call once.
run_sonde -c 'sonde-workload getpid 11 getppid 13 gettid 17' 'kprobe:__x64_sys_get*id /pid == cpid/ { @[probe] = count(); }'
expect_status 0
expect_map '@[kprobe:__x64_sys_getpid]' 11
expect_map '@[kprobe:__x64_sys_getppid]' 13
expect_map '@[kprobe:__x64_sys_gettid]' 17
run_sonde -c 'sonde-workload getppid 19' 'kprobe:*sys_getppid /pid == cpid/ { @n = count(); }'
expect_status 0
expect_map '@n' 19

# -l shows them.
run_sonde -l 'kprobe:__x64_sys_getppid'
expect_status 0
expect_match '^kprobe:__x64_sys_getppid$'

# fentry: BTF has no __x64_sys_getppid; its address's twin types it.
if sonde -l 'fentry:__do_sys_getppid' 2>/dev/null | grep -q .; then
	run_sonde -c 'sonde-workload getppid 29' 'fentry:__x64_sys_getppid /pid == cpid/ { @n = count(); }'
	expect_status 0
	expect_map '@n' 29
	run_sonde -c 'sonde-workload getppid 31' 'fexit:__x64_sys_getppid /pid == cpid/ { @[retval > 0] = count(); }'
	expect_status 0
	expect_map '@[1]' 31
	run_sonde -l 'fentry:__x64_sys_getp*id'
	expect_status 0
	expect_match '^fentry:__x64_sys_getppid$'
else
	note 'no BTF for __do_sys_getppid here: fentry through an alias not checked'
fi
