import CatbirdTestSupport
import Foundation
import XCTest

/// `GET /catbird` and its assets: served under `/catbird` with the page's security headers,
/// small, and never journaled (the page's behaviour in a browser is tested by
/// Tests/Browser/webpage_test.py, run from scripts/test).
final class WebPageRouteTests: XCTestCase {
    func testPageAndAssetsCarryTheSecurityPolicyAndAreNotJournaled() throws {
        let server = try TestServer()
        defer { server.removeFiles() }
        let client = try server.client()
        var total = 0
        for (path, type) in [
            ("/catbird", "text/html; charset=utf-8"), ("/catbird/", "text/html; charset=utf-8"), ("/catbird/assets/page.js", "text/javascript; charset=utf-8"),
            ("/catbird/assets/page.css", "text/css; charset=utf-8"), ("/catbird/assets/icon.svg", "image/svg+xml"),
        ] {
            let answer = try client.request("GET", path + (path == "/catbird" ? "?tenant=%E2%9C%93" : ""))
            XCTAssertEqual(answer.status, 200, path)
            XCTAssertEqual(answer.header("Content-Type"), type, path)
            let policy = try XCTUnwrap(answer.header("Content-Security-Policy"), path)
            XCTAssertTrue(policy.contains("script-src 'self';"), policy)
            XCTAssertTrue(policy.contains("connect-src 'self';"), policy)
            XCTAssertFalse(policy.contains("unsafe-inline"), policy)
            XCTAssertEqual(answer.header("X-Content-Type-Options"), "nosniff", path)
            if path != "/catbird/" { total += answer.body.count }
        }
        // `GET /catbird/` (a trailing slash) was a JSON 404; it is the same page.
        XCTAssertEqual(try client.request("GET", "/catbird/").body, try client.request("GET", "/catbird").body)
        XCTAssertLessThan(total, 150_000, "the page and its assets stay under ~150 KB")
        let page = try client.request("GET", "/catbird")
        XCTAssertTrue(page.text.contains(#"<link rel="icon" href="/catbird/assets/icon.svg""#), "no /favicon.ico request")
        XCTAssertFalse(page.text.contains("<script>"), "no inline script")
        XCTAssertEqual(try client.request("GET", "/catbird/assets/nothing.js").status, 404)
        XCTAssertEqual(try E2E.journal(client, tenant: nil).count, 0, "nothing the page loads is journaled")
    }
}
