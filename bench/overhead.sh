#!/usr/bin/env bash
# Per-event overhead benchmark (not a test): how much slower a tight getpid() loop runs while
# sonde (and bpftrace, when installed) counts every call in a tracepoint program, and how
# fast printf records stream to the terminal side.
#
#   bash bench/overhead.sh            # N=2000000 getpid calls
#   N=500000 bash bench/overhead.sh
#   ROUNDS=9 bash bench/overhead.sh   # interleaved rounds, medians (default 5)
#
# Prints ns per traced call (loop time with tracing minus loop time without, divided by N)
# for each tool side by side, and the ratio bpftrace/sonde.
set -euo pipefail
cd "$(dirname "$0")/.."
[ "$(id -u)" = 0 ] || { echo "bench/overhead.sh: needs root (BPF)" >&2; exit 1; }
[ -d /sys/kernel/tracing/events/syscalls ] || mount -t tracefs nodev /sys/kernel/tracing || true
bins=$(scripts/release-bins sonde sonde-workload 2>/dev/null)
SONDE=$(echo "$bins" | awk '$1 == "sonde" { print $2 }')
WL=$(echo "$bins" | awk '$1 == "sonde-workload" { print $2 }')
N=${N:-2000000}

. bench/lib.sh

# Wall time in ns of the workload, optionally under a tracer that was attached first.
loop_ns() { local t0 t1; t0=$(date +%s%N); "$WL" comm bench_wl getpid "$N"; t1=$(date +%s%N); echo $((t1 - t0)); }

PROG='tracepoint:syscalls:sys_enter_getpid /comm == "bench_wl"/ { @n = count(); }'
ROUNDS=${ROUNDS:-5}
# ROUNDS interleaved rounds (untraced, sonde, bpftrace), medians of each: this VM's timing drifts.
: >/tmp/sonde-bench-base; : >/tmp/sonde-bench-s; : >/tmp/sonde-bench-b
for _ in $(seq "$ROUNDS"); do
    loop_ns >>/tmp/sonde-bench-base
    under loop_ns "$SONDE" "$PROG" >>/tmp/sonde-bench-s 2>/dev/null
    if command -v bpftrace >/dev/null; then under loop_ns bpftrace -e "$PROG" >>/tmp/sonde-bench-b 2>/dev/null; fi
done
base=$(median </tmp/sonde-bench-base)
s=$(median </tmp/sonde-bench-s)
echo "getpid x $N, medians of $ROUNDS rounds: untraced $((base / N)) ns/call"
printf '%-10s %8s ns/event\n' sonde "$(( (s - base) / N ))"
if [ -s /tmp/sonde-bench-b ]; then
    b=$(median </tmp/sonde-bench-b)
    printf '%-10s %8s ns/event\n' bpftrace "$(( (b - base) / N ))"
    python3 -c "import sys; s,b,base=map(int,sys.argv[1:]); print('bpftrace/sonde overhead ratio: %.2fx' % ((b-base)/max(s-base,1)))" "$s" "$b" "$base"
fi

# Streaming: printf for every call, output to /dev/null; events/s that arrive and lost count.
PN=$((N / 4))
t0=$(date +%s%N)
"$SONDE" -k -c "$WL comm bench_wl getpid $PN" \
    'tracepoint:syscalls:sys_enter_getpid /comm == "bench_wl"/ { printf("%d %d\n", pid, nsecs); }' \
    >/tmp/sonde-bench-out 2>/tmp/sonde-bench-err || true
t1=$(date +%s%N)
got=$(wc -l </tmp/sonde-bench-out)
echo "sonde printf stream: $got of $PN events in $(( (t1 - t0) / 1000000 )) ms ($(( got * 1000000000 / (t1 - t0) )) events/s)"
grep -i lost /tmp/sonde-bench-err || true
