# The guest kernel has what the matrix exists for: BTF, kprobes (tracefs and the perf PMU) and
# the ftrace function list. If a kernel package ever drops one, this fails instead of the kprobe
# cases silently testing nothing.
T=/sys/kernel/tracing
note "kernel $(uname -r)"
expect_nonempty /sys/kernel/btf/vmlinux
expect_file "$T/kprobe_events"
expect_file "$T/uprobe_events"
expect_nonempty /sys/bus/event_source/devices/kprobe/type
expect_nonempty /sys/bus/event_source/devices/uprobe/type
expect_nonempty "$T/available_filter_functions"
expect_file "$T/events/syscalls/sys_enter_getpid/format"
check "tracefs is mounted at $T" grep -q " $T tracefs " /proc/mounts
check "do_sys_openat2 is in available_filter_functions" grep -q '^do_sys_openat2\b' "$T/available_filter_functions"

# A kprobe can really be made (and removed) through tracefs.
check "a kprobe on do_sys_openat2 can be created" sh -c "echo 'p:sonde_vm_check do_sys_openat2' >>$T/kprobe_events"
expect_file "$T/events/kprobes/sonde_vm_check/format"
check "the kprobe can be removed" sh -c "echo '-:sonde_vm_check' >>$T/kprobe_events"
