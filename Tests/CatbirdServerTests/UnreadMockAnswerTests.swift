import CatbirdServer
import CatbirdTestSupport
import Foundation
import XCTest

/// tester40a-F8: a large mock answer whose client read none of it was not watched (only answers
/// holding part of `--max-buffered-bodies` were), so its connection stayed for the 120-s idle
/// timeout. An answer larger than the socket buffers take is now reset when its client takes
/// none of its bytes for `--head-timeout`, and its journal entry says so.
final class UnreadMockAnswerTests: XCTestCase {
    /// Against a server with a 2-s head timeout and tenant `V`'s mock `/big` answering `body`
    /// bytes: a client with a `receiveBuffer`-byte receive buffer sends `requests` (raw, in one
    /// write) and reads nothing for 6 s (the head timeout and the watch's ticks have passed).
    /// Its connection must have been reset before `sent` bytes went out, and the tenant's
    /// journal must say why.
    private func assertResetWithoutReading(body: Int, requests: String, receiveBuffer: Int32, sent: Int) throws {
        let server = try TestServer { $0.headTimeout = .seconds(2) }
        defer { server.removeFiles() }
        try E2E.addMock(try server.client(), tenant: "V", url: "/big", body: String(repeating: "b", count: body))
        let client = try RawHTTPClient(port: server.port, timeoutSeconds: 30, receiveBuffer: receiveBuffer)
        try client.send(raw: Array(requests.utf8))
        XCTAssertEqual(String(decoding: client.read(upTo: 12, within: 20), as: UTF8.self), "HTTP/1.1 200")
        Thread.sleep(forTimeInterval: 6)
        let (bytes, closed) = client.readUntilClosed(within: 5)
        XCTAssertTrue(closed, "the connection was reset")
        XCTAssertLessThan(bytes.count + 12, sent, "before everything was sent")

        let deadline = ContinuousClock.now + .seconds(5)
        var problems: [String] = []
        repeat {
            problems = try E2E.journal(try server.client(), tenant: "V").compactMap { $0["problem"] as? String }
            if problems.isEmpty { usleep(100_000) }
        } while problems.isEmpty && ContinuousClock.now < deadline
        XCTAssertEqual(
            problems,
            ["the client took none of the answer's bytes for 2 s (--head-timeout; its TCP receive window stayed shut), so the "
                + "server reset the connection before the whole answer was sent"])
    }

    private static let getBig = "GET /big HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Catbird-Parallel-Id: V\r\n\r\n"

    func testALargeMockAnswerItsClientTakesNothingOfIsResetAfterTheHeadTimeout() throws {
        try assertResetWithoutReading(body: 5_000_000, requests: Self.getBig, receiveBuffer: 2048, sent: 5_000_000)
    }

    /// Tester finding tester66b-F1, its requests on one connection: 10 pipelined `GET /big` of a
    /// tenant's 61,000-byte mock (each under 64 KiB, so no worker watched it) in one write, from
    /// a client with a 4 KiB receive buffer that then reads nothing. The socket filled after a
    /// few answers and the connection stayed for the 120-s idle timeout. The answer it stopped
    /// at is now watched from the tick that sees it unsent for a second, and reset after
    /// `--head-timeout` as a large one is; its journal entry says so.
    func testPipelinedSmallAnswersItsClientTakesNothingOfAreResetAfterTheHeadTimeout() throws {
        try assertResetWithoutReading(
            body: 61_000, requests: String(repeating: Self.getBig, count: 10), receiveBuffer: 4096, sent: 10 * 61_000)
    }

    /// Tester finding tester52a-F2, scaled to a 2 s head timeout: `curl --limit-rate 30k` read a
    /// forwarded 20 MiB answer steadily and was reset after 30 s. Linux had grown its receive
    /// buffer (autotuning) to 2.7 MB, and reopens such a window only once much of it is free, so
    /// the server saw no byte taken for longer than the head timeout. A client that fills a grown
    /// buffer (here by reading 4 MB at once) and then reads a steady 150 KB a second goes several
    /// seconds between openings: it keeps its connection now, as long as it keeps reading.
    func testASteadyReaderWithAGrownReceiveBufferIsNotReset() throws {
        let server = try TestServer { $0.headTimeout = .seconds(2) }
        defer { server.removeFiles() }
        let control = try server.client()
        try E2E.addMock(control, tenant: "S", url: "/s/big", body: String(repeating: "s", count: 30_000_000))
        let reader = try RawHTTPClient(port: server.port, timeoutSeconds: 30)
        try reader.send("GET", "/s/big", headers: [("X-Catbird-Parallel-Id", "S")])
        var taken = reader.read(upTo: 4_000_000, within: 20).count  // fast: the kernel grows the buffer
        XCTAssertEqual(taken, 4_000_000)
        let started = ContinuousClock.now
        while ContinuousClock.now - started < .seconds(12) {
            let chunk = reader.read(upTo: 15_000, within: 1)
            XCTAssertFalse(chunk.isEmpty, "reset after \(ContinuousClock.now - started) of steady reading, \(taken) bytes taken")
            if chunk.isEmpty { break }
            taken += chunk.count
            Thread.sleep(forTimeInterval: 0.1)
        }
        let problem = try E2E.journal(try server.client(), tenant: "S").first?["problem"] as? String
        XCTAssertNil(problem, "the answer is still being read")
    }
}
