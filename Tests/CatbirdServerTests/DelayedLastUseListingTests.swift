import CatbirdTestSupport
import Foundation
import XCTest

/// Regression (tester finding tester50b-F7), the exact case: a `limit: 1` mock with a `delay`
/// (the spinner test) left `GET /catbird/api/mocks` the moment its request arrived, and the
/// journal has the request only once the delay ends, so for the whole delay nothing showed
/// that it had come, though docs/protocol.md#delays points tests at the mock's `hits`. The
/// used-up mock is listed, its last use counted, until its answer goes out.
final class DelayedLastUseListingTests: XCTestCase {
    func testAUsedUpDelayedMockIsListedUntilItsAnswerGoesOut() throws {
        let server = try TestServer()
        defer { server.removeFiles() }
        let client = try server.client()
        try E2E.addMock(client, url: "/spin", body: "done", limit: 1, delay: 2)
        let app = try RawHTTPClient(port: server.port, timeoutSeconds: 10)
        try app.send("GET", "/spin")
        XCTAssertTrue(try E2E.waitForHits(client, url: "/spin", 1), "the pending request shows as the mock's hit")
        let listed = try E2E.mocks(client, tenant: nil)
        XCTAssertEqual(listed.count, 1, "\(listed)")
        XCTAssertEqual(JSONNumber.int(listed.first?["remainingLimit"]), 0, "\(listed)")

        let answer = try app.readResponse()
        XCTAssertEqual(answer.status, 200)
        XCTAssertEqual(answer.text, "done")
        XCTAssertEqual(try E2E.mocks(client, tenant: nil).count, 0, "gone once its answer went out")
        XCTAssertEqual(try client.request("GET", "/spin").status, 404)
    }
}
