#!/usr/bin/env bash
# tests/vm/run.sh: boot Debian's cloud kernels under qemu (TCG) and run tests/vm/cases/*.sh in them.
# See tests/vm/README.md.
set -euo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
VM_PREFIX=vm
# shellcheck source=tests/vm/common.sh
. "$HERE/common.sh"
ROOT="$VM_ROOT"
CACHE="$VM_CACHE"

: "${CASE_TIMEOUT:=300}"    # default seconds for one case inside the guest
: "${VM_KERNEL_TESTS:=1}"   # 0: leave out cases/kernel_layer_tests.sh (sonde-kernel's own tests)

usage() {
	cat <<EOF
usage: tests/vm/run.sh [--kernel SERIES]... [--case GLOB]... [--keep] [-v]

  --kernel SERIES  a kernel series to boot (5.10, 6.1 or 6.12; repeatable; default: all three)
  --case GLOB      run only the cases whose name (file name less .sh) matches GLOB (repeatable)
  --keep           keep the initramfs and its tree (printed at the end)
  -v, --verbose    show the guest's console as it runs
  -h, --help       this text

environment:
  SONDE_BIN, WORKLOAD_BIN  binaries to test (default: cargo build --release, scripts/release-bins)
  VM_TIMEOUT               seconds one guest may run (default 900)
  VM_JOBS                  guests booted at once (default: the host's cores; -v: 1)
  VM_SHARDS                guests per kernel, the cases split between them by their
                           `# vm-cost:` (default: enough to keep VM_JOBS guests busy, e.g.
                           2 for three kernels on two cores)
  CASE_TIMEOUT             default seconds one case may run in the guest (default 300)
  SONDE_TIMEOUT            seconds run_sonde gives one sonde command (default 60)
  VM_KERNEL_TESTS=0        leave out kernel_layer_tests (sonde-kernel's cargo tests, built
                           with cargo test --release -p sonde-kernel --no-run; default: run them)

Kernels and logs are cached under $CACHE.
EOF
}

series_list=()
case_globs=()
keep=0
verbose=0
while [ $# -gt 0 ]; do
	case "$1" in
	--kernel)
		[ $# -ge 2 ] || die "--kernel needs a series (5.10, 6.1, 6.12)"
		vm_add_series "$2"
		shift 2
		;;
	--kernel=*)
		vm_add_series "${1#--kernel=}"
		shift
		;;
	--case)
		[ $# -ge 2 ] || die "--case needs a glob"
		case_globs+=("$2")
		shift 2
		;;
	--case=*)
		case_globs+=("${1#--case=}")
		shift
		;;
	--keep) keep=1; shift ;;
	-v | --verbose) verbose=1; shift ;;
	-h | --help) usage; exit 0 ;;
	*) usage >&2; exit 2 ;;
	esac
