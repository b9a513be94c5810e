import CatbirdTestSupport
import Foundation
import XCTest

/// try7b F3: a client that sends its request and then shuts down its sending side
/// (`shutdown(SHUT_WR)`, `nc -N`) still reads (RFC 9112 section 9.6), but got no answer for a
/// delayed mock (closed at once, 0 bytes, journaled 499), a long poll or a wait: its end of
/// stream was taken for a hang-up. Now such a client is sent `100 Continue` while it waits, and
/// its answer when it is due; one that hangs up for real is still let go at once
/// (``AbandonedDelayTests``; docs/protocol.md#delays).
final class HalfClosedClientTests: XCTestCase {
    private static let tenant = [("X-Catbird-Parallel-Id", "hc")]
    private static let interim = "HTTP/1.1 100 Continue\r\n\r\n"

    /// Sends `request` on a new connection, half-closes it, and reads until the server closes.
    private func halfClosedExchange(_ server: TestServer, _ request: String, within seconds: Double = 8) throws -> String {
        let client = try server.client()
        try client.send(raw: Array(request.utf8))
        client.halfClose()
        let (bytes, closed) = client.readUntilClosed(within: seconds)
        XCTAssertTrue(closed, "the server closed the connection after its answer")
        return String(decoding: bytes, as: UTF8.self)
    }

    /// The finding's inputs: mocks `/now` and `/slow` (`delay: 2`) in tenant `hc`.
    func testAHalfClosedClientGetsADelayedMocksAnswer() throws {
        let server = try TestServer()
        defer { server.removeFiles() }
        let control = try server.client()
        try E2E.addMock(control, tenant: "hc", url: "/now", body: "now")
        try E2E.addMock(control, tenant: "hc", url: "/slow", body: "slow", delay: 2)

        let now = try halfClosedExchange(server, "GET /now HTTP/1.1\r\nHost: x\r\nX-Catbird-Parallel-Id: hc\r\n\r\n")
        XCTAssertTrue(now.hasPrefix("HTTP/1.1 200 OK\r\n") && now.hasSuffix("\r\n\r\nnow"), now)
        let started = ContinuousClock.now
        let slow = try halfClosedExchange(server, "GET /slow HTTP/1.1\r\nHost: x\r\nX-Catbird-Parallel-Id: hc\r\n\r\n")
        XCTAssertGreaterThanOrEqual(ContinuousClock.now - started, .seconds(2), "answered when the delay ended")
        XCTAssertTrue(slow.hasPrefix(Self.interim + "HTTP/1.1 200 OK\r\n"), slow)
        XCTAssertTrue(slow.hasSuffix("\r\n\r\nslow"), slow)

        let journal = try E2E.journal(control, tenant: "hc")
        XCTAssertEqual(journal.map { $0["url"] as? String }, ["/now", "/slow"])
        XCTAssertEqual(journal.compactMap { JSONNumber.int(($0["response"] as? [String: Any])?["status"]) }, [200, 200])
        let hits = try E2E.mocks(control, tenant: "hc").map { JSONNumber.int($0["hits"]) }
        XCTAssertEqual(hits, [1, 1], "the delayed answer was sent, its hit kept")
    }

    /// The finding's long poll and wait, half-closed: an empty page after `wait=2`, the wait's
    /// 408 after its 2 s.
    func testAHalfClosedClientGetsItsLongPollAndWaitAnswers() throws {
        let server = try TestServer()
        defer { server.removeFiles() }
        let poll = try halfClosedExchange(
            server, "GET /catbird/api/requests?since=99999999&wait=2 HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Catbird-Parallel-Id: hc\r\n\r\n")
        XCTAssertTrue(poll.hasPrefix(Self.interim + "HTTP/1.1 200 OK\r\n"), poll)
        XCTAssertTrue(poll.contains(#""requests":[]"#), poll)
        let body = #"{"pattern":{"method":"GET","url":{"kind":"equal","value":"/zz"}},"timeout":2}"#
        let wait = try halfClosedExchange(
            server,
            "POST /catbird/api/requests/wait HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Catbird-Parallel-Id: hc\r\nContent-Type: application/json\r\n"
                + "Content-Length: \(body.utf8.count)\r\n\r\n\(body)")
        XCTAssertTrue(wait.hasPrefix(Self.interim + "HTTP/1.1 408 "), wait)
        XCTAssertTrue(wait.contains(#"no request matching GET equal \"/zz\" arrived within 2 s"#), wait)
    }

    /// A client that closes its socket during the delay (no reader left: the 100 is answered
    /// with a reset) is still let go at once: 499, the hit given back.
    func testAClientThatClosesDuringTheDelayIsStillLetGo() throws {
        let server = try TestServer()
        defer { server.removeFiles() }
        let control = try server.client()
        try E2E.addMock(control, tenant: "hc", url: "/slow", body: "slow", delay: 30)
        do {
            let client = try server.client()
            try client.send(raw: Array("GET /slow HTTP/1.1\r\nHost: x\r\nX-Catbird-Parallel-Id: hc\r\n\r\n".utf8))
        }  // deinit closes the socket
        let journal = try E2E.journal(control, tenant: "hc", once: 1)
        XCTAssertEqual(journal.map { JSONNumber.int(($0["response"] as? [String: Any])?["status"]) }, [499], "journaled long before the 30 s delay")
        XCTAssertEqual(try E2E.mocks(control, tenant: "hc").map { JSONNumber.int($0["hits"]) }, [0], "the hit given back")
    }
}
