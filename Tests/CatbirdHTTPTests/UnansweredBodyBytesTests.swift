@testable import CatbirdHTTP
import CatbirdTestSupport
import Foundation
import XCTest

/// A request whose body stopped arriving is told to the handler with the body bytes that did
/// arrive, whether the client hung up or the idle timeout ended it: the server journals them
/// as the body of its 499 or 408 entry (docs/protocol.md#what-the-journal-records). The
/// timeout is the server's fixed 120 s there, too long for a test of the whole server; here
/// it is 1 s.
final class UnansweredBodyBytesTests: XCTestCase {
    private final class RecordingHandler: HTTPHandler, @unchecked Sendable {
        // @unchecked Sendable: `endings` is only touched under `lock`.
        private let lock = NSLock()
        private var endings: [String: (ending: HTTPRequestEnding, body: [UInt8])] = [:]

        func respond(to request: HTTPRequest) -> HTTPAnswer {
            .now(HTTPResponse(status: 200, body: Array("ok".utf8)))
        }

        func respondToOversizedBody(_ request: HTTPRequest, limit: Int) -> HTTPAnswer {
            .now(HTTPResponse(status: 413))
        }

        func requestEndedUnanswered(_ request: HTTPRequest, ending: HTTPRequestEnding) {
            lock.withLock { endings[request.target] = (ending, request.body) }
        }

        /// The endings heard by target, once there are `count` (within 10 s).
        func endings(_ count: Int) -> [String: (ending: HTTPRequestEnding, body: [UInt8])] {
            let deadline = Date().addingTimeInterval(10)
            while lock.withLock({ endings.count }) < count, Date() < deadline { usleep(20_000) }
            return lock.withLock { endings }
        }
    }

    /// Checked against main at 3b68a16 with the whole server too (120 s): `POST /slow-part`
    /// declaring 10 bytes that sent `abc`, and a chunked POST that sent one 4-byte chunk, were
    /// journaled 408 with bodySize 3 and 4.
    func testATimedOutOrAbandonedBodyIsToldWithTheBytesThatArrived() throws {
        let handler = RecordingHandler()
        let server = HTTPServer(configuration: .init(port: 0, threadCount: 1, idleTimeoutSeconds: 1), handler: handler)
        try server.start()
        defer { server.stop() }
        let quiet = try RawHTTPClient(port: server.port)
        try quiet.send(raw: Array("POST /quiet-length HTTP/1.1\r\nHost: x\r\nContent-Length: 10\r\n\r\nabc".utf8))
        let quietChunked = try RawHTTPClient(port: server.port)
        try quietChunked.send(raw: Array("POST /quiet-chunked HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n4\r\nwxyz\r\n".utf8))
        let gone = try RawHTTPClient(port: server.port)
        try gone.send(raw: Array("POST /gone-length HTTP/1.1\r\nHost: x\r\nContent-Length: 10\r\n\r\nabcde".utf8))
        usleep(200_000)  // let the server read it before the hang-up
        gone.hangUp()

        XCTAssertEqual(quiet.readToEnd(), [], "nothing is sent to a request that timed out")
        let endings = handler.endings(3)
        XCTAssertEqual(endings["/quiet-length"]?.ending, .timedOut)
        XCTAssertEqual(endings["/quiet-length"].map { String(decoding: $0.body, as: UTF8.self) }, "abc")
        XCTAssertEqual(endings["/quiet-chunked"]?.ending, .timedOut)
        XCTAssertEqual(endings["/quiet-chunked"].map { String(decoding: $0.body, as: UTF8.self) }, "wxyz")
        XCTAssertEqual(endings["/gone-length"]?.ending, .clientLeft)
        XCTAssertEqual(endings["/gone-length"].map { String(decoding: $0.body, as: UTF8.self) }, "abcde")
    }
}
