import CatbirdSupport

extension HTTPResponse {
    /// The response as it goes out: `Date` added when `headers` has none (so whoever journals
    /// the response knows the one sent); fields libmicrohttpd would not send as given removed
    /// (``isSentAsGiven(_:)``).
    /// - Parameter date: the `Date` to add, an HTTP-date (default: now, ``HTTPDate/now()``).
    public func stamped(date: @autoclosure () -> String = HTTPDate.now()) -> HTTPResponse {
        var stamped = self
        if !headers.allSatisfy(Self.isSentAsGiven) { stamped.headers = HTTPHeaders(headers.fields.filter(Self.isSentAsGiven)) }
        if headers.first("Date") == nil { stamped.headers.add(name: "Date", value: date()) }
        return stamped
    }

    /// Whether libmicrohttpd 0.9.75 sends a response field as given: not `Content-Length` nor
    /// `Transfer-Encoding` (the server frames the body itself), not an empty value (dropped),
    /// not one it refuses (``isSendable(_:)``), not a `Connection` other than `close` (it
    /// manages keep-alive itself).
    public static func isSentAsGiven(_ field: (name: String, value: String)) -> Bool {
        if field.value.isEmpty || !isSendable(field) { return false }
        if field.name.equalsIgnoringASCIICase("Connection") { return field.value.asciiLowercased() == "close" }
        return !field.name.equalsIgnoringASCIICase("Content-Length") && !field.name.equalsIgnoringASCIICase("Transfer-Encoding")
    }

    /// Whether libmicrohttpd 0.9.75 takes a response field at all: `MHD_add_response_header`
    /// refuses, and the field is then not sent, an empty name (an upstream's `: v`, tester
    /// finding tester26a-F1) or a name holding a space, tab, CR or LF, or a value holding a CR
    /// or LF (an upstream's `X-A: 1\rX-B: 2`, tester finding T14-F1). No line break can be sent
    /// inside a field, so such a field cannot go out in any form.
    public static func isSendable(_ field: (name: String, value: String)) -> Bool {
        !field.name.isEmpty && !field.name.utf8.contains { $0 == 0x20 || $0 == 0x09 || $0 == 0x0D || $0 == 0x0A }
            && !field.value.utf8.contains { $0 == 0x0D || $0 == 0x0A }
    }

    /// The fields libmicrohttpd 0.9.75 adds to a ``stamped()`` response when it sends it to
    /// `request`, as observed on the wire (docs/protocol.md#what-the-journal-records):
    /// - `Connection: close` when the request asked for it (`Connection: close`) or is HTTP/1.0
    ///   without `Connection: keep-alive`; `Connection: Keep-Alive` for an HTTP/1.0 request that
    ///   asked for keep-alive; nothing when the response sets `Connection` itself;
    /// - `Content-Length` with the body's length (for HEAD too: the length a GET would get),
    ///   except on 1xx, 204 and a 2xx answer to `CONNECT` (RFC 9110 §9.3.6: the connection
    ///   becomes a tunnel, so no field frames a body); `Transfer-Encoding: chunked` for a stream
    ///   of unknown length, with the same exceptions; `Connection: close` for ``HTTPResponse/Body/unframed``.
    /// - Parameter fileLength: the length of a `.file` body when known (it is read at send time).
    public func fieldsAddedOnSending(to request: HTTPRequest, fileLength: UInt64? = nil) -> [(name: String, value: String)] {
        var added: [(name: String, value: String)] = []
        if headers.first("Connection") == nil {
            let tokens = (request.headers.first("Connection") ?? "").split(separator: ",").map {
                String($0.filter { $0 != " " && $0 != "\t" }).asciiLowercased()
            }
            if tokens.contains("close") {
                added.append(("Connection", "close"))
            } else if request.version == "HTTP/1.0" {
                // An HTTP/1.0 request with Transfer-Encoding has faulty framing: the connection is
                // closed after it, whatever it asked (RFC 9112 section 6.1; ``ServerCore``'s send).
                let keepAlive = tokens.contains("keep-alive") && request.headers.first("Transfer-Encoding") == nil
                added.append(("Connection", keepAlive ? "Keep-Alive" : "close"))
            }
        }
        guard status >= 200, status != 204, status >= 300 || request.method != "CONNECT" else { return added }
        switch content {
        case let .bytes(bytes):
            added.append(("Content-Length", String(bytes.count)))
        case let .file(_, _, length):
            if let length = length ?? fileLength { added.append(("Content-Length", String(length))) }
        case .unframed:
            // Ended by the connection's close (ResponseBody): libmicrohttpd says so, also to an
            // HTTP/1.0 request that asked for keep-alive.
            if headers.first("Connection") == nil {
                added.removeAll { $0.name == "Connection" }
                added.append(("Connection", "close"))
            }
        case let .stream(length, _):
            if let length { added.append(("Content-Length", String(length))) } else { added.append(("Transfer-Encoding", "chunked")) }
        }
        return added
    }
}

extension HTTPRequest {
    /// Whether libmicrohttpd 0.9.75 adds to every response to this request the same fields as to
    /// a `GET` over HTTP/1.1 without a `Connection` field: the framing (`Content-Length`) alone,
    /// whatever the response (``HTTPResponse/fieldsAddedOnSending(to:fileLength:)``, whose rules
    /// this follows: no `Connection` field asked for or implied by HTTP/1.0, and not a `CONNECT`,
    /// whose 2xx answer goes out unframed). A server can then journal one answer's fields for
    /// every such request.
    public var getsFramingOnly: Bool {
        version == "HTTP/1.1" && headers.first("Connection") == nil && method != "CONNECT"
    }
}
