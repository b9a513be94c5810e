import CatbirdTestSupport
import Foundation
import XCTest

/// Requests whose request line was read but that libmicrohttpd refused itself, or that the
/// client left before they were complete, are journaled with what is known and a `problem`
/// (docs/protocol.md#what-libmicrohttpd-answers-itself). Each test sends the exact bytes that
/// used to leave no trace in the journal.
final class LibraryRefusalTests: ServerTestCase {
    private static func status(_ entry: [String: Any]) -> Int? {
        (entry["response"] as? [String: Any])?["status"] as? Int
    }

    /// A header line without a colon: libmicrohttpd's own 400 page, once, and the request was
    /// not journaled at all. Now it is: status 400, the target, no method (libmicrohttpd gives
    /// none before the header section is accepted), the reason.
    func testHeaderLineWithoutColonIsJournaled() throws {
        let answer = try E2E.exchange(server, "GET /no-colon HTTP/1.1\r\nHost: x\r\nno colon here\r\n\r\n")
        XCTAssertTrue(answer.hasPrefix("HTTP/1.1 400 "), answer)
        XCTAssertEqual(answer.components(separatedBy: "HTTP/1.1 ").count - 1, 1, "one status line: \(answer)")
        let entry = try XCTUnwrap(try E2E.journal(client, tenant: nil, once: 1).first)
        XCTAssertEqual(entry["url"] as? String, "/no-colon")
        XCTAssertEqual(entry["method"] as? String, "")
        XCTAssertEqual(Self.status(entry), 400)
        XCTAssertEqual(entry["answeredBy"] as? String, "none")
        XCTAssertEqual(((entry["response"] as? [String: Any])?["headers"] as? [String: Any])?.count, 0, "libmicrohttpd's headers are not recorded")
        XCTAssertTrue((entry["problem"] as? String ?? "").hasPrefix("libmicrohttpd refused the request with its own 400 page"), "\(entry)")
        // The listing's `method=` (empty) finds such entries, and only them (T18B note: it was
        // taken for a filter that can match nothing; docs/protocol.md#journal).
        XCTAssertEqual(try client.request("GET", "/normal").status, 404)
        let listed = try client.request("GET", "/catbird/api/requests?method=")
        XCTAssertEqual(listed.status, 200)
        let urls = (listed.object["requests"] as? [[String: Any]] ?? []).map { $0["url"] as? String }
        XCTAssertEqual(urls, ["/no-colon"], listed.text)
    }

    /// Regression (tester finding tester56a-F1, its request): shard `shard-7`'s request with a
    /// 30 KB cookie got libmicrohttpd's 431 before its header section was read, and was
    /// journaled in the default tenant with its whole target, `?access_token=SHARD7-SECRET`
    /// included, where any client without a parallel id (and its HAR export) read it. Its query
    /// is now left out, and its userinfo, and the `problem` says why; a request without either
    /// keeps it all.
    func testARefusalWhoseTenantIsUnknownKeepsNoQueryInTheDefaultJournal() throws {
        let cookie = "s=" + String(repeating: "x", count: 30_000)
        let answer = try E2E.exchange(
            server, "GET /api/me?access_token=SHARD7-SECRET HTTP/1.1\r\nHost: x\r\nX-Catbird-Parallel-Id: shard-7\r\n"
                + "Cookie: \(cookie)\r\nConnection: close\r\n\r\n")
        XCTAssertTrue(answer.hasPrefix("HTTP/1.1 431 "), String(answer.prefix(200)))
        let entry = try XCTUnwrap(try E2E.journal(client, tenant: nil, once: 1).first)
        XCTAssertEqual(entry["url"] as? String, "/api/me")
        XCTAssertEqual(entry["method"] as? String, "")
        XCTAssertTrue((entry["problem"] as? String ?? "").hasSuffix(
            "; its query left out of the url: the header section was not read, so the request's tenant is unknown and it is "
                + "journaled in the default tenant's journal, which every client reads (docs/protocol.md#what-libmicrohttpd-answers-itself)"),
            "\(entry)")
        // tester58a-F1, its request: the userinfo of an absolute-form target (a password) was kept
        // whole; tester58a-F2: the HAR read a `?…` placeholder as a query parameter named `…`.
        _ = try E2E.exchange(
            server, "GET http://user:hunter2@example.com/abs?access_token=S HTTP/1.1\r\nHost: example.com\r\n"
                + "X-Catbird-Parallel-Id: s1\r\nbadline\r\n\r\n")
        let absolute = try XCTUnwrap(try E2E.journal(client, tenant: nil, once: 2).first { ($0["url"] as? String ?? "").hasPrefix("http") })
        XCTAssertEqual(absolute["url"] as? String, "http://example.com/abs")
        XCTAssertTrue((absolute["problem"] as? String ?? "").contains("; its userinfo and query left out of the url: "), "\(absolute)")
        let har = try client.request("GET", "/catbird/api/requests.har")
        for secret in ["SHARD7-SECRET", "hunter2", "access_token", "%E2%80%A6"] {
            XCTAssertFalse(har.text.contains(secret), "the default tenant's HAR holds \(secret)")
            XCTAssertFalse(try client.request("GET", "/catbird/api/requests").text.contains(secret), secret)
        }
    }

