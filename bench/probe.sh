#!/usr/bin/env bash
# `sonde probe` benchmark (not a test, not run by CI), inside the tests/vm qemu guests (Debian's
# 6.12 and 6.1 cloud kernels under TCG; the host has no kprobes).
#
#   bench/probe.sh                        # both kernels, RUNS=3
#   RUNS=5 N=50000 bench/probe.sh --kernel 6.12
#   bench/probe.sh --report               # the tables again, from the last run's consoles
#
# For `p do_sys_openat2 dfd=%0 flags=%2->flags` (bench/probe-guest.sh, timed with
# bench/kprobes-timer.c, medians of RUNS runs after a warm-up):
#   launch -> first event line, and Ctrl-C (SIGINT to the group) -> exit, of `sonde probe` and of
#   the same definition written by hand (echo >> kprobe_events, an instance, enable, cat
#   trace_pipe; the same clean-up on Ctrl-C);
#   per-event cost: N openat calls alone, under `sonde probe`, under the same probe as a BPF
#   program printing each event (`sonde probe --to-language`), and under a BPF count().
# The guests have no perf, so perf probe is not compared. TCG emulates every instruction: compare
# the columns, not the absolute times, with real hardware.
#
# environment: RUNS (default 3), N (openat calls, default 20000), SONDE_BIN and WORKLOAD_BIN
# (default: cargo build --release), VM_TIMEOUT (seconds per guest, default 1800).
set -euo pipefail

BENCH="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
VM_PREFIX=bench
: "${VM_TIMEOUT:=1800}"
# shellcheck source=tests/vm/common.sh
. "$BENCH/../tests/vm/common.sh"
: "${RUNS:=3}"
: "${N:=20000}"

usage() {
	sed -n '2,/^set -euo/p' "${BASH_SOURCE[0]}" | sed -e '/^set -euo/d' -e 's/^# \{0,1\}//'
}

series_list=()
report_only=0
while [ $# -gt 0 ]; do
	case "$1" in
	--kernel) vm_add_series "$2"; shift 2 ;;
	--kernel=*) vm_add_series "${1#--kernel=}"; shift ;;
	--keep) keep=1; shift ;;
	--report) report_only=1; shift ;;
	-v | --verbose) verbose=1; shift ;;
	-h | --help) usage; exit 0 ;;
	*) usage >&2; exit 2 ;;
	esac
done
[ ${#series_list[@]} -gt 0 ] || series_list=(6.12 6.1)

report() {
	python3 - "$@" <<'PY'
import statistics, sys

for series, path in (a.split("=", 1) for a in sys.argv[1:]):
    try:
        text = open(path, errors="replace").read().replace("\r", "")
    except OSError as e:
        print(f"\n== kernel {series}: no console log ({e})")
        continue
    timed, loops, info = {}, {}, {}
    for line in text.splitlines():
        i = line.find("@@")
        if i < 0:
            continue
        f = line[i:].split()
        kv = dict(x.split("=", 1) for x in f[3:] if "=" in x)
        if f[0] == "@@R" and f[2] != "0" and kv.get("status") == "0":
            timed.setdefault(f[1], []).append(kv)
        elif f[0] == "@@L" and kv.get("status") == "0":
            loops.setdefault(f[1], []).append(float(kv["exit"]))
        elif f[0] == "@@INFO" and f[1].startswith("runs="):
            info.update(x.split("=", 1) for x in f[1:] if "=" in x)
        elif f[0] == "@@INFO":
            k, _, v = line[i:].split(None, 1)[1].partition("=")
            info[k] = v.strip()
    n = int(info.get("n", "0").split()[0] or 0)
    med = lambda xs: statistics.median(xs) if xs else None
    print(f"\n== kernel {series} (qemu TCG, 2 vCPUs), median of {info.get('runs', '?')} runs")
    print(f"   definition: {info.get('definition', '?')}")
    print(f"{'':<34} {'sonde probe':>12} {'by hand':>12}")
    for label, key in [("launch -> first event line (s)", "ready"), ("Ctrl-C -> exit (s)", "detach")]:
        vals = [med([float(kv[key]) for kv in timed.get(w, []) if float(kv.get(key, -1)) >= 0])
                for w in ("sonde", "byhand")]
        print(f"{label:<34} " + " ".join(f"{v:>12.3f}" if v is not None else f"{'-':>12}" for v in vals))
    base = med(loops.get("none", []))
    print(f"\nper openat call ({n} calls; wall time under the tracer minus alone, / calls)")
    for what, label in [("probe", "sonde probe (kprobe_events, trace_pipe)"),
                        ("bpf", "BPF program, printf per event"), ("count", "BPF program, count()")]:
        t = med(loops.get(what, []))
        cost = "-" if t is None or base is None or not n else f"{(t - base) / n * 1e6:8.1f} us"
        print(f"  {label:<44} {cost}")
    print(f"  (alone: {base / n * 1e6:.1f} us per call)" if base and n else "")
PY
}

if [ "$report_only" -eq 1 ]; then
	args=()
	for s in "${series_list[@]}"; do args+=("$s=$VM_CACHE/logs/bench-probe-$s.log"); done
	report "${args[@]}"
	exit 0
fi

CC="${CC:-cc}"
command -v "$CC" >/dev/null 2>&1 || die "no C compiler ($CC) for bench/kprobes-timer.c"
vm_host_tools
vm_workdir
vm_kernels
vm_sonde_binaries
"$CC" -O2 -Wall -o "$work/kprobes-timer" "$BENCH/kprobes-timer.c" || die "cannot build bench/kprobes-timer.c"

stage="$work/root"
vm_stage_base "$stage"
install -m 755 "$SONDE_BIN" "$stage/bin/sonde"
install -m 755 "$WORKLOAD_BIN" "$stage/bin/sonde-workload"
mkdir -p "$stage/opt/bench"
install -m 755 "$work/kprobes-timer" "$stage/opt/bench/kprobes-timer"
vm_stage_libs "$stage" "$SONDE_BIN" "$WORKLOAD_BIN" "$work/kprobes-timer"
vm_stage_case "$stage" "$BENCH/probe-guest.sh" bench_probe
vm_stage_conf "$stage" bench_probe
printf 'RUNS=%q\nN=%q\n' "$RUNS" "$N" >"$stage/etc/sonde-vm/bench.conf"
cpio_file="$work/root.cpio"
vm_cpio "$stage" "$cpio_file"

failed=0
results=()
for s in "${series_list[@]}"; do
	raw="$VM_CACHE/logs/bench-probe-$s.log"
	clean="$work/$s.clean"
	log "booting $s; RUNS=$RUNS N=$N"
	vm_boot "${vmlinuz[$s]}" "$cpio_file" "$raw" 2048
	vm_clean "$raw" "$clean"
	vm_case_block bench_probe "$clean" >"$work/$s.block"
	read -r verdict secs <"$work/$s.block"
	log "$s: guest wall ${VM_WALL}s, bench ${secs}s, $verdict"
	if [ "$verdict" != PASS ]; then
		failed=1
		tail -n 40 "$work/$s.block"
	fi
	results+=("$s=$clean")
done
report "${results[@]}"
exit "$failed"
