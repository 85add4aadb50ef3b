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