    /// A chunk size that is not hex: libmicrohttpd's 400 after the header section was
    /// accepted, so the entry has the method, the headers and the tenant of the parallel id.
    func testMalformedChunkIsJournaledInItsTenant() throws {
        let answer = try E2E.exchange(
            server, "POST /chunked HTTP/1.1\r\nHost: x\r\nX-Catbird-Parallel-Id: lib\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n")
        XCTAssertTrue(answer.hasPrefix("HTTP/1.1 400 "), answer)
        XCTAssertEqual(answer.components(separatedBy: "HTTP/1.1 ").count - 1, 1, "one status line: \(answer)")
        let entry = try XCTUnwrap(try E2E.journal(client, tenant: "lib", once: 1).first)
        XCTAssertEqual(entry["method"] as? String, "POST")
        XCTAssertEqual(entry["url"] as? String, "/chunked")
        XCTAssertEqual(Self.status(entry), 400)
        XCTAssertEqual(((entry["request"] as? [String: Any])?["headers"] as? [String: Any])?["Transfer-Encoding"] as? String, "chunked")
        XCTAssertTrue((entry["problem"] as? String ?? "").contains("the chunked body's framing was malformed"), "\(entry)")
    }

    /// Regression (tester finding tester56b-F5, its request): whitespace before a chunk
    /// extension's `;`, which RFC 9112 allows and libmicrohttpd 0.9.75 refuses with its 400,
    /// was journaled as "a chunk size that is not hex"; the `problem` now names it too.
    func testAChunkExtensionAfterWhitespaceIsNamedInTheProblem() throws {
        let answer = try E2E.exchange(
            server, "POST /p HTTP/1.1\r\nHost: x\r\nX-Catbird-Parallel-Id: lib\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\n"
                + "3 ;x=1\r\nabc\r\n0\r\n\r\n")
        XCTAssertTrue(answer.hasPrefix("HTTP/1.1 400 "), answer)
        let entry = try XCTUnwrap(try E2E.journal(client, tenant: "lib", once: 1).first)
        XCTAssertTrue((entry["problem"] as? String ?? "").contains("whitespace before a chunk extension's ';'"), "\(entry)")
    }

