#!/usr/bin/env bash
# Start-up benchmark (not a test): sonde beside bpftrace and ply, when installed.
#
#   bash bench/startup.sh            # RUNS=10 by default
#   RUNS=20 bash bench/startup.sh
#   SONDE=/path/to/sonde bash bench/startup.sh   # a given binary, no build
#
# Builds sonde in release mode, then measures, as the median of RUNS runs each
# (runs of the tools interleaved, after one warm-up run each):
#   attach    wall time from launch until the tool says it attached a one-tracepoint
#             program (sonde: `Attached 1 probe` on stderr; bpftrace: `Attaching 1 probe...`
#             on stdout -- note bpftrace prints it *before* it loads and attaches;
#             ply: `ply: active` on stderr), then ends it with SIGINT;
#   begin     total wall time of `BEGIN { exit(); }`;
#   btf       total wall time of a BEGIN that reads kernel struct members through BTF
#             (`curtask->comm`, `curtask->mm->mm_users`): the cost of the kernel's types
#             (sonde and bpftrace; ply has no BTF);
#   short     total wall time of a short traced command: `-c /bin/true` with one syscall
#             tracepoint aggregating `@[comm] = count()` (start, attach, run, print, detach);
#   rss-*     peak RSS of these, from `/usr/bin/time -f %M`.
# Prints a table with bpftrace/sonde ratios, sonde's binary size and `ldd` output.
# Needs root (BPF) and tracefs; installs Debian's `time` package if missing.
set -euo pipefail

cd "$(dirname "$0")/.."

if [ "$(id -u)" != 0 ]; then
    echo "bench/startup.sh: needs root (BPF)" >&2
    exit 1
fi
if [ ! -d /sys/kernel/tracing/events/syscalls ] && [ ! -d /sys/kernel/debug/tracing/events/syscalls ]; then
    mount -t tracefs nodev /sys/kernel/tracing || true
fi
if [ ! -x /usr/bin/time ]; then
    echo "installing GNU time (for peak RSS)"
    { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq time; } >/dev/null
fi

if [ -n "${SONDE:-}" ]; then
    sonde=$SONDE    # measure a given binary instead of building one
else
    echo "building sonde (release)..."
    sonde=$(scripts/release-bins sonde 2>/dev/null | awk '$1 == "sonde" { print $2 }')
fi

exec python3 - "$sonde" "${RUNS:-10}" <<'PY'
import os, select, shutil, signal, statistics, subprocess, sys, tempfile, time

SONDE, RUNS = sys.argv[1], int(sys.argv[2])
TIMEOUT = 20.0  # seconds for any one run

BTF_PROGRAM = 'BEGIN { printf("%s %d\\n", curtask->comm, curtask->mm->mm_users.counter); exit(); }'

SHORT_PROGRAM = 'tracepoint:syscalls:sys_enter_getppid { @[comm] = count(); }'

# How to run each tool: the attach program, the BEGIN program, and where/what it
# prints once attached.
TOOLS = {
    "sonde": dict(
        cmd=[SONDE],
        attach="tracepoint:syscalls:sys_enter_getpid { @n = count(); }",
        begin="BEGIN { exit(); }",
        btf=BTF_PROGRAM,
        short=["-c", "/bin/true", SHORT_PROGRAM],
        ready=("stderr", b"Attached 1 probe"),
    ),
    "bpftrace": dict(
        cmd=["bpftrace", "-e"],
        attach="tracepoint:syscalls:sys_enter_getpid { @n = count(); }",
        begin="BEGIN { exit(); }",
        btf=BTF_PROGRAM,
        short=["-c", "/bin/true", "-e", SHORT_PROGRAM],
        ready=("stdout", b"Attaching 1 probe"),
    ),
    "ply": dict(
        # Current ply says "ply: active" only in its debug output (-d), which also dumps the
        # program: a little more for ply to write before the marker.
        cmd=["ply", "-d"],
        # ply's current grammar wants a key on every map (`@n = count()` is a syntax error).
        attach="tracepoint:syscalls/sys_enter_getpid { @[0] = count(); }",
        begin="BEGIN { exit(0); }",
        short=["-c", "/bin/true", "tracepoint:syscalls/sys_enter_getppid { @[comm] = count(); }"],
        short_cmd="ply",
        ready=("stderr", b"ply: active"),
    ),
}
tools = [t for t in TOOLS if t == "sonde" or shutil.which(TOOLS[t]["cmd"][0])]


