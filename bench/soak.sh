#!/usr/bin/env bash
# Soak test (not in CI; issue 13): a raw_syscalls aggregation with an interval printer under
# syscall load, for DURATION seconds (600 by default). Checks that sonde's RSS stays flat and
# that every interval was printed or its skipped run reported (`missed_runs`).
#
#   bash bench/soak.sh                   # 10 minutes
#   DURATION=120 bash bench/soak.sh      # 2 minutes
#   SONDE=/path/to/sonde bash bench/soak.sh   # a given binary, no build
#
# Samples VmRSS every 10 s; prints the samples, the number of interval prints against the
# seconds elapsed, and the skipped runs per probe. Exit 1 if RSS grew by more than 1 MiB after
# the first sample, or if fewer intervals were printed-or-reported than whole seconds ran.
set -euo pipefail

cd "$(dirname "$0")/.."

if [ "$(id -u)" != 0 ]; then
    echo "bench/soak.sh: needs root (BPF)" >&2
    exit 1
fi

duration=${DURATION:-600}
if [ -n "${SONDE:-}" ]; then
    sonde=$SONDE
else
    echo "building sonde (release)..." >&2
    # The binary's path as cargo reports it: wherever the target directory and triple put it.
    sonde=$(cargo build --release -p sonde --bin sonde --message-format=json 2>/dev/null |
        python3 -c 'import json, sys
for l in sys.stdin:
    m = json.loads(l)
    if m.get("reason") == "compiler-artifact" and m.get("executable"):
        print(m["executable"])')
fi

work=$(mktemp -d)
load_pids=()
cleanup() {
    for p in "${load_pids[@]}"; do kill "$p" 2>/dev/null || true; done
    rm -rf "$work"
}
trap cleanup EXIT

# One syscall-bound loop per CPU: raw_syscalls fires millions of times a second.
for _ in $(seq "$(nproc)"); do
    dd if=/dev/zero of=/dev/null bs=1 2>/dev/null &
    load_pids+=($!)
done

prog='tracepoint:raw_syscalls:sys_enter { @[comm] = count(); } interval:s:1 { print(@); clear(@); }'
"$sonde" -f json "$prog" >"$work/out" 2>"$work/err" &
sonde_pid=$!
start=$(date +%s)
echo "sonde $sonde (pid $sonde_pid), $duration s, $(nproc) dd bs=1 loops"
echo "elapsed_s rss_kib"
rss=()
while [ $(($(date +%s) - start)) -lt "$duration" ]; do
    sleep 10
    kib=$(awk '/^VmRSS:/ {print $2}' "/proc/$sonde_pid/status")
    rss+=("$kib")
    echo "$(($(date +%s) - start)) $kib"
done
kill -INT "$sonde_pid"
wait "$sonde_pid" || { echo "sonde exited with status $?"; cat "$work/err"; exit 1; }
ran=$(($(date +%s) - start))

python3 - "$work/out" "$work/err" "$ran" "${rss[*]}" <<'PY'
import json, sys
out, err, ran, rss = sys.argv[1], sys.argv[2], int(sys.argv[3]), [int(x) for x in sys.argv[4].split()]
records = [json.loads(l) for l in open(out) if l.strip()]
maps = sum(1 for r in records if r["type"] == "map")
missed = {r["data"]["probe"]: r["data"]["runs"] for r in records if r["type"] == "missed_runs"}
lost = sum(r["data"]["events"] for r in records if r["type"] == "lost_events")
# The last map record is the end-of-run print of every map.
printed = maps - 1
interval_missed = sum(n for p, n in missed.items() if p.startswith("interval"))
print(f"ran {ran} s: {printed} interval prints, {interval_missed} interval runs reported skipped")
print(f"skipped runs per probe: {missed or 'none'}; lost events: {lost}")
grow = rss[-1] - rss[0]
print(f"RSS: first {rss[0]} KiB, last {rss[-1]} KiB, max {max(rss)} KiB (growth {grow} KiB)")
stderr = open(err).read().strip()
if stderr:
    print("stderr:\n" + stderr)
ok = True
if printed + interval_missed < ran - 1:
    print(f"FAIL: {ran - 1 - printed - interval_missed} interval(s) neither printed nor reported")
    ok = False
if grow > 1024:
    print("FAIL: RSS grew by more than 1 MiB")
    ok = False
sys.exit(0 if ok else 1)
PY
