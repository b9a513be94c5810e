import CatbirdSupport
import CatbirdWire

/// Why a ``PatternMatch`` could not be compiled. Raised once, when a mock is added (docs/protocol.md#errors: an
/// invalid regular expression is a 400 for the control call), never while matching requests.
public enum PatternError: HTTPResponseError, Sendable, Equatable, CustomStringConvertible {
    /// `pattern` is the `value` exactly as sent (the wildcard itself for `.wildcard`; the reason
    /// shows its first 64 bytes, ``CatbirdSupport/JSONText/shortString(_:maxBytes:)``); `reason`
    /// says what is wrong, including the translated expression (cut so too) for wildcards.
    case invalidRegularExpression(pattern: String, reason: String)
    /// A ``BodyPattern`` that cannot be used: `json` whose value is not JSON, a `jsonPath`
    /// that is not a SQLite JSON path, `equalTo` on another kind. `reason` names the field.
    case invalidBodyPattern(reason: String)
    /// A mock's `equal` or `wildcard` value longer than it can ever match (``MockPatternLimits``):
    /// `what` names the pattern, `length` and `limit` are in UTF-8 bytes, `why` says what the
    /// server does with a request that long.
    case tooLong(what: String, length: Int, limit: Int, why: String)
    /// A mock with more header patterns (`count`) than a request can carry fields
    /// (``MockPatternLimits/maxHeaderPatterns``, `limit`): it could never match.
    case tooManyHeaders(count: Int, limit: Int)
    /// A pattern whose `regexp` and `wildcard` values, all together, are longer than
    /// ``MockPatternLimits/maxExpressionBytes`` (`limit`): `parts` names them (the largest
    /// first), `length` is their UTF-8 bytes together. Compiling takes time in their length
    /// (about a second per megabyte, try9b F13), so it is bounded.
    case expressionsTooLong(parts: String, length: Int, limit: Int)

    /// 400: the control call or count that sent the pattern is at fault.
    public var status: Int { 400 }

    /// ``description``.
    public var reason: String { description }

    /// A human-readable sentence naming the pattern, suitable for `{"error":true,"reason":…}`.
    public var description: String {
        switch self {
        case let .invalidRegularExpression(pattern, reason):
            return "invalid regular expression \(JSONText.shortString(pattern)): \(reason)"
        case let .invalidBodyPattern(reason):
            return reason
        case let .tooLong(what, length, limit, why):
            return "\(what) is \(length) bytes, longer than the limit of \(limit) bytes: it could never match, since \(why) "
                + "(docs/matching.md#pattern-lengths)"
        case let .tooManyHeaders(count, limit):
            return "the pattern has \(count) header patterns, more than the limit of \(limit): it could never match, since a "
                + "request's line and header section are at most \(MockPatternLimits.maxHeaderValueLength) bytes (431 past it) "
                + "and a header field takes at least 4 of them (docs/matching.md#pattern-lengths)"
        case let .expressionsTooLong(parts, length, limit):
            return "the pattern's regular expressions (regexp and wildcard values: \(parts)) are \(length) bytes together, "
                + "longer than the limit of \(limit) bytes: each is compiled, taking time in its length; split the mock "
                + "or match a shorter part of the subject (docs/matching.md#pattern-lengths)"
        }
    }
}
