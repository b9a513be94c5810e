import CatbirdTestSupport
import Foundation
import XCTest

/// Requests refused before a handler sees them get exactly one response with our JSON error
/// shape, are journaled where the journal can hold them byte-true, and end the connection
/// (docs/protocol.md#malformed-requests).
final class MalformedRequestTests: ServerTestCase {
    /// Header sections filling most of libmicrohttpd's per-connection memory (64 to 128 KiB
    /// when it was 128 KiB; 28 to 32 KiB now) got the 431 status line and headers twice, then
    /// HTML, or nothing at all: now one JSON 431, then the connection ends.
    func testHeadsFillingTheConnectionMemoryGetOneJSON431() throws {
        for size in [29_000, 30_500, 32_000] {
            let raw = try server.client()
            try raw.send(raw: Array("GET /big HTTP/1.1\r\nHost: x\r\nX-Big: \(String(repeating: "a", count: size))\r\n\r\n".utf8))
            let response = try raw.readResponse()
            XCTAssertEqual(response.status, 431, "\(size) bytes: \(response.text)")
            XCTAssertEqual(response.header("Content-Type"), "application/json; charset=utf-8")
            XCTAssertEqual(response.object["error"] as? Bool, true)
            XCTAssertTrue((response.object["reason"] as? String ?? "").contains("28672"), response.text)
            XCTAssertEqual(response.header("Connection"), "close")
            XCTAssertEqual(raw.readToEnd(), [], "\(size) bytes: nothing may follow the one response")
        }
        let journal = try E2E.journal(client, tenant: nil)
        XCTAssertEqual(journal.map { ($0["response"] as? [String: Any])?["status"] as? Int }, [431, 431, 431])
        XCTAssertEqual(Set(journal.map { $0["url"] as? String }), ["/big"])
    }

    /// A long request-target got a 404 up to libmicrohttpd's limit, then a reset with no
    /// status line: now a JSON 414 past 8 KiB, journaled with the whole target.
    func testLongTargetGetsJSON414() throws {
        let target = "/" + String(repeating: "t", count: 20_000)
        let raw = try server.client()
        try raw.send(raw: Array("GET \(target) HTTP/1.1\r\nHost: x\r\n\r\n".utf8))
        let response = try raw.readResponse()
        XCTAssertEqual(response.status, 414, response.text)
        XCTAssertEqual(response.object["error"] as? Bool, true)
        XCTAssertEqual(raw.readToEnd(), [])
        let journal = try E2E.journal(client, tenant: nil)
        XCTAssertEqual(journal.count, 1)
        XCTAssertEqual((journal.first?["response"] as? [String: Any])?["status"] as? Int, 414)
        XCTAssertEqual(journal.first?["url"] as? String, target)
    }

