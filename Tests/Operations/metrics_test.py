#!/usr/bin/env python3
"""GET /catbird/metrics, read with the Prometheus text parser of PyPI's prometheus-client.

Starts a real node on a fresh database, sends a known mix of requests from two tenants (mock
hits, misses, control calls, one body over the size limit), then checks that the scrape
parses and that every count equals what was sent: requests by answered_by and status class,
the latency histogram's count, journal rows per commit and the longest queue, tenants, mocks,
database bytes.

Usage: metrics_test.py --catbird PATH
"""

import base64
import os
import sys

from prometheus_client.parser import text_string_to_metric_families

from harness import HOST, Node, call, main

import http.client


def scrape(port):
    connection = http.client.HTTPConnection(HOST, port, timeout=30)
    try:
        connection.request("GET", "/catbird/metrics")
        response = connection.getresponse()
        return response.status, response.getheader("Content-Type"), response.read().decode()
    finally:
        connection.close()


def samples(text):
    """{(sample name, frozenset of labels): value} and {family name: type}."""
    values, types = {}, {}
    for family in text_string_to_metric_families(text):
        types[family.name] = family.type
        for sample in family.samples:
            values[(sample.name, frozenset(sample.labels.items()))] = sample.value
    return values, types


def value(values, name, **labels):
    return values.get((name, frozenset(labels.items())))


def mock(tenant, path):
    return {"type": "update",
            "pattern": {"method": "GET", "url": {"kind": "equal", "value": path}, "headers": {}},
            "response": {"status": 200, "headers": {}, "body": base64.b64encode(b"ok").decode()}}


