# vm-cost: 3
# percpu_kaddr(): Debian's kernels list their variables in kallsyms (CONFIG_KALLSYMS_ALL), so the
# verifier finds a per-CPU variable's address from its BTF id. The current CPU's copy is the
# copy of the CPU running the probe; a CPU that does not exist gives 0; CPU 0's run queue is
# CPU 0's. Debian's 5.10 has no variables in its BTF: there the program is refused by name.
run_sonde 'BEGIN { printf("%d %d %d\n", *percpu_kaddr("process_counts") == *percpu_kaddr("process_counts", cpu), percpu_kaddr("process_counts") == percpu_kaddr("process_counts", cpu), percpu_kaddr("process_counts", 1000000) == 0); exit(); }'
case "$(uname -r)" in
5.10.*)
	expect_status 2
	expect_stderr_match "percpu_kaddr\(\): the kernel's BTF has no variable \`process_counts\`"
	;;
*)
	expect_status 0
	expect_line '1 1 1'
	run_sonde 'BEGIN { $rq = percpu_kaddr("runqueues", 0); printf("rq %d %d\n", $rq->cpu, $rq != 0); exit(); }'
	expect_status 0
	expect_line 'rq 0 1'
	;;
esac
