# Every byte of every map key is defined, on every kernel: one entry per distinct value with the
# workload's exact count. Some kernels (Debian's 6.1) copy comm up to its NUL and leave the rest
# of the buffer as it was, so a key buffer that was not cleared first split `@[comm]` of one
# process into many entries (`@[wl_k]: 1` ... `@[wl_k]: 3`). 6.12 and 6.18 pad, and hide it.
# vm-timeout: 400
# vm-cost: 23

WL='sonde-workload comm wl_k openat 20 /dev/null'

# only_entry 'ERE' [N]: exactly one line matches ERE (and it ends in `: N`).
only_entry() {
	_n="$(grep -cE "$1" "$SONDE_OUT_FILE")"
	check "exactly one entry matches $1 (found $_n)" [ "$_n" -eq 1 ]
	if [ $# -ge 2 ]; then
		check "that entry counts $2" grep -qE "$1.*: $2\$" "$SONDE_OUT_FILE"
	fi
}

run_sonde -c "$WL" 'tracepoint:syscalls:sys_enter_openat /pid == cpid/ { @[comm] = count(); }'
expect_status 0
only_entry '^@\[wl_k\]' 20
# The loader's opens, before the rename, are one entry too.
only_entry '^@\[sonde-workload\]' '[0-9]+'

run_sonde -c "$WL" 'tracepoint:syscalls:sys_enter_openat /pid == cpid/ { @[comm, pid] = count(); }'
expect_status 0
only_entry '^@\[wl_k, [0-9]+\]' 20

# A u32 then a string: the key's padding and the string's tail.
run_sonde -c "$WL" 'tracepoint:syscalls:sys_enter_openat /pid == cpid/ { @[(u32)pid, comm] = count(); }'
expect_status 0
only_entry '^@\[[0-9]+, wl_k\]' 20

# A histogram's key: comm, then the bucket.
run_sonde -c "$WL" 'tracepoint:syscalls:sys_enter_openat /pid == cpid/ { @h[comm] = hist(20); }'
expect_status 0
only_entry '^@h\[wl_k\]:$'
expect_match '^\[16, 32\) +20 \|'

# A string read from user memory (the file name) as the key.
run_sonde -c "$WL" 'kprobe:do_sys_openat2 /pid == cpid/ { @[str(arg1)] = count(); }'
expect_status 0
only_entry '^@\[/dev/null\]' 20

# A stack id as the key: the same call path is one entry.
run_sonde -c "$WL" 'kprobe:do_sys_openat2 /comm == "wl_k"/ { @[kstack] = count(); }'
expect_status 0
only_entry '^@\[$'
only_entry '^\]: [0-9]+$'
expect_line ']: 20'
expect_match '^ +do_sys_openat2'

# caller/func: bpf_get_func_ip where the kernel has it (5.15+), else the registers (kprobes)
# or kallsyms (kretprobes, fentry), the same answer on every kernel.
run_sonde -c "$WL" 'kprobe:do_sys_openat2 /comm == "wl_k"/ { @[caller] = count(); }'
expect_status 0
expect_line '@[do_sys_openat2]: 20'
run_sonde -c "$WL" 'kretprobe:do_sys_openat2 /comm == "wl_k"/ { @[func] = count(); @r[retval >= 0] = count(); }'
expect_status 0
expect_line '@[do_sys_openat2]: 20'
expect_line '@r[1]: 20'
run_sonde -c "$WL" 'fentry:do_sys_openat2 /comm == "wl_k"/ { @[func] = count(); } fexit:do_sys_openat2 /comm == "wl_k"/ { @x[caller] = count(); }'
expect_status 0
expect_line '@[do_sys_openat2]: 20'
expect_line '@x[do_sys_openat2]: 20'
# A glob shares one program among its functions: the address is each function's own.
run_sonde -c 'sonde-workload comm wl_k read 4 100 write 3 10' 'kprobe:ksys_read, kprobe:ksys_write /comm == "wl_k"/ { @[caller] = count(); }'
expect_status 0
expect_line '@[ksys_read]: 4'
expect_line '@[ksys_write]: 3'

# printf at a low rate: every line arrives (the reader drains on a timer, not on wake-ups).
run_sonde -c 'sonde-workload comm wl_k seq getpid 1 sleep 200 getpid 1 sleep 200 getpid 1 sleep 200 getpid 1 sleep 200 getpid 1' \
	'tracepoint:syscalls:sys_enter_getpid /comm == "wl_k"/ { printf("tick %d\n", pid == cpid); }'
expect_status 0
_n="$(grep -c '^tick 1$' "$SONDE_OUT_FILE")"
check "all 5 printf lines arrived (got $_n)" [ "$_n" -eq 5 ]

# No `ulimit -l` here: on 5.10 sonde raises the locked-memory limit itself.
note "locked-memory limit in the guest: $(ulimit -l)"
