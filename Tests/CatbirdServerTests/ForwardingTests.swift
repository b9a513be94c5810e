import CatbirdServer
import CatbirdTestSupport
import Foundation
import XCTest

/// Redirect and proxy modes against a real upstream process (`Tests/Upstream/upstream.py`),
/// with curl as the client: what reaches the upstream, what comes back, and the failures.
final class ForwardingTests: UpstreamTestCase {
    private func redirecting(to base: String? = nil, configure: (inout CatbirdServer.Settings) -> Void = { _ in }) throws -> TestServer {
        let url = base ?? upstream.baseURL
        return try TestServer { settings in
            settings.redirectURL = url
            configure(&settings)
        }
    }

    private func url(_ server: TestServer, _ path: String) -> String { "http://127.0.0.1:\(server.port)\(path)" }

    private func echoHeaders(_ response: CurlClient.Response) -> [String: String] {
        var fields: [String: String] = [:]
        for pair in response.object["headers"] as? [[String]] ?? [] where pair.count == 2 { fields[pair[0].lowercased()] = pair[1] }
        return fields
    }

    func testRedirectSendsMethodTargetHeadersAndBodyWithForwardedFields() throws {
        let server = try redirecting(to: upstream.baseURL + "/prefix/")
        let answer = try CurlClient.run([
            "-X", "PATCH", "-H", "X-Custom: kept", "-H", "X-Forwarded-For: 10.0.0.9", "-H", "Content-Type: text/plain",
            "-H", "Via: 1.0 earlier", "-H", "x-forwarded-host: spoofed.test", "-H", "X-FORWARDED-PROTO: https",
            "--data-binary", "@-", url(server, "/echo/a%20b?x=1&y=%2F"),
        ], stdin: Array("patched".utf8))
        XCTAssertEqual(answer.status, 200)
        XCTAssertEqual(answer.header("X-Upstream"), "yes")
        XCTAssertEqual(answer.object["method"] as? String, "PATCH")
        XCTAssertEqual(answer.object["path"] as? String, "/prefix/echo/a%20b?x=1&y=%2F", "joined without //, target as received")
        XCTAssertEqual(answer.object["body_base64"] as? String, Data("patched".utf8).base64EncodedString())
        let headers = echoHeaders(answer)
        XCTAssertEqual(headers["host"], "127.0.0.1:\(upstream.port)", "the upstream gets its own Host")
        XCTAssertEqual(headers["x-custom"], "kept")
        XCTAssertEqual(headers["content-type"], "text/plain")
        XCTAssertEqual(headers["x-forwarded-for"], "10.0.0.9, 127.0.0.1")
        XCTAssertEqual(headers["x-forwarded-host"], "127.0.0.1:\(server.port)")
        XCTAssertEqual(headers["x-forwarded-proto"], "http")
        XCTAssertEqual(headers["via"]?.hasPrefix("1.0 earlier, 1.1 catbird-"), true, "\(headers)")
        // Each written once: the received ones are left out, in any case, not sent beside ours.
        let names = (answer.object["headers"] as? [[String]] ?? []).compactMap { $0.first?.lowercased() }
        for name in ["x-forwarded-for", "x-forwarded-host", "x-forwarded-proto", "via"] {
            XCTAssertEqual(names.filter { $0 == name }.count, 1, "\(name) in \(names)")
        }
        XCTAssertNil(headers["expect"], "no Expect the client did not send")
        let entry = try XCTUnwrap(try E2E.journal(try server.client(), tenant: nil).last)
        XCTAssertEqual(entry["answeredBy"] as? String, "redirect")
        XCTAssertEqual((entry["response"] as? [String: Any])?["status"] as? Int, 200)
    }

