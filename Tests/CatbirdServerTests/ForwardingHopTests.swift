import CatbirdServer
import CatbirdTestSupport
import Foundation
import XCTest

/// Forwarding's edges (docs/files.md#redirect-and-proxy): a `HEAD` answer announces the
/// upstream's `Content-Length`, the client's `Authorization` reaches the upstream unchanged, and
/// a redirect or proxy that leads back to the same Catbird is stopped with a 508 instead of
/// looping, while one Catbird forwarding to another still works.
final class ForwardingHopTests: UpstreamTestCase {
    private func url(_ port: UInt16, _ path: String) -> String { "http://127.0.0.1:\(port)\(path)" }

    /// Regression: `curl -I` through redirect mode answered `Content-Length: 0` for the
    /// upstream's 256-byte `/binary`.
    func testHeadThroughRedirectAndProxyCarriesTheUpstreamsContentLengthAndNoBody() throws {
        let server = try TestServer { settings in
            settings.redirectURL = self.upstream.baseURL
            settings.proxyEnabled = true
        }
        let redirected = try CurlClient.run(["-I", url(server.port, "/binary")])
        XCTAssertEqual(redirected.status, 200)
        XCTAssertEqual(redirected.header("Content-Length"), "256", "the size a GET gets")
        XCTAssertEqual(redirected.header("Content-Type"), "application/octet-stream")
        let proxied = try CurlClient.run(["-I", "--proxy", url(server.port, ""), "\(upstream.baseURL)/status/418"])
        XCTAssertEqual(proxied.status, 418)
        XCTAssertEqual(proxied.header("Content-Length"), "10", "\"status 418\" is 10 bytes")
        // On a kept connection, a HEAD answer has no body: the next answer is read intact.
        let client = try server.client()
        let head = try client.request("HEAD", "/binary")
        XCTAssertEqual(head.header("Content-Length"), "256")
        XCTAssertEqual(head.body, [])
        XCTAssertEqual(try client.request("GET", "/binary").body, Array(0...255))
        let entry = try XCTUnwrap(try E2E.journal(client, tenant: nil).first { $0["method"] as? String == "HEAD" })
        XCTAssertEqual((entry["response"] as? [String: Any])?["bodySize"] as? Int, 0, "the journal records what was sent: no body")
    }

    /// Tester finding T15B-F8: a `HEAD` whose upstream answer has no `Content-Length` (its `GET`
    /// is chunked, `Transfer-Encoding: chunked`, or close-delimited) went out with
    /// `Content-Length: 0`, claiming an empty representation. Now it has no `Content-Length`
    /// and no chunked framing (libmicrohttpd 0.9.75 would send a last chunk after the head):
    /// `Connection: close` ends it, for HTTP/1.1 and HTTP/1.0 clients alike, as journaled.
    func testHeadOfAnUpstreamAnswerOfNoLengthCarriesNoContentLength() throws {
        let server = try TestServer { $0.redirectURL = self.upstream.baseURL }
        let requests = [
            ("/raw/headchunked", "HTTP/1.1", ""), ("/raw/headnolength", "HTTP/1.1", ""),
            ("/raw/headchunked", "HTTP/1.0", "Connection: keep-alive\r\n"),
        ]
        for (path, version, extra) in requests {
            let client = try server.client()
            try client.send(raw: Array("HEAD \(path) \(version)\r\nHost: 127.0.0.1\r\n\(extra)\r\n".utf8))
            let head = try client.readResponse(forHead: true)
            XCTAssertEqual(head.status, 200)
            XCTAssertNil(head.header("Content-Length") ?? head.header("Transfer-Encoding"), "\(path) \(version): \(head.headers)")
            XCTAssertEqual(head.header("Connection"), "close", "\(path) \(version)")
            let (rest, closed) = client.readUntilClosed(within: 2)
            XCTAssertEqual(rest, [], "\(path) \(version): nothing after the head")
            XCTAssertTrue(closed, "\(path) \(version): the close ends the answer")
        }
        let heads = try E2E.journal(try server.client(), tenant: nil).filter { $0["method"] as? String == "HEAD" }
        XCTAssertEqual(heads.count, 3)
        for entry in heads {
            let headers = (entry["response"] as? [String: Any])?["headers"] as? [String: Any] ?? [:]
            XCTAssertNil(headers["Content-Length"] ?? headers["Transfer-Encoding"], "\(headers)")
            XCTAssertEqual(headers["Connection"] as? String, "close", "journaled as sent: \(headers)")
        }
        // An upstream HEAD answer with a length still carries it (testHeadThroughRedirect… above).
        XCTAssertEqual(try server.client().request("HEAD", "/binary").header("Content-Length"), "256")
    }

