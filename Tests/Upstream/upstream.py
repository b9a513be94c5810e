#!/usr/bin/env python3
"""A real upstream HTTP/1.1 server for Catbird's forwarding tests (redirect, proxy, record).

Usage: upstream.py            binds 127.0.0.1 on a free port and prints the port on stdout.
       upstream.py --tls CERT KEY   the same over TLS (HTTPS) with that PEM certificate and key;
                                    the echo then says which name the client sent as SNI.
       upstream.py --directory DIR  Python's file server instead (the handler of
                                    `python3 -m http.server`, the README's backend) serving DIR;
                                    bound to port 0 like the others, so no port is raced for.

Every answer is made from the request, so a test can check what arrived:
  /echo/...            200 JSON: method, path (the request-target as received), headers (list of
                       [name, value]), body_base64, body_length, chunked (whether the body came
                       chunked), expect (the Expect header, or null), client_port (the
                       connection's source port: equal across requests when it is reused),
                       sni (the TLS server name the client sent, or null); its fields X-Echo-Fields
                       (the received field names, lowercased) and X-Echo-Body-Length say so for a HEAD
  /status/<code>       that status, a text body, X-Upstream: yes
  /gzip                a gzip-encoded JSON body with Content-Encoding: gzip
  /binary              the 256 byte values 0..255, application/octet-stream
  /redirect            302 with Location: /echo/elsewhere (a proxy must not follow it)
  /moved/...           with an X-Location request header: 301 with that Location (else as /echo)
  /slow/<seconds>      waits, then 200 "slow"
  /hold/<seconds>      waits like /slow, but watches its connection: if the client (Catbird)
                       closes it first, the path is added to the list /abandoned answers
  /abandoned           200 JSON: the /hold/... paths whose client closed the connection first
  /cookies             two Set-Cookie fields and an ETag
  /connection-options  200 "ok" with `Connection: keep-alive, X-Hop` and `X-Hop: secret` (X-Hop is
                       hop-by-hop by RFC 9110 section 7.6.1: a proxy must not pass it on)
  /bigheader/<n>       200 "big" with an X-Big field of n bytes
  /raw/<name>          exact bytes no well-behaved server sends (RAW below), then the connection
                       is closed: status999 (a status outside 100-599), emptyval (a 204 with an
                       empty-valued field), badhdr (a field value that is not UTF-8), bighead
                       (a 44 KB header section), crhdr (a bare CR in a field value), emptyname (a
                       field with an empty name, `: v`), clmismatch
                       (two Content-Length fields that differ), clabc and clhex (a Content-Length
                       that is no number, `abc`, or that libcurl reads a prefix of, `0x5`),
                       cuthead and cuthead500 (the connection closed inside the header section),
                       trailercookie, trailerlocation, trailertype (a chunked body with a trailer
                       field: Set-Cookie, Location, a second Content-Type), tegzip and tedeflate
                       (Transfer-Encoding: gzip, chunked / deflate, chunked, the body so coded),
                       fold (a field value continued on a line led by spaces: obs-fold),
                       clhex3, clplus3, clbig, clbig64 (Content-Length 0x3, +3, 9999999999999999999,
                       18446744073709551616 with `abc`), cutbody, cutchunked and cutchunkedcl
                       (closed in the body: Content-Length: 9 with 5 bytes; a chunk of 9 with 5
                       bytes; the same chunk with Content-Length: 20 beside the chunked coding),
                       headchunked and headnolength (a HEAD's answer: chunked, or no framing),
                       head304, head204, headcllist and headtegzip (HEAD answers with no body
                       to frame, a list of equal lengths, a transfer coding), http09 (no status
                       line), badchunksize (a chunk size `zz`), cookieorder and cookiethree
                       (Set-Cookie in two and three spellings of its name), upgrade101 (a whole
                       `101 Switching Protocols` head to a request that asked for none, then raw
                       bytes of another protocol; tester26a-F3), status000, status099, status20,
                       status1000, status200x (no status code from 100 to 999), statusnoreason
                       (`HTTP/1.1 204` and nothing more: valid), manyfields (a header section
                       of 4,000 fields, past libcurl's 300 KiB), twoctsame, twoetag and twoctdiff
                       (Content-Type or ETag twice, with one value or two), chunkedtwice and
                       chunkedtwolines (chunked applied twice: in one field, in two), leadws and
                       leadtab (the first header line led by a space, a tab), v12 and v30 (status
                       lines of HTTP/1.2 and HTTP/3.0)
  /raw/resetmid        Content-Length: 100000, 1000 body bytes, then a reset (SO_LINGER 0)
  /stall/declaredbig   a head announcing Content-Length: 10000000000, 3 body bytes, then silence
                       until the client closes (at most 20 s; tester20a-F11.9)
  /keep/headchunked    a chunked body "hello" 0.3 s after the head whatever the method (a HEAD's
                       too), the connection kept
  /keep/poison         "hello" (Content-Length: 5), then 0.3 s later a second whole answer nobody
                       asked for ("INJECTED", X-Injected: yes) on the same connection
  /keep/utf8           {"name":"José Müller"} with a Content-Length counted in characters (2 short),
                       the body in a second write (tester23a-F1)
  /big/<MiB>           MiB bytes of "x" with a Content-Length, written a MiB at a time
anything else          as /echo
"""
import base64
import select
import socket
import gzip
import zlib
import json
import ssl
import struct
import sys
import functools
import time
from http.server import BaseHTTPRequestHandler, SimpleHTTPRequestHandler, ThreadingHTTPServer


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, format, *args):
        pass

    def read_body(self):
        if "chunked" in self.headers.get("Transfer-Encoding", "").lower():
            body = b""
            while True:
                size = int(self.rfile.readline().split(b";")[0].strip(), 16)
                if size == 0:
                    while self.rfile.readline() not in (b"\r\n", b"\n", b""):
                        pass
                    return body, True
                body += self.rfile.read(size)
                self.rfile.readline()
        length = int(self.headers.get("Content-Length", "0") or 0)
        return self.rfile.read(length), False

    def send(self, status, body, headers=()):
        self.send_response(status)
        for name, value in headers:
            self.send_header(name, value)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(body)

    def answer(self):
        body, chunked = self.read_body()
        path = self.path.split("?")[0]
        if path.endswith("/gzip"):
            payload = json.dumps({"compressed": True, "text": "hello " * 200}).encode()
            return self.send(200, gzip.compress(payload), [("Content-Type", "application/json"), ("Content-Encoding", "gzip")])
        if path.endswith("/binary"):
            return self.send(200, bytes(range(256)), [("Content-Type", "application/octet-stream")])
        if path.endswith("/redirect"):
            return self.send(302, b"moved", [("Location", "/echo/elsewhere"), ("Content-Type", "text/plain")])
        if path.startswith(("/moved/", "/base/moved/")) and self.headers.get("X-Location") is not None:
            return self.send(301, b"moved", [("Location", self.headers.get("X-Location")), ("Content-Type", "text/plain")])
        if "/status/" in path:
            code = int(path.rsplit("/", 1)[1])
            return self.send(code, ("status %d" % code).encode(), [("Content-Type", "text/plain"), ("X-Upstream", "yes")])
        if "/slow/" in path:
            time.sleep(float(path.rsplit("/", 1)[1]))
            return self.send(200, b"slow", [("Content-Type", "text/plain")])
        if "/hold/" in path:
            return self.hold(path, float(path.rsplit("/", 1)[1]))
        if path.endswith("/abandoned"):
            return self.send(200, json.dumps(ABANDONED).encode(), [("Content-Type", "application/json")])
        if "/bigheader/" in path:
            return self.send(200, b"big", [("X-Big", "b" * int(path.rsplit("/", 1)[1]))])
        if path == "/raw/resetmid":  # 1000 of 100000 body bytes, then a reset (tester20a-F5)
            self.wfile.write(b"HTTP/1.1 200 OK\r\nContent-Length: 100000\r\n\r\n" + b"r" * 1000)
            self.wfile.flush()
            time.sleep(0.1)
            self.connection.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
            self.connection.close()
            self.close_connection = True
            return
        if path == "/stall/declaredbig":  # a body no limit admits, announced, then a stall (tester20a-F11.9)
            self.wfile.write(b"HTTP/1.1 200 OK\r\nContent-Length: 10000000000\r\n\r\nabc")
            self.wfile.flush()
            readable, _, _ = select.select([self.connection], [], [], 20)
            self.close_connection = True
            return
        if path in STALLS:  # part of an answer, then silence (tester64a-F5)
            self.wfile.write(STALLS[path])
            self.wfile.flush()
            select.select([self.connection], [], [], 20)
            self.close_connection = True
            return
        if path.startswith("/big/"):  # a long answer to stop a server during (tester23a-F3)
            size = int(path.rsplit("/", 1)[1]) << 20
            self.send_response(200)
            self.send_header("Content-Length", str(size))
            self.end_headers()
            try:
                for _ in range(size >> 20):
                    self.wfile.write(b"x" * (1 << 20))
            except OSError:
                self.close_connection = True
            return
        if path in ("/keep/poison", "/keep/utf8"):  # bytes after a complete answer (tester23a-F1)
            try:
                if path == "/keep/poison":
                    self.wfile.write(b"HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: 5\r\n\r\nhello")
                    self.wfile.flush()
                    time.sleep(0.3)
                    self.wfile.write(b"HTTP/1.1 200 OK\r\nContent-Length: 8\r\nX-Injected: yes\r\n\r\nINJECTED")
                else:
                    body = '{"name":"Jos\u00e9 M\u00fcller"}'.encode()
                    self.wfile.write(b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n" % len(body.decode()))
                    self.wfile.flush()
                    self.wfile.write(body)
                self.wfile.flush()
            except OSError:
                self.close_connection = True  # the client closed the connection after the answer
            return
        if path == "/keep/headchunked":  # a chunked body sent even to a HEAD, the connection kept (tester20a-F4)
            self.wfile.write(b"HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nTransfer-Encoding: chunked\r\n\r\n")
            self.wfile.flush()
            time.sleep(0.3)  # after the client took the head as the whole answer and reused the connection
            self.wfile.write(b"5\r\nhello\r\n0\r\n\r\n")
            return
        if path.startswith("/raw/") and path[5:] in RAW:
            self.wfile.write(RAW[path[5:]])
            self.close_connection = True
            return
        if path.endswith("/connection-options"):
            return self.send(200, b"ok", [("Connection", "keep-alive, X-Hop"), ("X-Hop", "secret"), ("X-End", "kept")])
        if path.endswith("/cookies"):
            return self.send(200, b"{}", [("Content-Type", "application/json"), ("Set-Cookie", "a=1"),
                                           ("Set-Cookie", "b=2"), ("ETag", '"upstream-tag"')])
        echo = {
            "method": self.command, "path": self.path, "headers": [[k, v] for k, v in self.headers.items()],
            "body_base64": base64.b64encode(body).decode(), "body_length": len(body), "chunked": chunked,
            "expect": self.headers.get("Expect"), "client_port": self.client_address[1],
            "sni": getattr(self.connection, "catbird_sni", None),
        }
        # A HEAD's answer has no body: the received field names and body length go in fields.
        received = [("X-Echo-Fields", ",".join(k.lower() for k in self.headers.keys())), ("X-Echo-Body-Length", str(len(body)))]
        self.send(200, json.dumps(echo).encode(), [("Content-Type", "application/json"), ("X-Upstream", "yes")] + received)

    def hold(self, path, seconds):
        """/hold/<seconds>: 200 "held" after the wait, unless the client closes first (recorded)."""
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline:
            readable, _, _ = select.select([self.connection], [], [], 0.05)
            if readable and self.connection.recv(1, socket.MSG_PEEK) == b"":
                ABANDONED.append(path)
                self.close_connection = True
                return
        self.send(200, b"held", [("Content-Type", "text/plain")])

    do_GET = do_POST = do_PUT = do_PATCH = do_DELETE = do_HEAD = do_OPTIONS = answer


ABANDONED = []  # /hold/... paths whose client left first (list.append is atomic in CPython)

STALLS = {  # written, then nothing until the client goes (tester64a-F5: the 504 said "0 bytes received")
    "/stall/afterhead": b"HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: 10\r\n\r\nabc",
    "/stall/inhead": b"HTTP/1.1 200 OK\r\nX-A: 1\r\n",
}

RAW = {  # /raw/<name>: whole answers written as they are (try6b finding 4, try6a F1)
    # tester56a-F5: a first header line led by a space or a tab (libcurl: "A libcurl function was
    # given a bad argument"), and status lines of HTTP/1.2 and HTTP/3.0, were "upstream unreachable"
    "leadws": b"HTTP/1.1 200 OK\r\n X-Lead: 1\r\nContent-Length: 2\r\n\r\nok",
    "leadtab": b"HTTP/1.1 200 OK\r\n\tX-Lead: 1\r\nContent-Length: 2\r\n\r\nok",
    "v12": b"HTTP/1.2 200 OK\r\nContent-Length: 2\r\n\r\nok",
    "v30": b"HTTP/3.0 200 OK\r\nContent-Length: 2\r\n\r\nok",
    # tester58a-F3: HTTP/2 status lines were passed on and recorded; F4: a status line without a
    # code was blamed on its version
    "v20": b"HTTP/2.0 200 OK\r\nContent-Length: 2\r\n\r\nok",
    "v2": b"HTTP/2 299 OK\r\nContent-Length: 2\r\n\r\nok",
    "nostatus": b"HTTP/1.1 OK\r\nContent-Length: 2\r\n\r\nok",
    "abcstatus": b"HTTP/1.1 abc OK\r\nContent-Length: 2\r\n\r\nok",
    "status999": b"HTTP/1.1 999 Weird\r\nContent-Length: 2\r\n\r\nok",
    "emptyval": b"HTTP/1.1 204 No Content\r\nX-Empty:\r\nContent-Length: 5\r\n\r\nhello",
    "badhdr": b"HTTP/1.1 200 OK\r\nX-Bin: \xff\xfe\r\nContent-Length: 2\r\n\r\nok",
    "bomhdr": b"HTTP/1.1 200 OK\r\nX-Tag: \xef\xbb\xbfv1\r\nContent-Length: 2\r\n\r\nok",  # U+FEFF first (JSONSerialization dropped it)
    # tester14's upstream stand-in (T14-F4): 400 fields of ~110 bytes, a 44 KB header section
    "bighead": b"HTTP/1.1 200 OK\r\n" + b"".join(b"X-H%d: %s\r\n" % (i, b"v" * 100) for i in range(400))
               + b"Content-Length: 2\r\n\r\nok",
    "crhdr": b"HTTP/1.1 200 OK\r\nX-A: 1\rX-B: 2\r\nContent-Length: 2\r\n\r\nok",  # a bare CR (T14-F1)
    "emptyname": b"HTTP/1.1 200 OK\r\n: v\r\nContent-Length: 2\r\n\r\nok",  # a field with no name (tester26a-F1)
    "clmismatch": b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\nContent-Length: 5\r\n\r\nhello",  # (T14-F5)
    "clabc": b"HTTP/1.1 200 OK\r\nContent-Length: abc\r\n\r\nhello",  # session 14's leftover: "upstream unreachable"
    "clhex": b"HTTP/1.1 200 OK\r\nContent-Length: 0x5\r\n\r\nhello",  # libcurl read 0: a 200 with an empty body
    # closed inside the head, no blank line (T15B-F1): went out as a complete answer, empty body
    "cuthead": b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Len",
    "cuthead500": b"HTTP/1.1 500 Internal\r\nX-A: 1\r\n",
    # tester15b's T15B-F2 values, each with `abc`: read as 0, as 3, and (past 2^63-1) until closed
    "clhex3": b"HTTP/1.1 200 OK\r\nContent-Length: 0x3\r\n\r\nabc",
    "clplus3": b"HTTP/1.1 200 OK\r\nContent-Length: +3\r\n\r\nabc",
    "clbig": b"HTTP/1.1 200 OK\r\nContent-Length: 9999999999999999999\r\n\r\nabc",
    "clbig64": b"HTTP/1.1 200 OK\r\nContent-Length: 18446744073709551616\r\n\r\nabc",
    # closed inside the body (tester15b's item: "upstream unreachable: … transfer closed with 4 bytes remaining")
    "cutbody": b"HTTP/1.1 200 OK\r\nContent-Length: 9\r\n\r\nhello",
    "cutchunked": b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n9\r\nhello",
    # the same with a Content-Length beside the chunked coding, which it overrides (RFC 9112 section 6.3)
    "cutchunkedcl": b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\nContent-Length: 20\r\n\r\n9\r\nhello",
    # a HEAD's answer whose GET is chunked or close-delimited (T15B-F8: sent on with Content-Length: 0)
    "headchunked": b"HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nTransfer-Encoding: chunked\r\n\r\n",
    "headnolength": b"HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\n\r\n",
    # HEAD answers the review found mishandled: a 304 and a 204 without Content-Length (closed
    # the connection), a list of equal lengths (lost), a transfer coding on a HEAD answer (502)
    "head304": b"HTTP/1.1 304 Not Modified\r\nETag: \"v1\"\r\n\r\n",
    "head204": b"HTTP/1.1 204 No Content\r\nX-Upstream: yes\r\n\r\n",
    "headcllist": b"HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: 5, 5\r\n\r\n",
    "headtegzip": b"HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nTransfer-Encoding: gzip, chunked\r\n\r\n",
    "fold": b"HTTP/1.1 200 OK\r\nX-Fold: a\r\n  b\r\nContent-Length: 2\r\n\r\nok",  # obs-fold (T15B-F5): "  b" was lost
    # answers that are not HTTP/1.x to be read (tester20a-F5: each was called "upstream unreachable")
    "http09": b"hello there",
    "badchunksize": b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\nhello\r\n0\r\n\r\n",
    # one field name in two spellings, then three (tester20a-F3: recorded as separate keys, replayed in another order)
    "cookieorder": b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\nset-cookie: session=old; Path=/\r\nSet-Cookie: session=new; Path=/\r\n\r\nok",
    "cookiethree": b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\nSet-Cookie: a=1\r\nset-cookie: b=2\r\nSET-COOKIE: c=3\r\n\r\nok",
    # a switch of protocols nobody asked for, its head whole (tester26a-F3: said "cut short … before the blank line")
    "upgrade101": b"HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n\r\nraw bytes after upgrade",
    # status codes that are not three digits from 100 (tester40a-F1: each was called "upstream unreachable")
    "status000": b"HTTP/1.1 000 Zero\r\nContent-Length: 5\r\n\r\nhello",
    "status099": b"HTTP/1.1 099 Low\r\nContent-Length: 5\r\n\r\nhello",
    "status20": b"HTTP/1.1 20 Short\r\nContent-Length: 5\r\n\r\nhello",
    "status1000": b"HTTP/1.1 1000 Big\r\nContent-Length: 5\r\n\r\nhello",
    # a code with a letter after its digits, which libcurl reads as 200 (tester58a-F4)
    "status200x": b"HTTP/1.1 200x OK\r\nContent-Length: 5\r\n\r\nhello",
    # no reason phrase, its space left out: a valid status line (RFC 9112 section 4)
    "statusnoreason": b"HTTP/1.1 204\r\n\r\n",
    # a field a response has once, sent twice with one value, and twice with two (tester40a-F7)
    "twoctsame": b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Type: application/json\r\nContent-Length: 2\r\n\r\n{}",
    "twoetag": b'HTTP/1.1 200 OK\r\nETag: "a"\r\nETag: "a"\r\nContent-Type: text/plain\r\nContent-Length: 2\r\n\r\nok',
    "twoctdiff": b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Type: text/html\r\nContent-Length: 2\r\n\r\n{}",
    # chunked applied twice, in one field and in two (tester40a-F10: the inner framing went out as the body)
    "chunkedtwice": b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked, chunked\r\n\r\n"
    + b"a\r\n5\r\nhello\r\n\r\n5\r\n0\r\n\r\n\r\n0\r\n\r\n",
    "chunkedtwolines": b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\nTransfer-Encoding: chunked\r\n\r\n"
    + b"a\r\n5\r\nhello\r\n\r\n5\r\n0\r\n\r\n\r\n0\r\n\r\n",
    # a complete header section past libcurl's 300 KiB in all: 4,000 fields of about 97 bytes
    # (tester40a-F6: said "cut short … inside its header section")
    "manyfields": b"HTTP/1.1 200 OK\r\n" + b"".join(b"X-Field-%04d: %s\r\n" % (n, b"v" * 80) for n in range(4000))
    + b"Content-Length: 2\r\n\r\nok",
}
RAW.update({  # a trailer field after a chunked body (T15B-F3): it was merged into the header fields
    "trailer" + name: b"HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nTransfer-Encoding: chunked\r\n\r\n"
    + b"5\r\nhello\r\n0\r\n" + field + b"\r\n\r\n"
    for name, field in [("cookie", b"Set-Cookie: evil=1"), ("location", b"Location: http://evil"),
                        ("type", b"Content-Type: text/html")]
})
RAW.update({  # a transfer coding but chunked (T15B-F16): its bytes went out as the plain body
    "te" + name: b"HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nTransfer-Encoding: " + name.encode() + b", chunked\r\n\r\n"
    + b"%x\r\n" % len(coded) + coded + b"\r\n0\r\n\r\n"
    for name, coded in [("gzip", gzip.compress(b"hello te gzip")), ("deflate", zlib.compress(b"hello te deflate"))]
})


class Server(ThreadingHTTPServer):
    request_queue_size = 256  # the default 5 drops connections when a test opens 100 at once
    daemon_threads = True


def remember_sni(connection, server_name, context):
    """ssl's SNI callback: keeps the name on the connection for the echo."""
    connection.catbird_sni = server_name


if __name__ == "__main__":
    if len(sys.argv) == 3 and sys.argv[1] == "--directory":
        files = functools.partial(SimpleHTTPRequestHandler, directory=sys.argv[2])
        server = ThreadingHTTPServer(("127.0.0.1", 0), files)
    else:
        server = Server(("127.0.0.1", 0), Handler)
    if len(sys.argv) == 4 and sys.argv[1] == "--tls":
        context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        context.load_cert_chain(sys.argv[2], sys.argv[3])
        context.sni_callback = remember_sni
        server.socket = context.wrap_socket(server.socket, server_side=True)
    print(server.server_address[1], flush=True)
    server.serve_forever()