    /// try10b F7: a chunked body `1\r\na\r\n0\r\n` followed by 1,190 trailer lines of about 60
    /// bytes got libmicrohttpd's 431 and was journaled as "the body was malformed"; the body
    /// was well formed, its trailer section did not fit.
    func testOversizedTrailersAreNamedAsSuch() throws {
        let trailers = (0..<1190).map { "X-Trailer-\($0): " + String(repeating: "t", count: 45) + "\r\n" }.joined()
        let answer = try E2E.exchange(
            server, "POST /trailers HTTP/1.1\r\nHost: x\r\nX-Catbird-Parallel-Id: lib\r\nTransfer-Encoding: chunked\r\n\r\n"
                + "1\r\na\r\n0\r\n" + trailers + "\r\n")
        XCTAssertTrue(answer.hasPrefix("HTTP/1.1 431 "), String(answer.prefix(200)))
        let entry = try XCTUnwrap(try E2E.journal(client, tenant: "lib", once: 1).first)
        XCTAssertEqual(entry["url"] as? String, "/trailers")
        XCTAssertEqual(Self.status(entry), 431)
        let problem = entry["problem"] as? String ?? ""
        XCTAssertTrue(problem.contains("trailer section"), problem)
        XCTAssertFalse(problem.contains("malformed"), problem)
    }

    /// Regression (tester finding tester22b-F5, its bytes): a chunk size too large for 64 bits
    /// (`FFFFFFFFFFFFFFFFFFFF`, valid hex) gets libmicrohttpd's 413 page, and was journaled as
    /// "a chunk size that is not hex". Now the problem names the size.
    func testAChunkSizePast64BitsIsNamedAsSuch() throws {
        let answer = try E2E.exchange(
            server, "POST /p HTTP/1.1\r\nHost: x\r\nX-Catbird-Parallel-Id: O\r\nTransfer-Encoding: chunked\r\n\r\n"
                + "FFFFFFFFFFFFFFFFFFFF\r\nabc\r\n0\r\n\r\n")
        XCTAssertTrue(answer.hasPrefix("HTTP/1.1 413 "), String(answer.prefix(200)))
        let entry = try XCTUnwrap(try E2E.journal(client, tenant: "O", once: 1).first)
        XCTAssertEqual(Self.status(entry), 413)
        let problem = entry["problem"] as? String ?? ""
        XCTAssertTrue(problem.contains("a chunk size of the chunked body was too large a number (past 64 bits)"), problem)
        XCTAssertFalse(problem.contains("not hex"), problem)
    }

    /// A head past the connection memory: libmicrohttpd's 431, journaled.
    func testHeadPastTheConnectionMemoryIsJournaled() throws {
        let answer = try E2E.exchange(server, "GET /huge HTTP/1.1\r\nHost: x\r\nX-Big: \(String(repeating: "a", count: 40_000))\r\n\r\n")
        XCTAssertTrue(answer.hasPrefix("HTTP/1.1 431 "), String(answer.prefix(80)))
        let entry = try XCTUnwrap(try E2E.journal(client, tenant: nil, once: 1).first)
        XCTAssertEqual(entry["url"] as? String, "/huge")
        XCTAssertEqual(Self.status(entry), 431)
        XCTAssertTrue((entry["problem"] as? String ?? "").contains("connection memory"), "\(entry)")
    }

    /// `Content-Length: -1` (or `Content-Length:  20 `, a space after the digits) and a `Cookie` of 600 empty pairs (1,200 bytes; each pair takes a
    /// record in the connection memory) are refused by libmicrohttpd 0.9.75 after it has read
    /// the header section and before Catbird is called, and its state machine then writes the
    /// head of its error page twice (docs/protocol.md#what-libmicrohttpd-answers-itself: no
    /// option or callback reaches that path). They are journaled; the doubled head is pinned
    /// here so that a libmicrohttpd that fixes it shows up: then drop
    /// `InputShape.statusesLibraryMayDoubleHeadOf` in WireFuzzTests and the docs' rows.
    func testLibraryRefusalsWithADoubledHeadAreJournaled() throws {
        let cases: [(request: String, status: Int)] = [
            ("GET /length HTTP/1.1\r\nHost: x\r\nContent-Length: -1\r\n\r\n", 400),
            // T12-F11: whitespace after the digits, which RFC 9110 section 5.5 makes no part of the value.
            ("GET /length HTTP/1.1\r\nHost: x\r\nContent-Length:  20 \r\n\r\n", 400),
            ("GET /length HTTP/1.1\r\nHost: x\r\nContent-Length: 99999999999999999999\r\n\r\n", 413),
            ("GET /cookie HTTP/1.1\r\nHost: x\r\nCookie: \(String(repeating: "a;", count: 600))\r\n\r\n", 431),
        ]
        for (request, status) in cases {
            let answer = try E2E.exchange(server, request)
            XCTAssertTrue(answer.hasPrefix("HTTP/1.1 \(status) "), answer)
            XCTAssertEqual(answer.components(separatedBy: "HTTP/1.1 \(status) ").count - 1, 2,
                           "libmicrohttpd 0.9.75 sends this head twice; once means it was fixed (see above): \(answer)")
        }
        let journal = try E2E.journal(client, tenant: nil, once: 4)
        XCTAssertEqual(journal.map(Self.status), [400, 400, 413, 431])
        XCTAssertEqual(journal.map { $0["url"] as? String }, ["/length", "/length", "/length", "/cookie"])
        XCTAssertTrue(journal.allSatisfy { ($0["problem"] as? String ?? "").hasPrefix("libmicrohttpd refused") }, "\(journal)")
        XCTAssertEqual(try client.request("GET", "/after").status, 404, "the server goes on")
    }

