import CatbirdSupport
import CatbirdWire
import Foundation

/// A ``PatternMatch`` compiled once, when its mock is added, and then matched against many requests.
///
/// Semantics (Catbird 0.11's, in our words in docs/matching.md#pattern-kinds):
/// - `.equal`: exact, case-sensitive `==` on the whole subject.
/// - `.regexp`: ICU (`NSRegularExpression`) **unanchored** search, **case-insensitive**; `^`/`$` in
///   the pattern anchor at the subject's ends. Plain expressions are searched by
///   ``SimpleRegexMatcher`` for the subjects it handles, with the same answer. An empty expression matches every subject (ICU on Linux
///   refuses to compile `""`, but an empty search succeeds everywhere on Apple platforms).
/// - `.wildcard`: ``WildcardTranslator/regularExpression(fromWildcard:)`` (anchored `^…$`), matched
///   **case-insensitively**: by ``GlobMatcher`` when it handles the translation and the subject
///   (almost always: ASCII URLs and header values), else by ICU, with the same answer.
///
/// An evaluation stops at a deadline (docs/matching.md#evaluation-budget): ``evaluate(_:until:)``
/// then says ``MatchOutcome/outOfTime``; ICU checks it every 10,000 backtracking steps or so, so a
/// catastrophic expression is stopped within about a millisecond of its deadline; the glob and
/// the automaton check it before they start and every few thousand steps (tester findings
/// tester30b-F4, F5: only ICU was stopped, and many long wildcards held a worker for seconds).
///
/// ICU expressions are held as ``ICUExpression``s (Sendable: the expression is immutable, its
/// slice mark atomic), so no unchecked conformance is needed.
public struct CompiledPatternMatch: Sendable {
    /// The pattern as it was received.
    public let source: PatternMatch
    private let matcher: Matcher

    private enum Matcher: Sendable {
        case equal(String)
        case everything
        case expression(ICUExpression)
        /// A wildcard: the glob where it applies, ICU for other subjects.
        case glob(GlobMatcher, ICUExpression)
        /// A plain regexp: the automaton where it applies, ICU for other subjects.
        case simple(SimpleRegexMatcher, ICUExpression)
    }

    /// This pattern's ICU expression (its slow mark: ``ICUExpression``); nil for `equal` and
    /// the empty expression.
    var expression: ICUExpression? {
        switch matcher {
        case .equal, .everything: nil
        case let .expression(icu), let .glob(_, icu), let .simple(_, icu): icu
        }
    }

    /// What a subject must contain for this pattern to match it (``PatternIndex`` uses it).
    public let requirement: LiteralRequirement

    /// How long one match may run when no deadline is given (``matches(_:)``): 100 ms.
    public static let defaultBudget = Duration.milliseconds(100)

    /// Compiles `source`. Throws ``PatternError/invalidRegularExpression(pattern:reason:)`` when a
    /// `.regexp` value, or the translation of a `.wildcard` value, is not a valid ICU expression.
    public init(_ source: PatternMatch) throws(PatternError) {
        try self.init(source, deferred: false)
    }

    /// `source` as stored with a mock (it compiled when the mock was added): prepared like
    /// ``init(_:)``, but its ICU expression is compiled at its first search or ``compile()``
    /// (``ICUExpression``), so loading stored mocks compiles nothing (try9b F14). An expression
    /// this ICU no longer accepts never matches.
    public init(stored source: PatternMatch) {
        // Cannot throw: nothing is compiled.
        self = try! Self(source, deferred: true)
    }

    private init(_ source: PatternMatch, deferred: Bool) throws(PatternError) {
        self.source = source
        switch source.kind {
        case .equal:
            matcher = .equal(source.value)
            requirement = .none
        case .regexp:
            if source.matchesEverything {
                matcher = .everything
                requirement = .none
            } else {
                let compiled = try Self.compile(
                    source.value, pattern: source.value, deferred: deferred,
                    reason: "not a valid ICU regular expression"
                )
                matcher = SimpleRegexMatcher(expression: source.value).map { .simple($0, compiled) } ?? .expression(compiled)
                requirement = LiteralRequirement(regularExpression: source.value)
            }
        case .wildcard:
            let expression = WildcardTranslator.regularExpression(fromWildcard: source.value)
            // Compiled by ICU even when the glob applies: ICU decides what is valid, and answers
            // for the subjects the glob leaves to it.
            let compiled = try Self.compile(
                expression, pattern: source.value, deferred: deferred,
                reason: "the wildcard translates to \(JSONText.shortString(expression)), which is not a valid ICU regular expression"
            )
            matcher = GlobMatcher(translation: expression).map { .glob($0, compiled) } ?? .expression(compiled)
            requirement = LiteralRequirement(regularExpression: expression)
        }
    }

    /// Whether this is a wildcard matched by ``GlobMatcher`` (for subjects it handles).
    public var usesGlob: Bool {
        if case .glob = matcher { return true }
        return false
    }

    /// Whether this is a regexp matched by ``SimpleRegexMatcher`` (for subjects it handles).
    public var usesSimpleRegex: Bool {
        if case .simple = matcher { return true }
        return false
    }

    /// Whether `subject` (a request-target or a header value) matches; see the type's
    /// documentation. An ICU evaluation longer than ``defaultBudget`` counts as no match.
    public func matches(_ subject: String) -> Bool {
        evaluate(subject, until: .now.advanced(by: Self.defaultBudget)) == .matched
    }

