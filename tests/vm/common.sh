# shellcheck shell=bash
# tests/vm/common.sh: the host side shared by tests/vm/run.sh and bench/kprobes.sh (bash, sourced).
#
# Before sourcing, a script may set VM_PREFIX (the tag of its messages, default "vm"). After
# sourcing it has:
#   VM_HERE, VM_ROOT, VM_CACHE   tests/vm, the repo root, .cache/vm
#   die MSG / log MSG            a message on stderr (die exits 2)
#   as_root CMD..., apt_update_once, pkg_installed PKG
#   vm_host_tools                installs qemu-system-x86, busybox-static and cpio when missing
#   vm_workdir                   makes $work (a temporary dir under $VM_CACHE) and the EXIT trap
#                                that removes it (unless keep=1) and stops qemu
#   vm_kernel_for SERIES         sets KERNEL to the cached vmlinuz (downloads it once)
#   vm_kernels                   fills vmlinuz[SERIES] for every series in series_list
#   vm_sonde_binaries            SONDE_BIN/WORKLOAD_BIN as given, else built with cargo (release)
#   vm_stage_base DIR            busybox and its applets, /dev/console, /init, /tests/lib.sh
#   vm_stage_libs DIR FILE...    the shared libraries (and loader) FILE... need, at ldd's paths
#   vm_stage_case DIR FILE [NAME] a case script as /tests/cases/NAME.sh
#   vm_debian_tools DIR          Debian's bpftrace tools (*.bt) into DIR
#   vm_stage_conf DIR GLOB...    /etc/sonde-vm/{globs,conf} for /init
#   vm_cpio DIR OUT              the newc archive of DIR
#   vm_boot KERNEL CPIO RAW [MEM_MB]  runs the guest to power-off (VM_TIMEOUT; VM_APPEND is added
#                                to the kernel's command line); sets VM_QRC and
#                                VM_WALL; the console goes to RAW (shown live when verbose=1);
#                                boots once more if the kernel never reached /init
#   vm_clean RAW OUT             the console without carriage returns and terminal escapes
#   vm_case_block NAME CLEAN     "VERDICT SECS" of a case, then its output lines
#   vm_add_series LIST           appends the kernel series in LIST (`6.1,6.12`) to series_list,
#                                after checking each looks like one
#   now, elapsed T0 T1

VM_HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
VM_ROOT="$(cd "$VM_HERE/../.." && pwd)"
VM_CACHE="$VM_ROOT/.cache/vm"
: "${VM_PREFIX:=vm}"
: "${VM_TIMEOUT:=900}" # seconds for one guest, boot to power-off
: "${keep:=0}"
: "${verbose:=0}"

die() {
	echo "$VM_PREFIX: $*" >&2
	exit 2
}

log() {
	echo "$VM_PREFIX: $*" >&2
}

now() { date +%s.%N; }

# --kernel LIST: 5.10, 6.1 or 6.12, comma-separated.
vm_add_series() {
	local s _k
	IFS=',' read -r -a _k <<<"$1"
	for s in "${_k[@]}"; do
		[[ "$s" =~ ^[0-9]+\.[0-9]+$ ]] || die "bad kernel series '$s' (want e.g. 5.10, 6.1 or 6.12)"
		series_list+=("$s")
	done
}
elapsed() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.1f", b - a }'; }

# ---- host packages ------------------------------------------------------------------------------
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

BUSYBOX=/bin/busybox
vm_host_tools() {
	local missing=() tool
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
	[ -x "$BUSYBOX" ] || die "$BUSYBOX is missing (package busybox-static)"
	for tool in qemu-system-x86_64 cpio dpkg-deb apt-get apt-cache ldd timeout; do
		command -v "$tool" >/dev/null 2>&1 || die "$tool is missing"
	done
}

