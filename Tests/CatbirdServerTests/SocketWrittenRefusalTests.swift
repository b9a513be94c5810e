import CatbirdTestSupport
import Foundation
import XCTest

/// Refusals Catbird writes on a connection's socket itself, where libmicrohttpd cannot queue an
/// answer (tester finding tester40b-F2 and F4; docs/protocol.md#malformed-requests).
final class SocketWrittenRefusalTests: XCTestCase {
    /// What came back on a connection that sent `text`, until the server closed it: the head
    /// and what followed it.
    private static func exchange(_ server: TestServer, _ text: String, within seconds: Double = 5) throws -> (head: String, after: [UInt8]) {
        let raw = try server.client()
        try raw.send(raw: Array(text.utf8))
        let bytes = raw.readUntilClosed(within: seconds).bytes
        guard let end = bytes.indices.first(where: { bytes[$0...].starts(with: Array("\r\n\r\n".utf8)) }) else {
            return (String(decoding: bytes, as: UTF8.self), [])
        }
        return (String(decoding: bytes[..<end], as: UTF8.self), Array(bytes[(end + 4)...]))
    }

    /// tester40b-F4: a request-target over 8 KiB with a query was refused as soon as its request
    /// line was read, before its method was known: a `HEAD` got the JSON body after the head,
    /// and every such request was journaled with `method` `""` in the default tenant. Its query
    /// is now left unparsed and the request refused once its head is read: the `HEAD` gets the
    /// head alone, and both are journaled with their method in their tenant.
    func testALongTargetWithAQueryIsRefusedWithItsMethodAndNoBodyToAHEAD() throws {
        let server = try TestServer()
        defer { server.removeFiles() }
        let target = "/q?" + String(repeating: "a", count: 9_000) + "&b=?c"
        let get = try Self.exchange(server, "GET \(target) HTTP/1.1\r\nHost: a\r\nX-Catbird-Parallel-Id: f4\r\n\r\n")
        XCTAssertTrue(get.head.hasPrefix("HTTP/1.1 414 "), get.head)
        XCTAssertEqual(String(decoding: get.after, as: UTF8.self), #"{"error":true,"reason":"the request-target is longer than 8192 bytes"}"#)
        let head = try Self.exchange(server, "HEAD \(target) HTTP/1.1\r\nHost: a\r\nX-Catbird-Parallel-Id: f4\r\n\r\n")
        XCTAssertTrue(head.head.hasPrefix("HTTP/1.1 414 "), head.head)
        XCTAssertTrue(head.head.contains("Content-Length: \(get.after.count)"), head.head)
        XCTAssertEqual(head.after, [], "no body after the head of an answer to HEAD")

        let journal = try E2E.journal(try server.client(), tenant: "f4", once: 2)
        XCTAssertEqual(journal.compactMap { $0["method"] as? String }.sorted(), ["GET", "HEAD"])
        XCTAssertEqual(Set(journal.compactMap { $0["url"] as? String }), [target], "the target as sent, its ? kept")
        XCTAssertEqual(journal.compactMap { ($0["response"] as? [String: Any])?["status"] as? Int }, [414, 414])
    }

    /// tester40b-F4's other two: the JSON 408 of a body that stopped arriving and the JSON 413
    /// of a chunk-size line too long for the connection memory, both written on the socket,
    /// carried their body to a `HEAD`.
    func testTheSocketWritten408And413GoToAHEADWithoutTheirBody() throws {
        let server = try TestServer { $0.headTimeout = .seconds(1) }
        defer { server.removeFiles() }
        let stalled = try Self.exchange(server, "HEAD /e HTTP/1.1\r\nHost: a\r\nContent-Length: 10\r\n\r\nabc", within: 6)
        XCTAssertTrue(stalled.head.hasPrefix("HTTP/1.1 408 "), stalled.head)
        XCTAssertFalse(stalled.head.contains("Content-Length: 0\r"), stalled.head)
        XCTAssertEqual(stalled.after, [], "no body after the head of an answer to HEAD")
        let getStalled = try Self.exchange(server, "GET /e HTTP/1.1\r\nHost: a\r\nContent-Length: 10\r\n\r\nabc", within: 6)
        XCTAssertTrue(getStalled.head.hasPrefix("HTTP/1.1 408 "), getStalled.head)
        XCTAssertTrue(String(decoding: getStalled.after, as: UTF8.self).contains("received no byte for 1 second"), "\(getStalled)")

        let chunkLine = "Transfer-Encoding: chunked\r\n\r\n3;" + String(repeating: "e", count: 40_000) + "\r\nabc\r\n0\r\n\r\n"
        let long = try Self.exchange(server, "HEAD /ce HTTP/1.1\r\nHost: a\r\n" + chunkLine, within: 6)
        XCTAssertTrue(long.head.hasPrefix("HTTP/1.1 413 "), long.head)
        XCTAssertEqual(long.after, [], "no body after the head of an answer to HEAD")
        let getLong = try Self.exchange(server, "GET /ce HTTP/1.1\r\nHost: a\r\n" + chunkLine, within: 6)
        XCTAssertTrue(getLong.head.hasPrefix("HTTP/1.1 413 "), getLong.head)
        XCTAssertTrue(String(decoding: getLong.after, as: UTF8.self).contains("chunk-size line"), "\(getLong)")
    }

    /// tester40b-F2: paths of about 32,330 to 32,570 bytes (the edges move with the other header
    /// bytes) got no answer at all: the head left fewer than the 256 bytes of connection memory
    /// any answer's head needs, so the connection was closed unanswered, journaled as a 431
    /// that blamed the header fields. The JSON 414 is now written on the socket. Past the band
    /// libmicrohttpd answers its own 431 and, over about 32 KiB, its 414.
    func testAPathJustShortOfTheConnectionMemoryGetsTheJSON414() throws {
        let server = try TestServer()
        defer { server.removeFiles() }
        var json = 0
        for length in stride(from: 32_200, through: 32_700, by: 20) {
            let path = "/" + String(repeating: "p", count: length - 1)
            let answer = try Self.exchange(server, "GET \(path) HTTP/1.1\r\nHost: a\r\nX-Catbird-Parallel-Id: f2\r\n\r\n")
            XCTAssertTrue(answer.head.hasPrefix("HTTP/1.1 414 ") || answer.head.hasPrefix("HTTP/1.1 431 "), "\(length): '\(answer.head.prefix(80))'")
            if String(decoding: answer.after, as: UTF8.self) == #"{"error":true,"reason":"the request-target is longer than 8192 bytes"}"# { json += 1 }
        }
        // The finding's exact length.
        let exact = try Self.exchange(server, "GET /" + String(repeating: "p", count: 32_339) + " HTTP/1.1\r\nHost: a\r\nX-Catbird-Parallel-Id: f2\r\n\r\n")
        XCTAssertTrue(exact.head.hasPrefix("HTTP/1.1 414 "), exact.head)
        XCTAssertEqual(String(decoding: exact.after, as: UTF8.self), #"{"error":true,"reason":"the request-target is longer than 8192 bytes"}"#)
        let journal = try E2E.journal(try server.client(), tenant: "f2")
        let statuses = journal.compactMap { ($0["response"] as? [String: Any])?["status"] as? Int }
        XCTAssertEqual(statuses.count, json + 1, "each JSON 414 journaled in its tenant: \(statuses)")
        XCTAssertEqual(Set(statuses), [414])
        XCTAssertTrue(journal.allSatisfy { $0["problem"] == nil || $0["problem"] is NSNull }, "\(journal.map { $0["problem"] ?? "" })")
    }
}
