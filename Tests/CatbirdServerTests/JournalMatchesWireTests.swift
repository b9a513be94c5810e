import CatbirdTestSupport
import Foundation
import XCTest

/// What the journal says was sent is what went out on the socket: every response header
/// field, those the server adds (`Date`, `Content-Length`, `Connection`) included, and no body
/// that was not sent (docs/protocol.md#what-the-journal-records).
final class JournalMatchesWireTests: ServerTestCase {
    /// Header fields read off the socket as the journal lists them: lowercased name → the
    /// values of that name joined with `, ` in the order sent (docs/protocol.md#journal).
    private func fields(_ pairs: [(name: String, value: String)]) -> [String: String] {
        var map: [String: [String]] = [:]
        for pair in pairs { map[pair.name.lowercased(), default: []].append(pair.value) }
        return map.mapValues { $0.joined(separator: ", ") }
    }

    /// The journal's `headers` object with lowercased names.
    private func fields(_ object: Any?) -> [String: String] {
        var map: [String: String] = [:]
        for (name, value) in object as? [String: Any] ?? [:] { map[name.lowercased()] = value as? String ?? "?" }
        return map
    }

    /// Sends `head` (request line and headers) on a new connection and compares the response
    /// read off the socket with the journal's newest entry.
    private func assertJournalMatchesWire(_ head: String, _ label: String, file: StaticString = #filePath, line: UInt = #line) throws {
        let raw = try server.client()
        try raw.send(raw: Array(head.utf8))
        let isHead = head.hasPrefix("HEAD ")
        let response = try raw.readResponse(forHead: isHead)
        let entry = try E2E.journal(client, tenant: nil, query: "order=newest&limit=1").first ?? [:]
        let journaled = entry["response"] as? [String: Any] ?? [:]
        XCTAssertEqual(journaled["status"] as? Int, response.status, "\(label): status", file: file, line: line)
        XCTAssertEqual(fields(journaled["headers"]), fields(response.headers), "\(label): headers", file: file, line: line)
        let body = (journaled["bodyBase64"] as? String).flatMap { Data(base64Encoded: $0) }.map { [UInt8]($0) } ?? []
        XCTAssertEqual(body, response.body, "\(label): body", file: file, line: line)
    }

    /// The mock in the issue set `Content-Length: 10` and `Transfer-Encoding: chunked` on a
    /// 3-byte body; it is now refused (``MockResponseValidationTests``). The unusual headers a
    /// mock may set are sent and journaled as they went out.
    func testJournalMatchesRawCaptureForUnusualHeaders() throws {
        try E2E.addMock(client, url: "/length", responseHeaders: ["Content-Length": "3", "Content-Type": "text/plain"], body: "abc")
        try E2E.addMock(client, url: "/close", responseHeaders: ["Connection": "close"], body: "bye")
        try E2E.addMock(client, url: "/date", responseHeaders: ["Date": "Tue, 01 Jan 2030 00:00:00 GMT"], body: "d")
        try E2E.addMock(client, url: "/repeated", responseHeaders: ["X-A": "1", "x-a": "2", "Keep-Alive": "timeout=5"], body: "r")
        try E2E.addMock(client, url: "/empty", status: 204, body: nil)
        try E2E.addMock(client, method: "HEAD", url: "/head", responseHeaders: ["X-H": "h"], body: "not sent")
        let host = "Host: x\r\n"
        try assertJournalMatchesWire("GET /length HTTP/1.1\r\n\(host)\r\n", "Content-Length")
        try assertJournalMatchesWire("GET /close HTTP/1.1\r\n\(host)\r\n", "Connection: close")
        try assertJournalMatchesWire("GET /date HTTP/1.1\r\n\(host)\r\n", "Date")
        try assertJournalMatchesWire("GET /repeated HTTP/1.1\r\n\(host)\r\n", "repeated names")
        try assertJournalMatchesWire("GET /empty HTTP/1.1\r\n\(host)\r\n", "204")
        try assertJournalMatchesWire("HEAD /head HTTP/1.1\r\n\(host)\r\n", "HEAD")
        // What the server adds for the client's connection handling.
        try assertJournalMatchesWire("GET /length HTTP/1.1\r\n\(host)Connection: close\r\n\r\n", "request Connection: close")
        try assertJournalMatchesWire("GET /length HTTP/1.0\r\n\r\n", "HTTP/1.0")
        try assertJournalMatchesWire("GET /length HTTP/1.0\r\nConnection: keep-alive\r\n\r\n", "HTTP/1.0 keep-alive")
        // A mock whose fields all go out as given: the hits of one second share its journaled
        // fields when the server adds only Content-Length, and not when it adds Connection too.
        try E2E.addMock(client, url: "/plain", responseHeaders: ["Content-Type": "text/plain"], body: "p")
        try assertJournalMatchesWire("GET /plain HTTP/1.1\r\n\(host)\r\n", "plain")
        try assertJournalMatchesWire("GET /plain HTTP/1.1\r\n\(host)Connection: close\r\n\r\n", "plain, request Connection: close")
        try assertJournalMatchesWire("GET /plain HTTP/1.0\r\nConnection: keep-alive\r\n\r\n", "plain, HTTP/1.0 keep-alive")
        try assertJournalMatchesWire("GET /plain HTTP/1.1\r\n\(host)Connection: keep-alive\r\n\r\n", "plain, request Connection: keep-alive")
        try assertJournalMatchesWire("GET /plain HTTP/1.1\r\n\(host)\r\n", "plain again")
        // The server's own answers.
        try assertJournalMatchesWire("GET /nothing HTTP/1.1\r\n\(host)\r\n", "404")
        // The 404's head of the second is shared (NotFoundHead); its Content-Length is each one's.
        try assertJournalMatchesWire("GET /nothing/longer/than/the/first HTTP/1.1\r\n\(host)\r\n", "404, another length")
        // Another URL of that length: the thread's journaled head of the second and length is reused.
        try assertJournalMatchesWire("GET /nothing/longer/than/the/firsT HTTP/1.1\r\n\(host)\r\n", "404, the same length again")
        try assertJournalMatchesWire("HEAD /nothing HTTP/1.1\r\n\(host)\r\n", "404 to HEAD")
        try assertJournalMatchesWire("GET /nothing HTTP/1.1\r\n\(host)Connection: close\r\n\r\n", "404, request Connection: close")
        try assertJournalMatchesWire("GET /nothing HTTP/1.0\r\n\r\n", "404, HTTP/1.0")
        try assertJournalMatchesWire("GET /nothing HTTP/1.1\r\n\(host)X-Big: \(String(repeating: "b", count: 20_000))\r\n\r\n", "431")
    }

