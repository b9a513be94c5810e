import CMicroHTTPD

/// Whether a response's header section fits the connection memory libmicrohttpd has left for it
/// (docs/protocol.md#response-head-size).
///
/// libmicrohttpd 0.9.75 writes a response's status line and header fields into the connection's
/// memory (``HTTPServer/Configuration/connectionMemoryLimit``, 32 KiB), beside what the request
/// still holds there; a head that does not fit is not sent at all: the connection is closed with
/// nothing written, after the handler already counted the answer as given. Measured on the wire
/// (`ResponseHeadRoomTests`), the request holds its line and header section rounded up to 16
/// bytes, 64 bytes per header field, query parameter and cookie pair, and a copy of the `Cookie`
/// field's value (with its NUL, rounded up to 16 bytes); the response's head may use all the rest.
public enum ResponseHeadRoom {
    /// Bytes libmicrohttpd 0.9.75 keeps per header field, query parameter and cookie pair
    /// (its `struct MHD_HTTP_Header`, 56 bytes, rounded up to its 16-byte alignment).
    public static let bytesPerEntry = 64

    /// The least room a request must leave for it to be answered at all: 256 bytes, the head of
    /// the JSON error Catbird sends in place of an answer that does not fit (a 500, 502 or 431:
    /// its status line, `Content-Type`, `Date`, `Content-Length` and `Connection`, 162-172
    /// bytes) and 84 bytes for the fields a mode may add to it (`X-Catbird-Generated-By`, CORS).
    /// A request that leaves less is closed unanswered before the handler sees it
    /// (``HTTPRequestEnding/noRoomToAnswer(room:)``): any answer's head, the error in its place
    /// too, would have been dropped by libmicrohttpd with nothing written, after the handler had
    /// acted on the request (tester finding tester21a-F8: a head of 451 small fields, or of 26 KB
    /// with 100 fields, got 0 bytes, its mock's 500 journaled as sent, a control `update` in it
    /// stored while its client saw a network error).
    public static let leastToAnswer = 256

    /// Whether a request carrying `fields` header fields of `fieldBytes` bytes in all (each
    /// `Name:value` and CR LF) can be answered at all in `memory` bytes of connection memory:
    /// with the shortest request line (`M / HTTP/1.0` and CR LF, 14 bytes) and the empty line,
    /// it leaves at least ``leastToAnswer`` (tester finding tester21a-F9: about 450 small
    /// fields, far below the 7,168 that the head's byte limit alone allows).
    public static func canBeAnswered(fields: Int, fieldBytes: Int, memory: Int) -> Bool {
        room(memory: memory, headSize: 14 + fieldBytes + 2, entries: fields, cookieLength: nil) >= leastToAnswer
    }

    /// The bytes left for the response head of a request whose line and header section took
    /// `headSize` bytes, with `entries` header fields, query parameters and cookie pairs, and a
    /// `Cookie` field of `cookieLength` bytes (nil: none), in `memory` bytes of connection memory.
    /// An empty `Cookie` field is copied too: its NUL takes 16 bytes.
    static func room(memory: Int, headSize: Int, entries: Int, cookieLength: Int?) -> Int {
        memory - roundedUp(headSize) - entries * bytesPerEntry - (cookieLength.map { roundedUp($0 + 1) } ?? 0)
    }

    private static func roundedUp(_ size: Int) -> Int { (size + 15) & ~15 }
}

extension HTTPResponse {
    /// The size in bytes of this response's head as libmicrohttpd 0.9.75 writes it: the status
    /// line (`HTTP/1.1 200 OK` and CR LF, with libmicrohttpd's reason phrase), each of
    /// `headers` and `added` as `Name: value` and CR LF, and the empty line. Call it on the
    /// ``stamped()`` response with ``fieldsAddedOnSending(to:fileLength:)`` as `added`.
    public func headSize(adding added: [(name: String, value: String)]) -> Int {
        let reason = MHD_get_reason_phrase_for(UInt32(clamping: status)).map { strlen($0) } ?? 0
        var size = "HTTP/1.1 200 ".utf8.count + reason + 2 + 2
        for field in headers.fields { size += field.name.utf8.count + field.value.utf8.count + 4 }
        for field in added { size += field.name.utf8.count + field.value.utf8.count + 4 }
        return size
    }
}

#if canImport(Glibc)
import Glibc
#endif
