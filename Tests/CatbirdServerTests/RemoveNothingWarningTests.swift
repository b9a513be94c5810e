import CatbirdTestSupport
import Foundation
import XCTest

/// A `remove` answers 204, as Catbird 0.11 does and its client expects, whether or not a mock
/// had the pattern; one that removed nothing says so in `X-Catbird-Warning`
/// (docs/protocol.md#control-actions).
final class RemoveNothingWarningTests: ServerTestCase {
    private static let login = #"{"method":"POST","url":{"kind":"equal","value":"/login"},"headers":{}}"#

    /// Regression (tester finding try10a F18): a `remove` of a pattern no mock has (here the
    /// mock's pattern without its `body`, which a remove must name) answered a bare 204, as if
    /// it had removed the mock, which then kept answering.
    func testARemoveThatRemovesNothingSaysSoAndOneThatRemovesKeepsTheBare204() throws {
        let withBody = #"{"method":"POST","url":{"kind":"equal","value":"/login"},"headers":{},"body":{"kind":"contains","value":"john"}}"#
        XCTAssertEqual(
            try client.json("POST", "/catbird/api/mocks", #"{"type":"update","pattern":\#(withBody),"response":{"status":200}}"#).status, 201)

        let missed = try client.json("POST", "/catbird/api/mocks", #"{"type":"remove","pattern":\#(Self.login)}"#)
        XCTAssertEqual(missed.status, 204)
        XCTAssertEqual(missed.body, [])
        XCTAssertEqual(
            missed.header("X-Catbird-Warning"),
            "nothing was removed: this tenant has no mock with this pattern (method, url kind and value, header patterns and "
                + "body pattern are compared as update compares them; GET /catbird/api/mocks lists the mocks)")
        XCTAssertEqual(try E2E.mocks(client, tenant: nil).count, 1, "the mock is still there, as the warning says")

        let removed = try client.json("POST", "/catbird/api/mocks", #"{"type":"remove","pattern":\#(withBody)}"#)
        XCTAssertEqual(removed.status, 204)
        XCTAssertNil(removed.header("X-Catbird-Warning"), "it removed the mock")
        XCTAssertEqual(try E2E.mocks(client, tenant: nil).count, 0)
    }
}
