import CatbirdTestSupport
import Foundation
import XCTest

/// tester42a-F5: a control call sent to `//catbird/api/mocks` (a base URL ending in `/`),
/// `/Catbird/api/mocks` or `/%63atbird/api/mocks` is app traffic, and its 404 named an unrelated
/// mock as the closest and nothing of the control API. The reason now says it is not a
/// control route, and why.
final class ControlPathSlipHintTests: ServerTestCase {
    func testAControlPathSpelledAnotherWayIsNamedInThe404() throws {
        let update = Array(#"{"type":"update","pattern":{"method":"GET","url":{"kind":"equal","value":"/api/feed"}},"response":{"status":200}}"#.utf8)
        let added = try client.request("POST", "/catbird/api/mocks", headers: [("Content-Type", "application/json")], body: Array(
            #"{"type":"update","pattern":{"method":"GET","url":{"kind":"equal","value":"/api/users"}},"response":{"status":200}}"#.utf8))
        XCTAssertEqual(added.status, 201, added.text)
        for (path, doubled) in [("//catbird/api/mocks", true), ("/Catbird/api/mocks", false), ("/%63atbird/api/mocks", false)] {
            let miss = try client.request(
                "POST", path, headers: [("Content-Type", "application/json"), ("X-Catbird-Parallel-Id", "ctl")], body: update)
            XCTAssertEqual(miss.status, 404, miss.text)
            let reason = miss.object["reason"] as? String ?? ""
            XCTAssertTrue(
                reason.contains(#""\#(path)" is not a control route: control routes are /catbird and the paths under /catbird/, as written (a doubled '/', another letter case or a %XX escape makes app traffic of it)"#),
                reason)
            XCTAssertEqual(reason.contains("check the base URL for a trailing '/'"), doubled, reason)
        }
        XCTAssertEqual(try E2E.mocks(client, tenant: "ctl").count, 0, "no mock was added")
        // Other paths get no such hint.
        let other = try client.request("GET", "/catalog/items")
        XCTAssertFalse((other.object["reason"] as? String ?? "").contains("control route"), other.text)
    }
}
