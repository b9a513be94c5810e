import CatbirdTestSupport
import Foundation
import XCTest

/// An `update` replacing a mock whose `limit` is unspent, or giving a `limit` to a mock that
/// had none, says how a sequence is written (docs/matching.md#sequences).
final class ReplacedLimitWarningTests: ServerTestCase {
    private var tenant = E2E.tenantHeader("seq")
    private let hostHeader = #"{"Host":{"kind":"wildcard","value":"*"}}"#

    private func update(
        _ kind: String, url: String = "/state", headers: String = "{}", body: String, limit: Int? = nil
    ) throws -> (status: Int, text: String, warnings: [String]?) {
        let limitKey = limit.map { #","limit":\#($0)"# } ?? ""
        let sent = try client.json(
            "POST", "/catbird/api/mocks",
            #"{"type":"update","pattern":{"method":"GET","url":{"kind":"\#(kind)","value":"\#(url)"},"headers":\#(headers)},"#
                + #""response":{"status":200,"body":"\#(Data(body.utf8).base64EncodedString())"\#(limitKey)}}"#,
            headers: tenant)
        return (sent.status, sent.text, sent.object["warnings"] as? [String])
    }

    private func warning(replaced id: Int, _ what: String) -> String {
        "this update replaced mock \(id), which \(what): mocks of the same pattern are one mock, so an update replaces it "
            + "(docs/matching.md#update-replaces-in-place); for a sequence of answers to one request (WireMock's scenarios or "
            + "times), add the first with its limit, then the next with the same pattern and a header pattern every request "
            + #"carries, such as {"Host": {"kind": "wildcard", "value": "*"}}, which answers once the first is used up "#
            + "(docs/matching.md#sequences)"
    }

    private func firstMockID() throws -> Int {
        let mocks = try E2E.mockList(client, tenant: "seq")["mocks"] as? [[String: Any]] ?? []
        return try XCTUnwrap(mocks.first?["id"] as? Int, "\(mocks)")
    }

    /// Regression (tester finding tester54a-F5, its steps: `first` with `limit: 1`, then
    /// `second`, both `equal "/state"`): the second update replaced the first with a bare 201
    /// and both requests got `second`. Now its 201 says so, with what was left of the limit
    /// (tester55b-F2: it gave the limit as added), and the sequence written as it says answers
    /// `first`, then `second`.
    func testReplacingAMockWithAnUnspentLimitSaysHowToWriteASequence() throws {
        XCTAssertEqual(try update("equal", body: "first", limit: 3).status, 201)
        XCTAssertEqual(try client.request("GET", "/state", headers: tenant).text, "first")
        let replacing = try update("equal", body: "second")
        XCTAssertEqual(replacing.status, 201, replacing.text)
        XCTAssertEqual(replacing.warnings, [warning(replaced: try firstMockID() - 1, "had 2 of its limit left")])
        // The other order: a limit given to a mock that had none.
        let limited = try update("equal", body: "first", limit: 1)
        XCTAssertEqual(limited.warnings, [warning(replaced: try firstMockID() - 1, "had no limit, with one")])

        // As the warning says: the next answer with a Host header pattern.
        let next = try update("equal", headers: hostHeader, body: "second")
        XCTAssertEqual(next.status, 201, next.text)
        XCTAssertNil(next.warnings, next.text)
        XCTAssertEqual(try client.request("GET", "/state", headers: tenant).text, "first")
        XCTAssertEqual(try client.request("GET", "/state", headers: tenant).text, "second")
        XCTAssertEqual(try client.request("GET", "/state", headers: tenant).text, "second")
    }

    /// Regression (tester findings tester55b-F3, F4): "the wildcard of the same url" was no
    /// other pattern for a wildcard url, and no match for a url holding `[…]` (a glob class).
    /// The Host header pattern works for both.
    func testTheSequenceRecipeWorksForAWildcardURLAndAURLWithGlobCharacters() throws {
        tenant = E2E.tenantHeader("seq-glob")
        for (kind, url, request) in [("wildcard", "/u/*", "/u/1"), ("equal", "/api/s?filter[name]=x", "/api/s?filter[name]=x")] {
            XCTAssertEqual(try update(kind, url: url, body: "first", limit: 1).status, 201)
            XCTAssertEqual(try update(kind, url: url, headers: hostHeader, body: "second").status, 201)
            XCTAssertEqual(try client.request("GET", request, headers: tenant).text, "first", url)
            XCTAssertEqual(try client.request("GET", request, headers: tenant).text, "second", url)
        }
    }

    /// A used-up limit, a replacement that keeps no limit, or the same mock sent again (a
    /// set-up that re-adds it: tester finding tester55b-F5) gets no word.
    func testReplacingAMockWithoutAnUnspentLimitSaysNothing() throws {
        tenant = E2E.tenantHeader("seq-none")
        XCTAssertEqual(try update("equal", body: "a").text, "")
        XCTAssertEqual(try update("equal", body: "b").text, "", "no limit before or after")
        XCTAssertEqual(try update("wildcard", body: "c", limit: 1).text, "", "a new mock: nothing replaced")
        XCTAssertEqual(try update("wildcard", body: "c", limit: 1).text, "", "the same mock again")
    }
}
