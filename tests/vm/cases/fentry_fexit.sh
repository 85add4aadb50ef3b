# fentry arguments by name and fexit's retval, typed from BTF.
run_sonde -c 'sonde-workload comm wl_fent openat 2 /etc/sonde-fentry' \
	'fentry:do_sys_openat2 /comm == "wl_fent"/ { printf("open %s\n", str(args->filename)); } fexit:do_sys_openat2 /comm == "wl_fent"/ { @[retval] = count(); }'
expect_status 0
expect_line 'open /etc/sonde-fentry'
expect_line '@[-2]: 2'
