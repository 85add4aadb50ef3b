# The docs' kprobe/kretprobe/fentry examples (README.md, docs/*.md), exactly as written there, load
# into the verifier (-e). crates/sonde/tests/examples.rs checks that every such example appears here.
for prog in \
	'kprobe:wake_up_new_task { printf("%s %d\n", arg0->comm, arg0->pid); }' \
	'kretprobe:do_sys_openat2 { @[retval] = count(); }' \
	'fentry:do_sys_openat2 { printf("%s %s\n", comm, str(args->filename)); }' \
	'kprobe:vfs_* { @[caller] = count(); }' \
	'kprobe:__x64_sys_openat { print(comm, pid, str(arg1)); }'; do
	run_sonde -e "$prog"
	expect_status 0
done
