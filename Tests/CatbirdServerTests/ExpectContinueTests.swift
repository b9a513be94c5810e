import CatbirdTestSupport
import Foundation
import XCTest

/// Tester finding T19A-F5: a control request sent with `Expect: 100-continue` got `100
/// Continue` even when its head already decided the answer (a Content-Type that is not JSON, an
/// unknown route, a method the route does not take), so the client sent its body only to have
/// it refused. The refusal now goes out instead of the 100 (RFC 9110 §10.1.1), the body is
/// never read, and the connection closes; a request the head does not decide still gets the 100.
final class ExpectContinueTests: XCTestCase {
    private static let update = #"{"type":"update","pattern":{"method":"GET","url":{"kind":"equal","value":"/x"}},"response":{"status":200,"body":"eA=="}}"#

    /// Sends `method target` with `Expect: 100-continue` and a body announced but not sent;
    /// returns the first response and whether the connection then closed.
    private func head(
        _ server: TestServer, _ method: String, _ target: String, _ fields: [(String, String)], body: String = update
    ) throws -> (response: RawResponse, closed: Bool) {
        let raw = try RawHTTPClient(port: server.port, timeoutSeconds: 5)
        var head = "\(method) \(target) HTTP/1.1\r\nExpect: 100-continue\r\nContent-Length: \(body.utf8.count)\r\n"
        if !fields.contains(where: { $0.0 == "Host" }) { head += "Host: 127.0.0.1\r\n" }
        for (name, value) in fields { head += "\(name): \(value)\r\n" }
        try raw.send(raw: Array((head + "\r\n").utf8))
        let response = try raw.readResponse()
        return (response, raw.readUntilClosed(within: 3).closed)
    }

    func testAControlRefusalDecidedByTheHeadGoesOutInsteadOf100Continue() throws {
        let server = try TestServer { $0.logLevel = .error }
        defer { server.removeFiles() }
        let json = ("Content-Type", "application/json")
        let cases: [(String, String, [(String, String)], Int, String)] = [
            // The exact failing inputs: a form Content-Type, no Content-Type, a misspelt route,
            // a method the route does not take.
            ("POST", "/catbird/api/mocks", [("Content-Type", "application/x-www-form-urlencoded")], 415, "Content-Type must be application/json"),
            ("POST", "/catbird/api/mocks", [], 415, "Content-Type must be application/json"),
            ("POST", "/catbird/api/mock", [json], 404, "did you mean POST /catbird/api/mocks?"),
            ("PUT", "/catbird/api/mocks", [json], 405, "Method Not Allowed"),
            // The other refusals a head decides: an encoded body, a route that reads no body,
            // an unknown query parameter, a Host the control routes are not answered under.
            ("POST", "/catbird/api/mocks", [json, ("Content-Encoding", "gzip")], 415, "Content-Encoding"),
            ("DELETE", "/catbird/api/requests", [json], 400, "takes no request body"),
            ("POST", "/catbird/api/requests/count?limit=3", [json], 400, "limit"),
            ("POST", "/catbird/api/mocks", [json, ("Host", "rebound.example")], 403, "not a name this server answers"),
        ]
        for (method, target, fields, status, reason) in cases {
            let (response, closed) = try head(server, method, target, fields)
            let input = "\(method) \(target) \(fields)"
            XCTAssertEqual(response.status, status, "\(input): \(response.text)")
            XCTAssertEqual(response.object["error"] as? Bool, true, "\(input): \(response.text)")
            XCTAssertTrue((response.object["reason"] as? String ?? "").contains(reason), "\(input): \(response.text)")
            XCTAssertTrue(closed, "\(input): the connection stays open for a body never read")
            if status == 405 { XCTAssertEqual(response.header("Allow"), "POST, GET, HEAD, DELETE") }
        }
        // Nothing was done: no mock was added by any of them.
        let client = try server.client()
        XCTAssertEqual(try client.request("GET", "/x").status, 404)
    }

