import CatbirdTestSupport
import Foundation
import XCTest

/// The limit a used-up mock's 404 names (docs/matching.md, "used up by its limit") is the one the
/// mock was added with, in the process that added it and after a restart alike; the listing's
/// `response.limit` and `remainingLimit` are what remains (docs/protocol.md#listing-mocks).
final class UsedUpLimitAcrossRestartTests: XCTestCase {
    /// The used-up mock's part of a 404's reason, from `mock <id>` to the time.
    private func usedUpClause(_ response: RawResponse, file: StaticString = #filePath, line: UInt = #line) throws -> String {
        XCTAssertEqual(response.status, 404, response.text, file: file, line: line)
        let reason = try XCTUnwrap(response.object["reason"] as? String, file: file, line: line)
        let start = try XCTUnwrap(reason.range(of: "; mock "), reason, file: file, line: line)
        let end = try XCTUnwrap(reason.range(of: " at ", range: start.upperBound..<reason.endIndex), reason, file: file, line: line)
        return String(reason[reason.index(start.lowerBound, offsetBy: 2)..<end.lowerBound])  // from "mock"
    }

    /// Regression (tester finding T12-F10, its exact input): a `"limit": 3` mock used up in one
    /// process was "used up by its limit of 3"; with two of its uses spent before a SIGTERM
    /// restart and the last after it, "used up by its limit of 1" (the stored remaining count
    /// was loaded as the mock's limit).
    func testAMockUsedUpAcrossARestartNamesTheLimitItWasAddedWith() throws {
        let server = try TestServer()
        defer { server.removeFiles() }
        var client = try server.client()
        try E2E.addMock(client, tenant: "rs", url: "/once-more", body: "x", limit: 3)
        try E2E.addMock(client, tenant: "rs", url: "/same-process", body: "y", limit: 3)
        try E2E.addMock(client, tenant: "rs", url: "/zero", body: "z", limit: 0)
        let tenant = E2E.tenantHeader("rs")
        for _ in 0..<2 { XCTAssertEqual(try client.request("GET", "/once-more", headers: tenant).status, 200) }
        for _ in 0..<3 { XCTAssertEqual(try client.request("GET", "/same-process", headers: tenant).status, 200) }
        XCTAssertTrue(
            try usedUpClause(client.request("GET", "/same-process", headers: tenant)).hasSuffix("was used up by its limit of 3"))

        try server.restart()
        client = try server.client()

        // The listing shows what remains (Catbird 0.11's `limit` counts down); hits + remainingLimit
        // is the limit it was added with.
        let listed = try XCTUnwrap(try E2E.mocks(client, tenant: "rs").first {
            (($0["pattern"] as? [String: Any])?["url"] as? [String: Any])?["value"] as? String == "/once-more"
        })
        XCTAssertEqual(JSONNumber.int(listed["remainingLimit"]), 1)
        XCTAssertEqual(JSONNumber.int((listed["response"] as? [String: Any])?["limit"]), 1)
        XCTAssertEqual(JSONNumber.int(listed["hits"]), 2)
        let id = try XCTUnwrap(JSONNumber.int(listed["id"]))

        XCTAssertEqual(try client.request("GET", "/once-more", headers: tenant).status, 200)
        XCTAssertEqual(
            try usedUpClause(client.request("GET", "/once-more", headers: tenant)),
            #"mock \#(id) (GET equal "/once-more") of tenant "rs" matches it but was used up by its limit of 3"#)
        // `limit: 0` counts as 1, after a restart too.
        XCTAssertEqual(try client.request("GET", "/zero", headers: tenant).status, 200)
        XCTAssertTrue(try usedUpClause(client.request("GET", "/zero", headers: tenant)).hasSuffix("was used up by its limit of 1"))
    }
}
