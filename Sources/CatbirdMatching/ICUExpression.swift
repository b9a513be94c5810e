import CatbirdSupport
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
/// where its time delays no other tenant. The mark stands for the whole pattern: a wildcard's
/// or plain regexp's glob or automaton (``CompiledPatternMatch``) is not started either while
/// it is set, and their long searches set and clear it by the same rule
/// (``note(_:of:length:slice:)``; tester finding tester30c-F3).
///
/// Found slow means slower than ``RegexpSlice/timePerUnit`` (1 µs) of the thread's CPU time
/// (``ThreadCPUTime``) per unit of its subject, and than a floor
/// (``RegexpSlice/isSlow(worked:length:floor:)``): a search whose time comes from its subject's
/// length alone is never slow (tester finding tester59b-F4). A search while matching within a
/// slice (``RegexpSlice/matching``) is found slow when stopped at the slice's end after its own
/// search, from its own start, had run ``RegexpSlice/markedAfter`` or more, so an expression
/// that starts after earlier work (other mocks) used up the request's slice is stopped without
/// being marked, and so is one whose thread waited for a core meanwhile (a loaded machine: a
/// clean-clone CI run marked `[a-z]*q(?=\?)` after a descheduling, by the wall clock); a
/// subject too long for the slice to tell (``RegexpSlice/outgrowsSlice(_:)``) is found slow by
/// a search with the whole budget (the matching lane, ``RegexpSlice/whole``) that took
/// ``RegexpSlice/length`` or more, finished or not. The near-miss comparison
/// (``RegexpSlice/comparing``) never marks. The mark is kept with the subject's length, and a
/// subject less than half as long is still started within a slice (``skipsInSlice(length:)``).
/// It is cleared when a search with the whole budget finishes without being slow on a subject
/// at least as long as the one it was marked on, so an unlucky slice does not brand it for
/// good, while short quick subjects cannot clear a mark that long slow ones earned.
///
/// An expression is compiled when made (``init(compiling:)``: an `update`, a count, find or
/// wait, whose 400 must say at once that it is invalid) or at its first search
/// (``init(deferred:)``: a stored mock's, which compiled when it was added), so that start-up
/// does not compile every stored expression before the server listens (try9b F14: 18 stored
/// multi-megabyte expressions kept a restart down 62 s, 20,000 ordinary ones 20 s).
/// ``compile()`` compiles a deferred one ahead of its first search (the start-up's background
/// pass). One expression is compiled once: a search that meets it being compiled waits for
/// that compile, not for any other expression's.
///
/// A mark comes with **probes** (tester finding try9b F7, review M1): another tenant's request
/// skips a default-tenant mock marked slow on a worker, so no search with the whole budget
/// would come to clear a mark that load alone had set. The search that sets a mark leaves a
/// probe, and from then on one probe a second (``probeInterval``, for all marked expressions
/// together) can be claimed (``claimProbe()``) by a request that needs the expression; the matching lane, taking it
/// (``takeProbe()``), gives the expression the request's whole budget, which finishing without
/// being slow clears the mark as above.
///
/// `NSRegularExpression` is `Sendable` in this toolchain's Foundation (immutable once created,
/// documented as safe to use from several threads); the compiled expression is published once
/// through an `AtomicLazyReference`, the compile itself serialized by a mutex, the mark an atomic.
final class ICUExpression: Sendable {
    /// The expression as ICU compiles it (case-insensitively).
    let pattern: String
    private let compiled = AtomicLazyReference<NSRegularExpression>()
    /// Held while compiling (so two searches never compile one expression twice); true once a
    /// deferred compile failed (an expression this ICU no longer accepts: it never matches).
    private let compiling = Mutex<Bool>(false)
    /// The length (UTF-16 code units, at least 1) of the subject whose search marked the
    /// expression slow; 0: not marked.
    private let markedOn = Atomic<Int>(0)

    /// Compiles `pattern` now.
    /// - Throws: what `NSRegularExpression` throws for an expression ICU does not accept.
    init(compiling pattern: String) throws {
        self.pattern = pattern
        _ = compiled.storeIfNil(try Self.regularExpression(pattern))
    }

    /// Keeps `pattern` (one that compiled before: a stored mock's) to compile at its first
    /// search or ``compile()``.
    init(deferred pattern: String) {
        self.pattern = pattern
    }

    /// Whether the expression is compiled (a deferred one: searched or ``compile()``d).
    var isCompiled: Bool { compiled.load() != nil }