    /// Tester finding try9b F8, the exact request: with `--admin-token TOPSECRET123` a request
    /// carrying `Authorization: Bearer TOPSECRET123` to a redirected path sent the token to the
    /// upstream, whose echo put it back, unredacted, in the tenant's journal.
    func testTheAdminTokenIsNeverSentUpstream() throws {
        let server = try redirecting { $0.adminToken = "TOPSECRET123" }
        let client = try server.client()
        let tenant = ("X-Catbird-Parallel-Id", "s1")
        let carrying = try client.request("GET", "/echo/x", headers: [("Authorization", "Bearer TOPSECRET123"), tenant])
        XCTAssertEqual(carrying.status, 200, carrying.text)
        XCTAssertFalse(carrying.text.contains("TOPSECRET123"), carrying.text)
        XCTAssertTrue(carrying.text.contains("s1"), "the other fields still go: \(carrying.text)")
        let appToken = try client.request("GET", "/echo/y", headers: [("Authorization", "Bearer app-token"), tenant])
        XCTAssertTrue(appToken.text.contains("Bearer app-token"), "the app's own credential goes as sent: \(appToken.text)")
        let journal = try client.request("GET", "/catbird/api/requests", headers: [tenant])
        XCTAssertEqual(journal.status, 200, journal.text)
        XCTAssertFalse(journal.text.contains("TOPSECRET123"), journal.text)
        let entries = try XCTUnwrap(journal.object["requests"] as? [[String: Any]])
        XCTAssertEqual(entries.count, 2)
        for entry in entries {
            let id = try XCTUnwrap(JSONNumber.int(entry["id"]))
            let stored = try client.request("GET", "/catbird/api/requests/\(id)/response/body", headers: [tenant])
            XCTAssertEqual(stored.status, 200, stored.text)
            XCTAssertTrue(stored.text.contains("/echo/"), "the upstream's echo is what was stored: \(stored.text)")
            XCTAssertFalse(stored.text.contains("TOPSECRET123"), stored.text)
        }
    }

    /// Tester finding T13-F1, the exact exchanges: fields a `Connection` field names are
    /// hop-by-hop (RFC 9110 §7.6.1). The upstream's `Connection: keep-alive, X-Hop` with
    /// `X-Hop: secret` reached the client (and a recording); the client's `Connection: X-Secret`
    /// with `X-Secret: 1` reached the upstream. Both are left out now; other fields still pass.
    func testFieldsNamedByConnectionAreNotForwarded() throws {
        let server = try redirecting()
        let answer = try CurlClient.run([url(server, "/connection-options")])
        XCTAssertEqual(answer.status, 200)
        XCTAssertEqual(answer.text, "ok")
        XCTAssertNil(answer.header("X-Hop"), "the upstream's connection option is not passed on")
        XCTAssertEqual(answer.header("X-End"), "kept")
        let echo = try CurlClient.run(["-H", "Connection: X-Secret", "-H", "X-Secret: 1", "-H", "X-Other: 2", url(server, "/echo/opt")])
        let headers = echoHeaders(echo)
        XCTAssertNil(headers["x-secret"], "the client's connection option is not passed on: \(headers)")
        XCTAssertEqual(headers["x-other"], "2")
        // Named after it comes (the field pass meets the option first), in another case, in a list.
        let named = try CurlClient.run([
            "-H", "X-Early: 1", "-H", "X-Other: 2", "-H", "connection: close, x-early", url(server, "/echo/opt"),
        ])
        let sent = echoHeaders(named)
        XCTAssertNil(sent["x-early"], "an option named after its field is not passed on: \(sent)")
        XCTAssertEqual(sent["x-other"], "2")
    }

    /// Each forwarded request has an upstream connection of its own, closed after its answer,
    /// and says so (`Connection: close`, RFC 9112 section 9.6): on a reused connection, bytes an
    /// upstream sent after one answer were read as the next request's answer, any tenant's
    /// (tester finding tester23a-F1; they were reused before, 47d0b62).
    func testEachForwardedRequestHasAnUpstreamConnectionOfItsOwn() throws {
        let server = try redirecting()
        let client = try server.client()
        let echoes = try (0..<3).map { _ in try client.request("GET", "/echo/reuse").object }
        let ports = echoes.map { $0["client_port"] as? Int }
        XCTAssertNotNil(ports[0])
        XCTAssertEqual(Set(ports).count, 3, "three upstream connections for three sequential requests: \(ports)")
        for echo in echoes {
            let connection = (echo["headers"] as? [[String]])?.first { $0.first?.lowercased() == "connection" }
            XCTAssertEqual(connection?.last, "close", "\(echo)")
        }
    }

