# vm-cost: 12
# -l lists kprobes, fentry points and uprobes; -lv shows BTF argument types.
run_sonde -l 'kprobe:vfs_rea*'
expect_status 0
expect_line 'kprobe:vfs_read'
run_sonde -lv 'kprobe:do_sys_openat2'
expect_status 0
expect_line 'kprobe:do_sys_openat2'
expect_match '^    const char \* arg1 \(filename\)$'
run_sonde -lv 'fexit:do_sys_openat2'
expect_status 0
expect_match '^    struct open_how \* args->how$'
expect_match ' retval$'
run_sonde -l "uprobe:$(command -v sonde-workload):sonde_workload_*"
expect_status 0
expect_match ':sonde_workload_target$'
# A syscall wrapper lists the syscall's arguments (what argN reads there), not its pt_regs pointer.
run_sonde -lv 'kprobe:__x64_sys_openat'
expect_status 0
expect_line 'kprobe:__x64_sys_openat'
expect_line '    s8 * arg1 (filename)'
run_sonde -lv 'kretprobe:__x64_sys_read'
expect_status 0
expect_match '^    (s64|long) retval$'