    /// The compiled expression: compiled now when deferred and not yet compiled, waiting for a
    /// compile of it under way; nil when it does not compile.
    @discardableResult
    func compile() -> NSRegularExpression? {
        if let expression = compiled.load() { return expression }
        return compiling.withLock { failed in
            if let expression = compiled.load() { return expression }
            guard !failed, let expression = try? Self.regularExpression(pattern) else {
                failed = true
                return nil
            }
            return compiled.storeIfNil(expression)
        }
    }

    private static func regularExpression(_ pattern: String) throws -> NSRegularExpression {
        try NSRegularExpression(pattern: pattern, options: [.caseInsensitive])
    }

    /// When the next probe may be claimed (``DispatchTime/uptimeNanoseconds``); read only while marked.
    private let probeDue = Atomic<UInt64>(0)
    /// Whether a probe was left or claimed and not yet taken by the matching lane.
    private let probeWaiting = Atomic<Bool>(false)

    /// One probe a second: 1 s in nanoseconds.
    static let probeInterval: UInt64 = 1_000_000_000
    /// When the next probe of any expression may be claimed: one a second in all, not per mark
    /// (tester finding tester30b-F1: with ten default-tenant expressions marked, each its own
    /// probe a second, a shard's every request was a probe and took the 100 ms budget; 29
    /// requests in 3 s instead of about 40,000). Each mark is probed in its turn.
    private static let anyProbeDue = Atomic<UInt64>(0)

    /// Whether the expression is marked slow now (found slow and not cleared since), on a
    /// subject of any length.
    var isMarkedSlow: Bool { markedOn.load(ordering: .relaxed) > 0 }

    /// Whether a search of a subject of `length` units is not started within a slice: the
    /// expression is marked slow on a subject at most twice as long. A mark set on a long
    /// subject (by a search with the whole budget: ``RegexpSlice/outgrowsSlice(_:)``) does not
    /// send the expression's short subjects to the matching lane for good; one of them that is
    /// slow in a slice marks it on its own length.
    func skipsInSlice(length: Int) -> Bool {
        Self.skips(length: length, markedOn: markedOn.load(ordering: .relaxed))
    }

    private static func skips(length: Int, markedOn marked: Int) -> Bool {
        marked > 0 && length * 2 >= marked
    }

    /// Claims a probe of a marked expression when one is due (one ``probeInterval`` after the
    /// mark or its last probe, and one ``probeInterval`` after any expression's last probe);
    /// whether this caller got it. At most one caller gets each: the due times move on by
    /// compare-and-swap.
    func claimProbe() -> Bool {
        guard isMarkedSlow else { return false }
        let now = DispatchTime.now().uptimeNanoseconds
        let due = probeDue.load(ordering: .relaxed)
        let anyDue = Self.anyProbeDue.load(ordering: .relaxed)
        guard now >= due, now >= anyDue else { return false }
        guard Self.anyProbeDue.compareExchange(expected: anyDue, desired: now + Self.probeInterval, ordering: .relaxed).exchanged
        else { return false }
        probeDue.store(now + Self.probeInterval, ordering: .relaxed)
        probeWaiting.store(true, ordering: .relaxed)
        return true
    }

    /// Takes the waiting probe (left by the search that set the mark, or claimed); whether there was one.
    func takeProbe() -> Bool {
        probeWaiting.exchange(false, ordering: .relaxed)
    }