    /// Whether `subject` matches, or ``MatchOutcome/outOfTime`` when ICU was still working on it
    /// at `deadline` (an expression that is cheap for this subject finishes whatever the deadline).
    /// With `slice` (the deadline is a worker's slice, not the request's budget), a pattern
    /// found slow before (its ICU, glob or automaton search outlasted a slice: ``ICUExpression``)
    /// answers ``MatchOutcome/outOfTime`` without running. The glob and the automaton, like
    /// ICU, read the clock only while a long search runs, so a cheap one finishes whatever the
    /// deadline.
    public func evaluate(_ subject: String, until deadline: ContinuousClock.Instant, slice: RegexpSlice = .whole) -> MatchOutcome {
        switch matcher {
        case let .equal(value):
            return subject == value ? .matched : .notMatched
        case .everything:
            return .matched
        case let .expression(expression):
            return expression.search(subject, until: deadline, slice: slice)
        case let .glob(glob, expression):
            return Self.evaluate(subject, by: glob, or: expression, until: deadline, slice: slice)
        case let .simple(simple, expression):
            return Self.evaluate(subject, by: simple, or: expression, until: deadline, slice: slice)
        }
    }

    /// `subject` matched by the glob or the automaton where it handles it, else by ICU. Marked
    /// slow (by ICU's searches or by theirs) on a subject at most twice as long, the pattern is
    /// not started within a slice (``ICUExpression/skipsInSlice(length:)``); their
    /// search sets or clears the mark as ICU's does (``ICUExpression/note(_:of:length:slice:)``)
    /// when it was stopped on a worker or ran with the whole budget.
    private static func evaluate(
        _ subject: String, by matcher: some ClockedMatcher, or expression: ICUExpression,
        until deadline: ContinuousClock.Instant, slice: RegexpSlice
    ) -> MatchOutcome {
        if slice.isSlice, expression.skipsInSlice(length: subject.utf8.count) { return .outOfTime }
        var clock = SearchClock(deadline: deadline)
        var text = subject
        guard let outcome = text.withUTF8({ matcher.matches($0, clock: &clock) }) else {
            return expression.search(subject, until: deadline, slice: slice)
        }
        if outcome == .outOfTime || slice == .whole { expression.note(outcome, of: clock, length: text.utf8.count, slice: slice) }
        return outcome
    }

    /// ``evaluate(_:until:)`` for a subject given as UTF-8 bytes (a journal column as SQLite
    /// holds it; invalid UTF-8 is read as `String(decoding:as:)` reads it): the same answer,
    /// without making a `String` when the bytes decide it — an equal value compared byte for
    /// byte, an ASCII subject the glob or the automaton handles, an ASCII subject without the
    /// literal text the pattern requires (``requirement``). ICU runs only on what is left.
    public func evaluate(utf8 subject: UnsafeBufferPointer<UInt8>, until deadline: ContinuousClock.Instant) -> MatchOutcome {
        switch matcher {
        case let .equal(value):
            return UTF8Text.bytes(subject, equal: value) ? .matched : .notMatched
        case .everything:
            return .matched
        case let .simple(simple, _) where simple.literal != nil:
            // Literals only: the automaton's search is the requirement's own (no search twice).
            if let outcome = simple.matches(subject, until: deadline) { return outcome }
        case .expression, .glob, .simple:
            break
        }
        // Most subjects lack the required literal: no automaton, no ICU for them.
        if !requirement.isNone, UTF8Text.isASCII(subject), !requirement.admits(asciiSubject: subject) { return .notMatched }
        switch matcher {
        case let .glob(glob, _):
            if let outcome = glob.matches(subject, until: deadline) { return outcome }
        case let .simple(simple, _):
            if let outcome = simple.matches(subject, until: deadline) { return outcome }
        case .equal, .everything, .expression:
            break
        }
        return evaluate(String(decoding: subject, as: UTF8.self), until: deadline)
    }

    /// Whether no ICU expression of this pattern waits to be compiled (``init(stored:)``).
    public var isCompiled: Bool {
        switch matcher {
        case .equal, .everything: true
        case let .expression(icu), let .glob(_, icu), let .simple(_, icu): icu.isCompiled
        }
    }

    /// Compiles a stored pattern's ICU expression now, if it was deferred and is not compiled
    /// yet (``init(stored:)``); nothing for another kind.
    /// - Returns: the UTF-8 bytes of the expression compiled now (0: nothing compiled, or an
    ///   expression this ICU no longer accepts).
    @discardableResult
    public func compile() -> Int {
        let expression: ICUExpression
        switch matcher {
        case .equal, .everything: return 0
        case let .expression(icu), let .glob(_, icu), let .simple(_, icu): expression = icu
        }
        guard !expression.isCompiled, expression.compile() != nil else { return 0 }
        return expression.pattern.utf8.count
    }

    private static func compile(
        _ expression: String, pattern: String, deferred: Bool, reason: String
    ) throws(PatternError) -> ICUExpression {
        if deferred { return ICUExpression(deferred: expression) }
        do {
            return try ICUExpression(compiling: expression)
        } catch {
            throw PatternError.invalidRegularExpression(pattern: pattern, reason: reason)
        }
    }
}

/// The answer of one match evaluation.
public enum MatchOutcome: Sendable, Equatable {
    case matched
    case notMatched
    /// A regular expression was still being evaluated at the deadline and was stopped
    /// (docs/matching.md#evaluation-budget); callers treat it as not matched and say so.
    case outOfTime
}