    /// A client that sends a request line (or a head and part of the body) and hangs up: no
    /// answer is possible; journaled as 499 with the reason, the method when the head was read.
    func testClientLeavingMidRequestIsJournaledAs499() throws {
        for text in ["GET /half HTTP/1.1\r\nHost: x\r\n", "POST /part HTTP/1.1\r\nHost: x\r\nContent-Length: 10\r\n\r\nabc"] {
            let raw = try server.client()
            try raw.send(raw: Array(text.utf8))
            usleep(100_000)  // let the server read it before the hang-up
            raw.hangUp()
            _ = try E2E.journal(client, tenant: nil, once: text.hasPrefix("GET") ? 1 : 2)
        }
        let journal = try E2E.journal(client, tenant: nil, once: 2)
        XCTAssertEqual(journal.map(Self.status), [499, 499])
        XCTAssertEqual(journal.map { $0["method"] as? String }, ["", "POST"])
        XCTAssertEqual(journal.map { $0["url"] as? String }, ["/half", "/part"])
        // Regression: the POST's 3 body bytes had arrived, but bodySize said 0. They are its body,
        // cut short of the declared 10 (tester finding tester48b-F4).
        XCTAssertEqual(journal.map { ($0["request"] as? [String: Any])?["bodySize"] as? Int }, [0, 10])
        XCTAssertEqual(journal.map { ($0["request"] as? [String: Any])?["bodyTruncated"] as? Bool }, [false, true])
        XCTAssertEqual((journal.last?["request"] as? [String: Any])?["body"] as? String, "abc")
        XCTAssertTrue(journal.allSatisfy { ($0["problem"] as? String ?? "").contains("closed the connection") }, "\(journal)")
    }

    /// What cannot be journaled: a version libmicrohttpd refuses (505) and a request line it
    /// cannot read are refused before the request line is handed over; control requests are
    /// never journaled. A request answered normally has no `problem`.
    func testRefusalsBeforeTheRequestLineAndControlRequestsAreNotJournaled() throws {
        XCTAssertTrue(try E2E.exchange(server, "GET /v HTTP/2.0\r\nHost: x\r\n\r\n").hasPrefix("HTTP/1.1 505 "))
        XCTAssertEqual(try E2E.exchange(server, "GARBAGE\r\n\r\n"), "", "closed without an answer")
        XCTAssertTrue(try E2E.exchange(server, "GET /catbird/api/requests HTTP/1.1\r\nno colon\r\n\r\n").hasPrefix("HTTP/1.1 400 "))
        XCTAssertEqual(try client.request("GET", "/normal").status, 404)
        let journal = try E2E.journal(client, tenant: nil, once: 1)
        XCTAssertEqual(journal.first?["url"] as? String, "/normal")
        XCTAssertNil(journal.first?["problem"])
    }
}
