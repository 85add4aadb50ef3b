# BPF iterators: iter:task finds the VM's init (pid 1) and this shell by pid and comm;
# iter:task_file finds a descriptor this shell holds open on a known file; iter:task_vma finds
# the mappings of this shell's own executable (5.12+: 5.10 has no task_vma iterator, which
# sonde says in one sentence). Every run ends with its iteration.
# vm-cost: 4
me=$$
init_comm=$(cat /proc/1/comm)
run_sonde 'iter:task /ctx.task.pid == 1/ { printf("%d %s\n", ctx.task.pid, ctx.task.comm); }'
expect_status 0
expect_line "1 $init_comm"
run_sonde "iter:task /ctx.task.pid == $me/ { printf(\"me %d\n\", ctx.task.tgid); }"
expect_status 0
expect_line "me $me"
# printf's values in the kernel's dialect: a string, a padded integer, hex.
run_sonde 'iter:task /ctx.task.pid == 1/ { printf("[%s] [%-4d] [%x]\n", "init", ctx.task.pid, 255); exit(); }'
expect_status 0
expect_line '[init] [1   ] [ff]'

echo held >"$CASE_TMP/sonde-iter-file"
exec 7<"$CASE_TMP/sonde-iter-file"
run_sonde "iter:task_file /ctx.task.tgid == $me && ctx.fd == 7/ { printf(\"%d %s\n\", ctx.fd, str(ctx.file.f_path.dentry.d_name.name)); }"
expect_status 0
expect_line '7 sonde-iter-file'
exec 7<&-

exe=$(basename "$(readlink /proc/$me/exe)")
vma="iter:task_vma /ctx.task.tgid == $me && ctx.vma.vm_file != 0/ { printf(\"%s\n\", str(ctx.vma.vm_file.f_path.dentry.d_name.name)); }"
case $(uname -r) in
5.10.*)
	run_sonde "$vma"
	expect_status 2
	expect_stderr_match 'this kernel has no `task_vma` iterator'
	;;
*)
	run_sonde "$vma"
	expect_status 0
	expect_line "$exe"
	;;
esac

# The listing comes from BTF.
run_sonde -l 'iter:task*'
expect_status 0
expect_line 'iter:task'
expect_line 'iter:task_file'
