#!/usr/bin/env bash
# kprobe attach/detach benchmark (not a test, not run by CI): sonde beside bpftrace inside the
# tests/vm qemu guests (Debian's 6.12 and 6.1 cloud kernels under TCG; the host has no kprobes).
#
#   bench/kprobes.sh                        # both kernels, RUNS=3
#   RUNS=5 bench/kprobes.sh --kernel 6.12   # one kernel, more runs
#   bench/kprobes.sh -v --keep              # show the guest console; keep the initramfs
#   bench/kprobes.sh --report               # the tables again, from the last run's consoles
#
# The initramfs is tests/vm's (busybox, /init, lib.sh; tests/vm/common.sh builds it and boots it,
# with tests/vm/run.sh's kernel cache) plus sonde, the host's bpftrace with every library `ldd`
# lists (at the same paths, with the dynamic loader), bench/kprobes-timer.c (compiled here) and
# bench/kprobes-guest.sh as its only case. Inside the guest, per tool, for `kprobe:vfs_*` (every
# vfs_ function: 70-80 on these kernels) and `kprobe:do_sys_openat2`, with `{ @n = count(); }`:
#   attaching   launch until "Attached N probes" (sonde, once attached) or "Attaching N probes..." (bpftrace,
#               before it attaches, so this is only its start-up)
#   attached    launch until the -c command runs (both start it once every probe is attached)
#   total       a whole run with `-c /bin/true`: start-up, attach, detach, exit
#   detach      SIGINT (to the process group, as Ctrl-C) until exit, once attached
# as medians of RUNS interleaved runs after one warm-up run each; then the size in BPF
# instructions (8-byte slots) of a few one-liners: sonde's from `sonde -S -e`, bpftrace's from
# the program sections of `bpftrace --emit-elf`, both in the guest.
#
# environment: RUNS (default 3), SONDE_BIN (default: cargo build --release -p sonde),
# BPFTRACE (default /usr/bin/bpftrace), VM_TIMEOUT (seconds per guest, default 3600).
# Needs root (qemu's initramfs wants device nodes), python3 and a C compiler on the host.
set -euo pipefail

BENCH="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
# A host thread per vCPU, so the two guest CPUs really run at once as on hardware (docs/performance.md's
# figures were taken so). The tests use single-threaded TCG: multi-threaded TCG now and then
# oopses while the kernel patches its text; if a bench guest does, run it again.
: "${VM_TCG_THREAD:=multi}"
VM_PREFIX=bench
: "${VM_TIMEOUT:=3600}"
# shellcheck source=tests/vm/common.sh
. "$BENCH/../tests/vm/common.sh"

: "${RUNS:=3}"
: "${BPFTRACE:=/usr/bin/bpftrace}"
MEM_MB=3072 # bpftrace and its libraries are ~200 MB, held twice while the initramfs unpacks

ONELINERS=(
	'tracepoint:syscalls:sys_enter_openat { @[comm] = count(); }'
	'tracepoint:syscalls:sys_exit_read /args->ret > 0/ { @ = hist(args->ret); }'
	'kprobe:do_sys_openat2 { printf("%s %s\n", comm, str(arg1)); }'
	'kretprobe:do_sys_openat2 { @[retval] = count(); }'
)

usage() {
	sed -n '2,/^set -euo/p' "${BASH_SOURCE[0]}" | sed -e '/^set -euo/d' -e 's/^# \{0,1\}//'
}

series_list=()
report_only=0
while [ $# -gt 0 ]; do
	case "$1" in
	--kernel)
		[ $# -ge 2 ] || die "--kernel needs a series (6.1, 6.12)"
		vm_add_series "$2"
		shift 2
		;;
	--kernel=*)
		vm_add_series "${1#--kernel=}"
		shift
		;;
	--keep) keep=1; shift ;;
	--report) report_only=1; shift ;;
	-v | --verbose) verbose=1; shift ;;
	-h | --help) usage; exit 0 ;;
	*) usage >&2; exit 2 ;;
	esac
