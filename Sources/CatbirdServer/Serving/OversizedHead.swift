import CatbirdHTTP
import CatbirdWire

/// Answers whose header section cannot be sent (docs/protocol.md#response-head-size): the
/// request's and the response's heads share the connection's memory (32 KiB,
/// ``CatbirdHTTP/ResponseHeadRoom``), and libmicrohttpd sends nothing at all for a head that
/// does not fit. A mock's is refused when added (over ``mockLimit``); one that does not fit beside
/// a particular request, a file mock's or an upstream's is answered with a JSON error in its
/// place, journaled as what went out, with the mock's hit given back.
enum OversizedHead {
    /// The largest head a mock's response may have as sent (status line, its header fields and
    /// the `Date`, `Content-Length` and `Connection` fields the server adds, and the empty line):
    /// 28 KiB, the connection memory less the 4 KiB kept for a request's head (the request side's
    /// limit keeps the same 4 KiB for the response, docs/protocol.md#malformed-requests).
    static let mockLimit = HTTPServer.Configuration.defaultConnectionMemoryLimit - 4096

    /// The size of the head of `response` (status and fields; its body is not looked at) with a
    /// body of `bodyLength` bytes, as sent to an HTTP/1.1 request that asks to close the
    /// connection (the most fields the server adds to a mock's answer), with a `Date`.
    static func mockHeadSize(_ response: HTTPResponse, bodyLength: Int) -> Int {
        let stamped = response.stamped()
        let closing = HTTPRequest(method: "GET", target: "/", headers: HTTPHeaders([(name: "Connection", value: "close")]))
        let added = stamped.fieldsAddedOnSending(to: closing).map { field in
            field.name == "Content-Length" ? (name: field.name, value: String(bodyLength)) : field
        }
        return stamped.headSize(adding: added)
    }

    /// A response as it goes out to one request, and the size of its head: what every check of
    /// an answer's head against ``CatbirdHTTP/HTTPRequest/responseHeadRoom`` measures (a mock's
    /// beside a large request head, a file mock's, an upstream's before record mode writes it,
    /// measured once and checked again before it is sent: ``Measured``), so that all of them
    /// count the same fields.
    struct Outgoing: Sendable {
        /// The response with the CORS fields for the request's `Origin` when `--cors` allows it
        /// (``CORS/decorate(_:for:control:)``), else as given.
        let decorated: HTTPResponse
        /// `decorated` with its `Date` (``CatbirdHTTP/HTTPResponse/stamped()``): what is sent.
        let sent: HTTPResponse
        /// The fields libmicrohttpd adds when sending `sent` to the request
        /// (``CatbirdHTTP/HTTPResponse/fieldsAddedOnSending(to:fileLength:)``).
        let added: [(name: String, value: String)]

        /// `response` as sent to `request`; `cors`: the CORS policy, nil when off; `fileLength`: the
        /// length in bytes of a file body sent from disk (nil: `response.body`).
        init(_ response: HTTPResponse, to request: HTTPRequest, cors: CORS?, fileLength: UInt64? = nil) {
            decorated = cors?.decorate(response, for: request) ?? response
            sent = decorated.stamped()
            added = sent.fieldsAddedOnSending(to: request, fileLength: fileLength)
        }

        /// The size in bytes of the head that goes out (``CatbirdHTTP/HTTPResponse/headSize(adding:)``).
        var headSize: Int { sent.headSize(adding: added) }

        /// This response with ``headSize``, measured once for every check of it.
        var measured: Measured { (self, headSize) }
    }

    /// A response as it goes out to one request, and its head's size in bytes.
    typealias Measured = (outgoing: Outgoing, headSize: Int)

    /// The reason of a mock refused when added: its head as sent is `size` bytes.
    static func mockRefusal(size: Int) -> String {
        "the response's header section would be \(size) bytes as sent (status line, 'response.headers', and the Date, "
            + "Content-Length and Connection fields the server adds); at most \(mockLimit) bytes (28 KiB) can be sent: "
            + "the request's and the response's heads share the \(HTTPServer.Configuration.defaultConnectionMemoryLimit) bytes "
            + "libmicrohttpd gives each connection"
    }

    /// The JSON error sent in place of an answer from `source` (e.g. `mock 12's response`, `the
    /// file mock's sidecar`, `the upstream's answer`) whose head of `size` bytes does not fit the
    /// `room` left beside the request; `status` 500, or 502 for an upstream's.
    static func error(status: Int, source: String, size: Int, room: Int) -> APIError {
        APIError(status: status, reason: problem(source: source, size: size, room: room) + "; this error was sent instead")
    }

    /// The journal's `problem` for such an answer.
    static func problem(source: String, size: Int, room: Int) -> String {
        "\(source) has a header section of \(size) bytes, more than the \(max(room, 0)) bytes left for it beside this "
            + "request's head in the \(HTTPServer.Configuration.defaultConnectionMemoryLimit) bytes libmicrohttpd gives each "
            + "connection (docs/protocol.md#response-head-size)"
    }
}
