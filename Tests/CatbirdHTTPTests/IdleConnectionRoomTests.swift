@testable import CatbirdHTTP
import CatbirdTestSupport
import Foundation
import XCTest
#if canImport(Glibc)
import Glibc
#endif

/// try8b F12 (first repro): ~19,950 idle connections from one client (the open-file limit was
/// 20,000) held every slot; every tenant's requests and the health check timed out. Now the
/// acceptor, finding every slot taken, closes the connections idle longest
/// (``ConnectionWatch/makeRoom(_:)``): the same shape scaled to a limit of 20.
final class IdleConnectionRoomTests: XCTestCase {
    private struct Answering: HTTPHandler {
        func respond(to request: HTTPRequest) -> HTTPAnswer { .now(HTTPResponse(status: 200, body: Array("ok".utf8))) }
        func respondToOversizedBody(_ request: HTTPRequest, limit: Int) -> HTTPAnswer { .now(HTTPResponse(status: 413)) }
    }

    /// A started server of 20 connection slots on two threads (the default head timeout, 30 s).
    private static func serverOfTwentySlots() throws -> HTTPServer {
        let server = HTTPServer(configuration: .init(port: 0, threadCount: 2, connectionLimit: 20), handler: Answering())
        try server.start()
        return server
    }

    /// `count` clients of `port`, each having sent the head of `POST /x` declaring a 1,000-byte
    /// body and its first byte: bodies under way.
    private static func bodiesUnderWay(_ count: Int, port: UInt16) throws -> [RawHTTPClient] {
        try (0..<count).map { _ in
            let client = try RawHTTPClient(port: port, timeoutSeconds: 10)
            try client.send(raw: Array("POST /x HTTP/1.1\r\nHost: x\r\nContent-Length: 1000\r\n\r\na".utf8))
            return client
        }
    }

    /// 30 idle sockets against a limit of 20 (ten more wait in the backlog, ahead of the newcomer), then a client keeping its connection busy and a
    /// new client (the health check of the finding): both are answered at once; idle ones were
    /// closed to make room.
    func testIdleConnectionsAtTheLimitMakeRoomForNewClients() throws {
        let server = try Self.serverOfTwentySlots()
        defer { server.stop() }
        let busy = try RawHTTPClient(port: server.port, timeoutSeconds: 10)
        XCTAssertEqual(try busy.request("GET", "/").status, 200)
        // Clients that never send anything, kept open to the end.
        let idle = try (0..<30).map { _ in try RawHTTPClient(port: server.port) }
        defer { withExtendedLifetime(idle) {} }
        // Seen idle by the watch's ticks (once a second), the busy client meanwhile at work.
        for _ in 0..<5 {
            Thread.sleep(forTimeInterval: 0.5)
            XCTAssertEqual(try busy.request("GET", "/").status, 200)
        }

        let started = ContinuousClock.now
        let newcomer = try RawHTTPClient(port: server.port, timeoutSeconds: 10)
        XCTAssertEqual(try newcomer.request("GET", "/health").status, 200)
        XCTAssertLessThan(ContinuousClock.now - started, .seconds(5), "let in while idle sockets held every slot")
        XCTAssertEqual(try busy.request("GET", "/").status, 200, "the client at work kept its connection")
        XCTAssertGreaterThan(server.closedConnections.idle, 0)
        XCTAssertLessThanOrEqual(server.connectionsPerWorker.reduce(0, +), 20, "never past the limit")
        // tester41a-F6: what the metrics show of it.
        let counts = server.configuration.connectionCounts
        XCTAssertEqual(counts.closed(.idleForRoom), server.closedConnections.idle)
        XCTAssertGreaterThanOrEqual(counts.limitReached, 1)
        XCTAssertTrue((1...20).contains(counts.open), "\(counts.open) open")
    }

