# bpftrace's `fn`: BPF global functions, each verified once, called from a tracepoint, a kprobe
# and a raw tracepoint; their values, maps and prints as C computes them.
# vm-cost: 8
run_sonde -c 'sonde-workload openat 1 /nonexistent getppid 7' '
fn scaled($x: int64, $by: int32): int64 { return $x * $by; }
fn note($tag: int64, $p: uint64) { @seen[$tag] = count(); printf("%d %s\n", $tag, str($p, 32)); }
fn add3($a: int64, $b: int64, $c: int64): int64 { return scaled($a, 1) + $b + $c; }
tracepoint:syscalls:sys_enter_openat /pid == cpid/ { note(1, args.filename); }
tracepoint:syscalls:sys_enter_getppid /pid == cpid/ { @s = sum(scaled(2, -3)); }
kprobe:__x64_sys_getppid /pid == cpid/ { @k = sum(add3(1, 2, 3)); }
rawtracepoint:sys_enter /pid == cpid && arg1 == 110/ { @x = sum(scaled(1, 1)); }'
expect_status 0
expect_line '1 /nonexistent'
expect_map '@s' -42
expect_map '@k' 42
expect_map '@x' 7
# A function reads no probe context: told where it is written.
run_sonde 'fn f(): int64 { return retval; } kretprobe:vfs_read { @ = f(); }'
expect_status 2
expect_stderr_match 'runs without a probe.s context'
