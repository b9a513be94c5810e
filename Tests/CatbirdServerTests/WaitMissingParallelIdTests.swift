import CatbirdTestSupport
import Foundation
import XCTest

/// Regression (tester finding tester60b-F2, its requests): a shard's `wait` for a request the
/// app sent without `X-Catbird-Parallel-Id` timed out listing only the shard's journal; the
/// Swift client adds a note from a second query, other clients got none. The 408 says it now.
final class WaitMissingParallelIdTests: XCTestCase {
    func testAWaitThatTimesOutNamesTheDefaultTenantsMatchingRequest() throws {
        let server = try TestServer { $0.logLevel = .error }
        defer { server.removeFiles() }
        let client = try server.client()
        let shard = E2E.tenantHeader("forgot")
        try E2E.addMock(client, tenant: "forgot", method: "POST", url: "/api/login", body: nil)
        _ = try client.request("GET", "/api/feed", headers: shard)
        let pattern = #"{"pattern":{"method":"POST","url":{"kind":"equal","value":"/api/login"}},"timeout":1}"#
        let before = try client.json("POST", "/catbird/api/requests/wait", pattern, headers: shard)
        E2E.assertError(before, status: 408, reasonContains: "the journal has: GET /api/feed → 404")
        XCTAssertFalse(before.text.contains("sent without X-Catbird-Parallel-Id"), "nothing in the default tenant yet: \(before.text)")

        let forgot = try client.request("POST", "/api/login")  // the app forgot the header once
        XCTAssertEqual(forgot.status, 404, forgot.text)
        let id = JSONNumber.int(try E2E.journal(client, tenant: nil).last?["id"]) ?? -1
        let waited = try client.json("POST", "/catbird/api/requests/wait", pattern, headers: shard)
        E2E.assertError(
            waited, status: 408,
            reasonContains: "; the default tenant has a request matching it, sent without X-Catbird-Parallel-Id: #\(id) POST \"/api/login\" → 404; "
                + "is the app sending its parallel id (\"forgot\")?")
        // The default tenant's own wait has no such note.
        let own = try client.json("POST", "/catbird/api/requests/wait", #"{"pattern":{"method":"PUT","url":{"kind":"equal","value":"/x"}},"timeout":0}"#)
        XCTAssertFalse(own.text.contains("sent without"), own.text)
    }
}
