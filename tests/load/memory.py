#!/usr/bin/env python3
"""Memory of `grundy serve` under heavy and hostile traffic (issue 16).

Starts the server on a free loopback port with a memory budget, measures its resident
size (VmRSS of /proc/PID/status) when idle, sends heavy requests (misère sums of 0.07 that
outgrow their memory share, pruned searches, remoteness, answers past the response cap)
several at once, and hostile ones (text/plain bodies, foreign Origin and Host, bodies past
the size limit, malformed JSON, GET on POST routes), sampling the resident size all along.
Then it checks that:
  - every answer has the expected status and a JSON body with `error` for errors,
  - the peak resident size stayed within the budget (plus the runtime's own size),
  - after the traffic the resident size is back within 20% of the idle size,
  - the server still answers a small request correctly.
Exits 1 with a message when a check fails. Only the standard library is used.

Usage: tests/load/memory.py [path/to/grundy] [--heavy N] [--budget SIZE] [--at-once K]
Environment: GRUNDY_LOAD_DEBUG=1 prints the largest mappings and the server's heap for 15 s
after the traffic; GRUNDY_LOAD_GDB=1 (with it) writes every thread's stack to
/tmp/load-gdb.txt; GRUNDY_LOAD_ONLY=heavy|hostile sends only those.
"""

import argparse
import http.client
import json
import os
import socket
import subprocess
import sys
import threading
import time


def rss_kib(pid, field="RssAnon:"):
    """Resident size in KiB: by default the anonymous part (heap, stacks), which is what
    the server's work takes; `VmRSS:` adds the pages of the binary's code and files, which
    grow as more of the code runs and are given back by the system at need."""
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith(field):
                return int(line.split()[1])
    return 0


def top_mappings(pid, n=8):
    """The mappings holding the most resident memory (for GRUNDY_LOAD_DEBUG=1)."""
    out, name = [], ""
    with open(f"/proc/{pid}/smaps") as f:
        for line in f:
            if line[0] in "0123456789abcdef" and "-" in line.split()[0]:
                name = line.strip()
            elif line.startswith("Rss:"):
                out.append((int(line.split()[1]), name))
    return sorted(out, reverse=True)[:n]


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def request(port, method, path, body=None, headers=None, raw=None):
    """One request; returns (status, parsed JSON body or None)."""
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
    h = {"Content-Type": "application/json"}
    h.update(headers or {})
    data = raw if raw is not None else (json.dumps(body).encode() if body is not None else None)
    conn.request(method, path, body=data, headers=h)
    resp = conn.getresponse()
    payload = resp.read()
    conn.close()
    try:
        parsed = json.loads(payload)
    except ValueError:
        parsed = None
    return resp.status, parsed, len(payload)


