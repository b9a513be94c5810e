#!/usr/bin/env python3
"""GET /catbird/api/requests.har against a real `catbird serve` (docs/protocol.md#har-export):

1. a journal of text, JSON, binary and empty bodies, query strings, repeated headers, cookies,
   a redirect and a 404 exports as HAR 1.2 that passes the JSON Schema in har-1.2.schema.json
   (written from the spec's field list; checked with jsonschema) and says what was sent:
   bodies (binary ones base64 with `encoding`), decoded query pairs, each repeated header
   once per value, cookies, status texts, `time` the sum of the timings;
2. the journal's filters apply (method, status class, order and limit, another tenant's
   entries never), and bad parameters are a JSON 400;
3. streamed: a journal of ~150 MB exports whole while the server's peak resident memory
   (VmHWM) grows by far less than the document's size."""

import base64
import http.client
import json
import os
import random
import string
import sys

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "Operations"))
import harness  # noqa: E402

import jsonschema  # noqa: E402

SCHEMA = os.path.join(os.path.dirname(__file__), "har-1.2.schema.json")
BINARY = bytes(range(256))


def mock(port, url, status=200, headers=None, body=b"", method="GET", tenant=None, kind="equal"):
    action = {"type": "update", "pattern": {"method": method, "url": {"kind": kind, "value": url}},
              "response": {"status": status, "headers": headers or {}, "body": base64.b64encode(body).decode()}}
    status_code, answer = harness.call(port, "POST", "/catbird/api/mocks", tenant=tenant, body=action)
    assert status_code == 201, f"adding mock {url}: {status_code} {answer!r}"


def send(port, method, target, headers=(), body=None, tenant=None):
    """One request with `headers` as (name, value) pairs, repeats kept."""
    connection = http.client.HTTPConnection(harness.HOST, port, timeout=30)
    connection.putrequest(method, target)
    for name, value in headers:
        connection.putheader(name, value)
    if tenant:
        connection.putheader(harness.HEADER, tenant)
    if body is not None:
        connection.putheader("Content-Length", str(len(body)))
    connection.endheaders(body)
    response = connection.getresponse()
    data = response.read()
    connection.close()
    return response.status, data


def export(port, query="", tenant=None):
    status, body = harness.call(port, "GET", "/catbird/api/requests.har" + query, tenant=tenant)
    return status, body


def fill_small_journal(port):
    mock(port, "/text", headers={"Content-Type": "text/plain; charset=utf-8"}, body="héllo\nworld".encode())
    mock(port, "/json?*", kind="wildcard", headers={"Content-Type": "application/json", "Set-Cookie": "session=abc; Path=/"}, body=b'{"ok":true}')
    mock(port, "/binary", headers={"Content-Type": "application/octet-stream"}, body=BINARY)
    mock(port, "/empty", status=204)
    mock(port, "/moved", status=302, headers={"Location": "/text"})
    mock(port, "/upload", method="POST", status=201, body=b"created")
    send(port, "GET", "/text")
    send(port, "GET", "/json?q=a+b&q=c%26d&empty=", headers=[("Accept", "application/json"), ("Cookie", "a=1; b=2")])
    send(port, "GET", "/binary", headers=[("X-Multi", "one"), ("X-Multi", "two")])
    send(port, "GET", "/empty")
    send(port, "GET", "/moved")
    send(port, "POST", "/upload", headers=[("Content-Type", "application/json")], body=b'{"name":"x"}')
    send(port, "POST", "/upload", headers=[("Content-Type", "application/octet-stream")], body=BINARY)
    send(port, "GET", "/nothing-here")


def by_path(entries):
    result = {}
    for entry in entries:
        path = entry["request"]["url"].split("://", 1)[1].split("/", 1)[1].split("?")[0]
        result.setdefault("/" + path, []).append(entry)
    return result


