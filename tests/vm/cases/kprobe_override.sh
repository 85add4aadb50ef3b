# bpftrace's override(rc), with --unsafe: the workload's getppid calls return -1 instead of
# running (syscall wrappers are open to error injection), as sys_exit_getppid sees them. A
# kernel built without CONFIG_BPF_KPROBE_OVERRIDE has no bpf_override_return: sonde must say so.
run_sonde --unsafe -c 'sonde-workload comm wl_ovr getppid 3' 'kprobe:__x64_sys_getppid /comm == "wl_ovr"/ { override(-1); } tracepoint:syscalls:sys_exit_getppid /comm == "wl_ovr"/ { @[args.ret] = count(); }'
if grep -q 'CONFIG_BPF_KPROBE_OVERRIDE' "$SONDE_ERR_FILE"; then
	note "this kernel has no CONFIG_BPF_KPROBE_OVERRIDE: override() is refused"
	expect_status 1
	expect_stderr_match 'override\(\) needs a kernel built with CONFIG_BPF_KPROBE_OVERRIDE'
else
	expect_status 0
	expect_line '@[-1]: 3'
fi
# Without --unsafe it is refused before anything loads.
run_sonde -e 'kprobe:__x64_sys_getppid { override(-1); }'
expect_status 2
expect_stderr_match 'override\(\) changes what a kernel function returns: it is allowed only with --unsafe'
