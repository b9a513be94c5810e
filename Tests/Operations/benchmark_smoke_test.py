#!/usr/bin/env python3
"""A cheap check of Benchmarks/ (the benchmark itself is not part of the suite: CI time).

`bash -n` on Benchmarks/run.sh, miss-ab.sh, miss-client.sh, visibility-ab.sh, ab-servers.sh and miss-common.sh, and run.sh's check, with BENCH_NO_BUILD=1, that both release products
it measures are built; then Benchmarks/control.py against a real node: the scenario
mock sets answer as run.sh expects them to (the last equal and wildcard/regexp mock hit, a
miss 404s, the 64 KiB body), a few visibility rounds print their figures beside their reference's
(a GET of a mock no update touches), and the metrics line
carries the journal writer's longest queue and rows per commit. Last, Benchmarks/journal-queries.sh
end to end on a journal of 3,000 rows: every pattern kind's count equals its SQL reference, alone
and beside a baseline binary (side by side).

Usage: benchmark_smoke_test.py --catbird PATH
"""

import os
import shutil
import subprocess
import sys

from harness import Node, call, main

BENCHMARKS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "Benchmarks")


def control(port, *arguments):
    result = subprocess.run([sys.executable, os.path.join(BENCHMARKS, "control.py"), str(port), *arguments],
                            capture_output=True, text=True, timeout=120)
    return result.returncode, result.stdout.strip() + result.stderr.strip()


def fields(line):
    return dict(field.split("=", 1) for field in line.split() if "=" in field)


def check_products_needed_without_build(work, checks):
    """BENCH_NO_BUILD=1 measures the release products already built: run.sh in a scratch copy of
    the tree (nothing built there) names each missing one with the command that builds it, and
    stops before any benchmark. The exact report: catbird built, catbird-bare-mhd not."""
    root = os.path.join(work, "bench-root")
    os.makedirs(os.path.join(root, "Benchmarks"))
    os.makedirs(os.path.join(root, "scripts"))
    tree = os.path.join(BENCHMARKS, "..")
    shutil.copy(os.path.join(BENCHMARKS, "run.sh"), os.path.join(root, "Benchmarks", "run.sh"))
    for name in ("Package.swift", "scripts/setup.sh"):
        os.symlink(os.path.abspath(os.path.join(tree, name)), os.path.join(root, name))
    for product in ("catbird", "catbird-bare-mhd"):
        result = subprocess.run(["bash", os.path.join(root, "Benchmarks", "run.sh")], capture_output=True, text=True,
                                timeout=300, env=dict(os.environ, BENCH_NO_BUILD="1"))
        line = result.stderr.strip().splitlines()[-1] if result.stderr.strip() else ""
        checks.check(f"BENCH_NO_BUILD=1 without {product} built: exit 2 naming it and its build command",
                     result.returncode == 2 and f"/{product} not found" in line
                     and f"swift build -c release --product {product}" in line, result.stdout[-500:] + line)
        missing = line.split("run.sh: ", 1)[-1].split(" not found", 1)[0]
        if product == "catbird" and missing.startswith(root):
            # Built at last (a stand-in: run.sh checks it is there before it runs anything).
            os.makedirs(os.path.dirname(missing), exist_ok=True)
            with open(missing, "w") as stand_in:
                stand_in.write("#!/bin/sh\nexit 1\n")
            os.chmod(missing, 0o755)


