# uprobe/uretprobe on a function of a shipped binary, and on libc found by name; -p limits them.
WL=$(command -v sonde-workload)
run_sonde -c 'sonde-workload ucall 50 libc-getpid 7' \
	"uprobe:$WL:sonde_workload_target /pid == cpid/ { @n = count(); @s = sum(arg0); } uretprobe:$WL:sonde_workload_target /pid == cpid/ { @r = sum(retval); } uprobe:libc:getpid /pid == cpid/ { @g = count(); }"
expect_status 0
expect_map '@n' 50
expect_map '@s' 1275
expect_map '@r' 2550
expect_map '@g' 7
# -p: two processes call the function (5 and 7 times); only the one named by -p is counted, in the
# binary's uprobe and in libc's (found through that process's own mappings).
rm -f go
sonde-workload comm wl_p waitfile go ucall 5 libc-getpid 2 &
wpid=$!
sonde-workload comm wl_other waitfile go ucall 7 libc-getpid 3 &
opid=$!
sonde -p "$wpid" "uprobe:$WL:sonde_workload_target { @n = count(); } uprobe:libc:getpid { @g = count(); }" >p.out 2>p.err &
spid=$!
i=0
while ! grep -q '^Attached' p.err && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
touch go
wait "$wpid" "$opid"
sleep 0.2
kill -INT "$spid"
wait "$spid"
st=$?
_vm_check
[ "$st" = 0 ] || fail "sonde -p exited $st: $(cat p.err)"
grep -qx '@n: 5' p.out || fail "-p: expected '@n: 5' (the other process made 7 calls): $(cat p.out p.err)"
grep -qx '@g: 2' p.out || fail "-p: expected '@g: 2' from libc: $(cat p.out p.err)"
