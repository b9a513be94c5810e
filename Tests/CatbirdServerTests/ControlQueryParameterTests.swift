import CatbirdTestSupport
import Foundation
import XCTest

/// A control route refuses a query parameter it does not understand with 400 before doing
/// anything: a delete must never do more than it was asked (docs/protocol.md#query-parameters).
final class ControlQueryParameterTests: ServerTestCase {
    /// `DELETE /catbird/api/requests?tenant=all` ignored the parameter and deleted the caller's
    /// whole journal.
    func testDeleteRequestsWithAnUnknownParameterDeletesNothing() throws {
        XCTAssertEqual(try client.request("GET", "/a").status, 404)
        XCTAssertEqual(try client.request("GET", "/b").status, 404)
        for target in ["/catbird/api/requests?tenant=all", "/catbird/api/requests?since=1", "/catbird/api/requests?id=1"] {
            let answer = try client.request("DELETE", target)
            E2E.assertError(answer, status: 400)
            XCTAssertTrue(answer.text.contains("unknown query parameter"), answer.text)
        }
        XCTAssertEqual(try E2E.journal(client, tenant: nil).count, 2, "nothing was deleted")
        XCTAssertEqual(try client.request("DELETE", "/catbird/api/requests").object["deleted"] as? Int, 2)
    }

    func testOtherControlRoutesRefuseUnknownParameters() throws {
        try E2E.addMock(client, url: "/kept", body: "kept")
        let refused: [(String, String)] = [
            ("DELETE", "/catbird/api/mocks?tenant=shard-1"),
            ("GET", "/catbird/api/mocks?verbose=1"),
            ("DELETE", "/catbird/api/tenants?only=shard-1"),
            ("DELETE", "/catbird/api/tenants/shard-1?force"),
            ("GET", "/catbird/api/tenants?all=1"),
            ("GET", "/catbird/api/info?x=1"),
            ("GET", "/catbird/api/requests/1?body=true"),
        ]
        for (method, target) in refused {
            let answer = try client.request(method, target)
            E2E.assertError(answer, status: 400)
            XCTAssertTrue(answer.text.contains("unknown query parameter"), "\(method) \(target): \(answer.text)")
        }
        let post = try client.json("POST", "/catbird/api/mocks?type=removeAll", #"{"type":"removeAll"}"#)
        E2E.assertError(post, status: 400)
        XCTAssertEqual(try E2E.mocks(client, tenant: nil).count, 1, "the mock is still there")
        XCTAssertEqual(try client.request("GET", "/kept").text, "kept")
        // Parameters a route does understand still work, and the web page reads its own.
        XCTAssertEqual(try client.request("GET", "/catbird/api/requests?limit=1&order=newest").status, 200)
        XCTAssertEqual(try client.request("GET", "/catbird?tenant=shard-1").status, 200)
    }
}
