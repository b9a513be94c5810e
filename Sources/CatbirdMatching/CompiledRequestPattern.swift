import CatbirdWire
import Foundation

/// A ``RequestPattern`` with every ``PatternMatch`` compiled once, when the mock is added.
///
/// A request matches when all of these hold (Catbird 0.11; docs/matching.md#request-matching):
/// - its method equals ``RequestPattern/method`` exactly (case-sensitive);
/// - the url pattern matches the request-target as received: path plus query (`/api/books?id=1`), or
///   the absolute URL for proxy-form requests (`http://host/path?q`);
/// - every header in the pattern is present in the request (name compared case-insensitively) and its
///   first value matches that header's pattern. Extra request headers are ignored;
/// - when the pattern has a body pattern, the body matches it (docs/matching.md#body-matchers).
public struct CompiledRequestPattern: Sendable {
    /// The pattern as it was received.
    public let source: RequestPattern
    let url: CompiledPatternMatch
    /// Header patterns sorted by name so that evaluation order is deterministic.
    let headers: [CompiledHeaderPattern]
    /// The body pattern, nil when the body is not matched.
    public let body: CompiledBodyPattern?
    /// The url pattern's value as the near-miss distance compares it: its UTF-8 bytes, cut to
    /// ``comparedURLLength`` (docs/matching.md#near-misses).
    public let comparedURL: [UInt8]
    /// ``comparedURL``'s byte classes (a lower bound of its edit distance to a request-target).
    public let urlHistogram: ByteHistogram
    /// The method as a number equal for equal methods (``NearMissProbe/methodKey(_:)``).
    public let methodKey: UInt64
    /// What a near miss shows of this pattern, written once (``NearMissTexts``).
    public let nearMissTexts: NearMissTexts
    /// About how much work matching a request against this pattern can take, in units of one
    /// short field compared: 1 for the method and url, 1 per header pattern, 1 per 256 bytes of
    /// the patterns' text (a long value, a `json` body's object). A worker meters the mocks it
    /// tries by it (tester findings tester30c-F5, F6: 1,000 mocks of 300 header patterns each,
    /// or 900 `json` bodies of 3,000 keys, held a worker 150 and 555 ms per request).
    public let matchingWeight: Int

    /// Compiles the url pattern, every header pattern and the body pattern; throws the first
    /// ``PatternError`` met (url first, then headers by name, then the body).
    public init(_ source: RequestPattern) throws(PatternError) {
        try self.init(source, deferred: false)
    }

    /// `source` as stored with a mock (it compiled when the mock was added): prepared like
    /// ``init(_:)``, but each ICU expression is compiled at its first search or ``compile()``
    /// (``CompiledPatternMatch/init(stored:)``), so that start-up compiles nothing before the
    /// server listens (try9b F14).
    /// - Throws: ``PatternError/invalidBodyPattern(reason:)`` for a stored `json` or `jsonPath`
    ///   body pattern no longer accepted; never for an expression.
    public init(stored source: RequestPattern) throws(PatternError) {
        try self.init(source, deferred: true)
    }

    private init(_ source: RequestPattern, deferred: Bool) throws(PatternError) {
        self.source = source
        func match(_ pattern: PatternMatch) throws(PatternError) -> CompiledPatternMatch {
            deferred ? CompiledPatternMatch(stored: pattern) : try CompiledPatternMatch(pattern)
        }
        url = try match(source.url)
        var compiled: [CompiledHeaderPattern] = []
        compiled.reserveCapacity(source.headers.count)
        for (name, pattern) in source.headers.sorted(by: { $0.key < $1.key }) {
            compiled.append(CompiledHeaderPattern(name: name, pattern: try match(pattern)))
        }
        headers = compiled
        body = try source.body.map { pattern throws(PatternError) in
            deferred ? try CompiledBodyPattern(stored: pattern) : try CompiledBodyPattern(pattern)
        }
        comparedURL = Array(source.url.value.utf8.prefix(Self.comparedURLLength))
        urlHistogram = ByteHistogram(comparedURL)
        methodKey = NearMissProbe.methodKey(source.method.rawValue)
        nearMissTexts = NearMissTexts(source, headerNames: compiled.map(\.name))
        matchingWeight = 1 + compiled.count + source.heldBytes / 256
    }

    /// Whether no ICU expression of the url, header or body patterns waits to be compiled
    /// (``init(stored:)``).
    public var isCompiled: Bool {
        url.isCompiled && headers.allSatisfy(\.pattern.isCompiled) && body?.isCompiled != false
    }

    /// Compiles the ICU expressions of a stored pattern (``init(stored:)``) that no search has
    /// compiled yet: url, headers, body.
    /// - Returns: the UTF-8 bytes of the expressions compiled now (0: nothing was left).
    @discardableResult
    public func compile() -> Int {
        headers.reduce(url.compile()) { $0 + $1.pattern.compile() } + (body?.compile() ?? 0)
    }

