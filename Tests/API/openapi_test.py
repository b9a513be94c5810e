#!/usr/bin/env python3
"""The OpenAPI 3.1 document at GET /catbird/api/openapi.json, kept true against a real
`catbird serve` (docs/protocol.md#openapi-document):

1. it is a valid OpenAPI 3.1 document (openapi-spec-validator), no object in it has a key
   twice, and the bytes served are the repository's Sources/CatbirdServer/OpenAPI/openapi.json;
2. every example in it (parameters, request and response bodies, schemas' `examples`)
   validates against its schema (jsonschema, draft 2020-12, formats checked);
3. every operation's example request (path and query parameters, body) is accepted by the
   server with the operation's documented success status, and the answer validates against the
   documented schema for that status;
4. Schemathesis fuzzes every operation from the served document: no 5xx, no request over its
   time limit, every answer's status, Content-Type and body as the document says; afterwards
   the same process still serves a mock and its health.

(That every router route is in the document is OpenAPIRouteCoverageTests, in Swift.)"""

import json
import os
import subprocess
import sys
import urllib.parse

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "Operations"))
import harness  # noqa: E402

import jsonschema  # noqa: E402
from openapi_spec_validator import validate as validate_openapi  # noqa: E402
from referencing import Registry, Resource  # noqa: E402
from referencing.jsonschema import DRAFT202012  # noqa: E402

DOCUMENT_URI = "urn:catbird:openapi"
SOURCE = os.path.join(os.path.dirname(__file__), "..", "..", "Sources", "CatbirdServer", "OpenAPI", "openapi.json")
METHODS = ("get", "put", "post", "delete", "patch", "head", "options")
# Destructive operations run last, in this order, so the others find the entries they name.
LAST = ("removeMockByID", "clearJournal", "dropTenant", "removeEveryTenantsMocks", "dropEveryTenant")


class Document:
    """The document with a validator for the schema at any JSON pointer inside it."""

    def __init__(self, document):
        self.document = document
        resource = Resource.from_contents(document, default_specification=DRAFT202012)
        self.registry = Registry().with_resource(DOCUMENT_URI, resource)

    def validator(self, pointer):
        schema = {"$ref": f"{DOCUMENT_URI}#{pointer}"}
        return jsonschema.Draft202012Validator(
            schema, registry=self.registry, format_checker=jsonschema.Draft202012Validator.FORMAT_CHECKER)

    def errors(self, pointer, instance):
        return [f"{'/'.join(map(str, e.absolute_path)) or '(root)'}: {e.message}"
                for e in self.validator(pointer).iter_errors(instance)]

    def resolve(self, node):
        """`node`, or what its `$ref` points at, with the pointer it was found at (or None)."""
        if isinstance(node, dict) and "$ref" in node:
            pointer = node["$ref"][1:]
            target = self.document
            for part in pointer.strip("/").split("/"):
                target = target[part.replace("~1", "/").replace("~0", "~")]
            return target, pointer
        return node, None


def pointer_escape(part):
    return str(part).replace("~", "~0").replace("/", "~1")


def operations(document):
    for path, item in document["paths"].items():
        for method in METHODS:
            if method in item:
                yield path, method, item[method]


def check_examples(doc, checks):
    """Every example against its schema."""
    count = 0

    def walk(node, pointer):
        nonlocal count
        if isinstance(node, dict):
            if "schema" in node and ("example" in node or "examples" in node):
                examples = [node["example"]] if "example" in node else [e.get("value") for e in node["examples"].values()]
                for example in examples:
                    count += 1
                    errors = doc.errors(pointer + "/schema", example)
                    checks.check(f"example at {pointer} validates", not errors, "; ".join(errors[:3]))
            if pointer.startswith("/components/schemas/") and pointer.count("/") == 3 and "examples" in node:
                for index, example in enumerate(node["examples"]):
                    count += 1
                    errors = doc.errors(pointer, example)
                    checks.check(f"schema example {pointer}[{index}] validates", not errors, "; ".join(errors[:3]))
            for key, value in node.items():
                walk(value, f"{pointer}/{pointer_escape(key)}")
        elif isinstance(node, list):
            for index, value in enumerate(node):
                walk(value, f"{pointer}/{index}")

    walk(doc.document, "")
    checks.check("the document has examples to check", count > 20, f"only {count}")


def example_request(doc, path, operation):
    """(target, body bytes or None) built from the operation's examples."""
    query = []
    for parameter in operation.get("parameters", []):
        parameter, _ = doc.resolve(parameter)
        if "example" not in parameter:
            continue
        value = parameter["example"]
        if parameter["in"] == "path":
            path = path.replace("{" + parameter["name"] + "}", urllib.parse.quote(str(value), safe=""))
        elif parameter["in"] == "query":
            query.append((parameter["name"], str(value).lower() if isinstance(value, bool) else str(value)))
    body = None
    if "requestBody" in operation:
        body = operation["requestBody"]["content"]["application/json"]["example"]
    target = path + ("?" + urllib.parse.urlencode(query) if query else "")
    return target, body