    func testARequestTheHeadDoesNotDecideStillGets100ContinueAndIsAnswered() throws {
        let server = try TestServer { $0.logLevel = .error }
        defer { server.removeFiles() }
        let client = try RawHTTPClient(port: server.port, timeoutSeconds: 5)
        // A control update: 100, then the body, then 201; the mock answers after.
        var head = "POST /catbird/api/mocks HTTP/1.1\r\nHost: 127.0.0.1\r\nExpect: 100-continue\r\n"
        head += "Content-Type: application/json\r\nContent-Length: \(Self.update.utf8.count)\r\n\r\n"
        try client.send(raw: Array(head.utf8))
        XCTAssertEqual(try client.readResponse().status, 100)
        try client.send(raw: Array(Self.update.utf8))
        XCTAssertEqual(try client.readResponse().status, 201)
        XCTAssertEqual(try client.request("GET", "/x").text, "x")
        // A mocked route's body may be what matches it: even a request nothing matches is read.
        let body = "ping"
        head = "POST /nothing-here HTTP/1.1\r\nHost: 127.0.0.1\r\nExpect: 100-continue\r\nContent-Length: \(body.utf8.count)\r\n\r\n"
        try client.send(raw: Array(head.utf8))
        XCTAssertEqual(try client.readResponse().status, 100)
        try client.send(raw: Array(body.utf8))
        XCTAssertEqual(try client.readResponse().status, 404)
        let journal = try client.request("GET", "/catbird/api/requests")
        XCTAssertTrue(journal.text.contains(Data(body.utf8).base64EncodedString()), journal.text)
    }

    /// tester48a-F3, its exchange: `POST /once` with `Expect: 100-continue` and
    /// `Content-Length: 0` (and a GET with `Expect` and no body), each with the next request
    /// in the same write. libmicrohttpd sent `100 Continue`, refused the answer, and closed: the
    /// `limit: 1` mock was spent, the entry said the client hung up, the next request was lost.
    func testABodilessExpectRequestWithAPipelinedNextOneIsAnsweredAndTheNextToo() throws {
        let server = try TestServer { $0.logLevel = .error }
        defer { server.removeFiles() }
        let tenant = ("X-Catbird-Parallel-Id", "ex4")
        let control = try server.client()
        let once = #"{"type":"update","pattern":{"method":"POST","url":{"kind":"equal","value":"/once"},"headers":{}},"#
            + #""response":{"status":200,"headers":{},"body":"T05DRQ==","limit":1}}"#
        XCTAssertEqual(try control.request("POST", "/catbird/api/mocks", headers: [tenant, ("Content-Type", "application/json")],
                                           body: Array(once.utf8)).status, 201)
        let raw = try RawHTTPClient(port: server.port, timeoutSeconds: 5)
        let fields = "Host: x\r\nX-Catbird-Parallel-Id: ex4\r\n"
        let pipelined = "POST /once HTTP/1.1\r\n\(fields)Expect: 100-continue\r\nContent-Length: 0\r\n\r\n"
            + "GET /after HTTP/1.1\r\n\(fields)Expect: 100-continue\r\n\r\n"
            + "GET /last HTTP/1.1\r\n\(fields)Connection: close\r\n\r\n"
        try raw.send(raw: Array(pipelined.utf8))
        let read = raw.readUntilClosed(within: 5)
        let text = String(decoding: read.bytes, as: UTF8.self)
        // Each status line, wherever it starts (a JSON body runs into the next answer's).
        let statusLines = text.components(separatedBy: "HTTP/1.1 ").dropFirst().map { "HTTP/1.1 " + ($0.components(separatedBy: "\r\n").first ?? "") }
        XCTAssertEqual(statusLines, ["HTTP/1.1 100 Continue", "HTTP/1.1 200 OK", "HTTP/1.1 100 Continue", "HTTP/1.1 404 Not Found",
                                     "HTTP/1.1 404 Not Found"], text)
        XCTAssertTrue(text.contains("\r\n\r\nONCE"), text)
        let journal = try control.request("GET", "/catbird/api/requests?bodies=false", headers: [tenant])
        let entries = journal.object["requests"] as? [[String: Any]] ?? []
        XCTAssertEqual(entries.map { "\($0["method"] ?? "") \($0["url"] ?? "")" }, ["POST /once", "GET /after", "GET /last"], journal.text)
        XCTAssertEqual(entries.map { $0["problem"] as? String ?? "" }, ["", "", ""], journal.text)
    }
}
