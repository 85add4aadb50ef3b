# vm-timeout: 240
# vm-cost: 27
# sonde-kernel's own tests (crates/sonde-kernel/tests/*.rs and its unit tests), built on the host
# by run.sh with `cargo test --release -p sonde-kernel --no-run` and copied to /opt/kernel-tests.
# The host has no kprobes, so there the kprobe/kretprobe/kprobe_multi tests print a "skipped:" note
# and pass vacuously; here every test must run for real. Each executable runs with
# --test-threads=1 --nocapture and stderr merged into stdout, so a test's notes follow its
# `test NAME ... ` line; any "skipped:" note fails the case, except the ones listed in ALLOWED_SKIPS.
# (VM_KERNEL_TESTS=0 tests/vm/run.sh leaves this case out.)
D=/opt/kernel-tests

# "NAME|NOTE" lines: the skips that are right in these guests.
#  without_kprobes_...: the negative test for kernels *without* kprobes; these kernels have them.
ALLOWED_SKIPS='without_kprobes_every_kprobe_attach_says_so_in_one_sentence|this kernel has kprobes'
# Debian's 6.1 cloud kernel is built without CONFIG_FPROBE, so it has no kprobe_multi links
# (bpf_kprobe_multi_link_attach is the EOPNOTSUPP stub): the kprobe_multi test may skip only where
# the kernel really lacks fprobe (register_fprobe is not in kallsyms). 6.12 has it and must run it.
if ! grep -q ' register_fprobe$' /proc/kallsyms; then
	note "no register_fprobe in kallsyms: kprobe_multi_counts_... may skip (no kprobe_multi)"
	ALLOWED_SKIPS="$ALLOWED_SKIPS
kprobe_multi_counts_entries_and_returns_of_several_functions_exactly|this kernel has kprobes but no kprobe_multi"
fi

# Tests left out, per executable ("EXE NAME" lines), each for a reason in the guest's kernel:
#  stacks kernel_stack_from_a_tracepoint_is_all_kernel_addresses: it takes the kernel stack in a
#  program on syscalls:sys_enter_getpid. Before Linux 6.11 ("bpf: Use fake pt_regs when doing bpf
#  syscall tracepoint tracing") a syscall tracepoint hands BPF the *user* pt_regs, so there is no
#  kernel stack to take and bpf_get_stackid returns -EFAULT (-14) on 6.1 (bcc/bpftrace see an
#  empty kstack there too). It runs on 6.12.
SKIPS=''
kver="$(uname -r | sed -n 's/^\([0-9]*\)\.\([0-9]*\).*/\1 \2/p')"
if [ -n "$kver" ] && [ "$(echo "$kver" | awk '{ print ($1 * 1000 + $2 < 6011) }')" = 1 ]; then
	SKIPS='stacks kernel_stack_from_a_tracepoint_is_all_kernel_addresses'
fi

# The executables whose positive paths exist only here must be there.
for t in kprobes fentry uprobes perf_events stacks teardown; do
	check "$D/$t was built and copied" test -x "$D/$t"
done

# Lines "NAME<TAB>NOTE" for every "skipped:" note in the output file $1.
skips() {
	awk '
		match($0, /^test [^ ]+ \.\.\. /) { name = substr($0, 6, RLENGTH - 10) }
		(i = index($0, "skipped: ")) { printf "%s\t%s\n", name, substr($0, i + 9) }
	' "$1"
}

for bin in "$D"/*; do
	[ -x "$bin" ] || continue
	t="${bin##*/}"
	skip_args="$(printf '%s\n' "$SKIPS" | awk -v t="$t" '$1 == t { printf " --skip %s", $2; n++ } END { if (n) printf " --exact" }')"
	[ -z "$skip_args" ] || note "$t: left out on $(uname -r):$skip_args"
	# shellcheck disable=SC2086,SC2016 # skip_args is words on purpose; $0 and $@ are sh -c's
	run_cmd sh -c '"$0" --test-threads=1 --nocapture "$@" 2>&1' "$bin" $skip_args
	expect_status 0
	expect_match '^test result: ok\. [0-9]+ passed; 0 failed'
	if grep -q '^test result: ok\. 0 passed' "$SONDE_OUT_FILE"; then
		fail "$t ran no test"
	fi
	grep -E '^test [^ ]+ \.\.\. .*FAILED$|panicked' "$SONDE_OUT_FILE" | sed 's/^/  /'
	skips "$SONDE_OUT_FILE" >skips.txt
	while IFS="$(printf '\t')" read -r name why; do
		_vm_check
		if printf '%s\n' "$ALLOWED_SKIPS" | grep -Fxq -e "$name|$why"; then
			note "$t::$name skipped as expected ($why)"
		else
			fail "$t::$name skipped in the guest: $why"
		fi
	done <skips.txt
	# The tests that ran (not skipped), for the report.
	ran="$(grep -oE '^test [^ ]+ \.\.\. ' "$SONDE_OUT_FILE" | awk '{ print $2 }' | while read -r n; do
		grep -q "^$n	" skips.txt || printf '%s ' "$n"
	done)"
	note "$t ran: $ran"
done
