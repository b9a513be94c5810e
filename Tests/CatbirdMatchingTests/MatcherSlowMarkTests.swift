@testable import CatbirdMatching
import CatbirdWire
import XCTest

/// The glob's and the automaton's long searches mark their pattern slow as ICU's do, and a
/// marked wildcard or plain regexp is not started within a worker's slice (tester finding
/// tester30c-F3: only ICU's searches set the mark, so the default tenant's long wildcards and
/// automaton regexps were never skipped for shards, whose requests all went to the lane).
final class MatcherSlowMarkTests: XCTestCase {
    /// The finding's default mock (its first of ten) and shard request: `*` + 3,999 a's + `b*`
    /// against `/` + (3,000 a's + `b`) × 2 + 1,900 a's, some 30 ms of glob in a release build.
    static let longWildcard = "*" + String(repeating: "a", count: 3_999) + "b*"
    static let longSubject = "/" + String(repeating: String(repeating: "a", count: 3_000) + "b", count: 2) + String(repeating: "a", count: 1_900)

    func testAGlobStoppedAtTheEndOfAWorkersSliceMarksItsWildcardAndIsNotStartedThereAgain() throws {
        let wildcard = try CompiledPatternMatch(PatternMatch(kind: .wildcard, value: Self.longWildcard))
        XCTAssertTrue(wildcard.usesGlob)
        let icu = try XCTUnwrap(wildcard.expression)
        try assertMarksAndClears(wildcard, icu, slow: Self.longSubject, quick: "/" + String(repeating: "c", count: 8_000), quickly: .notMatched, slice: .milliseconds(1))
    }

    /// The finding's automaton variant: `a{50}[x][y][!]` against `/` + 8,000 a's.
    func testAnAutomatonStoppedAtTheEndOfAWorkersSliceMarksItsRegexpAndIsNotStartedThereAgain() throws {
        let regexp = try CompiledPatternMatch(PatternMatch(kind: .regexp, value: "a{50}[x][y][!]"))
        XCTAssertTrue(regexp.usesSimpleRegex)
        let icu = try XCTUnwrap(regexp.expression)
        // Each byte walks the automaton's 51 states: 8,000 bytes are some 0.4 M steps, under a
        // millisecond in a release build. 400,000 bytes outlast a 20 ms "slice" in any build
        // (a debug build's check that the subject is ASCII, before the search's first clock
        // read, takes a few of those milliseconds, which the mark does not count).
        let slow = "/" + String(repeating: "a", count: 400_000)
        // Found in its first bytes: quick however long.
        let quick = "/" + String(repeating: "a", count: 50) + "xy!" + String(repeating: "b", count: 400_000)
        try assertMarksAndClears(regexp, icu, slow: slow, quick: quick, quickly: .matched, slice: .milliseconds(20))
    }

    /// `slow` is stopped within a `.matching` slice (of `slice`) and marks the pattern; then it is not
    /// started within a slice (at once, whatever the subject); a `.whole` search of a shorter
    /// quick subject leaves the mark, of a quick subject at least as long (answered `quickly`) clears it.
    private func assertMarksAndClears(
        _ pattern: CompiledPatternMatch, _ icu: ICUExpression, slow: String, quick: String, quickly: MatchOutcome, slice: Duration
    ) throws {
        XCTAssertFalse(icu.isMarkedSlow)
        XCTAssertEqual(pattern.evaluate(slow, until: .now + slice, slice: .comparing), .outOfTime)
        XCTAssertFalse(icu.isMarkedSlow, "the near-miss comparison never marks")
        var marked = false
        // A slice that the thread spent waiting for a core does not mark: a few tries.
        for _ in 0..<20 where !marked {
            XCTAssertEqual(pattern.evaluate(slow, until: .now + slice, slice: .matching), .outOfTime)
            marked = icu.isMarkedSlow
        }
        XCTAssertTrue(marked, "a search stopped after a whole slice of its own work marks the pattern")

        let started = ContinuousClock.now
        XCTAssertEqual(pattern.evaluate("/a", until: .now + .seconds(60), slice: .matching), .outOfTime, "marked: not started in a slice")
        XCTAssertEqual(pattern.evaluate(slow, until: .now + .seconds(60), slice: .comparing), .outOfTime)
        XCTAssertLessThan(ContinuousClock.now - started, .milliseconds(1), "not started, whatever the deadline")

        XCTAssertEqual(pattern.evaluate("/b", until: .now + .seconds(60), slice: .whole), .notMatched)
        XCTAssertTrue(icu.isMarkedSlow, "a short quick subject does not clear a mark a long slow one earned")
        XCTAssertEqual(pattern.evaluate(quick, until: .now + .seconds(60), slice: .whole), quickly)
        XCTAssertFalse(icu.isMarkedSlow, "a quick search with the whole budget, of a subject as long, clears it")
        XCTAssertEqual(pattern.evaluate("/b", until: .now + .seconds(60), slice: .matching), .notMatched, "started again")
    }
}
