#!/usr/bin/env python3
"""How often `sonde trace --strace` prints a call exactly as `strace -f` does (issue 21, section 4).

Runs each program under `strace -f` and under `sonde trace --strace`, pairs the processes (in the
order they first appear), aligns each pair's calls by syscall name, masks what differs from run
to run (addresses, pids, times, ports, random bytes, strace's column padding) and counts the
aligned calls whose text is identical. Prints a table per program and, with --detail, the
syscalls that differ most with one example each.

    bench/strace-match.py [--sonde PATH] [--detail N] [--only NAME]...

Needs root, strace, and sonde built (target/debug/sonde by default, or $SONDE).
"""

import argparse
import collections
import difflib
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile

THREADS_C = r"""
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
static volatile sig_atomic_t got;
static void on_usr1(int sig) { got = sig; }
static void *worker(void *arg) {
    (void)arg;
    usleep(1000);
    kill(getpid(), SIGUSR1);
    return NULL;
}
int main(void) {
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_usr1;
    sigaction(SIGUSR1, &sa, NULL);
    pthread_t t[2];
    for (int i = 0; i < 2; i++) pthread_create(&t[i], NULL, worker, NULL);
    for (int i = 0; i < 2; i++) pthread_join(t[i], NULL);
    printf("got %d\n", (int)got);
    return 0;
}
"""

NET_PY = r"""
import os, socket
srv = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
srv.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
srv.bind(("127.0.0.1", 0))
srv.listen(1)
port = srv.getsockname()[1]
pid = os.fork()
if pid == 0:
    c = socket.create_connection(("127.0.0.1", port))
    c.sendall(b"ping\n")
    c.recv(16)
    c.close()
    os._exit(0)
conn, _ = srv.accept()
data = conn.recv(16)
conn.sendall(data.upper())
conn.close()
os.waitpid(pid, 0)
"""

# Datagrams on loopback through sendmsg/recvmsg, waited for with select, epoll and poll; iovecs
# through a pipe; a child's rusage.
UDP_PY = r"""
import os, select, socket, resource
srv = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
srv.bind(("127.0.0.1", 0))
port = srv.getsockname()[1]
cli = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
cli.sendmsg([b"hello ", b"world"], [], 0, ("127.0.0.1", port))
select.select([srv], [], [], 1.0)
data, anc, flags, addr = srv.recvmsg(64)
ep = select.epoll()
ep.register(srv.fileno(), select.EPOLLIN)
cli.sendto(b"again", ("127.0.0.1", port))
ep.poll(1.0)
srv.recvfrom(64)
p = select.poll()
p.register(cli.fileno(), select.POLLOUT)
p.poll(1000)
r, w = os.pipe()
os.writev(w, [b"abc", b"defg"])
a, b = bytearray(2), bytearray(5)
os.readv(r, [a, b])
resource.getrusage(resource.RUSAGE_SELF)
pid = os.fork()
if pid == 0:
    os._exit(3)
os.wait4(pid, 0)
"""


def python():
    """The interpreter itself, not a version manager's shell shim."""
    return sys.executable or shutil.which("python3")


def programs(work):
    """(name, argv) of the programs compared; those whose tools are missing are left out."""
    progs = [
        ("ls -la /etc", ["ls", "-la", "/etc"]),
        ("ls /nonexistent", ["ls", "/nonexistent"]),
        ("sh pipeline", ["sh", "-c", "ls /etc | wc -l"]),
        ("python3 import json", [python(), "-c", "import json"]),
        ("coreutils", ["sh", "-c", "date; uname -a; id; stat /etc/hostname; sleep 0.01; "
                       "find /etc -maxdepth 1 -name '*.conf' | sort | head -3; "
                       "cp /etc/hostname %s/copy && rm %s/copy; du -s /etc/ssl; df /" % (work, work)]),
    ]
    # Each run starts without the archive (the other run's would change what tar sees).
    tgz = os.path.join(work, "certs.tgz")
    progs.append(("tar czf (tar and gzip)", ["sh", "-c", "rm -f %s; tar czf %s /etc/ssl/certs" % (tgz, tgz)]))
    progs.append(("getent hosts localhost", ["getent", "hosts", "localhost"]))
    if shutil.which("perl"):
        progs.append(("perl -e", ["perl", "-e", "print 1"]))
    if shutil.which("script"):
        # A terminal: ioctls that succeed, poll.
        progs.append(("script (a pty) running ls", ["script", "-qc", "ls /", "/dev/null"]))
    if shutil.which("ip"):
        progs.append(("ip addr (netlink)", ["ip", "addr"]))
    repo = os.path.join(work, "repo")
    if shutil.which("git") and not os.path.isdir(os.path.join(repo, ".git")):
        os.makedirs(repo, exist_ok=True)
        env = dict(os.environ, GIT_AUTHOR_NAME="a", GIT_AUTHOR_EMAIL="a@b",
                   GIT_COMMITTER_NAME="a", GIT_COMMITTER_EMAIL="a@b")
        subprocess.run(["git", "init", "-q", repo], check=True)
        with open(os.path.join(repo, "f"), "w") as f:
            f.write("x\n")
        subprocess.run(["git", "-C", repo, "add", "f"], check=True)
        subprocess.run(["git", "-C", repo, "commit", "-qm", "m"], check=True, env=env)
    if shutil.which("git"):
        progs.append(("git status", ["git", "-C", repo, "status"]))
    if shutil.which("cc"):
        src, exe = os.path.join(work, "threads.c"), os.path.join(work, "threads")
        with open(src, "w") as f:
            f.write(THREADS_C)
        subprocess.run(["cc", "-O1", "-pthread", "-o", exe, src], check=True)
        progs.append(("threads+signal", [exe]))
    net = os.path.join(work, "net.py")
    with open(net, "w") as f:
        f.write(NET_PY)
    progs.append(("tcp loopback", [python(), net]))
    udp = os.path.join(work, "udp.py")
    with open(udp, "w") as f:
        f.write(UDP_PY)
    progs.append(("udp loopback (sendmsg, select, epoll, readv)", [python(), udp]))
    return progs


