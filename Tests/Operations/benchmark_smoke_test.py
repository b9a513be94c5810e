#!/usr/bin/env python3
"""A cheap check of Benchmarks/ (the benchmark itself is not part of the suite: CI time).

`bash -n` on Benchmarks/run.sh, miss-ab.sh, miss-client.sh, miss-callgrind.sh, miss-cpu.sh,
visibility-ab.sh, ab-servers.sh, miss-common.sh, wrk-run.sh, interleave.sh, upload-vs-control.sh and strict-ab.sh, and run.sh's check, with BENCH_NO_BUILD=1, that
both release products it measures are built; then Benchmarks/control.py against a real node: the
scenario mock sets answer as run.sh expects them to (the last equal and wildcard/regexp mock hit,
a miss 404s, the 64 KiB body), a few visibility rounds print both measures beside their
references' (a GET of a mock no update touches), the kernel-timed one within the client-timed one,
and the metrics line carries the journal writer's longest queue and rows per commit. Then
interleave.sh's rounds with real wrk runs against the node (1 s each): every round printed, each
ratio the scenario's req/s over the mean of the reference runs beside it, the median judged
against the target (a target no run can reach FAILs), the 404s of a miss scenario expected. Last, Benchmarks/journal-queries.sh
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


INTERLEAVE_DRIVER = r"""
set -euo pipefail
BENCH_DIR="$1"; CATBIRD_URL="$2"; WORK="$3"
RAW_LOG="$WORK/raw.txt"; WRK_MAX_THREADS=2; WRK_TIMEOUT=10s; ROUNDS=2; ROUND_SECONDS=1
socket_errors=0; unexpected_non2xx=0; failures=0
progress() { echo "progress: $*" >&2; }
source "$BENCH_DIR/wrk-run.sh"
source "$BENCH_DIR/interleave.sh"
scenario first "the first equal mock" /m/0 0 - -H "X-Catbird-Parallel-Id: equal"
scenario last "the last equal mock" /m/19 0 100 -H "X-Catbird-Parallel-Id: equal"
scenario miss "a miss" /miss/nothing 1 0 -H "X-Catbird-Parallel-Id: equal" -s "$BENCH_DIR/miss.lua"
interleave first last miss
flat_report
echo "counters: failures=$failures socket_errors=$socket_errors unexpected_non2xx=$unexpected_non2xx"
"""


def check_interleave(port, work, checks):
    """interleave.sh with real wrk runs: a reference (/m/0) and two scenarios, 2 rounds of 1 s.
    Checks the printed rounds against each other: each ratio is the scenario's req/s over the
    mean of the reference runs printed beside it, a round's reference run after is the next
    scenario run's before, and the table's median is the mean of the two rounds' ratios."""
    result = subprocess.run(["bash", "-c", INTERLEAVE_DRIVER, "driver", BENCHMARKS, f"http://127.0.0.1:{port}", work],
                            capture_output=True, text=True, timeout=300)
    out = result.stdout
    rows = {line.split(" | ")[0].lstrip("| "): line for line in out.splitlines() if line.startswith("| the ")
            or line.startswith("| a miss")}
    rounds = {}
    for line in out.splitlines():
        if line.startswith("  - "):
            label, _, text = line[4:].partition(": ")
            rounds[label] = [part.replace("(", "").replace(")", "").replace("|", "").replace("=", "").split()
                             for part in text.split("; ")]
    checks.check("interleave.sh: both scenarios' rows and every round printed, no unexpected status",
                 result.returncode == 0 and set(rows) == {"the last equal mock", "a miss"}
                 and all(len(rounds.get(label, [])) == 2 for label in rows)
                 and "socket_errors=0 unexpected_non2xx=0" in out, out[-2000:] + result.stderr[-1500:])
    if result.returncode != 0 or len(rounds) != 2:
        return
    # The run order: reference, last, reference, miss, reference, last, reference, miss, reference.
    runs = [rounds["the last equal mock"][0], rounds["a miss"][0], rounds["the last equal mock"][1], rounds["a miss"][1]]
    chained = all(runs[i][2] == runs[i + 1][1] for i in range(3))
    ratios_right = all(abs(float(run[3]) - float(run[0]) / ((float(run[1]) + float(run[2])) / 2)) <= 0.006 for run in runs)
    checks.check("interleave.sh: each round's ratio is its req/s over the mean of the reference runs beside it, "
                 "which are shared with the neighbouring rounds", chained and ratios_right, out[-2000:])
    last, miss = rows["the last equal mock"].split(" | "), rows["a miss"].split(" | ")
    each = [float(value) for value in last[4].split()]
    checks.check("interleave.sh: the median of two rounds is their mean; a target of 100 × FAILs, 0 × PASSes, "
                 "reported-only references are not judged",
                 len(each) == 2 and abs(float(last[5]) - sum(each) / 2) <= 0.011 and last[-1].strip(" |") == "FAIL"
                 and miss[-1].strip(" |") == "PASS" and "≥ 100 × the first equal mock" in last[7]
                 and "failures=1 " in out, out[-2000:])


def run(args, work, checks):
    syntax = subprocess.run(["bash", "-n", os.path.join(BENCHMARKS, "run.sh")], capture_output=True, text=True)
    checks.check("Benchmarks/run.sh parses (bash -n)", syntax.returncode == 0, syntax.stderr)
    for script in ("miss-ab.sh", "visibility-ab.sh", "ab-servers.sh", "miss-common.sh", "miss-client.sh", "miss-callgrind.sh",
                   "miss-cpu.sh", "wrk-run.sh", "interleave.sh", "upload-vs-control.sh", "strict-ab.sh"):
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
        measures = [f"{prefix}{name}_{stat}" for prefix in ("", "wire_") for name in ("visible", "reference")
                    for stat in ("p50", "p99", "max")] + [f"wire_idle_reference_{stat}" for stat in ("p50", "p99", "max")]
        checks.check("control.py visibility prints both measures and their references'",
                     code == 0 and all(float(figures.get(key, "-1")) > 0 for key in measures)
                     and all(float(figures.get(key, "-1")) >= 0 for key in
                             ("control_p50", "control_p99", "wakeup_p50", "wakeup_p99", "gets_over_one"))
                     and int(figures.get("gets_max", "0")) >= 1,
                     output)
        # Each round's kernel-timed span (the GET's write to its answer's receive time) lies
        # inside its client-timed one (the 201 read to the answer read), so every order
        # statistic is at most the client-timed one's.
        checks.check("control.py visibility: the kernel-timed measure within the client-timed one",
                     code == 0 and all(float(figures.get(f"wire_{name}_{stat}", "inf"))
                                       <= float(figures.get(f"{name}_{stat}", "-1"))
                                       for name in ("visible", "reference") for stat in ("p50", "p99", "max")),
                     output)
        check_interleave(node.port, work, checks)
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
