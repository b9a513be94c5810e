import CatbirdServer
import CatbirdTestSupport
import Foundation
import XCTest

/// tester40a-F8: a large mock answer whose client read none of it was not watched (only answers
/// holding part of `--max-buffered-bodies` were), so its connection stayed for the 120-s idle
/// timeout. An answer larger than the socket buffers take is now reset when its client takes
/// none of its bytes for `--head-timeout`, and its journal entry says so.
final class UnreadMockAnswerTests: XCTestCase {
    func testALargeMockAnswerItsClientTakesNothingOfIsResetAfterTheHeadTimeout() throws {
        let server = try TestServer { $0.headTimeout = .seconds(2) }
        defer { server.removeFiles() }
        let control = try server.client()
        try E2E.addMock(control, tenant: "V", url: "/v/big", body: String(repeating: "b", count: 5_000_000))
        let slow = try RawHTTPClient(port: server.port, timeoutSeconds: 30, receiveBuffer: 2048)
        try slow.send("GET", "/v/big", headers: [("X-Catbird-Parallel-Id", "V")])
        XCTAssertEqual(String(decoding: slow.read(upTo: 12, within: 20), as: UTF8.self), "HTTP/1.1 200")
        // Reads nothing for 6 s: the head timeout (2 s) and the watch's ticks (1 s) have passed.
        Thread.sleep(forTimeInterval: 6)
        let (bytes, closed) = slow.readUntilClosed(within: 5)
        XCTAssertTrue(closed, "the connection was reset")
        XCTAssertLessThan(bytes.count, 5_000_000, "before the whole answer was sent")

        let deadline = ContinuousClock.now + .seconds(5)
        var problem: String?
        repeat {
            problem = try E2E.journal(try server.client(), tenant: "V").first?["problem"] as? String
            if problem == nil { usleep(100_000) }
        } while problem == nil && ContinuousClock.now < deadline
        XCTAssertEqual(
            problem,
            "the client took none of the answer's bytes for 2 s (--head-timeout; its TCP receive window stayed shut), so the "
                + "server reset the connection before the whole answer was sent")
    }
}