    func testUpstreamStatusHeadersAndRedirectsComeBackUnchanged() throws {
        let server = try redirecting()
        let teapot = try CurlClient.run([url(server, "/status/418")])
        XCTAssertEqual(teapot.status, 418)
        XCTAssertEqual(teapot.text, "status 418")
        XCTAssertEqual(teapot.header("X-Upstream"), "yes")
        let moved = try CurlClient.run([url(server, "/redirect")])
        XCTAssertEqual(moved.status, 302, "redirects are returned, not followed")
        XCTAssertEqual(moved.header("Location"), "/echo/elsewhere")
        let cookies = try CurlClient.run([url(server, "/cookies")])
        XCTAssertEqual(cookies.headers("Set-Cookie"), ["a=1", "b=2"])
        XCTAssertEqual(cookies.header("ETag"), "\"upstream-tag\"")
        let head = try server.client().request("HEAD", "/binary")
        XCTAssertEqual(head.status, 200)
        XCTAssertEqual(head.header("Content-Type"), "application/octet-stream")
        XCTAssertEqual(head.body, [])
        // Tester finding tester46c-F1, the exact request: a HEAD with a body (`Content-Length: 5`,
        // `hello`) was answered 502 "cut short": the upstream's correct answer was read as if its
        // GET's body followed. The body is not forwarded (libcurl sends a HEAD without one).
        let headWithBody = try server.client().request("HEAD", "/binary", headers: [("Content-Type", "text/plain")], body: Array("hello".utf8))
        XCTAssertEqual(headWithBody.status, 200, headWithBody.text)
        XCTAssertEqual(headWithBody.header("Content-Type"), "application/octet-stream")
        XCTAssertEqual(headWithBody.body, [])
        // tester47a-F9: nor the fields that describe the body it goes without (`Expect:
        // 100-continue` without content breaks RFC 9110 section 10.1.1).
        let client = try server.client()
        var described = try client.request(
            "HEAD", "/echo/h3", headers: [("Expect", "100-continue"), ("Content-Encoding", "gzip"), ("X-Kept", "1")], body: Array("hello".utf8))
        if described.status == 100 { described = try client.readResponse(forHead: true) }  // the server's interim answer to the Expect
        XCTAssertEqual(described.status, 200, described.text)
        let fields = Set((described.header("X-Echo-Fields") ?? "").split(separator: ",").map(String.init))
        XCTAssertTrue(fields.contains("x-kept"), "\(fields)")
        XCTAssertTrue(fields.isDisjoint(with: ["expect", "content-encoding", "content-length", "transfer-encoding"]), "\(fields)")
        XCTAssertEqual(described.header("X-Echo-Body-Length"), "0")
    }

    /// tester49a-F3, its requests: `Expect: 100-continue` went upstream on a bodiless GET, a
    /// DELETE and a POST with `Content-Length: 0`, and on an HTTP/1.0 request (whose `Expect` a
    /// server must ignore). None carries it now; a request with content still does.
    func testExpectIsNotForwardedWithoutContent() throws {
        let server = try redirecting()
        var requests = [
            "GET /echo/e1 HTTP/1.1\r\nHost: x\r\nExpect: 100-continue\r\nConnection: close\r\n\r\n",
            "DELETE /echo/e2 HTTP/1.1\r\nHost: x\r\nExpect: 100-continue\r\nContent-Length: 0\r\nConnection: close\r\n\r\n",
            "POST /echo/e3 HTTP/1.1\r\nHost: x\r\nExpect: 100-continue\r\nContent-Length: 0\r\nConnection: close\r\n\r\n",
            "GET /echo/e4 HTTP/1.0\r\nHost: x\r\nExpect: 100-continue\r\n\r\n",
        ]
        requests.append("POST /echo/e5 HTTP/1.1\r\nHost: x\r\nExpect: 100-continue\r\nContent-Length: 5\r\nConnection: close\r\n\r\nhello")
        for (index, text) in requests.enumerated() {
            let answer = try E2E.exchange(server, text)
            let fields = answer.components(separatedBy: "\r\n").first { $0.lowercased().hasPrefix("x-echo-fields:") } ?? ""
            XCTAssertFalse(fields.isEmpty, "e\(index + 1): \(answer.prefix(300))")
            XCTAssertEqual(fields.lowercased().contains("expect"), index == 4, "e\(index + 1): \(fields)")
        }
    }

