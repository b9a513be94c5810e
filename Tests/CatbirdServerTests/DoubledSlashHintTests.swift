import CatbirdTestSupport
import Foundation
import XCTest

/// Regression (tester finding tester50b-F6), the exact case: an app whose base URL ends in `/`
/// sends `//api/feed`; the 404 said only `url differs (expected equal "/api/feed", got
/// "//api/feed")`, where the same slip on a control path is explained. It names the slip now,
/// its query kept, beside other urls as near.
final class DoubledSlashHintTests: XCTestCase {
    func testADoubledSlashInAnAppPathGetsAHint() throws {
        let server = try TestServer()
        defer { server.removeFiles() }
        let client = try server.client()
        try E2E.addMock(client, url: "/api/feed", body: "feed")
        let hint = #"mock 1's url "/api/feed" differs from the request-target only in a doubled '/': equal compares the "#
            + #"request-target as sent; check the app's base URL for a trailing '/'"#
        let missed = try client.request("GET", "//api/feed")
        XCTAssertEqual(missed.status, 404, missed.text)
        XCTAssertTrue((missed.object["reason"] as? String ?? "").contains(hint), missed.text)

        for url in ["//api/fee1", "//api/fee2", "//api/fee3"] { try E2E.addMock(client, url: url, body: nil) }
        let behind = try client.request("GET", "//api/feed?page=1")
        XCTAssertTrue((behind.object["reason"] as? String ?? "").contains("only in a doubled '/'") == false, "another query: no hint")
        try E2E.addMock(client, url: "/api/list?page=1", body: nil)
        let withQuery = try client.request("GET", "//api//list?page=1")
        XCTAssertTrue(
            (withQuery.object["reason"] as? String ?? "").contains(#"url "/api/list?page=1" differs from the request-target only in a doubled '/'"#),
            withQuery.text)
        let closer = try client.request("GET", "//api/feed")
        XCTAssertTrue((closer.object["reason"] as? String ?? "").contains(hint), "named beside three other urls: \(closer.text)")
    }
}