def check_example_requests(doc, port, checks):
    """Each operation's example request, in an order that leaves destructive ones last."""
    # Journal entry 1 and tenant shard-1, which the examples name.
    status, _ = harness.call(port, "POST", "/catbird/api/mocks", body=doc.document["paths"]["/catbird/api/mocks"]["post"]["requestBody"]["content"]["application/json"]["example"])
    assert status == 201, f"seeding the example mock: {status}"
    status, _ = harness.call(port, "GET", "/api/feed", headers={"Accept": "application/json"})
    assert status == 200, f"seeding journal entry 1: {status}"
    status, _ = harness.call(port, "POST", "/catbird/api/mocks", tenant="shard-1", body={"type": "removeAll"})
    assert status == 204, f"seeding tenant shard-1: {status}"

    listed = sorted(operations(doc.document), key=lambda o: (o[2]["operationId"] in LAST, LAST.index(o[2]["operationId"]) if o[2]["operationId"] in LAST else 0))
    for path, method, operation in listed:
        target, body = example_request(doc, path, operation)
        if operation["operationId"] == "removeMockByID":
            # The example names the seeded mock's id on a fresh server (1); the update example
            # since replaced that mock in place, under a new id: remove the example mock by the id it has now.
            _, listing = harness.call(port, "GET", "/catbird/api/mocks")
            target = path.replace("{id}", str(json.loads(listing)["mocks"][0]["id"]))
        name = f"{method.upper()} {target} ({operation['operationId']})"
        status, answer = harness.call(port, method.upper(), target, body=body, timeout=10)
        success = sorted(code for code in operation["responses"] if code.startswith("2"))
        if not checks.check(f"example request {name} → {success[0]}", str(status) == success[0], f"got {status}: {answer[:300]!r}"):
            continue
        content = operation["responses"][str(status)].get("content", {})
        if "application/json" in content:
            pointer = f"/paths/{pointer_escape(path)}/{method}/responses/{status}/content/application~1json/schema"
            try:
                errors = doc.errors(pointer, json.loads(answer))
            except ValueError as error:
                errors = [f"not JSON: {error}"]
            checks.check(f"answer to {name} matches its schema", not errors, "; ".join(errors[:3]))


# Tester finding tester44b-F1, its inputs: each valid by the document's schemas before, each
# refused by the server with 400 (Schemathesis: "schema-valid request rejected"), or the other
# way (`maxRows: null`). Each is now as the document says: (what, JSON pointer of the schema,
# the value it checks, the request, the server's status for it).
BOUNDARY_INPUTS = [
    ("mock id 0", "/paths/~1catbird~1api~1mocks~1{id}/delete/parameters/1/schema", "0",
     ("DELETE", "/catbird/api/mocks/0", None), 400),
    ("status=46949", "/components/parameters/status/schema", "46949", ("GET", "/catbird/api/requests?status=46949", None), 400),
    ("status=0", "/components/parameters/status/schema", "0", ("GET", "/catbird/api/requests?status=0", None), 400),
    ("status=0599", "/components/parameters/status/schema", "0599", ("GET", "/catbird/api/requests?status=0599", None), 200),
    ("before=2^63", "/components/parameters/before/schema", 9223372036854775808,
     ("GET", "/catbird/api/requests/unmatched?before=9223372036854775808", None), 400),
    ("since=2^63", "/components/parameters/since/schema", 9223372036854775808,
     ("GET", "/catbird/api/requests?since=9223372036854775808", None), 400),
    ("since=2^63-1", "/components/parameters/since/schema", 9223372036854775807,
     ("GET", "/catbird/api/requests?since=9223372036854775807", None), 200),
]
for value in ("", " x", "x ", "a\nb", "\t"):
    response = {"status": 200, "headers": {"x-schemathesis-additional": value}}
    BOUNDARY_INPUTS.append((f"response header value {value!r}", "/components/schemas/ResponseMock", response,
                            ("POST", "/catbird/api/mocks", {"type": "update", "pattern": {"method": "GET", "url": {"kind": "equal", "value": "/b"}},
                                                            "response": response}), 400))
for name in ("a b", "x:y", ""):
    response = {"status": 200, "headers": {name: "v"}}
    BOUNDARY_INPUTS.append((f"response header name {name!r}", "/components/schemas/ResponseMock", response,
                            ("POST", "/catbird/api/mocks", {"type": "update", "pattern": {"method": "GET", "url": {"kind": "equal", "value": "/b"}},
                                                            "response": response}), 400))
BOUNDARY_INPUTS.append(("SQL maxRows null", "/components/schemas/SQLRequest", {"sql": "SELECT 1", "maxRows": None},
                        ("POST", "/catbird/api/sql", {"sql": "SELECT 1", "maxRows": None}), 200))


def check_boundary_inputs(doc, port, checks):
    """BOUNDARY_INPUTS: the document's schema and the server agree on each."""
    for what, pointer, value, (method, target, body), status in BOUNDARY_INPUTS:
        valid = not doc.errors(pointer, value)
        got = harness.call(port, method, target, tenant="boundaries", body=body)[0]
        checks.check(f"{what}: the server answers {status} and the document calls it {'valid' if status < 400 else 'invalid'}",
                     got == status and valid == (status < 400), f"server {got}, document {'valid' if valid else 'invalid'}")


