import CatbirdSupport
@_spi(Server) import CatbirdWire
import Foundation
import XCTest

/// The near misses' hand-written pattern JSON and distances (404 bodies and journal entries)
/// read back, with `JSONDecoder`, as the values they were written from: the same shapes as
/// their `Codable` conformances, escapes included. Whole near misses are written from a
/// comparison and read back in CatbirdMatchingTests (`NearMissComparisonJSONTests`).
final class NearMissJSONTextTests: XCTestCase {
    private let odd = "quote \" backslash \\ newline \n tab \t nul \u{0} é 🐈 </script>"

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
            var writer = ByteWriter(capacity: 8)
            CatbirdNearMiss.writeDistance(distance, to: &writer)
            let json = writer.bytes()
            let text = String(decoding: json, as: UTF8.self)
            XCTAssertEqual(try JSONDecoder().decode(Double.self, from: Data(json)), distance, text)
            XCTAssertFalse(text.hasSuffix("0") && text.contains("."), text)
        }
    }
}
