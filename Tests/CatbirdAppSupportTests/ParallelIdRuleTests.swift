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
            .refused(reason: #"the parallel id " \n" is only whitespace; use nil or "" for the default tenant"#))
    }
}