    /// Regression (tester finding T18A-F6), the exact mock and request: a CONNECT mock's 200
    /// went out without `Content-Length` (RFC 9110 §9.3.6: the connection becomes a tunnel, the
    /// body its first bytes), but was journaled, and exported to HAR, with the `Content-Length:
    /// 7` its hits of the second share with a GET's. Siblings whose framing differs by the
    /// request or status (204, 304, HEAD of a GET mock, a CONNECT's 404 and non-2xx) agree too.
    func testJournalMatchesTheWireForAConnectsAnswerAndOtherUnframedAnswers() throws {
        let tenant = "t18-m"
        let action = #"{"type":"update","pattern":{"method":"CONNECT","url":{"kind":"equal","value":"example.com:443"}},"#
            + #""response":{"status":200,"body":"Q09OTkVDVA=="}}"#
        XCTAssertEqual(try client.json("POST", "/catbird/api/mocks", action, headers: E2E.tenantHeader(tenant)).status, 201)
        for round in 1...2 {  // the second in the same second: the shared answer
            let raw = try server.client()
            try raw.send(raw: Array("CONNECT example.com:443 HTTP/1.1\r\nHost: example.com:443\r\nX-Catbird-Parallel-Id: t18-m\r\n\r\n".utf8))
            let response = try raw.readResponse()  // no Content-Length: an empty body, the rest is tunnel data
            let tunnel = raw.readUntilQuiet(firstByteWithin: 2000, quietAfter: 300)
            XCTAssertEqual(response.status, 200)
            XCTAssertNil(response.header("Content-Length"), "RFC 9110 §9.3.6")
            XCTAssertEqual(String(decoding: tunnel, as: UTF8.self), "CONNECT", "the body goes out as the tunnel's first bytes")
            let entry = try E2E.journal(client, tenant: tenant, query: "order=newest&limit=1").first ?? [:]
            let journaled = entry["response"] as? [String: Any] ?? [:]
            XCTAssertEqual(fields(journaled["headers"]), fields(response.headers), "round \(round): the journal's fields are the wire's")
            let body = (journaled["bodyBase64"] as? String).flatMap { Data(base64Encoded: $0) }.map { [UInt8]($0) } ?? []
            XCTAssertEqual(body, tunnel, "round \(round): the bytes that went out")
        }
        let har = try client.request("GET", "/catbird/api/requests.har", headers: E2E.tenantHeader(tenant))
        XCTAssertEqual(har.status, 200, har.text)
        let entries = (har.object["log"] as? [String: Any])?["entries"] as? [[String: Any]] ?? []
        XCTAssertEqual(entries.count, 2, har.text)
        for entry in entries {
            let names = ((entry["response"] as? [String: Any])?["headers"] as? [[String: Any]] ?? []).compactMap { $0["name"] as? String }
            XCTAssertEqual(names.map { $0.lowercased() }, ["date"], "the HAR export repeats the journal: \(har.text)")
        }

        try E2E.addMock(client, method: "CONNECT", url: "other.example:443", status: 407, body: "auth")
        try E2E.addMock(client, url: "/not-modified", status: 304, body: nil)
        try E2E.addMock(client, url: "/got", body: "got")
        let host = "Host: x\r\n"
        try assertJournalMatchesWire("CONNECT other.example:443 HTTP/1.1\r\nHost: other.example:443\r\n\r\n", "CONNECT 407")
        try assertJournalMatchesWire("CONNECT nothing.example:443 HTTP/1.1\r\nHost: nothing.example:443\r\n\r\n", "CONNECT 404")
        try assertJournalMatchesWire("GET /not-modified HTTP/1.1\r\n\(host)\r\n", "304")
        try assertJournalMatchesWire("HEAD /got HTTP/1.1\r\n\(host)\r\n", "HEAD of a GET mock")
    }
}
