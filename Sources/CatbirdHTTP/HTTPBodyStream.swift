/// Produces a response body in chunks (``HTTPResponse/Body/stream(length:_:)``), for large
/// generated answers that should not sit in memory whole.
///
/// `next` is called on the server's worker thread each time the connection can take more, with
/// the body offset reached so far (in bytes) and a buffer to fill; it returns how many bytes it
/// wrote (1...buffer.count), or nil when the body is complete. It must not block: the worker
/// serves other connections too. If the client goes away, it is simply not called again.
/// With a declared length, returning nil early (or writing past it) closes the connection: the
/// client sees a short body rather than a wrong one. (There is no way to fail a chunked body
/// half-way: libmicrohttpd 0.9.75 with epoll leaves the connection open after
/// `MHD_CONTENT_READER_END_WITH_ERROR`, and the client waits forever. A stream that fails
/// should end so that its content is visibly incomplete, e.g. JSON left unterminated.)
public final class HTTPBodyStream: Sendable {

    let next: @Sendable (_ offset: UInt64, _ buffer: UnsafeMutableRawBufferPointer) -> Int?

    public init(_ next: @escaping @Sendable (_ offset: UInt64, _ buffer: UnsafeMutableRawBufferPointer) -> Int?) {
        self.next = next
    }
}
