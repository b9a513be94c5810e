import CatbirdDomain
import CatbirdTestSupport
import Foundation
import XCTest

/// Per-tenant mock limits (docs/protocol.md#mock-limits): an `update` past `--max-tenant-mocks`
/// or `--max-tenant-mock-bytes` gets 409 with the reason and stores nothing.
final class TenantMockLimitsTests: XCTestCase {
    private func withServer(maxMocks: Int?, maxBytes: Int?, _ body: (RawHTTPClient) throws -> Void) throws {
        let server = try TestServer { $0.mockLimits = TenantMockLimits(maxMocks: maxMocks, maxBytes: maxBytes) }
        defer { server.removeFiles() }
        try body(try server.client())
    }

    private func update(_ client: RawHTTPClient, tenant: String, url: String, bodyBytes: Int) throws -> RawResponse {
        try client.json(
            "POST", "/catbird/api/mocks", E2E.updateAction(url: url, body: Array(repeating: UInt8(ascii: "y"), count: bodyBytes)),
            headers: E2E.tenantHeader(tenant))
    }

    private func storedRows(_ client: RawHTTPClient, tenant: String) throws -> Int {
        try E2E.tenants(client).first { $0["id"] as? String == tenant }.flatMap { JSONNumber.int($0["mocks"]) } ?? 0
    }

