# ply's `kprobe:SyS_openat { print(comm, pid, str(arg1)); }` with today's function: the file names
# the workload opened, read from user memory through an untyped register argument.
run_sonde -c 'sonde-workload comm wl_open openat 3 /etc/sonde-vm-file' \
	'kprobe:do_sys_openat2 /comm == "wl_open"/ { printf("%s %s\n", comm, str(arg1)); }'
expect_status 0
expect_line 'wl_open /etc/sonde-vm-file'
[ "$(grep -c '^wl_open /etc/sonde-vm-file$' "$SONDE_OUT_FILE")" = 3 ] || fail 'expected exactly 3 opens'