class Failed(Exception):
    pass


def time_rss(argv):
    """argv under /usr/bin/time -f %M; returns (argv, file that gets the peak RSS)."""
    f = tempfile.NamedTemporaryFile(prefix="sonde-bench-rss-", delete=False)
    f.close()
    return ["/usr/bin/time", "-f", "%M", "-o", f.name] + argv, f.name


def read_rss_kib(path):
    try:
        with open(path) as f:
            lines = [l for l in f.read().split("\n") if l.strip()]
        return int(lines[-1])  # earlier lines: "Command exited with non-zero status"
    except (OSError, ValueError, IndexError):
        return None
    finally:
        os.unlink(path)


def run_attach(tool):
    """Seconds from launch to the ready line, and peak RSS (KiB) of the whole run."""
    t = TOOLS[tool]
    argv, rss_file = time_rss(t["cmd"] + [t["attach"]])
    stream, marker = t["ready"]
    t0 = time.perf_counter()
    # Own session: SIGINT goes to the group; /usr/bin/time ignores it, the tool ends.
    p = subprocess.Popen(argv, stdin=subprocess.DEVNULL, start_new_session=True,
                         stdout=subprocess.PIPE if stream == "stdout" else subprocess.DEVNULL,
                         stderr=subprocess.PIPE if stream == "stderr" else subprocess.DEVNULL)
    pipe = p.stdout if stream == "stdout" else p.stderr
    buf, ready = b"", None
    while ready is None:
        left = TIMEOUT - (time.perf_counter() - t0)
        r, _, _ = select.select([pipe], [], [], max(left, 0))
        if not r:
            break
        chunk = os.read(pipe.fileno(), 65536)
        if not chunk:
            break
        buf += chunk
        if marker in buf:
            ready = time.perf_counter() - t0
    # SIGINT, again every 250ms: a signal that lands before the tool installs its
    # handler can be lost (bpftrace prints its line before it attaches).
    deadline = time.perf_counter() + TIMEOUT
    open_pipe = True
    while p.poll() is None and time.perf_counter() < deadline:
        try:
            os.killpg(p.pid, signal.SIGINT)
        except ProcessLookupError:
            break
        stop = time.perf_counter() + 0.25
        while p.poll() is None and time.perf_counter() < stop:
            # Keep draining so the tool never blocks on a full pipe while it exits.
            if open_pipe and select.select([pipe], [], [], 0.02)[0]:
                open_pipe = bool(os.read(pipe.fileno(), 65536))
            else:
                time.sleep(0.005)
    if p.poll() is None:
        os.killpg(p.pid, signal.SIGKILL)
    p.wait()
    rss = read_rss_kib(rss_file)
    if ready is None:
        raise Failed(f"{tool}: never printed {marker.decode()!r} (exit {p.returncode}): "
                     f"{buf.decode(errors='replace')[-300:]!r}")
    return ready, rss


def run_begin(tool, which="begin"):
    """Wall seconds of the whole run of a BEGIN program that exits, and its peak RSS (KiB)."""
    t = TOOLS[tool]
    if which == "short":  # bpftrace's -e must follow its -c: the tool's own word order
        argv, rss_file = time_rss([t.get("short_cmd", t["cmd"][0])] + t["short"])
    else:
        argv, rss_file = time_rss(t["cmd"] + [t[which]])
    t0 = time.perf_counter()
    try:
        p = subprocess.run(argv, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                           stderr=subprocess.PIPE, timeout=TIMEOUT)
    except subprocess.TimeoutExpired:
        read_rss_kib(rss_file)
        raise Failed(f"{tool}: {which} did not end within {TIMEOUT}s")
    wall = time.perf_counter() - t0
    rss = read_rss_kib(rss_file)
    if p.returncode != 0:
        raise Failed(f"{tool}: {which} exited {p.returncode}: "
                     f"{p.stderr.decode(errors='replace')[-300:]!r}")
    return wall, rss