    /// try10b F5 (High): 19,990 connections each sending `POST /x` with `Content-Length: 1000`
    /// and one body byte locked every tenant and the health check out: a connection in its body
    /// was "at work", never closed for room. The same shape against a limit of 20: 30 such
    /// connections (ten wait in the backlog), then a new client; once the ticks have seen the
    /// bodies stall for a second, they are closed (with the 408) to let it in.
    func testStalledBodiesAtTheLimitMakeRoomForNewClients() throws {
        let server = try Self.serverOfTwentySlots()
        defer { server.stop() }
        let stalled = try Self.bodiesUnderWay(30, port: server.port)
        let started = ContinuousClock.now
        let newcomer = try RawHTTPClient(port: server.port, timeoutSeconds: 15)
        XCTAssertEqual(try newcomer.request("GET", "/health").status, 200)
        XCTAssertLessThan(ContinuousClock.now - started, .seconds(10), "let in while stalled bodies held every slot")
        XCTAssertGreaterThan(server.closedConnections.slowHeads, 0, "stalled bodies were closed")
        XCTAssertEqual(server.configuration.connectionCounts.closed(.bodyForRoom), server.closedConnections.slowHeads)
        let answers = stalled.map { String(decoding: $0.readUntilQuiet(firstByteWithin: 200, quietAfter: 100), as: UTF8.self) }
        let cut = answers.filter { !$0.isEmpty }
        XCTAssertFalse(cut.isEmpty, "some stalled bodies got their answer")
        for answer in cut {
            XCTAssertTrue(answer.hasPrefix("HTTP/1.1 408 ") && answer.contains("the request body received no byte for"), answer)
        }
    }

    /// tester40b-F3: connections holding an unfinished request head (a request line and part of
    /// a header field, then nothing, or a byte a second) were never closed for room, so once they
    /// filled the slots every tenant and the health check were locked out until the head
    /// deadline (30 s). Against a limit of 20: 15 stalled heads and 15 trickling ones (ten wait
    /// in the backlog), then a new client; once the ticks have seen the heads under way for a
    /// second, they are closed (with the slow head's 408) to let it in.
    func testStalledAndTricklingHeadsAtTheLimitMakeRoomForNewClients() throws {
        let server = try Self.serverOfTwentySlots()
        defer { server.stop() }
        let heads = try (0..<30).map { _ in
            let client = try RawHTTPClient(port: server.port, timeoutSeconds: 10)
            try client.send(raw: Array("GET /x HTTP/1.1\r\nHost: x\r\nX-Slow: a".utf8))
            return client
        }
        // Half of them keep sending a byte every half second until the newcomer comes: they
        // never look quiet, as a trickle does not.
        for _ in 0..<4 {
            Thread.sleep(forTimeInterval: 0.5)
            for client in heads[15...] { try client.send(raw: Array("b".utf8)) }
        }
        let started = ContinuousClock.now
        let newcomer = try RawHTTPClient(port: server.port, timeoutSeconds: 15)
        XCTAssertEqual(try newcomer.request("GET", "/health").status, 200)
        XCTAssertLessThan(ContinuousClock.now - started, .seconds(10), "let in while unfinished heads held every slot")
        XCTAssertGreaterThan(server.closedConnections.slowHeads, 0, "unfinished heads were closed")
        XCTAssertEqual(server.configuration.connectionCounts.closed(.headForRoom), server.closedConnections.slowHeads)
        let answers = heads.map { String(decoding: $0.readUntilQuiet(firstByteWithin: 200, quietAfter: 100), as: UTF8.self) }
        let cut = answers.filter { !$0.isEmpty }
        XCTAssertFalse(cut.isEmpty, "some unfinished heads got their answer")
        for answer in cut {
            XCTAssertTrue(answer.hasPrefix("HTTP/1.1 408 "), answer)
            // tester41a-F2: it named only the head deadline (30 s), which never passed.
            XCTAssertTrue(answer.contains("still arriving after a second while every connection slot was taken"), answer)
        }
    }

