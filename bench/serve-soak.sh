#!/usr/bin/env bash
# sonde serve's soak (issue 26; not in CI): SERIES series (10 000 by default) scraped every
# INTERVAL seconds (1) for DURATION seconds (3600, the issue's hour), while a workload keeps
# updating the map. Records every scrape's time and, every SAMPLE seconds (60), sonde's RSS.
#
#   bash bench/serve-soak.sh                           # build release, an hour
#   DURATION=120 SAMPLE=10 bash bench/serve-soak.sh    # a short run
#   SONDE=/path/to/sonde SONDE_WORKLOAD=/path/to/sonde-workload bash bench/serve-soak.sh
#   OUT=/tmp/soak bash bench/serve-soak.sh             # keep the raw scrape times there
#
# Prints one line per SAMPLE: elapsed seconds, RSS (KiB), scrapes in the window, their median,
# 99th percentile and slowest time (ms), and series exported at the window's last scrape; then
# the whole run's figures. Exit 1 if a scrape failed, if the series exported are not SERIES, or
# if RSS grew by more than 1 MiB after the first sample.
set -euo pipefail

cd "$(dirname "$0")/.."
# shellcheck source=bench/lib.sh
. bench/lib.sh

serve_bench_needs bench/serve-soak.sh

duration=${DURATION:-3600}
series=${SERIES:-10000}
interval=${INTERVAL:-1}
sample=${SAMPLE:-60}

sonde=${SONDE:-$(release_bin sonde)}
workload=${SONDE_WORKLOAD:-$(release_bin sonde-workload)}

work=$(mktemp -d)
out=${OUT:-$work}
mkdir -p "$out"
serve_pid=
load_pid=
cleanup() {
    [ -n "$load_pid" ] && kill "$load_pid" 2>/dev/null || true
    [ -n "$serve_pid" ] && kill -INT "$serve_pid" 2>/dev/null || true
    wait 2>/dev/null || true
    rm -rf "$work"
}
trap cleanup EXIT

rss_kib() { awk '/^VmRSS:/ {print $2}' "/proc/$1/status"; }
# The p-th percentile (0-100) of the numbers on stdin.
percentile() { sort -g | awk -v p="$1" '{ v[NR] = $1 } END { i = int(NR * p / 100 + 0.999); if (i < 1) i = 1; print v[i] }'; }

mkdir -p "$work/prog"
echo "tracepoint:syscalls:sys_enter_getpid /comm == \"wl_soak\"/ { @series[nsecs % $series] = count(); }" \
    >"$work/prog/series.bt"
# Twice the series: the LRU map never evicts, so every key stays exported.
"$sonde" serve --listen 127.0.0.1:0 --max-series $((series * 2)) "$work/prog" 2>"$work/err" &
serve_pid=$!
for _ in $(seq 200); do grep -q '/metrics' "$work/err" && break; sleep 0.05; done
url=$(grep -o 'http://[^ ]*/metrics' "$work/err") || { cat "$work/err" >&2; exit 1; }
# nsecs % N lands on every key well before 40 N calls; then a steady trickle keeps them moving.
"$workload" comm wl_soak getpid $((series * 40))
(while :; do "$workload" comm wl_soak getpid 1000 >/dev/null; sleep 1; done) &
load_pid=$!

echo "sonde $sonde; $series series, a scrape every $interval s for $duration s"
echo "elapsed_s rss_kib scrapes median_ms p99_ms max_ms series"
status=0
start_s=$(date +%s)
first_rss=
: >"$out/scrape-ms"
while [ $(($(date +%s) - start_s)) -lt "$duration" ]; do
    window_end=$(($(date +%s) + sample))
    : >"$work/window"
    exported=0
    while [ "$(date +%s)" -lt "$window_end" ]; do
        t=$(curl -s -o "$work/body" -w '%{http_code} %{time_total}' "$url") || t="000 0"
        if [ "${t%% *}" != 200 ]; then
            echo "a scrape failed: $t" >&2
            status=1
        fi
        echo "${t#* }" | awk '{printf "%.3f\n", $1 * 1000}' | tee -a "$out/scrape-ms" >>"$work/window"
        exported=$(grep -c '^sonde_series_total{' "$work/body" || true)
        sleep "$interval"
    done
    rss=$(rss_kib "$serve_pid")
    first_rss=${first_rss:-$rss}
    n=$(wc -l <"$work/window")
    echo "$(($(date +%s) - start_s)) $rss $n $(median <"$work/window") \
$(percentile 99 <"$work/window") $(sort -g "$work/window" | tail -1) $exported"
    [ "$exported" = "$series" ] || { echo "  expected $series series" >&2; status=1; }
done
echo "whole run: $(wc -l <"$out/scrape-ms") scrapes, median $(median <"$out/scrape-ms") ms, \
p99 $(percentile 99 <"$out/scrape-ms") ms, slowest $(sort -g "$out/scrape-ms" | tail -1) ms; \
RSS $first_rss KiB at the first sample, $rss KiB at the last"
if [ $((rss - first_rss)) -gt 1024 ]; then
    echo "RSS grew from $first_rss KiB to $rss KiB" >&2
    status=1
fi
exit $status