done
[ ${#series_list[@]} -gt 0 ] || series_list=(6.12 6.1)
[[ "$RUNS" =~ ^[1-9][0-9]*$ ]] || die "RUNS must be a positive number"
command -v python3 >/dev/null 2>&1 || die "python3 is needed for the report"

# The tables, from the consoles of the guests (raw serial logs) named by SERIES=PATH arguments.
report() {
	python3 - "$@" <<'PY'
import base64, statistics, struct, sys

kernels = [a.split("=", 1) for a in sys.argv[1:]]
PROBES = [("vfs", "kprobe:vfs_*"), ("sys", "kprobe:__x64_sys_*"), ("acpi", "kprobe:acpi_*"),
          ("openat2", "kprobe:do_sys_openat2")]


def elf_insns(data):
    """(total, [(section, insns)]) of the executable, non-empty program sections of an ELF64 object."""
    shoff, = struct.unpack_from("<Q", data, 0x28)
    shentsize, shnum, shstrndx = struct.unpack_from("<HHH", data, 0x3A)
    secs = []
    for i in range(shnum):
        secs.append(struct.unpack_from("<IIQQQQIIQQ", data, shoff + i * shentsize))
    strtab = secs[shstrndx]
    names = data[strtab[4]:strtab[4] + strtab[5]]
    out = []
    for s in secs:
        name = names[s[0]:names.index(b"\0", s[0])].decode()
        SHF_EXECINSTR = 4
        if s[1] == 1 and s[2] & SHF_EXECINSTR and s[5] > 0 and not name.startswith("."):
            out.append((name, s[5] // 8))
    return sum(n for _, n in out), out


def fmt(v):
    return "-" if v is None else f"{v:.3f}"


def ratio(a, b):
    return "-" if a is None or b is None or a <= 0 else f"{b / a:.1f}x"


for series, path in kernels:
    rows, info, insn_sonde, insn_bt, oneliners = {}, {}, {}, {}, {}
    try:
        text = open(path, errors="replace").read()
    except OSError as e:
        print(f"\n== kernel {series}: no console log ({e})")
        continue
    for line in text.replace("\r", "").splitlines():
        i = line.find("@@")
        if i < 0:
            continue
        f = line[i:].split()
        if f[0] == "@@ONELINER" and len(f) >= 3:
            oneliners[int(f[1])] = line[i:].split(None, 2)[2]
        if f[0] == "@@R" and len(f) >= 5:
            tool, pid, mode, run = f[1:5]
            kv = dict(x.split("=", 1) for x in f[5:] if "=" in x)
            if mode != "warm":
                rows.setdefault((tool, pid, mode), []).append(kv)
        elif f[0] == "@@INFO":
            k, _, v = line[i:].split(None, 1)[1].partition("=")
            info[k] = v.strip()
        elif f[0] == "@@INSN":
            n = int(f[1])
            k = line[i:].rsplit("(", 1)[-1]
            cnt = int(k.split(",")[1].split()[0])
            insn_sonde[n] = insn_sonde.get(n, 0) + cnt
        elif f[0] == "@@ELF" and len(f) >= 4:
            n = int(f[1])
            try:
                insn_bt[n], _ = elf_insns(base64.b64decode(f[3]))
            except Exception as e:  # a garbled console line
                print(f"{series}: cannot read bpftrace's ELF for one-liner {n}: {e}", file=sys.stderr)

    def med(tool, pid, mode, key):
        vals = [float(kv[key]) for kv in rows.get((tool, pid, mode), []) if float(kv.get(key, -1)) >= 0
                and kv.get("status") == "0"]
        return statistics.median(vals) if vals else None

    def probes(tool, pid):
        ns = {kv.get("probes") for kv in rows.get((tool, pid, "total"), [])}
        return "/".join(sorted(ns)) if ns else "-"

    print()
    print(f"== kernel {series}: {info.get('vfs_functions', '?')} vfs_* functions "
          f"({info.get('vfs_lines', '?')} lines in available_filter_functions), kprobe_multi: "
          f"{info.get('kprobe_multi', '?')}; {info.get('bpftrace', 'bpftrace ?')}; qemu TCG, 2 vCPUs")
    runs = info.get("runs", "?")
    print(f"   seconds, median of {runs} runs (n = runs that exited with status 0)")
    hdr = f"{'probe':<22} {'measure':<40} {'sonde':>9} {'bpftrace':>9} {'bt/sonde':>9}"
    print(hdr)
    print("-" * len(hdr))
    for pid, name in PROBES:
        if f"skipped_{pid}" in info:
            print(f"{name:<22} skipped: {info[f'skipped_{pid}']}")
            continue
        lines = [
            ("probes in the attach line", None),
            ("launch -> attach line printed", ("total", "attaching")),
            ("launch -> attached (-c command runs)", ("detach", "ready")),
            ("total run with -c /bin/true", ("total", "exit")),
            ("detach: SIGINT -> exit", ("detach", "detach")),
        ]
        for label, key in lines:
            if key is None:
                print(f"{name:<22} {label:<40} {probes('sonde', pid):>9} {probes('bpftrace', pid):>9}")
                continue
            s = med("sonde", pid, *key)
            b = med("bpftrace", pid, *key)
            ns = sum(1 for kv in rows.get(("sonde", pid, key[0]), []) if kv.get("status") == "0")
            nb = sum(1 for kv in rows.get(("bpftrace", pid, key[0]), []) if kv.get("status") == "0")
            note = "" if str(ns) == str(nb) == runs else f"  (n={ns}/{nb})"
            print(f"{'':<22} {label:<40} {fmt(s):>9} {fmt(b):>9} {ratio(s, b):>9}{note}")
    print()
    hdr = f"{'one-liner':<76} {'sonde':>6} {'bpftrace':>8} {'bt/sonde':>8}"
    print("BPF instructions (8-byte slots; sonde -S -e vs bpftrace --emit-elf program sections)")
    print(hdr)
    print("-" * len(hdr))
    for n, text in sorted(oneliners.items()):
        s, b = insn_sonde.get(n), insn_bt.get(n)
        r = "-" if not s or b is None else f"{b / s:.2f}x"
        print(f"{text:<76} {s if s is not None else '-':>6} {b if b is not None else '-':>8} {r:>8}")
PY
}

if [ "$report_only" -eq 1 ]; then
	args=()
	for s in "${series_list[@]}"; do args+=("$s=$VM_CACHE/logs/bench-kprobes-$s.log"); done
	report "${args[@]}"
	exit 0
fi

[ -x "$BPFTRACE" ] || die "no bpftrace at $BPFTRACE (apt-get install bpftrace)"
CC="${CC:-cc}"
command -v "$CC" >/dev/null 2>&1 || die "no C compiler ($CC) for bench/kprobes-timer.c"

vm_host_tools
vm_workdir

vm_kernels

vm_sonde_binaries
"$CC" -O2 -Wall -o "$work/kprobes-timer" "$BENCH/kprobes-timer.c" || die "cannot build bench/kprobes-timer.c"

# ---- initramfs ----------------------------------------------------------------------------------
log "building the initramfs (with bpftrace and its libraries)"
stage="$work/root"
vm_stage_base "$stage"
install -m 755 "$SONDE_BIN" "$stage/bin/sonde"
mkdir -p "$stage/usr/bin" "$stage/opt/bench"
install -m 755 "$BPFTRACE" "$stage/usr/bin/bpftrace"
install -m 755 "$work/kprobes-timer" "$stage/opt/bench/kprobes-timer"
printf '#!/bin/sh\necho @@BENCH_READY\nexec sleep 600\n' >"$stage/opt/bench/ready"
chmod 755 "$stage/opt/bench/ready"
vm_stage_libs "$stage" "$SONDE_BIN" "$BPFTRACE" "$work/kprobes-timer"
vm_stage_case "$stage" "$BENCH/kprobes-guest.sh" bench_kprobes
vm_stage_conf "$stage" bench_kprobes
printf 'RUNS=%q\n' "$RUNS" >"$stage/etc/sonde-vm/bench.conf"
printf '%s\n' "${ONELINERS[@]}" >"$stage/etc/sonde-vm/oneliners"
cpio_file="$work/root.cpio"
vm_cpio "$stage" "$cpio_file"
log "initramfs: $(du -m "$cpio_file" | cut -f1) MB"

# ---- run ----------------------------------------------------------------------------------------
failed=0
results=()
for s in "${series_list[@]}"; do
	kernel="${vmlinuz[$s]}"
	raw="$VM_CACHE/logs/bench-kprobes-$s.log"
	clean="$work/$s.clean"
	log "booting $s ($(vm_kernel_package "$kernel")); RUNS=$RUNS"
	vm_boot "$kernel" "$cpio_file" "$raw" "$MEM_MB"
	vm_clean "$raw" "$clean"
	vm_case_block bench_kprobes "$clean" >"$work/$s.block"
	read -r verdict secs <"$work/$s.block"
	log "$s: guest wall ${VM_WALL}s, bench ${secs}s, $verdict"
	if [ "$verdict" != PASS ]; then
		failed=1
		echo "---- $s: the guest side did not finish cleanly (console: $raw) ----"
		grep -v '^@@ELF' "$work/$s.block" | tail -n 60
		echo "----"
	fi
	results+=("$s=$clean")
done

report "${results[@]}"
echo
echo "consoles: $VM_CACHE/logs/bench-kprobes-*.log"
if [ "$keep" -eq 1 ]; then echo "kept: $work (initramfs $cpio_file)"; fi
exit "$failed"
