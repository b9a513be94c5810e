import CatbirdSupport

/// What an upstream answered: the final response (interim `1xx` responses are skipped).
public struct OutboundResponse: Sendable {
    /// The status code, e.g. 200; redirects (3xx) are returned, never followed.
    public var status: Int
    /// The header fields in the order received, names as the upstream spelled them, including
    /// hop-by-hop and framing fields (the caller filters them). A line whose bytes are not UTF-8
    /// is held with each invalid byte as U+FFFD (and named in ``fieldsNotUTF8``).
    public var headers: [(name: String, value: String)]
    /// The names of the header fields whose lines were not UTF-8 (`X-Bin: \xFF\xFE`), in order:
    /// ``headers`` holds them altered.
    public var fieldsNotUTF8: [String]
    /// The body as received: encoded as its `Content-Encoding` says (never decoded).
    public var body: [UInt8]
    /// The bytes of the server-wide budget ``body`` holds (``OutboundClient/budget``), given
    /// back when the last holder releases it: pass it on with the body
    /// (`HTTPResponse.budgetShare`) so that it counts until the answer was sent. Nil: no budget.
    public var share: ByteBudget.Share?

    public init(status: Int, headers: [(name: String, value: String)], fieldsNotUTF8: [String] = [], body: [UInt8]) {
        self.status = status
        self.headers = headers
        self.fieldsNotUTF8 = fieldsNotUTF8
        self.body = body
    }
}

/// Why an upstream gave no response. ``description`` is one line for the error body.
public enum OutboundError: Error, Sendable, CustomStringConvertible {
    /// No connection could be made or it broke before a complete response (DNS failure, refused,
    /// reset, empty reply): a gateway answers 502.
    case unreachable(String)
    /// The upstream was reached but its TLS certificate did not verify (libcurl's message says
    /// why: self-signed, unknown CA, name mismatch, expired): a gateway answers 502.
    case untrusted(String)
    /// The upstream did not answer within the time limit: a gateway answers 504.
    case timedOut(String)
    /// The response body exceeded the limit in bytes: a gateway answers 502.
    case responseTooLarge(limit: Int)
    /// The server-wide budget of buffered bodies (`limit` bytes, ``OutboundClient/budget``) had
    /// no room for the rest of the response body: a server answers 503 (try again later).
    /// `holderShare`: the share of it the request's ``OutboundRequest/budgetHolder`` would have
    /// passed with it, when it would (``CatbirdSupport/ByteBudget/take(_:leaving:by:)``).
    case overBudget(limit: Int, holderShare: Int?)
    /// The upstream's answer has a `Content-Length` that is no valid length (`abc`, `-1`, `0x5`,
    /// `5abc`, empty, or past 2^63-1; RFC 9110 section 8.6: digits only), so where its body
    /// ends cannot be told: a proxy discards it and answers 502 (RFC 9112 section 6.3, item 5).
    /// `value`: the field's value, or nil when libcurl refused the line before handing it over
    /// (its message is `detail`). The transfer ends at the header section, no body read.
    case invalidContentLength(value: String?, detail: String)
    /// The upstream's answer arrived but cannot be passed on as one: it is incomplete (its
    /// header section never ended with the blank line that ends it, or its body ended before
    /// its `Content-Length` or chunked framing said: RFC 9112 section 8) or
    /// its body has a transfer coding other than `chunked` (`Transfer-Encoding: gzip,
    /// chunked`), which is not decoded; `reason` says which and why, ending `answered 502 in its place`. A
    /// gateway answers 502 with it; nothing of the answer is passed on or recorded.
    case unusable(reason: String)
    /// The client is shut down.
    case shutDown
    /// The transfer was given up because nobody waits for its answer any more (the request's
    /// `isWanted` turned false: its own client hung up).
    case cancelled

    public var description: String {
        switch self {
        case let .unreachable(reason): return reason
        case let .timedOut(reason): return reason
        case let .untrusted(reason): return reason
        case let .responseTooLarge(limit): return "upstream response body is larger than \(limit) bytes"
        case let .overBudget(limit, nil): return "the upstream's answer did not fit the \(limit) bytes the server buffers at once"
        case let .overBudget(limit, share?):
            return "the upstream's answer would pass its holder's share of \(share) of the \(limit) bytes the server buffers at once"
        case let .invalidContentLength(value, detail):
            let shown = value.map { JSONText.shortString($0) } ?? "libcurl: \(detail)"
            return "the upstream's answer has a Content-Length that is no valid length (\(shown); a length is digits only, "
                + "RFC 9110 section 8.6, at most 9223372036854775807 here), so where its body ends cannot be told "
                + "(RFC 9112 section 6.3): answered 502 in its place"
        case let .unusable(reason): return reason
        case .shutDown: return "the server is stopping"
        case .cancelled: return "the upstream transfer was cancelled"
        }
    }
}
