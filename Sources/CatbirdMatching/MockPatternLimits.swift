import CatbirdSupport
import CatbirdWire

/// The longest `equal` and `wildcard` values a mock's url and header patterns may have, and how
/// many header patterns it may have, checked when a mock is added
/// (docs/matching.md#pattern-lengths). A longer value could only ever
/// match a request the server refuses before matching (a request-target over 8 KiB gets 414, a
/// head over 28 KiB gets 431), and a long wildcard cost super-linear CPU to compile: a 1 MB
/// `*a*a…` took 524 s of one control call (try6a F14). `regexp` values are not bounded: an
/// expression much longer than what it matches is ordinary (`(a|b|…)`), and ICU compiles them in
/// linear time.
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

    /// - Throws: ``PatternError/tooManyHeaders(count:limit:)`` for more header patterns than
    ///   ``maxHeaderPatterns``; ``PatternError/tooLong(what:length:limit:why:)`` for the first
    ///   url or header `equal`/`wildcard` value over its limit (url first, then headers by name).
    public static func check(_ pattern: RequestPattern) throws(PatternError) {
        guard pattern.headers.count <= maxHeaderPatterns else {
            throw .tooManyHeaders(count: pattern.headers.count, limit: maxHeaderPatterns)
        }
        try check(pattern.url, what: "the url pattern", limit: maxURLValueLength, why: "a longer request-target is refused with 414")
        for (name, match) in pattern.headers.sorted(by: { $0.key < $1.key }) {
            try check(
                match, what: "the pattern of header \(JSONText.shortString(name))", limit: maxHeaderValueLength,
                why: "a longer head is refused with 431")
        }
    }

    private static func check(_ match: PatternMatch, what: String, limit: Int, why: String) throws(PatternError) {
        guard match.kind != .regexp else { return }
        let length = match.value.utf8.count
        guard length > limit else { return }
        throw .tooLong(what: "\(what) (\(match.kind.rawValue))", length: length, limit: limit, why: why)
    }
}
