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
      that sees it, ROUNDS times (tenant "visibility"), in two measures, each beside its
      reference (one GET of a mock no update touches, asked on the same connection after each
      round: plain request latency under the same load):
        visible_*, reference_*            this client's clock: from reading the 201 to having
                                          read the answer that shows the change (reference: from
                                          before the GET is written to having read its answer);
                                          includes this client's own wake-ups on a loaded machine
        wire_visible_*, wire_reference_*  from just before the first GET after the 201 is written
                                          to the socket to the kernel's receive timestamp
                                          (SO_TIMESTAMPNS) of the last bytes of the answer that
                                          shows the change: everything the server and the
                                          loopback do, without this client's wake-up to read it
        wire_idle_reference_*             a third GET of the same untouched mock, timed as the
                                          wire_* ones, sent after this client was idle as long
                                          as the round's update call kept it waiting (it sleeps
                                          that long first): a plain request that, like the
                                          visible one, follows a pause rather than an answer
                                          read a moment before (see Benchmarks/README.md)
      p50, p99 and max in ms each; the control calls' own p50/p99; wakeup_p50/p99: from an
      answer's receive timestamp to this client having read it (every measured GET); how many
      rounds needed more than one GET
  control.py PORT metrics              the journal writer's figures from /catbird/metrics

Standard library only. Prints one line of results (or nothing for `mocks`); exits 1 on an
unexpected answer.
"""

import base64
import http.client
import json
import socket
import struct
import sys
import time

HOST = "127.0.0.1"
TENANT_HEADER = "X-Catbird-Parallel-Id"
# Linux: the kernel's receive time of a socket's data (struct timespec, CLOCK_REALTIME) as
# ancillary data of recvmsg; Python's socket module does not name it.
SO_TIMESTAMPNS = getattr(socket, "SO_TIMESTAMPNS", 35)


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


class TimedClient:
    """GETs over one keep-alive socket, each timed by the kernel: when the request is about to
    be written (CLOCK_REALTIME, read just before send) and when its answer's last bytes were
    received (SO_TIMESTAMPNS of the recvmsg call that completed the answer: the time the
    loopback handed those bytes to this socket's receive path, before this process woke up to
    read them). Answers must carry Content-Length (Catbird's do)."""

    def __init__(self, port):
        self.socket = socket.create_connection((HOST, port), timeout=60)
        self.socket.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        self.socket.setsockopt(socket.SOL_SOCKET, SO_TIMESTAMPNS, 1)
        self.buffered = b""

    def await_timestamps(self, path, tenant, limit=10.0):
        """GETs `path` until an answer carries a receive timestamp, for up to `limit` seconds.
        Linux turns receive timestamps on for the whole machine in a deferred step (a work item,
        net_enable_timestamp) when the first socket asks for them while no other has them on:
        answers received before that step has run carry none. On a loaded machine the step
        took longer than a first update call, and `visibility` stopped on its first GET
        (vis13, 2026-12-02: three of seven visibility runs of one visibility-ab.sh)."""
        deadline = time.monotonic() + limit
        while True:
            status, _, _, arrived, _ = self.get(path, tenant, timed=False)
            if status != 200:
                sys.exit(f"control.py: GET {path} answered {status} while waiting for receive timestamps")
            if arrived is not None:
                return
            if time.monotonic() > deadline:
                sys.exit(f"control.py: no answer carried a kernel receive timestamp (SO_TIMESTAMPNS) for {limit:.0f} s")
            time.sleep(0.01)

    def get(self, path, tenant, timed=True):
        """Returns (status, body, written_ns, arrived_ns, read_ns), the times in CLOCK_REALTIME
        nanoseconds: before the request was written, the kernel's receive time of the answer's
        last bytes, and when this client had read them. With `timed` false an answer without
        a receive timestamp gives None for arrived_ns instead of stopping."""
        request = (f"GET {path} HTTP/1.1\r\nHost: {HOST}\r\n{TENANT_HEADER}: {tenant}\r\n\r\n").encode()
        written = time.clock_gettime_ns(time.CLOCK_REALTIME)
        self.socket.sendall(request)
        data, arrived = self.buffered, None
        while True:
            head_end = data.find(b"\r\n\r\n")
            if head_end >= 0:
                head = data[:head_end].decode("latin-1").split("\r\n")
                length = None
                for line in head[1:]:
                    name, _, value = line.partition(":")
                    if name.strip().lower() == "content-length":
                        length = int(value.strip())
                if length is None:
                    sys.exit(f"control.py: an answer without Content-Length: {head!r}")
                end = head_end + 4 + length
                if len(data) >= end:
                    read = time.clock_gettime_ns(time.CLOCK_REALTIME)
                    self.buffered = data[end:]
                    if arrived is None and timed:
                        sys.exit("control.py: an answer without a kernel receive timestamp (SO_TIMESTAMPNS)")
                    return int(head[0].split()[1]), data[head_end + 4:end], written, arrived, read
            chunk, ancillary, _, _ = self.socket.recvmsg(65536, socket.CMSG_SPACE(16))
            if not chunk:
                sys.exit("control.py: the server closed the timed connection")
            data += chunk
            for level, kind, value in ancillary:
                if level == socket.SOL_SOCKET and kind == SO_TIMESTAMPNS:
                    seconds, nanoseconds = struct.unpack("qq", value[:16])
                    arrived = seconds * 1_000_000_000 + nanoseconds


def percentile(values, fraction):
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(fraction * len(ordered)))]