    /// Review of T15B-F8's change: a `HEAD` answered 304 or 204 without `Content-Length` went
    /// out unframed and closed its keep-alive connection (neither has a body to frame); a
    /// `Content-Length: 5, 5` (equal lengths, a valid list) was dropped, the answer unframed; a
    /// `HEAD` answer with `Transfer-Encoding: gzip, chunked` (it describes the GET's, RFC 9110
    /// section 9.3.2; no body follows) became a marked 502. The first three now keep their
    /// connection and status, and the list announces 5; the last is passed on (with no length,
    /// it is closed as testHeadOfAnUpstreamAnswerOfNoLength… says).
    func testHeadAnswersWithNoBodyToFrameKeepTheirConnection() throws {
        let server = try TestServer { $0.redirectURL = self.upstream.baseURL }
        let coded = try server.client().request("HEAD", "/raw/headtegzip")
        XCTAssertEqual(coded.status, 200, "\(coded.headers)")
        XCTAssertNil(coded.header("X-Catbird-Generated-By"), "the upstream's answer, passed on")
        let client = try server.client()
        for (path, status, length) in [
            ("/raw/head304", 304, nil), ("/raw/head204", 204, nil), ("/raw/headcllist", 200, "5"),
        ] as [(String, Int, String?)] {
            try client.send(raw: Array("HEAD \(path) HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n".utf8))
            let head = try client.readResponse(forHead: true)
            XCTAssertEqual(head.status, status, "\(path): \(head.headers)")
            XCTAssertNil(head.header("X-Catbird-Generated-By"), "\(path): the upstream's answer, passed on")
            XCTAssertNotEqual(head.header("Connection"), "close", "\(path): \(head.headers)")
            if let length { XCTAssertEqual(head.header("Content-Length"), length, path) }
        }
        // The same connection still answers after the three.
        XCTAssertEqual(try client.request("GET", "/catbird/api/health").status, 200)
    }

    /// Decision (docs/files.md#redirect-and-proxy): `Authorization` is the app's credential for
    /// the backend and is forwarded unchanged, also when Catbird has an admin token of its own.
    func testTheClientsAuthorizationReachesTheUpstreamUnchanged() throws {
        let server = try TestServer { settings in
            settings.redirectURL = self.upstream.baseURL
            settings.adminToken = "catbird-admin"
        }
        let answer = try CurlClient.run(["-H", "Authorization: Bearer app-user-token", url(server.port, "/echo/me")])
        XCTAssertEqual(answer.status, 200)
        let headers = (answer.object["headers"] as? [[String]] ?? []).filter { $0.first?.lowercased() == "authorization" }
        XCTAssertEqual(headers.map { $0.last }, ["Bearer app-user-token"])
        let basic = try CurlClient.run(["-u", "user:secret", url(server.port, "/echo/basic")])
        XCTAssertTrue(basic.text.contains("Basic dXNlcjpzZWNyZXQ="), basic.text)
    }

    /// Tester finding T14-F3, the exact call: with `--admin-token S3CRETTOKEN`, one field holding
    /// the token beside the app's credential, `Authorization: Bearer S3CRETTOKEN, Basic eA==`, went
    /// upstream whole. The element carrying the token stays back; the rest of the list goes on,
    /// and a field that held only the token is dropped.
    func testTheAdminTokenInAnAuthorizationListStaysBackAndTheRestGoesOn() throws {
        let server = try TestServer { settings in
            settings.redirectURL = self.upstream.baseURL
            settings.adminToken = "S3CRETTOKEN"
        }
        let sent: [(value: String, forwarded: [String])] = [
            ("Bearer S3CRETTOKEN, Basic eA==", ["Basic eA=="]),
            ("Basic eA==,Bearer S3CRETTOKEN", ["Basic eA=="]),
            ("Basic a, bearer   S3CRETTOKEN , Basic b", ["Basic a, Basic b"]),
            ("Bearer S3CRETTOKEN, Bearer S3CRETTOKEN", []),
            ("Bearer S3CRETTOKENX, Basic eA==", ["Bearer S3CRETTOKENX, Basic eA=="]),
        ]
        for (value, forwarded) in sent {
            let answer = try CurlClient.run(["-H", "Authorization: \(value)", url(server.port, "/t/echo")])
            XCTAssertEqual(answer.status, 200, answer.text)
            let headers = (answer.object["headers"] as? [[String]] ?? []).filter { $0.first?.lowercased() == "authorization" }
            XCTAssertEqual(headers.map { $0.last ?? "" }, forwarded, value)
            XCTAssertFalse(answer.text.contains("S3CRETTOKEN,") || answer.text.contains("S3CRETTOKEN\""), "\(value): \(answer.text)")
        }
        // Re-read: in any other form, or any other field, the token went upstream as sent.
        let other: [(name: String, value: String, forwarded: String)] = [
            ("Authorization", "Token S3CRETTOKEN", "Token [redacted]"),
            ("Authorization", "Bearer \"S3CRETTOKEN\"", "Bearer \"[redacted]\""),
            ("X-Debug", "t=S3CRETTOKEN;", "t=[redacted];"),
        ]
        for (name, value, forwarded) in other {
            let answer = try CurlClient.run(["-H", "\(name): \(value)", url(server.port, "/t/echo")])
            XCTAssertEqual(answer.status, 200, answer.text)
            let headers = (answer.object["headers"] as? [[String]] ?? []).filter { $0.first?.lowercased() == name.lowercased() }
            XCTAssertEqual(headers.map { $0.last ?? "" }, [forwarded], value)
            XCTAssertFalse(answer.text.contains("S3CRETTOKEN"), "\(value): \(answer.text)")
        }
    }