    /// Whether the expression is found in `subject` as `rangeOfFirstMatch` finds it, stopped at
    /// `deadline` through ICU's progress callback (`.reportProgress`). Within a slice, an
    /// expression marked slow is not started (``MatchOutcome/outOfTime``); the mark is set and
    /// cleared as the type's documentation says.
    ///
    /// A deferred expression is compiled by its first search; within a slice, one longer than
    /// ``MockPatternLimits/maxExpressionBytes`` (stored before that limit, try9b F14: seconds to
    /// compile) is not: it answers ``MatchOutcome/outOfTime``, so the request is matched where
    /// its time delays no other tenant, and compiled there (or by the start-up's pass).
    func search(_ subject: String, until deadline: ContinuousClock.Instant, slice: RegexpSlice) -> MatchOutcome {
        let marked = markedOn.load(ordering: .relaxed)
        let length = subject.utf16.count
        if slice.isSlice, Self.skips(length: length, markedOn: marked) { return .outOfTime }
        let expression: NSRegularExpression
        if let compiled = compiled.load() {
            expression = compiled
        } else {
            if slice.isSlice, pattern.utf8.count > MockPatternLimits.maxExpressionBytes { return .outOfTime }
            guard let compiled = compile() else { return .notMatched }
            expression = compiled
        }
        // Only what can set or clear the mark is timed: by the wall clock, and by this thread's
        // CPU time, which alone decides (a search that waited for a core is not slow for it).
        // With the whole budget: a subject too long for a slice to find the search slow, or a
        // marked expression's subject as long as the one it was marked on.
        let timed = slice == .matching || (slice == .whole && (RegexpSlice.outgrowsSlice(length) || (marked > 0 && length >= marked)))
        let started = timed ? ContinuousClock.now : deadline
        let startedWorking = timed ? ThreadCPUTime.now() : .zero
        var outcome = MatchOutcome.notMatched
        let whole = NSRange(location: 0, length: length)
        expression.enumerateMatches(in: subject, options: [.reportProgress], range: whole) { result, _, stop in
            if result != nil {
                outcome = .matched
                stop.pointee = true
            } else if WholeBudget.hasPassed(deadline, now: .now) {
                outcome = .outOfTime
                stop.pointee = true
            }
        }
        guard timed else { return outcome }
        if slice == .matching {
            // The CPU time is read only when the wall clock leaves the rule undecided: a
            // thread's CPU time never runs ahead of the wall clock.
            if outcome == .outOfTime, ContinuousClock.now - started >= RegexpSlice.markedAfter,
               RegexpSlice.isSlow(worked: ThreadCPUTime.now() - startedWorking, length: length, floor: RegexpSlice.markedAfter) {
                mark(length: length)
            }
        } else {
            settleMark(worked: ThreadCPUTime.now() - startedWorking, finished: outcome != .outOfTime, length: length, markedOn: marked)
        }
        return outcome
    }

    /// Sets or clears the mark for a search of the same pattern by the glob or the automaton
    /// (``CompiledPatternMatch``), of an ASCII subject of `length` bytes (its UTF-16 length
    /// too), timed by `clock`, by the rule of ``search(_:until:slice:)``: stopped within a
    /// ``RegexpSlice/matching`` slice after ``RegexpSlice/markedAfter`` of the thread's CPU
    /// time marks it; finished with the whole budget within ``RegexpSlice/length``, on a
    /// subject at least as long as the one it was marked on, clears the mark. Their searches
    /// are timed from their first clock read (``SearchClock``): a short one, which reads none,
    /// marks nothing and clears a mark.
    func note(_ outcome: MatchOutcome, of clock: SearchClock, length: Int, slice: RegexpSlice) {
        switch slice {
        case .matching where outcome == .outOfTime:
            if RegexpSlice.isSlow(worked: clock.workedSinceFirstRead(), length: length, floor: RegexpSlice.markedAfter) { mark(length: length) }
        case .whole:
            settleMark(worked: clock.workedSinceFirstRead(), finished: outcome != .outOfTime, length: length, markedOn: markedOn.load(ordering: .relaxed))
        default:
            return
        }
    }

    /// The mark after a search with the whole budget that worked `worked` of its thread's CPU
    /// time on a subject of `length` units (``RegexpSlice/isSlow(worked:length:floor:)``, the
    /// slice's length as the floor), the expression marked on `marked` units before it (0: not):
    /// slow on a subject too long for a slice to tell (``RegexpSlice/outgrowsSlice(_:)``),
    /// finished or not, marks it; finished and not slow on a subject at least as long as the
    /// marked one clears the mark.
    private func settleMark(worked: Duration, finished: Bool, length: Int, markedOn marked: Int) {
        if RegexpSlice.isSlow(worked: worked, length: length, floor: RegexpSlice.length) {
            // This search had the whole budget already: no probe is left for the lane.
            if RegexpSlice.outgrowsSlice(length), marked == 0 { mark(length: length, leavingProbe: false) }
        } else if finished, marked > 0, length >= marked {
            _ = markedOn.compareExchange(expected: marked, desired: 0, ordering: .relaxed)
        }
    }

    /// Marks the expression slow, found on a subject of `length` UTF-16 code units (kept when
    /// marked on a shorter one already), leaving a probe (unless `leavingProbe` is false: the
    /// search that marks it had the whole budget).
    private func mark(length: Int, leavingProbe: Bool = true) {
        probeDue.store(DispatchTime.now().uptimeNanoseconds + Self.probeInterval, ordering: .relaxed)
        if leavingProbe { probeWaiting.store(true, ordering: .relaxed) }
        let marked = markedOn.load(ordering: .relaxed)
        if marked == 0 || length < marked { markedOn.store(max(length, 1), ordering: .relaxed) }
    }
}
