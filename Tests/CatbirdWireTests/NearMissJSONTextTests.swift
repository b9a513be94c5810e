@_spi(Server) import CatbirdWire
import Foundation
import XCTest

/// The near misses' hand-written JSON (404 bodies and journal entries) reads back, with
/// `JSONDecoder`, as the values it was written from: the same shapes as their `Codable`
/// conformances, escapes included.
final class NearMissJSONTextTests: XCTestCase {
    private let odd = "quote \" backslash \\ newline \n tab \t nul \u{0} é 🐈 </script>"

    private func nearMiss(_ tenant: String, pattern: RequestPattern, fields: [CatbirdNearMiss.Field]) -> CatbirdNearMiss {
        CatbirdNearMiss(mockId: 9_007_199_254, tenant: tenant, position: 3, distance: 0.885, pattern: pattern, fields: fields)
    }

    func testEveryPatternShapeReadsBack() throws {
        let patterns = [
            RequestPattern(method: "GET", url: PatternMatch.equal("/api/users")),
            RequestPattern(method: "PROPFIND", url: PatternMatch.wildcard("/w/*"), headers: ["X-A": PatternMatch.regexp(odd), "Accept": PatternMatch.equal("")]),
            RequestPattern(method: "POST", url: PatternMatch.regexp("^/r$"), body: .jsonPath("$.id", equalTo: .object(["a": .array([1, 2.5, .null, true]), "b": "x"]))),
            RequestPattern(method: "POST", url: PatternMatch.equal(odd), body: .jsonPath("$.gone", equalTo: .null)),
            RequestPattern(method: "POST", url: PatternMatch.equal("/"), body: .contains(odd)),
        ]
        for pattern in patterns {
            var json: [UInt8] = []
            pattern.writeJSON(to: &json)
            XCTAssertEqual(try JSONDecoder().decode(RequestPattern.self, from: Data(json)), pattern, String(decoding: json, as: UTF8.self))
        }
    }

    func testDistancesAreWrittenToThreeDecimalsAndReadBackAsTheSameNumbers() throws {
        for distance in [0, 0.4, 0.25, 1.4, 1, 0.885, 2.001, 0.05, 0.007, 0.105, 0.5, 10.01, 3.11, 12.5, 1.0 / 3, 1e-9] {
            var json: [UInt8] = []
            CatbirdNearMiss.writeDistance(distance, to: &json)
            let text = String(decoding: json, as: UTF8.self)
            XCTAssertEqual(try JSONDecoder().decode(Double.self, from: Data(json)), distance, text)
            XCTAssertFalse(text.hasSuffix("0") && text.contains("."), text)
        }
    }

    func testNearMissesAndThe404BodyReadBack() throws {
        let fields: [CatbirdNearMiss.Field] = [
            .init(field: "method", verdict: .match, expected: "GET", actual: "GET"),
            .init(field: "url", verdict: .differs, expected: #"equal "/api/users""#, actual: odd),
            .init(field: "header", name: "X-Token", verdict: .missing, expected: #"equal "abc""#, actual: nil),
        ]
        let misses = [
            nearMiss("s1", pattern: RequestPattern(method: "GET", url: PatternMatch.equal("/api/users")), fields: fields),
            nearMiss(odd, pattern: RequestPattern(method: "GET", url: PatternMatch.wildcard("/a/*")), fields: []),
        ]
        var array: [UInt8] = []
        CatbirdNearMiss.writeJSON(misses, to: &array)
        XCTAssertEqual(try JSONDecoder().decode([CatbirdNearMiss].self, from: Data(array)), misses)
        var empty: [UInt8] = []
        CatbirdNearMiss.writeJSON([], to: &empty)
        XCTAssertEqual(empty, Array("[]".utf8))
        for matching in [nil, ["shard-1", odd]] as [[String]?] {
            let body = CatbirdNotFoundBody(reason: odd, tenant: "s1", nearMisses: misses, matchingTenants: matching)
            let json = body.json(nearMissesJSON: array)
            XCTAssertEqual(try JSONDecoder().decode(CatbirdNotFoundBody.self, from: Data(json)), body, String(decoding: json, as: UTF8.self))
            let object = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(json)) as? [String: Any])
            XCTAssertEqual(object.keys.contains("matchingTenants"), matching != nil, "matchingTenants only when set")
        }
    }
}
