#!/usr/bin/env bash
# sonde serve's costs (issue 26; not in CI): scrape latency and RSS at 1k and 10k series, then
# a soak at the larger size, scraped every second for DURATION seconds (60 by default; the
# issue's hour is DURATION=3600), with RSS sampled every 10 s.
#
#   bash bench/serve.sh                      # build release, 60 s soak
#   DURATION=3600 bash bench/serve.sh        # an hour
#   SONDE=/path/to/sonde SONDE_WORKLOAD=/path/to/sonde-workload bash bench/serve.sh
#
# Prints per size: series exported, scrape time (median and max of SCRAPES scrapes, with curl on
# the loopback), exposition bytes, RSS; then the soak's RSS samples. Exit 1 if a size does not
# export its series, or if RSS grew by more than 1 MiB after the first soak sample.
set -euo pipefail

cd "$(dirname "$0")/.."
# shellcheck source=bench/lib.sh
. bench/lib.sh

if [ "$(id -u)" != 0 ]; then
    echo "bench/serve.sh: needs root (BPF)" >&2
    exit 1
fi
command -v curl >/dev/null || { echo "bench/serve.sh: needs curl" >&2; exit 1; }

duration=${DURATION:-60}
scrapes=${SCRAPES:-50}

# The binaries' paths as cargo reports them, wherever the target directory puts them.
built() {
    cargo build --release -p "$1" --bin "$1" --message-format=json 2>/dev/null |
        python3 -c 'import json, sys
for l in sys.stdin:
    m = json.loads(l)
    if m.get("reason") == "compiler-artifact" and m.get("executable"):
        print(m["executable"])'
}
sonde=${SONDE:-$(built sonde)}
workload=${SONDE_WORKLOAD:-$(built sonde-workload)}

work=$(mktemp -d)
serve_pid=
cleanup() {
    [ -n "$serve_pid" ] && kill "$serve_pid" 2>/dev/null || true
    rm -rf "$work"
}
trap cleanup EXIT

rss_kib() { awk '/^VmRSS:/ {print $2}' "/proc/$1/status"; }

# start SERIES: sonde serve on a program whose map gets SERIES keys; sets serve_pid and url.
start() {
    mkdir -p "$work/$1"
    echo "tracepoint:syscalls:sys_enter_getpid /comm == \"wl_bench\"/ { @series[nsecs % $1] = count(); }" \
        >"$work/$1/series.bt"
    "$sonde" serve --listen 127.0.0.1:0 --max-series $(($1 * 2)) "$work/$1" 2>"$work/err.$1" &
    serve_pid=$!
    for _ in $(seq 200); do grep -q '/metrics' "$work/err.$1" && break; sleep 0.05; done
    url=$(grep -o 'http://[^ ]*/metrics' "$work/err.$1")
    # nsecs % N lands on every key well before 40 N calls.
    "$workload" comm wl_bench getpid $(($1 * 40))
}

stop() {
    kill -INT "$serve_pid"
    wait "$serve_pid" || true
    serve_pid=
}

status=0
echo "sonde $sonde"
echo "series exported scrape_median_ms scrape_max_ms bytes rss_kib"
for n in 1000 10000; do
    start "$n"
    exported=$(curl -s "$url" | grep -c '^sonde_series_total{')
    times=$(for _ in $(seq "$scrapes"); do curl -s -o /dev/null -w '%{time_total}\n' "$url"; done)
    median_ms=$(echo "$times" | median | awk '{printf "%.2f", $1 * 1000}')
    max_ms=$(echo "$times" | sort -g | tail -1 | awk '{printf "%.2f", $1 * 1000}')
    bytes=$(curl -s "$url" | wc -c)
    echo "$n $exported $median_ms $max_ms $bytes $(rss_kib "$serve_pid")"
    [ "$exported" = "$n" ] || { echo "  expected $n series" >&2; status=1; }
    [ "$n" = 10000 ] || stop
done

echo "soak: 10000 series, one scrape a second for $duration s"
echo "elapsed_s rss_kib scrape_ms"
first=
start_s=$(date +%s)
while [ $(($(date +%s) - start_s)) -lt "$duration" ]; do
    for _ in $(seq 10); do
        t=$(curl -s -o /dev/null -w '%{time_total}' "$url")
        sleep 1
    done
    kib=$(rss_kib "$serve_pid")
    echo "$(($(date +%s) - start_s)) $kib $(echo "$t" | awk '{printf "%.2f", $1 * 1000}')"
    first=${first:-$kib}
done
stop
last=${kib:-$first}
if [ -n "$first" ] && [ $((last - first)) -gt 1024 ]; then
    echo "RSS grew from $first KiB to $last KiB" >&2
    status=1
fi
exit $status
