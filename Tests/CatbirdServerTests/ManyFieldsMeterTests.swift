import CatbirdTestSupport
import Foundation
import XCTest

/// A worker meters the mocks it tries by their header and body patterns too, not only by their
/// url patterns' searches (docs/tenancy.md#slow-regular-expressions).
///
/// Regression (tester findings tester30c-F5 and F6, their exact shapes): 300 mocks `GET equal
/// "/h"` with 300 header patterns each, or 300 `POST equal "/j"` mocks with a `json` body of
/// 3,000 keys, then a cheap mock answering: each request compared every header list or object
/// on the worker (47 ms and 100 ms in a release build), with nothing counted or sent to the
/// lane, while another tenant's requests waited. Each now goes to the matching lane once the
/// worker's 1 ms slice of CPU time is spent, and still gets the cheap mock's answer.
final class ManyFieldsMeterTests: XCTestCase {
    func testManyHeaderPatternsGoToTheLaneAndStillReachTheCheapMock() throws {
        try LaunchedServer.withTemporaryDatabase { _, client in
            try addHeaderListMocks(client, tenant: "hA")
            try E2E.addMock(client, tenant: "hA", url: "/h", body: "CHEAP")
            let fields = Self.headerListRequestFields
            try assertOnTheLane(client) { try client.request("GET", "/h", headers: E2E.tenantHeader("hA") + fields) }
        }
    }

    /// Regression (tester finding tester30c-F8, its shape): a default-tenant miss searched a
    /// shard's 300 mocks of 300 header patterns for `matchingTenants` to the end, 48 ms of a
    /// worker past the search's 2 ms, and called the search complete. The shard's table is
    /// metered as the tenant's own matching is; the 404 says the search was not complete.
    func testTheMatchingTenantsSearchStopsInAShardsHeaderListsAndSaysSo() throws {
        try LaunchedServer.withTemporaryDatabase { _, client in
            try addHeaderListMocks(client, tenant: "shard-1")
            let fields = Self.headerListRequestFields
            let answer = try client.request("GET", "/h", headers: fields)
            XCTAssertEqual(answer.status, 404, answer.text)
            XCTAssertTrue(
                (answer.object["reason"] as? String ?? "").contains("other tenants' mocks were not searched fully for one that matches it"),
                answer.object["reason"] as? String ?? "")
        }
    }

    func testManyLargeJSONBodiesGoToTheLaneAndStillReachTheCheapMock() throws {
        try LaunchedServer.withTemporaryDatabase { _, client in
            let keys = (0..<3_000).map { #""k\#($0)":"v\#($0)""# }.joined(separator: ",")
            for i in 0..<300 {
                let action = E2E.jsonText([
                    "type": "update",
                    "pattern": [
                        "method": "POST", "url": ["kind": "equal", "value": "/j"],
                        "body": ["kind": "json", "value": "{\(keys),\"zz\":\"m\(i)\"}"],
                    ] as [String: Any],
                    "response": ["status": 200, "body": Data("never".utf8).base64EncodedString()],
                ])
                XCTAssertEqual(try client.json("POST", "/catbird/api/mocks", action, headers: E2E.tenantHeader("gA")).status, 201)
            }
            try E2E.addMock(client, tenant: "gA", method: "POST", url: "/j", body: "CHEAP")
            let body = Array("{\(keys),\"zz\":\"nope\"}".utf8)
            XCTAssertLessThan(body.count, 64 * 1024, "read on a worker, not on the body lane")
            try assertOnTheLane(client) {
                try client.request("POST", "/j", headers: E2E.tenantHeader("gA") + [("Content-Type", "application/json")], body: body)
            }
        }
    }

    /// The findings' 300 mocks `GET equal "/h"` of `tenant`, each with 300 header patterns
    /// `X-H<j>: wildcard "v<j>*"` and `X-Z: equal "z<i>"`.
    private func addHeaderListMocks(_ client: RawHTTPClient, tenant: String) throws {
        for i in 0..<300 {
            var headers: [String: (kind: String, value: String)] = ["X-Z": ("equal", "z\(i)")]
            for j in 0..<300 { headers["X-H\(j)"] = ("wildcard", "v\(j)*") }
            try E2E.addMock(client, tenant: tenant, url: "/h", headerPatterns: headers, body: "never")
        }
    }

    /// A request's fields that every one of those header patterns matches but `X-Z`.
    private static let headerListRequestFields = (0..<300).map { ("X-H\($0)", "v\($0)x") } + [("X-Z", "nope")]

    private func assertOnTheLane(_ client: RawHTTPClient, file: StaticString = #filePath, line: UInt = #line, _ send: () throws -> RawResponse) throws {
        let before = try E2E.metrics(client)["catbird_slow_matching_requests_total"] ?? 0
        let answer = try send()
        XCTAssertEqual(answer.status, 200, answer.text, file: file, line: line)
        XCTAssertEqual(answer.text, "CHEAP", file: file, line: line)
        let after = try E2E.metrics(client)["catbird_slow_matching_requests_total"] ?? 0
        XCTAssertEqual(after - before, 1, "matched on the lane once the worker's slice was spent", file: file, line: line)
    }
}