CALL = re.compile(r"^(?:\[pid\s+(\d+)\] |(\d+)\s+)?(.*)$")


def parse(path, strace):
    """Calls by pid, unfinished/resumed halves joined; the pids in the order they were created
    (the first task, then the results of clone/fork in the order they returned), which two runs
    share where the order of their first lines may not."""
    calls = collections.defaultdict(list)
    pending = {}
    order = []
    created = []

    def done(pid, text):
        m = re.match(r"^(?:clone3?|v?fork)\(.*\) += (\d+)$", text)
        if m:
            created.append(m.group(1))
        return text

    with open(path, errors="replace") as f:
        for raw in f:
            line = raw.rstrip("\n")
            m = CALL.match(line)
            pid = m.group(1) or m.group(2) or "main"
            body = m.group(3)
            if body.startswith(("+++", "---", "???")) or not body:
                continue
            if pid not in calls:
                order.append(pid)
                calls[pid]
            if body.endswith(" <unfinished ...>"):
                pending[pid] = (len(calls[pid]), body[: -len(" <unfinished ...>")])
                calls[pid].append(None)
                continue
            r = re.match(r"^<\.\.\. (\w+) resumed>(.*)$", body)
            if r:
                if pid in pending:
                    i, head = pending.pop(pid)
                    calls[pid][i] = done(pid, head + r.group(2))
                continue
            calls[pid].append(done(pid, body))
    out = collections.OrderedDict()
    rest = [p for p in order[1:] if p not in created]
    for pid in order[:1] + [p for p in created if p in calls] + rest:
        out[pid] = [c for c in calls[pid] if c is not None]
    return out


def name_of(text):
    m = re.match(r"^(\w+)\(", text)
    return m.group(1) if m else text


RANDOM_BUFFER = re.compile(r"^(getrandom\()\"(?:[^\"\\]|\\.)*\"(\.\.\.)?")
MASKS = [
    (re.compile(r"0x[0-9a-f]{8,}"), "0xADDR"),
    # strace pads the call to column 40 before ` = `.
    (re.compile(r"\) +=( |$)"), r") =\1"),
    (re.compile(r"(tv_(?:u|n)?sec|st_[amc]time(?:_nsec)?|stx_[amcb]time)=[^,}]+"), r"\1=T"),
    (re.compile(r"htons\(\d+\)"), "htons(PORT)"),
    # iproute2 numbers its netlink requests with the time.
    (re.compile(r"nlmsg_seq=\d+"), "nlmsg_seq=SEQ"),
    (re.compile(r"(st_ino|stx_ino)=\d+"), r"\1=INO"),
    # The system's state moves between the runs.
    (re.compile(r"\b(uptime|loads|freeram|sharedram|bufferram|freeswap|procs|f_bfree|f_bavail|f_ffree)=(\[[^]]*\]|\d+)"),
     r"\1=N"),
    # The parent is strace in one run and sonde in the other.
    (re.compile(r"^getppid\(\) = \d+$"), "getppid() = PPID"),
]


def mask(text, pids):
    for pid, label in pids:
        text = re.sub(r"\b%s\b" % re.escape(pid), label, text)
    text = RANDOM_BUFFER.sub(r'\1"RANDOM"\2', text)
    for rx, rep in MASKS:
        text = rx.sub(rep, text)
    return text


def pids_of(trace):
    """The pids (and tids) a trace shows, in order; `main` is the first task's."""
    return list(trace.keys())


def main_pid(trace_path):
    """The first task's pid as strace printed it."""
    with open(trace_path) as f:
        m = re.match(r"^(\d+)\s", f.readline())
    return m.group(1) if m else None


