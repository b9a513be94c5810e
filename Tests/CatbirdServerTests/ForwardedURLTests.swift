import CatbirdServer
import CatbirdTestSupport
import Foundation
import XCTest

/// What of a request-target is forwarded, and recorded (docs/files.md#redirect-and-proxy):
/// neither the user information of a proxied URL nor a fragment. Tester finding T12-F8.
final class ForwardedURLTests: UpstreamTestCase {
    /// The `authorization` fields the echoing upstream received.
    private func authorizations(_ answer: RawResponse) -> [String] {
        (answer.object["headers"] as? [[String]] ?? []).filter { $0.first?.lowercased() == "authorization" }.compactMap { $0.last }
    }

    /// The tester's request: `GET http://user:pw@127.0.0.1:<port>/ui` through `--proxy`. libcurl
    /// made `Authorization: Basic dXNlcjpwdw==` of the user information, a field the client
    /// never sent. The user information is dropped; an `Authorization` the client sent goes as sent.
    func testUserInformationInAProxiedURLIsNotSentAsAuthorization() throws {
        let server = try TestServer { $0.proxyEnabled = true }
        let client = try server.client()
        let origin = "127.0.0.1:\(upstream.port)"
        let answer = try client.request("GET", "http://user:pw@\(origin)/ui", headers: [("Host", origin)])
        XCTAssertEqual(answer.status, 200, answer.text)
        XCTAssertEqual(answer.object["path"] as? String, "/ui")
        XCTAssertEqual(authorizations(answer), [], "\(answer.object["headers"] ?? [])")
        let sent = try client.request("GET", "http://user:pw@\(origin)/ui", headers: [("Host", origin), ("Authorization", "Bearer app")])
        XCTAssertEqual(authorizations(sent), ["Bearer app"])
        // A user alone, and no path; an `@` in the path is the path's.
        let userOnly = try client.request("GET", "http://user@\(origin)", headers: [("Host", origin)])
        XCTAssertEqual(userOnly.object["path"] as? String, "/")
        XCTAssertEqual(authorizations(userOnly), [])
        let atInPath = try client.request("GET", "http://\(origin)/a@b/ui", headers: [("Host", origin)])
        XCTAssertEqual(atInPath.object["path"] as? String, "/a@b/ui")
        let journal = try E2E.journal(client, tenant: nil)
        XCTAssertEqual(journal.first?["url"] as? String, "http://user:pw@\(origin)/ui", "journaled as received")
    }

    /// Tester finding T13-F9: through `--proxy`, `GET http:///127.0.0.1:<port>/x` was forwarded
    /// to 127.0.0.1:<port> (libcurl took the path's first segment for the host) and
    /// `GET http:///nohost` got a 502 "Could not resolve host". An `http` or `https` URI with an
    /// empty host is invalid (RFC 9110 section 4.2.1): 400 with the JSON error, journaled as
    /// received, nothing forwarded; likewise an authority of only user information or a port,
    /// and an `http:` target without `//`. A target with a host is still forwarded.
    func testAnAbsoluteTargetWithNoHostIsRefusedNotForwarded() throws {
        let server = try TestServer { $0.proxyEnabled = true }
        let client = try server.client()
        let origin = "127.0.0.1:\(upstream.port)"
        let targets = [
            "http:///\(origin)/x", "http:///nohost", "HTTP:///\(origin)/x", "https:///x", "http://", "http://?q=1", "http://#f",
            "http://user@/\(origin)/x", "http://:\(upstream.port)/x", "http://user@:\(upstream.port)/x", "http://[]/x",
            "http:/\(origin)/x",
        ]
        for target in targets {
            let raw = try server.client()
            try raw.send(raw: Array("GET \(target) HTTP/1.1\r\nHost: x\r\nX-Catbird-Parallel-Id: nohost\r\nConnection: close\r\n\r\n".utf8))
            let response = try raw.readResponse()
            XCTAssertEqual(response.status, 400, "\(target): \(response.text)")
            XCTAssertEqual(response.object["error"] as? Bool, true, "\(target): \(response.text)")
            XCTAssertTrue((response.object["reason"] as? String ?? "").contains("has no host"), "\(target): \(response.text)")
        }
        let journal = try E2E.journal(client, tenant: "nohost", once: targets.count)
        XCTAssertEqual(Set(journal.compactMap { $0["url"] as? String }), Set(targets), "journaled as received")
        XCTAssertEqual(Set(journal.compactMap { ($0["response"] as? [String: Any])?["status"] as? Int }), [400])
        XCTAssertEqual(Set(journal.compactMap { $0["answeredBy"] as? String }), ["none"], "nothing forwarded")
        let forwarded = try client.request("GET", "http://\(origin)/x", headers: [("Host", origin)])
        XCTAssertEqual(forwarded.status, 200, forwarded.text)
        XCTAssertEqual(forwarded.object["path"] as? String, "/x")
    }

