import CatbirdSupport
import CatbirdWire

/// The longest `equal` and `wildcard` values a mock's url and header patterns may have, and how
/// many header patterns it may have, checked when a mock is added
/// (docs/matching.md#pattern-lengths). A longer value could only ever
/// match a request the server refuses before matching (a request-target over 8 KiB gets 414, a
/// head over 28 KiB gets 431), and a long wildcard cost super-linear CPU to compile: a 1 MB
/// `*a*a…` took 524 s of one control call (try6a F14). `regexp` values are bounded only by
/// ``maxExpressionBytes``, with the wildcards, all of a pattern's together: an expression much
/// longer than what it matches is ordinary (`(a|b|…)`), but ICU compiles about a megabyte a
/// second, on the control lane of the update or the journal query (try9b F13, F14).
public enum MockPatternLimits {
    /// 8,192 bytes: the longest request-target the server matches (the HTTP adapter's target
    /// limit; docs/protocol.md#errors, 414).
    public static let maxURLValueLength = 8192
    /// 28,672 bytes: the largest request line and header section the server reads (431 past it).
    public static let maxHeaderValueLength = 28672

    /// 7,168 header patterns: a request's line and header section are at most
    /// ``maxHeaderValueLength`` (28,672) bytes and a header field takes at least 4 of them
    /// (`X:` and CRLF), so no request carries more fields than that, and a pattern naming more
    /// headers (each must be present) could never match. Checked first, so that a pattern
    /// with 100,000 headers is refused before anything else is done per header (try7b F9).
    public static let maxHeaderPatterns = maxHeaderValueLength / 4

    /// 65,536 bytes (64 KiB): the most UTF-8 bytes a pattern's `regexp` and `wildcard` values
    /// (url, headers, body) may have all together, for a mock and for a count, find or wait
    /// (docs/matching.md#pattern-lengths). Suites' expressions are rarely above a few hundred
    /// bytes (a generated alternation of ids a few KB); ICU compiles 64 KiB in tens of
    /// milliseconds, where the 3 MB expressions of try9b F13 held a control thread 2 to 6 s
    /// and 18 stored ones kept a restart from listening for a minute (F14).
    public static let maxExpressionBytes = 65536

    /// - Throws: ``PatternError/tooManyHeaders(count:limit:)`` for more header patterns than
    ///   ``maxHeaderPatterns``; ``PatternError/tooLong(what:length:limit:why:)`` for a method
    ///   longer than ``maxHeaderValueLength``, then the first
    ///   url or header `equal`/`wildcard` value over its limit (url first, then headers by name);
    ///   then ``PatternError/expressionsTooLong(parts:length:limit:)`` as ``checkExpressions(_:)``.
    public static func check(_ pattern: RequestPattern) throws(PatternError) {
        guard pattern.headers.count <= maxHeaderPatterns else {
            throw .tooManyHeaders(count: pattern.headers.count, limit: maxHeaderPatterns)
        }
        let methodLength = pattern.method.rawValue.utf8.count
        if methodLength > maxHeaderValueLength {  // tester finding T17-F1: a 10 MB method was stored
            throw .tooLong(
                what: "the method", length: methodLength, limit: maxHeaderValueLength,
                why: "the request line is part of the head, and a longer head is refused with 431")
        }
        try check(pattern.url, what: "the url pattern", limit: maxURLValueLength, why: "a longer request-target is refused with 414")
        for (name, match) in pattern.headers.sorted(by: { $0.key < $1.key }) {
            try check(
                match, what: "the pattern of header \(JSONText.shortString(name))", limit: maxHeaderValueLength,
                why: "a longer head is refused with 431")
        }
        try checkExpressions(pattern)
    }

    /// Checks that the pattern's `regexp` and `wildcard` values (url, headers, body regexp) are
    /// at most ``maxExpressionBytes`` UTF-8 bytes together: what every pattern that is compiled
    /// (a mock's, a count's, a find's, a wait's) must pass before it is.
    /// - Throws: ``PatternError/expressionsTooLong(parts:length:limit:)`` naming the values,
    ///   longest first.
    public static func checkExpressions(_ pattern: RequestPattern) throws(PatternError) {
        var parts: [(name: String, length: Int)] = []
        func add(_ name: @autoclosure () -> String, _ match: PatternMatch) {
            guard match.kind != .equal else { return }
            parts.append((name(), match.value.utf8.count))
        }
        add("the url's", pattern.url)
        for (name, match) in pattern.headers { add("header \(JSONText.shortString(name))'s", match) }
        if let body = pattern.body, body.kind == .regexp { parts.append(("the body's", body.value.utf8.count)) }
        let length = parts.reduce(0) { $0 + $1.length }
        guard length > maxExpressionBytes else { return }
        let named = parts.sorted { ($0.length, $1.name) > ($1.length, $0.name) }.prefix(3)
        let listed = named.map { "\($0.name) \($0.length)" }.joined(separator: ", ") + (parts.count > 3 ? ", …" : "")
        throw .expressionsTooLong(parts: listed, length: length, limit: maxExpressionBytes)
    }

    private static func check(_ match: PatternMatch, what: String, limit: Int, why: String) throws(PatternError) {
        guard match.kind != .regexp else { return }
        let length = match.value.utf8.count
        guard length > limit else { return }
        throw .tooLong(what: "\(what) (\(match.kind.rawValue))", length: length, limit: limit, why: why)
    }
}
