# Shared by the shell benchmarks (sourced, POSIX sh): medians, and a measurement run under a tracer.

# The median of the numbers on stdin, one a line.
median() { sort -g | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }

# under MEASURE TOOL-COMMAND...: start the tracer, wait until it says it is attached (sonde's "Attached",
# bpftrace's "Attaching", ply's "ply: active"), run MEASURE (a shell function printing one
# number), stop the tracer with SIGINT. The tracer's map lines (@...) go to stderr.
under() {
    _measure=$1
    shift
    _log=$(mktemp)
    "$@" >"$_log" 2>&1 &
    _pid=$!
    for _ in $(seq 200); do grep -q "Attaching\|Attached\|ply: active" "$_log" && break; sleep 0.05; done
    sleep 0.3 # bpftrace prints Attaching before it attaches
    "$_measure"
    kill -INT "$_pid"
    wait "$_pid" || true
    grep -E "^@" "$_log" >&2 || true
    rm -f "$_log"
}

# release_bin NAME: builds crate NAME's binary of the same name in release mode and prints its
# path as cargo reports it, wherever the target directory puts it.
release_bin() {
    cargo build --release -p "$1" --bin "$1" --message-format=json 2>/dev/null |
        python3 -c 'import json, sys
for l in sys.stdin:
    m = json.loads(l)
    if m.get("reason") == "compiler-artifact" and m.get("executable"):
        print(m["executable"])'
}

# serve_bench_needs SCRIPT: root (BPF) and curl, or exit 1 saying which is missing.
serve_bench_needs() {
    if [ "$(id -u)" != 0 ]; then
        echo "$1: needs root (BPF)" >&2
        exit 1
    fi
    command -v curl >/dev/null || { echo "$1: needs curl" >&2; exit 1; }
}
