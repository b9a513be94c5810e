import CatbirdMatching
import Foundation
import XCTest

/// ``ICURegexTokens`` reads an expression as ICU does (checked here against
/// `NSRegularExpression` where it matters): the pieces joined are the expression as written.
final class ICURegexTokensTests: XCTestCase {
    private func joined(_ scan: ICURegexTokens) -> String {
        scan.tokens.map { token -> Substring in
            switch token {
            case let .other(text), let .inClass(text, _), let .endAnchor(text), let .backreference(text), let .lookahead(text),
                 let .lookaheadEnd(text): text
            }
        }.joined()
    }

    func testThePiecesJoinedAreTheExpression() {
        for expression in [
            #"^/a/[^/]+/b$"#, #"/a\Q$[\E\$"#, #"(?x)/a # c"#, #"[]a][^]b]"#, #"[a-z&&[^é]]"#, #"\p{L}+\N{DOLLAR SIGN}"#,
            #"(a)(?<n>b)\k<n>\12"#, "(?#note)x", #"a\"#, #"\Qopen"#, "", "é[è]", "/a(?=b(?!c)d)(?<=a)e", "(?i)(?=x)",
        ] {
            XCTAssertEqual(joined(ICURegexTokens(expression)), expression, expression)
        }
    }

    func testEndAnchorsOutsideClassesAndQuotesOnly() {
        let anchors = ICURegexTokens(#"/a[$]\$\Q$\E$|b\z|c\Z"#).tokens.compactMap { token -> String? in
            if case let .endAnchor(text) = token { String(text) } else { nil }
        }
        XCTAssertEqual(anchors, ["$", #"\z"#, #"\Z"#])
    }

    func testClassMembersKnowTheirInnermostClass() {
        let members = ICURegexTokens(#"[a\é[^è]]\[ë]"#).tokens.compactMap { token -> String? in
            if case let .inClass(text, negated) = token { "\(text)\(negated ? "!" : "")" } else { nil }
        }
        XCTAssertEqual(members, ["a", #"\é"#, "è!"])
        // `\[` outside is an escape: `ë]` is not in a class.
    }

    func testTheXFlagAndItsComments() throws {
        XCTAssertTrue(ICURegexTokens("(?x)/a # c").endsExtended)
        XCTAssertTrue(ICURegexTokens("(?ix)/a").endsExtended)
        XCTAssertFalse(ICURegexTokens("(?x:/a # c\n)b").endsExtended)
        XCTAssertFalse(ICURegexTokens("(?x)a(?-x)b").endsExtended)
        XCTAssertTrue(ICURegexTokens("(?x)a # (?-x\n").endsExtended)  // a comment's text is no flag
        XCTAssertTrue(ICURegexTokens("((?x)a)(?x)b").endsExtended)
        XCTAssertFalse(ICURegexTokens("((?x)a)b").endsExtended)
        // In a comment, `$` and `[` are text: `$` is no anchor, and the class never opens.
        let scan = ICURegexTokens("(?x)/a # [$\n$")
        XCTAssertEqual(scan.tokens.filter { if case .endAnchor = $0 { true } else { false } }.count, 1)
        // ICU agrees that `#` in a class comments under x (the class is left open: invalid).
        XCTAssertThrowsError(try NSRegularExpression(pattern: "(?x)a[#]b"))
    }

    func testLookaheadsAndTheirEndsAreTold() {
        let pieces = ICURegexTokens(#"/a(?=b(?!c)(d))(?<=a)(?:e)\(?=f)[(?=]"#).tokens.compactMap { token -> String? in
            switch token {
            case let .lookahead(text): "open \(text)"
            case let .lookaheadEnd(text): "end \(text)"
            default: nil
            }
        }
        XCTAssertEqual(pieces, ["open (?=", "open (?!", "end )", "end )"])
    }

    func testAnOpenQuoteIsToldAtTheEnd() {
        XCTAssertTrue(ICURegexTokens(#"/a\Q$"#).endsQuoted)
        XCTAssertFalse(ICURegexTokens(#"/a\Q$\E"#).endsQuoted)
    }

    /// ICU takes a backreference's digits while they name a group of the expression
    /// (measured: `(a)\12` is group 1 and a `2`, matching `aa2`).
    func testABackreferenceTakesTheDigitsThatNameAGroup() throws {
        XCTAssertEqual(try NSRegularExpression(pattern: #"^(a)\12$"#).firstMatch(in: "aa2", range: NSRange(location: 0, length: 3))?.range.length, 3)
        let one = ICURegexTokens.groupNumber(#"\12"#, groupCount: 1)
        XCTAssertEqual(one.group, 1)
        XCTAssertEqual(one.literalDigits, "2")
        let twelve = ICURegexTokens.groupNumber(#"\123"#, groupCount: 12)
        XCTAssertEqual(twelve.group, 12)
        XCTAssertEqual(twelve.literalDigits, "3")
    }
}