    /// Regression: `--redirect-url` naming the server's own address forwarded each request to
    /// itself until connections ran out.
    func testRedirectToItselfAnswers508InsteadOfLooping() throws {
        let port = try FreePort.next()
        let server = try TestServer { settings in
            settings.port = port
            settings.redirectURL = "http://127.0.0.1:\(port)/"
        }
        let answer = try server.client().request("GET", "/loop?x=1")
        E2E.assertError(answer, status: 508, reasonContains: "forwarding loop")
        let statuses = try E2E.journal(try server.client(), tenant: nil).compactMap { ($0["response"] as? [String: Any])?["status"] as? Int }
        XCTAssertEqual(statuses, [508, 508], "one hop back to itself, then stopped: \(statuses)")
    }

    func testProxyAndRedirectBackToItselfAnswer508() throws {
        let port = try FreePort.next()
        let server = try TestServer { settings in
            settings.port = port
            settings.proxyEnabled = true
            settings.redirectURL = "http://127.0.0.1:\(port)"
        }
        let answer = try CurlClient.run(["--proxy", url(port, ""), "http://127.0.0.1:\(port)/through-proxy"])
        XCTAssertEqual(answer.status, 508, answer.text)
        XCTAssertTrue(answer.text.contains("forwarding loop"), answer.text)
        XCTAssertEqual(try server.client().request("GET", "/catbird/api/health").status, 200, "still serving")
    }