def check_small_journal(port, checks):
    fill_small_journal(port)
    mock(port, "/other", tenant="shard-2", body=b"theirs")
    send(port, "GET", "/other", tenant="shard-2")
    status, body = export(port)
    checks.check("GET /catbird/api/requests.har → 200", status == 200, f"{status} {body[:300]!r}")
    document = json.loads(body)
    with open(SCHEMA) as f:
        schema = json.load(f)
    validator = jsonschema.Draft202012Validator(schema, format_checker=jsonschema.Draft202012Validator.FORMAT_CHECKER)
    errors = [f"{'/'.join(map(str, e.absolute_path))}: {e.message}" for e in validator.iter_errors(document)]
    checks.check("the export passes the HAR 1.2 schema", not errors, "; ".join(errors[:5]))
    entries = document["log"]["entries"]
    checks.check("every journaled request of the tenant is an entry, none of another tenant",
                 len(entries) == 8 and all(e["_catbird"]["tenant"] == "" for e in entries), f"{len(entries)} entries")
    paths = by_path(entries)

    text = paths["/text"][0]
    checks.check("a text body is the content's text", text["response"]["content"].get("text") == "héllo\nworld"
                 and "encoding" not in text["response"]["content"] and text["response"]["content"]["size"] == len("héllo\nworld".encode()),
                 json.dumps(text["response"]["content"]))
    checks.check("urls are absolute, from the Host received", text["request"]["url"] == f"http://{harness.HOST}:{port}/text", text["request"]["url"])

    json_entry = paths["/json"][0]
    checks.check("query strings are decoded pairs in order",
                 json_entry["request"]["queryString"] == [{"name": "q", "value": "a b"}, {"name": "q", "value": "c&d"}, {"name": "empty", "value": ""}],
                 json.dumps(json_entry["request"]["queryString"]))
    checks.check("request cookies come from Cookie", json_entry["request"]["cookies"] == [{"name": "a", "value": "1"}, {"name": "b", "value": "2"}],
                 json.dumps(json_entry["request"]["cookies"]))
    checks.check("response cookies come from Set-Cookie", json_entry["response"]["cookies"] == [{"name": "session", "value": "abc"}],
                 json.dumps(json_entry["response"]["cookies"]))
    checks.check("a JSON body and its mimeType", json_entry["response"]["content"].get("text") == '{"ok":true}'
                 and json_entry["response"]["content"]["mimeType"] == "application/json", json.dumps(json_entry["response"]["content"]))

    binary = paths["/binary"][0]
    content = binary["response"]["content"]
    checks.check("a binary body is base64 with encoding: base64", content.get("encoding") == "base64"
                 and base64.b64decode(content.get("text", "")) == BINARY and content["size"] == 256, json.dumps(content)[:300])
    multi = [h["value"] for h in binary["request"]["headers"] if h["name"].lower() == "x-multi"]
    checks.check("a repeated header is listed once per value, in order", multi == ["one", "two"], str(multi))

    empty = paths["/empty"][0]
    checks.check("an empty body: size 0, no text", empty["response"]["content"]["size"] == 0 and "text" not in empty["response"]["content"]
                 and empty["response"]["status"] == 204 and empty["response"]["statusText"] == "No Content" and "postData" not in empty["request"],
                 json.dumps(empty["response"]))
    moved = paths["/moved"][0]["response"]
    checks.check("a redirect's Location is redirectURL", moved["redirectURL"] == "/text" and moved["statusText"] == "Found", json.dumps(moved)[:300])

    uploads = paths["/upload"]
    posted = uploads[0]["request"].get("postData", {})
    checks.check("posted JSON is postData text with its mimeType", posted.get("text") == '{"name":"x"}'
                 and posted.get("mimeType") == "application/json" and uploads[0]["request"]["bodySize"] == 12, json.dumps(posted))
    posted = uploads[1]["request"].get("postData", {})
    checks.check("a posted binary body is base64, marked _encoding", posted.get("_encoding") == "base64"
                 and base64.b64decode(posted.get("text", "")) == BINARY, json.dumps(posted)[:300])

    missing = paths["/nothing-here"][0]
    checks.check("an unmatched request: 404 Not Found, answeredBy none",
                 missing["response"]["status"] == 404 and missing["response"]["statusText"] == "Not Found"
                 and missing["_catbird"]["answeredBy"] == "none", json.dumps(missing["response"])[:300])
    timings_ok = all(abs(e["time"] - sum(v for k, v in e["timings"].items() if k in ("blocked", "dns", "connect", "ssl", "send", "wait", "receive") and v >= 0)) < 1e-6
                     for e in entries)
    checks.check("each entry's time is the sum of its timings", timings_ok)
    ids = [e["_catbird"]["id"] for e in entries]
    checks.check("entries oldest first by default", ids == sorted(ids), str(ids))