    func testBinaryAndGzipBodiesPassThroughByteForByte() throws {
        let server = try redirecting()
        XCTAssertEqual(try CurlClient.run([url(server, "/binary")]).body, Array(0...255))
        let raw = try CurlClient.run(["-H", "Accept-Encoding: gzip", url(server, "/gzip")])
        XCTAssertEqual(raw.header("Content-Encoding"), "gzip")
        XCTAssertEqual(Array(raw.body.prefix(2)), [0x1F, 0x8B], "still compressed: forwarded unchanged")
        let decoded = try CurlClient.run(["--compressed", url(server, "/gzip")])
        XCTAssertEqual(decoded.object["compressed"] as? Bool, true)
    }

    func testChunkedPutAndExpectContinueArriveIntact() throws {
        let server = try redirecting()
        var generator = SystemRandomNumberGenerator()
        let body = (0..<300_000).map { _ in UInt8.random(in: 0...255, using: &generator) }
        let chunked = try CurlClient.run(["-T", "-", "-H", "Transfer-Encoding: chunked", url(server, "/echo/put")], stdin: body)
        XCTAssertEqual(chunked.object["method"] as? String, "PUT")
        XCTAssertEqual(chunked.object["body_length"] as? Int, body.count)
        XCTAssertEqual(chunked.object["body_base64"] as? String, Data(body).base64EncodedString())
        let expecting = try CurlClient.run(
            ["-H", "Expect: 100-continue", "--data-binary", "@-", url(server, "/echo/expect")], stdin: body)
        XCTAssertEqual(expecting.status, 200)
        XCTAssertEqual(expecting.object["expect"] as? String, "100-continue")
        XCTAssertEqual(expecting.object["body_base64"] as? String, Data(body).base64EncodedString())
    }

    func testUpstreamDownIs502AndSlowIs504WithTheJSONError() throws {
        let server = try redirecting { $0.upstreamTimeout = .seconds(1) }
        let slow = try CurlClient.run([url(server, "/slow/5")])
        XCTAssertEqual(slow.status, 504)
        XCTAssertEqual(slow.object["error"] as? Bool, true)
        XCTAssertTrue((slow.object["reason"] as? String ?? "").contains("timed out"), slow.text)
        upstream.stop()
        let down = try CurlClient.run([url(server, "/echo/x")])
        XCTAssertEqual(down.status, 502)
        XCTAssertEqual(down.header("Content-Type"), "application/json; charset=utf-8")
        XCTAssertTrue((down.object["reason"] as? String ?? "").contains("upstream"), down.text)
        let entry = try XCTUnwrap(try E2E.journal(try server.client(), tenant: nil).last)
        XCTAssertEqual((entry["response"] as? [String: Any])?["status"] as? Int, 502)
    }

    /// Tester finding tester64a-F5: an upstream that sent a whole head and part of its body,
    /// then nothing, got a 504 whose reason was libcurl's `… with 0 bytes received`. The reason
    /// now says what had arrived: the head and 3 of 10 body bytes; or a head cut off by the limit.
    func testA504SaysWhatOfTheAnswerHadArrived() throws {
        let server = try redirecting { $0.upstreamTimeout = .seconds(1) }
        let afterHead = try CurlClient.run([url(server, "/stall/afterhead")])
        XCTAssertEqual(afterHead.status, 504, afterHead.text)
        let reason = afterHead.object["reason"] as? String ?? ""
        XCTAssertTrue(reason.hasPrefix("upstream timed out: upstream http://127.0.0.1:\(upstream.port)/stall/afterhead: "), reason)
        XCTAssertTrue(reason.hasSuffix(
            "; by then the upstream had sent its answer's whole head (200, 2 complete header fields) and 3 body bytes of the 10 its "
                + "Content-Length announced (libcurl counts body bytes only)"), reason)
        let inHead = try CurlClient.run([url(server, "/stall/inhead")])
        XCTAssertEqual(inHead.status, 504, inHead.text)
        XCTAssertTrue((inHead.object["reason"] as? String ?? "").hasSuffix(
            "; by then the upstream had sent its status line (200) and 1 complete header field, not the blank line that ends its head"), inHead.text)
        // Nothing at all: libcurl's message alone.
        let slow = try CurlClient.run([url(server, "/slow/3")])
        XCTAssertEqual(slow.status, 504, slow.text)
        XCTAssertFalse((slow.object["reason"] as? String ?? "").contains("by then"), slow.text)
    }