    /// Regression: with `--proxy --redirect-url <itself> --mocks-dir d --record`, a control route
    /// asked through the proxy in absolute form was forwarded to Catbird itself and recorded as
    /// `d/127.0.0.1/catbird/api/mocks`, and Catbird's own 508 after a loop was recorded as `d/x`
    /// as if the backend had answered it.
    func testControlRoutesThroughTheProxyAndCatbirdsOwnErrorsAreNeverForwardedNorRecorded() throws {
        let port = try FreePort.next()
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("catbird-hop-record-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let server = try TestServer { settings in
            settings.port = port
            settings.proxyEnabled = true
            settings.redirectURL = "http://127.0.0.1:\(port)"
            settings.mocksDirectory = directory.path
            settings.recordMode = true
        }
        try E2E.addMock(try server.client(), url: "/listed", body: "x")
        /// The mocks' urls a `GET /catbird/api/mocks` answer lists.
        func listedURLs(_ answer: CurlClient.Response) -> [String] {
            (answer.object["mocks"] as? [[String: Any]] ?? []).compactMap { (($0["pattern"] as? [String: Any])?["url"] as? [String: Any])?["value"] as? String }
        }
        let mocks = try CurlClient.run(["--proxy", url(port, ""), url(port, "/catbird/api/mocks")])
        XCTAssertEqual(mocks.status, 200, mocks.text)
        XCTAssertEqual(listedURLs(mocks), ["/listed"], "answered by this Catbird's own route: \(mocks.text)")
        // Another host's /catbird through the proxy is never forwarded: this Catbird answers it,
        // and on loopback refuses it for its host name like `Host: api.example.invalid`
        // (docs/files.md#host-names; try9b F1), with our error; nothing is removed.
        let elsewhere = try CurlClient.run(["--proxy", url(port, ""), "http://api.example.invalid/catbird/api/mocks"])
        XCTAssertEqual(elsewhere.status, 403, elsewhere.text)
        XCTAssertTrue((elsewhere.object["reason"] as? String ?? "").hasPrefix("the Host api.example.invalid is not a name"), elsewhere.text)
        let removal = try CurlClient.run(["--proxy", url(port, ""), "-X", "DELETE", "http://api.example.invalid/catbird/api/mocks"])
        XCTAssertEqual(removal.status, 403, removal.text)
        XCTAssertEqual(removal.object["error"] as? Bool, true, removal.text)
        XCTAssertEqual(try E2E.mocks(try server.client(), tenant: nil).count, 1, "the mock is still there")
        // A change through the proxy to the server's own /catbird is its route's: refused here
        // for its unknown parameter, with our error.
        let unknown = try CurlClient.run(["--proxy", url(port, ""), "-X", "DELETE", url(port, "/catbird/api/mocks?every=1")])
        XCTAssertEqual(unknown.status, 400, unknown.text)
        XCTAssertEqual(unknown.object["reason"] as? String, #"unknown query parameter "every" (known: all)"#, unknown.text)
        XCTAssertEqual(try E2E.mocks(try server.client(), tenant: nil).count, 1, "the mock is still there")

        let loop = try CurlClient.run([url(port, "/x")])
        XCTAssertEqual(loop.status, 508, loop.text)
        XCTAssertEqual(loop.object["error"] as? Bool, true, loop.text)
        XCTAssertTrue((loop.object["reason"] as? String ?? "").contains("forwarding loop"), loop.text)
        XCTAssertNotNil(loop.header("X-Catbird-Generated-By"), "marked as Catbird's own answer")

        let journal = try E2E.journal(try server.client(), tenant: nil)
        XCTAssertEqual(journal.compactMap { $0["url"] as? String }, ["/x", "/x"], "control calls are not journaled; the loop's two hops are")
        let files = FileManager.default.enumerator(atPath: directory.path)?.allObjects as? [String] ?? []
        XCTAssertEqual(files, [], "nothing recorded: \(files)")
    }

    /// Regression (try6a F7): `--proxy --record` without a redirect URL, and
    /// `curl --proxy <catbird> http://<catbird>/foo`: the hop back to itself (origin form, not
    /// forwarded again) was answered with Catbird's own 404 "no mock matched", which the first
    /// hop recorded as `127.0.0.1/foo` with status 404, as if a backend had said it. A request
    /// that came round from this Catbird and that nothing here answers is now the loop's 508,
    /// marked as Catbird's own, and not recorded.
    func testProxyToItselfWithoutARedirectIsA508AndNotRecorded() throws {
        let port = try FreePort.next()
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("catbird-hop-self-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let server = try TestServer { settings in
            settings.port = port
            settings.proxyEnabled = true
            settings.mocksDirectory = directory.path
            settings.recordMode = true
        }
        let answer = try CurlClient.run(["--proxy", url(port, ""), url(port, "/foo")])
        XCTAssertEqual(answer.status, 508, answer.text)
        XCTAssertTrue((answer.object["reason"] as? String ?? "").contains("forwarding loop"), answer.text)
        XCTAssertNotNil(answer.header("X-Catbird-Generated-By"), "marked as Catbird's own answer")
        let files = FileManager.default.enumerator(atPath: directory.path)?.allObjects as? [String] ?? []
        XCTAssertEqual(files, [], "nothing recorded: \(files)")
        let journal = try E2E.journal(try server.client(), tenant: nil)
        XCTAssertEqual(journal.compactMap { ($0["response"] as? [String: Any])?["status"] as? Int }, [508, 508], "\(journal)")
        // A mock still answers the hop back: only a miss is the loop's.
        try E2E.addMock(try server.client(), url: "/mocked", body: "from the mock")
        XCTAssertEqual(try CurlClient.run(["--proxy", url(port, ""), url(port, "/mocked")]).text, "from the mock")
    }

    func testOneCatbirdMayForwardToAnother() throws {
        let backend = try TestServer()
        try E2E.addMock(try backend.client(), url: "/from-b", body: "answered by B")
        let front = try TestServer { settings in settings.redirectURL = "http://127.0.0.1:\(backend.port)" }
        let answer = try CurlClient.run(["-H", "Via: 1.1 some-gateway", url(front.port, "/from-b")])
        XCTAssertEqual(answer.status, 200)
        XCTAssertEqual(answer.text, "answered by B")
        let seen = try XCTUnwrap(try E2E.journal(try backend.client(), tenant: nil).last)
        let via = ((seen["request"] as? [String: Any])?["headers"] as? [String: String])?["Via"] ?? ""
        XCTAssertTrue(E2E.matches(via, #"^1\.1 some-gateway, 1\.1 catbird-[0-9a-f]{8}$"#), "Via appended to: \(via)")
    }
}
