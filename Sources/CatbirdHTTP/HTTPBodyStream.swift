/// Produces a response body in chunks (``HTTPResponse/Body/stream(length:_:)``), for large
/// generated answers that should not sit in memory whole.
///
/// `next` is called on the server's worker thread each time the connection can take more, with
/// the body offset reached so far (in bytes) and a buffer to fill; it returns how many bytes it
/// wrote (1...buffer.count), or nil when the body is complete. It must not block: the worker
/// serves other connections too. If the client goes away, it is simply not called again.
/// With a declared length, returning nil early (or writing past it) closes the connection: the
/// client sees a short body rather than a wrong one. Returning ``abort`` closes the connection
/// without finishing the body (for chunked coding: no last chunk), so a client never takes a
/// body that failed half-way for a complete one.
public final class HTTPBodyStream: Sendable {
    /// What `next` returns when the body cannot be completed (a read failed half-way).
    public static let abort = -1

    let next: @Sendable (_ offset: UInt64, _ buffer: UnsafeMutableRawBufferPointer) -> Int?

    public init(_ next: @escaping @Sendable (_ offset: UInt64, _ buffer: UnsafeMutableRawBufferPointer) -> Int?) {
        self.next = next
    }
}
