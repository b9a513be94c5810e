@testable import CatbirdHTTP
import CatbirdTestSupport
import Foundation
import Synchronization
import XCTest

/// `HTTPServer.resumingTogether`: answers given inside it (as the journal writer releases one
/// commit's strict answers) wake each worker thread once, after the body returns; every answer
/// then leaves, on every worker, nested calls included. Two workers, so both loops are woken.
/// The wake-ups are counted (``WorkerLoop/wakeWrites``): none while the body runs (each idle
/// loop's first resume would write its `eventfd` at once if they were not held back), then
/// exactly one per loop.
final class ResumingTogetherTests: XCTestCase {
    func testAnswersGivenTogetherAllLeaveOnceTheBodyReturns() throws {
        let handler = DeferredHandler()
        let server = HTTPServer(configuration: .init(port: 0, threadCount: 2), handler: handler)
        try server.start()
        defer { server.stop() }
        let port = server.port
        let count = 16
        let results = Mutex<[Int: String]>([:])
        let clients = onThreads(count) { index in
            let text: String
            do {
                text = try RawHTTPClient(port: port).request("GET", "/together/\(index)").text
            } catch {
                text = "error: \(error)"
            }
            results.withLock { $0[index] = text }
        }
        XCTAssertEqual(handler.waitForWaiting(count), count)
        XCTAssertEqual(server.connectionsPerWorker.filter { $0 > 0 }.count, 2, "both workers hold parked requests")

        let responders = (0..<count).map { handler.take("/together/\($0)")! }
        let loops = server.workerLoops
        XCTAssertEqual(loops.count, 2)
        XCTAssertTrue(eventually { loops.allSatisfy { !$0.wakePending.load(ordering: .sequentiallyConsistent) } }, "the loops rest")
        let writesBefore = loops.map { $0.wakeWrites.load(ordering: .sequentiallyConsistent) }
        var writesInside: [Int] = []
        HTTPServer.resumingTogether {
            for (index, responder) in responders.enumerated() where index % 2 == 0 {
                responder.send(HTTPResponse(status: 200, body: Array("answer \(index)".utf8)))
            }
            HTTPServer.resumingTogether {  // nested: woken when the outer call returns
                for (index, responder) in responders.enumerated() where index % 2 == 1 {
                    responder.send(HTTPResponse(status: 200, body: Array("answer \(index)".utf8)))
                }
            }
            writesInside = loops.map { $0.wakeWrites.load(ordering: .sequentiallyConsistent) }
        }
        let writesAfter = loops.map { $0.wakeWrites.load(ordering: .sequentiallyConsistent) }
        XCTAssertEqual(writesInside, writesBefore, "a loop was woken while the answers were being given")
        XCTAssertEqual(zip(writesAfter, writesBefore).map { $0 - $1 }, [1, 1], "one wake-up per worker for the whole group")
        XCTAssertEqual(clients.wait(timeout: .now() + 30), .success, "an answer given together never left")
        let answers = results.withLock { $0 }
        for index in 0..<count {
            XCTAssertEqual(answers[index], "answer \(index)")
        }
        XCTAssertEqual(server.core.parked.count, 0)
        XCTAssertEqual(try RawHTTPClient(port: port).request("GET", "/now").text, "now", "the workers still serve")
    }
}

/// ``WorkerLoop``'s wake-up flag and eventfd: a waker sets the flag, then writes. When the loop
/// looks in between (woken by a request), the write comes after its read.
final class WorkerLoopWakeUpTests: XCTestCase {
    /// Regression: the loop cleared the flag although its read found nothing; the write that
    /// came after it was then never read, so every wait ended at once and the idle loop spun
    /// (hundreds of thousands of rounds a second) until the next wake-up.
    func testAWriteThatComesAfterTheLoopLookedIsReadAndTheLoopRestsAgain() throws {
        let server = HTTPServer(configuration: .init(port: 0, threadCount: 1), handler: DeferredHandler())
        try server.start()
        defer { server.stop() }
        let loop = try XCTUnwrap(server.workerLoops.first)
        let client = try RawHTTPClient(port: server.port)
        XCTAssertEqual(try client.request("GET", "/now").text, "now")

        loop.wakePending.store(true, ordering: .sequentiallyConsistent)  // a waker between its flag and its write
        XCTAssertEqual(try client.request("GET", "/now").text, "now", "a round while the write is missing")
        var one: UInt64 = 1
        XCTAssertEqual(write(loop.wakeFD, &one, 8), 8)  // the waker's write, late
        XCTAssertTrue(eventually { !loop.wakePending.load(ordering: .sequentiallyConsistent) }, "the late write is read")

        let before = loop.rounds.load(ordering: .relaxed)
        usleep(300_000)
        let rounds = loop.rounds.load(ordering: .relaxed) - before
        XCTAssertLessThan(rounds, 50, "an idle loop rests (\(rounds) rounds in 0.3 s)")
        XCTAssertEqual(try client.request("GET", "/now").text, "now")
    }
}
