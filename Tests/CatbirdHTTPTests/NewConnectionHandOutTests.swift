// CMicroHTTPD: its shim includes <sys/socket.h>. When this file is compiled in one batch with
// a file importing it (LibraryPanicTests), SOCK_STREAM is found only through that module
// ("cannot find 'SOCK_STREAM' in scope"); importing Glibc does not help.
import CMicroHTTPD
@testable import CatbirdHTTP
import CatbirdTestSupport
import Foundation
import Synchronization
import XCTest
#if canImport(Glibc)
import Glibc
#endif

/// New connections are accepted by the server's own acceptor and handed to a worker
/// (``WorkerDaemons``): spread evenly, never to a worker stuck in a slow request while another
/// is free, never beyond the connection limit (further clients wait in the backlog), on IPv6
/// as on IPv4; a stopped server leaves its port free.
final class NewConnectionHandOutTests: XCTestCase {
    /// Answers with the number of the worker thread that ran it; `/slow` first waits until
    /// ``release`` (at most 10 s).
    private final class ThreadRecorder: HTTPHandler, Sendable {
        let answeredBy = Mutex<[UInt: Int]>([:])
        let slowStarted = Atomic<Bool>(false)
        let release = Atomic<Bool>(false)

        func respond(to request: HTTPRequest) -> HTTPAnswer {
            if request.path == "/slow" {
                slowStarted.store(true, ordering: .releasing)
                let deadline = ContinuousClock.now + .seconds(10)
                while !release.load(ordering: .acquiring), ContinuousClock.now < deadline { usleep(1000) }
            }
            let thread = UInt(bitPattern: Int(bitPattern: UnsafeRawPointer(bitPattern: UInt(pthread_self()))))
            answeredBy.withLock { $0[thread, default: 0] += 1 }
            return .now(HTTPResponse(status: 200, body: Array("\(thread) \(request.clientAddress)".utf8)))
        }

        func respondToOversizedBody(_ request: HTTPRequest, limit: Int) -> HTTPAnswer {
            .now(HTTPResponse(status: 413))
        }
    }

    /// 32 connections opened at once, before any request. libmicrohttpd's own thread pool often
    /// gave such a burst to one worker whole (whichever woke first accepted them all); handed
    /// out by the acceptor, each worker gets 16.
    func testABurstOfConnectionsIsSpreadEvenlyOverTheWorkers() throws {
        let recorder = ThreadRecorder()
        let server = HTTPServer(configuration: .init(port: 0, threadCount: 2), handler: recorder)
        try server.start()
        defer { server.stop() }
        let clients = try (0..<32).map { _ in try RawHTTPClient(port: server.port) }
        // All handed out before any request makes a worker busy (connect returns before accept).
        let deadline = ContinuousClock.now + .seconds(10)
        while server.connectionsPerWorker.reduce(0, +) < 32, ContinuousClock.now < deadline { usleep(1000) }
        XCTAssertEqual(server.connectionsPerWorker, [16, 16], "connections per worker")
        for client in clients {
            XCTAssertEqual(try client.request("GET", "/").status, 200)
        }
        XCTAssertEqual(recorder.answeredBy.withLock { $0.values.sorted() }, [16, 16], "requests answered per worker thread")
    }

    /// Two workers with one connection each; one of them runs a slow request. A new client goes
    /// to the other worker and is answered at once, though the counts tie and the turn is the
    /// busy worker's (as with libmicrohttpd's own accepting, where only a free worker accepts).
    func testANewClientIsNotGivenToAWorkerStuckInASlowRequest() throws {
        let recorder = ThreadRecorder()
        let server = HTTPServer(configuration: .init(port: 0, threadCount: 2), handler: recorder)
        try server.start()
        defer { server.stop() }
        defer { recorder.release.store(true, ordering: .releasing) }
        let slow = try RawHTTPClient(port: server.port)
        let other = try RawHTTPClient(port: server.port)
        XCTAssertEqual(try other.request("GET", "/").status, 200)
        try slow.send(raw: Array("GET /slow HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n".utf8))
        let deadline = ContinuousClock.now + .seconds(10)
        while !recorder.slowStarted.load(ordering: .acquiring), ContinuousClock.now < deadline { usleep(1000) }
        XCTAssertTrue(recorder.slowStarted.load(ordering: .acquiring), "the slow request reached the handler")

        let started = ContinuousClock.now
        let answer = try RawHTTPClient(port: server.port, timeoutSeconds: 8).request("GET", "/")
        XCTAssertEqual(answer.status, 200)
        XCTAssertFalse(recorder.release.load(ordering: .acquiring))
        XCTAssertLessThan(ContinuousClock.now - started, .seconds(5), "answered while the slow request still ran")
        recorder.release.store(true, ordering: .releasing)
        XCTAssertEqual(try slow.readResponse().status, 200)
    }

