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
            reasonContains: "; the default tenant has a request matching it, sent without X-Catbird-Parallel-Id (or with it empty): #\(id) POST \"/api/login\" → 404; "
                + "is the app sending its parallel id (\"forgot\")?")
        // The default tenant's own wait has no such note.
        let own = try client.json("POST", "/catbird/api/requests/wait", #"{"pattern":{"method":"PUT","url":{"kind":"equal","value":"/x"}},"timeout":0}"#)
        XCTAssertFalse(own.text.contains("sent without"), own.text)
    }

    /// Regression (tester finding tester63a-F3): with a body pattern, a request the app sent
    /// without its parallel id whose body was refused (413) or cut by the journal matched
    /// nothing, and the 408 said only "nothing". It names the request, matching but for its body.
    func testAWaitWithABodyPatternNamesARequestWhoseBodyWasRefused() throws {
        let server = try TestServer { $0.logLevel = .error; $0.maxBodySize = 1024 }
        defer { server.removeFiles() }
        let app = try server.client()
        let refused = try app.request("POST", "/upload", body: Array((String(repeating: "a", count: 2000) + "zzz").utf8))
        XCTAssertEqual(refused.status, 413, refused.text)
        let client = try server.client()
        let id = JSONNumber.int(try E2E.journal(client, tenant: nil).last?["id"]) ?? -1
        let waited = try client.json(
            "POST", "/catbird/api/requests/wait",
            #"{"pattern":{"method":"POST","url":{"kind":"equal","value":"/upload"},"body":{"kind":"contains","value":"zzz"}},"timeout":0}"#,
            headers: E2E.tenantHeader("shard-2"))
        E2E.assertError(
            waited, status: 408,
            reasonContains: "; the default tenant has a request matching it but for the body pattern (its body refused or cut by the journal), "
                + "sent without X-Catbird-Parallel-Id (or with it empty): #\(id) POST \"/upload\" → 413")
    }
}