done
[ ${#series_list[@]} -gt 0 ] || series_list=(5.10 6.1 6.12)
[ ${#case_globs[@]} -gt 0 ] || case_globs=('*')

# ---- the cases to run ---------------------------------------------------------------------------
cases=()
for f in "$HERE"/cases/*.sh; do
	[ -f "$f" ] || continue
	n="$(basename "$f" .sh)"
	for g in "${case_globs[@]}"; do
		# shellcheck disable=SC2053 # a glob on purpose
		if [[ "$n" == $g ]]; then
			cases+=("$n")
			break
		fi
	done
done
# kernel_layer_tests runs sonde-kernel's own test executables, built below.
kernel_tests=0
for i in "${!cases[@]}"; do
	if [ "${cases[$i]}" = kernel_layer_tests ]; then
		if [ "$VM_KERNEL_TESTS" = 0 ]; then
			log "VM_KERNEL_TESTS=0: leaving out kernel_layer_tests"
			unset 'cases[i]'
		else
			kernel_tests=1
		fi
	fi
done
cases=("${cases[@]}")
[ ${#cases[@]} -gt 0 ] || die "no case in $HERE/cases matches: ${case_globs[*]}"

# ---- host set-up ------------------------------------------------------------------------------------
vm_host_tools
vm_workdir

# ---- kernels ----------------------------------------------------------------------------------------
vm_kernels

# ---- binaries ----------------------------------------------------------------------------------------
vm_sonde_binaries

# sonde-kernel's test executables (integration tests and unit tests), as "name path" lines.
if [ "$kernel_tests" -eq 1 ]; then
	command -v python3 >/dev/null 2>&1 || die "python3 is needed to read cargo's JSON (or set VM_KERNEL_TESTS=0)"
	log "cargo test --release -p sonde-kernel --no-run"
	if ! (cd "$ROOT" && cargo test --release -p sonde-kernel --no-run --message-format=json) \
		>"$work/kernel-tests.json" 2>"$work/cargo-test.log"; then
		cat "$work/cargo-test.log" >&2
		die "cargo test --no-run failed"
	fi
	python3 - "$work/kernel-tests.json" >"$work/kernel-tests" <<'PY'
import json, sys
for line in open(sys.argv[1]):
    try:
        m = json.loads(line)
    except ValueError:
        continue
    # `layers` reads the crate's sources, which the guest does not have: the host runs it.
    if m.get("reason") == "compiler-artifact" and m.get("executable") and m["profile"]["test"] \
            and m["target"]["name"] != "layers":
        print(m["target"]["name"], m["executable"])
PY
	[ -s "$work/kernel-tests" ] || die "cargo test --no-run named no test executable"
fi

# ---- initramfs ---------------------------------------------------------------------------------------
stage="$work/root"
vm_stage_base "$stage"
install -m 755 "$SONDE_BIN" "$stage/bin/sonde"
install -m 755 "$WORKLOAD_BIN" "$stage/bin/sonde-workload"
vm_stage_libs "$stage" "$SONDE_BIN" "$WORKLOAD_BIN"
# The compatibility lane's scripts (tests/vm/cases/compat_scripts.sh).
mkdir -p "$stage/opt/compat"
cp "$HERE"/../compat/*.bt "$HERE"/../compat/kernel/*.bt "$stage/opt/compat/"
# Debian's bpftrace tools (cases/debian_tools.sh).
vm_debian_tools "$stage/opt/debian-tools"
if [ "$kernel_tests" -eq 1 ]; then
	mkdir -p "$stage/opt/kernel-tests"
	while read -r name exe; do
		install -m 755 "$exe" "$stage/opt/kernel-tests/$name"
		vm_stage_libs "$stage" "$exe"
	done <"$work/kernel-tests"
fi
for n in "${cases[@]}"; do
	vm_stage_case "$stage" "$HERE/cases/$n.sh"
done
vm_stage_conf "$stage" "${case_globs[@]}"

cpio_file="$work/root.cpio"
vm_cpio "$stage" "$cpio_file"

# ---- boot ------------------------------------------------------------------------------------------
# The guests run side by side, VM_JOBS at a time (default: one per host core; each single-threaded
# TCG guest keeps one core busy), and are judged afterwards in series order. When the kernels do
# not divide evenly among the cores (three kernels, two cores), each kernel's cases are split
# between VM_SHARDS guests, balanced by each case's `# vm-cost: SECONDS` line (its time under TCG;
# 5 without one), so no core idles while the last kernel runs alone. Each boot runs in a subshell
# that leaves "QEMU-STATUS WALL-SECONDS" in $work/SERIES.SHARD.boot.
: "${VM_JOBS:=$(nproc 2>/dev/null || echo 1)}"
[ "$verbose" -eq 1 ] && VM_JOBS=1 # one console at a time on the terminal
[ "$VM_JOBS" -ge 1 ] 2>/dev/null || die "VM_JOBS must be a whole number of at least 1"
gcd() {
	local a="$1" b="$2" t
	while [ "$b" -ne 0 ]; do t=$((a % b)); a=$b; b=$t; done
	echo "$a"
}
if [ -z "${VM_SHARDS:-}" ]; then
	VM_SHARDS=$((VM_JOBS / $(gcd "${#series_list[@]}" "$VM_JOBS")))
	[ "$VM_SHARDS" -le 8 ] || VM_SHARDS=8
fi
[ "$VM_SHARDS" -ge 1 ] 2>/dev/null || die "VM_SHARDS must be a whole number of at least 1"
[ "$VM_SHARDS" -le ${#cases[@]} ] || VM_SHARDS=${#cases[@]}

case_cost() {
	local c
	c="$(sed -n 's/^# *vm-cost: *\([0-9][0-9]*\) *$/\1/p' "$HERE/cases/$1.sh" | head -n 1)"
	echo "${c:-5}"
}
# The longest cases first, each to the share with the least work so far.
shares=()
loads=()
for ((i = 0; i < VM_SHARDS; i++)); do shares[i]=''; loads[i]=0; done
while read -r cost n; do
	best=0
	for ((i = 1; i < VM_SHARDS; i++)); do
		[ "${loads[i]}" -lt "${loads[best]}" ] && best=$i
	done
	loads[best]=$((loads[best] + cost))
	shares[best]+="${shares[best]:+,}$n"
done < <(for n in "${cases[@]}"; do echo "$(case_cost "$n") $n"; done | sort -k1,1nr -k2,2)
for ((i = 0; i < VM_SHARDS; i++)); do
	# The kernel's command line holds 2048 bytes on x86.
	[ ${#shares[i]} -lt 1800 ] || die "the case list of one guest is too long for the kernel's command line; set VM_SHARDS higher"
done
# The console log of one guest: SERIES.log, or SERIES.K.log when a kernel's cases are split.
guest_log() {
	if [ "$VM_SHARDS" -eq 1 ]; then echo "$CACHE/logs/$1.log"; else echo "$CACHE/logs/$1.$2.log"; fi
}

boot_pids=()
boot_guest() {
	local s="$1" k="$2"
	# An interrupt of run.sh ends this boot's qemu (through its timeout) as well.
	trap 'if [ -n "$qpid" ]; then kill "$qpid" 2>/dev/null; fi; exit 143' TERM
	VM_APPEND="sonde.cases=${shares[k]}" vm_boot "${vmlinuz[$s]}" "$cpio_file" "$(guest_log "$s" "$k")"
	echo "$VM_QRC $VM_WALL" >"$work/$s.$k.boot"
}
vm_stop_boots() {
	local p
	for p in "${boot_pids[@]}"; do kill -TERM "$p" 2>/dev/null || true; done
	vm_cleanup
}
trap vm_stop_boots EXIT
running=0
for s in "${series_list[@]}"; do
	for ((k = 0; k < VM_SHARDS; k++)); do
		if [ "$running" -ge "$VM_JOBS" ]; then
			wait -n || true
			running=$((running - 1))
		fi
		running=$((running + 1))
		if [ "$VM_SHARDS" -eq 1 ]; then
			log "booting $s ($(vm_kernel_package "${vmlinuz[$s]}")), ${#cases[@]} case(s)"
		else
			log "booting $s ($(vm_kernel_package "${vmlinuz[$s]}")), guest $((k + 1)) of $VM_SHARDS: ${shares[k]//,/ }"
		fi
		boot_guest "$s" "$k" &
		boot_pids+=("$!")
	done
done
wait || true
boot_pids=()

# ---- judge -------------------------------------------------------------------------------------------
# One guest's end: a line for the summary, or its failure (no @@DONE) with the console's tail.
judge_guest() {
	local s="$1" k="$2" clean="$3" qrc=1 wall=0 init_line done_line boot up_done line
	if [ -s "$work/$s.$k.boot" ]; then read -r qrc wall <"$work/$s.$k.boot"; fi
	init_line="$(grep -o '@@INIT .*' "$clean" | head -n 1 || true)"
	done_line="$(grep -o '@@DONE .*' "$clean" | head -n 1 || true)"
	if [ -z "$done_line" ]; then
		kfail=$((kfail + 1))
		if [ "$qrc" -eq 124 ] || [ "$qrc" -eq 137 ]; then
			printf 'FAIL %-5s guest timed out after %ss (VM_TIMEOUT) without finishing\n' "$s" "$VM_TIMEOUT"
		else
			printf 'FAIL %-5s guest did not report @@DONE (qemu exit status %s)\n' "$s" "$qrc"
		fi
		echo "  ---- last 50 lines of $(guest_log "$s" "$k") ----"
		tail -n 50 "$clean" | sed 's/^/  /'
		echo "  ----"
	fi
	# The guest's own clock: uptime when /init started and when the last case ended.
	boot="$(awk '{ print $3 }' <<<"$init_line")"
	up_done="$(sed -n 's/.*uptime=\([0-9.]*\).*/\1/p' <<<"$done_line")"
	line="$(printf '%-5s %s' "$s" "$pkg")"
	if [ "$VM_SHARDS" -gt 1 ]; then line+=" guest $((k + 1))/$VM_SHARDS"; fi
	line+=": wall ${wall}s"
	if [ -n "$boot" ]; then line+=", guest uptime at /init ${boot}s"; fi
	if [ -n "$up_done" ]; then line+=", cases done at ${up_done}s"; fi
	if [ -n "$init_line" ]; then line+=" (uname -r: $(awk '{ print $2 }' <<<"$init_line"))"; fi
	summary+=("$line")
}

total_fail=0
total_pass=0
summary=()
for s in "${series_list[@]}"; do
	pkg="$(vm_kernel_package "${vmlinuz[$s]}")"
	clean="$work/$s.clean"
	: >"$clean"
	for ((k = 0; k < VM_SHARDS; k++)); do
		raw="$(guest_log "$s" "$k")"
		[ -e "$raw" ] || : >"$raw"
		vm_clean "$raw" "$work/$s.$k.clean"
		cat "$work/$s.$k.clean" >>"$clean"
	done

	kfail=0
	for n in "${cases[@]}"; do
		block="$work/$s.$n.block"
		vm_case_block "$n" "$clean" >"$block"
		read -r verdict secs <"$block"
		if [ "$verdict" = PASS ]; then
			printf 'ok   %-5s %s (%ss)\n' "$s" "$n" "$secs"
			total_pass=$((total_pass + 1))
		else
			kfail=$((kfail + 1))
			case "$verdict" in
			FAIL) printf 'FAIL %-5s %s (%ss)\n' "$s" "$n" "$secs" ;;
			UNFINISHED) printf 'FAIL %-5s %s (started, never finished)\n' "$s" "$n" ;;
			*) printf 'FAIL %-5s %s (never ran)\n' "$s" "$n" ;;
			esac
			if [ "$(wc -l <"$block")" -gt 1 ]; then
				echo "  ---- $s $n: output ----"
				tail -n +2 "$block" | sed 's/^/  /'
				echo "  ----"
			fi
		fi
	done
	for ((k = 0; k < VM_SHARDS; k++)); do judge_guest "$s" "$k" "$work/$s.$k.clean"; done
	total_fail=$((total_fail + kfail))
done

echo
for line in "${summary[@]}"; do echo "$line"; done
echo "logs: $CACHE/logs/"
if [ "$keep" -eq 1 ]; then echo "kept: $work (initramfs $cpio_file)"; fi
echo "vm: $total_pass passed, $total_fail failed"
[ "$total_fail" -eq 0 ]
