# kstack in a kprobe, symbolized one frame a line (bpftrace's layout); caller; regs from BTF;
# kstack(perf, N), kstack(raw, N), len(kstack) and bpftrace's reg("ip").
run_sonde -c 'sonde-workload comm wl_st openat 3 /nonexistent-sonde' \
	'kprobe:do_sys_openat2 /comm == "wl_st"/ { @[kstack] = count(); @c[caller] = count(); @ip[regs->si == (u64)arg1] = count(); }'
expect_status 0
expect_match '^        do_sys_openat2(\+0x[0-9a-f]+)?$'
expect_match '^        __x64_sys_openat\+0x[0-9a-f]+$'
expect_match '^\]: 3$'
expect_line '@c[do_sys_openat2]: 3'
expect_line '@ip[1]: 3'

# bpftrace's stack calls: two frames in perf's layout (address, then symbol), one raw address.
run_sonde -c 'sonde-workload comm wl_st openat 3 /nonexistent-sonde' \
	'kprobe:do_sys_openat2 /comm == "wl_st"/ { @[kstack(perf, 2)] = count(); @r[kstack(raw, 1)] = count(); @l = len(kstack(2)); @deep = len(kstack) > 2; @ip[reg("ip") == regs->ip] = count(); }'
expect_status 0
expect_match '^        [0-9a-f]{16} do_sys_openat2(\+0x[0-9a-f]+)?$'
expect_match '^        [0-9a-f]{16} __x64_sys_openat\+0x[0-9a-f]+$'
expect_match '^[0-9a-f]{16}$'
expect_match '^\]: 3$'
expect_map '@l' 2
expect_map '@deep' 1
expect_line '@ip[1]: 3'
