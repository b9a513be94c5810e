import CatbirdTestSupport
import Foundation
import XCTest

/// Regression (tester finding tester50a-F1), the exact case: a tenant id in a control route's
/// path or query is percent-decoded byte for byte. Foundation's `removingPercentEncoding`
/// dropped a leading U+FEFF (a BOM, what Windows tools put at the start of a file a CI script
/// reads its shard id from), so the admin's `DELETE /catbird/api/tenants/%EF%BB%BFvictim`
/// dropped tenant `victim` (another shard's mocks and journal), the shard `\u{FEFF}victim`
/// could not drop itself (403: "another tenant"), and `?prefix=%EF%BB%BF` listed every tenant.
final class BOMTenantIDTests: XCTestCase {
    private static let bom = "\u{FEFF}victim"

    func testABOMLedIdIsItsOwnTenantInTheDropAndThePrefix() throws {
        let server = try TestServer()
        defer { server.removeFiles() }
        let client = try server.client()
        try E2E.addMock(client, tenant: "victim", url: "/v", body: "victim's")
        try E2E.removeAll(client, tenant: Self.bom)
        XCTAssertEqual(try ids(client), ["victim", Self.bom].map { Array($0.utf8) }.sorted { $0.lexicographicallyPrecedes($1) })

        let listed = try client.request("GET", "/catbird/api/tenants?prefix=%EF%BB%BF")
        XCTAssertEqual(listed.status, 200, listed.text)
        XCTAssertEqual(Self.ids(listed), [Array(Self.bom.utf8)], listed.text)

        // Paging past the BOM-led id ends (its `after` read back as `victim` gave the same page
        // again, forever, to a client reading every page; tester50a-F1).
        let next = try client.request("GET", "/catbird/api/tenants?limit=1&after=victim")
        XCTAssertEqual(Self.ids(next), [Array(Self.bom.utf8)], next.text)
        let past = try client.request("GET", "/catbird/api/tenants?limit=1&after=%EF%BB%BFvictim")
        XCTAssertEqual(past.status, 200, past.text)
        XCTAssertEqual(Self.ids(past), [], past.text)

        // The admin (no header) drops the BOM-led tenant, never `victim`.
        let drop = try client.request("DELETE", "/catbird/api/tenants/%EF%BB%BFvictim")
        XCTAssertEqual(drop.status, 204, drop.text)
        XCTAssertEqual(try ids(client), [Array("victim".utf8)])
        let served = try client.request("GET", "/v", headers: E2E.tenantHeader("victim"))
        XCTAssertEqual(served.status, 200, served.text)
        XCTAssertEqual(served.text, "victim's")

        // The shard drops itself, as the README's quick start has a shard do.
        try E2E.removeAll(client, tenant: Self.bom)
        let own = try client.request("DELETE", "/catbird/api/tenants/%EF%BB%BFvictim", headers: E2E.tenantHeader(Self.bom))
        XCTAssertEqual(own.status, 204, own.text)
        XCTAssertEqual(try ids(client), [Array("victim".utf8)])
    }

    /// The tenants' ids but the default tenant's, as UTF-8 bytes, sorted (Swift's `==` would
    /// hide a difference in bytes).
    private func ids(_ client: RawHTTPClient) throws -> [[UInt8]] {
        Self.ids(try client.request("GET", "/catbird/api/tenants"))
    }

    /// Read with `JSONDecoder`: `JSONSerialization` (``RawResponse/object``) drops a leading
    /// U+FEFF from a string, the very byte under test.
    private static func ids(_ answer: RawResponse) -> [[UInt8]] {
        struct Listing: Decodable { let tenants: [Tenant] }
        struct Tenant: Decodable { let id: String }
        let listing = try? JSONDecoder().decode(Listing.self, from: Data(answer.body))
        return (listing?.tenants ?? []).map { Array($0.id.utf8) }.filter { !$0.isEmpty }.sorted { $0.lexicographicallyPrecedes($1) }
    }
}