def parse_size(text):
    units = {"K": 10, "M": 20, "G": 30}
    if text[-1].upper() in units:
        return int(text[:-1]) << units[text[-1].upper()]
    return int(text)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    here = os.path.dirname(os.path.abspath(__file__))
    target = os.environ.get("CARGO_TARGET_DIR", os.path.join(here, "..", "..", "target"))
    ap.add_argument("grundy", nargs="?", default=os.path.join(target, "debug", "grundy"))
    ap.add_argument("--heavy", type=int, default=100, help="heavy requests to send (default 100)")
    ap.add_argument("--budget", default="1G", help="the server's --memory-budget (default 1G)")
    ap.add_argument("--at-once", type=int, default=4, help="requests in flight at once (default 4)")
    args = ap.parse_args()

    port = free_port()
    budget = parse_size(args.budget)
    server = subprocess.Popen(
        [args.grundy, "--no-db", "--memory-budget", args.budget, "serve",
         "--addr", f"127.0.0.1:{port}", "--timeout", "5"],
        stderr=subprocess.PIPE, text=True)
    failures = []
    try:
        for _ in range(100):
            try:
                if request(port, "GET", "/api/health")[0] == 200:
                    break
            except OSError:
                time.sleep(0.1)
        else:
            sys.exit("the server did not start")
        # Idle: after a small request of every family (each engine: normal, misère,
        # remoteness), so the runtime's threads exist and the code that serves them is
        # loaded, as in a server that has been in use; then the threads' time to end.
        families = request(port, "GET", "/api/families")[1]["families"]
        for fam in families:
            for extra in ({}, {"misere": True}, {"remoteness": True}):
                if extra.get("misere") and not fam.get("misere"):
                    continue
                body = {"family": fam["name"], "position": fam.get("example", "")}
                body.update(extra)
                request(port, "POST", "/api/solve", body)
        for raw, headers in [(b'{"family":', {}), (b"x", {"Content-Type": "text/plain"})]:
            request(port, "POST", "/api/solve", raw=raw, headers=headers)
        request(port, "POST", "/api/table", {"family": "cutting", "size": 8})
        # One request of each heavy kind, so the tables the engines build once for the life
        # of the process (Cram's move orders for the board size, ...) are part of idle.
        big_nim = " ".join(["1"] * 4990)
        heavy = [
            # A misère sum that outgrows any share: Dawson's Kayles, whose quotient passes a
            # solve's limit, so the sum is searched (Kayles' was, 6.4 GB without limits,
            # until its quotient was built by algebra: it now answers at once).
            ({"family": "0.07", "position": "1500 1200 900", "misere": True}, {422, 429, 504}),
            ({"family": "0.77", "position": "30 40 50", "misere": True}, {200, 422, 429, 504}),
            # Remoteness over whole positions.
            ({"family": "nim", "position": "9 10 11 12", "remoteness": True}, {200, 422, 429, 504}),
            # An answer past the response cap (50 MB without it).
            ({"family": "nim", "position": big_nim, "remoteness": True}, {413, 422, 429}),
            # A pruned search.
            ({"family": "cram", "position": "5x6"}, {200, 422, 429, 504}),
        ]
        for body, _ in heavy:
            request(port, "POST", "/api/solve", body)
        time.sleep(3)
        idle = rss_kib(server.pid)
        idle_total = rss_kib(server.pid, "VmRSS:")
        idle_heap = request(port, "GET", "/api/health")[1].get("memory", {}).get("in_use", 0)
        if os.environ.get("GRUNDY_LOAD_DEBUG"):
            print("idle:", *top_mappings(server.pid), sep="\n  ")
        peak = idle
        stop = threading.Event()

        def sample():
            nonlocal peak
            while not stop.is_set():
                peak = max(peak, rss_kib(server.pid))
                time.sleep(0.02)

        sampler = threading.Thread(target=sample)
        sampler.start()

        hostile = [
            # (method, path, raw body, headers, expected statuses)
            ("POST", "/api/solve", b'{"family":"nim","position":"3"}', {"Content-Type": "text/plain"}, {415}),
            ("POST", "/api/solve", b'{"family":"nim","position":"3"}', {"Origin": "http://evil.example"}, {403}),
            ("POST", "/api/solve", b'{"family":"nim","position":"3"}', {"Host": "evil.example:%d" % port}, {403, 421}),
            # Past the body limit (2 MiB + 64 KiB: room for a game file of 1 MiB).
            ("POST", "/api/solve", b"{" * 2_200_000, {}, {413}),
            # A game file past its limit of 1 MiB, within the body limit.
            ("POST", "/api/solve", b'{"game":"' + b"#" * ((1 << 20) + 1) + b'","position":"1"}', {}, {400}),
            ("POST", "/api/solve", b'{"family":', {}, {400}),
            ("POST", "/api/solve", b"\xff\xfe", {}, {400}),
            ("GET", "/api/solve", None, {}, {405}),
            ("POST", "/api/solve", b'{"family":"nim","position":""}', {}, {400}),
        ]
        lock = threading.Lock()
        counts = {}

        def worker(jobs):
            for job in jobs:
                if job[0] == "heavy":
                    body, expected = job[1]
                    status, parsed, _ = request(port, "POST", "/api/solve", body)
                    what = f"heavy {body['family']} {body['position'][:20]}"
                else:
                    method, path, raw, headers, expected = job[1]
                    status, parsed, _ = request(port, method, path, raw=raw, headers=headers)
                    what = f"hostile {method} {path} {headers} {raw[:20] if raw else ''}"
                with lock:
                    counts[status] = counts.get(status, 0) + 1
                    if status not in expected:
                        failures.append(f"{what}: status {status}, expected {sorted(expected)}")
                    if status >= 400 and not (isinstance(parsed, dict) and "error" in parsed):
                        failures.append(f"{what}: error {status} without a JSON error body")

        jobs = []
        only = os.environ.get("GRUNDY_LOAD_ONLY", "")
        for i in range(args.heavy):
            if only != "hostile":
                jobs.append(("heavy", heavy[i % len(heavy)]))
            if i % 2 == 0 and only != "heavy":
                jobs.append(("hostile", hostile[(i // 2) % len(hostile)]))
        threads = [threading.Thread(target=worker, args=(jobs[k::args.at_once],)) for k in range(args.at_once)]
        started = time.time()
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        took = time.time() - started
        # Let the work that was told to stop wind down, and the solves' threads end (a
        # second after their last work), then measure.
        time.sleep(5)
        stop.set()
        sampler.join()
        after = rss_kib(server.pid)
        after_total = rss_kib(server.pid, "VmRSS:")
        if os.environ.get("GRUNDY_LOAD_DEBUG"):
            print("after:", *top_mappings(server.pid), sep="\n  ")
            if os.environ.get("GRUNDY_LOAD_GDB"):
                subprocess.run(["gdb", "-p", str(server.pid), "-batch", "-ex", "thread apply all bt 12"],
                               stdout=open("/tmp/load-gdb.txt", "w"), stderr=subprocess.DEVNULL)
            for _ in range(5):
                print("heap:", request(port, "GET", "/api/health")[1]["memory"], rss_kib(server.pid, "VmRSS:"),
                      "threads:", len(os.listdir(f"/proc/{server.pid}/task")),
                      "cpu ticks:", open(f"/proc/{server.pid}/stat").read().split()[13])
                time.sleep(3)
        heap = request(port, "GET", "/api/health")[1].get("memory", {})
        status, parsed, _ = request(port, "POST", "/api/solve", {"family": "nim", "position": "3 5 7"})
        if status != 200 or parsed.get("grundy") != 1:
            failures.append(f"after the traffic, nim 3 5 7 answered {status} {parsed}")

        print(f"requests: {len(jobs)} ({args.heavy} heavy) in {took:.1f} s, {args.at_once} at once; "
              f"statuses: {dict(sorted(counts.items()))}")
        print(f"resident size with code and files (VmRSS): idle {idle_total / 1024:.1f} MiB, "
              f"after {after_total / 1024:.1f} MiB")
        print(f"anonymous resident size (RssAnon): idle {idle / 1024:.1f} MiB, peak {peak / 1024:.1f} MiB, "
              f"after {after / 1024:.1f} MiB (budget {budget / 2**20:.0f} MiB); heap idle "
              f"{idle_heap / 2**20:.1f} MiB, after: "
              f"{heap.get('in_use', 0) / 2**20:.1f} MiB in use, peak {heap.get('peak', 0) / 2**20:.1f} MiB")
        # The budget bounds the heap; the peak may add the runtime (code, stacks): 64 MiB.
        if peak * 1024 > budget + (64 << 20):
            failures.append(f"peak resident size {peak / 1024:.1f} MiB is past the budget")
        if after_total > idle_total * 1.2:
            failures.append(f"resident size after the traffic {after_total / 1024:.1f} MiB is more "
                            f"than 20% above the idle size {idle_total / 1024:.1f} MiB")
    finally:
        server.terminate()
        try:
            server.wait(timeout=10)
        except subprocess.TimeoutExpired:
            server.kill()
    for f in failures:
        print("FAIL:", f)
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
