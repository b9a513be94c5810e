import CatbirdMatching
import CatbirdWire
import XCTest

/// One request's `jsonPath` patterns read its body once, and the field values they read are
/// bounded (docs/matching.md#evaluation-budget, try10b F9).
final class JSONPathFieldAllowanceTests: XCTestCase {
    /// `{"a":{"a":…{"a":"xxx…"}…}}`: `depth` nested objects around a `filler`-byte string.
    private func nested(depth: Int, filler: Int) -> [UInt8] {
        Array((String(repeating: "{\"a\":", count: depth) + "\"" + String(repeating: "x", count: filler) + "\""
            + String(repeating: "}", count: depth)).utf8)
    }

    func testNestedPathsStopWhenTheirValuesWouldReadTheBodyOverAndOver() throws {
        // 40 paths, each finding nearly the whole 200 KB body: 8 MB of values to read, over the
        // allowance of 4 x 200 KB + 1 MiB. The first ones match; once the allowance is spent
        // the rest are out of time (skipped, as a regexp past its budget), not read.
        let body = nested(depth: 40, filler: 200_000)
        let patterns = try (1...40).map { try CompiledBodyPattern(.jsonPath("$" + String(repeating: ".a", count: $0))) }
        let outcomes = RequestBodyScope.reading(body) {
            patterns.map { $0.evaluate(body, until: .now.advanced(by: .seconds(60)), slice: .whole) }
        }
        let matched = outcomes.prefix { $0 == .matched }.count
        XCTAssertGreaterThanOrEqual(matched, 9, "4 x 200 KB + 1 MiB holds 9 reads of 200 KB")
        XCTAssertLessThanOrEqual(matched, 10)
        XCTAssertEqual(Array(outcomes[matched...]), Array(repeating: .outOfTime, count: 40 - matched))
    }

    func testAFieldReadOnceAnswersEveryPathThatFindsIt() throws {
        // `$[0]`, `$[4294967296]`, `$[8589934592]` … (indexes wrap at 2^32, as in SQLite) and
        // `$[#-1]` are 2,001 paths to one 600 KB string: its value is read once, not 2,001
        // times (1.2 GB, far over the allowance).
        let body = Array(("[\"" + String(repeating: "x", count: 600_000) + "\"]").utf8)
        let paths = (0..<2000).map { "$[\($0 * 4_294_967_296)]" } + ["$[#-1]"]
        let patterns = try paths.map { try CompiledBodyPattern(.jsonPath($0)) }
        let outcomes = RequestBodyScope.reading(body) {
            patterns.map { $0.evaluate(body, until: .now.advanced(by: .seconds(60)), slice: .whole) }
        }
        XCTAssertEqual(outcomes, Array(repeating: .matched, count: 2001))
    }
}
