@testable import CatbirdMatching
@_spi(Server) import CatbirdWire
import XCTest

/// `equal` and `regexp` semantics (docs/matching.md#pattern-kinds) and compile-time errors.
final class CompiledPatternMatchTests: XCTestCase {
    private func compiled(_ pattern: PatternMatch) throws -> CompiledPatternMatch {
        try CompiledPatternMatch(pattern)
    }

    // MARK: equal

    func testEqualIsExactIncludingQuery() throws {
        let pattern = try compiled(.equal("/api/books?id=1"))
        XCTAssertTrue(pattern.matches("/api/books?id=1"))
        XCTAssertFalse(pattern.matches("/api/books"))
        XCTAssertFalse(pattern.matches("/api/books?id=12"))
        XCTAssertFalse(pattern.matches("/api/books?id=1&x=2"))
    }

    func testEqualIsCaseSensitive() throws {
        let pattern = try compiled(.equal("/api/Books"))
        XCTAssertTrue(pattern.matches("/api/Books"))
        XCTAssertFalse(pattern.matches("/api/books"))
    }

    func testEqualTreatsRegexCharactersLiterally() throws {
        let pattern = try compiled(.equal("/a.*b"))
        XCTAssertTrue(pattern.matches("/a.*b"))
        XCTAssertFalse(pattern.matches("/axxb"))
        XCTAssertNoThrow(try compiled(.equal("(unbalanced")))
    }

    func testSourceIsKept() throws {
        XCTAssertEqual(try compiled(.regexp("x+")).source, PatternMatch(kind: .regexp, value: "x+"))
    }

    // MARK: regexp

    func testRegexpIsUnanchoredSearch() throws {
        let pattern = try compiled(.regexp("users/[0-9]+"))
        XCTAssertTrue(pattern.matches("/api/users/17?expand=true"))
        XCTAssertFalse(pattern.matches("/api/users/me"))
    }

    func testRegexpIsCaseInsensitive() throws {
        let pattern = try compiled(.regexp("/API/Users"))
        XCTAssertTrue(pattern.matches("/api/users/1"))
        XCTAssertTrue(try compiled(.regexp("кот|cat")).matches("КОТ"))
        XCTAssertTrue(try compiled(.regexp("кот|cat")).matches("a CAT"))
        XCTAssertFalse(try compiled(.regexp("кот|cat")).matches("dog"))
    }

    func testRegexpAnchorsInsideThePatternWork() throws {
        let pattern = try compiled(.regexp("^/api/users/[0-9]+$"))
        XCTAssertTrue(pattern.matches("/api/users/17"))
        XCTAssertFalse(pattern.matches("/api/users/17/posts"))
        XCTAssertFalse(pattern.matches("/v1/api/users/17"))
    }

    func testRegexpMatchesAfterNonASCIIAndEmoji() throws {
        // The search range is measured in UTF-16 units; a wrong length would miss the tail.
        let pattern = try compiled(.regexp("end$"))
        XCTAssertTrue(pattern.matches("🐈‍⬛ привет end"))
        XCTAssertFalse(pattern.matches("🐈‍⬛ привет en"))
    }

    func testEmptyRegexpMatchesEverything() throws {
        let pattern = try compiled(.regexp(""))
        XCTAssertTrue(pattern.matches(""))
        XCTAssertTrue(pattern.matches("/anything"))
    }

    func testInvalidRegexpThrowsPatternErrorNamingThePattern() {
        for value in ["(abc", "[a-", "a{2,1}", "*x"] {
            XCTAssertThrowsError(try compiled(.regexp(value)), value) { error in
                guard let patternError = error as? PatternError,
                      case let .invalidRegularExpression(pattern, _) = patternError else {
                    return XCTFail("unexpected error \(error)")
                }
                XCTAssertEqual(pattern, value)
                XCTAssertTrue(patternError.description.contains("\"\(value)\""), patternError.description)
                XCTAssertTrue(patternError.description.hasPrefix("invalid regular expression"), patternError.description)
            }
        }
    }

    // MARK: wildcard basics (the full list is in WildcardMatchingTests)

    func testWildcardIsAnchoredCaseInsensitiveAndCrossesSlash() throws {
        let pattern = try compiled(.wildcard("/API/*/edit"))
        XCTAssertTrue(pattern.matches("/api/a/b/c/edit"))
        XCTAssertFalse(pattern.matches("/api/a/edit/more"))
        XCTAssertFalse(pattern.matches("x/api/a/edit"))
    }

    func testPatternErrorDescriptionEscapesQuotes() {
        let error = PatternError.invalidRegularExpression(pattern: "a\"(", reason: "bad")
        XCTAssertEqual(error.description, "invalid regular expression \"a\\\"(\": bad")
    }
}

/// The evaluation budget of regular expressions (docs/matching.md#evaluation-budget).
final class EvaluationBudgetTests: XCTestCase {
    func testACatastrophicExpressionStopsAtTheDeadline() throws {
        let pattern = try CompiledPatternMatch(.regexp("^/(a+)+$"))
        let subject = "/" + String(repeating: "a", count: 40) + "!"
        let started = ContinuousClock.now
        XCTAssertEqual(pattern.evaluate(subject, until: started.advanced(by: .milliseconds(50))), .outOfTime)
        XCTAssertLessThan(ContinuousClock.now - started, .seconds(2))
        XCTAssertFalse(pattern.matches(subject), "out of time counts as no match")
    }

