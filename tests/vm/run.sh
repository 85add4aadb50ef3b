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
# TCG guest keeps one core busy), and are judged afterwards in series order. Each boot runs in a
# subshell that leaves "QEMU-STATUS WALL-SECONDS" in $work/SERIES.boot.
: "${VM_JOBS:=$(nproc 2>/dev/null || echo 1)}"
[ "$verbose" -eq 1 ] && VM_JOBS=1 # one console at a time on the terminal
[ "$VM_JOBS" -ge 1 ] 2>/dev/null || die "VM_JOBS must be a whole number of at least 1"
boot_pids=()
boot_series() {
	local s="$1"
	# An interrupt of run.sh ends this boot's qemu (through its timeout) as well.
	trap 'if [ -n "$qpid" ]; then kill "$qpid" 2>/dev/null; fi; exit 143' TERM
	vm_boot "${vmlinuz[$s]}" "$cpio_file" "$CACHE/logs/$s.log"
	echo "$VM_QRC $VM_WALL" >"$work/$s.boot"
}
vm_stop_boots() {
	local p
	for p in "${boot_pids[@]}"; do kill -TERM "$p" 2>/dev/null || true; done
	vm_cleanup
}
trap vm_stop_boots EXIT
running=0
for s in "${series_list[@]}"; do
	if [ "$running" -ge "$VM_JOBS" ]; then
		wait -n || true
		running=$((running - 1))
	fi
	running=$((running + 1))
	log "booting $s ($(vm_kernel_package "${vmlinuz[$s]}")), ${#cases[@]} case(s)"
	boot_series "$s" &
	boot_pids+=("$!")
done
wait || true
boot_pids=()

# ---- judge -------------------------------------------------------------------------------------------
total_fail=0
total_pass=0
summary=()
for s in "${series_list[@]}"; do
	kernel="${vmlinuz[$s]}"
	pkg="$(vm_kernel_package "$kernel")"
	raw="$CACHE/logs/$s.log"
	clean="$work/$s.clean"
	qrc=1 wall=0
	if [ -s "$work/$s.boot" ]; then read -r qrc wall <"$work/$s.boot"; fi
	vm_clean "$raw" "$clean"

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

	init_line="$(grep -o '@@INIT .*' "$clean" | head -n 1 || true)"
	done_line="$(grep -o '@@DONE .*' "$clean" | head -n 1 || true)"
	if [ -z "$done_line" ]; then
		kfail=$((kfail + 1))
		if [ "$qrc" -eq 124 ] || [ "$qrc" -eq 137 ]; then
			printf 'FAIL %-5s guest timed out after %ss (VM_TIMEOUT) without finishing\n' "$s" "$VM_TIMEOUT"
		else
			printf 'FAIL %-5s guest did not report @@DONE (qemu exit status %s)\n' "$s" "$qrc"
		fi
		echo "  ---- last 50 lines of $raw ----"
		tail -n 50 "$clean" | sed 's/^/  /'
		echo "  ----"
	fi
	# The guest's own clock: uptime when /init started and when the last case ended.
	boot="$(awk '{ print $3 }' <<<"$init_line")"
	up_done="$(sed -n 's/.*uptime=\([0-9.]*\).*/\1/p' <<<"$done_line")"
	line="$(printf '%-5s %s: wall %ss' "$s" "$pkg" "$wall")"
	if [ -n "$boot" ]; then line+=", guest uptime at /init ${boot}s"; fi
	if [ -n "$up_done" ]; then line+=", cases done at ${up_done}s"; fi
	if [ -n "$init_line" ]; then line+=" (uname -r: $(awk '{ print $2 }' <<<"$init_line"))"; fi
	summary+=("$line")
	total_fail=$((total_fail + kfail))
done

echo
for line in "${summary[@]}"; do echo "$line"; done
echo "logs: $CACHE/logs/"
if [ "$keep" -eq 1 ]; then echo "kept: $work (initramfs $cpio_file)"; fi
echo "vm: $total_pass passed, $total_fail failed"
[ "$total_fail" -eq 0 ]
