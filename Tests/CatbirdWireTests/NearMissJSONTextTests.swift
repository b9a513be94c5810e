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
            XCTAssertEqual(try JSONDecoder().decode(RequestPattern.self, from: Data(pattern.jsonText.utf8)), pattern, pattern.jsonText)
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
        let array = CatbirdNearMiss.jsonText(misses)
        XCTAssertEqual(try JSONDecoder().decode([CatbirdNearMiss].self, from: Data(array.utf8)), misses)
        XCTAssertEqual(CatbirdNearMiss.jsonText([]), "[]")
        for matching in [nil, ["shard-1", odd]] as [[String]?] {
            let body = CatbirdNotFoundBody(reason: odd, tenant: "s1", nearMisses: misses, matchingTenants: matching)
            let text = body.jsonText(nearMissesJSON: array)
            XCTAssertEqual(try JSONDecoder().decode(CatbirdNotFoundBody.self, from: Data(text.utf8)), body, text)
            let object = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
            XCTAssertEqual(object.keys.contains("matchingTenants"), matching != nil, "matchingTenants only when set")
        }
    }
}
