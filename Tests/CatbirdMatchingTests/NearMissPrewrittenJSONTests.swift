import CatbirdMatching
import CatbirdSupport
@_spi(Server) import CatbirdWire
import Foundation
import XCTest

/// The 404's near misses written from parts prepared once per pattern and once per request
/// (``CatbirdNearMiss/PrewrittenJSON``, ``NearMissTexts/fieldPartsJSON``) are byte for byte
/// what the plain writer makes from the near miss alone, for every field kind and odd texts
/// (quotes, backslashes, control bytes, non-ASCII), and read back as the same value.
final class NearMissPrewrittenJSONTests: XCTestCase {
    private let odd = ["plain", "quote \" backslash \\", "newline \n tab \t nul \u{0} \u{1F}", "é 🐈 </script>", ""]

    func testPrewrittenPartsGiveTheSameBytesAsThePlainWriter() throws {
        var random = RandomPatterns(seed: 41)
        let deadline = ContinuousClock.now.advanced(by: .seconds(60))
        for round in 0..<300 {
            var headers: [String: PatternMatch] = [:]
            for _ in 0..<random.below(4) {
                headers[random.pick(["X-Token", "Accept", "x-odd\"name", "Ünïcode"])] =
                    random.pick([PatternMatch.equal(random.pick(odd)), .wildcard("a*"), .regexp("^b.$")])
            }
            let url = random.pick([PatternMatch.equal("/api/\(random.pick(odd))"), .wildcard("/w/*"), .regexp("^/r/[a-z]+$")])
            let body: BodyPattern? = random.chance(40) ? random.pick([.contains(random.pick(odd)), .jsonPath("$.id", equalTo: 7)]) : nil
            let source = RequestPattern(method: random.pick(["GET", "POST", "PROPFIND", "M\"X"]), url: url, headers: headers, body: body)
            let pattern = try CompiledRequestPattern(source)
            let method = random.pick(["GET", "POST", "we\"ird"])
            let target = random.pick(["/api/plain", "/w/x", "/r/abc", "/\(random.pick(odd))?q=\"1\""])
            let values = headers.keys.reduce(into: [String: String]()) { values, name in
                if random.chance(70) { values[name] = random.pick(odd + ["a1", "bc"]) }
            }
            let requestBody = Array(random.pick(odd + [#"{"id":7}"#]).utf8) + (random.chance(10) ? [0xFF] : [])
            let probe = NearMissProbe(method: method, target: target)
            let comparison = pattern.compare(
                probe, headerValue: { name in values.first { $0.key.lowercased() == name.lowercased() }?.value }, body: requestBody,
                urlMatches: pattern.urlMatches(probe, until: deadline), until: deadline, fields: true)
            let nearMiss = CatbirdNearMiss(
                mockId: Int64(round) * 7_919 - 3, tenant: random.pick(odd), position: Int64(round), distance: comparison.distance,
                pattern: source, fields: comparison.fields)

            var plain: [UInt8] = []
            nearMiss.writeJSON(to: &plain)
            var methodJSON: [UInt8] = []
            JSONText.appendString(method, to: &methodJSON)
            var targetJSON: [UInt8] = []
            JSONText.appendString(target, to: &targetJSON)
            var prewritten: [UInt8] = []
            nearMiss.writeJSON(to: &prewritten, prewritten: CatbirdNearMiss.PrewrittenJSON(
                pattern: pattern.nearMissTexts.patternJSON, fieldParts: pattern.nearMissTexts.fieldPartsJSON,
                method: methodJSON, target: targetJSON))
            XCTAssertEqual(String(decoding: prewritten, as: UTF8.self), String(decoding: plain, as: UTF8.self))
            XCTAssertEqual(prewritten, plain)
            XCTAssertEqual(pattern.nearMissTexts.fieldPartsJSON.count, comparison.fields.count)
            var expected = nearMiss
            expected.distance = try JSONDecoder().decode(CatbirdNearMiss.self, from: Data(plain)).distance
            XCTAssertEqual(try JSONDecoder().decode(CatbirdNearMiss.self, from: Data(prewritten)), expected)
        }
    }

    func testDecimalsAreWrittenAsSwiftPrintsThem() {
        for number: Int64 in [0, 1, 9, 10, 101, -1, -250, 9_007_199_254_740_993, .max, .min] {
            var out: [UInt8] = []
            JSONText.appendDecimal(number, to: &out)
            XCTAssertEqual(String(decoding: out, as: UTF8.self), String(number))
        }
    }
}