    /// Answers `/health` with `ok` and every other request with `body`.
    private struct AnsweringBody: HTTPHandler {
        let body: [UInt8]
        func respond(to request: HTTPRequest) -> HTTPAnswer {
            .now(request.target == "/health" ? HTTPResponse(status: 200, body: Array("ok".utf8)) : HTTPResponse(status: 200, body: body))
        }
        func respondToOversizedBody(_ request: HTTPRequest, limit: Int) -> HTTPAnswer { .now(HTTPResponse(status: 413)) }
    }

    /// Against a limit of 20 (head timeout 30 s) answering `bodySize` bytes: 25 clients with a
    /// 4 KiB receive buffer (5 wait in the backlog) each send `requests` (all of them in one
    /// write) and read nothing, then a new client asks for `/health`; `check` gets the server,
    /// still running with the 25 clients open, and how long the newcomer waited.
    private func newcomerBehindUnreadAnswers(
        bodySize: Int, requests: [UInt8], check: (HTTPServer, Duration) throws -> Void
    ) throws {
        let body = [UInt8](repeating: UInt8(ascii: "L"), count: bodySize)
        let server = HTTPServer(configuration: .init(port: 0, threadCount: 2, connectionLimit: 20), handler: AnsweringBody(body: body))
        try server.start()
        defer { server.stop() }
        let readers = try (0..<25).map { _ in
            let client = try RawHTTPClient(port: server.port, timeoutSeconds: 30, receiveBuffer: 4096)
            try client.send(raw: requests)
            return client
        }
        defer { withExtendedLifetime(readers) {} }
        let started = ContinuousClock.now
        let newcomer = try RawHTTPClient(port: server.port, timeoutSeconds: 20)
        XCTAssertEqual(try newcomer.request("GET", "/health").status, 200)
        try check(server, ContinuousClock.now - started)
    }

    /// tester40a-F8: clients that asked for a 5 MB mock answer and read none of it held every
    /// slot for the 120-s idle timeout (an answer being sent was never closed for room, and only
    /// one holding part of the body budget was reset after --head-timeout): the health check and
    /// every other tenant were locked out. Once the answers have been untaken for 5 s, they are
    /// reset to let the new client in.
    func testUnreadLargeAnswersAtTheLimitMakeRoomForNewClients() throws {
        try newcomerBehindUnreadAnswers(bodySize: 5_000_000, requests: Array("GET /big HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n".utf8)) { server, took in
            XCTAssertLessThan(took, .seconds(15), "let in while unread answers held every slot")
            XCTAssertGreaterThanOrEqual(took, .seconds(4), "not before the answers were untaken for 5 s")
            XCTAssertGreaterThan(server.closedConnections.slowHeads, 0, "unread answers were closed")
            XCTAssertEqual(server.configuration.connectionCounts.closed(.answerUnreadForRoom), server.closedConnections.slowHeads)
        }
    }

    /// tester66b-F1, scaled to a limit of 20: clients that each sent 10 pipelined requests for
    /// a 61,000-byte answer in one write and read none held every slot for the 120-s idle
    /// timeout (no answer under 64 KiB was watched), and the health check timed out. Once the
    /// answers have been untaken for 5 s, they are reset to let the new client in.
    func testPipelinedSmallAnswersUnreadAtTheLimitMakeRoomForNewClients() throws {
        let one = "GET /big HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"
        try newcomerBehindUnreadAnswers(bodySize: 61_000, requests: Array(String(repeating: one, count: 10).utf8)) { server, took in
            XCTAssertLessThan(took, .seconds(15), "let in while unread answers held every slot")
            XCTAssertGreaterThan(server.configuration.connectionCounts.closed(.answerUnreadForRoom), 0, "unread answers were closed for room")
        }
    }