    /// Regression: an upstream answer over `--max-body-size` was reported as "upstream
    /// unreachable: upstream response body is larger than 10485760 bytes".
    func testAnUpstreamAnswerOverTheBodyLimitIs502NamedAsTooLarge() throws {
        let server = try redirecting { $0.maxBodySize = 100 }
        let big = try CurlClient.run([url(server, "/binary")])
        XCTAssertEqual(big.status, 502, big.text)
        let reason = big.object["reason"] as? String ?? ""
        XCTAssertTrue(reason.hasPrefix("upstream answer too large: its body is larger than the limit of 100 bytes"), big.text)
        XCTAssertFalse(reason.contains("unreachable"), big.text)
    }

    /// Regression (tester finding tester42b-F1): `--upstream-timeout 0.0004` was accepted (it is
    /// more than 0) but truncated to 0 ms, which libcurl reads as no timeout: a request to an
    /// upstream that never answered stayed unanswered until the server stopped. It is now at
    /// least a millisecond: the 504 at once.
    func testAnUpstreamTimeoutUnderAMillisecondStillTimesOut() throws {
        let server = try redirecting { $0.upstreamTimeout = .microseconds(400) }
        let started = ContinuousClock.now
        let slow = try CurlClient.run([url(server, "/slow/5")], timeoutSeconds: 10)
        XCTAssertEqual(slow.status, 504, slow.text)
        XCTAssertLessThan(ContinuousClock.now - started, .seconds(3), "timed out, not waited for the upstream's 5 s")
    }

    /// Regression (tester20a-F11.9): an answer whose head announces a body over the limit
    /// (`Content-Length: 10000000000`), then 3 bytes and silence, got a 504 after the whole
    /// upstream timeout; the head alone shows it cannot be taken: a 502 at once.
    func testAnAnnouncedLengthOverTheBodyLimitIs502AtTheHead() throws {
        let server = try redirecting { $0.upstreamTimeout = .seconds(15) }
        let started = ContinuousClock.now
        let big = try CurlClient.run([url(server, "/stall/declaredbig")])
        let took = ContinuousClock.now - started
        XCTAssertEqual(big.status, 502, big.text)
        let reason = big.object["reason"] as? String ?? ""
        XCTAssertTrue(reason.hasPrefix("upstream answer too large: its body is larger than the limit of "), big.text)
        XCTAssertLessThan(took, .seconds(5), "answered at the head, not after the upstream timeout")
        let entry = try XCTUnwrap(try E2E.journal(try server.client(), tenant: nil).last)
        XCTAssertEqual((entry["response"] as? [String: Any])?["status"] as? Int, 502)
    }

    /// Regression (wire6 leftover): through the proxy, an upstream's `HTTP/1.1 999 Weird` reached
    /// the client as status 999, which HTTP does not define. Now a JSON 502 saying why, its
    /// reason the journal entry's `problem`.
    func testAnUpstreamStatusOutside200To599IsAnswered502() throws {
        let server = try TestServer { $0.proxyEnabled = true }
        let weird = try CurlClient.run(["--proxy", "http://127.0.0.1:\(server.port)", "\(upstream.baseURL)/raw/status999"])
        XCTAssertEqual(weird.status, 502, weird.text)
        XCTAssertEqual(weird.header("Content-Type"), "application/json; charset=utf-8")
        let reason = "the upstream answered with status 999, which is no final HTTP status (200-599, RFC 9110 section 15): answered 502 in its place"
        XCTAssertEqual(weird.object["reason"] as? String, reason)
        let entry = try XCTUnwrap(try E2E.journal(try server.client(), tenant: nil).last)
        XCTAssertEqual((entry["response"] as? [String: Any])?["status"] as? Int, 502)
        XCTAssertEqual(entry["answeredBy"] as? String, "proxy")
        XCTAssertEqual(entry["problem"] as? String, reason)
    }

