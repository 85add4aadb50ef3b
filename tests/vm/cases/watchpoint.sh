# Hardware breakpoints: a kernel address (jiffies, written every tick) on every CPU, and a
# page of the -c command's written an exact number of times. The lane's qemu (TCG) reports
# writes to a read-write breakpoint but not reads, so `rw` is checked on real hardware only
# (crates/sonde/tests/watchpoint.rs counts both there).
# vm-cost: 2
jiffies=$(awk '$3 == "jiffies" { print $1 }' /proc/kallsyms)
run_sonde "watchpoint:0x$jiffies:4:w { printf(\"hit\n\"); exit(); }"
expect_status 0
expect_line 'hit'
run_sonde -c 'sonde-workload poke 6 0x10000000' 'watchpoint:0x10000000:8:w { @w = count(); } watchpoint:0x10000000:8:rw { @rw = count(); }'
expect_status 0
expect_map '@w' 6
rw=$(map_value '@rw')
check "a read-write watchpoint sees at least the writes (got $rw)" test "$rw" -ge 6
