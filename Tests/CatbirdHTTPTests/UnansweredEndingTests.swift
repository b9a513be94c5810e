@testable import CatbirdHTTP
import CatbirdTestSupport
import Foundation
import XCTest

/// The handler hears how every request it never answered ended, once libmicrohttpd is done
/// with the connection (``HTTPHandler/requestEndedUnanswered(_:ending:)``): refused by
/// libmicrohttpd with the status it sent, the client gone, or timed out; with what is known.
final class UnansweredEndingTests: XCTestCase {
    private final class RecordingHandler: HTTPHandler, @unchecked Sendable {
        // @unchecked Sendable: `endings` is only touched under `lock`.
        private let lock = NSLock()
        private var endings: [(target: String, method: String, ending: HTTPRequestEnding)] = []

        func respond(to request: HTTPRequest) -> HTTPAnswer {
            .now(HTTPResponse(status: 200, body: Array("ok".utf8)))
        }

        func respondToOversizedBody(_ request: HTTPRequest, limit: Int) -> HTTPAnswer {
            .now(HTTPResponse(status: 413))
        }

        func requestEndedUnanswered(_ request: HTTPRequest, ending: HTTPRequestEnding) {
            lock.withLock { endings.append((request.target, request.method, ending)) }
        }

        /// The endings heard, once there are `count` (within 10 s).
        func endings(_ count: Int) -> [(target: String, method: String, ending: HTTPRequestEnding)] {
            let deadline = Date().addingTimeInterval(10)
            while lock.withLock({ endings.count }) < count, Date() < deadline { usleep(20_000) }
            return lock.withLock { endings }
        }
    }

    private var handler: RecordingHandler!
    private var server: HTTPServer!

    override func setUpWithError() throws {
        handler = RecordingHandler()
        server = HTTPServer(configuration: .init(port: 0, threadCount: 1, idleTimeoutSeconds: 1), handler: handler)
        try server.start()
    }

    override func tearDown() {
        server.stop()
    }

    func testEachEndingIsToldOnceWithWhatIsKnown() throws {
        let refused = try RawHTTPClient(port: server.port)
        try refused.send(raw: Array("GET /refused HTTP/1.1\r\nno colon\r\n\r\n".utf8))
        XCTAssertTrue(String(decoding: refused.readToEnd(), as: UTF8.self).hasPrefix("HTTP/1.1 400 "))

        let chunked = try RawHTTPClient(port: server.port)
        try chunked.send(raw: Array("POST /chunked HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n".utf8))
        XCTAssertTrue(String(decoding: chunked.readToEnd(), as: UTF8.self).hasPrefix("HTTP/1.1 400 "))

        let gone = try RawHTTPClient(port: server.port)
        try gone.send(raw: Array("GET /gone HTTP/1.1\r\n".utf8))
        usleep(100_000)
        gone.hangUp()

        let slow = try RawHTTPClient(port: server.port)
        try slow.send(raw: Array("GET /slow HTTP/1.1\r\nHost: x\r\n".utf8))  // then nothing: the 1 s idle timeout ends it

        let answered = try RawHTTPClient(port: server.port)
        XCTAssertEqual(try answered.request("GET", "/answered").status, 200)

        // The answered request's connection is kept alive until the 1 s idle timeout closes it;
        // only once it is closed (and libmicrohttpd has told of its end) may the test say that
        // the answered request got no ending. Then nothing more may come.
        XCTAssertEqual(answered.readToEnd(), [], "the idle timeout closes the kept-alive connection, sending nothing")
        _ = handler.endings(4)
        // Stopping returns once libmicrohttpd has told of every connection's end: an ending
        // wrongly reported for the answered request, however late, is in the list by then.
        server.stop()
        let endings = handler.endings(4).sorted { $0.target < $1.target }
        XCTAssertEqual(endings.map(\.target), ["/chunked", "/gone", "/refused", "/slow"], "one each, none for the answered request")
        XCTAssertEqual(endings.map(\.ending), [.refusedByLibrary(status: 400), .clientLeft, .refusedByLibrary(status: 400), .timedOut])
        XCTAssertEqual(endings.map(\.method), ["POST", "", "", ""], "the method once the header section was accepted")
    }
}
