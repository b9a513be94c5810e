#!/usr/bin/env python3
"""Control-side helpers for Benchmarks/run.sh, over one keep-alive connection each.

  control.py PORT mocks TENANT SET     add a scenario's mocks to TENANT (201 expected each):
      equal:N          N equal-URL mocks /m/0 … /m/N-1 (the last added is /m/N-1)
      mix:N            N mocks alternating wildcard /w/<i>/* and regexp ^/r/<i>/[a-z]+$
                       (the last added, i = N-1, is a regexp when N is even)
      bench            GET /bench → {"ok":true} (application/json)
      big:BYTES        GET /big → BYTES bytes of application/octet-stream
      upload           POST /upload → {"ok":true}
  control.py PORT visibility ROUNDS    time from a control action's 201 to the first request
      that sees it, ROUNDS times (tenant "visibility"); prints p50, p99 and max in ms, the
      control calls' own p50/p99, and the reference: p50, p99 and max of one GET of a mock no
      update touches, asked on the same connection after each round (plain request latency
      under the same load), and how many rounds needed more than one GET
  control.py PORT metrics              the journal writer's figures from /catbird/metrics

Standard library only. Prints one line of results (or nothing for `mocks`); exits 1 on an
unexpected answer.
"""

import base64
import http.client
import json
import sys
import time

HOST = "127.0.0.1"
TENANT_HEADER = "X-Catbird-Parallel-Id"


def mock(method, kind, value, body, content_type="application/json"):
    return {"type": "update",
            "pattern": {"method": method, "url": {"kind": kind, "value": value}, "headers": {}},
            "response": {"status": 200, "headers": {"Content-Type": content_type},
                         "body": base64.b64encode(body).decode()}}


def actions(spec):
    name, _, argument = spec.partition(":")
    if name == "equal":
        for i in range(int(argument)):
            yield mock("GET", "equal", f"/m/{i}", b'{"ok":true}')
    elif name == "mix":
        for i in range(int(argument)):
            if i % 2 == 0:
                yield mock("GET", "wildcard", f"/w/{i}/*", b'{"ok":true}')
            else:
                yield mock("GET", "regexp", f"^/r/{i}/[a-z]+$", b'{"ok":true}')
    elif name == "bench":
        yield mock("GET", "equal", "/bench", b'{"ok":true}')
    elif name == "big":
        yield mock("GET", "equal", "/big", bytes(i * 31 % 251 for i in range(int(argument))), "application/octet-stream")
    elif name == "upload":
        yield mock("POST", "equal", "/upload", b'{"ok":true}')
    else:
        sys.exit(f"control.py: unknown mock set {spec}")


class Client:
    def __init__(self, port):
        self.connection = http.client.HTTPConnection(HOST, port, timeout=60)

    def call(self, method, path, tenant=None, body=None):
        headers = {TENANT_HEADER: tenant} if tenant else {}
        data = None
        if body is not None:
            data = json.dumps(body).encode()
            headers["Content-Type"] = "application/json"
        self.connection.request(method, path, body=data, headers=headers)
        response = self.connection.getresponse()
        return response.status, response.read()


def add_mocks(port, tenant, spec):
    client = Client(port)
    for action in actions(spec):
        status, answer = client.call("POST", "/catbird/api/mocks", tenant=tenant, body=action)
        if status != 201:
            sys.exit(f"control.py: adding a mock to {tenant} answered {status}: {answer[:200]!r}")


def percentile(values, fraction):
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(fraction * len(ordered)))]


def visibility(port, rounds):
    """Each round: an update of /visible, then GETs of it until its new body shows (the time
    from the 201 to that answer), then, as a reference, one GET of /steady, a mock of the same
    tenant no update touches, on the same connection (the time of a plain request under the
    same load: what the visibility figure is made of when the first GET already sees it)."""
    control, app = Client(port), Client(port)
    status, answer = control.call("POST", "/catbird/api/mocks", tenant="visibility",
                                  body=mock("GET", "equal", "/steady", b"steady", "text/plain"))
    if status != 201:
        sys.exit(f"control.py: adding /steady answered {status}: {answer[:200]!r}")
    seen_after, control_times, reference, gets = [], [], [], []
    for i in range(rounds):
        body = f"v{i}".encode()
        started = time.perf_counter()
        status, answer = control.call("POST", "/catbird/api/mocks", tenant="visibility",
                                      body=mock("GET", "equal", "/visible", body, "text/plain"))
        created = time.perf_counter()
        if status != 201:
            sys.exit(f"control.py: update answered {status}: {answer[:200]!r}")
        count = 0
        while True:
            count += 1
            status, answer = app.call("GET", "/visible", tenant="visibility")
            if status == 200 and answer == body:
                break
            if time.perf_counter() - created > 10:
                sys.exit(f"control.py: round {i}: the change was not visible after 10 s ({status} {answer[:80]!r})")
        seen_after.append((time.perf_counter() - created) * 1000)
        control_times.append((created - started) * 1000)
        gets.append(count)
        asked = time.perf_counter()
        status, answer = app.call("GET", "/steady", tenant="visibility")
        if status != 200 or answer != b"steady":
            sys.exit(f"control.py: round {i}: GET /steady answered {status} {answer[:80]!r}")
        reference.append((time.perf_counter() - asked) * 1000)
    print(f"visible_p50={percentile(seen_after, 0.5):.3f} visible_p99={percentile(seen_after, 0.99):.3f} "
          f"visible_max={max(seen_after):.3f} control_p50={percentile(control_times, 0.5):.3f} "
          f"control_p99={percentile(control_times, 0.99):.3f} reference_p50={percentile(reference, 0.5):.3f} "
          f"reference_p99={percentile(reference, 0.99):.3f} reference_max={max(reference):.3f} "
          f"gets_max={max(gets)} gets_over_one={sum(1 for n in gets if n > 1)}")


def metrics(port):
    connection = http.client.HTTPConnection(HOST, port, timeout=60)
    connection.request("GET", "/catbird/metrics")
    text = connection.getresponse().read().decode()
    values = {}
    for line in text.splitlines():
        if line and not line.startswith("#"):
            name, _, number = line.rpartition(" ")
            values[name] = float(number)
    commits = values.get("catbird_journal_commit_rows_count", 0)
    rows = values.get("catbird_journal_commit_rows_sum", 0)
    print(f"longest_queue={int(values.get('catbird_journal_queue_longest_entries', 0))} "
          f"longest_queue_bytes={int(values.get('catbird_journal_queue_longest_bytes', 0))} "
          f"commits={int(commits)} rows={int(rows)} rows_per_commit={rows / commits if commits else 0:.1f} "
          f"dropped={int(values.get('catbird_journal_dropped_rows_total', 0))}")


def main(argv):
    if len(argv) < 3:
        sys.exit(__doc__)
    port, command = int(argv[1]), argv[2]
    if command == "mocks" and len(argv) == 5:
        add_mocks(port, argv[3], argv[4])
    elif command == "visibility" and len(argv) == 4:
        visibility(port, int(argv[3]))
    elif command == "metrics":
        metrics(port)
    else:
        sys.exit(__doc__)


if __name__ == "__main__":
    main(sys.argv)
