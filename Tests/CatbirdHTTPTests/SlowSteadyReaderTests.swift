@testable import CatbirdHTTP
import CatbirdTestSupport
import Foundation
import XCTest
#if canImport(Glibc)
import Glibc
#endif

/// A client that reads a large answer slowly but steadily keeps its connection past the idle
/// timeout (docs/protocol.md#what-the-journal-records).
final class SlowSteadyReaderTests: XCTestCase {
    /// Answers every request with 20 MiB.
    private struct LargeAnswer: HTTPHandler {
        func respond(to request: HTTPRequest) -> HTTPAnswer {
            .now(HTTPResponse(status: 200, body: [UInt8](repeating: UInt8(ascii: "x"), count: 20 << 20)))
        }

        func respondToOversizedBody(_ request: HTTPRequest, limit: Int) -> HTTPAnswer { .now(HTTPResponse(status: 413)) }
    }

    /// Regression (tester finding tester58a-F10, its kind at a test's scale): a client reading a
    /// 20 MiB answer at 8 KB/s was cut at the 120 s idle timeout although it read all along:
    /// libmicrohttpd counts the timeout from its last write, and Linux woke it only once a third
    /// of loopback's self-grown 4 MiB send buffer was free. Here the idle timeout is 3 s and the
    /// client reads 16 KiB every 100 ms for 9 s, then the rest at full speed: the whole answer
    /// comes (before the bound, the connection was closed after about 3 s, and only what the
    /// kernel held by then arrived).
    func testAClientReadingSteadilyKeepsItsConnectionPastTheIdleTimeout() throws {
        let server = HTTPServer(configuration: .init(port: 0, threadCount: 1, idleTimeoutSeconds: 3), handler: LargeAnswer())
        try server.start()
        defer { server.stop() }
        let client = try RawHTTPClient(port: server.port, timeoutSeconds: 10, receiveBuffer: 16 << 10)
        try client.send(raw: Array("GET /big HTTP/1.1\r\nHost: x\r\n\r\n".utf8))
        var received = 0
        let started = ContinuousClock.now
        while ContinuousClock.now - started < .seconds(9) {
            received += client.read(upTo: 16 << 10, within: 0.1).count
            usleep(100_000)
        }
        // Then at full speed: the rest of the answer comes only if the connection is still open.
        received += client.read(upTo: (20 << 20) + 4096 - received, within: 20).count
        XCTAssertGreaterThan(received, 20 << 20, "the whole answer came (the connection was not closed while the client read it slowly)")
    }
}
