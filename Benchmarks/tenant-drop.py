#!/usr/bin/env python3
"""Dropping many tenants at once: how long `DELETE /catbird/api/tenants?all=true` takes, and
what memory stays after it, for one or more `catbird` binaries in the same invocation (the
first is the reference the others are read against).

  tenant-drop.py [--tenants N] [--port P] BINARY [BINARY ...]

For each binary, on a new database in a temporary directory: N tenants (`shard-0` …) each get
one mock (`POST /catbird/api/mocks`) and one request answered by it (journaled), all over one
keep-alive connection; then the drop of every tenant is timed from the request written to its
answer read. Printed per binary: the drop's time, the server's resident memory (VmRSS, /proc)
before the tenants, with them, right after the drop and 5 s later, and the bytes per dropped
tenant that stayed (after - before, over N); and, where the binary has it, the sum of
`catbird_tenant_memory_entries` after the drop.

Standard library only. Exits 1 on an unexpected answer.
"""

import argparse
import base64
import http.client
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time


def rss_kib(pid):
    with open(f"/proc/{pid}/status") as status:
        for line in status:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    return -1


def request(connection, method, path, body=None, tenant=None, expect=None):
    headers = {"Host": "127.0.0.1"}
    if tenant is not None:
        headers["X-Catbird-Parallel-Id"] = tenant
    if body is not None:
        headers["Content-Type"] = "application/json"
    connection.request(method, path, body=body, headers=headers)
    answer = connection.getresponse()
    data = answer.read()
    if expect is not None and answer.status != expect:
        sys.exit(f"{method} {path} ({tenant}): {answer.status} {data[:200]!r}, expected {expect}")
    return data


def memory_entries(connection):
    text = request(connection, "GET", "/catbird/metrics", expect=200).decode()
    values = [float(line.rsplit(" ", 1)[1]) for line in text.splitlines() if line.startswith("catbird_tenant_memory_entries{")]
    return int(sum(values)) if values else None


def run(binary, tenants, port):
    directory = tempfile.mkdtemp(prefix="catbird-tenant-drop-")
    log = open(os.path.join(directory, "server.log"), "w")
    server = subprocess.Popen(
        [binary, "--port", str(port), "--db", os.path.join(directory, "db.sqlite"), "--log-level", "warning",
         "--journal-max-rows", "off", "--journal-max-age", "off", "--tenant-ttl", "off"],
        stdout=log, stderr=log)
    try:
        deadline = time.monotonic() + 30
        while True:
            try:
                connection = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
                request(connection, "GET", "/catbird/api/health", expect=200)
                break
            except OSError:
                if time.monotonic() > deadline:
                    sys.exit(f"{binary} did not start")
                time.sleep(0.1)
        before = rss_kib(server.pid)
        body = json.dumps({"type": "update", "pattern": {"method": "GET", "url": {"kind": "equal", "value": "/x"}, "headers": {}},
                           "response": {"status": 200, "headers": {}, "body": base64.b64encode(b"x").decode()}})
        for index in range(tenants):
            tenant = f"shard-{index}"
            request(connection, "POST", "/catbird/api/mocks", body=body, tenant=tenant, expect=201)
            request(connection, "GET", "/x", tenant=tenant, expect=200)
        request(connection, "GET", "/catbird/api/requests?limit=1", tenant="shard-0", expect=200)  # the journal is written
        loaded = rss_kib(server.pid)
        started = time.monotonic()
        request(connection, "DELETE", "/catbird/api/tenants?all=true", expect=204)
        took = time.monotonic() - started
        after = rss_kib(server.pid)
        time.sleep(5)
        later = rss_kib(server.pid)
        entries = memory_entries(connection)
        print(f"{os.path.basename(os.path.dirname(os.path.dirname(binary))) or binary}: {binary}")
        print(f"  drop of {tenants} tenants: {took * 1000:.0f} ms")
        print(f"  RSS KiB: before {before}, with the tenants {loaded}, after the drop {after}, 5 s later {later};"
              f" stayed {(later - before) * 1024 / tenants:.0f} B per dropped tenant")
        print(f"  catbird_tenant_memory_entries after the drop: {entries if entries is not None else 'n/a (not in this binary)'}")
    finally:
        server.terminate()
        server.wait(timeout=30)
        log.close()
        shutil.rmtree(directory, ignore_errors=True)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--tenants", type=int, default=64_000)
    parser.add_argument("--port", type=int, default=19400)
    parser.add_argument("binaries", nargs="+")
    options = parser.parse_args()
    for binary in options.binaries:
        run(os.path.abspath(binary), options.tenants, options.port)


if __name__ == "__main__":
    main()