    /// Whether a request matches (see the type's documentation).
    /// - Parameters:
    ///   - method: the request method as received, e.g. `"GET"`.
    ///   - target: the request-target as received (path + query, or the absolute URL in proxy form).
    ///   - headerValue: called with a header name as written in the pattern; returns the request's
    ///     **first** value for that name, looked up case-insensitively by the caller, or `nil`.
    ///   - body: the request body's bytes (empty, the default, for none; for a journaled request,
    ///     what the journal kept of it). Read only when the pattern has a body pattern: callers
    ///     that hold no body may leave it out for other patterns.
    ///
    /// A regular expression still running after ``CompiledPatternMatch/defaultBudget`` counts as
    /// no match; ``evaluate(method:target:headerValue:body:until:)`` tells that case apart.
    public func matches(method: String, target: String, headerValue: (String) -> String?, body: [UInt8] = []) -> Bool {
        evaluate(method: method, target: target, headerValue: headerValue, body: body,
                 until: .now.advanced(by: CompiledPatternMatch.defaultBudget)) == .matched
    }

    /// Whether a request matches (the rules of ``matches(method:target:headerValue:body:)``), or
    /// ``MatchOutcome/outOfTime`` when a regular expression of the url, a header or the body
    /// pattern was stopped at `deadline` before the answer was known: one deadline for every
    /// expression of the request (docs/matching.md#evaluation-budget). The body pattern is
    /// evaluated last, only when everything else matched. `slice`: the deadline is a worker's
    /// slice (``CompiledPatternMatch/evaluate(_:until:slice:)``).
    public func evaluate(
        method: String, target: String, headerValue: (String) -> String?, body: [UInt8] = [],
        until deadline: ContinuousClock.Instant, slice: RegexpSlice = .whole
    ) -> MatchOutcome {
        guard method == source.method.rawValue else { return .notMatched }
        let urlOutcome = url.evaluate(target, until: deadline, slice: slice)
        guard urlOutcome == .matched else { return urlOutcome }
        for header in headers {
            guard let value = headerValue(header.name) else { return .notMatched }
            let outcome = header.pattern.evaluate(value, until: deadline, slice: slice)
            guard outcome == .matched else { return outcome }
        }
        guard let bodyPattern = self.body else { return .matched }
        return bodyPattern.evaluate(body, until: deadline, slice: slice)
    }

    /// Whether one of the url, header and body regular expressions is marked slow now
    /// (found slow and not cleared since: docs/tenancy.md#slow-regular-expressions).
    public var isMarkedSlow: Bool {
        anyExpression { $0.isMarkedSlow }
    }

    /// Claims the probe of the first of the url, header and body regular expressions marked
    /// slow whose probe is due (``ICUExpression/claimProbe()``: at most one a second per mark);
    /// whether one was claimed. For a request that a worker sends to the matching lane so that
    /// a default-tenant mock marked slow gets the whole budget there once (tester finding
    /// try9b F7, review M1: a mark is cleared only by a search with the whole budget).
    public func claimSlowProbe() -> Bool {
        anyExpression { $0.claimProbe() }
    }

    /// Takes a probe claimed (``claimSlowProbe()``) or left by the search that set a mark, of
    /// one of the url, header and body regular expressions; whether one was taken: the matching
    /// lane then gives the mock the request's whole budget.
    public func takeSlowProbe() -> Bool {
        anyExpression { $0.takeProbe() }
    }

    /// Calls `check` with the url's, then each header's, then the body's ICU expression until
    /// it returns true; whether one did (no array made: read for every candidate mock).
    private func anyExpression(_ check: (ICUExpression) -> Bool) -> Bool {
        if let icu = url.expression, check(icu) { return true }
        for header in headers {
            if let icu = header.pattern.expression, check(icu) { return true }
        }
        guard let icu = body?.expression else { return false }
        return check(icu)
    }

    /// What the request-target must contain for the url pattern to match (empty for `equal`
    /// and the empty regexp); ``PatternIndex`` buckets wildcard and regexp mocks by it.
    public var urlRequirement: LiteralRequirement { url.requirement }

    /// The exact request-target this pattern requires when its url kind is `.equal` (lets callers
    /// index mocks by URL), otherwise `nil`.
    public var equalURL: String? {
        source.url.kind == .equal ? source.url.value : nil
    }
}

/// One header pattern of a ``CompiledRequestPattern``: the header name as the pattern spells it
/// and its compiled matcher. A class, so that evaluating it (per request, and per journal row in
/// a count) retains one reference instead of copying the name and the matcher: measured, the
/// copies were about a third of a header-pattern count's time per row.
final class CompiledHeaderPattern: Sendable {
    let name: String
    let pattern: CompiledPatternMatch

    init(name: String, pattern: CompiledPatternMatch) {
        self.name = name
        self.pattern = pattern
    }
}
