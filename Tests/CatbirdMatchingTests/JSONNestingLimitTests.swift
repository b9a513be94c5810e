import CatbirdWire
import XCTest

@testable import CatbirdMatching

/// One nesting limit for JSON read by body patterns (docs/matching.md#json-nesting, try11
/// T11-F4): `json` and `jsonPath` agree on either side of it, and a pattern past it is refused
/// with a reason that names it.
final class JSONNestingLimitTests: XCTestCase {
    /// The finding's body: `'{"a":'*N + '1' + '}'*N`.
    private static func objects(_ depth: Int) -> [UInt8] {
        Array((String(repeating: #"{"a":"#, count: depth) + "1" + String(repeating: "}", count: depth)).utf8)
    }

    private static func arrays(_ depth: Int) -> String {
        String(repeating: "[", count: depth) + String(repeating: "]", count: depth)
    }

    func testJSONAndJSONPathReadBodiesToTheSameDepth() throws {
        // The finding: `jsonPath "$.a"` matched N <= 513 (its field, 512 deep, read by
        // JSONDecoder) and failed from 514; `json` read bodies to 512.
        let jsonPath = try CompiledBodyPattern(.jsonPath("$.a"))
        for depth in [511, 512, 513, 514, 999, 2000] {
            let body = Self.objects(depth)
            let within = depth <= JSONNesting.limit
            XCTAssertEqual(jsonPath.matches(body), within, "jsonPath, depth \(depth)")
            // A `json` pattern of the body itself where there can be one (deeper is refused).
            if within { XCTAssertTrue(try CompiledBodyPattern(.json(String(decoding: body, as: UTF8.self))).matches(body), "json, depth \(depth)") }
            XCTAssertEqual(JSONBodyParser.value(of: body) != nil, within, "depth \(depth)")
            XCTAssertEqual(JSONPathDocument(body) != nil, within, "depth \(depth)")
        }
    }

    func testAPatternPastTheLimitIsRefusedNamingTheLimit() throws {
        // The finding: `'['*512+']'*512` accepted, 600 and 1000 refused as "must be JSON text".
        let accepted = try CompiledBodyPattern(.json(Self.arrays(512)))
        XCTAssertTrue(accepted.matches(Array(Self.arrays(512).utf8)))
        XCTAssertFalse(accepted.matches(Array(Self.arrays(513).utf8)))
        for depth in [513, 600, 1000] {
            XCTAssertThrowsError(try CompiledBodyPattern(.json(Self.arrays(depth))), "depth \(depth)") { error in
                XCTAssertEqual(
                    (error as? PatternError)?.reason,
                    "'pattern.body.value' nests arrays and objects more than 512 levels deep; JSON is read to at most 512 levels (docs/matching.md#json-nesting)")
            }
        }
        // Text within the limit that is not JSON is refused as before.
        XCTAssertThrowsError(try CompiledBodyPattern(.json("[[1,]"))) { error in
            XCTAssertEqual((error as? PatternError)?.reason.hasPrefix("'pattern.body.value' must be JSON text"), true, "\(error)")
        }
    }

    func testTheDepthCountsBracketsOutsideStringsOnly() {
        let inStrings = "[" + String(repeating: #""[{\"[", "#, count: 600) + "1]"
        XCTAssertFalse(JSONNesting.tooDeep(Array(inStrings.utf8)))
        XCTAssertFalse(JSONNesting.tooDeep(Array(Self.arrays(512).utf8)))
        XCTAssertTrue(JSONNesting.tooDeep(Array(Self.arrays(513).utf8)))
        XCTAssertTrue(JSONNesting.tooDeep(Array(Self.arrays(1_000_000).utf8)))
        XCTAssertFalse(JSONNesting.tooDeep(Array(String(repeating: "[]", count: 1000).utf8)))
    }
}
