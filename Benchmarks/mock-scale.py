#!/usr/bin/env python3
"""Mock-table scale, side by side: start-up with many stored mocks, one update or remove in a
large tenant, and the mock listing, for each `catbird` binary given (the first is the one
measured, any later ones references run in the same invocation).

  mock-scale.py [--mocks N] [--rounds R] BINARY [REFERENCE_BINARY …]

For each binary, in a fresh temp dir: start it once on a new database (migrations), stop it,
then write N mocks straight into the `mocks` table with the sqlite3 CLI (tenant `t10k` 10,000
equal-url mocks, `t40k` 40,000, `rest` the remaining N − 50,000, each one a GET of
`/m/<i>` answering a 16-byte body), and restart it on that file. Printed, one line per binary:

  start_s      from the restart's spawn to the first 200 of /catbird/api/health (seconds)
  upd10k_ms    median of R single `update`s of a new pattern in `t10k` (milliseconds, each on
               one keep-alive connection, one request at a time), each followed by a hit of it
               (so every update finds a snapshot of the table taken by a request)
  upd40k_ms    the same in `t40k`
  rm40k_ms     median of R `remove`s of one of `t40k`'s loaded mocks
  list40k_s    `GET /catbird/api/mocks` of `t40k` (seconds) and its size (MB)

Figures are wall-clock times on a loaded machine: compare the binaries of one run, not runs.
Needs the sqlite3 CLI; standard library only (and control.py beside it). Exits 1 on an unexpected answer.
"""

import http.client
import os
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time

sys.dont_write_bytecode = True  # no __pycache__ left in Benchmarks/
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from control import HOST, Client  # noqa: E402  (the benchmark's keep-alive client, beside this file)


def free_port():
    with socket.socket() as s:
        s.bind((HOST, 0))
        return s.getsockname()[1]


def start(binary, db, port, log):
    return subprocess.Popen([binary, "serve", "--port", str(port), "--db", db, "--log-level", "info"],
                            stdout=log, stderr=log)


def wait_healthy(port, process, timeout=1800):
    began = time.perf_counter()
    while time.perf_counter() - began < timeout:
        if process.poll() is not None:
            sys.exit(f"mock-scale.py: the server exited with {process.returncode}")
        try:
            connection = http.client.HTTPConnection(HOST, port, timeout=5)
            connection.request("GET", "/catbird/api/health")
            if connection.getresponse().status == 200:
                return
        except OSError:
            pass
        time.sleep(0.02)
    sys.exit("mock-scale.py: the server did not answer health in time")


def stop(process):
    process.send_signal(signal.SIGTERM)
    process.wait(timeout=120)


def fill(db, mocks):
    tenants = [("t10k", 10_000), ("t40k", 40_000), ("rest", max(0, mocks - 50_000))]
    sql = ["PRAGMA journal_mode=WAL;", "BEGIN;"]
    for tenant, count in tenants:
        sql.append(f"INSERT OR IGNORE INTO tenants (id, created_at, last_activity_at) "
                   f"VALUES ('{tenant}', '2026-12-01T00:00:00.000Z', '2026-12-01T00:00:00.000Z');")
        sql.append(f"""WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < {count})
INSERT INTO mocks (tenant, position, method, url_kind, url_value, header_patterns, status, response_headers,
                   response_body, hits, created_at)
SELECT '{tenant}', i, 'GET', 'equal', '/m/' || i, '{{}}', 200, '{{}}', CAST('{{"ok":true,"n":1}}' AS BLOB), 0,
       '2026-12-01T00:00:00.000Z' FROM n WHERE {count} > 0;""")
    sql.append("COMMIT;")
    subprocess.run(["sqlite3", db], input="\n".join(sql), text=True, check=True, stdout=subprocess.DEVNULL)


def pattern(url):
    return {"method": "GET", "url": {"kind": "equal", "value": url}, "headers": {}}


def timed_updates(client, tenant, rounds):
    times = []
    for i in range(rounds):
        url = f"/new/{i}"
        began = time.perf_counter()
        status, answer = client.call("POST", "/catbird/api/mocks", tenant,
                                     {"type": "update", "pattern": pattern(url),
                                      "response": {"status": 200, "headers": {}}})
        times.append((time.perf_counter() - began) * 1000)
        if status != 201:
            sys.exit(f"mock-scale.py: update in {tenant} answered {status}: {answer[:200]!r}")
        status, _ = client.call("GET", url, tenant)
        if status != 200:
            sys.exit(f"mock-scale.py: GET {url} of {tenant} answered {status}")
    return statistics.median(times)


def timed_removes(client, tenant, rounds):
    times = []
    for i in range(rounds):
        began = time.perf_counter()
        status, answer = client.call("POST", "/catbird/api/mocks", tenant, {"type": "remove", "pattern": pattern(f"/m/{i + 1}")})
        times.append((time.perf_counter() - began) * 1000)
        if status != 204:
            sys.exit(f"mock-scale.py: remove in {tenant} answered {status}: {answer[:200]!r}")
        status, _ = client.call("GET", "/m/1000", tenant)
    return statistics.median(times)


def measure(binary, mocks, rounds):
    with tempfile.TemporaryDirectory(prefix="mock-scale.") as directory:
        db = os.path.join(directory, "catbird.sqlite")
        port = free_port()
        with open(os.path.join(directory, "log"), "w") as log:
            process = start(binary, db, port, log)
            wait_healthy(port, process)
            stop(process)
            fill(db, mocks)
            began = time.perf_counter()
            process = start(binary, db, port, log)
            try:
                wait_healthy(port, process)
                started = time.perf_counter() - began
                client = Client(port)
                # Untimed: the first writes after the fill may pay for checkpointing its WAL.
                timed_updates(client, "warm-up", rounds)
                upd10k = timed_updates(client, "t10k", rounds)
                upd40k = timed_updates(client, "t40k", rounds)
                rm40k = timed_removes(client, "t40k", rounds)
                began = time.perf_counter()
                status, listing = client.call("GET", "/catbird/api/mocks", "t40k")
                listed = time.perf_counter() - began
                if status != 200:
                    sys.exit(f"mock-scale.py: listing answered {status}")
            finally:
                stop(process)
        print(f"{binary}: mocks={mocks} start_s={started:.2f} upd10k_ms={upd10k:.2f} upd40k_ms={upd40k:.2f} "
              f"rm40k_ms={rm40k:.2f} list40k_s={listed:.2f} list40k_mb={len(listing) / 1e6:.1f}", flush=True)


def main(argv):
    mocks, rounds, binaries = 100_000, 20, []
    arguments = iter(argv[1:])
    for argument in arguments:
        if argument == "--mocks":
            mocks = int(next(arguments))
        elif argument == "--rounds":
            rounds = int(next(arguments))
        else:
            binaries.append(argument)
    if not binaries or mocks < 50_000:
        sys.exit(__doc__)
    for binary in binaries:
        measure(binary, mocks, rounds)


if __name__ == "__main__":
    main(sys.argv)
