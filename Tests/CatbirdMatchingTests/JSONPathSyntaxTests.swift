import CatbirdWire
import XCTest

@testable import CatbirdMatching

/// ``JSONPathSyntax`` reads a `jsonPath` value to its end, by the grammar its lookup follows
/// (docs/matching.md#body-matchers), where SQLite checks a path only as far as a lookup reaches.
final class JSONPathSyntaxTests: XCTestCase {
    /// Regression (tester finding try10a F10), the exact path: `$.a[*]` was accepted (SQLite's
    /// check, `json_type('{}', path)`, stops at the absent `a`) and then never matched
    /// `{"a":[1]}`. A new pattern is refused naming the place; a stored one still compiles.
    func testAPathMalformedAfterItsFirstStepIsRefusedWhenNewAndKeptWhenStored() throws {
        let source = BodyPattern(kind: .jsonPath, value: "$.a[*]")
        XCTAssertNoThrow(try JSONPathReader.validate(path: source.value), "SQLite's own check passes it: the case is real")
        XCTAssertThrowsError(try CompiledBodyPattern(source)) { error in
            XCTAssertEqual(
                (error as? PatternError)?.reason,
                #"'pattern.body.value' "$.a[*]" is not a SQLite JSON path: malformed at byte offset 3 (at "[*]"): an array step is [n], "#
                    + "[#] or [#-n] with n in decimal digits; SQLite's paths have no wildcards, filters or negative indexes "
                    + "([*], [?(...)], [-1]: [#-1] is the last element) (docs/matching.md#body-matchers)")
        }
        let stored = try CompiledBodyPattern(stored: source)
        XCTAssertFalse(stored.matches(Array(#"{"a":[1]}"#.utf8)), "as before: SQLite calls the path malformed there")
    }

    /// Every path the lookup can take to its end is accepted; each malformed one is refused at
    /// the step where it stops being a path, wherever that step is.
    func testTheWholePathIsRead() {
        let valid = [
            "$", "$.a", "$.a.b", "$.\"a.b\"", "$.\"\"", "$.a[0]", "$[0]", "$[12][3]", "$.a[#]", "$.a[#-1]", "$.a[#-12].b",
            "$.items[0].sku", "$.\"x[y]\".z", "$.a b", "$.a]", "$.é", "$[0].\"k\"[1]",
        ]
        for path in valid { XCTAssertNil(JSONPathSyntax.fault(in: path), path) }
        let malformed: [(String, Int)] = [
            ("", 0), ("a", 0), (".a", 0), ("$a", 1), ("$.", 1), ("$..a", 1), ("$.a..b", 3), ("$.a.", 3), ("$[*]", 1),
            ("$.a[*]", 3), ("$.a.b[-1]", 5), ("$.a[]", 3), ("$.a[1", 3), ("$.a[#-]", 3), ("$.a[#5]", 3), ("$.a[0]x", 6),
            ("$.\"a", 1), ("$.\"a\"b", 5), ("$.a[?(@.x)]", 3), ("$.a[0][ 1]", 6), ("$.a\u{0}.b", 3), ("$.a.b.c[0].d..e", 12),
        ]
        for (path, offset) in malformed {
            XCTAssertEqual(JSONPathSyntax.fault(in: path)?.offset, offset, path)
        }
    }

    /// What the check accepts, SQLite reads to the end without a path error: each valid path
    /// above, looked up in a body that has every step, finds its field.
    func testAcceptedPathsReachTheirFieldInSQLite() {
        let cases: [(path: String, body: String, field: String)] = [
            ("$.a.b", #"{"a":{"b":1}}"#, "1"),
            ("$.\"a.b\"", #"{"a.b":2}"#, "2"),
            ("$.a[#-1]", #"{"a":[1,2,3]}"#, "3"),
            ("$[0].\"k\"[1]", #"[{"k":[5,6]}]"#, "6"),
            ("$.a]", #"{"a]":7}"#, "7"),
            ("$.a[#-12].b", #"{"a":[{"b":8},1,1,1,1,1,1,1,1,1,1,1]}"#, "8"),
        ]
        for (path, body, field) in cases {
            XCTAssertNil(JSONPathSyntax.fault(in: path), path)
            XCTAssertEqual(JSONPathReader.text(at: path, in: body), .some(.some(field)), path)
        }
    }
}