def run(args, work, checks):
    syntax = subprocess.run(["bash", "-n", os.path.join(BENCHMARKS, "run.sh")], capture_output=True, text=True)
    checks.check("Benchmarks/run.sh parses (bash -n)", syntax.returncode == 0, syntax.stderr)
    for script in ("miss-ab.sh", "visibility-ab.sh", "ab-servers.sh", "miss-common.sh", "miss-client.sh"):
        syntax = subprocess.run(["bash", "-n", os.path.join(BENCHMARKS, script)], capture_output=True, text=True)
        checks.check(f"Benchmarks/{script} parses (bash -n)", syntax.returncode == 0, syntax.stderr)
    check_products_needed_without_build(work, checks)

    node = Node(args.catbird, work, 1)
    node.start()
    try:
        for tenant, mock_set in (("equal", "equal:20"), ("mix", "mix:20"), ("", "big:65536"), ("", "upload")):
            code, output = control(node.port, "mocks", tenant, mock_set)
            checks.check(f"control.py adds the {mock_set} mocks", code == 0, output)
        checks.check("the last equal mock answers", call(node.port, "GET", "/m/19", tenant="equal")[0] == 200)
        checks.check("the last wildcard+regexp mock (a regexp) answers",
                     call(node.port, "GET", "/r/19/last", tenant="mix")[0] == 200)
        checks.check("a wildcard mock of the mix answers", call(node.port, "GET", "/w/18/x", tenant="mix")[0] == 200)
        checks.check("a miss answers 404", call(node.port, "GET", "/miss/nothing", tenant="mix")[0] == 404)
        status, body = call(node.port, "GET", "/big")
        checks.check("the 64 KiB mock answers run.sh's bytes",
                     status == 200 and body == bytes(i * 31 % 251 for i in range(65536)), f"{status} {len(body)}")
        checks.check("the upload mock answers a POST", call(node.port, "POST", "/upload", body={"x": 1})[0] == 200)

        code, output = control(node.port, "visibility", "5")
        figures = fields(output)
        checks.check("control.py visibility prints its figures and its reference's",
                     code == 0 and all(float(figures.get(key, "-1")) >= 0 for key in
                                       ("visible_p50", "visible_p99", "visible_max", "control_p50", "control_p99",
                                        "reference_p50", "reference_p99", "reference_max", "gets_over_one"))
                     and int(figures.get("gets_max", "0")) >= 1,
                     output)
        code, output = control(node.port, "metrics")
        figures = fields(output)
        checks.check("control.py metrics reads the writer's longest queue and rows per commit",
                     code == 0 and int(figures.get("longest_queue", "0")) >= 1 and int(figures.get("rows", "0")) >= 11
                     and float(figures.get("rows_per_commit", "0")) >= 1, output)
    finally:
        node.stop()

    environment = dict(os.environ, BENCH_CATBIRD_BIN=os.path.abspath(args.catbird), BENCH_JOURNAL_ROWS="3000")
    queries = subprocess.run(["bash", os.path.join(BENCHMARKS, "journal-queries.sh")], capture_output=True, text=True,
                             timeout=300, env=environment)
    table = [line for line in queries.stdout.splitlines() if line.startswith("| ") and "SQL:" in line]
    checks.check("journal-queries.sh counts each pattern kind as its SQL reference does, each PASS",
                 queries.returncode == 0 and len(table) >= 8 and all(line.endswith("| PASS |") for line in table),
                 queries.stdout[-1500:] + queries.stderr[-500:])

    # Side by side: the same binary as the baseline, one round each.
    environment = dict(environment, BENCH_BASELINE_BIN=os.path.abspath(args.catbird), BENCH_ROUNDS="1")
    queries = subprocess.run(["bash", os.path.join(BENCHMARKS, "journal-queries.sh")], capture_output=True, text=True,
                             timeout=300, env=environment)
    table = [line for line in queries.stdout.splitlines() if line.startswith("| ") and "SQL:" in line]
    checks.check("journal-queries.sh with a baseline prints both builds' times beside the reference, each PASS",
                 queries.returncode == 0 and "| baseline ms |" in queries.stdout and len(table) >= 8
                 and all(line.endswith("| PASS |") and line.count("|") == 9 for line in table),
                 queries.stdout[-1500:] + queries.stderr[-500:])


if __name__ == "__main__":
    sys.exit(main("benchmark smoke", __doc__, run))
