import CatbirdMatching
import CatbirdSupport
import CatbirdWire
import Foundation
import XCTest

/// The 404's near misses written straight from a comparison into a ``ByteWriter``
/// (``RequestComparison/writeNearMissJSON(to:distance:mockId:position:tenant:requestJSON:)``,
/// ``RequestComparison/writeSummary(mockId:tenant:to:)``) are byte for byte what the plain
/// writers make from the ``CatbirdNearMiss`` of the same comparison, for every field kind and
/// odd texts (quotes, backslashes, control bytes, non-ASCII), the request's method and target
/// escaped once and copied into the later near misses.
final class NearMissComparisonJSONTests: XCTestCase {
    private let odd = ["plain", "quote \" backslash \\", "newline \n tab \t nul \u{0} \u{1F}", "é 🐈 </script>", ""]

    func testComparisonWritesTheSameBytesAsTheNearMissWriters() throws {
        var random = RandomPatterns(seed: 43)
        let deadline = ContinuousClock.now.advanced(by: .seconds(60))
        for round in 0..<200 {
            let method = random.pick(["GET", "POST", "we\"ird"])
            let target = random.pick(["/api/plain", "/w/x", "/r/abc", "/\(random.pick(odd))?q=\"1\"", "/a\r\nb"])
            let probe = NearMissProbe(method: method, target: target)
            let requestBody = Array(random.pick(odd + [#"{"id":7}"#]).utf8) + (random.chance(10) ? [0xFF] : [])
            // Up to three near misses of one 404: the method and target JSON are written by the first.
            var written = ByteWriter(capacity: 64)
            var requestJSON = NearMissRequestJSON()
            var plain: [UInt8] = []
            for index in 0..<(1 + random.below(3)) {
                var headers: [String: PatternMatch] = [:]
                for _ in 0..<random.below(4) {
                    headers[random.pick(["X-Token", "Accept", "x-odd\"name", "Ünïcode"])] =
                        random.pick([PatternMatch.equal(random.pick(odd)), .wildcard("a*"), .regexp("^b.$")])
                }
                let url = random.pick([PatternMatch.equal("/api/\(random.pick(odd))"), .wildcard("/w/*"), .regexp("^/r/[a-z]+$")])
                let body: BodyPattern? = random.chance(40) ? random.pick([.contains(random.pick(odd)), .jsonPath("$.id", equalTo: 7)]) : nil
                let source = RequestPattern(method: random.pick(["GET", "POST", "PROPFIND", "M\"X"]), url: url, headers: headers, body: body)
                let pattern = try CompiledRequestPattern(source)
                let values = headers.keys.reduce(into: [String: String]()) { values, name in
                    if random.chance(70) { values[name] = random.pick(odd + ["a1", "bc"]) }
                }
                let comparison = pattern.compare(
                    probe, headerValue: { name in values.first { $0.key.lowercased() == name.lowercased() }?.value }, body: requestBody,
                    urlMatches: pattern.urlMatches(probe, until: deadline), until: deadline, fields: true)
                let distance = (comparison.distance * 1000).rounded() / 1000
                let (mockId, position, tenant) = (Int64(round) * 7_919 - 3 + Int64(index), Int64(round + index), random.pick(odd + ["s1"]))
                let nearMiss = CatbirdNearMiss(
                    mockId: mockId, tenant: tenant, position: position, distance: distance, pattern: source, fields: comparison.fields)

                if index > 0 {
                    written.append(UInt8(ascii: ","))
                    plain.append(UInt8(ascii: ","))
                }
                comparison.writeNearMissJSON(
                    to: &written, distance: distance, mockId: mockId, position: position, tenant: tenant, requestJSON: &requestJSON)
                nearMiss.writeJSON(to: &plain)

                var summary = ByteWriter(capacity: 16)
                comparison.writeSummary(mockId: mockId, tenant: tenant, to: &summary)
                let text = summary.withBytes { String(decoding: $0, as: UTF8.self) }
                XCTAssertEqual(text, nearMiss.summary)
            }
            let bytes = written.bytes()
            XCTAssertEqual(String(decoding: bytes, as: UTF8.self), String(decoding: plain, as: UTF8.self))
            XCTAssertEqual(bytes, plain)
        }
    }

    func testJSONStringsAreEscapedAsJSONTextDoes() {
        for text in odd + ["", "a\"b\\c\u{7F}\u{1}\r\n", String(repeating: "é\"", count: 300)] {
            var writer = ByteWriter(capacity: 1)
            writer.appendJSONString(text)
            var expected: [UInt8] = []
            JSONText.appendString(text, to: &expected)
            let escaped = writer.bytes()
            XCTAssertEqual(escaped, expected)
            // One line: CR and LF first become spaces.
            var oneLine = ByteWriter(capacity: 1)
            Array(text.utf8).withUnsafeBufferPointer { oneLine.appendJSONString($0, lineBreaksAsSpaces: true) }
            let spaced = String(decoding: text.utf8.map { $0 == 10 || $0 == 13 ? 32 : $0 }, as: UTF8.self)
            let written = oneLine.bytes()
            XCTAssertEqual(written, Array(JSONText.string(spaced).utf8))
        }
    }

    func testDecimalsAreWrittenAsSwiftPrintsThem() {
        for number: Int64 in [0, 1, 9, 10, 101, -1, -250, 9_007_199_254_740_993, .max, .min] {
            var writer = ByteWriter(capacity: 1)
            writer.appendDecimal(number)
            let decimal = String(decoding: writer.bytes(), as: UTF8.self)
            XCTAssertEqual(decimal, String(number))
        }
    }
}