    /// Regression (tester20a-F11.1): a request in the form the running mode does not forward got
    /// a bare 404 ("… it has no mocks"); its reason now ends with the option that would forward it.
    func testARequestInTheOtherModesFormSaysWhichOptionForwardsIt() throws {
        let redirect = try redirecting()
        let absolute = try CurlClient.run(["--proxy", "http://127.0.0.1:\(redirect.port)", "\(upstream.baseURL)/plain/abs"])
        XCTAssertEqual(absolute.status, 404, absolute.text)
        XCTAssertTrue((absolute.object["reason"] as? String ?? "").hasSuffix(
            "; not forwarded: this server forwards only requests for a path, to \(upstream.baseURL); an absolute-form request "
                + "(an HTTP proxy's) is forwarded with --proxy (docs/files.md#redirect-and-proxy)"), absolute.text)
        let proxy = try TestServer { $0.proxyEnabled = true }
        let origin = try CurlClient.run([url(proxy, "/plain/origin")])
        XCTAssertEqual(origin.status, 404, origin.text)
        XCTAssertTrue((origin.object["reason"] as? String ?? "").hasSuffix(
            "; not forwarded: this server forwards only absolute-form requests (an HTTP proxy's, --proxy); a request for a "
                + "path is forwarded with --redirect-url (docs/files.md#redirect-and-proxy)"), origin.text)
        let plain = try TestServer()
        XCTAssertFalse((try CurlClient.run([url(plain, "/plain/origin")]).object["reason"] as? String ?? "?").contains("forward"))
        // tester52a-F1: `OPTIONS *` and `CONNECT host:443` got the absolute-form hint, though
        // --proxy forwards neither (a plain 404, a 501).
        for (raw, says) in [
            ("OPTIONS * HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n", "; not forwarded: a request for * (asterisk-form, OPTIONS *) asks"),
            ("CONNECT example.com:443 HTTP/1.1\r\nHost: example.com:443\r\nConnection: close\r\n\r\n",
             "; not forwarded: an authority-form request (CONNECT host:port, a tunnel for HTTPS through a proxy) is never forwarded"),
        ] {
            let client = try RawHTTPClient(port: redirect.port)
            try client.send(raw: Array(raw.utf8))
            let answer = try client.readResponse()
            XCTAssertEqual(answer.status, 404, answer.text)
            let reason = answer.object["reason"] as? String ?? ""
            XCTAssertTrue(reason.contains(says), reason)
            XCTAssertFalse(reason.contains("is forwarded with --proxy"), reason)
        }
    }

    /// Regression (tester finding tester36a-F4): with `--record --proxy` and no redirect URL, a
    /// request for a path whose file is in the mocks directory got the 404 above, which neither
    /// served the file (no file is served while recording) nor named that rule. Its reason now
    /// ends with it.
    func testARecordingProxysFourOhFourForAPathSaysFilesAreNotServedWhileRecording() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("catbird-recpo-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        try Data(#"{"local":1}"#.utf8).write(to: directory.appendingPathComponent("local.json"))
        let server = try TestServer {
            $0.proxyEnabled = true
            $0.recordMode = true
            $0.mocksDirectory = directory.path
        }
        let answer = try CurlClient.run([url(server, "/local.json")])
        XCTAssertEqual(answer.status, 404, answer.text)
        XCTAssertTrue((answer.object["reason"] as? String ?? "").hasSuffix(
            "a request for a path is forwarded with --redirect-url (docs/files.md#redirect-and-proxy); nor is a file of the mocks "
                + "directory served while recording (--record; docs/files.md#recording)"), answer.text)
    }

