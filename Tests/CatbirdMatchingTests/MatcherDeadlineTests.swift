@testable import CatbirdMatching
import CatbirdWire
import XCTest

/// The glob and the automaton stop at a deadline as ICU does (tester findings tester30b-F4, F5).
final class MatcherDeadlineTests: XCTestCase {
    private func bytes(_ text: String, _ body: (UnsafeBufferPointer<UInt8>) -> Void) {
        var text = text
        text.withUTF8(body)
    }

    func testTheGlobIsStoppedAtItsDeadlineAndAnswersAsBeforeWithTime() throws {
        let glob = try XCTUnwrap(GlobMatcher(translation: WildcardTranslator.regularExpression(fromWildcard: "*" + String(repeating: "a", count: 3_999) + "b*")))
        let subject = "/" + String(repeating: String(repeating: "a", count: 3_000) + "b", count: 2) + String(repeating: "a", count: 1_900)
        bytes(subject) { subject in
            XCTAssertEqual(glob.matches(subject, until: .now), .outOfTime, "a deadline already passed, met at the first clock read")
            let started = ContinuousClock.now
            XCTAssertEqual(glob.matches(subject, until: started + .milliseconds(1)), .outOfTime, "the search takes far longer than 1 ms")
            XCTAssertLessThan(ContinuousClock.now - started, .milliseconds(50), "stopped soon after its deadline")
            XCTAssertEqual(glob.matches(subject, until: .now + .seconds(60)), .notMatched)
            XCTAssertEqual(glob.matches(subject), false)
        }
        bytes("/é") { XCTAssertNil(glob.matches($0, until: .now)) }
        bytes("/" + String(repeating: "a", count: 10) + "b") { XCTAssertEqual(glob.matches($0, until: .now), .notMatched, "a cheap search finishes") }
        bytes("/" + String(repeating: "a", count: 3_999) + "b") { XCTAssertEqual(glob.matches($0, until: .now + .seconds(60)), .matched) }
    }

    func testTheAutomatonIsStoppedAtItsDeadlineAndAnswersAsBeforeWithTime() throws {
        let automaton = try XCTUnwrap(SimpleRegexMatcher(expression: "a{50}[1][b][!]"))
        bytes("/" + String(repeating: "a", count: 8_000) + "k") { subject in
            XCTAssertEqual(automaton.matches(subject, until: .now), .outOfTime)
            XCTAssertEqual(automaton.matches(subject, until: .now + .seconds(60)), .notMatched)
            XCTAssertEqual(automaton.matches(subject), false)
        }
        bytes("/" + String(repeating: "a", count: 60) + "1B!") { XCTAssertEqual(automaton.matches($0, until: .now + .seconds(60)), .matched) }
        let literal = try XCTUnwrap(SimpleRegexMatcher(expression: "json$"))
        bytes("/a.json") { subject in
            XCTAssertEqual(literal.matches(subject, until: .now), .matched, "a cheap search finishes whatever the deadline")
        }
        bytes("/" + String(repeating: "a", count: 200)) { subject in
            XCTAssertEqual(automaton.matches(subject, until: .now), .notMatched, "fewer bytes than a clock read's")
        }
    }
}
