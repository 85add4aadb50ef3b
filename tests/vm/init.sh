#!/bin/sh
# /init of the sonde VM test initramfs (busybox ash). Built by tests/vm/run.sh.
#
# Mounts the pseudo file systems, runs every case of /tests/cases/*.sh whose name matches a
# glob of /etc/sonde-vm/globs (one a line) and, when the kernel's command line has
# `sonde.cases=A,B,...` (this guest's share of the cases), is in that list, each in its own
# shell with a timeout, and prints
# machine-readable markers on the console for run.sh:
#   @@INIT <uname -r> <uptime seconds>
#   @@BEGIN <case>
#   ... the case's output ...
#   @@END <case> PASS|FAIL <seconds>
#   @@DONE pass=<n> fail=<n>
# then powers the machine off.

export PATH=/bin:/sbin:/usr/bin:/usr/sbin
export HOME=/root
umask 022

mkdir -p /dev /proc /sys /tmp /root
mount -t devtmpfs devtmpfs /dev 2>/dev/null
# The kernel opened /dev/console from the initramfs; reopen it on devtmpfs in case it had none.
[ -c /dev/console ] && exec </dev/console >/dev/console 2>&1
mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t tmpfs -o mode=1777 tmpfs /tmp
mount -t debugfs debugfs /sys/kernel/debug 2>/dev/null || echo "init: cannot mount debugfs"
mount -t tracefs tracefs /sys/kernel/tracing 2>/dev/null || echo "init: cannot mount tracefs"
mkdir -p /dev/pts /dev/shm
mount -t devpts devpts /dev/pts 2>/dev/null
ip link set lo up 2>/dev/null
hostname sonde-vm
# As on a Debian machine: ply's test.sh and the docs' examples read it (`cat /etc/hostname`).
[ -e /etc/hostname ] || echo sonde-vm >/etc/hostname

uptime_s() {
	cut -d' ' -f1 /proc/uptime
}

finish() {
	sync
	poweroff -f
	sleep 5
	# No ACPI power-off? qemu runs with -no-reboot, so a reboot ends it too.
	reboot -f
}

echo "@@INIT $(uname -r) $(uptime_s)"

CASE_TIMEOUT=300
# shellcheck disable=SC1091 # written by run.sh
[ -r /etc/sonde-vm/conf ] && . /etc/sonde-vm/conf

# This guest's share, when run.sh split the cases between several guests of one kernel.
share="$(sed -n 's/.*sonde\.cases=\([^ ]*\).*/\1/p' /proc/cmdline)"

selected() {
	if [ -n "$share" ]; then
		case ",$share," in
		*",$1,"*) ;;
		*) return 1 ;;
		esac
	fi
	if [ ! -s /etc/sonde-vm/globs ]; then
		return 0
	fi
	while IFS= read -r _g; do
		[ -n "$_g" ] || continue
		# shellcheck disable=SC2254 # the glob is meant to match
		case "$1" in
		$_g) return 0 ;;
		esac
	done </etc/sonde-vm/globs
	return 1
}

# A case may ask for a longer timeout with a line `# vm-timeout: SECONDS`.
case_timeout() {
	_t="$(sed -n 's/^# *vm-timeout: *\([0-9][0-9]*\) *$/\1/p' "$1" | head -n 1)"
	echo "${_t:-$CASE_TIMEOUT}"
}

npass=0
nfail=0
for file in /tests/cases/*.sh; do
	[ -f "$file" ] || continue
	name="${file##*/}"
	name="${name%.sh}"
	selected "$name" || continue

	tmo="$(case_timeout "$file")"
	dir="/tmp/cases/$name"
	rm -rf "$dir"
	mkdir -p "$dir"
	echo "@@BEGIN $name"
	t0="$(uptime_s)"
	# Straight to the console, no pipe: nothing a hung case left behind can hold the runner up.
	(
		cd "$dir" || exit 1
		# shellcheck disable=SC2016 # $1 is the inner shell's
		CASE_NAME="$name" CASE_TMP="$dir" exec timeout -k 5 "$tmo" sh -c '. /tests/lib.sh; . "$1"' "$name" "$file"
	) </dev/null
	rc=$?
	t1="$(uptime_s)"
	# Nothing a case started may outlive it (pid 1 is spared by kill -1).
	kill -9 -1 2>/dev/null
	if [ "$rc" = 143 ] || [ "$rc" = 137 ]; then
		printf '\nFAIL: case timed out after %ss\n' "$tmo"
	fi
	secs="$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.1f", b - a }')"
	if [ "$rc" = 0 ]; then
		verdict=PASS
		npass=$((npass + 1))
	else
		verdict=FAIL
		nfail=$((nfail + 1))
	fi
	# A leading newline, in case the output did not end with one (run.sh skips the empty line).
	# Written through a fresh open of the console (a case cannot have left it non-blocking), and
	# twice: once, under a loaded host, only the newline of it reached the log (a short write the
	# shell does not finish). run.sh takes the first whole marker; the second falls outside the
	# case's block.
	printf '\n@@END %s %s %s\n' "$name" "$verdict" "$secs" >/dev/console
	printf '@@END %s %s %s\n' "$name" "$verdict" "$secs" >/dev/console
done

echo "@@DONE pass=$npass fail=$nfail uptime=$(uptime_s)"
finish