def compare(strace_trace, sonde_trace, strace_main, sonde_main):
    """(matched, identical, differences[(name, strace, sonde)])."""
    s_pids, o_pids = pids_of(strace_trace), pids_of(sonde_trace)
    s_labels = [(p if p != "main" else strace_main, "PID%d" % i) for i, p in enumerate(s_pids)]
    o_labels = [(p if p != "main" else sonde_main, "PID%d" % i) for i, p in enumerate(o_pids)]
    s_labels = [(p, l) for p, l in s_labels if p]
    o_labels = [(p, l) for p, l in o_labels if p]
    matched = identical = 0
    diffs = []
    for sp, op in zip(s_pids, o_pids):
        a, b = strace_trace[sp], sonde_trace[op]
        sm = difflib.SequenceMatcher(None, [name_of(x) for x in a], [name_of(x) for x in b],
                                     autojunk=False)
        for block in sm.get_matching_blocks():
            for k in range(block.size):
                x = mask(a[block.a + k], s_labels)
                y = mask(b[block.b + k], o_labels)
                matched += 1
                if x == y:
                    identical += 1
                else:
                    diffs.append((name_of(x), x, y))
    return matched, identical, diffs


def default_signals():
    for sig in (signal.SIGINT, signal.SIGQUIT):
        signal.signal(sig, signal.SIG_DFL)


def run(name, argv, sonde, work, keep):
    base = os.path.join(work, re.sub(r"\W+", "_", name))
    s_out, o_out = base + ".strace", base + ".sonde"
    # The command's stdout and stderr are alike in both runs (an empty file for stderr, where
    # sonde also says what it lost).
    for tracer, out in ((["strace", "-f", "-o", s_out], s_out), ([sonde, "trace", "--strace", "-o", o_out], o_out)):
        with open(out + ".stderr", "w") as err:
            # Both tracers start from default SIGINT/SIGQUIT handling, whatever this script
            # inherited (a background job ignores both, which strace passes on and sonde,
            # catching them, does not).
            subprocess.run(tracer + ["--"] + argv, stdout=subprocess.DEVNULL, stderr=err,
                           preexec_fn=default_signals)
    with open(o_out + ".stderr") as err:
        # Calls sonde lost are missing from its side: the run is marked, not compared as whole.
        lost = re.search(r"(\d+) events lost", err.read())
    st, so = parse(s_out, True), parse(o_out, False)
    smain = main_pid(s_out)
    # sonde's first task is the one set_tid_address/getpid name; strace's lines carry it.
    omain = None
    for text in so.get("main", []):
        m = re.match(r"^set_tid_address\(.*\) = (\d+)$", text)
        if m:
            omain = m.group(1)
            break
    matched, identical, diffs = compare(st, so, smain, omain)
    if keep:
        print("  kept %s and %s" % (s_out, o_out), file=sys.stderr)
    return matched, identical, diffs, int(lost.group(1)) if lost else 0


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    here = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    target = os.environ.get("CARGO_TARGET_DIR", os.path.join(here, "target"))
    ap.add_argument("--sonde", default=os.environ.get("SONDE", os.path.join(target, "debug", "sonde")))
    ap.add_argument("--detail", type=int, default=0, help="the N syscalls differing most")
    ap.add_argument("--only", action="append", help="only programs whose name contains this")
    ap.add_argument("--keep", help="keep the traces in this directory")
    args = ap.parse_args()
    if not os.access(args.sonde, os.X_OK):
        sys.exit("strace-match: no sonde at %s (build it, or pass --sonde or $SONDE)" % args.sonde)
    if not shutil.which("strace"):
        sys.exit("strace-match: strace is not installed")
    work = args.keep or tempfile.mkdtemp(prefix="strace-match.")
    os.makedirs(work, exist_ok=True)
    rows, all_diffs = [], []
    for name, argv in programs(work):
        if args.only and not any(o in name for o in args.only):
            continue
        matched, identical, diffs, lost = run(name, argv, args.sonde, work, bool(args.keep))
        rows.append((name + (" (sonde lost %d events)" % lost if lost else ""), matched, identical))
        all_diffs += diffs
    print("| program | matched calls | identical | % |")
    print("|---|---:|---:|---:|")
    tm = ti = 0
    for name, m, i in rows:
        tm, ti = tm + m, ti + i
        print("| %s | %d | %d | %.1f%% |" % (name, m, i, 100.0 * i / m if m else 0))
    print("| **all** | %d | %d | %.1f%% |" % (tm, ti, 100.0 * ti / tm if tm else 0))
    if args.detail:
        by = collections.Counter(d[0] for d in all_diffs)
        example = {}
        for n, x, y in all_diffs:
            example.setdefault(n, (x, y))
        print()
        for n, count in by.most_common(args.detail):
            x, y = example[n]
            print("%5d %s\n      strace: %s\n      sonde:  %s" % (count, n, x, y))
    if not args.keep:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