def visibility(port, rounds):
    """Each round: an update of /visible, then GETs of it until its new body shows, then, as a
    reference, one GET of /steady, a mock of the same tenant no update touches, on the same
    connection (a plain request under the same load: what the visibility figure is made of
    when the first GET already sees it). Two measures of each, see the module's doc: this
    client's clock from the 201 read (visible) or the GET's start (reference) to the answer
    read, and the kernel's: from the first GET's write to its answer's receive timestamp.
    Last, after a sleep as long as the round's update call took, one more GET of /steady,
    kernel-timed (the idle reference: a plain request after the same pause as the visible one)."""
    control, app = Client(port), TimedClient(port)
    status, answer = control.call("POST", "/catbird/api/mocks", tenant="visibility",
                                  body=mock("GET", "equal", "/steady", b"steady", "text/plain"))
    if status != 201:
        sys.exit(f"control.py: adding /steady answered {status}: {answer[:200]!r}")
    app.await_timestamps("/steady", "visibility")
    seen_after, control_times, reference, gets = [], [], [], []
    wire_seen, wire_reference, wire_idle_reference, wakeups = [], [], [], []
    for i in range(rounds):
        body = f"v{i}".encode()
        started = time.perf_counter()
        status, answer = control.call("POST", "/catbird/api/mocks", tenant="visibility",
                                      body=mock("GET", "equal", "/visible", body, "text/plain"))
        created = time.perf_counter()
        if status != 201:
            sys.exit(f"control.py: update answered {status}: {answer[:200]!r}")
        count, first_written = 0, None
        while True:
            count += 1
            status, answer, written, arrived, read = app.get("/visible", "visibility")
            wakeups.append((read - arrived) / 1e6)
            first_written = written if first_written is None else first_written
            if status == 200 and answer == body:
                break
            if time.perf_counter() - created > 10:
                sys.exit(f"control.py: round {i}: the change was not visible after 10 s ({status} {answer[:80]!r})")
        seen_after.append((time.perf_counter() - created) * 1000)
        wire_seen.append((arrived - first_written) / 1e6)
        control_times.append((created - started) * 1000)
        gets.append(count)
        asked = time.perf_counter()
        status, answer, written, arrived, read = app.get("/steady", "visibility")
        if status != 200 or answer != b"steady":
            sys.exit(f"control.py: round {i}: GET /steady answered {status} {answer[:80]!r}")
        reference.append((time.perf_counter() - asked) * 1000)
        wire_reference.append((arrived - written) / 1e6)
        wakeups.append((read - arrived) / 1e6)
        # The visible GET follows a pause (the update call); the reference above follows an
        # answer read a moment before. The same pause, then the same plain GET:
        time.sleep(created - started)
        status, answer, written, arrived, read = app.get("/steady", "visibility")
        if status != 200 or answer != b"steady":
            sys.exit(f"control.py: round {i}: GET /steady after a pause answered {status} {answer[:80]!r}")
        wire_idle_reference.append((arrived - written) / 1e6)
        wakeups.append((read - arrived) / 1e6)
    figures = {"visible": seen_after, "reference": reference, "wire_visible": wire_seen,
               "wire_reference": wire_reference, "wire_idle_reference": wire_idle_reference}
    line = " ".join(f"{name}_p50={percentile(values, 0.5):.3f} {name}_p99={percentile(values, 0.99):.3f} "
                    f"{name}_max={max(values):.3f}" for name, values in figures.items())
    print(f"{line} control_p50={percentile(control_times, 0.5):.3f} control_p99={percentile(control_times, 0.99):.3f} "
          f"wakeup_p50={percentile(wakeups, 0.5):.3f} wakeup_p99={percentile(wakeups, 0.99):.3f} "
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
