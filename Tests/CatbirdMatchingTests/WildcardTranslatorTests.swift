import CatbirdMatching
@_spi(Server) import CatbirdWire
import XCTest

/// Exact output of the Catbird 0.11 wildcard translation (docs/matching.md#wildcard).
final class WildcardTranslatorTests: XCTestCase {
    private func translate(_ wildcard: String) -> String {
        WildcardTranslator.regularExpression(fromWildcard: wildcard)
    }

    func testBracesBecomeAlternationGroup() {
        XCTAssertEqual(translate("foo{bar,b*z}"), "^foo(bar|b.*z)$")
    }

    func testCommaOutsideBracesIsLiteral() {
        XCTAssertEqual(translate("a,b"), "^a,b$")
        XCTAssertEqual(translate("{a,b},c"), "^(a|b),c$")
    }

    func testBracesDoNotNest() {
        // The first `}` closes the (only) brace state, so the later comma is literal.
        XCTAssertEqual(translate("{a{b,c}d,e}"), "^(a(b|c)d,e)$")
    }

    func testTrailingLoneBackslashIsLiteralBackslash() {
        XCTAssertEqual(translate("abc\\"), "^abc\\\\$")
        XCTAssertEqual(translate("\\"), "^\\\\$")
    }

    func testEscapedCharacterPassesThrough() {
        XCTAssertEqual(translate("\\*o"), "^\\*o$")
        XCTAssertEqual(translate("/search\\?q=*"), "^\\/search\\?q\\=.*$")
        XCTAssertEqual(translate("\\\\x"), "^\\\\x$")
        XCTAssertEqual(translate("\\d"), "^\\d$")
    }

    func testBracketsPassThrough() {
        XCTAssertEqual(translate("[a-z]"), "^[a-z]$")
        XCTAssertEqual(translate("fo[oz]"), "^fo[oz]$")
    }

    func testCaretInsideBracketsIsEscaped() {
        XCTAssertEqual(translate("[^a]"), "^[\\^a]$")
    }

    func testSpecialCharactersAreEscaped() {
        XCTAssertEqual(translate("/$^+.()=!|"), "^\\/\\$\\^\\+\\.\\(\\)\\=\\!\\|$")
    }

    func testStarRunsCollapse() {
        XCTAssertEqual(translate("a*b"), "^a.*b$")
        XCTAssertEqual(translate("a***b"), "^a.*b$")
        XCTAssertEqual(translate("*"), "^.*$")
    }

    func testQuestionMarkIsOneCharacter() {
        XCTAssertEqual(translate("f?o"), "^f.o$")
    }

    func testOtherCharactersAreCopied() {
        XCTAssertEqual(translate("ab-c_d:e#f %g"), "^ab-c_d:e#f %g$")
        XCTAssertEqual(translate("кот"), "^кот$")
        XCTAssertEqual(translate(""), "^$")
    }

    func testSpecExampleURLTranslation() {
        XCTAssertEqual(
            translate("http://?o[oz].b*z.com/{*.js,*.html}"),
            "^http:\\/\\/.o[oz]\\.b.*z\\.com\\/(.*\\.js|.*\\.html)$"
        )
    }
}
