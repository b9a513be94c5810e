@_spi(Server) import CatbirdWire
import Foundation
import XCTest

/// ResponseMock / RequestPattern wire format (docs/protocol.md#control-actions).
final class WireShapeTests: XCTestCase {
    private func object(_ value: some Encodable) throws -> [String: Any] {
        try XCTUnwrap(JSONSerialization.jsonObject(with: JSONEncoder().encode(value)) as? [String: Any])
    }

    func testRoundTripWithEveryField() throws {
        let mock = ResponseMock(status: 201, headers: ["Content-Type": "application/json"], body: Data(0...255), limit: 2, delay: 1)
        let decoded = try JSONDecoder().decode(ResponseMock.self, from: JSONEncoder().encode(mock))
        XCTAssertEqual(decoded, mock)
    }

    func testRoundTripWithEmptyBody() throws {
        let mock = ResponseMock(status: 200, body: Data())
        XCTAssertEqual(try JSONDecoder().decode(ResponseMock.self, from: JSONEncoder().encode(mock)), mock)
        XCTAssertEqual(try object(mock)["body"] as? String, "")
    }

    func testEncodeOmitsNilFields() throws {
        let encoded = try object(ResponseMock())
        XCTAssertEqual(Set(encoded.keys), ["status", "headers"])
        XCTAssertEqual(encoded["status"] as? Int, 200)
        XCTAssertEqual((encoded["headers"] as? [String: Any])?.count, 0)
    }

    func testBodyIsPaddedStandardBase64() throws {
        let encoded = try object(ResponseMock(body: Data("ab".utf8), limit: 3, delay: 0))
        XCTAssertEqual(encoded["body"] as? String, "YWI=")
        XCTAssertEqual(encoded["limit"] as? Int, 3)
        XCTAssertEqual(encoded["delay"] as? Int, 0)
        let slashes = try object(ResponseMock(body: Data([0xff, 0xff, 0xff])))
        XCTAssertEqual(slashes["body"] as? String, "////")
    }

    func testDecodesEscapedSlashesInBase64() throws {
        let mock = try JSONDecoder().decode(ResponseMock.self, from: Data(#"{"headers":{},"body":"\/\/\/\/","status":200}"#.utf8))
        XCTAssertEqual(mock.body, Data([0xff, 0xff, 0xff]))
    }

    func testEffectiveLimit() {
        XCTAssertNil(ResponseMock(limit: nil).effectiveLimit)
        XCTAssertEqual(ResponseMock(limit: 0).effectiveLimit, 1)
        XCTAssertEqual(ResponseMock(limit: -5).effectiveLimit, 1)
        XCTAssertEqual(ResponseMock(limit: 1).effectiveLimit, 1)
        XCTAssertEqual(ResponseMock(limit: 3).effectiveLimit, 3)
    }

    func testRequestPatternEncodesAllKeysAndRoundTrips() throws {
        let pattern = RequestPattern(method: "GET", url: .wildcard("/a/*"))
        let encoded = try object(pattern)
        XCTAssertEqual(Set(encoded.keys), ["method", "url", "headers"])
        XCTAssertEqual((encoded["url"] as? [String: Any])?["kind"] as? String, "wildcard")
        let full = RequestPattern(method: "POST", url: .regexp("^/x$"), headers: ["A": .equal("1"), "B": .wildcard("*")])
        XCTAssertEqual(try JSONDecoder().decode(RequestPattern.self, from: JSONEncoder().encode(full)), full)
    }

    func testRequestPatternEqualityIsTheReplaceInPlaceKey() {
        let a = RequestPattern(method: "GET", url: .equal("/a"), headers: ["X": .equal("1")])
        XCTAssertEqual(a, RequestPattern(method: "GET", url: .equal("/a"), headers: ["X": .equal("1")]))
        XCTAssertNotEqual(a, RequestPattern(method: "GET", url: .wildcard("/a"), headers: ["X": .equal("1")]))
        XCTAssertNotEqual(a, RequestPattern(method: "GET", url: .equal("/a"), headers: ["X": .regexp("1")]))
        XCTAssertNotEqual(a, RequestPattern(method: "GET", url: .equal("/a")))
        XCTAssertNotEqual(a, RequestPattern(method: "get", url: .equal("/a"), headers: ["X": .equal("1")]))
    }

    func testCatbirdActionEncodesTheWireShape() throws {
        let encoded = try object(CatbirdAction.removeAll)
        XCTAssertEqual(encoded as? [String: String], ["type": "removeAll"])
        let update = try object(CatbirdAction.update(RequestPattern(method: "GET", url: .equal("/")), ResponseMock()))
        XCTAssertEqual(Set(update.keys), ["type", "pattern", "response"])
    }
}