    /// tester41a-F5: one tenant's uploads that kept trickling (a byte every half second) were
    /// never quiet for a second, so none was closed for room, and other tenants and the health
    /// check waited as long as they trickled. Against a limit of 20 (a holder's share of uploads
    /// under way: 4), with holders told by `X-Catbird-Parallel-Id`: 30 uploads of holder `A` (ten
    /// wait in the backlog) trickle a byte every 0.4 s while a newcomer of another holder waits;
    /// A's uploads past its share are closed with the 408 that says why, and the newcomer is
    /// answered while they still trickle.
    func testTricklingUploadsPastTheirHoldersShareMakeRoomForNewClients() throws {
        let (server, uploads, answer, took) = try newcomerWhileUploadsTrickle(30) { _ in "A" }
        defer { server.stop() }
        XCTAssertTrue(answer.hasPrefix("HTTP/1.1 200 "), answer)
        XCTAssertLessThan(took, .seconds(10), "let in while trickling uploads held every slot")
        let cut = uploads.map { String(decoding: $0.readUntilQuiet(firstByteWithin: 100, quietAfter: 50), as: UTF8.self) }.filter { !$0.isEmpty }
        XCTAssertFalse(cut.isEmpty, "uploads past the holder's share were closed")
        XCTAssertGreaterThanOrEqual(server.configuration.connectionCounts.closed(.uploadOverShare), cut.count)
        for answer in cut {
            XCTAssertTrue(answer.hasPrefix("HTTP/1.1 408 ") && answer.contains("(this tenant more than 1/8, or all tenants together"), answer)
        }
    }

    /// tester52c-F1, scaled to a limit of 20 (a holder's share 4, all holders' 18): six holders
    /// with four trickling uploads each, every one within its share, held every slot (four more
    /// waiting in the backlog), and nothing was closed, so a newcomer waited as long as they
    /// trickled. Past all holders' share the oldest uploads of the holder with the most are
    /// closed now, and the newcomer is answered while the others still trickle.
    func testTricklingUploadsOfManyHoldersEachWithinItsShareMakeRoomForNewClients() throws {
        let (server, _, answer, took) = try newcomerWhileUploadsTrickle(24) { "H\($0 % 6)" }
        defer { server.stop() }
        XCTAssertTrue(answer.hasPrefix("HTTP/1.1 200 "), answer)
        XCTAssertLessThan(took, .seconds(15), "let in while trickling uploads held every slot")
        XCTAssertGreaterThan(server.configuration.connectionCounts.closed(.uploadOverShare), 0, "uploads past all holders' share were closed")
    }

    /// A server with a limit of 20 (a holder's share of uploads under way 4, all holders' 18),
    /// holders told by `X-Catbird-Parallel-Id`; `count` uploads (1,000 bytes declared) of holder
    /// `holder(index)` that send a byte every 0.4 s, while a newcomer of holder `N` asks for
    /// `/health`, until it is answered or 20 s pass. Returns the running server (the caller
    /// stops it), the uploads, the newcomer's answer and how long it took.
    private func newcomerWhileUploadsTrickle(
        _ count: Int, holder: (Int) -> String
    ) throws -> (server: HTTPServer, uploads: [RawHTTPClient], answer: String, took: Duration) {
        let configuration = HTTPServer.Configuration(
            port: 0, threadCount: 2, connectionLimit: 20, budgetHolderHeader: "X-Catbird-Parallel-Id")
        let server = HTTPServer(configuration: configuration, handler: Answering())
        try server.start()
        let uploads = try (0..<count).map { index in
            let client = try RawHTTPClient(port: server.port, timeoutSeconds: 10)
            try client.send(raw: Array("POST /x HTTP/1.1\r\nHost: x\r\nX-Catbird-Parallel-Id: \(holder(index))\r\nContent-Length: 1000\r\n\r\na".utf8))
            return client
        }
        let started = ContinuousClock.now
        let newcomer = try RawHTTPClient(port: server.port, timeoutSeconds: 10)
        try newcomer.send(raw: Array("GET /health HTTP/1.1\r\nHost: x\r\nX-Catbird-Parallel-Id: N\r\n\r\n".utf8))
        var answer: [UInt8] = []
        while answer.isEmpty, ContinuousClock.now - started < .seconds(20) {
            for upload in uploads { _ = try? upload.send(raw: Array("b".utf8)) }
            answer = newcomer.readUntilQuiet(firstByteWithin: 400, quietAfter: 50)
        }
        return (server, uploads, String(decoding: answer, as: UTF8.self), ContinuousClock.now - started)
    }

