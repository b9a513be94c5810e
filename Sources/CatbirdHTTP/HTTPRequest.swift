/// One HTTP request as received, body complete.
public struct HTTPRequest: Sendable {
    /// The method token exactly as sent, e.g. `GET` (case-sensitive, RFC 9110 §9.1).
    public var method: String
    /// The request-target exactly as received, not unescaped: origin-form `/path?query`, or the
    /// absolute URL for proxy-form requests (`http://host/path?q`).
    public var target: String
    /// The protocol version as sent, e.g. `HTTP/1.1`.
    public var version: String = "HTTP/1.1"
    /// Request header fields in the order received.
    public var headers: HTTPHeaders
    /// The request body bytes; empty when there was none.
    public var body: [UInt8]
    /// The size in bytes of a body refused as too large and not kept (``body`` is then empty):
    /// the declared `Content-Length` when the refusal came before reading it, else (chunked) the
    /// bytes received and discarded; 0 otherwise. Journaled as the request's `bodySize`
    /// (docs/protocol.md#what-the-journal-records).
    public var discardedBodySize = 0
    /// ``body`` with its `Content-Encoding` (gzip, deflate) undone, or why it could not be, set
    /// by the handler before matching (``matchedBody``); nil: nothing to undo, or not asked.
    /// ``body`` stays as received (journaled and forwarded so).
    public var contentDecoding: ContentDecoding?
    /// The bytes of connection memory libmicrohttpd has left for the response's head beside
    /// this request (``ResponseHeadRoom``); a response whose head is larger is not sent at all.
    /// `Int.max` for a request not read from a connection.
    public var responseHeadRoom = Int.max
    /// When the request line arrived (monotonic clock), for measuring time taken.
    public var receivedAt: ContinuousClock.Instant
    /// The client's IP address as text (`127.0.0.1`, `::1`); empty when unknown. Formatted
    /// when read (only forwarding reads it).
    public var clientAddress: String {
        get { clientAddressText ?? peer.text }
        set { clientAddressText = newValue }
    }
    /// The connection's peer, as read from libmicrohttpd.
    var peer = ClientAddress.unknown
    private var clientAddressText: String?

    public init(
        method: String, target: String, headers: HTTPHeaders = HTTPHeaders(), body: [UInt8] = [],
        receivedAt: ContinuousClock.Instant = .now
    ) {
        self.method = method
        self.target = target
        self.headers = headers
        self.body = body
        self.receivedAt = receivedAt
    }

    /// The target's path: everything before the first `?` (the whole target when there is none).
    public var path: Substring {
        queryMark.map { target[..<$0] } ?? target[...]
    }

    /// The target's query: everything after the first `?`, or nil.
    public var query: Substring? {
        queryMark.map { target[target.utf8.index(after: $0)...] }
    }

    /// The first `?`, found byte by byte (no grapheme breaking: asked on every request).
    private var queryMark: String.Index? {
        target.utf8.firstIndex(of: UInt8(ascii: "?"))
    }
}
