import CatbirdTestSupport
import Foundation
import XCTest

/// A shard's 403 on a cross-tenant route says who the admin is rather than telling the shard to
/// leave out its parallel id (docs/tenancy.md#admin): a test helper told so became the admin of
/// every shard on a server without a token.
final class ShardAdminRefusalTests: ServerTestCase {
    /// Tester finding T19B-F17, the exact requests, as shard `s1` on a server without a token:
    /// each 403 ended "send the request without the header for admin actions". Each now names
    /// the admin, and the drop-all route what a shard does instead. Nothing is dropped.
    func testTheRefusalNamesTheAdminAndNeverAdvisesDroppingTheHeader() throws {
        try E2E.addMock(client, tenant: "other", url: "/o", body: "o")
        try E2E.addMock(client, tenant: "s1", url: "/s", body: "s")
        let cases: [(target: String, action: String)] = [
            ("/catbird/api/tenants?all=true", "dropping every tenant (a shard drops its own with DELETE /catbird/api/tenants/<its id>)"),
            ("/catbird/api/tenants/other", #"dropping another tenant (the path names tenant "other")"#),
            ("/catbird/api/mocks?all=true", #"removing every tenant's mocks (a tenant removes its own with {"type":"removeAll"})"#),
        ]
        for (target, action) in cases {
            let refused = try client.request("DELETE", target, headers: E2E.tenantHeader("s1"))
            E2E.assertError(
                refused, status: 403,
                reasonContains: "\(action) is an admin action, and a shard (X-Catbird-Parallel-Id: \"s1\") may act on only its own tenant; "
                    + "the admin (a call without X-Catbird-Parallel-Id on a trusted host, or with the admin token) does that "
                    + "(docs/tenancy.md#admin)")
            let reason = refused.object["reason"] as? String ?? ""
            XCTAssertFalse(reason.contains("without the header"), reason)
        }
        XCTAssertEqual(try E2E.mocks(client, tenant: "other").count, 1, "the other tenant's mock is kept")
        XCTAssertEqual(try E2E.mocks(client, tenant: "s1").count, 1, "the shard's own mock is kept")
    }

    /// Regression (tester finding tester56c-F1, its requests): a shard whose id is `shard-K`
    /// with a KELVIN SIGN dropping the ASCII `shard-K`, and shard `victim` dropping `victim%20`,
    /// got a 403 naming only the caller, which read as "shard-K may not drop shard-K". The
    /// reason now names the path's tenant as well, and a look-alike id says so.
    func testTheRefusalToDropAnotherTenantNamesBothIds() throws {
        try E2E.addMock(client, tenant: "shard-K", url: "/u", body: "x")
        try E2E.addMock(client, tenant: "victim ", url: "/v", body: "v")
        let kelvin = try client.request("DELETE", "/catbird/api/tenants/shard-K", headers: [("X-Catbird-Parallel-Id", "shard-\u{212A}")])
        E2E.assertError(
            kelvin, status: 403,
            reasonContains: #"dropping another tenant (the path names tenant "shard-K") is an admin action, and a shard "#
                + #"(X-Catbird-Parallel-Id: "shard-\#u{212A}" (not in NFC: U+212A)) may act on only its own tenant"#)
        // tester58a-F7, its request: a DEL in the path's id was written raw and not flagged.
        let del = try client.request("DELETE", "/catbird/api/tenants/s5%7F", headers: E2E.tenantHeader("s5"))
        E2E.assertError(
            del, status: 403,
            reasonContains: "dropping another tenant (the path names tenant \"s5\u{7F}\" (holds U+007F, which may not show)) is an admin action")
        XCTAssertEqual(try E2E.mocks(client, tenant: "shard-K").count, 1, "nothing was dropped")
        XCTAssertEqual(try E2E.mocks(client, tenant: "victim").count, 1, "nothing was dropped")
    }

    /// Regression (tester finding tester62b-F4, its requests): the header's id is trimmed, the
    /// path's was not, so shard `sp-1` dropping `%20sp-1%20` (a padded variable, or an id read
    /// from a file with its line break) was refused as dropping another tenant. The path's id is
    /// trimmed the same way now; no tenant id holds spaces or line breaks at its ends.
    func testAPathIDIsTrimmedAsTheHeadersIs() throws {
        for (path, shard) in [("%20sp-1%20", "sp-1"), ("sp-2%0A", "sp-2"), ("%09sp-3%0D%0A", "sp-3")] {
            try E2E.addMock(client, tenant: shard, url: "/t", body: "t")
            let dropped = try client.request("DELETE", "/catbird/api/tenants/\(path)", headers: E2E.tenantHeader(shard))
            XCTAssertEqual(dropped.status, 204, "\(path): \(dropped.text)")
            XCTAssertEqual(try E2E.mocks(client, tenant: shard).count, 0, "\(path): its own tenant dropped")
        }
        let blank = try client.request("DELETE", "/catbird/api/tenants/%20%20", headers: E2E.tenantHeader("sp-1"))
        E2E.assertError(blank, status: 400, reasonContains: "names no tenant after the '/'")
    }
}
