#!/usr/bin/env bash
# tests/vm/run.sh: boot Debian's cloud kernels under qemu (TCG) and run tests/vm/cases/*.sh in them.
# See tests/vm/README.md.
set -euo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
ROOT="$(cd "$HERE/../.." && pwd)"
CACHE="$ROOT/.cache/vm"

: "${VM_TIMEOUT:=900}"   # seconds for one guest, boot to power-off
: "${CASE_TIMEOUT:=300}" # default seconds for one case inside the guest

usage() {
	cat <<EOF
usage: tests/vm/run.sh [--kernel SERIES]... [--case GLOB]... [--keep] [-v]

  --kernel SERIES  a kernel series to boot (6.1 or 6.12; repeatable; default: 6.1 and 6.12)
  --case GLOB      run only the cases whose name (file name less .sh) matches GLOB (repeatable)
  --keep           keep the initramfs and its tree (printed at the end)
  -v, --verbose    show the guest's console as it runs
  -h, --help       this text

environment:
  SONDE_BIN, WORKLOAD_BIN  binaries to test (default: cargo build --release, target/release/*)
  VM_TIMEOUT               seconds one guest may run (default 900)
  CASE_TIMEOUT             default seconds one case may run in the guest (default 300)
  SONDE_TIMEOUT            seconds run_sonde gives one sonde command (default 60)

Kernels and logs are cached under $CACHE.
EOF
}

die() {
	echo "vm: $*" >&2
	exit 2
}

log() {
	echo "vm: $*" >&2
}

series_list=()
case_globs=()
keep=0
verbose=0
while [ $# -gt 0 ]; do
	case "$1" in
	--kernel)
		[ $# -ge 2 ] || die "--kernel needs a series (6.1, 6.12)"
		IFS=',' read -r -a _k <<<"$2"
		series_list+=("${_k[@]}")
		shift 2
		;;
	--kernel=*)
		IFS=',' read -r -a _k <<<"${1#--kernel=}"
		series_list+=("${_k[@]}")
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
[ ${#series_list[@]} -gt 0 ] || series_list=(6.1 6.12)
[ ${#case_globs[@]} -gt 0 ] || case_globs=('*')
for s in "${series_list[@]}"; do
	[[ "$s" =~ ^[0-9]+\.[0-9]+$ ]] || die "bad kernel series '$s' (want e.g. 6.1 or 6.12)"
done

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
[ ${#cases[@]} -gt 0 ] || die "no case in $HERE/cases matches: ${case_globs[*]}"

# ---- host packages --------------------------------------------------------------------------------
as_root() {
	if [ "$(id -u)" -eq 0 ]; then
		"$@"
	elif command -v sudo >/dev/null 2>&1; then
		sudo -n "$@"
	else
		die "need root for: $*"
	fi
}

apt_updated=0
apt_update_once() {
	if [ "$apt_updated" -eq 0 ]; then
		log "apt-get update"
		as_root apt-get update -qq >/dev/null || die "apt-get update failed"
		apt_updated=1
	fi
}

pkg_installed() {
	[ "$(dpkg-query -W -f='${Status}' "$1" 2>/dev/null)" = "install ok installed" ]
}

missing=()
command -v qemu-system-x86_64 >/dev/null 2>&1 || missing+=(qemu-system-x86)
# busybox-static, not busybox: the guest has no libc for busybox to load.
pkg_installed busybox-static || missing+=(busybox-static)
command -v cpio >/dev/null 2>&1 || missing+=(cpio)
if [ ${#missing[@]} -gt 0 ]; then
	apt_update_once
	log "apt-get install ${missing[*]}"
	as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null ||
		die "could not install ${missing[*]}"
fi
BUSYBOX=/bin/busybox
[ -x "$BUSYBOX" ] || die "$BUSYBOX is missing (package busybox-static)"
for tool in qemu-system-x86_64 cpio dpkg-deb apt-get apt-cache ldd timeout; do
	command -v "$tool" >/dev/null 2>&1 || die "$tool is missing"
done

mkdir -p "$CACHE/kernels" "$CACHE/logs"
work="$(mktemp -d "$CACHE/work.XXXXXX")"
qpid=''
tailpid=''
cleanup() {
	if [ -n "$qpid" ]; then kill "$qpid" 2>/dev/null || true; fi
	if [ -n "$tailpid" ]; then kill "$tailpid" 2>/dev/null || true; fi
	if [ "$keep" -eq 0 ]; then rm -rf "$work"; fi
}
trap cleanup EXIT
trap 'echo "vm: interrupted" >&2; exit 130' INT TERM HUP

# ---- kernels ----------------------------------------------------------------------------------------
# Sets KERNEL to the cached vmlinuz of a series, downloading Debian's newest cloud kernel once.
kernel_for() {
	local series="$1" dir="$CACHE/kernels/$1" found=()
	shopt -s nullglob
	found=("$dir"/vmlinuz-*)
	shopt -u nullglob
	if [ ${#found[@]} -ge 1 ] && [ -s "${found[-1]}" ]; then
		KERNEL="${found[-1]}"
		return 0
	fi
	apt_update_once
	local re="^linux-image-${series//./\\.}\\.[0-9][^ ]*-cloud-amd64"
	local names
	# Signed images first (the plain name), then -unsigned; never -dbg. Newest first.
	names="$(apt-cache search --names-only "$re" | awk '{ print $1 }' | grep -E -- '-cloud-amd64$' | sort -Vr || true)"
	names+=$'\n'"$(apt-cache search --names-only "$re" | awk '{ print $1 }' | grep -E -- '-cloud-amd64-unsigned$' | sort -Vr || true)"
	local dl="$work/dl-$series" pkg deb
	mkdir -p "$dl"
	chmod 755 "$work" "$dl" # so apt's _apt user may write there
	for pkg in $names; do
		log "downloading $pkg"
		rm -rf "${dl:?}"/*
		if ! (cd "$dl" && apt-get download -qq "$pkg" >/dev/null 2>&1); then
			log "apt-get download $pkg failed; trying an older one"
			continue
		fi
		deb="$(ls "$dl"/*.deb)"
		dpkg-deb -x "$deb" "$dl/x"
		shopt -s nullglob
		found=("$dl"/x/boot/vmlinuz-*)
		shopt -u nullglob
		if [ ${#found[@]} -ne 1 ]; then
			log "$pkg has no single boot/vmlinuz-*; trying an older one"
			continue
		fi
		rm -rf "$dir"
		mkdir -p "$dir.new"
		cp "${found[0]}" "$dir.new/"
		printf '%s %s\n' "$pkg" "$(dpkg-deb -f "$deb" Version)" >"$dir.new/package"
		mv "$dir.new" "$dir"
		rm -rf "$dl"
		KERNEL="$dir/$(basename "${found[0]}")"
		log "cached $KERNEL ($(cat "$dir/package"))"
		return 0
	done
	die "found no downloadable linux-image-$series.*-cloud-amd64 package"
}

declare -A vmlinuz
for s in "${series_list[@]}"; do
	kernel_for "$s"
	vmlinuz[$s]="$KERNEL"
done

# ---- binaries ----------------------------------------------------------------------------------------
if [ -z "${SONDE_BIN:-}" ] || [ -z "${WORKLOAD_BIN:-}" ]; then
	log "cargo build --release -p sonde -p sonde-workload"
	if ! (cd "$ROOT" && cargo build --release -p sonde -p sonde-workload) >"$work/cargo.log" 2>&1; then
		cat "$work/cargo.log" >&2
		die "cargo build failed"
	fi
fi
target_dir="${CARGO_TARGET_DIR:-$ROOT/target}"
SONDE_BIN="${SONDE_BIN:-$target_dir/release/sonde}"
WORKLOAD_BIN="${WORKLOAD_BIN:-$target_dir/release/sonde-workload}"
[ -x "$SONDE_BIN" ] || die "no sonde binary at $SONDE_BIN"
[ -x "$WORKLOAD_BIN" ] || die "no sonde-workload binary at $WORKLOAD_BIN"

# ---- initramfs ---------------------------------------------------------------------------------------
stage="$work/root"
mkdir -p "$stage"/{bin,sbin,usr/bin,usr/sbin,dev,proc,sys,tmp,root,etc/sonde-vm,tests/cases}
cp "$BUSYBOX" "$stage/bin/busybox"
while IFS= read -r applet; do
	if [ -z "$applet" ] || [ "$applet" = bin/busybox ]; then continue; fi
	mkdir -p "$stage/$(dirname "$applet")"
	ln -sf /bin/busybox "$stage/$applet"
done < <("$BUSYBOX" --list-full)
# The kernel opens /dev/console before /init runs; /init mounts devtmpfs over /dev later.
mknod -m 600 "$stage/dev/console" c 5 1 2>/dev/null || log "mknod /dev/console failed (not root?); /init reopens it"

install -m 755 "$SONDE_BIN" "$stage/bin/sonde"
install -m 755 "$WORKLOAD_BIN" "$stage/bin/sonde-workload"
# Shared libraries and the dynamic loader, at the paths ldd names.
while IFS= read -r lib; do
	[ -n "$lib" ] || continue
	mkdir -p "$stage$(dirname "$lib")"
	cp -L "$lib" "$stage$lib"
done < <(ldd "$SONDE_BIN" "$WORKLOAD_BIN" 2>/dev/null |
	awk '$2 == "=>" && $3 ~ /^\// { print $3 } $1 ~ /^\// && $1 !~ /:$/ { print $1 }' | sort -u)

install -m 755 "$HERE/init.sh" "$stage/init"
install -m 644 "$HERE/lib.sh" "$stage/tests/lib.sh"
for n in "${cases[@]}"; do
	install -m 644 "$HERE/cases/$n.sh" "$stage/tests/cases/$n.sh"
done
printf '%s\n' "${case_globs[@]}" >"$stage/etc/sonde-vm/globs"
{
	printf 'CASE_TIMEOUT=%q\n' "$CASE_TIMEOUT"
	if [ -n "${SONDE_TIMEOUT:-}" ]; then printf 'export SONDE_TIMEOUT=%q\n' "$SONDE_TIMEOUT"; fi
} >"$stage/etc/sonde-vm/conf"

cpio_file="$work/root.cpio"
(cd "$stage" && find . -mindepth 1 -print0 | LC_ALL=C sort -z | cpio --null -o -H newc -R 0:0 --quiet) >"$cpio_file"

# ---- boot and judge ----------------------------------------------------------------------------------
now() { date +%s.%N; }
elapsed() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.1f", b - a }'; }

# Prints "VERDICT SECS" for a case (VERDICT: PASS, FAIL, UNFINISHED, MISSING), then its output.
case_block() {
	awk -v name="$1" '
		function ends(s, suf) { return length(s) >= length(suf) && substr(s, length(s) - length(suf) + 1) == suf }
		!inside && ends($0, "@@BEGIN " name) { inside = 1; began = 1; n = 0; next }
		inside && (i = index($0, "@@END " name " ")) {
			split(substr($0, i), f, " ")
			verdict = f[3]; secs = f[4]; inside = 0; done = 1
			if (i > 1) out[++n] = substr($0, 1, i - 1)
			exit
		}
		inside { out[++n] = $0 }
		END {
			while (n > 0 && out[n] == "") n--
			if (done) print verdict, secs
			else if (began) print "UNFINISHED", "-"
			else print "MISSING", "-"
			for (j = 1; j <= n; j++) print out[j]
		}
	' "$2"
}

total_fail=0
total_pass=0
summary=()
for s in "${series_list[@]}"; do
	kernel="${vmlinuz[$s]}"
	pkg="$(cat "$(dirname "$kernel")/package" 2>/dev/null || basename "$kernel")"
	raw="$CACHE/logs/$s.log"
	clean="$work/$s.clean"
	log "booting $s ($pkg), ${#cases[@]} case(s)"
	: >"$raw"
	t0="$(now)"
	timeout -k 10 "$VM_TIMEOUT" qemu-system-x86_64 -accel tcg -cpu max -m 2048 -smp 2 \
		-kernel "$kernel" -initrd "$cpio_file" \
		-append "console=ttyS0 quiet panic=-1" -nographic -no-reboot \
		</dev/null >"$raw" 2>&1 &
	qpid=$!
	if [ "$verbose" -eq 1 ]; then
		tail -n +1 -f --pid="$qpid" "$raw" &
		tailpid=$!
	fi
	qrc=0
	wait "$qpid" || qrc=$?
	qpid=''
	if [ -n "$tailpid" ]; then
		wait "$tailpid" 2>/dev/null || true
		tailpid=''
	fi
	t1="$(now)"
	# Without carriage returns and the firmware's terminal escapes.
	tr -d '\r' <"$raw" | sed -e 's/\x1b\[[0-9;?]*[A-Za-z]//g' -e 's/\x1b[A-Za-z]//g' >"$clean"

	kfail=0
	for n in "${cases[@]}"; do
		block="$work/$s.$n.block"
		case_block "$n" "$clean" >"$block"
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
	line="$(printf '%-5s %s: wall %ss' "$s" "$pkg" "$(elapsed "$t0" "$t1")")"
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
