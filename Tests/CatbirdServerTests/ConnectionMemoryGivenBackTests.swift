import CatbirdTestSupport
import Foundation
import XCTest
#if canImport(Glibc)
import Glibc
#endif

/// Tester finding tester66b-F3: 12,000 keep-alive connections took the server from 45 MB to
/// 444 MB resident, and it stayed at 438 MB after they closed (each connection's 32 KiB of
/// libmicrohttpd memory comes from the heap, and glibc kept the freed blocks). Once 1,000 or
/// more connections have closed, the connection watch's next tick gives the heap's free pages
/// back. Measured on a real `catbird` process through its VmRSS.
final class ConnectionMemoryGivenBackTests: XCTestCase {
    func testTheMemoryOfClosedConnectionsIsGivenBack() throws {
        let connections = 3_000
        var limit = rlimit()
        getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit)
        if limit.rlim_cur < rlim_t(connections + 500) {
            limit.rlim_cur = min(limit.rlim_max, rlim_t(connections + 500))
            setrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit)
        }
        guard limit.rlim_cur >= rlim_t(connections + 500) else {
            throw XCTSkip("this process may open \(limit.rlim_cur) files, fewer than the \(connections) connections the test needs")
        }
        try LaunchedServer.withTemporaryDatabase { server, client in
            try E2E.addMock(client, tenant: "A", url: "/who", body: "A")
            let before = try server.currentResidentMegabytes()
            var clients: [RawHTTPClient] = []
            let request = Array("GET /who HTTP/1.1\r\nHost: x\r\nX-Catbird-Parallel-Id: A\r\n\r\n".utf8)
            for _ in 0..<connections {
                let keptAlive = try RawHTTPClient(port: server.port, timeoutSeconds: 10)
                try keptAlive.send(raw: request)
                clients.append(keptAlive)
            }
            for keptAlive in clients { XCTAssertEqual(String(decoding: keptAlive.read(upTo: 12, within: 10), as: UTF8.self), "HTTP/1.1 200") }
            let open = try server.currentResidentMegabytes()
            XCTAssertGreaterThan(open - before, 40, "\(connections) connections took memory: \(before) MB before, \(open) MB open")
            clients.removeAll()  // each closes its socket
            let deadline = ContinuousClock.now + .seconds(10)
            var after = open
            repeat {
                usleep(250_000)
                after = try server.currentResidentMegabytes()
            } while after - before > (open - before) / 3 && ContinuousClock.now < deadline
            let gauge = try E2E.metrics(client)["catbird_connections"]
            XCTAssertLessThanOrEqual(
                after - before, (open - before) / 3,
                "given back: \(before) MB before, \(open) MB with them open, \(after) MB after they closed (\(gauge ?? -1) connections open)")
            XCTAssertEqual(try client.request("GET", "/who", headers: [("X-Catbird-Parallel-Id", "A")]).text, "A")
        }
    }
}
