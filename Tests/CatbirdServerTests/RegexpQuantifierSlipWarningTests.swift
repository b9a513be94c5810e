import CatbirdTestSupport
import Foundation
import XCTest

/// Regression (tester finding tester50b-F2), the exact case: the regexp url `/search?q=swift`
/// (its `?` a quantifier) never matches `/search?q=swift`; `update` answered a bare 201 and the
/// 404 read `url differs (expected regexp "/search?q=swift", got "/search?q=swift")`. The 201
/// now warns and the 404's reason says how to write it.
final class RegexpQuantifierSlipWarningTests: XCTestCase {
    func testARegexpCopiedFromAURLWarnsAndItsMissSaysWhy() throws {
        let server = try TestServer()
        defer { server.removeFiles() }
        let client = try server.client()
        let update = E2E.updateAction(url: "/search?q=swift", kind: "regexp", body: nil)
        let added = try client.json("POST", "/catbird/api/mocks", update)
        XCTAssertEqual(added.status, 201, added.text)
        let warnings = added.object["warnings"] as? [String] ?? []
        XCTAssertEqual(warnings.count, 1, added.text)
        XCTAssertTrue(
            warnings.first?.contains(#"so this mock does not match the url it spells, "/search?q=swift"; did you mean "/search\\?q=swift""#)
                ?? false, added.text)

        let missed = try client.request("GET", "/search?q=swift")
        XCTAssertEqual(missed.status, 404, missed.text)
        let reason = missed.object["reason"] as? String ?? ""
        XCTAssertTrue(reason.contains(#"reads '?' and '+' as quantifiers, so it does not match the url it spells, "/search?q=swift": write "/search\\?q=swift""#), reason)

        // Written as the hint says, it answers; a regexp whose quantifiers are meant gets no word.
        let fixed = try client.json("POST", "/catbird/api/mocks", E2E.updateAction(url: #"/search\?q=swift"#, kind: "regexp", body: Array("ok".utf8)))
        XCTAssertEqual(fixed.status, 201, fixed.text)
        XCTAssertEqual(try client.request("GET", "/search?q=swift").text, "ok")
        let meant = try client.json("POST", "/catbird/api/mocks", E2E.updateAction(url: "^/api/users/[0-9]+$", kind: "regexp", body: nil))
        XCTAssertEqual(meant.status, 201)
        XCTAssertTrue(meant.body.isEmpty, meant.text)
    }
}