    func testAnUpdatePastTheMockCountIsRefusedWith409AndChangesNothingWhileReplacingAndOtherTenantsStillWork() throws {
        try withServer(maxMocks: 3, maxBytes: nil) { client in
            for index in 1...3 { XCTAssertEqual(try update(client, tenant: "S", url: "/m/\(index)", bodyBytes: 1).status, 201) }
            let refused = try update(client, tenant: "S", url: "/m/4", bodyBytes: 1)
            E2E.assertError(refused, status: 409)
            XCTAssertEqual(
                refused.object["reason"] as? String,
                #"tenant "S" holds 3 mocks, the limit is 3 (--max-tenant-mocks, CATBIRD_MAX_TENANT_MOCKS): remove mocks (remove, removeAll) before adding more"#)
            XCTAssertEqual(try E2E.mocks(client, tenant: "S").count, 3)
            XCTAssertEqual(try storedRows(client, tenant: "S"), 3)
            XCTAssertEqual(try client.request("GET", "/m/4", headers: E2E.tenantHeader("S")).status, 404)

            // Replacing adds no mock; another tenant has its own count; a removal makes room.
            XCTAssertEqual(try update(client, tenant: "S", url: "/m/2", bodyBytes: 5).status, 201)
            XCTAssertEqual(try update(client, tenant: "T", url: "/m/4", bodyBytes: 1).status, 201)
            let remove = try client.json(
                "POST", "/catbird/api/mocks", E2E.jsonText(["type": "remove", "pattern": E2E.pattern(url: "/m/1")]),
                headers: E2E.tenantHeader("S"))
            XCTAssertEqual(remove.status, 204)
            XCTAssertEqual(try update(client, tenant: "S", url: "/m/4", bodyBytes: 1).status, 201)
            XCTAssertEqual(try E2E.mocks(client, tenant: "S").count, 3)
        }
    }

    /// Regression (try6b finding 5): ten 30 MiB mocks in tenant MEM were all accepted and grew
    /// the server by 614 MB. Scaled down 30-fold (1 MiB bodies, a 3.5 MiB limit): the fourth is
    /// refused, the three stored stay as they were. Each mock's pattern (`GET /bigN`, 8 bytes)
    /// counts too (try9b F14), so the limit is 3.5 MiB and 3 patterns.
    func testMockBodiesPastTheTenantsByteLimitAreRefusedWith409AndTheStoredOnesKept() throws {
        let mebibyte = 1 << 20
        try withServer(maxMocks: nil, maxBytes: 3 * mebibyte + mebibyte / 2 + 3 * 8) { client in
            for index in 0..<3 { XCTAssertEqual(try update(client, tenant: "MEM", url: "/big\(index)", bodyBytes: mebibyte).status, 201) }
            let refused = try update(client, tenant: "MEM", url: "/big3", bodyBytes: mebibyte)
            E2E.assertError(refused, status: 409)
            XCTAssertEqual(
                refused.object["reason"] as? String,
                #"tenant "MEM" holds 3145752 bytes of mock response bodies and patterns and this update would make it 4194336, "#
                    + #"the limit is 3670040 bytes (--max-tenant-mock-bytes, CATBIRD_MAX_TENANT_MOCK_BYTES): remove mocks (remove, removeAll) first"#)
            XCTAssertEqual(try storedRows(client, tenant: "MEM"), 3)
            XCTAssertEqual(try client.request("GET", "/big0", headers: E2E.tenantHeader("MEM")).body.count, mebibyte)

            // A replacement counts the new body instead of the old one.
            XCTAssertEqual(try update(client, tenant: "MEM", url: "/big0", bodyBytes: mebibyte + mebibyte / 2).status, 201)
            E2E.assertError(try update(client, tenant: "MEM", url: "/big1", bodyBytes: mebibyte + 1), status: 409)
            XCTAssertEqual(try client.request("GET", "/big1", headers: E2E.tenantHeader("MEM")).body.count, mebibyte)
            XCTAssertEqual(try E2E.mocks(client, tenant: "MEM").count, 3)
        }
    }

    /// Regression (tester finding T19B-F5), the exact shapes: the default tenant was named
    /// `tenant ""` in the 409 limit reasons and in a 404's used-up clause (`mock 52 (GET equal
    /// "/shared") of tenant "" matches it but was used up …`), while every other reason says
    /// "the default tenant".
    func testTheDefaultTenantIsNamedSoInLimitAndUsedUpReasons() throws {
        try withServer(maxMocks: 1, maxBytes: nil) { client in
            try E2E.addMock(client, url: "/shared", body: "x", limit: 1)
            let refused = try client.json(
                "POST", "/catbird/api/mocks",
                E2E.jsonText(["type": "update", "pattern": E2E.pattern(method: "GET", url: "/second"), "response": ["status": 200]]))
            E2E.assertError(refused, status: 409, reasonContains: "the default tenant holds 1 mocks, the limit is 1")
            XCTAssertEqual(try client.request("GET", "/shared", headers: E2E.tenantHeader("fa")).status, 200)
            let miss = try client.request("GET", "/shared", headers: E2E.tenantHeader("fb"))
            E2E.assertError(miss, status: 404, reasonContains: #"mock 1 (GET equal "/shared") of the default tenant matches it but was used up"#)
            XCTAssertFalse(miss.text.contains(#"tenant \"\""#), miss.text)
        }
    }

    /// Regression (try9b F14 addendum 2): with `--max-tenant-mock-bytes 1kb`, 30 updates of
    /// `POST equal /p<i>` with a 5 MB body `contains` "<i>ccc…" and a 20 KB `equal` header value
    /// were all accepted (RSS 33 MB → 330 MB): only response bodies counted. Scaled to 2 KB
    /// and 700 bytes: the pattern's bytes count, so each is refused, and one that fits is not.
    func testPatternBytesCountAgainstTheTenantsByteLimit() throws {
        try withServer(maxMocks: nil, maxBytes: 1024) { client in
            func update(_ index: Int, contains: Int, header: Int) throws -> RawResponse {
                var pattern = E2E.pattern(
                    method: "POST", url: "/p\(index)", headers: ["X-Big": (kind: "equal", value: String(repeating: "h", count: header))])
                pattern["body"] = ["kind": "contains", "value": "\(index)" + String(repeating: "c", count: contains)]
                return try client.json(
                    "POST", "/catbird/api/mocks", E2E.jsonText(["type": "update", "pattern": pattern, "response": ["status": 200]]),
                    headers: E2E.tenantHeader("S"))
            }
            let body = try update(1, contains: 2000, header: 0)
            E2E.assertError(body, status: 409)
            XCTAssertEqual(
                body.object["reason"] as? String,
                #"tenant "S" holds 0 bytes of mock response bodies and patterns and this update would make it 2013, the limit is "#
                    + #"1024 bytes (--max-tenant-mock-bytes, CATBIRD_MAX_TENANT_MOCK_BYTES): remove mocks (remove, removeAll) first"#)
            E2E.assertError(try update(2, contains: 0, header: 1100), status: 409)
            XCTAssertEqual(try update(3, contains: 500, header: 300).status, 201)
            E2E.assertError(try update(4, contains: 500, header: 300), status: 409)
            XCTAssertEqual(try E2E.mocks(client, tenant: "S").count, 1)
        }
    }

    /// A tenant already past a limit (stored before it was lowered) can still replace a mock by
    /// one no larger: that adds neither a mock nor bytes.
    func testATenantPastTheLimitsAfterARestartLoadsWholeAndMayShrink() throws {
        let server = try TestServer()
        defer { server.removeFiles() }
        var client = try server.client()
        for index in 0..<3 { XCTAssertEqual(try update(client, tenant: "S", url: "/m/\(index)", bodyBytes: 10).status, 201) }
        server.stop()
        let lowered = try TestServer { settings in
            settings.databasePath = server.databasePath
            settings.mockLimits = TenantMockLimits(maxMocks: 2, maxBytes: 20)
        }
        defer { lowered.stop() }
        client = try lowered.client()
        XCTAssertEqual(try E2E.mocks(client, tenant: "S").count, 3)
        XCTAssertEqual(try update(client, tenant: "S", url: "/m/0", bodyBytes: 4).status, 201)
        E2E.assertError(try update(client, tenant: "S", url: "/m/1", bodyBytes: 11), status: 409)
        E2E.assertError(try update(client, tenant: "S", url: "/m/9", bodyBytes: 0), status: 409)
    }
}
