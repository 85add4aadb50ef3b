# A glob of syscall functions (the read/write family; ply_manual.sh runs the manual's full
# `kprobe:SyS_*`): the functions attach through one kprobe_multi link where the kernel has it;
# caller prints as a symbol.
run_sonde -c 'sonde-workload comm wl_dd read 4 100 write 3 10' \
	'kprobe:__x64_sys_[rw]* / !strcmp(execname, "wl_dd") / { @[caller] = count(); }'
expect_status 0
expect_line '@[__x64_sys_read]: 4'
expect_line '@[__x64_sys_write]: 3'
expect_stderr_match '^Attached [0-9]{2,} probes$'
# -d says how many matching kernel functions could not be probed.
run_sonde -d -e 'kprobe:vfs_* { @ = count(); }'
expect_status 0
expect_stderr_match '^sonde: kprobe:vfs_\* matches [0-9]+ traceable functions; [0-9]+ more kernel functions match but cannot be probed'
