"""Shared by the operational tests in this folder: real `catbird serve` processes on
loopback, one-shot HTTP calls, and a pass/fail tally printed as "N passed, N failed"."""

import argparse
import http.client
import json
import os
import shutil
import signal
import socket
import subprocess
import tempfile
import time

HOST = "127.0.0.1"
HEADER = "X-Catbird-Parallel-Id"


def free_port():
    with socket.socket() as s:
        s.bind((HOST, 0))
        return s.getsockname()[1]


def call(port, method, path, tenant=None, body=None, timeout=30, headers=None):
    """One request on a new connection; `body` is sent as JSON. Returns (status, body bytes)."""
    connection = http.client.HTTPConnection(HOST, port, timeout=timeout)
    headers = dict(headers or {})
    if tenant is not None:
        headers[HEADER] = tenant
    data = None
    if body is not None:
        data = json.dumps(body).encode()
        headers["Content-Type"] = "application/json"
    try:
        connection.request(method, path, body=data, headers=headers)
        response = connection.getresponse()
        return response.status, response.read()
    finally:
        connection.close()


def wait_until(what, check, seconds=30):
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        try:
            if check():
                return
        except OSError:
            pass
        time.sleep(0.1)
    raise RuntimeError(f"timed out after {seconds}s waiting for {what}")


class Node:
    """One `catbird serve` on a free loopback port with its own database file in `work`;
    `options` are further command-line options, `environment` extra variables."""

    def __init__(self, binary, work, index, options=(), environment=None):
        self.binary = binary
        self.index = index
        self.options = list(options)
        self.environment = dict(os.environ, **(environment or {}))
        self.port = free_port()
        self.database = os.path.join(work, f"node-{index}.sqlite")
        self.log_path = os.path.join(work, f"node-{index}.log")
        self.process = None

    def start(self):
        log = open(self.log_path, "a")
        self.process = subprocess.Popen(
            [self.binary, "serve", "--host", HOST, "--port", str(self.port), "--db", self.database,
             "--log-level", "warning", *self.options],
            stdout=log, stderr=log, stdin=subprocess.DEVNULL, env=self.environment)
        log.close()

        def healthy():
            if self.process.poll() is not None:
                raise RuntimeError(f"node {self.index} exited with {self.process.returncode}: {self.log()[-500:]}")
            return call(self.port, "GET", "/catbird/api/health", timeout=2)[0] == 200
        wait_until(f"node {self.index} health", healthy)

    def log(self):
        with open(self.log_path) as f:
            return f.read()

    def stop(self):
        if self.process and self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            try:
                self.process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        code = self.process.returncode if self.process else 0
        self.process = None
        return code

    def tenants(self):
        """This node's tenants as the admin sees them, read directly: {id: summary}."""
        status, body = call(self.port, "GET", "/catbird/api/tenants")
        assert status == 200, f"node {self.index}: GET tenants → {status} {body[:200]!r}"
        return {t["id"]: t for t in json.loads(body)["tenants"] if t["id"] != ""}


class Checks:
    def __init__(self):
        self.passed = 0
        self.failed = 0

    def check(self, name, ok, detail=""):
        """Counts and prints one check; returns `ok`."""
        if ok:
            self.passed += 1
            print(f"ok   {name}")
        else:
            self.failed += 1
            print(f"FAIL {name}: {detail}")
        return ok

    def finish(self, name):
        """Prints the tally; returns the exit code (1 when anything failed or nothing ran)."""
        print(f"{name}: {self.passed} passed, {self.failed} failed")
        return 0 if self.failed == 0 and self.passed > 0 else 1


def main(name, description, run, add_arguments=None):
    """The command line of a test in this folder: `--catbird PATH` (and what `add_arguments`
    adds), a temporary directory, `run(args, work, checks)`, the tally. A failure of the run
    itself counts as a failed check, with the nodes' logs printed. Returns the exit code."""
    parser = argparse.ArgumentParser(description=description, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--catbird", required=True, help="the catbird binary")
    if add_arguments:
        add_arguments(parser)
    args = parser.parse_args()
    work = tempfile.mkdtemp(prefix=f"catbird-{name}.")
    checks = Checks()
    try:
        run(args, work, checks)
    except Exception as error:
        checks.check(f"{name} run completed", False, repr(error))
        for log in sorted(os.listdir(work)):
            if log.endswith(".log"):
                with open(os.path.join(work, log)) as f:
                    print(f"--- {log}\n{f.read()[-2000:]}")
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return checks.finish(name)
