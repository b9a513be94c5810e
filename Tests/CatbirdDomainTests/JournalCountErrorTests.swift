import CatbirdDomain
@_spi(Server) import CatbirdWire
import XCTest

/// try9a F19: a search stopped at its time limit names the route (count, find, wait) and the
/// parts of its pattern that take long, not a regular expression it does not have.
final class JournalCountErrorTests: XCTestCase {
    func testTheReasonNamesTheSearchAndTheBodyPatternKind() {
        let json = RequestPattern(method: .POST, url: .wildcard("*"), body: .json(#"{"a":1}"#))
        let waited = JournalCountError.tooSlow(milliseconds: 2000, search: .wait, pattern: json)
        XCTAssertEqual(waited.status, 400)
        XCTAssertEqual(
            waited.reason,
            #"the pattern is too slow to look for in this journal for a wait (stopped after 2000 ms); it matches the body pattern "json" on each journaled body: narrow it with an equal url so fewer bodies are read"#
        )
        XCTAssertFalse(waited.reason.contains("regular expression"))
        XCTAssertFalse(waited.reason.contains("count"))

        var regexps = RequestPattern(method: .GET, url: .regexp("^/(a+)+$"), headers: ["X-Id": .regexp("(b+)+")])
        XCTAssertEqual(
            JournalCountError.tooSlow(milliseconds: 2000, search: .count, pattern: regexps).reason,
            #"the pattern is too slow to count over this journal (stopped after 2000 ms); simplify the regular expression (the url's, the header "X-Id"'s)"#
        )
        regexps.body = .regexp("x+")
        regexps.headers = [:]
        XCTAssertEqual(
            JournalCountError.tooSlow(milliseconds: 500, search: .find, pattern: regexps).reason,
            #"the pattern is too slow to find in this journal (stopped after 500 ms); simplify the regular expression (the url's, the body's)"#
        )
        let plain = RequestPattern(method: .GET, url: .wildcard("/a*"))
        XCTAssertEqual(
            JournalCountError.tooSlow(milliseconds: 2000, search: .count, pattern: plain).reason,
            "the pattern is too slow to count over this journal (stopped after 2000 ms); an equal url is compared on the index, any other url on each journaled request of the method: narrow it with an equal url")
    }
}
