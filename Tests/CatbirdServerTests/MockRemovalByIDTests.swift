import CatbirdTestSupport
import Foundation
import XCTest

/// `DELETE /catbird/api/mocks/{id}` removes one of the caller's mocks by id
/// (docs/protocol.md#control-actions; try9a F11).
final class MockRemovalByIDTests: ServerTestCase {
    /// Regression (try9a F11): `curl -X DELETE $C/catbird/api/mocks/1` answered 404
    /// `no control route DELETE "/catbird/api/mocks/1"`; removing the mock that answered a
    /// request meant sending its whole pattern again, byte-exact.
    func testAMockIsRemovedByItsIDInItsTenantOnly() throws {
        let own = E2E.tenantHeader("del")
        for path in ["/a", "/b"] {
            let added = try client.json(
                "POST", "/catbird/api/mocks",
                #"{"type":"update","pattern":{"method":"GET","url":{"kind":"equal","value":"\#(path)"},"headers":{"X-V":{"kind":"regexp","value":"^v[0-9]+$"}}},"response":{"status":200}}"#,
                headers: own)
            XCTAssertEqual(added.status, 201, added.text)
        }
        XCTAssertEqual(try client.request("GET", "/a", headers: own + [("X-V", "v1")]).status, 200)
        // The id a journal entry names.
        let entry = try XCTUnwrap(try E2E.journal(client, tenant: "del").first)
        let id = try XCTUnwrap(JSONNumber.int(entry["mockId"]))

        // Another tenant can neither remove nor learn of it.
        let other = try client.request("DELETE", "/catbird/api/mocks/\(id)", headers: E2E.tenantHeader("other"))
        XCTAssertEqual(other.status, 404, other.text)
        XCTAssertEqual(other.object["reason"] as? String, #"tenant "other" has no mock with id \#(id) (GET /catbird/api/mocks lists its mocks)"#)
        XCTAssertEqual(try E2E.mocks(client, tenant: "del").count, 2)

        let removed = try client.request("DELETE", "/catbird/api/mocks/\(id)", headers: own)
        XCTAssertEqual(removed.status, 204, removed.text)
        let left = try E2E.mocks(client, tenant: "del")
        XCTAssertEqual(left.map { (($0["pattern"] as? [String: Any])?["url"] as? [String: Any])?["value"] as? String }, ["/b"])
        XCTAssertEqual(try client.request("GET", "/a", headers: own + [("X-V", "v1")]).status, 404, "no longer answered")
        XCTAssertEqual(try client.request("GET", "/b", headers: own + [("X-V", "v1")]).status, 200)
        // Gone, also after a restart (the row was deleted).
        XCTAssertEqual(try client.request("DELETE", "/catbird/api/mocks/\(id)", headers: own).status, 404)
        try server.restart()
        let restarted = try server.client()
        XCTAssertEqual(try E2E.mocks(restarted, tenant: "del").count, 1)

        for bad in ["x", "-1", "0", "1.5", "99999999999999999999"] {
            let refused = try restarted.request("DELETE", "/catbird/api/mocks/\(bad)", headers: own)
            XCTAssertEqual(refused.status, 400, "\(bad): \(refused.text)")
            XCTAssertEqual(refused.object["error"] as? Bool, true)
        }
    }
}
