import CatbirdMatching
@_spi(Server) import CatbirdWire
import Foundation
import XCTest

/// The automaton for plain regexps against ICU, which defines a regexp's meaning
/// (docs/matching.md#pattern-kinds): the same answer for every generated expression and subject.
final class SimpleRegexDifferentialTests: XCTestCase {
    private func reference(_ expression: NSRegularExpression, _ subject: String) -> Bool {
        expression.rangeOfFirstMatch(in: subject, options: [], range: NSRange(location: 0, length: subject.utf16.count))
            .location != NSNotFound
    }

    /// Atoms and quantifiers of the subset, and some just outside it.
    private static let atoms = ["a", "B", "k", "s", "/", "-", "_", "=", "%", "0", "9", "\\.", "\\?", "\\/", "\\$", "\\\\",
                                ".", "\\d", "[0-9]", "[a-c]", "[^/]", "[^a]", "[K-M]", "[.?]", "[\\]]", "é", "\\w", "(a|b)", " "]
    private static let quantifiers = ["", "", "", "?", "*", "+", "{2}", "{1,3}", "{0,}", "*?", "+?", "*+", "{2,1}"]

    func testGeneratedPlainExpressionsMatchExactlyAsICU() throws {
        var random = RandomPatterns(seed: 0x5EED)
        var bySimple = 0
        var simpleMatches = 0
        var simplePatterns = 0
        for _ in 0..<2500 {
            var expression = random.chance(50) ? "^" : ""
            for _ in 0..<random.below(6) { expression += random.pick(Self.atoms) + random.pick(Self.quantifiers) }
            if random.chance(40) { expression += "$" }
            guard let icu = try? NSRegularExpression(pattern: expression, options: [.caseInsensitive]) else { continue }
            let compiled = try CompiledPatternMatch(.regexp(expression))
            let simple = SimpleRegexMatcher(expression: expression)
            if simple != nil { simplePatterns += 1 }
            XCTAssertEqual(compiled.usesSimpleRegex, simple != nil && !expression.isEmpty, expression)
            for round in 0..<12 {
                let subject = round % 3 == 0 ? random.subject() : random.subject(nearExpression: expression)
                let expected = reference(icu, subject)
                XCTAssertEqual(compiled.matches(subject), expected, "\(expression.debugDescription) on \(subject.debugDescription)")
                var bytes = subject
                if let answer = simple.flatMap({ simple in bytes.withUTF8 { simple.matches($0) } }) {
                    bySimple += 1
                    if answer { simpleMatches += 1 }
                    XCTAssertEqual(answer, expected, "automaton \(expression.debugDescription) on \(subject.debugDescription)")
                }
            }
        }
        print("regexp differential: \(bySimple) answered by the automaton (\(simpleMatches) matches), \(simplePatterns) plain expressions")
        XCTAssertGreaterThan(bySimple, 5_000)
        XCTAssertGreaterThan(simpleMatches, 1_000)
    }

    func testAnchoredLiteralStartsAreComparedBeforeTheAutomatonAsICUMatches() throws {
        // `^` then single literal bytes, then more: the start is compared byte for byte (ASCII
        // case folded), the rest run by the automaton from there.
        let subjects = ["", "/", "/r", "/r/99", "/r/99/", "/r/99/last", "/R/99/LAST", "/r/99/l4st", "/r/9/last", "/r/999/last",
                        "/r/99/last/", "x/r/99/last", "/api/12", "/API/123x", "/api/", "ac", "abbbc", "abc", "bc", "AC", "/w/1/x",
                        "/w/1/", "/w/1/x/y", "a-b", "a.b"]
        for expression in ["^/r/99/[a-z]+$", "^/r/99/[a-z]+", "^/api/\\d+", "^/api/\\d+$", "^ab*c", "^a?bc", "^/w/1/[^/]*$",
                           "^/w/1/.*", "^a\\.b", "^a.b$", "^/r/99/.?$", "^/R/9+/last$"] {
            let icu = try NSRegularExpression(pattern: expression, options: [.caseInsensitive])
            let simple = try XCTUnwrap(SimpleRegexMatcher(expression: expression), expression)
            for subject in subjects {
                var bytes = subject
                XCTAssertEqual(bytes.withUTF8 { simple.matches($0) }, reference(icu, subject), "\(expression) on \(subject)")
            }
        }
    }

    func testLiteralExpressionsAreFoundByComparingBytesAsICUFindsThem() throws {
        // Expressions of literals only take the byte comparison (no automaton): each anchoring.
        let subjects = ["", "a", "items", "ITEMS", "/api/items/1", "/api/ITEMS", "xitem", "application/json", "json", "JSON ",
                        "/api", "/API/x", "x/api", "abc", "abcabc", "a?b", "a.json", "ajson", "/v1/api"]
        for expression in ["items", "^/api", "json$", "^abc$", "\\.json$", "a\\?b", "^a", "c$", "^json$", "api"] {
            let icu = try NSRegularExpression(pattern: expression, options: [.caseInsensitive])
            let simple = try XCTUnwrap(SimpleRegexMatcher(expression: expression), expression)
            for subject in subjects {
                var bytes = subject
                XCTAssertEqual(bytes.withUTF8 { simple.matches($0) }, reference(icu, subject), "\(expression) on \(subject)")
            }
        }
    }

    func testCommonURLExpressionsAvoidICU() throws {
        for expression in ["^/api/users/[0-9]+$", "users/\\d+", "\\.json$", "^/r/12/[0-9]+$", "^/search\\?q=.*", "/v[12]/"] {
            XCTAssertTrue(try CompiledPatternMatch(.regexp(expression)).usesSimpleRegex, expression)
        }
        for expression in ["кот|cat", "^/(a+)+$", "\\w+", "a*+b"] {
            XCTAssertFalse(try CompiledPatternMatch(.regexp(expression)).usesSimpleRegex, expression)
        }
    }
}
