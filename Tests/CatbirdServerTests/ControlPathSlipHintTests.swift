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

    /// tester48c-F13, its client: `Catbird(url: "http://127.0.0.1:port/prefix")` sent its
    /// control calls to `/prefix/catbird/api/mocks`, app traffic whose 404 named an unrelated
    /// mock and nothing of the control API. The reason now says it is the control path under a
    /// prefix and what to give the client.
    func testAControlPathUnderAPrefixIsNamedInThe404() throws {
        let update = Array(#"{"type":"update","pattern":{"method":"GET","url":{"kind":"equal","value":"/u"}},"response":{"status":200}}"#.utf8)
        XCTAssertEqual(try client.request("POST", "/catbird/api/mocks", headers: [("Content-Type", "application/json"), ("X-Catbird-Parallel-Id", "urlshape")],
                                          body: update).status, 201)
        for path in ["/prefix/catbird/api/mocks", "/a/b/catbird/api/requests?limit=5"] {
            let miss = try client.request("POST", path, headers: [("Content-Type", "application/json"), ("X-Catbird-Parallel-Id", "urlshape")], body: update)
            XCTAssertEqual(miss.status, 404, miss.text)
            let reason = miss.object["reason"] as? String ?? ""
            let shown = String(path.prefix { $0 != "?" })
            let prefix = String(shown[..<shown.range(of: "/catbird/api/")!.lowerBound])
            XCTAssertTrue(reason.contains(#""\#(shown)" is Catbird's control path under the prefix "\#(prefix)", which makes app traffic of it"#), reason)
            XCTAssertTrue(reason.contains("give the client the server's root URL (Catbird(url: http://host:port), no path)"), reason)
        }
        let plain = try client.request("GET", "/api/catbird/x")
        XCTAssertFalse((plain.object["reason"] as? String ?? "").contains("control path"), plain.text)
    }
}
