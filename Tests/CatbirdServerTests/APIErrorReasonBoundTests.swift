@testable import CatbirdServer
import CatbirdHTTP
import Foundation
import XCTest

/// The backstop behind every reason's own cuts (docs/protocol.md#errors): an `APIError` whose
/// reason is longer than ``APIError/maxReasonCharacters`` answers its first 8,000 characters
/// and `…`; one at the bound is sent whole.
final class APIErrorReasonBoundTests: XCTestCase {
    func testAReasonOverTheBoundIsCutWithAnEllipsis() throws {
        let long = String(repeating: "é", count: 10_000)
        let reason = try Self.reason(of: APIError(status: 400, reason: long).response)
        XCTAssertEqual(reason.count, 8_001)
        XCTAssertEqual(reason, String(repeating: "é", count: 8_000) + "…")
    }

    func testAReasonAtTheBoundIsSentWhole() throws {
        let exact = String(repeating: "r", count: APIError.maxReasonCharacters)
        XCTAssertEqual(try Self.reason(of: APIError(status: 400, reason: exact).response), exact)
    }

    private static func reason(of response: HTTPResponse) throws -> String {
        let object = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(response.body)) as? [String: Any])
        return try XCTUnwrap(object["reason"] as? String)
    }
}
