import CatbirdTestSupport
import Foundation
import XCTest

/// Regression (tester finding tester50b-F1), the exact cases: the mock the app was aimed at,
/// its method and url matching and only a header or its body differing, ranked behind every
/// sibling url one character off (docs/matching.md#near-misses) and, with three siblings,
/// fell out of the 404: the reason pointed at `/api/users/2`. It is named after the closest now.
final class NearMissSameRouteTests: XCTestCase {
    func testTheMockWhoseMethodAndURLMatchIsNamedBehindSiblingURLs() throws {
        let server = try TestServer()
        defer { server.removeFiles() }
        let client = try server.client()
        try E2E.addMock(client, url: "/api/users/1", headerPatterns: ["Authorization": ("wildcard", "Bearer *")], body: "one")
        for sibling in 2...5 { try E2E.addMock(client, url: "/api/users/\(sibling)", body: nil) }
        let intended = try XCTUnwrap(JSONNumber.int(try E2E.mocks(client, tenant: nil).first?["id"]))

        let missing = try client.request("GET", "/api/users/1")
        E2E.assertError(missing, status: 404, reasonContains: #"; the closest is mock "#)
        let reason = missing.object["reason"] as? String ?? ""
        XCTAssertTrue(reason.contains(#"url differs (expected equal "/api/users/2", got "/api/users/1")"#), reason)
        XCTAssertTrue(
            reason.contains(
                #"; the mock whose method and url match is mock \#(intended) (GET equal "/api/users/1" Authorization: wildcard "Bearer *") of the default tenant: "#
                    + #"header Authorization missing (expected wildcard "Bearer *", got none)"#),
            reason)
        XCTAssertEqual((missing.object["nearMisses"] as? [Any])?.count, 3, "the near misses stay the three closest")

        let wrongScheme = try client.request("GET", "/api/users/1", headers: [("Authorization", "Basic abc")])
        let wrongReason = wrongScheme.object["reason"] as? String ?? ""
        XCTAssertTrue(
            wrongReason.contains(
                #"the mock whose method and url match is mock \#(intended) (GET equal "/api/users/1" Authorization: wildcard "Bearer *") of the default tenant: "#
                    + #"header Authorization differs (expected wildcard "Bearer *", got "Basic abc")"#),
            wrongReason)

        // The closest itself matching method and url: named once, as the closest.
        let served = try client.request("GET", "/api/users/1", headers: [("Authorization", "Bearer t")])
        XCTAssertEqual(served.text, "one")
        let other = try client.request("GET", "/api/users/9")
        XCTAssertFalse((other.object["reason"] as? String ?? "").contains("method and url match"), other.text)
    }

    /// The tester's body case: `POST /api/orders/1` with a `jsonPath` pattern behind four
    /// siblings; the reason names it and keeps its body hint.
    func testABodyPatternsMockIsNamedWithItsBodyHint() throws {
        let server = try TestServer()
        defer { server.removeFiles() }
        let client = try server.client()
        let update = #"{"type":"update","pattern":{"method":"POST","url":{"kind":"equal","value":"/api/orders/1"},"headers":{},"#
            + #""body":{"kind":"jsonPath","value":"$.sku","equalTo":"A-1"}},"response":{"status":200}}"#
        XCTAssertEqual(try client.json("POST", "/catbird/api/mocks", update).status, 201)
        for sibling in 2...5 { try E2E.addMock(client, method: "POST", url: "/api/orders/\(sibling)", body: nil) }
        let answer = try client.request(
            "POST", "/api/orders/1", headers: [("Content-Type", "application/json")], body: Array(#"{"sku":"A-2"}"#.utf8))
        XCTAssertEqual(answer.status, 404, answer.text)
        let reason = answer.object["reason"] as? String ?? ""
        XCTAssertTrue(reason.contains(#"the mock whose method and url match is mock "#), reason)
        XCTAssertTrue(reason.contains(#"(POST equal "/api/orders/1" body jsonPath "$.sku" equalTo "A-1") of the default tenant: body differs"#), reason)
        XCTAssertTrue(reason.contains(#"the body has "A-2" there"#), reason)
    }
}