    /// A query of 500 parameters (or 9,000 `&`, what the fuzz test found) got no answer at all
    /// until the idle timeout: libmicrohttpd ran out of connection memory for its records
    /// and waited for a request it had dropped. Now a JSON 414, then the connection ends;
    /// journaled with its method and headers (try6a F12: it was journaled with method `""` and
    /// no headers), except on a control route. 200 parameters are still served.
    func testQueryWithTooManyParametersGetsJSON414AtOnce() throws {
        let cases = [
            ("GET /many?\(String(repeating: "a&", count: 500)) HTTP/1.1\r\nHost: x\r\n\r\n", "more than 200 query parameters"),
            ("GET /catbird/api/requests?limit=2\(String(repeating: "&", count: 9_000))order=newest HTTP/1.1\r\nHost: x\r\nX-Catbird-Parallel-Id: p\r\n\r\n",
             "longer than 8192 bytes"),
        ]
        for (text, reason) in cases {
            let raw = try server.client()
            try raw.send(raw: Array(text.utf8))
            let response = try raw.readResponse()
            XCTAssertEqual(response.status, 414, response.text)
            XCTAssertEqual(response.header("Content-Type"), "application/json; charset=utf-8")
            XCTAssertEqual(response.header("Connection"), "close")
            XCTAssertTrue((response.object["reason"] as? String ?? "").contains(reason), response.text)
            XCTAssertEqual(raw.readToEnd(), [], "nothing may follow the one response")
        }
        // The fuzz test's exact request ends its head with a line without a colon: since
        // tester40b-F4's change the query of a long target is no longer refused before the
        // head is read, so libmicrohttpd's own 400 for that line answers it, at once, as it
        // answers the same line after a long target without a query (docs/protocol.md).
        let fuzzed = try server.client()
        try fuzzed.send(raw: Array(
            "GET /catbird/api/requests?limit=2\(String(repeating: "&", count: 9_000))order=newest HTTP/1.1\r\nHost: x\r\nX-Catbird-Para\n\r\n".utf8))
        let started = ContinuousClock.now
        XCTAssertEqual(try fuzzed.readResponse().status, 400)
        XCTAssertLessThan(ContinuousClock.now - started, .seconds(5), "answered at once, not at a timeout")
        let journal = try E2E.journal(client, tenant: nil)
        XCTAssertEqual(journal.count, 1, "the control request is not journaled")
        XCTAssertEqual((journal.first?["response"] as? [String: Any])?["status"] as? Int, 414)
        XCTAssertEqual(journal.first?["url"] as? String, "/many?" + String(repeating: "a&", count: 500))
        XCTAssertEqual(journal.first?["method"] as? String, "GET")
        // The exact report: 201 parameters `a0=1` to `a200=1`, here with a parallel id and a POST.
        let target = "/q?" + (0...200).map { "a\($0)=1" }.joined(separator: "&")
        let raw = try server.client()
        try raw.send(raw: Array("POST \(target) HTTP/1.1\r\nHost: x\r\nX-Catbird-Parallel-Id: f12\r\nX-Probe: 1\r\n\r\n".utf8))
        let refused = try raw.readResponse()
        XCTAssertEqual(refused.status, 414, refused.text)
        XCTAssertEqual(refused.object["reason"] as? String, "the request-target has more than 200 query parameters")
        let entry = try XCTUnwrap(try E2E.journal(client, tenant: "f12", once: 1).first)
        XCTAssertEqual(entry["method"] as? String, "POST")
        XCTAssertEqual(entry["url"] as? String, target, "the target as sent, every & kept")
        XCTAssertEqual(((entry["request"] as? [String: Any])?["headers"] as? [String: Any])?["X-Probe"] as? String, "1", "\(entry)")
        let allowed = try client.request("GET", "/few?" + Array(repeating: "a=1", count: 200).joined(separator: "&"))
        XCTAssertEqual(allowed.status, 404, "200 parameters are served: \(allowed.text.prefix(200))")
    }

    /// `GET /a<NUL>b` was journaled as `/a`: now refused with 400; the same for bytes that are
    /// not UTF-8. Journaled with each such byte written `%XX` and a `problem` saying so (tester
    /// finding tester38a-F2, its exact requests `/\xff\xfe` and `/q?\xe9=1`: refused, they left
    /// no entry at all, only a log line).
    func testTargetWithNULOrNonUTF8BytesIsRefusedAndJournaledWithThoseBytesEscaped() throws {
        let cases: [(target: [UInt8], url: String)] = [
            // A NUL ends the url with %00: what followed it is not kept (tester39a-F7, the exact
            // targets: libmicrohttpd had split the query in place, `/n1\0?x=1&y=2` was journaled
            // `/n1%00%00x%001%00y%002`, a space and all).
            (Array("/a".utf8) + [0] + Array("b".utf8), "/a%00"),
            (Array("/n1".utf8) + [0] + Array("?x=1&y=2".utf8), "/n1%00"),
            (Array("/n2?x=1".utf8) + [0] + Array("&y=2".utf8), "/n2?x=1%00"),
            (Array("/n5".utf8) + [0] + Array("?a=b%20c&d".utf8), "/n5%00"),
            (Array("/n6?q=".utf8) + [0xE9] + Array("&r=1".utf8), "/n6?q=%E9&r=1"),
            (Array("/n7".utf8) + [0] + Array("?x=1+2".utf8), "/n7%00"),
            ([UInt8(ascii: "/"), 0xFF, 0] + Array("?x".utf8), "/%FF%00"),
            (Array("/a".utf8) + [0xFF] + Array("b".utf8), "/a%FFb"),
            ([UInt8(ascii: "/"), 0xFF, 0xFE], "/%FF%FE"),
            (Array("/q?".utf8) + [0xE9] + Array("=1".utf8), "/q?%E9=1"),
            // Valid sequences stay as sent; a cut one, an overlong one and a surrogate are escaped byte by byte.
            (Array("/caf\u{E9}".utf8) + [0xE2, 0x84] + Array("/x".utf8), "/caf\u{E9}%E2%84/x"),
            (Array("/o".utf8) + [0xC0, 0xAF] + [0xED, 0xA0, 0x80], "/o%C0%AF%ED%A0%80"),
        ]
        for (target, _) in cases {
            let raw = try server.client()
            try raw.send(raw: Array("GET ".utf8) + target + Array(" HTTP/1.1\r\nHost: x\r\nX-Catbird-Parallel-Id: tUTF2\r\n\r\n".utf8))
            let response = try raw.readResponse()
            XCTAssertEqual(response.status, 400, response.text)
            XCTAssertTrue((response.object["reason"] as? String ?? "").contains("NUL"), response.text)
            XCTAssertEqual(raw.readToEnd(), [])
        }
        let entries = try E2E.journal(client, tenant: "tUTF2", once: cases.count)
        XCTAssertEqual(entries.map { Array(($0["url"] as? String ?? "").utf8) }, cases.map { Array($0.url.utf8) })
        for entry in entries {
            XCTAssertEqual((entry["response"] as? [String: Any])?["status"] as? Int, 400, "\(entry)")
            let problem = entry["problem"] as? String ?? ""
            XCTAssertTrue(problem.hasPrefix("the request-target held bytes that are not UTF-8, or a NUL byte: url writes each byte that is not UTF-8 as %XX"), "\(entry)")
        }
        XCTAssertEqual(try E2E.journal(client, tenant: nil).count, 0, "nothing in the default tenant")
        // A percent-encoded NUL is ordinary text and served as usual, without a problem.
        XCTAssertEqual(try client.request("GET", "/a%00b").status, 404)
        let served = try XCTUnwrap(try E2E.journal(client, tenant: nil).first)
        XCTAssertEqual(served["url"] as? String, "/a%00b")
        XCTAssertNil(served["problem"] as? String)
    }