def run_schemathesis(args, node, work, checks):
    """Schemathesis over every operation; the hooks keep waits short (see schemathesis_hooks.py)."""
    base = f"http://{harness.HOST}:{node.port}"
    environment = dict(os.environ, SCHEMATHESIS_HOOKS="schemathesis_hooks", PYTHONPATH=os.path.dirname(os.path.abspath(__file__)))
    command = [os.path.abspath(args.schemathesis), "run", f"{base}/catbird/api/openapi.json", "--url", base,
               "--checks", "not_a_server_error,status_code_conformance,content_type_conformance,response_schema_conformance", "--max-examples", str(args.max_examples), "--workers", "2",
               "--phases", "examples,coverage,fuzzing", "--request-timeout", "20", "--max-failures", "20",
               "--generation-database", "none", "--seed", str(args.seed), "--no-color", "--suppress-health-check", "all"]
    print("running:", " ".join(command))
    try:
        result = subprocess.run(command, env=environment, cwd=work, capture_output=True, text=True, timeout=args.budget)
        output = result.stdout + result.stderr
        ok = result.returncode == 0
    except subprocess.TimeoutExpired as timeout:
        output = f"{timeout.stdout or ''}{timeout.stderr or ''}\nSchemathesis did not finish within {args.budget} s"
        ok = False
    print(output[-6000:] if not ok else output[-1500:])
    checks.check("Schemathesis finds no 5xx, crash, hang or undocumented answer", ok, "see its output above")


def check_still_serves(node, checks):
    alive = node.process.poll() is None
    checks.check("the server process is still running after the fuzzing", alive, f"exit code {node.process.returncode}")
    if not alive:
        return
    health = harness.call(node.port, "GET", "/catbird/api/health", timeout=10)[0]
    checks.check("health answers 200 after the fuzzing", health == 200, f"got {health}")
    mock = {"type": "update", "pattern": {"method": "GET", "url": {"kind": "equal", "value": "/after-fuzzing"}},
            "response": {"status": 200, "body": "c3RpbGwgaGVyZQ=="}}
    tenant = "after-fuzzing"
    added = harness.call(node.port, "POST", "/catbird/api/mocks", tenant=tenant, body=mock, timeout=10)[0]
    status, body = harness.call(node.port, "GET", "/after-fuzzing", tenant=tenant, timeout=10)
    checks.check("a mock added after the fuzzing answers", added == 201 and status == 200 and body == b"still here", f"{added} {status} {body[:100]!r}")


def run(args, work, checks):
    node = harness.Node(args.catbird, work, 0)
    node.start()
    try:
        status, served = harness.call(node.port, "GET", "/catbird/api/openapi.json")
        checks.check("GET /catbird/api/openapi.json → 200", status == 200, f"got {status}")
        with open(SOURCE, "rb") as f:
            checks.check("the served document is Sources/CatbirdServer/OpenAPI/openapi.json", served == f.read())
        duplicates = []

        def no_duplicate_keys(pairs):
            keys = [key for key, _ in pairs]
            duplicates.extend(sorted({key for key in keys if keys.count(key) > 1}))
            return dict(pairs)

        document = json.loads(served, object_pairs_hook=no_duplicate_keys)
        # JSON parsers keep either the first or the last of two equal keys (RFC 8259 4), so a
        # second "429" in one responses object hides one of them from every reader.
        checks.check("no object in the document has a key twice", not duplicates, f"repeated keys: {duplicates}")
        try:
            validate_openapi(document)
            checks.check("the document is valid OpenAPI 3.1", document["openapi"].startswith("3.1"))
        except Exception as error:  # the validator's own error types
            checks.check("the document is valid OpenAPI 3.1", False, str(error)[:500])
        doc = Document(document)
        check_examples(doc, checks)
        check_example_requests(doc, node.port, checks)
        check_boundary_inputs(doc, node.port, checks)
        if not args.skip_fuzzing:
            run_schemathesis(args, node, work, checks)
        check_still_serves(node, checks)
    finally:
        code = node.stop()
        checks.check("the server stops cleanly (exit 0)", code == 0, f"exit code {code}: {node.log()[-1000:]}")


def arguments(parser):
    parser.add_argument("--schemathesis", required=True, help="the schemathesis command")
    parser.add_argument("--max-examples", type=int, default=12, help="Schemathesis examples per operation (default 12)")
    parser.add_argument("--seed", type=int, default=20261130, help="Schemathesis seed (default fixed, so CI runs repeat)")
    parser.add_argument("--budget", type=int, default=240, help="seconds Schemathesis may take before it counts as a hang")
    parser.add_argument("--skip-fuzzing", action="store_true", help="only the document and example checks")


if __name__ == "__main__":
    sys.exit(harness.main("openapi", __doc__, run, arguments))
