# vm-cost: 11
# Unknown function (with a hint for old syscall names), fentry on a missing function,
# a missing uprobe binary and symbol: one clear sentence each, exit 2, nothing attached.
run_sonde 'kprobe:SyS_openat { @ = count(); }'
expect_status 2
expect_stderr_match '__x64_sys_openat'
run_sonde 'kprobe:vfs_raed { @ = count(); }'
expect_status 2
expect_stderr_match 'did you mean `vfs_read`'
run_sonde 'fentry:no_such_function_sonde { @ = count(); }'
expect_status 2
expect_stderr_match 'not in BTF'
run_sonde 'uprobe:/no/such/binary:main { @ = count(); }'
expect_status 2
run_sonde 'uprobe:libc:no_such_symbol_sonde { @ = count(); }'
expect_status 2
expect_stderr_match 'no_such_symbol_sonde'
# A function that does not exist, and one that exists but is on the kprobe blacklist.
run_sonde 'kprobe:no_such_function_sonde { @ = count(); }'
expect_status 2
expect_stderr_match 'there is no kernel function `no_such_function_sonde`'
bl=$(awk '{print $2}' /sys/kernel/debug/kprobes/blacklist | grep -v '^$' | grep -v '\[' | head -1)
if [ -n "$bl" ]; then
	run_sonde "kprobe:$bl { @ = count(); }"
	expect_status 2
	expect_stderr_match 'notrace or lists it on the kprobe blacklist'
else
	fail 'the kprobe blacklist is empty: cannot check the notrace message'
fi
