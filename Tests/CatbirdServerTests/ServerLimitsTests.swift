import CatbirdServer
import CatbirdTestSupport
import Foundation
import XCTest
#if canImport(Glibc)
import Glibc
#endif

/// Limits a shared CI host runs into, each a regression test for what a new user hit.
final class ServerLimitsTests: XCTestCase {
    /// Regression: libmicrohttpd's default cap of about a thousand connections let 1,100 idle
    /// clients lock every new client out until the idle timeout.
    func testEleventHundredIdleConnectionsDoNotLockOutANewClient() throws {
        var limit = rlimit()
        XCTAssertEqual(getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit), 0, "getrlimit: errno \(errno)")
        guard limit.rlim_max >= 4096 else { throw XCTSkip("hard open-file limit \(limit.rlim_max) is too low for this test") }
        let original = limit
        limit.rlim_cur = limit.rlim_max
        XCTAssertEqual(setrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit), 0, "setrlimit: errno \(errno)")
        defer {
            var restore = original
            XCTAssertEqual(setrlimit(Int32(RLIMIT_NOFILE.rawValue), &restore), 0, "restoring the limit: errno \(errno)")
        }

        let server = try TestServer()
        defer { server.removeFiles() }
        var idle: [RawHTTPClient] = []
        for _ in 0..<1100 {
            let client = try RawHTTPClient(port: server.port, timeoutSeconds: 10)
            try client.send(raw: Array("GET /slow HTTP/1.1\r\nHost: x\r\n".utf8))  // headers never finished
            idle.append(client)
        }
        let fresh = try RawHTTPClient(port: server.port, timeoutSeconds: 10)
        XCTAssertEqual(try fresh.request("GET", "/catbird/api/health").status, 200)
        XCTAssertEqual(idle.count, 1100)
    }

    /// Regression: a second server on the same file used to start; each then served its own
    /// mocks from memory while `removeAll` on one deleted the other's rows.
    func testASecondServerOnTheSameFileIsRefused() throws {
        let server = try TestServer()
        defer { server.removeFiles() }
        XCTAssertThrowsError(try CatbirdServer(settings: server.settings)) { error in
            XCTAssertTrue("\(error)".contains("is in use by another Catbird server"), "\(error)")
        }
        XCTAssertEqual(try server.client().request("GET", "/catbird/api/health").status, 200)
        server.stop()
        let again = try CatbirdServer(settings: server.settings)
        again.stop()
    }

    /// Regression: `domain` echoed the request's Host header (`Host: evil.example:1` gave
    /// `http://evil.example:1`); it is the address the server listens on.
    func testInfoDomainIsTheServersOwnAddress() throws {
        // Any Host answered (docs/files.md#host-names), and still not echoed as the domain.
        let server = try TestServer { $0.allowedHosts = ["*"] }
        defer { server.removeFiles() }
        let info = try server.client().request("GET", "/catbird/api/info", headers: [("Host", "evil.example:1")])
        XCTAssertEqual(info.status, 200)
        XCTAssertEqual(info.object["domain"] as? String, "http://127.0.0.1:\(server.port)")
        XCTAssertEqual(info.object["version"] as? String, CatbirdServer.version)
    }
}
