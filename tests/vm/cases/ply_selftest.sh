# sonde -T (ply's --self-test) on kernels that have everything the host lacks: kprobes, fentry,
# the function tracer. Every provider attaches for real and the report exits 0; kprobe_multi is
# there on 6.12 only (5.10 predates it, Debian's 6.1 is built without CONFIG_FPROBE).
run_sonde -T
expect_status 0
expect_match '^sonde self-test: Linux '
for p in 'BEGIN/END' tracepoint interval profile software kprobe kretprobe fentry fexit uprobe uretprobe; do
	expect_match "^  ok +$p +.* attached and detached$"
done
for f in 'kernel version' 'bpf\(2\) syscall' BTF 'ring buffer' kprobes fentry/trampolines uprobes tracefs 'function tracer'; do
	expect_match "^  ok +$f "
done
case "$(uname -r)" in
6.12*)
	expect_match '^  ok +kprobe_multi +a glob attaches as one link$'
	expect_match '^sonde can run here; everything works\.$'
	;;
*)
	expect_match '^  missing +kprobe_multi +refused'
	expect_match '^ +-> Linux 5\.18 or later built with CONFIG_FPROBE=y$'
	expect_match '^sonde can run here; missing: kprobe_multi\.$'
	;;
esac
# Nothing is left behind: no sonde probe events in tracefs.
check "no sonde kprobe events are left" sh -c '! grep -q sonde /sys/kernel/tracing/kprobe_events'

# -f json: one self_test record (docs/json.md) with the same verdicts.
run_sonde -T -f json
expect_status 0
check "one JSON line" test "$(wc -l <"$SONDE_OUT_FILE")" = 1
expect_match '^\{"type": "self_test", "data": \{"checks": \['
expect_match '"name": "kprobe", "needed": false, "ok": true\}'
expect_match '"name": "fentry", "needed": false, "ok": true\}'
