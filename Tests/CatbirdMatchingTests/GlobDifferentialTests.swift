import CatbirdMatching
@_spi(Server) import CatbirdWire
import Foundation
import XCTest

/// The glob matcher against Catbird 0.11's wildcard semantics, which are ICU's reading of the
/// translated wildcard (docs/matching.md#wildcard): the same answer for every generated
/// wildcard and subject, odd bytes, line terminators and Unicode case folding included.
final class GlobDifferentialTests: XCTestCase {
    /// Catbird 0.11: the translation compiled by ICU, case-insensitive, searched in the subject.
    private func reference(_ expression: NSRegularExpression, _ subject: String) -> Bool {
        expression.rangeOfFirstMatch(in: subject, options: [], range: NSRange(location: 0, length: subject.utf16.count))
            .location != NSNotFound
    }

    func testGeneratedWildcardsMatchExactlyAsTheirICUTranslation() throws {
        var random = RandomPatterns(seed: 0xCA7B_1D)
        var compared = 0
        var byGlob = 0
        var globMatches = 0
        var globPatterns = 0
        var refused = 0
        for _ in 0..<3000 {
            let wildcard = random.wildcard()
            let translation = WildcardTranslator.regularExpression(fromWildcard: wildcard)
            guard let icu = try? NSRegularExpression(pattern: translation, options: [.caseInsensitive]) else {
                refused += 1
                XCTAssertThrowsError(try CompiledPatternMatch(.wildcard(wildcard)), "ICU refuses \(translation)")
                continue
            }
            let compiled = try CompiledPatternMatch(.wildcard(wildcard))
            let glob = GlobMatcher(translation: translation)
            if glob != nil { globPatterns += 1 }
            XCTAssertEqual(compiled.usesGlob, glob != nil, wildcard)
            for round in 0..<12 {
                let subject = round % 3 == 0 ? random.subject() : random.subject(near: wildcard)
                let expected = reference(icu, subject)
                XCTAssertEqual(compiled.matches(subject), expected,
                               "wildcard \(wildcard.debugDescription) (\(translation.debugDescription)) on \(subject.debugDescription)")
                var bytes = subject
                if let answer = glob.flatMap({ glob in bytes.withUTF8 { glob.matches($0) } }) {
                    byGlob += 1
                    if answer { globMatches += 1 }
                    XCTAssertEqual(answer, expected,
                                   "glob \(wildcard.debugDescription) (\(translation.debugDescription)) on \(subject.debugDescription)")
                }
                compared += 1
            }
        }
        print("glob differential: \(compared) comparisons, \(byGlob) answered by the glob (\(globMatches) matches), \(globPatterns) glob patterns, \(refused) wildcards refused")
        // The generator must exercise every path, or the comparison proves little.
        XCTAssertGreaterThan(byGlob, 10_000)
        XCTAssertGreaterThan(globMatches, 1_500)
        XCTAssertGreaterThan(compared - byGlob, 5_000, "ICU fallbacks")
        XCTAssertGreaterThan(refused, 50)
    }

    /// Edge cases named one by one (each was a way the glob could differ from ICU).
    func testOddSubjectsAndPatternsAgreeWithICU() throws {
        let cases: [(String, String)] = [
            ("abc", "abc\n"), ("abc", "abc\r\n"), ("abc", "abc\r"), ("abc", "abc\n\n"), ("a*", "a\nb"), ("a?b", "a\nb"),
            ("a?b", "a\u{0B}b"), ("a?b", "a\u{00}b"), ("ss", "ß"), ("k", "\u{212A}"), ("[k]", "\u{212A}"), ("s*", "ſ"),
            ("st", "ﬆ"), ("*", ""), ("", ""), ("?", "🐈"), ("a]", "a]"), ("[a b]", " "), ("[-a]", "-"), ("{,a}", ""),
            ("{a,b}{c,d}", "BD"), ("\\d", "7"), ("\\<", "<"), ("[.]", "x"), ("[*?]", "?"), ("i", "İ"), ("I", "ı"),
            ("*/x", "é/x"), ("/api/*", "/API/é"), ("[^a]", "^"), ("a\\", "a\\"), ("\t*", "\tx"),
        ]
        for (wildcard, subject) in cases {
            let translation = WildcardTranslator.regularExpression(fromWildcard: wildcard)
            let icu = try NSRegularExpression(pattern: translation, options: [.caseInsensitive])
            XCTAssertEqual(try CompiledPatternMatch(.wildcard(wildcard)).matches(subject), reference(icu, subject),
                           "\(wildcard.debugDescription) on \(subject.debugDescription)")
        }
    }

    func testCommonURLWildcardsUseTheGlob() throws {
        for wildcard in ["/api/*", "/api/books/*?id=*", "*/users/?", "/v[0-9]/x", "foo{bar,b*z}", "/search\\?q=*",
                         "http://?o[oz].b*z.com/{*.js,*.html}", "[^a]", "abc\\", ""] {
            XCTAssertTrue(try CompiledPatternMatch(.wildcard(wildcard)).usesGlob, wildcard)
        }
        for wildcard in ["/é/*", "\\d", "[:alpha:]", "a]", "[a b]"] {
            XCTAssertFalse(try CompiledPatternMatch(.wildcard(wildcard)).usesGlob, wildcard)
        }
    }
}
