import CatbirdServer
import CatbirdStorage
import CatbirdTestSupport
import Foundation
import XCTest

/// `--durability strict` on every path that journals (README.md#durability): when a client has
/// its answer, the row is already committed, so a new connection to the file sees it at once
/// (no flush: the test reads the file itself): a mock hit with its used-up limit, an upstream's
/// answer in redirect mode, a CORS preflight. (The 404 is in ``StrictDurabilityKillTests``.)
final class StrictDurabilityPathsTests: XCTestCase {
    func testEveryJournaledAnswerLeavesAfterItsRowIsCommitted() throws {
        let upstream = try Upstream()
        defer { upstream.stop() }
        let server = try TestServer {
            $0.durability = .strict
            $0.redirectURL = upstream.baseURL
            $0.cors = true
        }
        defer { server.removeFiles() }
        let client = try server.client()
        try E2E.addMock(client, url: "/mocked", body: "mocked", limit: 1)
        let reader = try Database(path: server.databasePath, mode: .readOnly)
        defer { reader.close() }
        func rows(_ url: String) throws -> Int {
            Int(try reader.query("SELECT count(*) FROM requests WHERE url = ?", [.text(url)]).first?[0].intValue ?? 0)
        }
        func remaining(_ url: String) throws -> Int {
            Int(try reader.query("SELECT count(*) FROM mocks WHERE url_value = ?", [.text(url)]).first?[0].intValue ?? 0)
        }

        XCTAssertEqual(try client.request("GET", "/mocked").text, "mocked")
        XCTAssertEqual(try rows("/mocked"), 1, "the mock hit's row")
        XCTAssertEqual(try remaining("/mocked"), 0, "the used-up limit is committed with it")
        let forwarded = try client.request("GET", "/mocked")
        XCTAssertEqual(forwarded.header("X-Upstream"), "yes", "its limit spent, the upstream answers: \(forwarded.text)")
        XCTAssertEqual(try rows("/mocked"), 2, "the forwarded answer's row")


        let preflight = try client.request(
            "OPTIONS", "/preflight", headers: [("Origin", "http://app.test"), ("Access-Control-Request-Method", "PUT")])
        XCTAssertLessThan(preflight.status, 300, preflight.text)
        XCTAssertEqual(try rows("/preflight"), 1, "the preflight's row")
    }
}