def run(args, work, checks):
    catbird = args.catbird
    node = Node(catbird, work, 1, options=["--max-body-size", "1kb"])
    node.start()
    try:
        status, content_type, text = scrape(node.port)
        checks.check("an idle server's scrape answers 200 in the text format",
                     status == 200 and content_type.startswith("text/plain; version=0.0.4"), f"{status} {content_type}")
        values, _ = samples(text)
        before = {(dict(labels)["answered_by"], dict(labels)["status_class"]): v
                  for (name, labels), v in values.items() if name == "catbird_requests_total" and v}
        # Only the harness's health checks (GET /catbird/api/health until it answered 200) so far.
        checks.check("an idle server counts only its health checks", set(before) == {("control", "2xx")}, f"{before}")
        baseline = before.get(("control", "2xx"), 0)

        control = 0
        for tenant in ("alpha", "beta"):
            status, _ = call(node.port, "POST", "/catbird/api/mocks", tenant=tenant, body=mock(tenant, "/hit"))
            assert status == 201, status
            control += 1
        status, _ = call(node.port, "POST", "/catbird/api/mocks", tenant="beta", body=mock("beta", "/second"))
        control += 1
        hits = misses = 0
        for tenant in ("alpha", "beta"):
            for _ in range(7):
                assert call(node.port, "GET", "/hit", tenant=tenant)[0] == 200
                hits += 1
            for _ in range(3):
                assert call(node.port, "GET", "/nothing-here", tenant=tenant)[0] == 404
                misses += 1
        status, _ = call(node.port, "GET", "/catbird/api/nowhere")
        assert status == 404, status
        connection = http.client.HTTPConnection(HOST, node.port, timeout=30)
        connection.request("POST", "/upload", body=b"x" * 4096, headers={"X-Catbird-Parallel-Id": "alpha"})
        oversized = connection.getresponse()
        oversized.read()
        connection.close()
        assert oversized.status == 413, oversized.status
        # Reading the journal writes the queued entries first: every row is committed before the scrape.
        status, _ = call(node.port, "GET", "/catbird/api/requests", tenant="alpha")
        assert status == 200, status

        status, _, text = scrape(node.port)
        values, types = samples(text)
        checks.check("the scrape parses with prometheus-client", status == 200 and len(types) >= 9, f"{sorted(types)}")
        # Control 2xx: the health checks, the first scrape, the mocks added and the journal read.
        expected = {("mock", "2xx"): hits, ("none", "4xx"): misses + 1, ("control", "2xx"): baseline + 1 + control + 1,
                    ("control", "4xx"): 1}
        got = {(dict(labels)["answered_by"], dict(labels)["status_class"]): v
               for (name, labels), v in values.items() if name == "catbird_requests_total" and v}
        checks.check("requests counted by answered_by and status class", got == expected, f"got {got}, expected {expected}")
        total = sum(expected.values())
        checks.check("the latency histogram counted every request",
                     types.get("catbird_request_duration_seconds") == "histogram"
                     and value(values, "catbird_request_duration_seconds_count") == total
                     and value(values, "catbird_request_duration_seconds_bucket", le="+Inf") == total,
                     f"count {value(values, 'catbird_request_duration_seconds_count')}, expected {total}")
        buckets = sorted((float(dict(labels)["le"]), v) for (name, labels), v in values.items()
                         if name == "catbird_request_duration_seconds_bucket")
        checks.check("latency buckets are cumulative", all(a[1] <= b[1] for a, b in zip(buckets, buckets[1:])), f"{buckets}")
        journaled = hits + misses + 1
        checks.check("journal rows per commit add up to every journaled request",
                     value(values, "catbird_journal_commit_rows_sum") == journaled
                     and value(values, "catbird_journal_commit_rows_count") >= 1,
                     f"sum {value(values, 'catbird_journal_commit_rows_sum')}, expected {journaled}")
        longest = value(values, "catbird_journal_queue_longest_entries")
        checks.check("the longest journal queue is at least one entry and at most every journaled request",
                     types.get("catbird_journal_queue_longest_entries") == "gauge" and longest is not None
                     and 1 <= longest <= journaled and value(values, "catbird_journal_queue_longest_bytes") >= 1,
                     f"longest {longest} entries, {value(values, 'catbird_journal_queue_longest_bytes')} bytes")
        checks.check("the journal queue is empty after a read",
                     value(values, "catbird_journal_queue_entries") == 0 and value(values, "catbird_journal_queue_bytes") == 0,
                     f"{value(values, 'catbird_journal_queue_entries')}")
        checks.check("tenants and mocks are counted (default tenant included)",
                     value(values, "catbird_tenants") == 3 and value(values, "catbird_mocks") == 3,
                     f"tenants {value(values, 'catbird_tenants')}, mocks {value(values, 'catbird_mocks')}")
        on_disk = sum(os.path.getsize(p) for p in (node.database, node.database + "-wal") if os.path.exists(p))
        reported = value(values, "catbird_database_bytes")
        checks.check("database bytes are the files' size on disk", reported and abs(reported - on_disk) <= 64 * 1024,
                     f"reported {reported}, on disk {on_disk}")
        checks.check("no journal row was dropped", value(values, "catbird_journal_dropped_rows_total") == 0, "")
        checks.check("the version is in catbird_build_info",
                     any(name == "catbird_build_info" and dict(labels).get("version") for (name, labels) in values), "")
        closed = {dict(labels)["reason"]: v for (name, labels), v in values.items() if name == "catbird_connections_closed_total"}
        checks.check("the connection slots: the scrape's own open, none closed by the server, the limit never reached",
                     types.get("catbird_connections") == "gauge" and value(values, "catbird_connections") >= 1
                     and value(values, "catbird_connections_limit") >= 64
                     and value(values, "catbird_connection_limit_reached_total") == 0
                     and len(closed) == 9 and not any(closed.values()),
                     f"open {value(values, 'catbird_connections')}, limit {value(values, 'catbird_connections_limit')}, closed {closed}")
        status, _ = call(node.port, "POST", "/catbird/metrics")
        checks.check("POST /catbird/metrics is refused with 405", status == 405, f"{status}")
    finally:
        node.stop()



if __name__ == "__main__":
    sys.exit(main("metrics", __doc__, run))
