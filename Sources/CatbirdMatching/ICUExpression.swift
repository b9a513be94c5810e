import Foundation
import Synchronization

/// A compiled ICU regular expression (`NSRegularExpression`), searched with a deadline, that
/// remembers whether it ever outlasted a worker's slice (docs/tenancy.md#slow-regular-expressions).
///
/// ICU checks the deadline only between blocks of backtracking steps (its progress callback),
/// and how long a block takes depends on the expression and the subject: measured on this
/// machine, about 0.3 ms for `(a+)+$` against 3,000 `a`s and a `!`, but 25 ms for `(a|aa)+$`.
/// So a 1 ms slice can hold a worker 25 ms. An expression that once ran past a slice is
/// therefore not started within a slice again: it answers ``MatchOutcome/outOfTime`` at once
/// and the request goes where its time delays no other tenant. Subjects the glob or the
/// automaton decide never reach ICU and are not affected.
///
/// `NSRegularExpression` is `Sendable` in this toolchain's Foundation (immutable once created,
/// documented as safe to use from several threads); the mark is an atomic.
final class ICUExpression: Sendable {
    let expression: NSRegularExpression
    /// Whether a search within a slice was stopped at its deadline (never cleared: the mock is
    /// replaced, not changed).
    private let outlastedSlice = Atomic<Bool>(false)

    init(_ expression: NSRegularExpression) {
        self.expression = expression
    }

    /// Whether the expression is found in `subject` as `rangeOfFirstMatch` finds it, stopped at
    /// `deadline` through ICU's progress callback (`.reportProgress`). Within a `slice`, an
    /// expression that outlasted one before is not started (``MatchOutcome/outOfTime``), and
    /// one stopped now is marked so.
    func search(_ subject: String, until deadline: ContinuousClock.Instant, slice: Bool) -> MatchOutcome {
        if slice, outlastedSlice.load(ordering: .relaxed) { return .outOfTime }
        var outcome = MatchOutcome.notMatched
        let whole = NSRange(location: 0, length: subject.utf16.count)
        expression.enumerateMatches(in: subject, options: [.reportProgress], range: whole) { result, _, stop in
            if result != nil {
                outcome = .matched
                stop.pointee = true
            } else if ContinuousClock.now >= deadline {
                outcome = .outOfTime
                stop.pointee = true
            }
        }
        if slice, outcome == .outOfTime { outlastedSlice.store(true, ordering: .relaxed) }
        return outcome
    }
}
