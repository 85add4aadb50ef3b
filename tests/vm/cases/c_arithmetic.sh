# C's arithmetic on every kernel: signed / and % (BPF's signed instructions on 6.6+, unsigned ones
# and the sign before), typedef'd syscall arguments read signed (off_t), and an unsigned int
# fd compared with -1 as C compares it. lseek(-1, -K, SEEK_CUR) for K = 1..13.
run_sonde -c 'sonde-workload lseek 13' 'tracepoint:syscalls:sys_enter_lseek /pid == cpid/ { @s = sum(args->offset); @q = sum(args->offset / 2); @r = sum(args->offset % 3); } tracepoint:syscalls:sys_enter_lseek /pid == cpid && args->fd == -1/ { @fd = count(); }'
expect_status 0
expect_map '@s' -91
expect_map '@q' -42
expect_map '@r' -13
expect_map '@fd' 13
run_sonde 'BEGIN { $a = -7; @d = $a / 2; @m = $a % 2; @p = (int32 *)0x32; @p++; }'
expect_status 0
expect_map '@d' -3
expect_map '@m' -1
# A pointer prints in hex, as bpftrace's: 0x32 + sizeof(int32).
expect_line '@p: 0x36'
