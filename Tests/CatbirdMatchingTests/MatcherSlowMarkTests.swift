@testable import CatbirdMatching
import CatbirdWire
import XCTest

/// The glob's long searches mark their pattern slow as ICU's do, and a marked wildcard or plain
/// regexp is not started within a worker's slice (tester finding tester30c-F3: only ICU's
/// searches set the mark, so the default tenant's long wildcards were never skipped for shards,
/// whose requests all went to the lane). Slow is slower than 1 µs a unit of the subject
/// (``RegexpSlice/timePerUnit``): a subject past a thousand units is found slow only with the
/// whole budget, and a linear search never (tester59b-F4). The automaton's searches are linear.
final class MatcherSlowMarkTests: XCTestCase {
    /// The finding's default mock (its first of ten) and shard request: `*` + 3,999 a's + `b*`
    /// against `/` + (3,000 a's + `b`) × 2 + 1,900 a's, some 30 ms of glob in a release build.
    static let longWildcard = "*" + String(repeating: "a", count: 3_999) + "b*"
    static let longSubject = "/" + String(repeating: String(repeating: "a", count: 3_000) + "b", count: 2) + String(repeating: "a", count: 1_900)

    func testAGlobFoundSlowWithTheWholeBudgetMarksItsWildcardAndIsNotStartedInASliceAgain() throws {
        let wildcard = try CompiledPatternMatch(PatternMatch(kind: .wildcard, value: Self.longWildcard))
        XCTAssertTrue(wildcard.usesGlob)
        let icu = try XCTUnwrap(wildcard.expression)
        try assertMarksAndClears(wildcard, icu, slow: Self.longSubject, quick: "/" + String(repeating: "c", count: 8_000), quickly: .notMatched)
    }

    /// The same rule for ICU: `^/(a|aa)+$` (exponential) against 3,000 a's and a `!`, too long a
    /// subject for a 1 ms slice to find it slow, is marked by the whole budget's search.
    func testAnICUExpressionFoundSlowWithTheWholeBudgetOnALongSubjectIsMarked() throws {
        let regexp = try CompiledPatternMatch(PatternMatch(kind: .regexp, value: "^/(a|aa)+$"))
        XCTAssertFalse(regexp.usesSimpleRegex)
        let icu = try XCTUnwrap(regexp.expression)
        let slow = "/" + String(repeating: "a", count: 3_000) + "!"
        try assertMarksAndClears(regexp, icu, slow: slow, quick: "/" + String(repeating: "b", count: 3_001), quickly: .notMatched)
    }

    /// Regression (tester59b-F4, its body regexp): a search whose time comes from its subject's
    /// length alone, linear, is never slow: stopped at the end of a worker's slice, or run to its
    /// end with the whole budget on a 20 KB and a 200 KB subject, it leaves no mark. (It was
    /// marked by a 12 KB body on a worker, and the default tenant's mock then skipped for shards.)
    func testALinearSearchOfALongSubjectIsNeverMarked() throws {
        let regexp = try CompiledPatternMatch(PatternMatch(kind: .regexp, value: #""orderId":\s*"[a-z0-9]+-end""#))
        let icu = try XCTUnwrap(regexp.expression)
        for size in [20_000, 200_000] {
            let body = #"{"pad":""# + String(repeating: "x", count: size) + #"","orderId": "abc123-end"}"#
            // Stopped (or, should ICU not look at the clock in time, finished) within a slice.
            let inSlice = regexp.evaluate(body, until: .now.advanced(by: .microseconds(200)), slice: .matching)
            XCTAssertTrue(inSlice == .outOfTime || inSlice == .matched, "\(size): \(inSlice)")
            XCTAssertFalse(icu.isMarkedSlow, "stopped in a slice: \(size)")
            XCTAssertEqual(regexp.evaluate(body, until: .now.advanced(by: .seconds(60)), slice: .whole), .matched, "\(size)")
            XCTAssertFalse(icu.isMarkedSlow, "run to its end: \(size)")
        }
        XCTAssertEqual(regexp.evaluate(#"{"orderId": "a-end"}"#, until: .now.advanced(by: .seconds(60)), slice: .matching), .matched)
    }

    /// `slow`, too long a subject for a slice to find its search slow, is stopped within a
    /// `.matching` slice without a mark; a search with the whole budget marks the pattern;
    /// then it is not started within a slice (at once, whatever the deadline) for a subject at
    /// least half as long, and is for a far shorter one; a `.whole` search
    /// of a shorter quick subject leaves the mark, of a quick subject at least as long
    /// (answered `quickly`) clears it.
    private func assertMarksAndClears(
        _ pattern: CompiledPatternMatch, _ icu: ICUExpression, slow: String, quick: String, quickly: MatchOutcome
    ) throws {
        XCTAssertTrue(RegexpSlice.outgrowsSlice(slow.utf16.count))
        XCTAssertFalse(icu.isMarkedSlow)
        XCTAssertEqual(pattern.evaluate(slow, until: .now + .milliseconds(1), slice: .comparing), .outOfTime)
        XCTAssertFalse(icu.isMarkedSlow, "the near-miss comparison never marks")
        XCTAssertEqual(pattern.evaluate(slow, until: .now + .milliseconds(1), slice: .matching), .outOfTime)
        XCTAssertFalse(icu.isMarkedSlow, "a slice finds no search of so long a subject slow")
        _ = pattern.evaluate(slow, until: .now + .seconds(60), slice: .whole)
        XCTAssertTrue(icu.isMarkedSlow, "slower than 1 µs a unit with the whole budget marks the pattern")

        let half = String(slow.prefix((slow.utf8.count + 1) / 2))
        let started = ContinuousClock.now
        XCTAssertEqual(pattern.evaluate(half, until: .now + .seconds(60), slice: .matching), .outOfTime, "marked: not started in a slice")
        XCTAssertEqual(pattern.evaluate(slow, until: .now + .seconds(60), slice: .comparing), .outOfTime)
        XCTAssertLessThan(ContinuousClock.now - started, .milliseconds(1), "not started, whatever the deadline")
        XCTAssertEqual(pattern.evaluate("/b", until: .now + .seconds(60), slice: .matching), .notMatched, "a far shorter subject is started")

        XCTAssertEqual(pattern.evaluate("/b", until: .now + .seconds(60), slice: .whole), .notMatched)
        XCTAssertTrue(icu.isMarkedSlow, "a short quick subject does not clear a mark a long slow one earned")
        XCTAssertEqual(pattern.evaluate(quick, until: .now + .seconds(60), slice: .whole), quickly)
        XCTAssertFalse(icu.isMarkedSlow, "a quick search with the whole budget, of a subject as long, clears it")
        XCTAssertEqual(pattern.evaluate(quick, until: .now + .seconds(60), slice: .matching), quickly, "started again")
    }
}