    /// With a limit of two connections, a third client waits (in the listen backlog, unanswered)
    /// until one of the two closes, and is then served.
    func testAClientBeyondTheConnectionLimitWaitsUntilAConnectionCloses() throws {
        let server = HTTPServer(configuration: .init(port: 0, threadCount: 2, connectionLimit: 2), handler: ThreadRecorder())
        try server.start()
        defer { server.stop() }
        let first = try RawHTTPClient(port: server.port)
        let second = try RawHTTPClient(port: server.port)
        XCTAssertEqual(try first.request("GET", "/").status, 200)
        XCTAssertEqual(try second.request("GET", "/").status, 200)

        let third = try RawHTTPClient(port: server.port, timeoutSeconds: 1)
        XCTAssertThrowsError(try third.request("GET", "/"), "no answer while two connections are open")
        first.hangUp()
        var answer: RawResponse?
        for _ in 0..<10 where answer == nil { answer = try? third.readResponse() }
        XCTAssertEqual(answer?.status, 200, "answered once a connection closed")
        XCTAssertEqual(try second.request("GET", "/").status, 200)
    }

    /// Stopping closes the listening socket: a new server binds the same port at once.
    func testAStoppedServersPortCanBeListenedOnAgain() throws {
        let first = HTTPServer(configuration: .init(port: 0, threadCount: 2), handler: ThreadRecorder())
        try first.start()
        let port = first.port
        XCTAssertEqual(try RawHTTPClient(port: port).request("GET", "/").status, 200)
        first.stop()

        XCTAssertNoThrow(try HTTPServer.checkAvailable(host: "127.0.0.1", port: port))
        let second = HTTPServer(configuration: .init(port: port, threadCount: 2), handler: ThreadRecorder())
        try second.start()
        defer { second.stop() }
        XCTAssertEqual(second.port, port)
        XCTAssertEqual(try RawHTTPClient(port: port).request("GET", "/").status, 200)
    }

    /// A second server cannot listen on a port a running one listens on; the running one keeps
    /// answering.
    func testAPortInUseIsRefused() throws {
        let running = HTTPServer(configuration: .init(port: 0, threadCount: 2), handler: ThreadRecorder())
        try running.start()
        defer { running.stop() }
        let second = HTTPServer(configuration: .init(port: running.port, threadCount: 2), handler: ThreadRecorder())
        XCTAssertThrowsError(try second.start()) { error in
            XCTAssertEqual("\(error)", "\(HTTPServerError.cannotListen(host: "127.0.0.1", port: running.port))")
        }
        XCTAssertEqual(second.port, 0)
        XCTAssertEqual(try RawHTTPClient(port: running.port).request("GET", "/").status, 200)
    }

    /// A server on `::1` is reached over IPv6, and the handler sees the client's IPv6 address
    /// (what forwarding puts in `X-Forwarded-For`).
    func testAnIPv6ServerAnswersAndSeesTheClientsAddress() throws {
        // Skipped only when the machine itself cannot bind ::1; a server that cannot listen
        // where a plain socket can is a failure.
        if let reason = Self.cannotBindIPv6Loopback() { throw XCTSkip("this machine cannot bind ::1: \(reason)") }
        let server = HTTPServer(configuration: .init(host: "::1", port: 0, threadCount: 2), handler: ThreadRecorder())
        try server.start()
        defer { server.stop() }
        let answer = try Self.getOverIPv6(port: server.port)
        XCTAssertTrue(answer.hasPrefix("HTTP/1.1 200"), answer)
        XCTAssertTrue(answer.hasSuffix(" ::1"), answer)
    }

    /// Why a plain IPv6 socket cannot bind `[::1]:0`, or nil when it can.
    private static func cannotBindIPv6Loopback() -> String? {
        let socket = Glibc.socket(AF_INET6, Int32(SOCK_STREAM.rawValue), 0)
        guard socket >= 0 else { return "socket(AF_INET6): errno \(errno)" }
        defer { close(socket) }
        var address = sockaddr_in6()
        address.sin6_family = sa_family_t(AF_INET6)
        address.sin6_port = 0
        _ = inet_pton(AF_INET6, "::1", &address.sin6_addr)
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(socket, $0, socklen_t(MemoryLayout<sockaddr_in6>.size)) }
        }
        return bound == 0 ? nil : "bind([::1]:0): errno \(errno)"
    }

    /// `GET /` to `[::1]:port` with `Connection: close`; everything the server sent. The server
    /// listens there (start() succeeded), so not connecting is a failure, not a skip.
    private static func getOverIPv6(port: UInt16) throws -> String {
        let client = try RawHTTPClient(port: port, timeoutSeconds: 10, ipv6: true)
        try client.send(raw: Array("GET / HTTP/1.1\r\nHost: [::1]\r\nConnection: close\r\n\r\n".utf8))
        return String(decoding: client.readToEnd(), as: UTF8.self)
    }
}
