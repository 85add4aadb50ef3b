# vm-timeout: 1500
# Guest side of bench/probe.sh (busybox ash): `sonde probe` beside the same kprobe_events
# definition written by hand, and beside the same probe as a BPF program. Result lines:
#   @@R WHAT RUN ready=S sigint=S exit=S detach=S status=N   (bench/kprobes-timer's fields)
#   @@L WHAT RUN exit=S                                        (a workload's wall time)
#   @@INFO key=value
RUNS=3
N=20000
# shellcheck disable=SC1091 # written by bench/probe.sh
[ -r /etc/sonde-vm/bench.conf ] && . /etc/sonde-vm/bench.conf
T=/sys/kernel/tracing
TIMER=/opt/bench/kprobes-timer
EXPR='p do_sys_openat2 dfd=%0 flags=%2->flags'
echo "@@INFO runs=$RUNS n=$N"

# The definition sonde writes, for the hand-written run (renamed to a group of its own).
DEF=$(sonde probe --show "$EXPR" | sed -n "1s/^echo '\\(.*\\)' >>.*/\\1/p" | sed 's#^p:sonde/[a-z0-9_]*#p:byhand/open#')
echo "@@INFO definition=$DEF"
cat >/opt/bench/byhand <<SH
#!/bin/sh
# By hand: the definition, an instance, the enable, trace_pipe; on Ctrl-C the same clean-up.
I=$T/instances/byhand
echo '$DEF' >> $T/kprobe_events
mkdir \$I
echo 1 > \$I/events/byhand/open/enable
cleanup() { echo 0 > \$I/events/byhand/open/enable; rmdir \$I; echo '-:byhand/open' >> $T/kprobe_events; exit 0; }
trap cleanup INT TERM
# In the foreground: Ctrl-C reaches cat too (a background job of sh would ignore it).
cat \$I/trace_pipe
cleanup
SH
chmod 755 /opt/bench/byhand

# Something opens files all the time, so the first event line comes as soon as the probe is on.
(while :; do : </proc/version; sleep 0.01; done) &
opener=$!

# timed WHAT RUN COMMAND...: launch until the first event line (naming do_sys_openat2), then
# SIGINT (as Ctrl-C) until exit.
timed() {
	_what=$1 _run=$2
	shift 2
	_res="$("$TIMER" -t 60 -r do_sys_openat2 -i -o "log.$_what.$_run" -- "$@")"
	echo "@@R $_what $_run $_res"
}
i=0
while [ "$i" -le "$RUNS" ]; do # run 0 is a warm-up
	timed sonde "$i" sonde probe "$EXPR"
	timed byhand "$i" /opt/bench/byhand
	i=$((i + 1))
done
kill "$opener"
wait "$opener" 2>/dev/null
check 'kprobe_events is empty again' test -z "$(cat $T/kprobe_events)"

# Per event: N openat calls alone, under `sonde probe` (kprobe_events, records read from
# trace_pipe) and under the same probe as a BPF program (`--to-language`: printf per event) and
# as a count (an aggregation, where BPF shines).
PROG=$(sonde probe --to-language "$EXPR")
echo "@@INFO program=$PROG"
COUNT='kprobe:do_sys_openat2 { @n = count(); }'
# under WHAT RUN TRACER...: the loop's wall time with TRACER started first (output to /dev/null).
under() {
	_what=$1 _run=$2
	shift 2
	if [ "$_what" != none ]; then
		"$@" >/dev/null 2>"err.$_what" &
		_pid=$!
		_n=0
		while ! grep -q -e '^Tracing' -e '^Attaching' -e '^Attached' "err.$_what" && [ $_n -lt 300 ]; do
			sleep 0.1
			_n=$((_n + 1))
		done
	fi
	echo "@@L $_what $_run $("$TIMER" -t 120 -- sonde-workload comm bench_wl openat "$N" /etc/sonde-bench-nonexistent)"
	if [ "$_what" != none ]; then
		kill -INT "$_pid"
		wait "$_pid"
	fi
}
i=1
while [ "$i" -le "$RUNS" ]; do
	under none "$i"
	under probe "$i" sonde probe "$EXPR"
	under bpf "$i" sonde "$PROG"
	under count "$i" sonde "$COUNT"
	i=$((i + 1))
done
check 'kprobe_events is empty at the end' test -z "$(cat $T/kprobe_events)"