    /// Parallel ids `a\xFF` and `a\xFE` both read as `a\u{FFFD}` and shared a tenant: now
    /// each is refused with 400, and neither creates a tenant nor a mock.
    func testParallelIdThatIsNotUTF8IsRefused() throws {
        for byte: UInt8 in [0xFF, 0xFE] {
            let body = E2E.updateAction(url: "/x", body: Array("x".utf8))
            let raw = try server.client()
            try raw.send(raw: Array("POST /catbird/api/mocks HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nX-Catbird-Parallel-Id: a".utf8)
                + [byte] + Array("\r\nContent-Length: \(body.utf8.count)\r\n\r\n\(body)".utf8))
            let answer = try raw.readResponse()
            XCTAssertEqual(answer.status, 400, answer.text)
            XCTAssertEqual(answer.object["reason"] as? String, "the X-Catbird-Parallel-Id header is not valid UTF-8")
            let served = try server.client()  // refused as its header section is read, which ends the connection
            try served.send(raw: Array("GET /x HTTP/1.1\r\nHost: x\r\nX-Catbird-Parallel-Id: a".utf8) + [byte] + Array("\r\n\r\n".utf8))
            XCTAssertEqual(try served.readResponse().status, 400)
        }
        XCTAssertEqual(try E2E.tenants(client).compactMap { $0["id"] as? String }.filter { $0.hasPrefix("a") }, [])
        XCTAssertEqual(try E2E.journal(client, tenant: "a\u{FFFD}").count, 0)
        XCTAssertEqual(try E2E.journal(client, tenant: nil).count, 0, "not journaled in the default tenant either")
        // A valid UTF-8 id works as before.
        try E2E.addMock(client, tenant: "a\u{E9}", url: "/x", body: "é")
        XCTAssertEqual(try client.request("GET", "/x", headers: E2E.tenantHeader("a\u{E9}")).text, "é")
    }

    /// Past the connection memory libmicrohttpd answers itself (HTML, no hook for the body:
    /// docs/protocol.md#malformed-requests); still exactly one status line.
    func testHeadsPastTheConnectionMemoryGetOneResponse() throws {
        for size in [40_000, 100_000] {
            let raw = try server.client()
            try raw.send(raw: Array("GET /big HTTP/1.1\r\nHost: x\r\nX-Big: \(String(repeating: "a", count: size))\r\n\r\n".utf8))
            let bytes = raw.readToEnd()
            let text = String(decoding: bytes, as: UTF8.self)
            XCTAssertTrue(text.hasPrefix("HTTP/1.1 431 "), "\(size): \(text.prefix(80))")
            XCTAssertEqual(text.components(separatedBy: "HTTP/1.1 ").count - 1, 1, "\(size): one status line")
        }
        XCTAssertEqual(try client.request("GET", "/after").status, 404, "the server goes on")
    }
}
