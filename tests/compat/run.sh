#!/bin/sh
# Classify bpftrace's tools/*.bt under `sonde -e` (dry run: verifier load, nothing attached).
# Usage: tests/compat/run.sh DIR-WITH-BT-FILES [SONDE]
# bpftrace's scripts are not in this repository (licence): fetch them yourself, e.g.
#   git clone --depth 1 https://github.com/bpftrace/bpftrace && tests/compat/run.sh bpftrace/tools
# Classes: load (every program passed the verifier), kprobe (front end accepted it, but this host
# has no kprobes / function list), missing (a probe this host lacks), compile (a front-end error).
dir=${1:?usage: run.sh DIR [SONDE]}
sonde=${2:-sonde}
load=0 kp=0 miss=0 comp=0 total=0
for f in "$dir"/*.bt; do
    total=$((total + 1))
    out=$(timeout 60 "$sonde" -e "$f" 2>&1)
    name=$(basename "$f")
    if printf '%s' "$out" | grep -q 'passed the verifier'; then
        load=$((load + 1)); echo "load     $name"
    elif printf '%s' "$out" | grep -qi 'available_filter_functions\|kprobe.*not available\|no kprobes\|kprobe_events'; then
        kp=$((kp + 1)); echo "kprobe   $name: $(printf '%s' "$out" | grep -m1 error)"
    elif printf '%s' "$out" | grep -qi 'no such tracepoint\|no such probe\|not found in\|does not exist\|no probe matches\|matches no'; then
        miss=$((miss + 1)); echo "missing  $name: $(printf '%s' "$out" | grep -m1 error)"
    else
        comp=$((comp + 1)); echo "compile  $name: $(printf '%s' "$out" | grep -m1 -A3 error | tr '\n' ' ' | cut -c1-160)"
    fi
done
echo "total $total: load $load, kprobe-unavailable $kp, probe-missing $miss, compile-error $comp"
