import CatbirdTestSupport
import Foundation
import XCTest

/// try7a F7: with `SHARD` unset, `curl -H "X-Catbird-Parallel-Id: $SHARD"` sends no header at
/// all (curl drops a header with nothing after the colon), so the call was the admin's:
/// `DELETE /catbird/api/tenants` answered 204 and dropped every shard, `DELETE
/// /catbird/api/mocks` removed every tenant's mocks. The two cross-tenant routes now need
/// `?all=true`, with and without an admin token (docs/tenancy.md#admin).
final class EveryTenantOptInTests: XCTestCase {
    private func ids(_ client: RawHTTPClient, headers: [(String, String)] = []) throws -> Set<String> {
        let answer = try client.request("GET", "/catbird/api/tenants", headers: headers)
        XCTAssertEqual(answer.status, 200, answer.text)
        return Set((answer.object["tenants"] as? [[String: Any]] ?? []).compactMap { $0["id"] as? String })
    }

    func testAnUnsetShardVariableInCurlDropsNothing() throws {
        let server = try TestServer()
        defer { server.removeFiles() }
        let client = try server.client()
        for shard in ["shard-1", "shard-2"] { try E2E.addMock(client, tenant: shard, url: "/s", body: shard) }
        let base = "http://127.0.0.1:\(server.port)"
        let shard = ""  // the unset variable
        // The exact failing inputs, as curl sends them (no X-Catbird-Parallel-Id line at all).
        for target in ["/catbird/api/tenants", "/catbird/api/mocks"] {
            let answer = try CurlClient.run(["-X", "DELETE", "-H", "X-Catbird-Parallel-Id: \(shard)", base + target])
            XCTAssertEqual(answer.status, 400, "\(target): \(answer.text)")
            XCTAssertEqual(answer.object["error"] as? Bool, true, answer.text)
            let reason = answer.object["reason"] as? String ?? ""
            XCTAssertTrue(reason.contains("DELETE \(target)?all=true"), reason)
            XCTAssertTrue(reason.contains("nothing was done"), reason)
        }
        // `tenants/$SHARD` with SHARD unset: a 400, not the drop-all route.
        let slash = try CurlClient.run(["-X", "DELETE", "-H", "X-Catbird-Parallel-Id: \(shard)", base + "/catbird/api/tenants/\(shard)"])
        XCTAssertEqual(slash.status, 400, slash.text)
        XCTAssertTrue((slash.object["reason"] as? String ?? "").contains("names no tenant after the '/'"), slash.text)
        // Any other value than true is no opt-in either.
        for target in ["/catbird/api/tenants?all=1", "/catbird/api/mocks?all=false", "/catbird/api/mocks?all="] {
            let answer = try client.request("DELETE", target)
            E2E.assertError(answer, status: 400, reasonContains: "needs the explicit opt-in")
        }

        XCTAssertEqual(try ids(client).subtracting([""]), ["shard-1", "shard-2"], "no shard was dropped")
        for shard in ["shard-1", "shard-2"] {
            XCTAssertEqual(try client.request("GET", "/s", headers: E2E.tenantHeader(shard)).text, shard, "\(shard)'s mock still answers")
        }

        // With the opt-in both work.
        let removed = try client.request("DELETE", "/catbird/api/mocks?all=true")
        XCTAssertEqual(removed.status, 200, removed.text)
        XCTAssertEqual(JSONNumber.int(removed.object["removed"]), 2)
        XCTAssertEqual(try client.request("DELETE", "/catbird/api/tenants?all=true").status, 204)
        XCTAssertEqual(try ids(client).subtracting([""]), [], "every shard dropped")
    }

    func testWithAnAdminTokenTheBearerNeedsTheOptInToo() throws {
        let token = "opt-in-Token_0123456789"
        let bearer = [("Authorization", "Bearer \(token)")]
        let server = try TestServer { $0.adminToken = token }
        defer { server.removeFiles() }
        let client = try server.client()
        try E2E.addMock(client, tenant: "alpha", url: "/a", body: "alpha")
        for target in ["/catbird/api/tenants", "/catbird/api/mocks"] {
            E2E.assertError(try client.request("DELETE", target, headers: bearer), status: 400, reasonContains: "?all=true")
        }
        XCTAssertEqual(try client.request("GET", "/a", headers: E2E.tenantHeader("alpha")).text, "alpha", "nothing removed")
        XCTAssertEqual(try client.request("DELETE", "/catbird/api/mocks?all=true", headers: bearer).status, 200)
        XCTAssertEqual(try client.request("GET", "/a", headers: E2E.tenantHeader("alpha")).status, 404)
        XCTAssertEqual(try client.request("DELETE", "/catbird/api/tenants?all=true", headers: bearer).status, 204)
        XCTAssertEqual(try ids(client, headers: bearer).subtracting([""]), [])
    }
}
