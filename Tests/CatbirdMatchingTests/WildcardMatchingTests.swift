import CatbirdMatching
@_spi(Server) import CatbirdWire
import XCTest

/// Every example of docs/matching.md#wildcard, plus the rules it states, matched end to end.
final class WildcardMatchingTests: XCTestCase {
    private func matches(_ wildcard: String, _ subject: String, file: StaticString = #filePath, line: UInt = #line) -> Bool {
        do {
            return try CompiledPatternMatch(.wildcard(wildcard)).matches(subject)
        } catch {
            XCTFail("\(wildcard) did not compile: \(error)", file: file, line: line)
            return false
        }
    }

    // MARK: docs/matching.md#wildcard examples, one assertion each

    func testSpecExampleStar() { XCTAssertTrue(matches("f*uck", "firetruck")) }
    func testSpecExampleAnchored() { XCTAssertFalse(matches("uc", "firetruck")) }
    func testSpecExampleQuestionMarkIsExactlyOne() { XCTAssertFalse(matches("f?o", "fooo")) }
    func testSpecExampleBrackets() { XCTAssertFalse(matches("fo[oz]", "fog")) }
    func testSpecExampleBraces() { XCTAssertTrue(matches("foo{bar,b*z}", "foobuzz")) }
    func testSpecExampleURLMatches() {
        XCTAssertTrue(matches("http://?o[oz].b*z.com/{*.js,*.html}", "http://moz.buzz.com/index.html"))
    }
    func testSpecExampleURLDoesNotMatch() {
        XCTAssertFalse(matches("http://?o[oz].b*z.com/{*.js,*.html}", "http://flozz.buzz.com/index.html"))
    }
    func testSpecExampleEscapedStar() { XCTAssertFalse(matches("\\*o", "foo")) }
    func testSpecExampleEscapedQuestionMark() { XCTAssertTrue(matches("/search\\?q=*", "/search?q=abc")) }
    func testSpecExampleCaseInsensitive() { XCTAssertTrue(matches("/API/*", "/api/x")) }

    // MARK: the rules behind them

    func testStarCrossesSlashes() {
        XCTAssertTrue(matches("/api/books/*", "/api/books/1/chapters/2?x=y"))
        XCTAssertTrue(matches("/api/*", "/api/"))
        XCTAssertFalse(matches("/api/books/*", "/api/book"))
    }

    func testQuestionMarkMatchesSlash() {
        XCTAssertTrue(matches("a?b", "a/b"))
        XCTAssertFalse(matches("a?b", "ab"))
    }

    func testEscapedLiteralsMatchOnlyThemselves() {
        XCTAssertTrue(matches("\\*o", "*o"))
        XCTAssertFalse(matches("/search\\?q=*", "/searchXq=abc"))
    }

    func testCaretInsideBracketsIsLiteralNotNegation() {
        XCTAssertTrue(matches("[^a]", "^"))
        XCTAssertTrue(matches("[^a]", "a"))
        XCTAssertFalse(matches("[^a]", "b"))
    }

    func testRangesWork() {
        XCTAssertTrue(matches("/v[0-9]/x", "/v7/x"))
        XCTAssertFalse(matches("/v[0-9]/x", "/vz/x"))
    }

    func testLiteralCommaAndTrailingBackslash() {
        XCTAssertTrue(matches("a,b", "a,b"))
        XCTAssertFalse(matches("a,b", "a"))
        XCTAssertTrue(matches("abc\\", "abc\\"))
        XCTAssertFalse(matches("abc\\", "abc"))
    }

    func testEscapedCharactersAreLiteral() {
        XCTAssertTrue(matches("/a.b+c(d)=e!f|g$h^", "/a.b+c(d)=e!f|g$h^"))
        XCTAssertFalse(matches("a.c", "abc"))
        XCTAssertFalse(matches("a|b", "a"))
    }

    func testWildcardIsAnchoredAtBothEnds() {
        XCTAssertFalse(matches("/api", "/api/x"))
        XCTAssertFalse(matches("api/*", "/api/x"))
    }

    func testUnbalancedBraceIsReportedAsInvalid() {
        XCTAssertThrowsError(try CompiledPatternMatch(.wildcard("/a{b,c"))) { error in
            guard case let .invalidRegularExpression(pattern, reason) = error as? PatternError else {
                return XCTFail("unexpected error \(error)")
            }
            XCTAssertEqual(pattern, "/a{b,c")
            // The translation is quoted JSON-style, so its backslash is doubled.
            XCTAssertTrue(reason.contains(#""^\\/a(b|c$""#), reason)
        }
    }
}
