import Foundation
import Synchronization

/// A compiled ICU regular expression (`NSRegularExpression`), searched with a deadline, that
/// remembers whether it was found slow within a worker's slice (docs/tenancy.md#slow-regular-expressions).
///
/// ICU checks the deadline only between blocks of backtracking steps (its progress callback),
/// and how long a block takes depends on the expression and the subject: measured on this
/// machine, about 0.3 ms for `(a+)+$` against 3,000 `a`s and a `!`, but 25 ms for `(a|aa)+$`.
/// So a 1 ms slice can hold a worker 25 ms. An expression found slow is therefore not started
/// within a slice again: it answers ``MatchOutcome/outOfTime`` at once and the request goes
/// where its time delays no other tenant. Subjects the glob or the automaton decide never reach
/// ICU and are not affected.
///
/// Found slow means: a search while matching within a slice (``RegexpSlice/matching``) was
/// stopped at the slice's end after its own search, from its own start, had run
/// ``RegexpSlice/markedAfter`` or more, so an expression that starts after earlier work (other
/// mocks, a descheduling) used up the request's slice is stopped without being marked; the
/// near-miss comparison (``RegexpSlice/comparing``) never marks. The mark is cleared when a
/// search with the whole budget (the matching lane, ``RegexpSlice/whole``) finishes within
/// ``RegexpSlice/length`` on a subject at least as long as the one it was marked on, so an
/// unlucky slice does not brand it for good, while short quick subjects cannot clear a mark
/// that long slow ones earned.
///
/// `NSRegularExpression` is `Sendable` in this toolchain's Foundation (immutable once created,
/// documented as safe to use from several threads); the mark is an atomic.
final class ICUExpression: Sendable {
    let expression: NSRegularExpression
    /// The length (UTF-16 code units, at least 1) of the subject whose search marked the
    /// expression slow; 0: not marked.
    private let markedOn = Atomic<Int>(0)

    init(_ expression: NSRegularExpression) {
        self.expression = expression
    }

    /// Whether the expression is found in `subject` as `rangeOfFirstMatch` finds it, stopped at
    /// `deadline` through ICU's progress callback (`.reportProgress`). Within a slice, an
    /// expression marked slow is not started (``MatchOutcome/outOfTime``); the mark is set and
    /// cleared as the type's documentation says.
    func search(_ subject: String, until deadline: ContinuousClock.Instant, slice: RegexpSlice) -> MatchOutcome {
        let marked = markedOn.load(ordering: .relaxed)
        if marked > 0, slice.isSlice { return .outOfTime }
        let length = subject.utf16.count
        // Only what can set or clear the mark is timed.
        let timed = slice == .matching || (marked > 0 && length >= marked)
        let started = timed ? ContinuousClock.now : deadline
        var outcome = MatchOutcome.notMatched
        let whole = NSRange(location: 0, length: length)
        expression.enumerateMatches(in: subject, options: [.reportProgress], range: whole) { result, _, stop in
            if result != nil {
                outcome = .matched
                stop.pointee = true
            } else if ContinuousClock.now >= deadline {
                outcome = .outOfTime
                stop.pointee = true
            }
        }
        guard timed else { return outcome }
        let ran = ContinuousClock.now - started
        if slice == .matching, outcome == .outOfTime, ran >= RegexpSlice.markedAfter {
            markedOn.store(max(length, 1), ordering: .relaxed)
        } else if slice == .whole, outcome != .outOfTime, ran < RegexpSlice.length {
            _ = markedOn.compareExchange(expected: marked, desired: 0, ordering: .relaxed)
        }
        return outcome
    }
}
