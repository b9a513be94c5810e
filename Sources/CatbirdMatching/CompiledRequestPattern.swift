import CatbirdWire
import Foundation

/// A ``RequestPattern`` with every ``PatternMatch`` compiled once, when the mock is added.
///
/// A request matches when all of these hold (Catbird 0.11; docs/matching.md#request-matching):
/// - its method equals ``RequestPattern/method`` exactly (case-sensitive);
/// - the url pattern matches the request-target as received: path plus query (`/api/books?id=1`), or
///   the absolute URL for proxy-form requests (`http://host/path?q`);
/// - every header in the pattern is present in the request (name compared case-insensitively) and its
///   first value matches that header's pattern. Extra request headers are ignored.
public struct CompiledRequestPattern: Sendable {
    /// The pattern as it was received.
    public let source: RequestPattern
    private let url: CompiledPatternMatch
    /// Header patterns sorted by name so that evaluation order is deterministic.
    private let headers: [(name: String, pattern: CompiledPatternMatch)]

    /// Compiles the url pattern and every header pattern; throws the first
    /// ``PatternError/invalidRegularExpression(pattern:reason:)`` met (url first, then headers by name).
    public init(_ source: RequestPattern) throws(PatternError) {
        self.source = source
        url = try CompiledPatternMatch(source.url)
        var compiled: [(name: String, pattern: CompiledPatternMatch)] = []
        compiled.reserveCapacity(source.headers.count)
        for (name, pattern) in source.headers.sorted(by: { $0.key < $1.key }) {
            compiled.append((name, try CompiledPatternMatch(pattern)))
        }
        headers = compiled
    }

    /// Whether a request matches (see the type's documentation).
    /// - Parameters:
    ///   - method: the request method as received, e.g. `"GET"`.
    ///   - target: the request-target as received (path + query, or the absolute URL in proxy form).
    ///   - headerValue: called with a header name as written in the pattern; returns the request's
    ///     **first** value for that name, looked up case-insensitively by the caller, or `nil`.
    ///
    /// A regular expression still running after ``CompiledPatternMatch/defaultBudget`` counts as
    /// no match; ``evaluate(method:target:headerValue:until:)`` tells that case apart.
    public func matches(method: String, target: String, headerValue: (String) -> String?) -> Bool {
        evaluate(method: method, target: target, headerValue: headerValue,
                 until: .now.advanced(by: CompiledPatternMatch.defaultBudget)) == .matched
    }

    /// Whether a request matches (the rules of ``matches(method:target:headerValue:)``), or
    /// ``MatchOutcome/outOfTime`` when a regular expression of the pattern was stopped at
    /// `deadline` before the answer was known (docs/matching.md#evaluation-budget).
    public func evaluate(
        method: String, target: String, headerValue: (String) -> String?, until deadline: ContinuousClock.Instant
    ) -> MatchOutcome {
        guard method == source.method.rawValue else { return .notMatched }
        let urlOutcome = url.evaluate(target, until: deadline)
        guard urlOutcome == .matched else { return urlOutcome }
        for header in headers {
            guard let value = headerValue(header.name) else { return .notMatched }
            let outcome = header.pattern.evaluate(value, until: deadline)
            guard outcome == .matched else { return outcome }
        }
        return .matched
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
