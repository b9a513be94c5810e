#!/usr/bin/env python3
"""Times control changes on one tenant: `POST /catbird/api/mocks` updates of one mock, over
one keep-alive connection, one every 5 ms, for SECONDS seconds (Benchmarks/upload-vs-control.sh
runs it while another tenant floods the server with uploads: tester finding T15A-F2).

  control-latency.py PORT TENANT SECONDS

Prints one line: `updates=N p50=… p99=… max=…` (ms, from writing the request to having read its
201). Standard library only; exits 1 on an answer other than 201.
"""

import base64
import http.client
import json
import sys
import time

port, tenant, seconds = int(sys.argv[1]), sys.argv[2], float(sys.argv[3])
connection = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
headers = {"X-Catbird-Parallel-Id": tenant, "Content-Type": "application/json"}
timings = []
end = time.monotonic() + seconds
number = 0
while time.monotonic() < end:
    number += 1
    action = {"type": "update",
              "pattern": {"method": "GET", "url": {"kind": "equal", "value": "/control"}, "headers": {}},
              "response": {"status": 200, "headers": {}, "body": base64.b64encode(str(number).encode()).decode()}}
    body = json.dumps(action).encode()
    start = time.perf_counter()
    connection.request("POST", "/catbird/api/mocks", body=body, headers=headers)
    response = connection.getresponse()
    answer = response.read()
    timings.append((time.perf_counter() - start) * 1000)
    if response.status != 201:
        sys.exit(f"control-latency.py: update answered {response.status}: {answer[:200]!r}")
    time.sleep(0.005)
timings.sort()


def at(fraction):
    return timings[min(len(timings) - 1, int(fraction * len(timings)))]


print(f"updates={len(timings)} p50={at(0.5):.2f} p99={at(0.99):.2f} max={timings[-1]:.2f}")