# Debian's bpftrace tools (/usr/sbin/*.bt of its bpftrace package) into DIR: the installed ones,
# else those of the package's .deb, fetched once into the cache (its dependencies are not needed).
vm_debian_tools() {
	local dest="$1" tools="$VM_CACHE/bpftrace-tools"
	mkdir -p "$dest"
	if ls /usr/sbin/*.bt >/dev/null 2>&1; then
		cp /usr/sbin/*.bt "$dest/"
		return
	fi
	if ! ls "$tools"/usr/sbin/*.bt >/dev/null 2>&1; then
		apt_update_once
		rm -rf "$tools" "$tools.deb" && mkdir -p "$tools.deb"
		(cd "$tools.deb" && apt-get download -qq bpftrace >/dev/null 2>&1) || die "could not download Debian's bpftrace package"
		dpkg-deb -x "$tools.deb"/bpftrace_*.deb "$tools" || die "could not unpack Debian's bpftrace package"
		rm -rf "$tools.deb"
	fi
	cp "$tools"/usr/sbin/*.bt "$dest/"
}

# ---- the work directory and clean-up ------------------------------------------------------------
work=''
qpid=''
tailpid=''
vm_cleanup() {
	if [ -n "$qpid" ]; then kill "$qpid" 2>/dev/null || true; fi
	if [ -n "$tailpid" ]; then kill "$tailpid" 2>/dev/null || true; fi
	if [ "$keep" -eq 0 ] && [ -n "$work" ]; then rm -rf "$work"; fi
}
vm_workdir() {
	mkdir -p "$VM_CACHE/kernels" "$VM_CACHE/logs"
	work="$(mktemp -d "$VM_CACHE/work.XXXXXX")"
	trap vm_cleanup EXIT
	trap 'echo "$VM_PREFIX: interrupted" >&2; exit 130' INT TERM HUP
}

# ---- kernels ------------------------------------------------------------------------------------
# Series whose kernel is in an older Debian release than the machine's: apt reads that release's
# package lists from a directory of its own under the cache, so the machine's sources stay as
# they are. (6.1 and 6.12 are in bookworm, the machine's release.)
vm_suite_of() {
	case "$1" in
	5.10) echo bullseye ;;
	*) echo '' ;;
	esac
}

# apt-get/apt-cache options that read SUITE's lists (fetched once with `update`) instead of the
# machine's.
VM_APT_OPTS=()
vm_apt_suite() {
	local suite="$1" dir="$VM_CACHE/apt/$1"
	VM_APT_OPTS=()
	[ -n "$suite" ] || return 0
	mkdir -p "$dir/lists/partial" "$dir/cache/archives/partial"
	local keyring=/usr/share/keyrings/debian-archive-keyring.gpg
	[ -f "$keyring" ] || die "$keyring is missing (package debian-archive-keyring)"
	{
		echo "deb [signed-by=$keyring] http://deb.debian.org/debian $suite main"
		echo "deb [signed-by=$keyring] http://deb.debian.org/debian-security $suite-security main"
	} >"$dir/sources.list"
	VM_APT_OPTS=(-o "Dir::Etc::SourceList=$dir/sources.list" -o Dir::Etc::SourceParts=/dev/null
		-o "Dir::State::Lists=$dir/lists" -o "Dir::Cache=$dir/cache")
	chmod -R a+rwX "$dir"
	log "apt-get update ($suite's lists, in $dir)"
	as_root apt-get "${VM_APT_OPTS[@]}" update -qq >/dev/null || die "apt-get update for $suite failed"
}

# Sets KERNEL to the cached vmlinuz of a series, downloading Debian's newest cloud kernel once.
vm_kernel_for() {
	local series="$1" dir="$VM_CACHE/kernels/$1" found=()
	shopt -s nullglob
	found=("$dir"/vmlinuz-*)
	shopt -u nullglob
	if [ ${#found[@]} -ge 1 ] && [ -s "${found[-1]}" ]; then
		KERNEL="${found[-1]}"
		return 0
	fi
	local suite
	suite="$(vm_suite_of "$series")"
	if [ -n "$suite" ]; then vm_apt_suite "$suite"; else apt_update_once; VM_APT_OPTS=(); fi
	local re="^linux-image-${series//./\\.}\\.[0-9][^ ]*-cloud-amd64"
	local names
	# Signed images first (the plain name), then -unsigned; never -dbg. Newest first.
	names="$(apt-cache "${VM_APT_OPTS[@]}" search --names-only "$re" | awk '{ print $1 }' | grep -E -- '-cloud-amd64$' | sort -Vr || true)"
	names+=$'\n'"$(apt-cache "${VM_APT_OPTS[@]}" search --names-only "$re" | awk '{ print $1 }' | grep -E -- '-cloud-amd64-unsigned$' | sort -Vr || true)"
	local dl="$work/dl-$series" pkg deb
	mkdir -p "$dl"
	chmod 755 "$work" "$dl" # so apt's _apt user may write there
	for pkg in $names; do
		log "downloading $pkg"
		rm -rf "${dl:?}"/*
		if ! (cd "$dl" && apt-get "${VM_APT_OPTS[@]}" download -qq "$pkg" >/dev/null 2>&1); then
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

# Fills the associative array `vmlinuz` (series -> cached vmlinuz) for every series in series_list.
declare -gA vmlinuz
vm_kernels() {
	local s
	for s in "${series_list[@]}"; do
		vm_kernel_for "$s"
		vmlinuz[$s]="$KERNEL"
	done
}

# SONDE_BIN and WORKLOAD_BIN as the caller set them, else `cargo build --release` of both
# (scripts/release-bins; its log in $work/cargo.log); fails unless both are executable.
vm_sonde_binaries() {
	if [ -z "${SONDE_BIN:-}" ] || [ -z "${WORKLOAD_BIN:-}" ]; then
		log "cargo build --release -p sonde -p sonde-workload"
		if ! "$VM_ROOT/scripts/release-bins" sonde sonde-workload >"$work/bins" 2>"$work/cargo.log"; then
			cat "$work/cargo.log" >&2
			die "cargo build failed"
		fi
		SONDE_BIN="${SONDE_BIN:-$(awk '$1 == "sonde" { print $2 }' "$work/bins")}"
		WORKLOAD_BIN="${WORKLOAD_BIN:-$(awk '$1 == "sonde-workload" { print $2 }' "$work/bins")}"
	fi
	[ -x "$SONDE_BIN" ] || die "no sonde binary at $SONDE_BIN"
	[ -x "$WORKLOAD_BIN" ] || die "no sonde-workload binary at $WORKLOAD_BIN"
}

# The package line of a cached kernel, for reports.
vm_kernel_package() {
	cat "$(dirname "$1")/package" 2>/dev/null || basename "$1"
}

# ---- initramfs ----------------------------------------------------------------------------------
vm_stage_base() {
	local stage="$1" applet
	mkdir -p "$stage"/{bin,sbin,usr/bin,usr/sbin,dev,proc,sys,tmp,root,etc/sonde-vm,tests/cases}
	cp "$BUSYBOX" "$stage/bin/busybox"
	while IFS= read -r applet; do
		if [ -z "$applet" ] || [ "$applet" = bin/busybox ]; then continue; fi
		mkdir -p "$stage/$(dirname "$applet")"
		ln -sf /bin/busybox "$stage/$applet"
	done < <("$BUSYBOX" --list-full)
	# The kernel opens /dev/console before /init runs; /init mounts devtmpfs over /dev later.
	mknod -m 600 "$stage/dev/console" c 5 1 2>/dev/null || log "mknod /dev/console failed (not root?); /init reopens it"
	install -m 755 "$VM_HERE/init.sh" "$stage/init"
	install -m 644 "$VM_HERE/lib.sh" "$stage/tests/lib.sh"
}

# Shared libraries and the dynamic loader of FILE..., at the paths ldd names (already there: kept).
vm_stage_libs() {
	local stage="$1" lib
	shift
	while IFS= read -r lib; do
		[ -n "$lib" ] || continue
		[ -e "$stage$lib" ] && continue
		mkdir -p "$stage$(dirname "$lib")"
		cp -L "$lib" "$stage$lib"
	done < <(ldd "$@" 2>/dev/null |
		awk '$2 == "=>" && $3 ~ /^\// { print $3 } $1 ~ /^\// && $1 !~ /:$/ { print $1 }' | sort -u)
}

vm_stage_case() {
	local stage="$1" file="$2" name="${3:-$(basename "$2" .sh)}"
	install -m 644 "$file" "$stage/tests/cases/$name.sh"
}

vm_stage_conf() {
	local stage="$1"
	shift
	printf '%s\n' "$@" >"$stage/etc/sonde-vm/globs"
	{
		printf 'CASE_TIMEOUT=%q\n' "${CASE_TIMEOUT:-300}"
		if [ -n "${SONDE_TIMEOUT:-}" ]; then printf 'export SONDE_TIMEOUT=%q\n' "$SONDE_TIMEOUT"; fi
	} >"$stage/etc/sonde-vm/conf"
}

vm_cpio() {
	(cd "$1" && find . -mindepth 1 -print0 | LC_ALL=C sort -z | cpio --null -o -H newc -R 0:0 --quiet) >"$2"
}

# ---- boot ---------------------------------------------------------------------------------------
# One qemu run to power-off (or VM_TIMEOUT); the console goes to RAW.
vm_qemu() {
	local kernel="$1" cpio_file="$2" raw="$3" mem="$4"
	: >"$raw"
	timeout -k 10 "$VM_TIMEOUT" qemu-system-x86_64 -accel "tcg,thread=${VM_TCG_THREAD:-single}" -cpu max -m "$mem" -smp 2 \
		-kernel "$kernel" -initrd "$cpio_file" \
		-append "console=ttyS0 quiet panic=-1${VM_APPEND:+ $VM_APPEND}" -nographic -no-reboot \
		</dev/null >"$raw" 2>&1 &
	qpid=$!
	if [ "$verbose" -eq 1 ]; then
		tail -n +1 -f --pid="$qpid" "$raw" &
		tailpid=$!
	fi
	local rc=0
	wait "$qpid" || rc=$?
	qpid=''
	if [ -n "$tailpid" ]; then
		wait "$tailpid" 2>/dev/null || true
		tailpid=''
	fi
	return "$rc"
}

# Boots the guest and runs it to power-off. A guest that never reached /init (no @@INIT on the
# console: a panic while booting, as multi-threaded TCG (VM_TCG_THREAD=multi) now and then gives one while the kernel
# patches its own text) is booted once more; its console is kept as RAW.boot-failed. Nothing of
# sonde has run by then, so this retries only the emulator, never a case.
vm_boot() {
	local kernel="$1" cpio_file="$2" raw="$3" mem="${4:-2048}" t0 t1 rc=0
	rm -f "$raw.boot-failed"
	t0="$(now)"
	vm_qemu "$kernel" "$cpio_file" "$raw" "$mem" || rc=$?
	if ! grep -q '@@INIT ' "$raw" && [ "$rc" -ne 124 ] && [ "$rc" -ne 137 ]; then
		mv "$raw" "$raw.boot-failed"
		log "the guest did not reach /init ($(tr -d '\r' <"$raw.boot-failed" | grep -m1 -oE 'Kernel panic.*|Oops.*' || echo "qemu status $rc")); booting it again (first console: $raw.boot-failed)"
		rc=0
		t0="$(now)"
		vm_qemu "$kernel" "$cpio_file" "$raw" "$mem" || rc=$?
	fi
	t1="$(now)"
	# VM_QRC and VM_WALL are for the sourcing script.
	# shellcheck disable=SC2034
	VM_QRC=$rc
	# shellcheck disable=SC2034
	VM_WALL="$(elapsed "$t0" "$t1")"
}

# Without carriage returns and the firmware's terminal escapes.
vm_clean() {
	tr -d '\r' <"$1" | sed -e 's/\x1b\[[0-9;?]*[A-Za-z]//g' -e 's/\x1b[A-Za-z]//g' >"$2"
}

# Prints "VERDICT SECS" for a case (VERDICT: PASS, FAIL, UNFINISHED, MISSING), then its output.
vm_case_block() {
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