# samples[tool][metric] -> list of values; failures[tool] -> message
samples = {t: {"attach": [], "begin": [], "btf": [], "short": [], "rss-attach": [], "rss-begin": [], "rss-btf": []} for t in tools}
# failures[(tool, measurement)] -> message: a tool that cannot run one program (ply's BEGIN on
# kernels it does not support) is still measured on the others.
failures = {}
MEASURES = {
    "attach": (lambda t: run_attach(t), "attach", "rss-attach"),
    "begin": (lambda t: run_begin(t), "begin", "rss-begin"),
    "btf": (lambda t: run_begin(t, "btf"), "btf", "rss-btf"),
    "short": (lambda t: run_begin(t, "short"), "short", None),
}


def measure(t, name, record=True):
    if (t, name) in failures or (name == "btf" and "btf" not in TOOLS[t]):
        return
    run, metric, rss_metric = MEASURES[name]
    try:
        secs, rss = run(t)
    except Failed as e:
        failures[(t, name)] = str(e)
        return
    if record:
        samples[t][metric].append(secs * 1000)
        if rss_metric and rss is not None:
            samples[t][rss_metric].append(rss / 1024)


for t in tools:  # warm-up (page cache, BTF, tracefs dentries); not counted
    for name in MEASURES:
        measure(t, name, record=False)

print(f"measuring {', '.join(tools)}: {RUNS} runs each, interleaved...", file=sys.stderr)
for i in range(RUNS):
    for t in tools:
        for name in MEASURES:
            measure(t, name)


def failed(t, m):
    return any(ft == t and m in (name, MEASURES[name][2]) for (ft, name) in failures)


def med(t, m):
    v = samples[t][m]
    return statistics.median(v) if v and not failed(t, m) else None


rows = [
    ("attach 1 tracepoint", "attach", "ms"),
    ("BEGIN { exit(); } wall", "begin", "ms"),
    ("BEGIN with BTF types wall", "btf", "ms"),
    ("-c /bin/true, 1 tracepoint", "short", "ms"),
    ("peak RSS, attached", "rss-attach", "MiB"),
    ("peak RSS, BEGIN exit", "rss-begin", "MiB"),
    ("peak RSS, BTF types", "rss-btf", "MiB"),
]
cols = tools + (["bpftrace/sonde"] if "bpftrace" in tools else [])
fmt = "{:<26}" + "{:>16}" * len(cols)
print()
print(f"median of {RUNS} runs")
print(fmt.format("", *cols))
for label, m, unit in rows:
    cells = []
    for t in tools:
        v = med(t, m)
        cells.append("FAIL" if failed(t, m) else f"{v:.1f} {unit}" if v is not None else "-")
    if "bpftrace" in tools:
        s, b = med("sonde", m), med("bpftrace", m)
        cells.append(f"{b / s:.1f}x" if s and b else "-")
    print(fmt.format(label, *cells))
for (t, name), msg in failures.items():
    print(f"\n{t} FAILED ({name}): {msg}")

print()
size = os.path.getsize(SONDE)
print(f"sonde binary: {SONDE}: {size} bytes ({size / 1048576:.2f} MiB)")
for t in tools:
    if t != "sonde":
        path = shutil.which(TOOLS[t]["cmd"][0])
        print(f"{t} binary: {path}: {os.path.getsize(os.path.realpath(path))} bytes")
print(f"\n$ ldd {SONDE}")
ldd = subprocess.run(["ldd", SONDE], capture_output=True, text=True)
print((ldd.stdout + ldd.stderr).rstrip())
PY
