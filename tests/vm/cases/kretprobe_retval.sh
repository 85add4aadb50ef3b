# kretprobe sees the workload's failed opens as -2 (ENOENT); retval typed from BTF (int/long).
# (The loader's own failed opens, before the comm changes, are not counted.)
run_sonde -c 'sonde-workload comm wl_enoent openat 5 /nonexistent-sonde' 'kretprobe:do_sys_openat2 /comm == "wl_enoent"/ { @[retval] = count(); }'
expect_status 0
expect_line '@[-2]: 5'
