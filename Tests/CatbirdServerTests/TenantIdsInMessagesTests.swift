import CatbirdTestSupport
import Foundation
import XCTest

/// Tenant ids in what people read (docs/tenancy.md#ids-in-messages): with an admin token set,
/// a 404 never names another tenant, in its answer or in the journal; a long id is cut in
/// reasons, and kept whole in the JSON fields meant for programs.
final class TenantIdsInMessagesTests: XCTestCase {
    private static let secretTenant = "secret-customer-shard"

    /// The issue's scenario: tenant `secret-customer-shard` mocks `GET /api/me`; a request
    /// without a parallel id misses. Returns the 404 and the default tenant's journal as an
    /// ordinary client (no parallel id, no token) reads it, listing and SQL.
    private func missWithoutParallelID(adminToken: String?) throws -> (miss: RawResponse, journal: String, sql: String) {
        let server = try TestServer { $0.adminToken = adminToken }
        defer { server.removeFiles() }
        let client = try server.client()
        try E2E.addMock(client, tenant: Self.secretTenant, url: "/api/me", body: "me")
        let miss = try client.request("GET", "/api/me")
        XCTAssertEqual(miss.status, 404, miss.text)
        let journal = try client.request("GET", "/catbird/api/requests?bodies=true")
        XCTAssertEqual(journal.status, 200, journal.text)
        let sql = try E2E.sql(client, "SELECT * FROM requests")
        XCTAssertEqual(sql.status, 200, sql.text)
        return (miss, journal.text, sql.text)
    }

    /// Regression: with `--admin-token s3cret-token` the 404 said
    /// `"matchingTenants":["secret-customer-shard"]` and named it in its reason, and the
    /// default tenant's journal (readable by anyone) stored the same text.
    func testWithAnAdminTokenA404NamesNoOtherTenant() throws {
        let (miss, journal, sql) = try missWithoutParallelID(adminToken: "s3cret-token")
        XCTAssertFalse(miss.text.contains(Self.secretTenant), miss.text)
        XCTAssertNil(miss.object["matchingTenants"], miss.text)
        let reason = try XCTUnwrap(miss.object["reason"] as? String)
        XCTAssertTrue(
            reason.contains("but another tenant (not named: an admin token is set) has a mock that matches it"), reason)
        XCTAssertTrue(journal.contains("another tenant (not named"), "the journal holds the 404 as answered: \(journal)")
        XCTAssertFalse(journal.contains(Self.secretTenant), journal)
        XCTAssertFalse(sql.contains(Self.secretTenant), sql)

        // Reference: without a token (a trusted CI host) the hint names the tenant, as before.
        let (trusted, trustedJournal, _) = try missWithoutParallelID(adminToken: nil)
        XCTAssertEqual(trusted.object["matchingTenants"] as? [String], [Self.secretTenant], trusted.text)
        XCTAssertTrue((trusted.object["reason"] as? String ?? "").contains("but tenant \"\(Self.secretTenant)\" has a mock"), trusted.text)
        XCTAssertTrue(trustedJournal.contains(Self.secretTenant))
    }

    /// Regression: a 20,000-character tenant id was echoed whole in the 404's reason and near
    /// misses' summaries (a 56 KB 404). Now the reason shows its first 64 bytes and its
    /// length; the `tenant` fields keep it whole. (Ids are now at most 1,024 bytes: the longest
    /// is used.)
    func testALongTenantIDIsCutInReasonsAndKeptWholeInFields() throws {
        let server = try TestServer()
        defer { server.removeFiles() }
        let client = try server.client()
        let longID = String(repeating: "t", count: 1024)
        let shown = "\"\(String(repeating: "t", count: 64))…\" (1024 bytes)"
        try E2E.addMock(client, tenant: longID, url: "/api/users", body: "users")

        let miss = try client.request("GET", "/api/usres", headers: E2E.tenantHeader(longID))
        XCTAssertEqual(miss.status, 404, miss.text.prefix(300).description)
        let reason = try XCTUnwrap(miss.object["reason"] as? String)
        XCTAssertTrue(reason.contains("in tenant \(shown)"), reason)
        XCTAssertTrue(reason.contains("of tenant \(shown)"), "the closest mock's owner: \(reason)")
        XCTAssertLessThan(reason.utf8.count, 600, reason)
        XCTAssertEqual(miss.object["tenant"] as? String, longID, "the field keeps the whole id")
        let nearMisses = try XCTUnwrap(miss.object["nearMisses"] as? [[String: Any]])
        XCTAssertEqual(nearMisses.first?["tenant"] as? String, longID)
        // Measured before: 56 KB (the id in the reason and in the summary besides the fields).
        XCTAssertLessThan(miss.body.count, 2 * 1024 + 2_000, "the id appears in the two fields only")

        // A shard's admin refusal and an unknown tenant's 404 cut the id too.
        let refused = try client.request("DELETE", "/catbird/api/tenants", headers: E2E.tenantHeader(longID))
        XCTAssertEqual(refused.status, 403, refused.text.prefix(300).description)
        XCTAssertTrue((refused.object["reason"] as? String ?? "").contains(shown), refused.text.prefix(300).description)
        XCTAssertLessThan(refused.body.count, 1_000)
        let unknown = String(repeating: "u", count: 300)
        let missing = try client.request("DELETE", "/catbird/api/tenants/\(unknown)")
        XCTAssertEqual(missing.status, 404, missing.text)
        XCTAssertEqual(missing.object["reason"] as? String, "no tenant \"\(String(repeating: "u", count: 64))…\" (300 bytes)")
    }
}
