import CatbirdTestSupport
import Foundation
import XCTest

/// An `update` replacing a mock whose `limit` is unspent, or giving a `limit` to a mock that
/// had none, says how a sequence is written (docs/matching.md#sequences).
final class ReplacedLimitWarningTests: ServerTestCase {
    private var tenant = E2E.tenantHeader("seq")

    private func update(_ kind: String, body: String, limit: Int? = nil) throws -> (status: Int, text: String, warnings: [String]?) {
        let limitKey = limit.map { #","limit":\#($0)"# } ?? ""
        let sent = try client.json(
            "POST", "/catbird/api/mocks",
            #"{"type":"update","pattern":{"method":"GET","url":{"kind":"\#(kind)","value":"/state"}},"response":{"status":200,"body":"\#(Data(body.utf8).base64EncodedString())"\#(limitKey)}}"#,
            headers: tenant)
        return (sent.status, sent.text, sent.object["warnings"] as? [String])
    }

    /// Regression (tester finding tester54a-F5, its steps: `first` with `limit: 1`, then
    /// `second`, both `equal "/state"`): the second update replaced the first with a bare 201
    /// and both requests got `second`. Now its 201 says so and how to write the sequence; the
    /// sequence written that way answers `first`, then `second`.
    func testReplacingAMockWithAnUnspentLimitSaysHowToWriteASequence() throws {
        XCTAssertEqual(try update("equal", body: "first", limit: 1).status, 201)
        let mocks = try E2E.mockList(client, tenant: "seq")["mocks"] as? [[String: Any]] ?? []
        let firstID = try XCTUnwrap(mocks.first?["id"] as? Int, "\(mocks)")
        let replacing = try update("equal", body: "second")
        XCTAssertEqual(replacing.status, 201, replacing.text)
        XCTAssertEqual(
            replacing.warnings,
            [
                "this update replaced mock \(firstID), which had 1 of its limit left: mocks of the same pattern are one mock, so an "
                    + "update replaces it (docs/matching.md#update-replaces-in-place); for a sequence of answers to one request "
                    + "(WireMock's scenarios or times), add the first with its limit and the next with another pattern that matches "
                    + "the same request, such as the wildcard of the same url, which answers once the first is used up "
                    + "(docs/matching.md#sequences)"
            ])
        // The other order: a limit given to a mock that had none.
        let limited = try update("equal", body: "first", limit: 1)
        XCTAssertTrue(limited.warnings?.first?.hasPrefix("this update replaced mock ") ?? false, limited.text)
        XCTAssertTrue(limited.warnings?.first?.contains(", which had no limit, with one: ") ?? false, limited.text)

        // As the warning says: the next answer under another pattern of the same request.
        let fallback = try update("wildcard", body: "second")
        XCTAssertEqual(fallback.status, 201, fallback.text)
        XCTAssertNil(fallback.warnings, fallback.text)
        XCTAssertEqual(try client.request("GET", "/state", headers: tenant).text, "first")
        XCTAssertEqual(try client.request("GET", "/state", headers: tenant).text, "second")
        XCTAssertEqual(try client.request("GET", "/state", headers: tenant).text, "second")
    }

    /// A used-up limit, or a replacement that keeps no limit, gets no word.
    func testReplacingAMockWithoutAnUnspentLimitSaysNothing() throws {
        tenant = E2E.tenantHeader("seq-none")
        XCTAssertEqual(try update("equal", body: "a").text, "")
        XCTAssertEqual(try update("equal", body: "b").text, "", "no limit before or after")
        XCTAssertEqual(try update("wildcard", body: "c", limit: 1).text, "", "a new mock: nothing replaced")
    }
}
