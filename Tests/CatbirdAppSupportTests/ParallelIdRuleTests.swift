import CatbirdParallelId
import XCTest

/// The parallel-id rule both client libraries apply (tester findings T18C-F7, T18C-F8).
final class ParallelIdRuleTests: XCTestCase {
    func testTheDefaultTenant() {
        XCTAssertEqual(ParallelIdRule.read(nil), .defaultTenant)
        XCTAssertEqual(ParallelIdRule.read(""), .defaultTenant)
    }

    func testWhitespaceAndLineBreaksAtEitherEndAreDropped() {
        XCTAssertEqual(ParallelIdRule.read("t18c-trailing-newline\n"), .tenant("t18c-trailing-newline"))
        XCTAssertEqual(ParallelIdRule.read(" t18c-sp "), .tenant("t18c-sp"))
        XCTAssertEqual(ParallelIdRule.read("\t shard-1\r\n"), .tenant("shard-1"))
        XCTAssertEqual(ParallelIdRule.read("a b"), .tenant("a b"), "a space inside is part of the id")
        XCTAssertEqual(ParallelIdRule.read("café/../100%"), .tenant("café/../100%"))
        XCTAssertEqual(ParallelIdRule.read("👩\u{200D}💻"), .tenant("👩\u{200D}💻"), "a format character (ZWJ) is no control character")
    }

    /// T18C-F7: `"t18c-a\r\nX-Evil: 1"` was sent without the header (the default tenant).
    func testAControlCharacterInsideIsRefusedNamingTheId() {
        XCTAssertEqual(
            ParallelIdRule.read("t18c-a\r\nX-Evil: 1"),
            .refused(reason: #"the parallel id "t18c-a\r\nX-Evil: 1" holds the control character U+000D, which no "#
                + "X-Catbird-Parallel-Id header can carry (without the header every call would go to the default tenant)"))
        for id in ["a\u{0}b", "a\u{7F}b", "a\u{85}b", "a\u{2028}b", "a\u{2029}b", "a\tb", "a\nb"] {
            guard case .refused = ParallelIdRule.read(id) else { return XCTFail("\(id.unicodeScalars.map(\.value)) accepted") }
        }
    }

    func testAnIdThatIsOnlyWhitespaceIsRefused() {
        XCTAssertEqual(
            ParallelIdRule.read(" \n"),
            .refused(reason: #"the parallel id " \n" is only spaces, tabs or line breaks; use nil or "" for the default tenant"#))
    }

    /// Tester finding tester44c-F6, its ids: the rule trimmed every Unicode space (U+00A0,
    /// U+2003, U+3000) where the server drops only spaces and tabs, so `"\u{A0}nbsp\u{A0}"` was
    /// tenant `nbsp` for the Swift client and `\u{A0}nbsp\u{A0}` for curl. They are kept now; the
    /// NEL (U+0085) of `"nel\u{85}"` is a control character, refused as inside an id.
    func testOnlyTheServersWhitespaceAndLineBreaksAreTrimmed() {
        XCTAssertEqual(ParallelIdRule.read("\u{A0}nbsp\u{A0}"), .tenant("\u{A0}nbsp\u{A0}"))
        XCTAssertEqual(ParallelIdRule.read("\u{2003}em\u{2003}"), .tenant("\u{2003}em\u{2003}"))
        XCTAssertEqual(ParallelIdRule.read("\u{3000}ideo"), .tenant("\u{3000}ideo"))
        guard case .refused = ParallelIdRule.read("nel\u{85}") else { return XCTFail("a NEL at the end was accepted") }
        XCTAssertEqual(ParallelIdRule.read(" \u{A0}x\t\r\n"), .tenant("\u{A0}x"))
    }
}
