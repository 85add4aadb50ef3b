#!/usr/bin/env bash
# System-wide per-syscall cost (not a test): `dd if=/dev/zero of=/dev/null bs=1 count=500k`
# (two syscalls a byte) untraced and while sonde, bpftrace and ply (when installed) count every
# syscall of the machine by comm on raw_syscalls:sys_enter. Medians of ROUNDS interleaved rounds
# (default 5); prints dd's seconds, the slowdown against untraced, and ns added per syscall.
#
#   bash bench/raw_syscalls.sh          (builds sonde; SONDE=/path/to/sonde measures that binary)
set -euo pipefail
cd "$(dirname "$0")/.."
[ "$(id -u)" = 0 ] || { echo "bench/raw_syscalls.sh: needs root (BPF)" >&2; exit 1; }
[ -d /sys/kernel/tracing/events/raw_syscalls ] || mount -t tracefs nodev /sys/kernel/tracing || true
# ply reads tracepoints under debugfs.
[ -d /sys/kernel/debug/tracing ] || mount -t debugfs nodev /sys/kernel/debug 2>/dev/null || true
SONDE=${SONDE:-$(scripts/release-bins sonde 2>/dev/null | awk '$1 == "sonde" { print $2 }')}
ROUNDS=${ROUNDS:-5}
COUNT=500k
CALLS=1024000 # dd bs=1 count=500k: 512000 reads and 512000 writes
. bench/lib.sh

# dd's own report of its elapsed seconds.
dd_secs() { dd if=/dev/zero of=/dev/null bs=1 count=$COUNT 2>&1 >/dev/null | sed -n 's/.* copied, \([0-9.e-]*\) s,.*/\1/p'; }

tools="sonde"
if command -v bpftrace >/dev/null; then
    tools="$tools bpftrace"
fi
if command -v ply >/dev/null; then
    tools="$tools ply"
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
for _ in $(seq "$ROUNDS"); do
    dd_secs >>"$tmp/untraced"
    for t in $tools; do
        case $t in
            sonde) under dd_secs "$SONDE" 'tracepoint:raw_syscalls:sys_enter { @[comm] = count(); }' >>"$tmp/$t" 2>/dev/null ;;
            bpftrace) under dd_secs bpftrace -e 'tracepoint:raw_syscalls:sys_enter { @[comm] = count(); }' >>"$tmp/$t" 2>/dev/null ;;
            ply) under dd_secs ply 'tracepoint:raw_syscalls/sys_enter { @[comm] = count(); }' >>"$tmp/$t" 2>/dev/null ;;
        esac
    done
done
base=$(median <"$tmp/untraced")
echo "dd bs=1 count=$COUNT ($CALLS syscalls), medians of $ROUNDS interleaved rounds"
echo "| tool | dd seconds | slowdown | ns added per syscall |"
echo "|---|---|---|---|"
echo "| untraced | $base | 1.00x | - |"
for t in $tools; do
    s=$(median <"$tmp/$t")
    awk -v t="$t" -v s="$s" -v b="$base" -v n="$CALLS" \
        'BEGIN { printf "| %s | %s | %.2fx | %.0f |\n", t, s, s / b, (s - b) * 1e9 / n }'
done