    /// Review of try10b F5's change: at the limit, a body is closed for room only when its
    /// socket, read at that moment (`TCP_INFO`), has received nothing for a second. The last
    /// tick's reading projected to the moment (``ConnectionWatch/Connection/quietSince``) took
    /// an upload that sends a byte every 400 ms for a quiet one in the last part of each tick
    /// interval, and closed it. Every slot held by 20 such uploads for 5 s, while the acceptor
    /// makes room every 100 ms: none is closed.
    func testUploadsStillSendingAtTheLimitAreNotClosedForRoom() throws {
        let server = try Self.serverOfTwentySlots()
        defer { server.stop() }
        let uploads = try Self.bodiesUnderWay(20, port: server.port)
        var refused = 0
        let end = ContinuousClock.now + .seconds(5)
        while ContinuousClock.now < end {
            Thread.sleep(forTimeInterval: 0.4)
            for upload in uploads where (try? upload.send(raw: Array("b".utf8))) == nil { refused += 1 }
        }
        XCTAssertEqual(server.closedConnections.slowHeads, 0, "no upload still sending was closed for room")
        XCTAssertEqual(refused, 0, "every upload's bytes were taken")
        // Read at once: a 408 sent while they were sending is in the socket already. Uploads
        // that stop sending are closed for room a second later, rightly: waiting 50 ms for each
        // of 20 (1 s and more on a loaded machine) saw the last ones get that 408 (CI run of
        // 2026-12-04 14:55).
        for upload in uploads {
            let answer = String(decoding: upload.readUntilQuiet(firstByteWithin: 1, quietAfter: 5), as: UTF8.self)
            XCTAssertEqual(answer, "", "no 408 for an upload still sending")
        }
    }
}

/// The watch's choice of connections to close for room (``ConnectionWatch/makeRoom(_:)``), on
/// socket pairs standing in for client connections.
final class MakeRoomChoiceTests: XCTestCase {
    /// Regression (tester finding tester22b-F8): at the connection limit, 622 (then 1,215)
    /// connections that had sent a whole `GET /big` in one write were closed within
    /// milliseconds, unanswered, and journaled as their client's hang-up: accepted over a
    /// second before, their requests still unread by their busy workers, they counted as idle
    /// since their accept. Here two connections open for over a second, one with a request
    /// waiting unread: only the other is closed for room.
    func testAConnectionWithARequestWaitingIsNotClosedForRoom() throws {
        let watch = ConnectionWatch(
            headTimeout: nil, slowHeadAnswer: HTTPResponse(status: 408), stalledBodyAnswer: HTTPResponse(status: 408))
        var waiting: [Int32] = [0, 0]
        var quiet: [Int32] = [0, 0]
        XCTAssertEqual(socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0, &waiting), 0)
        XCTAssertEqual(socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0, &quiet), 0)
        defer { for socket in waiting + quiet { close(socket) } }
        let records = [watch.opened(socket: waiting[0]), watch.opened(socket: quiet[0])]
        defer { for record in records { watch.closed(record) } }
        let request = Array("GET /big HTTP/1.1\r\nHost: x\r\n\r\n".utf8)
        XCTAssertEqual(send(waiting[1], request, request.count, 0), request.count)
        Thread.sleep(forTimeInterval: 1.2)  // both idle since their opening for over ConnectionWatch.minimumIdleAge

        XCTAssertEqual(watch.makeRoom(2), 1, "only the connection with nothing waiting is closed")
        var byte: UInt8 = 0
        XCTAssertEqual(recv(quiet[1], &byte, 1, Int32(MSG_DONTWAIT)), 0, "the quiet one was shut down (its peer reads the end)")
        XCTAssertEqual(recv(waiting[1], &byte, 1, Int32(MSG_DONTWAIT)), -1, "the one with a request waiting is open")
        XCTAssertEqual(recv(waiting[0], &byte, 1, Int32(MSG_PEEK | MSG_DONTWAIT)), 1, "its request is still there to be read")
    }
}