    func testControlRoutesAreNeverForwarded() throws {
        let server = try redirecting()
        let mocks = try CurlClient.run([url(server, "/catbird/api/mocks")])
        XCTAssertEqual(mocks.status, 200)
        XCTAssertNil(mocks.header("X-Upstream"))
        let unknown = try CurlClient.run([url(server, "/catbird/no-such-route")])
        XCTAssertEqual(unknown.status, 404)
        XCTAssertNil(unknown.header("X-Upstream"))
    }

    func testProxyModeForwardsAbsoluteFormAndRefusesConnect() throws {
        let server = try TestServer { $0.proxyEnabled = true }
        let proxy = "http://127.0.0.1:\(server.port)"
        let answer = try CurlClient.run(["--proxy", proxy, "\(upstream.baseURL)/echo/p?q=1"])
        XCTAssertEqual(answer.status, 200)
        XCTAssertEqual(answer.object["path"] as? String, "/echo/p?q=1")
        XCTAssertEqual(echoHeaders(answer)["host"], "127.0.0.1:\(upstream.port)")
        XCTAssertEqual(try CurlClient.run(["--proxy", proxy, "\(upstream.baseURL)/binary"]).body, Array(0...255))
        XCTAssertEqual(try CurlClient.run([url(server, "/echo/origin-form")]).status, 404, "no redirect URL: not forwarded")
        let entry = try XCTUnwrap(try E2E.journal(try server.client(), tenant: nil).dropLast().last)
        XCTAssertEqual(entry["answeredBy"] as? String, "proxy")
        let client = try server.client()
        try client.send(raw: Array("CONNECT example.com:443 HTTP/1.1\r\nHost: example.com:443\r\n\r\n".utf8))
        let refused = try client.readResponse()
        XCTAssertEqual(refused.status, 501)
        XCTAssertTrue(refused.text.contains("CONNECT"), refused.text)
        // Catbird's own answer in place of a tunnel's (re-read: it was unmarked, so a recording
        // Catbird in front would take it for the backend's).
        XCTAssertNotNil(refused.header("X-Catbird-Generated-By"), "marked as Catbird's own")
    }

    func testTenantMocksBeatFilesAndFilesBeatTheUpstream() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("catbird-order-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory.appendingPathComponent("echo"), withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        try Data("from file".utf8).write(to: directory.appendingPathComponent("echo/both"))
        let server = try redirecting { $0.mocksDirectory = directory.path }
        let client = try server.client()
        XCTAssertEqual(try client.request("GET", "/echo/both").text, "from file")
        XCTAssertEqual(try client.request("GET", "/echo/upstream-only").object["method"] as? String, "GET")
        try E2E.addMock(client, tenant: "p1", url: "/echo/both", body: "from mock")
        XCTAssertEqual(try client.request("GET", "/echo/both", headers: [("X-Catbird-Parallel-Id", "p1")]).text, "from mock")
        XCTAssertEqual(try client.request("GET", "/echo/both", headers: [("X-Catbird-Parallel-Id", "p2")]).text, "from file")
    }

    func testSlowUpstreamHoldsNoWorkerSoMockHitsStayFast() throws {
        let server = try redirecting { $0.threadCount = 2 }
        let client = try server.client()
        try E2E.addMock(client, url: "/fast", body: "fast")
        let waiting = try (0..<100).map { _ in try RawHTTPClient(port: server.port) }
        for parked in waiting {
            try parked.send(raw: Array("GET /slow/6 HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n".utf8))
        }
        Thread.sleep(forTimeInterval: 0.5)
        let started = ContinuousClock.now
        XCTAssertEqual(try client.request("GET", "/fast").text, "fast")
        let fresh = try server.client()
        XCTAssertEqual(try fresh.request("GET", "/fast").text, "fast")
        XCTAssertLessThan(ContinuousClock.now - started, .seconds(4), "mock hits answered while 100 forwards wait 6 s upstream")
        for parked in waiting { XCTAssertEqual(try parked.readResponse().text, "slow") }
    }
}