    func testACheapExpressionFinishesEvenPastItsDeadline() throws {
        let pattern = try CompiledPatternMatch(.regexp("^/(a+)+$"))
        XCTAssertEqual(pattern.evaluate("/aaaa", until: .now.advanced(by: .seconds(-1))), .matched)
        XCTAssertEqual(pattern.evaluate("/b", until: .now.advanced(by: .seconds(-1))), .notMatched)
    }

    func testRequestPatternReportsOutOfTimeFromAHeaderPattern() throws {
        let pattern = try CompiledRequestPattern(RequestPattern(
            method: .GET, url: .wildcard("/x"), headers: ["X-Slow": .regexp("^(a+)+$")]))
        let outcome = pattern.evaluate(method: "GET", target: "/x", headerValue: { _ in String(repeating: "a", count: 40) + "!" },
                                       until: .now.advanced(by: .milliseconds(20)))
        XCTAssertEqual(outcome, .outOfTime)
    }

    /// A body regexp is stopped at the request's deadline too (it had 100 ms of its own per
    /// mock, whatever the deadline).
    func testRequestPatternReportsOutOfTimeFromABodyPattern() throws {
        let pattern = try CompiledRequestPattern(RequestPattern(
            method: .POST, url: .equal("/b"), body: BodyPattern(kind: .regexp, value: "(a|aa)+$")))
        let body = Array((String(repeating: "a", count: 5000) + "!").utf8)
        let started = ContinuousClock.now
        let outcome = pattern.evaluate(method: "POST", target: "/b", headerValue: { _ in nil }, body: body,
                                       until: started.advanced(by: .milliseconds(-1)))
        XCTAssertEqual(outcome, .outOfTime)
        XCTAssertLessThan(ContinuousClock.now - started, .milliseconds(90), "stopped at its first check, not after 100 ms of its own")
    }

    /// An expression stopped within a worker's slice is not started within a slice again for
    /// a subject at least half as long (ICU checks its deadline only every block of steps, up
    /// to 25 ms apart), a far shorter one is (a mark is for subjects of its length); with a
    /// budget it runs as before. A quick run with the whole budget on a shorter subject leaves
    /// the mark; on one as long, it clears it. (A subject of 300 units: a slice finds a search
    /// slow only within its 1 µs a unit, ``RegexpSlice/timePerUnit``.)
    func testAnExpressionThatOutlastedASliceIsNotStartedInOneAgain() throws {
        let pattern = try CompiledPatternMatch(.regexp("^/(a|aa)+$"))
        let icu = try XCTUnwrap(pattern.expression)
        let slow = "/" + String(repeating: "a", count: 300) + "!"
        let half = "/" + String(repeating: "a", count: 200)
        XCTAssertEqual(pattern.evaluate("/aaaa", until: .now.advanced(by: .milliseconds(1)), slice: .matching), .matched)
        XCTAssertEqual(pattern.evaluate(slow, until: .now.advanced(by: .milliseconds(1)), slice: .matching), .outOfTime)
        let started = ContinuousClock.now
        XCTAssertEqual(pattern.evaluate(half, until: .now.advanced(by: .seconds(10)), slice: .matching), .outOfTime, "marked: not started in a slice")
        XCTAssertLessThan(ContinuousClock.now - started, .milliseconds(5))
        XCTAssertEqual(pattern.evaluate("/aaaa", until: .now.advanced(by: .seconds(10)), slice: .matching), .matched, "a far shorter subject is started")
        XCTAssertEqual(pattern.evaluate(half, until: .now.advanced(by: .milliseconds(100))), .matched, "with the request's budget it runs")
        XCTAssertEqual(pattern.evaluate("/b", until: .now.advanced(by: .seconds(10))), .notMatched)
        XCTAssertTrue(icu.isMarkedSlow, "a shorter quick subject kept the mark")
        let asLong = "/" + String(repeating: "b", count: 301)
        XCTAssertEqual(pattern.evaluate(asLong, until: .now.advanced(by: .milliseconds(100))), .notMatched)
        XCTAssertEqual(pattern.evaluate(half, until: .now.advanced(by: .seconds(10)), slice: .matching), .matched, "cleared by a quick run as long")
    }

    /// An expression reached after earlier work used up the request's slice is stopped there
    /// but not marked: its own search ran only a moment (docs/tenancy.md#slow-regular-expressions).
    /// Nor does the near-miss comparison mark one, however long it ran.
    func testAnExpressionStoppedByAnotherOnesSliceIsNotMarked() throws {
        // Unanchored: ICU reports progress at each start position, so it is stopped at once.
        let quick = try CompiledPatternMatch(.regexp("q(?=z)"))
        let spent = ContinuousClock.now.advanced(by: .milliseconds(-1))  // the slice is over before it starts
        XCTAssertEqual(quick.evaluate("/" + String(repeating: "a", count: 3000), until: spent, slice: .matching), .outOfTime)
        XCTAssertEqual(quick.evaluate("/qz", until: .now.advanced(by: .seconds(10)), slice: .matching), .matched, "not marked")

        let slow = try CompiledPatternMatch(.regexp("^/(a|aa)+$"))
        let subject = "/" + String(repeating: "a", count: 3000) + "!"
        XCTAssertEqual(slow.evaluate(subject, until: .now.advanced(by: .milliseconds(1)), slice: .comparing), .outOfTime)
        XCTAssertEqual(slow.evaluate("/aaaa", until: .now.advanced(by: .seconds(10)), slice: .matching), .matched, "the comparison marks none")
    }
}
