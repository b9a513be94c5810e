@testable import CatbirdHTTP
import CatbirdTestSupport
import Foundation
import Synchronization
import XCTest

/// `HTTPAnswer.later`: requests answered from other threads over real sockets, with one worker
/// thread so that a held worker would show; exactly-once completion; shutdown and hung-up
/// clients racing with completion.
final class DeferredAnswerTests: XCTestCase {
    private func startServer(_ handler: DeferredHandler) throws -> HTTPServer {
        let server = HTTPServer(configuration: .init(port: 0, threadCount: 1), handler: handler)
        try server.start()
        return server
    }

    func testManyDeferredRequestsOnOneWorkerAreAnsweredFromOtherThreads() throws {
        let handler = DeferredHandler()
        let server = try startServer(handler)
        defer { server.stop() }
        let port = server.port
        let count = 64
        let results = Mutex<[Int: String]>([:])
        let group = onThreads(count) { index in
            let text: String
            do {
                let response = try RawHTTPClient(port: port).request("GET", "/deferred/\(index)")
                text = "\(response.status) \(response.text)"
            } catch {
                text = "error: \(error)"
            }
            results.withLock { $0[index] = text }
        }
        // All 64 wait at once on the only worker: parking holds no thread.
        XCTAssertEqual(handler.waitForWaiting(count), count)
        XCTAssertEqual(server.core.parked.count, count)
        XCTAssertEqual(try RawHTTPClient(port: port).request("GET", "/now").text, "now", "the worker still serves")

        DispatchQueue.concurrentPerform(iterations: count) { index in
            let responder = handler.take("/deferred/\(index)")!
            XCTAssertTrue(responder.send(HTTPResponse(status: 200, body: Array("answer \(index)".utf8))))
            XCTAssertFalse(responder.send(HTTPResponse(status: 500)), "a second completion is ignored")
        }
        XCTAssertEqual(group.wait(timeout: .now() + 30), .success)
        let answers = results.withLock { $0 }
        for index in 0..<count {
            XCTAssertEqual(answers[index], "200 answer \(index)")
        }
        XCTAssertEqual(server.core.parked.count, 0)
    }

    func testAnAnswerSentBeforeStartReturnsIsDelivered() throws {
        struct Immediate: HTTPHandler {
            func respond(to request: HTTPRequest) -> HTTPAnswer {
                .later { $0.send(HTTPResponse(status: 201, body: Array("at once".utf8))) }
            }
            func respondToOversizedBody(_ request: HTTPRequest, limit: Int) -> HTTPAnswer { .now(HTTPResponse(status: 413)) }
        }
        let server = HTTPServer(configuration: .init(port: 0, threadCount: 1), handler: Immediate())
        try server.start()
        defer { server.stop() }
        let client = try RawHTTPClient(port: server.port)
        for _ in 0..<3 {  // keep-alive: the connection serves the next request after a resume
            let response = try client.request("GET", "/x")
            XCTAssertEqual("\(response.status) \(response.text)", "201 at once")
        }
    }

    func testAResponderDroppedWithoutSendingAnswers500() throws {
        struct Forgetful: HTTPHandler {
            func respond(to request: HTTPRequest) -> HTTPAnswer { .later { _ in } }
            func respondToOversizedBody(_ request: HTTPRequest, limit: Int) -> HTTPAnswer { .now(HTTPResponse(status: 413)) }
        }
        let server = HTTPServer(configuration: .init(port: 0, threadCount: 1), handler: Forgetful())
        try server.start()
        defer { server.stop() }
        let response = try RawHTTPClient(port: server.port).request("GET", "/x")
        XCTAssertEqual(response.status, 500)
        XCTAssertEqual(server.core.parked.count, 0)
    }

    func testADelayedAnswerSentLaterStillWaitsItsDelay() throws {
        let handler = DeferredHandler()
        let server = try startServer(handler)
        defer { server.stop() }
        let port = server.port
        let result = Mutex<String>("")
        let done = DispatchSemaphore(value: 0)
        let started = ContinuousClock.now
        DispatchQueue.global().async {
            let text = (try? RawHTTPClient(port: port).request("GET", "/d")).map { "\($0.status) \($0.text)" }
            result.withLock { $0 = text ?? "error" }
            done.signal()
        }
        handler.take("/d")!.send(HTTPResponse(status: 200, body: Array("late".utf8), delay: .milliseconds(500)))
        XCTAssertEqual(done.wait(timeout: .now() + 20), .success)
        XCTAssertEqual(result.withLock { $0 }, "200 late")
        XCTAssertGreaterThanOrEqual(ContinuousClock.now - started, .milliseconds(500))
    }

