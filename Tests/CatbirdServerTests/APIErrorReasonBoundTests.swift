@testable import CatbirdServer
import CatbirdHTTP
import Foundation
import XCTest

/// The backstop behind every reason's own cuts (docs/protocol.md#errors), in the one error
/// writer the routes' `APIError` and the adapter's own answers share
/// (`HTTPResponse.error(status:reason:)`): a reason longer than
/// ``CatbirdHTTP/HTTPResponse/maxErrorReasonBytes`` is answered as its first 8,000 UTF-8
/// bytes (cut between code points) and `…`; one at the bound is sent whole.
final class APIErrorReasonBoundTests: XCTestCase {
    func testAReasonOverTheBoundIsCutWithAnEllipsis() throws {
        let long = String(repeating: "é", count: 10_000)  // 2 bytes each
        let reason = try Self.reason(of: APIError(status: 400, reason: long).response)
        XCTAssertEqual(reason, String(repeating: "é", count: 4_000) + "…")
        XCTAssertEqual(try Self.reason(of: HTTPResponse.error(status: 503, reason: long)), reason, "the adapter's own answers too")
    }

    func testAReasonAtTheBoundIsSentWhole() throws {
        let exact = String(repeating: "r", count: HTTPResponse.maxErrorReasonBytes)
        XCTAssertEqual(try Self.reason(of: APIError(status: 400, reason: exact).response), exact)
        XCTAssertEqual(try Self.reason(of: HTTPResponse.error(status: 400, reason: exact)), exact)
    }

    private static func reason(of response: HTTPResponse) throws -> String {
        let object = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(response.body)) as? [String: Any])
        return try XCTUnwrap(object["reason"] as? String)
    }
}
