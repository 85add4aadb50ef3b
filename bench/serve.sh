#!/usr/bin/env bash
# sonde serve's costs (issue 26; not in CI): scrape latency and RSS at 1k and 10k series. The
# soak (hours of scrapes) is bench/serve-soak.sh.
#
#   bash bench/serve.sh                      # build release
#   SONDE=/path/to/sonde SONDE_WORKLOAD=/path/to/sonde-workload bash bench/serve.sh
#
# Prints per size: series exported, scrape time (median and max of SCRAPES scrapes, with curl on
# the loopback), exposition bytes, RSS. Exit 1 if a size does not export its series.
set -euo pipefail

cd "$(dirname "$0")/.."
# shellcheck source=bench/lib.sh
. bench/lib.sh

serve_bench_needs bench/serve.sh

scrapes=${SCRAPES:-50}

sonde=${SONDE:-$(release_bin sonde)}
workload=${SONDE_WORKLOAD:-$(release_bin sonde-workload)}

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
    stop
done
exit $status
