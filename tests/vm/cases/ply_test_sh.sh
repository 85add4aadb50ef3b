# vm-timeout: 600
# vm-cost: 15
# SPDX-License-Identifier: GPL-2.0-only
# Holds ply's test suite, so this file keeps ply's licence (GPL-2.0; Copyright Tobias
# Waldekranz and ply's contributors), not sonde's. VM-lane test data, never compiled into
# sonde (docs/licensing.md).
# ply's own test suite (test/rootfs/lib/ply/test.sh of github.com/wkz/ply),
# run verbatim as test data with `ply` being sonde. Two of its checks grep ply's output format,
# which sonde does not share (it prints maps as bpftrace does): `quantize` looks for ply's
# lowercase `8k, 16k) 10` and `interval` for ply's `@:` header before each printed map. And
# `tracepoint-dyn` counts the execs of `uname` in a shell loop, but this guest's busybox sh runs
# `uname` as a built-in applet without an exec. Those three may fail, and only those; their facts
# are then checked in sonde's format (from the files the suite leaves in /tmp, and with execs
# that really happen). Every other case (self-test, exit, if-stmt, print, wildcard,
# profile:0:100hz, uptr) must pass.
SONDE_TIMEOUT=400
mkdir -p /tmp/plybin
ln -sf "$(command -v sonde)" /tmp/plybin/ply
cat >/tmp/ply-test.sh <<'PLY_TEST_EOF'
#!/bin/sh

total_fails=0

has_syscall()
{
    [ -e /sys/kernel/debug/tracing/events/syscalls/sys_enter_$1 ]
}

atomics_supported()
{
    case $(uname -m) in
	arm*)
	    # No JIT support for atomic operations as of Linux 6.6.
	    # Alpine kernels set CONFIG_BPF_JIT_ALWAYS_ON, which means
	    # we can't run ply scripts that generate those.
	    return 1
	    ;;
    esac

    return 0
}

fail()
{
    echo "  FAIL $case expected \"$1\", got \"$2\""
    total_fails=$(($total_fails + 1))
}

ply_simple()
{
    stdout=$(ply -c true "tracepoint:sched/sched_process_exit { ${1} }")
    code=$?
}

case=self-test
ply -T || fail "zero exitcode" "non-zero exitcode"

case=exit && ply_simple 'exit(42);' && \
    [ $code -eq 42 ] || fail 42 $code

case=if-stmt && ply_simple 'if (pid > 1) exit(0); else exit(1);' && \
    [ $code -eq 0 ] || fail 0 $code

case=print && ply_simple 'print("test"); exit(0);' && \
    [ $stdout = test ] || fail test "$stdout"


case=wildcard
ply -c \
    "dd if=/dev/zero of=/dev/null bs=1 count=100 status=none" \
    "kprobe:vfs_*r[ei][at][de] { @[comm, caller] = count(); }" >/tmp/wildcard \
&& \
cat /tmp/wildcard | awk '
    /dd.*vfs_read/  { if ($NF >= 100) read  = 1; }
    /dd.*vfs_write/ { if ($NF >= 100) write = 1; }
    END             { exit(!(read && write)); }' \
|| fail "at least 100 reads/writes" "$(cat /tmp/wildcard)"


if atomics_supported; then
    case=quantize
    ply -c \
	"dd if=/dev/zero of=/dev/null bs=10240 count=10 status=none" \
	'kr:vfs_read if (!strcmp(comm, "dd")) {
    		 @["rdsz"] = quantize(retval);
     }' >/tmp/quantize \
	&& \
	grep -qe '8k\s*,\s*16k\s*)\s*10' /tmp/quantize \
	    || fail "10 reads in (8k, 16k]" "$(cat /tmp/quantize)"
fi

case=interval
ply -c 'for i in `seq 3`; do dd if=/dev/zero of=/dev/null count=10 status=none; sleep 1; done' \
    'k:vfs_read { @[pid] = count(); }
     i:1 { print(@); clear(@); }' >/tmp/interval \
&& \
cat /tmp/interval | awk '/^@:/ { count++; } END { exit(count < 3); }' \
|| fail "at least 3 print" "$(cat /tmp/interval)"

case=tracepoint-dyn
ply -c 'for i in $(seq 10); do uname >/dev/null; done' \
    'tracepoint:sched/sched_process_exec {
        @[dyn(data->filename)] = count();
    }' >/tmp/tracepoint-dyn \
&& \
cat /tmp/tracepoint-dyn | awk '
    /uname/  { unames = $NF; }
    END      { exit(!(unames >= 10)); }' \
|| fail "at least 10 unames" "$(cat /tmp/tracepoint-dyn)"

case=profile
ply 'BEGIN { printf("profile provider unit test\n"); c["profile_test"] = 0; }
     profile:0:100hz
     {
         if (c["profile_test"] == 100)
             exit(0);
         else
             c["profile_test"] = c["profile_test"] + 1;
     }' >/tmp/profile \
&& \
cat /tmp/profile | awk -F': ' '
    /profile_test/  { count = $2; }
    END             { exit(count != 100); }' \
|| fail "count should be 100 for profile provider test" "$(cat /tmp/profile)"

case=uptr

# Check for all variants of open(2). NOTE: The original open() is
# _not_ always available (aarch64).
probes=
for open in open openat openat2; do
    has_syscall $open || continue

    probes="${probes}
    tracepoint:syscalls/sys_enter_${open} {
        print(\"${open}\", str(uptr(data->filename)));
    }"
done

ply -c 'cat /etc/hostname >/dev/null' "${probes}" >/tmp/uptr \
&& \
grep -qe "/etc/hostname" /tmp/uptr \
|| fail "open{,at,at2} , /etc/hostname" "$(cat /tmp/uptr)"

exit $total_fails
PLY_TEST_EOF
run_cmd env PATH="/tmp/plybin:$PATH" sh /tmp/ply-test.sh
fails=$(grep -c '^  FAIL ' "$SONDE_OUT_FILE")
check "ply's test.sh exits with its number of failures" test "$SONDE_STATUS" = "$fails"
check "only the quantize, interval and tracepoint-dyn cases fail" \
	sh -c "! grep '^  FAIL ' '$SONDE_OUT_FILE' | grep -vqE '^  FAIL (quantize|interval|tracepoint-dyn) '"
# The facts those two check, in sonde's format: 10 reads of 10 KiB in [8K, 16K); at least 3
# interval prints, each listing dd's pid.
check "quantize: 10 reads in [8K, 16K)" grep -qE '^\[8K, 16K\) +10 ' /tmp/quantize
check "interval: at least 3 printed entries" \
	test "$(grep -cE '^@\[[0-9]+\]: [0-9]+$' /tmp/interval)" -ge 3
# tracepoint-dyn's program with 10 real execs (a path, so sh does not run the applet itself).
run_sonde -c "sh -c 'for i in 1 2 3 4 5 6 7 8 9 10; do /bin/busybox true; done'" \
	'tracepoint:sched/sched_process_exec { @[dyn(data->filename)] = count(); }'
expect_status 0
expect_line '@[/bin/busybox]: 10'
