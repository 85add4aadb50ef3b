#!/bin/sh
# sonde trace's overhead on the worst case, dd bs=1 (two syscalls per byte), against strace and
# perf trace where installed: the median elapsed time of each mode over ROUNDS interleaved
# rounds, as a ratio to the untraced baseline; then a short run whole (`-- /bin/true`: start,
# attach, detach). Run as root from the repository:
#   bench/trace.sh            (builds sonde; SONDE=/path/to/sonde measures a given binary)
#   MODES="baseline sonde_s floor_clock" ROUNDS=9 bench/trace.sh    (some modes, more rounds:
#                             without strace's 100 s runs between them the medians hold still)
#   TRUE_ONLY=1 TRUE_ROUNDS=30 bench/trace.sh    (only the short run, `-- /bin/true`)
set -eu
SONDE=${SONDE:-$("$(dirname "$0")/../scripts/release-bins" sonde 2>/dev/null | awk '$1 == "sonde" { print $2 }')}
ROUNDS=${ROUNDS:-3}
DD="dd if=/dev/zero of=/dev/null bs=1 count=500k"

# dd's own report of its elapsed seconds (stderr: "..., 0.303143 s, 1.7 MB/s").
secs() { sh -c "$1" 2>&1 >/dev/null | sed -n 's/.* copied, \([0-9.e-]*\) s,.*/\1/p' | tail -1; }
. "$(dirname "$0")/lib.sh"

run_mode() {
  case $1 in
    baseline) secs "$DD" ;;
    sonde_accept) secs "$SONDE trace -e accept -- $DD" ;;
    sonde_s) secs "$SONDE trace -c -o /dev/null -- $DD" ;;
    sonde_all) secs "$SONDE trace -o /dev/null -- $DD" ;;
    # The floor of any exact summary on the raw syscall tracepoints, on the same tracepoint kind
    # (BTF-typed raw tracepoints) and loader as -c: an empty pair, then the pair reading the clock
    # once at each end, which every duration needs.
    floor_pair) secs "$SONDE -c '$DD' 'rawtracepoint:sys_enter { } rawtracepoint:sys_exit { }'" ;;
    floor_clock) secs "$SONDE -c '$DD' 'rawtracepoint:sys_enter { \$t = nsecs; } rawtracepoint:sys_exit { \$u = nsecs; }'" ;;
    strace_accept) secs "strace -e trace=accept $DD" ;;
    strace_c) secs "strace -c -o /dev/null $DD" ;;
    perf_accept) secs "perf trace -e accept $DD" ;;
    perf_s) secs "perf trace -s -o /dev/null $DD" ;;
  esac
}
modes="baseline sonde_accept sonde_s sonde_all floor_pair floor_clock"
command -v strace >/dev/null && modes="$modes strace_accept strace_c"
command -v perf >/dev/null && modes="$modes perf_accept perf_s"
modes=${MODES:-$modes}
case " $modes " in *" baseline "*) ;; *) modes="baseline $modes" ;; esac
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
if [ -z "${TRUE_ONLY:-}" ]; then
  for r in $(seq "$ROUNDS"); do
    for m in $modes; do run_mode "$m" >>"$tmp/$m"; done
  done
  base=$(median <"$tmp/baseline")
  echo "| mode | dd seconds (median of $ROUNDS) | slowdown |"
  echo "|---|---|---|"
  for m in $modes; do
    t=$(median <"$tmp/$m")
    echo "| $m | $t | $(awk -v t="$t" -v b="$base" 'BEGIN {printf "%.2fx", t / b}') |"
  done
  # Every call of the all-lines mode is printed or counted as lost: lines + lost = made.
  out=$($SONDE trace -o - -e read,write -- $DD 2>"$tmp/err" | grep -c '^' || true)
  lost=$(sed -n 's/^sonde: \([0-9]*\) calls lost of \([0-9]*\) made.*/\1 \2/p' "$tmp/err")
  echo
  echo "all-lines check (-e read,write): $out lines printed; calls lost and made: ${lost:-0 (none lost)}"
fi

# A short run, whole: sonde trace's start and end against strace's and perf trace's, the median
# of TRUE_ROUNDS interleaved runs of each, in milliseconds (date +%s%N around each), and each as a
# ratio to `strace -f` measured in the same rounds. sonde's kept program (/run/sonde) is made by
# a first run outside the rounds, as it is on any machine after the first trace.
# TRUE_ONLY=1 measures only this part.
TRUE_ROUNDS=${TRUE_ROUNDS:-15}
ms() { _s=$(date +%s%N); "$@" >/dev/null 2>&1; _e=$(date +%s%N); echo $(((_e - _s) / 1000)); }
true_modes="true sonde_true sonde_true_f"
command -v strace >/dev/null && true_modes="$true_modes strace_true"
command -v perf >/dev/null && true_modes="$true_modes perf_true"
"$SONDE" trace -o /dev/null -- /bin/true >/dev/null 2>&1 || true
for r in $(seq "$TRUE_ROUNDS"); do
  for m in $true_modes; do
    case $m in
      true) ms /bin/true ;;
      sonde_true) ms "$SONDE" trace -o /dev/null -- /bin/true ;;
      sonde_true_f) ms "$SONDE" trace -f -o /dev/null -- /bin/true ;;
      strace_true) ms strace -f -o /dev/null /bin/true ;;
      perf_true) ms perf trace -o /dev/null /bin/true ;;
    esac >>"$tmp/$m"
  done
done
echo
echo "| /bin/true | ms (median of $TRUE_ROUNDS) | against strace -f |"
echo "|---|---|---|"
strace_us=$(median <"$tmp/strace_true" 2>/dev/null || true)
for m in $true_modes; do
  t=$(median <"$tmp/$m")
  echo "| $m | $(awk -v t="$t" 'BEGIN { printf "%.1f", t / 1000 }') | $(awk -v t="$t" -v s="${strace_us:-0}" 'BEGIN { if (s > 0) printf "%.2fx", t / s; else print "-" }') |"
done
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg)"
