import CatbirdMatching
import XCTest

/// ``RegexpQuantifierSlip``: a regexp url copied from a URL with a query (tester finding
/// tester50b-F2), and regexps whose quantifiers are meant, which it leaves alone.
final class RegexpQuantifierSlipTests: XCTestCase {
    func testAQueryCopiedIntoARegexpIsFoundWithItsEscapedForm() {
        let cases: [(String, String, String)] = [
            ("/search?q=swift", "/search?q=swift", #"/search\?q=swift"#),
            ("^/api/feed?page=1$", "/api/feed?page=1", #"^/api/feed\?page=1$"#),
            ("/search?q=red+shoes", "/search?q=red+shoes", #"/search\?q=red\+shoes"#),
        ]
        for (regexp, literal, escaped) in cases {
            let slip = RegexpQuantifierSlip.slip(in: regexp)
            XCTAssertEqual(slip?.literal, literal, regexp)
            XCTAssertEqual(slip?.escaped, escaped, regexp)
        }
    }

    func testMeantQuantifiersAreNoSlip() {
        for regexp in ["colou?r", "^https?://api.test/x", "^/api/users/[0-9]+$", #"/search\?q=swift"#, "/a?b", "", "^/x?$"] {
            XCTAssertNil(RegexpQuantifierSlip.slip(in: regexp), regexp)
        }
    }
}