    /// Tester finding T13B-F6, the exact targets: `http://[::1/x`, `http://h:-1/x` and
    /// `http://h:99999/x` were matched (404) and exported to HAR as those URLs, which no URL
    /// parser takes; through `--proxy` libcurl answered 502, and it sent
    /// `http://127.0.0.1:19850\@evil.example/c15` to evil.example (user information
    /// `127.0.0.1:19850\`). An authority outside RFC 3986 section 3.2's grammar is now refused with
    /// 400 before matching, with a reason naming what is wrong, journaled as received, forwarded
    /// nowhere, and its HAR url is the server's base plus `/` and the target (as a target of no
    /// form). Valid authorities (user information with `%XX`) are still forwarded.
    func testAnAbsoluteTargetWithAnInvalidAuthorityIsRefusedNotForwarded() throws {
        let server = try TestServer { $0.proxyEnabled = true }
        let client = try server.client()
        let cases: [(target: String, reason: String, har: String)] = [
            ("http://[::1/x", "has an IP literal that is not an IPv6 address closed by ']'", "http://x/http://[::1/x"),
            ("http://h:-1/x", #"has the port "-1", which is not a number from 0 to 65535"#, "http://x/http://h:-1/x"),
            ("http://h:99999/x", #"has the port "99999", which is not a number from 0 to 65535"#, "http://x/http://h:99999/x"),
            (#"http://127.0.0.1:19850\@evil.example/c15"#, #"holds "\\", which an authority may not"#,
             "http://x/http://127.0.0.1:19850%5C@evil.example/c15"),
            ("http://a%zz/x", #"holds "%", which an authority may not"#, "http://x/http://a%25zz/x"),
            ("http://h\u{E9}.example/x", "holds \"\u{E9}\", which an authority may not", "http://x/http://h%C3%A9.example/x"),
        ]
        for (target, reason, _) in cases {
            let raw = try server.client()
            try raw.send(raw: Array("GET \(target) HTTP/1.1\r\nHost: x\r\nX-Catbird-Parallel-Id: badauth\r\nConnection: close\r\n\r\n".utf8))
            let response = try raw.readResponse()
            XCTAssertEqual(response.status, 400, "\(target): \(response.text)")
            XCTAssertEqual(response.object["error"] as? Bool, true, "\(target): \(response.text)")
            XCTAssertTrue((response.object["reason"] as? String ?? "").contains(reason), "\(target): \(response.text)")
        }
        let journal = try E2E.journal(client, tenant: "badauth", once: cases.count)
        XCTAssertEqual(Set(journal.compactMap { $0["url"] as? String }), Set(cases.map { $0.target }), "journaled as received")
        XCTAssertEqual(Set(journal.compactMap { ($0["response"] as? [String: Any])?["status"] as? Int }), [400])
        XCTAssertEqual(Set(journal.compactMap { $0["answeredBy"] as? String }), ["none"], "nothing forwarded")
        let har = try client.request("GET", "/catbird/api/requests.har", headers: [("X-Catbird-Parallel-Id", "badauth")])
        let entries = ((har.object["log"] as? [String: Any])?["entries"] as? [[String: Any]]) ?? []
        XCTAssertEqual(Set(entries.compactMap { ($0["request"] as? [String: Any])?["url"] as? String }), Set(cases.map { $0.har }), har.text)
        let origin = "127.0.0.1:\(upstream.port)"
        for target in ["http://\(origin)/ok", "http://user:p%41ss@\(origin)/ok"] {
            let forwarded = try client.request("GET", target, headers: [("Host", origin)])
            XCTAssertEqual(forwarded.status, 200, "\(target): \(forwarded.text)")
            XCTAssertEqual(forwarded.object["path"] as? String, "/ok", target)
        }
    }

    /// The tester's related oddity: a target `/hash#frag` was forwarded as `/hash` (libcurl
    /// drops a fragment) but recorded as the file `hash#frag`, which a replayed `/hash` never
    /// finds. The fragment is part of neither: recorded as `hash`, replayed for `/hash` (and
    /// for `/hash#frag`).
    func testAFragmentIsNeitherForwardedNorPartOfTheRecordedName() throws {
        let mocks = FileManager.default.temporaryDirectory.appendingPathComponent("catbird-fragment-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: mocks) }
        let recorder = try TestServer { settings in
            settings.redirectURL = self.upstream.baseURL
            settings.recordMode = true
            settings.mocksDirectory = mocks.path
        }
        let client = try recorder.client()
        let answer = try client.request("GET", "/echo/hash#frag")
        XCTAssertEqual(answer.status, 200, answer.text)
        XCTAssertEqual(answer.object["path"] as? String, "/echo/hash")
        let root = mocks.resolvingSymlinksInPath().path
        XCTAssertEqual(try E2E.journal(client, tenant: nil).first?["filePath"] as? String, root + "/echo/hash")
        XCTAssertEqual(
            Set(try FileManager.default.contentsOfDirectory(atPath: mocks.appendingPathComponent("echo").path)),
            ["hash", "hash.catbird-response.json"])
        recorder.stop()
        upstream.stop()

        let replayer = try TestServer { $0.mocksDirectory = mocks.path }
        let replay = try replayer.client()
        for target in ["/echo/hash", "/echo/hash#frag"] {
            let replayed = try replay.request("GET", target)
            XCTAssertEqual(replayed.status, 200, "\(target): \(replayed.text)")
            XCTAssertEqual(replayed.object["path"] as? String, "/echo/hash")
        }
    }

    /// Regression (tester finding T18A-F1, its exact input): the raw bytes `GET /ü?q=日` (UTF-8,
    /// not percent-encoded) through redirect mode reached the upstream as `/%c3%bc?q=日`: libcurl
    /// rewrote the path's bytes over 0x7F in lowercase `%xx`, not the query's, while the journal
    /// showed `/ü?q=日`. The target now goes as received, in redirect and in proxy mode; a
    /// percent-encoded one stays as the client wrote it.
    func testATargetIsSentAsReceivedWithItsBytesOver0x7F() throws {
        let server = try TestServer { settings in
            settings.redirectURL = self.upstream.baseURL
            settings.proxyEnabled = true
        }
        let origin = "127.0.0.1:\(upstream.port)"
        /// What the upstream (Python, which reads the request line as ISO-8859-1) says it got.
        func received(_ target: String, host: String = "x") throws -> String? {
            let raw = try server.client()
            try raw.send(raw: Array("GET \(target) HTTP/1.1\r\nHost: \(host)\r\nConnection: close\r\n\r\n".utf8))
            let answer = try raw.readResponse()
            XCTAssertEqual(answer.status, 200, "\(target): \(answer.text)")
            return answer.object["path"] as? String
        }
        func latin1(_ text: String) -> String { String(text.utf8.map { Character(Unicode.Scalar($0)) }) }
        XCTAssertEqual(try received("/echo/ü?q=日"), latin1("/echo/ü?q=日"))
        XCTAssertEqual(try received("/echo/%C3%BC/%c3%bc?q=%E6%97%A5"), "/echo/%C3%BC/%c3%bc?q=%E6%97%A5")
        XCTAssertEqual(try received("http://\(origin)/echo/ü/x?q=ü", host: origin), latin1("/echo/ü/x?q=ü"))
        XCTAssertEqual(try received("http://\(origin)?q=1", host: origin), "/?q=1")
        let journal = try E2E.journal(try server.client(), tenant: nil)
        XCTAssertTrue(journal.contains { $0["url"] as? String == "/echo/ü?q=日" }, "journaled as received")
    }
}