    /// Completion racing with `stop()`: every client gets its answer or a 503, nothing crashes,
    /// and answers sent after the stop do nothing.
    func testCompletionRacingWithShutdownAnswersEveryClientOnce() throws {
        for round in 0..<5 {
            let handler = DeferredHandler()
            let server = try startServer(handler)
            let port = server.port
            let count = 24
            let statuses = Mutex<[Int]>([])
            let group = onThreads(count) { index in
                let response = try? RawHTTPClient(port: port).request("GET", "/r/\(index)")
                statuses.withLock { $0.append(response?.status ?? -1) }
            }
            XCTAssertEqual(handler.waitForWaiting(count), count, "round \(round)")
            let responders = (0..<count).map { handler.take("/r/\($0)")! }
            let senders = DispatchGroup()
            for (index, responder) in responders.enumerated() {
                DispatchQueue.global().async(group: senders) {
                    if index % 2 == 0 { usleep(UInt32(index * 50)) }
                    responder.send(HTTPResponse(status: 200, body: Array("\(index)".utf8)))
                }
            }
            server.stop()
            XCTAssertEqual(senders.wait(timeout: .now() + 20), .success)
            XCTAssertEqual(group.wait(timeout: .now() + 30), .success)
            let seen = statuses.withLock { $0 }
            XCTAssertEqual(seen.count, count)
            XCTAssertTrue(seen.allSatisfy { $0 == 200 || $0 == 503 }, "round \(round): \(seen)")
            XCTAssertFalse(responders[0].send(HTTPResponse(status: 200)), "already answered")
        }
    }

    func testARequestParkedAtShutdownGets503() throws {
        let handler = DeferredHandler()
        let server = try startServer(handler)
        let port = server.port
        let result = Mutex<Int>(0)
        let done = DispatchSemaphore(value: 0)
        DispatchQueue.global().async {
            result.withLock { $0 = (try? RawHTTPClient(port: port).request("GET", "/parked"))?.status ?? -1 }
            done.signal()
        }
        let responder = handler.take("/parked")!
        server.stop()
        XCTAssertEqual(done.wait(timeout: .now() + 20), .success)
        XCTAssertEqual(result.withLock { $0 }, 503)
        XCTAssertTrue(responder.send(HTTPResponse(status: 200)), "the first send after stop is accepted and does nothing")
    }

    /// A refusal answered later on a copy of its socket (a query on a target over the length
    /// limit, refused before libmicrohttpd parses it) is waited for by stop() as a parked wait of
    /// moments is: stop() returns once that answer is written. It used not to count them, and
    /// returned after its grace second with the answer still to come.
    func testStopWaitsForARefusalAnsweredLaterOnACopyOfItsSocket() throws {
        let handler = DeferredHandler()
        let server = try startServer(handler)
        let client = try RawHTTPClient(port: server.port, timeoutSeconds: 20)
        let target = "/many?" + String(repeating: "p", count: server.core.maxTargetLength)
        try client.send(raw: Array("GET \(target) HTTP/1.1\r\nHost: x\r\n\r\n".utf8))
        let responder = try XCTUnwrap(handler.take("refused /many"), "refused before its query was parsed")
        XCTAssertEqual(server.waitingAnswers, 1, "waiting for its answer, on no worker")

        let stopped = DispatchSemaphore(value: 0)
        Thread.detachNewThread {
            server.stop()
            stopped.signal()
        }
        XCTAssertEqual(stopped.wait(timeout: .now() + 2), .timedOut, "stop() still waits for the refusal's answer")
        XCTAssertTrue(responder.send(HTTPResponse.error(status: 414, reason: "too many parameters")))
        XCTAssertEqual(stopped.wait(timeout: .now() + 10), .success, "and returns once it is written")
        let answer = try client.readResponse()
        XCTAssertEqual(answer.status, 414, answer.text)
        XCTAssertEqual(server.waitingAnswers, 0)
    }

    /// A client that hangs up while its request waits is let go at once (the parked socket is
    /// watched: MHD itself does not poll a suspended connection); the later answer finds nothing
    /// to write to, and the server goes on.
    func testAClientThatHangsUpWhileDeferredLeavesNothingParked() throws {
        let handler = DeferredHandler()
        let server = try startServer(handler)
        defer { server.stop() }
        var client: RawHTTPClient? = try RawHTTPClient(port: server.port)
        try client?.send(raw: Array("GET /gone HTTP/1.1\r\nHost: x\r\n\r\n".utf8))
        let responder = try XCTUnwrap(handler.take("/gone"), "the request arrived")
        client = nil  // closes the socket
        XCTAssertTrue(eventually { server.core.parked.count == 0 }, "no longer parked, without an answer")
        XCTAssertTrue(eventually { server.core.inFlight.load(ordering: .acquiring) == 0 }, "the request completed")
        XCTAssertTrue(responder.send(HTTPResponse(status: 200, body: Array(repeating: 0x61, count: 100_000))), "accepted, does nothing")
        XCTAssertFalse(responder.send(HTTPResponse(status: 200)))
        XCTAssertEqual(try RawHTTPClient(port: server.port).request("GET", "/now").text, "now")
    }
}
