#!/usr/bin/env python3
"""Retention soak: tenants come and go on one Catbird for a bounded time, twice in one
invocation — once with retention limits, once with retention off (the reference) — sampling
the database size (file + WAL), journal rows and RSS every few seconds, and printing both
side by side.

Load: WORKERS threads, each in turn a short-lived tenant (a fresh parallel id) that adds a
mock, sends REQUESTS requests (hits and misses) on one keep-alive connection, and goes
quiet; new tenants keep arriving, old ones are never dropped by the client.

Limits of the retention run: --journal-max-rows 20000, --tenant-ttl 5s, --journal-max-age 1m.

PASS when, in the retention run, the database and the RSS are flat over the second half
(last sample at most 1.25 x the sample at half time, plus 4 MiB), the journal never holds
more than 20,000 rows plus one pruning interval's worth of traffic, and idle tenants are
dropped (the tenant count stays below the number created). Exit 1 on any FAIL.

Usage: Benchmarks/soak.py --catbird PATH [--seconds 90] [--workers 4]
Environment: SOAK_SECONDS overrides --seconds. Loopback only; stops by itself.
"""

import argparse
import http.client
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
import uuid

HOST = "127.0.0.1"
MAX_ROWS = 20_000
REQUESTS = 50


def free_port():
    with socket.socket() as s:
        s.bind((HOST, 0))
        return s.getsockname()[1]


def rss_bytes(pid):
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) * 1024
    return 0


def db_bytes(path):
    return sum(os.path.getsize(p) for p in (path, path + "-wal") if os.path.exists(p))


def tenant_life(port, stop):
    """One worker: tenants one after the other until `stop` is set."""
    created = 0
    while not stop.is_set():
        tenant = f"soak-{uuid.uuid4().hex[:12]}"
        connection = http.client.HTTPConnection(HOST, port, timeout=30)
        try:
            mock = {"type": "update",
                    "pattern": {"method": "GET", "url": {"kind": "equal", "value": "/feed"}, "headers": {}},
                    "response": {"status": 200, "headers": {}, "body": "eyJvayI6dHJ1ZX0="}}
            connection.request("POST", "/catbird/api/mocks", body=json.dumps(mock),
                               headers={"Content-Type": "application/json", "X-Catbird-Parallel-Id": tenant})
            connection.getresponse().read()
            created += 1
            for index in range(REQUESTS):
                if stop.is_set():
                    break
                connection.request("GET", "/feed" if index % 5 else f"/missing/{index}",
                                   headers={"X-Catbird-Parallel-Id": tenant})
                connection.getresponse().read()
        except OSError:
            time.sleep(0.05)
        finally:
            connection.close()
    return created


