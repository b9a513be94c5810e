import CatbirdTestSupport
import Foundation
import XCTest

/// The URL the server says it listens on is one a client can use as given.
final class ListeningURLTests: XCTestCase {
    /// Regression (try9a F9): `--host localhost` bound 127.0.0.1 only but logged
    /// `listening on http://localhost:…`, which clients that resolve `localhost` to `::1` first
    /// (Node 17–19's fetch) cannot reach. The URL (the log's, `/catbird/api/info`'s `domain`)
    /// now names the address bound.
    func testANameIsGivenAsTheAddressBound() throws {
        let server = try TestServer { $0.host = "localhost" }
        defer { server.removeFiles() }
        let info = try server.client().request("GET", "/catbird/api/info")
        XCTAssertEqual(info.status, 200, info.text)
        let domain = try XCTUnwrap(info.object["domain"] as? String)
        XCTAssertTrue(["http://127.0.0.1:\(server.port)", "http://[::1]:\(server.port)"].contains(domain), domain)
    }
}
