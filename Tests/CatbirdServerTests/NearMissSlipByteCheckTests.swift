import XCTest

@testable import CatbirdServer

/// The url hint's byte check (``NearMissHints/mayBeURLSlip(_:target:)``), which lets every 404
/// skip the `String` comparison of its near misses' `equal` urls (``NearMissHints/urlSlip(mockID:url:target:)``)
/// unless the hint may fit: checked against that comparison for every pair of a set of urls and
/// targets: with and without queries, trailing slashes, empty queries, a `?` in the query, and
/// texts past ASCII (precomposed and decomposed accents, a combining mark after the `?`, which
/// makes it no `?` `Character`).
final class NearMissSlipByteCheckTests: XCTestCase {
    private static let texts = [
        "/", "", "/api", "/api/", "/api/feed", "/api/feed/", "/api/feed//", "/api/feed?page=1", "/api/feed/?page=1",
        "/api/feed?page=2", "/api/feed?", "/api/feed/?", "/api/feed??", "/api/feed?a=1?b", "/api/feed/?a=1?b", "?", "/?",
        "/miss/abcdefg", "/bench", "/bench/", "http://h/api/feed", "http://h/api/feed/", "/caf\u{E9}", "/caf\u{E9}/",
        "/cafe\u{301}", "/cafe\u{301}/", "/caf\u{E9}?q=1", "/a?\u{301}b", "/a/?\u{301}b", "/a", "/a/", "/a?\u{301}", "/a\r\n/",
        // tester50b-F6: a doubled `/` (a base URL ending in one), with and without a query.
        "//api/feed", "//api//feed?page=1", "http:/h/api/feed",
    ]

    /// Never false where the `String` comparison gives a hint; exactly that comparison's answer
    /// for two ASCII texts (so it is not simply always true).
    func testTheByteCheckPassesEveryPairTheHintFitsAndOnlyThoseWhenASCII() {
        var hints = 0
        var ruledOut = 0
        for url in Self.texts {
            for target in Self.texts {
                let hint = NearMissHints.urlSlip(mockID: 7, url: url, target: target)
                let mayBe = NearMissHints.mayBeURLSlip(url, target: target)
                if hint != nil {
                    hints += 1
                    XCTAssertTrue(mayBe, "url \(url.debugDescription), target \(target.debugDescription): \(hint!)")
                } else if url.utf8.allSatisfy({ $0 < 0x80 }) && target.utf8.allSatisfy({ $0 < 0x80 }) {
                    XCTAssertFalse(mayBe, "url \(url.debugDescription), target \(target.debugDescription): no hint")
                    ruledOut += 1
                }
            }
        }
        // The set holds both kinds of pairs (the loop checked something of each).
        XCTAssertGreaterThan(hints, 10)
        XCTAssertGreaterThan(ruledOut, 300)
    }
}
