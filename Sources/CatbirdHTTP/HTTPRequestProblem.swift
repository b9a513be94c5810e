/// Why a request is refused before a handler answers it (``HTTPHandler/respondToMalformedRequest(_:problem:)``).
///
/// Our own limits, checked before libmicrohttpd's: its per-connection memory (32 KiB) holds
/// the request line, the header section and the response's header section, and a request
/// that fills it gets libmicrohttpd's own HTML error page, or no answer at all
/// (docs/protocol.md#malformed-requests). Ours keep every request we parse well inside it.
public enum HTTPRequestProblem: Sendable, Equatable {
    /// The request-target is longer than `limit` bytes (414, RFC 9110 §15.5.15).
    case targetTooLong(limit: Int)
    /// The request line and header section together exceed `limit` bytes (431, RFC 6585 §5).
    case headTooLarge(limit: Int)
    /// The request-target holds a byte that is not valid UTF-8, or a NUL byte: it could not be
    /// matched or journaled byte-true (400).
    case targetNotText
    /// The query has more than `limit` parameters (`&`-separated; 414). libmicrohttpd keeps a
    /// record per parameter in the connection memory, and 0.9.75 answers nothing at all when
    /// they do not fit; this is answered before it parses them, when only the request line is
    /// known (``ServerCore/refuseBeforeQueryParsing(_:_:)``).
    case tooManyQueryParameters(limit: Int)

    /// The status to answer with.
    public var status: Int {
        switch self {
        case .targetTooLong, .tooManyQueryParameters: 414
        case .headTooLarge: 431
        case .targetNotText: 400
        }
    }

    /// A sentence for the error body.
    public var reason: String {
        switch self {
        case let .targetTooLong(limit):
            "the request-target is longer than \(limit) bytes"
        case let .headTooLarge(limit):
            "the request line and header fields are larger than \(limit) bytes"
        case .targetNotText:
            "the request-target holds a NUL byte or bytes that are not UTF-8 (percent-encode them)"
        case let .tooManyQueryParameters(limit):
            "the request-target has more than \(limit) query parameters"
        }
    }
}
