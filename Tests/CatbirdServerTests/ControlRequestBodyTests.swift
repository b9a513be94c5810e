import CatbirdTestSupport
import Foundation
import XCTest

/// A `GET` or `DELETE` control route refuses a request body with 400 before doing anything, as
/// it refuses a query parameter it does not take: a delete must never do more than it was asked
/// (docs/protocol.md#request-bodies).
final class ControlRequestBodyTests: ServerTestCase {
    private static let shard = [("X-Catbird-Parallel-Id", "delbody")]

    /// Regression (a new user, MockServer habit): `DELETE /catbird/api/requests` with
    /// `{"pattern":{…"/drop"}}` in its body answered `{"deleted":4}`: the three `/keep` entries
    /// went too.
    func testDeleteRequestsWithAFilterInItsBodyDeletesNothing() throws {
        for url in ["/keep1", "/keep2", "/keep3", "/drop"] {
            XCTAssertEqual(try client.request("GET", url, headers: Self.shard).status, 404)
        }
        let filter = #"{"pattern":{"method":"GET","url":{"kind":"equal","value":"/drop"}}}"#
        let answer = try client.json("DELETE", "/catbird/api/requests", filter, headers: Self.shard)
        E2E.assertError(answer, status: 400, reasonContains: "DELETE /catbird/api/requests takes no request body, but \(filter.utf8.count) bytes were sent")
        XCTAssertEqual(try E2E.journal(client, tenant: "delbody").count, 4, "nothing was deleted")
        // Without a body it deletes, as before.
        XCTAssertEqual(try client.request("DELETE", "/catbird/api/requests", headers: Self.shard).object["deleted"] as? Int, 4)
    }

    /// Regression: `DELETE /catbird/api/tenants` with `{"ids":["q1"]}` dropped every tenant, and
    /// `DELETE /catbird/api/mocks` with `{"tenant":"x"}` removed every tenant's mocks.
    func testAdminDeletesWithABodyDoNothing() throws {
        try E2E.addMock(client, tenant: "q1", url: "/q1", body: "q1")
        try E2E.addMock(client, tenant: "q2", url: "/q2", body: "q2")
        for (target, body) in [("/catbird/api/tenants", #"{"ids":["q1"]}"#), ("/catbird/api/mocks", #"{"tenant":"q1"}"#),
                               ("/catbird/api/tenants/q1", #"{"force":true}"#)] {
            let answer = try client.json("DELETE", target, body)
            E2E.assertError(answer, status: 400, reasonContains: "takes no request body")
        }
        XCTAssertEqual(try E2E.mocks(client, tenant: "q1").count, 1, "q1's mock is still there")
        XCTAssertEqual(try E2E.mocks(client, tenant: "q2").count, 1, "q2's mock is still there")
        XCTAssertEqual(try client.request("GET", "/q2", headers: [("X-Catbird-Parallel-Id", "q2")]).text, "q2")
    }

    /// A body on a `GET` control route (and `HEAD`, answered by it) is refused too; an empty one
    /// (`Content-Length: 0`) is no body; `POST` routes still read theirs.
    func testGetRoutesRefuseABodyAndAnEmptyBodyIsNone() throws {
        try E2E.addMock(client, url: "/kept", body: "kept")
        E2E.assertError(try client.json("GET", "/catbird/api/mocks", "{}"), status: 400, reasonContains: "GET /catbird/api/mocks takes no request body, but 2 bytes")
        let head = try client.request("HEAD", "/catbird/api/requests", body: Array("x".utf8))
        XCTAssertEqual(head.status, 400)
        E2E.assertError(try client.request("GET", "/catbird/api/requests/1", body: Array("x".utf8)), status: 400,
                        reasonContains: "GET /catbird/api/requests/… takes no request body")
        XCTAssertEqual(try client.request("GET", "/catbird/api/mocks", body: []).status, 200, "Content-Length: 0 is no body")
        XCTAssertEqual(try client.request("DELETE", "/catbird/api/requests", body: []).status, 200)
        XCTAssertEqual(try E2E.mocks(client, tenant: nil).count, 1)
        XCTAssertEqual(try client.request("GET", "/kept").text, "kept")
    }
}
