# vm-timeout: 3000
# Guest side of bench/kprobes.sh (busybox ash). bench/kprobes.sh installs it as the only case of
# the tests/vm initramfs (so /init runs it with tests/vm/lib.sh sourced), next to sonde, bpftrace
# and its libraries, /opt/bench/kprobes-timer and /opt/bench/ready. It prints result lines for the
# host to read off the console:
#   @@R TOOL ID MODE RUN attaching=S ready=S sigint=S exit=S detach=S probes=N status=N
#   @@INSN N sonde program ... (Kprobe, K instructions)   (sonde -S, one line per program)
#   @@ELF N TOOL BASE64                                     (bpftrace --emit-elf, whole file)
#   @@INFO key=value
#   @@ONELINER N text
# /etc/sonde-vm/bench.conf may set RUNS; /etc/sonde-vm/oneliners holds the one-liners, one a line.
RUNS=3
# shellcheck disable=SC1091 # written by bench/kprobes.sh
[ -r /etc/sonde-vm/bench.conf ] && . /etc/sonde-vm/bench.conf
T=/sys/kernel/tracing
TIMER=/opt/bench/kprobes-timer
# bpftrace's -c wants an ELF binary, not a script: both tools run the ready script through sh.
READY='/bin/sh /opt/bench/ready'
# bpftrace 0.17 tries to raise RLIMIT_MEMLOCK (and complains when it cannot).
# shellcheck disable=SC3045 # busybox ash has ulimit -l
ulimit -l unlimited 2>/dev/null

echo "@@INFO runs=$RUNS"
echo "@@INFO vfs_lines=$(grep -c '^vfs_' "$T/available_filter_functions")"
echo "@@INFO vfs_functions=$(sed -n 's/^\(vfs_[A-Za-z0-9_]*\).*/\1/p' "$T/available_filter_functions" | sort -u | wc -l)"
echo "@@INFO kprobe_multi=$(grep -q ' register_fprobe$' /proc/kallsyms && echo yes || echo no)"
echo "@@INFO bpftrace=$(bpftrace --version 2>&1)"

# run_tool TOOL ID MODE RUN PROGRAM COMMAND: one timed run of TOOL tracing PROGRAM with -c COMMAND.
#   MODE total:  COMMAND is /bin/true; the tool exits when it does (launch, attach, detach, exit)
#   MODE detach: COMMAND prints @@BENCH_READY (so the probes are attached) and sleeps; the timer
#                then sends SIGINT to the group, as Ctrl-C would, and times the exit
run_tool() {
	_tool=$1 _id=$2 _mode=$3 _run=$4 _prog=$5 _cmd=$6
	_log="log.$_tool.$_id.$_mode.$_run"
	if [ "$_mode" = detach ]; then
		set -- -r @@BENCH_READY -i
	else
		set --
	fi
	case "$_tool" in
	sonde) set -- "$@" -- sonde -c "$_cmd" "$_prog" ;;
	bpftrace) set -- "$@" -- bpftrace -c "$_cmd" -e "$_prog" ;;
	esac
	_res="$("$TIMER" -t 600 -o "$_log" "$@")"
	_rc=$?
	echo "@@R $_tool $_id $_mode $_run $_res"
	check "$_tool $_id $_mode run $_run finished cleanly ($_res)" test "$_rc" = 0
	if [ "$_rc" != 0 ]; then
		tail -n 20 "$_log" | sed 's/^/  | /'
	fi
}

# Probes: ID|PROBE|SLOW. Without kprobe_multi each function is its own kprobe, attached and
# detached one by one (about 0.1 s each under TCG), so the SLOW ones (hundreds of functions)
# run once, without a warm-up, there; and the 1000+ glob only where kprobe_multi exists.
multi=no
grep -q ' register_fprobe$' /proc/kallsyms && multi=yes
for spec in 'vfs|kprobe:vfs_*|' 'sys|kprobe:__x64_sys_*|slow' 'acpi|kprobe:acpi_*|multi' 'openat2|kprobe:do_sys_openat2|'; do
	id=${spec%%|*}
	rest=${spec#*|}
	probe=${rest%%|*}
	slow=${rest#*|}
	prog="$probe { @n = count(); }"
	runs=$RUNS
	if [ "$multi" = no ]; then
		case "$slow" in
		multi)
			echo "@@INFO skipped_$id=no kprobe_multi: ${probe} would attach one function at a time"
			continue
			;;
		slow) runs=1 ;;
		esac
	fi
	# One warm-up run of each tool (not counted), then the interleaved rounds.
	if [ "$runs" = "$RUNS" ]; then
		for tool in sonde bpftrace; do
			run_tool "$tool" "$id" warm 0 "$prog" /bin/true
		done
	fi
	i=1
	while [ "$i" -le "$runs" ]; do
		for tool in sonde bpftrace; do
			run_tool "$tool" "$id" total "$i" "$prog" /bin/true
			run_tool "$tool" "$id" detach "$i" "$prog" "$READY"
		done
		i=$((i + 1))
	done
done

# Instruction counts: sonde -S (dry run: compiled and verified, not attached) and bpftrace's ELF.
n=0
while IFS= read -r oneliner; do
	[ -n "$oneliner" ] || continue
	n=$((n + 1))
	echo "@@ONELINER $n $oneliner"
	sonde -S -e "$oneliner" >sonde.$n.out 2>&1
	check "sonde -S -e one-liner $n" test $? = 0
	grep '^program ' sonde.$n.out | sed "s/^/@@INSN $n sonde /"
	rm -f bt.$n.o
	bpftrace --emit-elf bt.$n.o -e "$oneliner" >bt.$n.out 2>&1
	check "bpftrace --emit-elf one-liner $n" test -s bt.$n.o
	[ -s bt.$n.o ] || sed 's/^/  | /' bt.$n.out
	[ -s bt.$n.o ] && echo "@@ELF $n bpftrace $(base64 -w 0 bt.$n.o)"
done </etc/sonde-vm/oneliners