def run(binary, work, name, options, seconds, workers):
    port = free_port()
    database = os.path.join(work, f"{name}.sqlite")
    log = open(os.path.join(work, f"{name}.log"), "w")
    process = subprocess.Popen([binary, "serve", "--host", HOST, "--port", str(port), "--db", database,
                                "--log-level", "warning", *options], stdout=log, stderr=log)
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        try:
            connection = http.client.HTTPConnection(HOST, port, timeout=2)
            connection.request("GET", "/catbird/api/health")
            if connection.getresponse().status == 200:
                break
        except OSError:
            time.sleep(0.1)
    stop = threading.Event()
    created = [0] * workers

    def worker(slot):
        created[slot] = tenant_life(port, stop)
    threads = [threading.Thread(target=worker, args=(i,)) for i in range(workers)]
    for thread in threads:
        thread.start()
    samples = []
    start = time.monotonic()
    step = max(seconds / 12, 2)
    while time.monotonic() - start < seconds:
        time.sleep(step)
        connection = http.client.HTTPConnection(HOST, port, timeout=30)
        connection.request("GET", "/catbird/metrics")
        metrics = connection.getresponse().read().decode()
        values = {}
        for line in metrics.splitlines():
            if line and not line.startswith("#"):
                key, _, value = line.rpartition(" ")
                values[key] = float(value)
        rows_written = values.get("catbird_journal_commit_rows_sum", 0)
        pruned = sum(v for k, v in values.items() if k.startswith("catbird_pruned_journal_rows_total"))
        samples.append({"t": time.monotonic() - start, "db": db_bytes(database), "rss": rss_bytes(process.pid),
                        "rows": rows_written - pruned, "tenants": values.get("catbird_tenants", 0),
                        "written": rows_written})
    stop.set()
    for thread in threads:
        thread.join()
    process.send_signal(signal.SIGTERM)
    process.wait(timeout=60)
    log.close()
    return samples, sum(created)


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--catbird", required=True)
    parser.add_argument("--seconds", type=int, default=int(os.environ.get("SOAK_SECONDS", "90")))
    parser.add_argument("--workers", type=int, default=4)
    args = parser.parse_args()
    if not 10 <= args.seconds <= 1800:
        sys.exit("soak: --seconds must be 10..1800")
    work = tempfile.mkdtemp(prefix="catbird-soak.")
    try:
        limited, created = run(args.catbird, work, "retention",
                               ["--journal-max-rows", str(MAX_ROWS), "--tenant-ttl", "5s", "--journal-max-age", "1m"],
                               args.seconds, args.workers)
        reference, _ = run(args.catbird, work, "reference",
                           ["--journal-max-rows", "off", "--tenant-ttl", "off", "--journal-max-age", "off"],
                           args.seconds, args.workers)
    finally:
        shutil.rmtree(work, ignore_errors=True)

    mib = 1 << 20
    print(f"soak: {args.seconds}s per run, {args.workers} workers, {created} tenants created in the retention run")
    print("| t (s) | DB MiB retention | DB MiB off | RSS MiB retention | RSS MiB off | rows retention | rows off | tenants retention | tenants off |")
    print("|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    for a, b in zip(limited, reference):
        print(f"| {a['t']:.0f} | {a['db'] / mib:.1f} | {b['db'] / mib:.1f} | {a['rss'] / mib:.1f} | {b['rss'] / mib:.1f} "
              f"| {a['rows']:.0f} | {b['rows']:.0f} | {a['tenants']:.0f} | {b['tenants']:.0f} |")

    failures = 0

    def verdict(name, ok, detail):
        nonlocal failures
        failures += 0 if ok else 1
        print(f"{'PASS' if ok else 'FAIL'} {name}: {detail}")
    half, last = limited[len(limited) // 2], limited[-1]
    verdict("database flat over the second half", last["db"] <= half["db"] * 1.25 + 4 * mib,
            f"{half['db'] / mib:.1f} MiB at {half['t']:.0f}s, {last['db'] / mib:.1f} MiB at {last['t']:.0f}s")
    verdict("RSS flat over the second half", last["rss"] <= half["rss"] * 1.25 + 4 * mib,
            f"{half['rss'] / mib:.1f} MiB at {half['t']:.0f}s, {last['rss'] / mib:.1f} MiB at {last['t']:.0f}s")
    rate = max((b["written"] - a["written"]) / max(b["t"] - a["t"], 1e-9) for a, b in zip(limited, limited[1:]))
    bound = MAX_ROWS + rate * 3  # one 2-second pruning interval, and a second of slack
    verdict("journal rows bounded by the limit plus one interval of traffic", max(s["rows"] for s in limited) <= bound,
            f"at most {max(s['rows'] for s in limited):.0f} rows (bound {bound:.0f})")
    verdict("idle tenants dropped", last["tenants"] < created, f"{last['tenants']:.0f} stored of {created} created")
    verdict("the reference run grew (the load was real)", reference[-1]["db"] > last["db"],
            f"off: {reference[-1]['db'] / mib:.1f} MiB, retention: {last['db'] / mib:.1f} MiB")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
