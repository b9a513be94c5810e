import CatbirdTestSupport
import Foundation
import XCTest

/// Field lines and methods libmicrohttpd 0.9.75 accepts although RFC 9112 says 400 are refused
/// with our JSON 400, and the journal never holds a field name that was not sent
/// (docs/protocol.md#malformed-requests; found by a new user).
final class MalformedFieldLineTests: ServerTestCase {
    /// Regression: `X-F: a` then `  folded` was journaled as `"X-Ffolded": "a"`;
    /// `X-Catbird-Parallel-Id : OTHER` was accepted, landing in the default tenant with a header
    /// named `"X-Catbird-Parallel-Id "`; the method `MéTH` was accepted.
    func testFoldedLinesNamesWithSpacesAndNonTokenMethodsGetJSON400() throws {
        try E2E.addMock(client, url: "/m", body: "served")
        let cases: [(raw: String, reason: String, method: String)] = [
            ("GET /m HTTP/1.1\r\nHost: x\r\nX-F: a\r\n  folded\r\n\r\n", "folded", "GET"),
            ("GET /m HTTP/1.1\r\nHost: x\r\n\tX-L: 1\r\n\r\n", "folded", "GET"),
            ("GET /m HTTP/1.1\r\nHost: x\r\nX-Catbird-Parallel-Id : OTHER\r\n\r\n", #""X-Catbird-Parallel-Id ""#, "GET"),
            ("GET /m HTTP/1.1\r\nHost: x\r\nX Y: 1\r\n\r\n", #""X Y""#, "GET"),
            ("MéTH /m HTTP/1.1\r\nHost: x\r\n\r\n", "method is not an HTTP token", "MéTH"),
            // tester58a-F8, its requests: the name was written with its DEL, C1 or zero-width
            // character raw, `"X-H" is not an HTTP token`.
            ("GET /m HTTP/1.1\r\nHost: x\r\nX-H\u{7F}: z\r\n\r\n", #"the header field name "X-H\u007f" is not an HTTP token"#, "GET"),
            ("GET /m HTTP/1.1\r\nHost: x\r\nX-H\u{9B}: z\r\n\r\n", #"the header field name "X-H\u009b" is not an HTTP token"#, "GET"),
            ("GET /m HTTP/1.1\r\nHost: x\r\nX-H\u{200B}: z\r\n\r\n", #"the header field name "X-H\u200b" is not an HTTP token"#, "GET"),
        ]
        for (raw, reason, _) in cases {
            let connection = try server.client()
            try connection.send(raw: Array(raw.utf8))
            let response = try connection.readResponse()
            XCTAssertEqual(response.status, 400, "\(raw.debugDescription): \(response.text)")
            XCTAssertEqual(response.header("Content-Type"), "application/json; charset=utf-8", raw.debugDescription)
            XCTAssertEqual(response.object["error"] as? Bool, true, raw.debugDescription)
            XCTAssertTrue((response.object["reason"] as? String ?? "").contains(reason), "\(raw.debugDescription): \(response.text)")
            XCTAssertEqual(response.header("Connection"), "close", raw.debugDescription)
        }
        XCTAssertEqual(try E2E.journal(client, tenant: "OTHER").count, 0, "a refused line's parallel id does not count")
        // The malformed parallel-id line's request is journaled nowhere (tester58a-F11, below).
        let journaledCases = cases.filter { !$0.raw.contains("Parallel-Id :") }
        let journal = try E2E.journal(client, tenant: nil)
        XCTAssertEqual(journal.map { $0["method"] as? String }, journaledCases.map(\.method))
        XCTAssertEqual(journal.map { ($0["response"] as? [String: Any])?["status"] as? Int }, Array(repeating: 400, count: journaledCases.count))
        // The tab-led line folds onto Host: libmicrohttpd joins it into the name `HostX-L: 1`.
        let kept = journal.map { entry in
            ((entry["request"] as? [String: Any])?["headers"] as? [String: Any] ?? [:]).keys.sorted()
        }
        XCTAssertEqual(kept, [["Host"], [], ["Host"], ["Host"], ["Host"], ["Host"], ["Host"]], "only the field lines that were sent as such")
    }

    /// Regression (tester finding tester58a-F11, its requests): a shard's request whose
    /// parallel-id line is malformed (a space or a tab before the colon, a folded line) was
    /// refused with 400 and journaled in the default tenant, which every client reads, with its
    /// query token, Authorization and Cookie. Its tenant unknown, it is now journaled nowhere
    /// (as one whose parallel id is not UTF-8); the 400 still says why.
    func testARequestWithAMalformedParallelIDLineIsJournaledNowhere() throws {
        let lines = ["X-Catbird-Parallel-Id : s1", "x-catbird-parallel-id\t: s1", "X-Catbird-Parallel-Id: s1\r\n x"]
        for line in lines {
            let connection = try server.client()
            try connection.send(raw: Array(
                ("GET /nt10?access_token=SECRET50 HTTP/1.1\r\nHost: a\r\nAuthorization: Bearer SECRET51\r\nCookie: sid=SECRET52\r\n"
                    + line + "\r\n\r\n").utf8))
            let response = try connection.readResponse()
            XCTAssertEqual(response.status, 400, "\(line.debugDescription): \(response.text)")
        }
        XCTAssertEqual(try client.request("GET", "/after").status, 404)
        let journal = try E2E.journal(client, tenant: nil, once: 1)
        XCTAssertEqual(journal.map { $0["url"] as? String }, ["/after"], "none of the three is journaled")
        for tenant in ["s1", "s1 x"] { XCTAssertEqual(try E2E.journal(client, tenant: tenant).count, 0, tenant) }
        let har = try client.request("GET", "/catbird/api/requests.har").text
        XCTAssertFalse(har.contains("SECRET5"), "the default tenant's HAR holds a shard's token")
    }

    /// Regression (tester finding tester63a-F1, its lines): a parallel-id line whose name holds a
    /// CR, VT, \x01, a quote or an `é` before the colon (or in the name), or a line with an empty
    /// name, was refused with 400 and journaled in the default tenant with the shard's query
    /// token, Authorization and Cookie: only spaces and tabs were left out when the refused name
    /// was compared. Journaled nowhere now.
    func testAParallelIDLineWithAnyByteSpoilingItsNameIsJournaledNowhere() throws {
        let lines: [[UInt8]] = [
            Array("X-Catbird-Parallel-Id\r: shard".utf8), Array("X-Catbird-Parallel-Id\u{0B}: shard".utf8),
            Array("X-Catbird-Parallel-Id\u{01}: shard".utf8), Array(#"X-Catbird-Parallel-Id": shard"#.utf8),
            Array("X-Catbird-Parallel-Id".utf8) + [0xC3, 0xA9] + Array(": shard".utf8), Array("X-Catbird\r-Parallel-Id: shard".utf8),
            Array(": shard".utf8),
        ]
        for line in lines {
            let connection = try server.client()
            try connection.send(raw: Array(
                "GET /leak?token=SECRET70 HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer SECRET71\r\nCookie: sid=SECRET72\r\n".utf8)
                + line + Array("\r\nConnection: close\r\n\r\n".utf8))
            XCTAssertEqual(try connection.readResponse().status, 400, String(decoding: line, as: UTF8.self).debugDescription)
        }
        XCTAssertEqual(try client.request("GET", "/after").status, 404)
        let journal = try E2E.journal(client, tenant: nil, once: 1)
        XCTAssertEqual(journal.map { $0["url"] as? String }, ["/after"], "none is journaled in the default tenant")
        XCTAssertFalse(try client.request("GET", "/catbird/api/requests.har").text.contains("SECRET7"))
    }

    /// Regression (tester finding tester62b-F2, its requests): a parallel id holding a NUL byte
    /// (`shard\0` + `7`) or a bare CR was refused with 400 and journaled in the default tenant with
    /// the shard's query token, Authorization and Cookie. Journaled nowhere now; a NUL in another
    /// field is still journaled in the request's tenant.
    func testAParallelIDWithANulOrABareCRIsJournaledNowhere() throws {
        let values: [[UInt8]] = [Array("shard".utf8) + [0] + Array("7".utf8), Array("leak".utf8) + [0x0D] + Array("shard".utf8)]
        for value in values {
            let connection = try server.client()
            try connection.send(raw: Array(
                "GET /nul?access_token=SECRET60 HTTP/1.1\r\nHost: a\r\nAuthorization: Bearer SECRET61\r\nCookie: sid=SECRET62\r\nX-Catbird-Parallel-Id: ".utf8)
                + value + Array("\r\n\r\n".utf8))
            let response = try connection.readResponse()
            XCTAssertEqual(response.status, 400, "\(value): \(response.text)")
        }
        let other = try server.client()
        try other.send(raw: Array("GET /othernul HTTP/1.1\r\nHost: a\r\nX-A: a".utf8) + [0] + Array("b\r\nX-Catbird-Parallel-Id: rawt\r\n\r\n".utf8))
        XCTAssertEqual(try other.readResponse().status, 400)
        XCTAssertEqual(try client.request("GET", "/after").status, 404)
        let journal = try E2E.journal(client, tenant: nil, once: 1)
        XCTAssertEqual(journal.map { $0["url"] as? String }, ["/after"], "neither is journaled in the default tenant")
        XCTAssertFalse(try client.request("GET", "/catbird/api/requests.har").text.contains("SECRET6"))
        XCTAssertEqual(try E2E.journal(client, tenant: "rawt").map { $0["url"] as? String }, ["/othernul"], "a NUL elsewhere: its tenant's")
    }

    /// Regression: `X-Bin: \xFF\xFE\x80abc` was served and journaled as `"\u{FFFD}\u{FFFD}\u{FFFD}abc"`,
    /// and ISO-8859-1's `é` (`\xE9`, what a browser's `fetch` sends for it) as `"Jos\u{FFFD}"`:
    /// the journal claimed bytes that were never sent. Now our JSON 400 naming the field, and
    /// the connection ends; journaled without that field (its value could only be held
    /// altered), logged and counted. The same value as UTF-8 is served.
    func testAHeaderValueThatIsNotUTF8GetsJSON400() throws {
        try E2E.addMock(client, url: "/v", body: "served")
        let cases: [(name: String, value: [UInt8])] = [("X-Bin", [0xFF, 0xFE, 0x80] + Array("abc".utf8)), ("X-User", Array("Jos".utf8) + [0xE9])]
        for (name, value) in cases {
            let connection = try server.client()
            try connection.send(raw: Array("GET /v HTTP/1.1\r\nHost: x\r\n\(name): ".utf8) + value + Array("\r\nX-After: 1\r\n\r\n".utf8))
            let response = try connection.readResponse()
            XCTAssertEqual(response.status, 400, "\(name): \(response.text)")
            XCTAssertEqual(response.header("Content-Type"), "application/json; charset=utf-8", name)
            XCTAssertEqual(response.object["reason"] as? String, "the value of the header field \"\(name)\" is not UTF-8 (the journal keeps header values as text): send ASCII, or percent-encode it")
            XCTAssertEqual(response.header("Connection"), "close", name)
            XCTAssertEqual(connection.readToEnd(), [], "\(name): nothing may follow the one response")
        }
        let journal = try E2E.journal(client, tenant: nil, once: cases.count)
        XCTAssertEqual(journal.map { ($0["response"] as? [String: Any])?["status"] as? Int }, [400, 400])
        let kept = journal.map { entry in ((entry["request"] as? [String: Any])?["headers"] as? [String: Any] ?? [:]).keys.sorted() }
        XCTAssertEqual(kept, [["Host", "X-After"], ["Host", "X-After"]], "the refused field is left out, the others kept")
        XCTAssertEqual(try E2E.metrics(client)[#"catbird_requests_total{answered_by="none",status_class="4xx"}"#], 2, "logged and counted")

        let utf8 = try client.request("GET", "/v", headers: [("X-User", "Jos\u{E9}")])
        XCTAssertEqual(utf8.text, "served")
        let served = try XCTUnwrap(try E2E.journal(client, tenant: nil).first { ($0["response"] as? [String: Any])?["status"] as? Int == 200 })
        XCTAssertEqual(((served["request"] as? [String: Any])?["headers"] as? [String: Any])?["X-User"] as? String, "Jos\u{E9}")
    }

    /// Methods and field names that are tokens, values with tabs and a large head in pieces are
    /// still served as sent (no false refusal from the in-place check).
    func testWellFormedLinesAreStillServed() throws {
        try E2E.addMock(client, method: "M-1.x_~", url: "/t", body: "token")
        let raw = try server.client()
        try raw.send(raw: Array("M-1.x_~ /t HTTP/1.1\r\nHost: x\r\nX-T:\tv\t\r\n".utf8))
        for index in 0..<40 {
            try raw.send(raw: Array("X-Pad-\(index): \(String(repeating: "p", count: 500))\r\n".utf8))
        }
        try raw.send(raw: Array("\r\n".utf8))
        XCTAssertEqual(try raw.readResponse().text, "token")
        let entry = try XCTUnwrap(try E2E.journal(client, tenant: nil).first)
        let headers = (entry["request"] as? [String: Any])?["headers"] as? [String: Any] ?? [:]
        XCTAssertEqual(headers["X-T"] as? String, "v")
        XCTAssertEqual(headers.count, 42)
    }

    /// Regression: libmicrohttpd 0.9.75 drops a line with an empty field name (`: v`) before
    /// Catbird sees the headers, and the request was served as if the line had not been sent.
    func testALineWithAnEmptyNameGetsJSON400() throws {
        try E2E.addMock(client, url: "/e", body: "served")
        let raw = try server.client()
        try raw.send(raw: Array("GET /e HTTP/1.1\r\nHost: x\r\n: empty\r\n\r\n".utf8))
        let response = try raw.readResponse()
        XCTAssertEqual(response.status, 400, response.text)
        XCTAssertTrue((response.object["reason"] as? String ?? "").contains(#"name """#), response.text)
    }
}
