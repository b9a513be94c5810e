#!/usr/bin/env python3
"""Retention as a user sets it: the CATBIRD_* variables and flags of `catbird serve`.

Fills a database with the limits off, restarts the node on the same file with
CATBIRD_JOURNAL_MAX_ROWS, CATBIRD_TENANT_TTL, CATBIRD_JOURNAL_MAX_AGE and CATBIRD_JOURNAL_MAX_BYTES set, and checks that
the pass run at start prunes the excess rows at once, says so on stderr at warning level (a
quiet log still shows it), counts it in /catbird/api/info and /catbird/metrics, and keeps the
newest rows; and that a malformed duration and a byte limit under 1mb are refused with exit code 2.

Usage: retention_test.py --catbird PATH
"""

import json
import subprocess
import sys
import time

from harness import Node, call, main


def run(args, work, checks):
    catbird = args.catbird
    off = ["--journal-max-rows", "off", "--tenant-ttl", "off", "--journal-max-age", "off", "--journal-max-bytes", "off"]
    node = Node(catbird, work, 1, options=off)
    node.start()
    for index in range(40):
        call(node.port, "GET", f"/page/{index}", tenant="alpha")
    status, body = call(node.port, "GET", "/catbird/api/info")
    retention = json.loads(body)["retention"]
    checks.check("with every limit off, info shows nulls and nothing pruned",
                 retention["journalMaxRows"] is None and retention["tenantTTLSeconds"] is None
                 and retention["journalMaxAgeSeconds"] is None and retention["journalMaxBytes"] is None
                 and retention["journalBytes"] is None and not any(retention["pruned"].values()), f"{retention}")
    node.stop()

    limited = Node(catbird, work, 1, environment={
        "CATBIRD_JOURNAL_MAX_ROWS": "10", "CATBIRD_TENANT_TTL": "90s", "CATBIRD_JOURNAL_MAX_AGE": "12h",
        "CATBIRD_JOURNAL_MAX_BYTES": "1mb"})
    limited.database, limited.log_path = node.database, node.log_path
    limited.start()
    try:
        deadline = time.monotonic() + 20
        retention = {}
        while time.monotonic() < deadline:
            retention = json.loads(call(limited.port, "GET", "/catbird/api/info")[1])["retention"]
            if retention["pruned"]["journalRowsOverLimit"] >= 30:
                break
            time.sleep(0.05)
        checks.check("the variables set the limits (seconds in info)",
                     (retention.get("journalMaxRows"), retention.get("tenantTTLSeconds"), retention.get("journalMaxAgeSeconds"),
                      retention.get("journalMaxBytes")) == (10, 90, 43200, 1048576), f"{retention}")
        checks.check("the pass at start prunes the 30 rows over the limit", retention["pruned"]["journalRowsOverLimit"] == 30,
                     f"{retention['pruned']}")
        status, body = call(limited.port, "GET", "/catbird/api/requests?limit=100", tenant="alpha")
        urls = [entry["url"] for entry in json.loads(body)["requests"]]
        checks.check("the newest 10 rows are kept", urls == [f"/page/{i}" for i in range(30, 40)], f"{urls}")
        metrics = call(limited.port, "GET", "/catbird/metrics")[1].decode()
        checks.check("metrics count the pruned rows", 'catbird_pruned_journal_rows_total{reason="max_rows"} 30' in metrics,
                     metrics[-800:])
    finally:
        limited.stop()
    log = limited.log()
    checks.check("the pruning is logged at warning level (the node runs with --log-level warning)",
                 "[warning] retention: pruned 30 journal rows over the limit of 10" in log, log[-800:])

    bad = subprocess.run([catbird, "serve", "--journal-max-age", "5 days"], capture_output=True, text=True, timeout=30)
    checks.check("a malformed duration is refused with exit code 2 and a reason",
                 bad.returncode == 2 and "journal-max-age must be a whole number with s, m, h or d" in bad.stderr,
                 f"{bad.returncode} {bad.stderr[:300]}")
    small = subprocess.run([catbird, "serve", "--journal-max-bytes", "64kb"], capture_output=True, text=True, timeout=30)
    checks.check("a byte limit under 1mb is refused with exit code 2 and a reason",
                 small.returncode == 2 and "journal-max-bytes must be at least 1mb" in small.stderr,
                 f"{small.returncode} {small.stderr[:300]}")



if __name__ == "__main__":
    sys.exit(main("retention", __doc__, run))
