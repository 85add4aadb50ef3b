# A kernel without BTF (hidden here by mounting an empty tmpfs over /sys/kernel/btf): sonde says so
# once, and what needs no kernel types keeps working: kprobes with integer and string arguments,
# tracepoints, uprobes. What needs types gets one clear error.
mount -t tmpfs none /sys/kernel/btf
check 'BTF is hidden' sh -c '! test -e /sys/kernel/btf/vmlinux'

run_sonde -c 'sonde-workload comm wl_nobtf openat 2 /etc/sonde-nobtf' \
	'kprobe:do_sys_openat2 /comm == "wl_nobtf"/ { printf("%s\n", str(arg1)); } tracepoint:syscalls:sys_enter_openat /comm == "wl_nobtf"/ { @tp = count(); } kretprobe:do_sys_openat2 /comm == "wl_nobtf"/ { @[retval] = count(); }'
expect_status 0
n=$(grep -c '^/etc/sonde-nobtf$' "$SONDE_OUT_FILE")
[ "$n" = 2 ] || fail "expected 2 lines '/etc/sonde-nobtf', saw $n"
expect_map '@tp' 2
expect_line '@[-2]: 2'
n=$(grep -c 'no BTF' "$SONDE_ERR_FILE")
[ "$n" = 1 ] || fail "the missing BTF should be said once, not $n times"

run_sonde 'kprobe:wake_up_new_task { printf("%d\n", arg0->pid); }'
expect_status 2
expect_stderr_match 'no BTF'

run_sonde 'fentry:do_sys_openat2 { @ = count(); }'
expect_status 2
expect_stderr_match 'no BTF.*use kprobe: instead'

run_sonde 'BEGIN { printf("%d\n", ((struct task_struct *)curtask)->pid); exit(); }'
expect_status 2
expect_stderr_match 'no BTF'

umount /sys/kernel/btf
check 'BTF is back' test -e /sys/kernel/btf/vmlinux
