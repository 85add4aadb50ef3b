# Tracepoint fields typed from the format file: only the workload's 3333-byte reads count.
run_sonde -c 'sonde-workload read 7 3333' 'tracepoint:syscalls:sys_enter_read /pid == cpid && args->count == 3333/ { @n = count(); @bytes = sum(args->count); }'
expect_status 0
expect_map '@n' 7
expect_map '@bytes' 23331