def check_filters(port, checks):
    status, body = export(port, "?method=POST")
    entries = json.loads(body)["log"]["entries"] if status == 200 else []
    checks.check("method=POST exports only the POSTs", status == 200 and len(entries) == 2 and all(e["request"]["method"] == "POST" for e in entries), f"{status} {len(entries)}")
    status, body = export(port, "?status=4xx")
    entries = json.loads(body)["log"]["entries"] if status == 200 else []
    checks.check("status=4xx exports only the 404", status == 200 and [e["response"]["status"] for e in entries] == [404], f"{status} {body[:200]!r}")
    status, body = export(port, "?order=newest&limit=2")
    entries = json.loads(body)["log"]["entries"] if status == 200 else []
    ids = [e["_catbird"]["id"] for e in entries]
    checks.check("order=newest&limit=2 exports the two newest, newest first", len(ids) == 2 and ids[0] > ids[1], str(ids))
    status, body = export(port, "?bodies=false")
    entries = json.loads(body)["log"]["entries"] if status == 200 else []
    checks.check("bodies=false leaves the texts out, sizes stay", status == 200 and entries
                 and all("text" not in e["response"]["content"] for e in entries) and any(e["response"]["content"]["size"] > 0 for e in entries))
    status, body = export(port, "", tenant="shard-2")
    entries = json.loads(body)["log"]["entries"] if status == 200 else []
    checks.check("a shard exports its own journal only", [e["request"]["url"].endswith("/other") for e in entries] == [True], f"{status} {body[:300]!r}")
    status, body = export(port, "", tenant="nobody-yet")
    checks.check("an empty journal is a HAR with no entries", status == 200 and json.loads(body)["log"]["entries"] == [], f"{status} {body[:200]!r}")
    for query, word in [("?limit=0", "limit"), ("?wait=1", "wait"), ("?foo=1", "foo"), ("?status=abc", "status")]:
        status, body = export(port, query)
        try:
            answer = json.loads(body)
        except ValueError:
            answer = {}
        checks.check(f"{query} is a JSON 400 naming '{word}'", status == 400 and answer.get("error") is True and word in answer.get("reason", ""), f"{status} {body[:200]!r}")


def vm_hwm_kib(pid):
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmHWM:"):
                return int(line.split()[1])
    raise RuntimeError("no VmHWM")


def check_streaming(args, work, checks):
    node = harness.Node(args.catbird, work, 1)
    node.start()
    body = "".join(random.choice(string.ascii_letters) for _ in range(48 * 1024)).encode()
    try:
        mock(node.port, "/big", method="POST", headers={"Content-Type": "text/plain"}, body=body)
        connection = http.client.HTTPConnection(harness.HOST, node.port, timeout=60)
        for _ in range(args.large_entries):
            connection.request("POST", "/big", body=body, headers={"Content-Type": "text/plain"})
            response = connection.getresponse()
            response.read()
            assert response.status == 200, response.status
        connection.close()
    finally:
        node.stop()
    # A fresh process: its peak memory so far is start-up's, not the filling's.
    node.start()
    try:
        harness.call(node.port, "GET", "/catbird/api/requests.har?limit=1")
        before = vm_hwm_kib(node.process.pid)
        connection = http.client.HTTPConnection(harness.HOST, node.port, timeout=120)
        connection.request("GET", "/catbird/api/requests.har")
        response = connection.getresponse()
        size, tail, head = 0, b"", b""
        while True:
            chunk = response.read(1 << 20)
            if not chunk:
                break
            if not head:
                head = chunk[:64]
            size += len(chunk)
            tail = (tail + chunk)[-16:]
        connection.close()
        after = vm_hwm_kib(node.process.pid)
        grown_mib = (after - before) / 1024
        document_mib = size / (1 << 20)
        print(f"     HAR of {args.large_entries} entries: {document_mib:.0f} MiB; server VmHWM {before // 1024} → {after // 1024} MiB")
        checks.check("a large journal exports whole (chunked, ends the document)",
                     response.status == 200 and response.getheader("Transfer-Encoding") == "chunked"
                     and head.startswith(b'{"log":{"version":"1.2"') and tail.endswith(b"]}}") and document_mib > 100,
                     f"{response.status} {size} bytes, head {head!r} tail {tail!r}")
        checks.check("the server's peak memory grows far less than the document (streamed)", grown_mib < 40,
                     f"VmHWM grew {grown_mib:.0f} MiB for a {document_mib:.0f} MiB document")
    finally:
        node.stop()


def run(args, work, checks):
    node = harness.Node(args.catbird, work, 0)
    node.start()
    try:
        check_small_journal(node.port, checks)
        check_filters(node.port, checks)
    finally:
        node.stop()
    check_streaming(args, work, checks)


def arguments(parser):
    parser.add_argument("--large-entries", type=int, default=1500, help="entries of the streaming check (48 KiB each way)")


if __name__ == "__main__":
    sys.exit(harness.main("har", __doc__, run, arguments))
