import CMicroHTTPD
#if canImport(Glibc)
import Glibc
#endif

/// Makes libmicrohttpd responses from ``HTTPResponse/Body``: bytes copied
/// (`MHD_create_response_from_buffer`; for one connection, only up to
/// ``HTTPResponse/Body/copiedBytesLimit``, larger ones are sent from the array), a stream read through a callback
/// (`MHD_create_response_from_callback`), and a file region as such a stream read from its
/// descriptor (closed when the response is destroyed; see ``file(_:offset:length:endedShort:)``).
/// https://www.gnu.org/software/libmicrohttpd/manual/html_node/microhttpd_002dresponse-create.html
enum ResponseBody {
    /// Sent instead of a ``HTTPResponse/Body/file(path:offset:length:)`` that cannot be sent.
    static let unreadableFile = HTTPResponse.error(status: 500, reason: "the server could not read the file for this response")

    /// Bytes a stream is asked for at most per call: 64 KiB.
    static let streamBlockSize = 64 * 1024

    /// A new MHD response for `content` (the caller destroys it), or nil when the file cannot be
    /// sent (or memory ran out).
    /// - Parameter socket: the connection's socket, which a stream that fails shuts down
    ///   (``StreamContext``); -1 when unknown.
    /// - Parameter connection: the one connection the response is queued on, which a stream
    ///   suspends while its next bytes are made elsewhere (``HTTPBodyStream/Step/later(_:)``,
    ///   ``StreamPauses``); nil for a response queued on many (such a stream then fails there).
    /// - Parameter handler: told when a file body ends early because the file shrank while it
    ///   was sent (``HTTPHandler/fileBodyEndedShort(path:sent:promised:)``) or could not be read
    ///   (``HTTPHandler/fileBodyReadFailed(path:sent:promised:errorNumber:)``).
    /// - Parameter sharingBytes: whether bytes over ``HTTPResponse/Body/copiedBytesLimit`` are
    ///   sent from the array itself (a response queued on one connection), not copied (a
    ///   response made once and queued on many, ``PreparedResponse``).
    /// - Parameter fileEndedEarly: told, after `handler`, how a file body that ended early ended
    ///   (``HTTPAnswerCutShort/fileEndedEarly(sent:promised:errorNumber:)``), on the thread that sends it.
    static func make(
        _ content: HTTPResponse.Body, socket: Int32, connection: Connection? = nil, handler: (any HTTPHandler)? = nil,
        sharingBytes: Bool = false, fileEndedEarly: (@Sendable (HTTPAnswerCutShort) -> Void)? = nil
    ) -> OpaquePointer? {
        switch content {
        case let .bytes(bytes) where sharingBytes && bytes.count > HTTPResponse.Body.copiedBytesLimit:
            return make(.part(of: bytes, 0..<bytes.count), socket: socket)
        case let .bytes(bytes):
            let mustCopy = MHD_ResponseMemoryMode(rawValue: 2)!  // MHD_RESPMEM_MUST_COPY
            return bytes.withUnsafeBytes { buffer in
                MHD_create_response_from_buffer(buffer.count, UnsafeMutableRawPointer(mutating: buffer.baseAddress), mustCopy)
            }
        case let .file(path, offset, length):
            let endedEarly: @Sendable (UInt64, UInt64, Int32?) -> Void = { sent, promised, errorNumber in
                if let errorNumber {
                    handler?.fileBodyReadFailed(path: path, sent: sent, promised: promised, errorNumber: errorNumber)
                } else {
                    handler?.fileBodyEndedShort(path: path, sent: sent, promised: promised)
                }
                fileEndedEarly?(.fileEndedEarly(sent: sent, promised: promised, errorNumber: errorNumber))
            }
            guard let (length, stream) = file(path, offset: offset, length: length, endedEarly: endedEarly) else { return nil }
            return make(.stream(length: length, stream), socket: socket)
        case .unframed:
            // Of unknown length and never read (a HEAD's): not chunked, the connection closed after the head.
            guard let response = MHD_create_response_from_callback(UInt64.max, streamBlockSize, noBody, nil, nil) else { return nil }
            _ = catbird_mhd_close_delimited(response)
            return response
        case let .stream(length, stream):
            let context = Unmanaged.passRetained(StreamContext(stream: stream, socket: socket, connection: connection)).toOpaque()
            guard let response = MHD_create_response_from_callback(
                length ?? UInt64.max,  // MHD_SIZE_UNKNOWN: chunked
                streamBlockSize, readStream, context, releaseStream)
            else {
                Unmanaged<StreamContext>.fromOpaque(context).release()
                return nil
            }
            return response
        }
    }

    /// Adds `response`'s header fields to the MHD response `handle`, except `Content-Length`
    /// and `Transfer-Encoding` (libmicrohttpd frames the body itself).
    static func addFields(of response: HTTPResponse, to handle: OpaquePointer) {
        for field in response.headers
        where !field.name.equalsIgnoringASCIICase("Content-Length") && !field.name.equalsIgnoringASCIICase("Transfer-Encoding") {
            // withCString: a native string lends its own NUL-terminated bytes (the implicit
            // String-to-pointer conversion makes a copy of each).
            _ = field.name.withCString { name in field.value.withCString { value in MHD_add_response_header(handle, name, value) } }
        }
    }

    /// The file region as a stream read with `pread`, and its length; nil when the file cannot be
    /// opened, is not a regular file or is shorter than the region. Not libmicrohttpd's own file
    /// response (`MHD_create_response_from_fd_at_offset64`): when the file shrinks while it is
    /// sent, 0.9.75's `sendfile` loop sends nothing more and never closes the connection (a 200 MB
    /// file truncated to 1000 bytes left the client waiting for ever after 3.9 MB). A read that
    /// comes back short, or fails, fails the stream instead, which closes the connection
    /// (``HTTPBodyStream/Step/failed``), after telling `endedEarly` how far it got of how much,
    /// and the read's `errno` when it failed (nil when the file ended early: it shrank).
    private static func file(
        _ path: String, offset: UInt64, length: UInt64?, endedEarly: @escaping @Sendable (UInt64, UInt64, Int32?) -> Void
    ) -> (UInt64, HTTPBodyStream)? {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return nil }
        let region = OpenFile(descriptor)
        var info = stat()
        guard fstat(descriptor, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG, UInt64(info.st_size) >= offset else { return nil }
        let available = UInt64(info.st_size) - offset
        let count = length ?? available
        guard count <= available else { return nil }
        let stream = HTTPBodyStream { position, buffer in
            guard position < count else { return .finished }
            let wanted = Int(min(UInt64(buffer.count), count - position))
            var read: Int
            repeat {
                read = pread(region.descriptor, buffer.baseAddress, wanted, off_t(offset + position))
            } while read < 0 && errno == EINTR
            guard read > 0 else {
                endedEarly(position, count, read < 0 ? errno : nil)
                return .failed
            }
            return .wrote(read)
        }
        return (count, stream)
    }

    /// An open file descriptor, closed when the last stream reading it is released.
    /// Sendable: the descriptor never changes, and `pread` takes its own offset, so streams on
    /// any thread may read it at once.
    private final class OpenFile: Sendable {
        let descriptor: Int32

        init(_ descriptor: Int32) {
            self.descriptor = descriptor
        }

        deinit {
            close(descriptor)
        }
    }

    /// A stream and the socket of the one connection its response is queued on.
    ///
    /// A stream that fails shuts the socket down and then reports the end of the stream: the
    /// bytes already in the kernel still go out, then FIN; libmicrohttpd's next send (a
    /// chunked body's last chunk) fails, and it closes the connection as for a client that
    /// went away. The descriptor stays libmicrohttpd's to close. Not
    /// `MHD_CONTENT_READER_END_WITH_ERROR`: libmicrohttpd 0.9.75 (epoll) then sends nothing
    /// more but never closes the connection, so the client waits for ever and the socket stays
    /// open (measured in HARExportFailureTests: curl timed out after 20 s, one socket left).
    private final class StreamContext {
        let stream: HTTPBodyStream
        let socket: Int32
        let connection: Connection?

        init(stream: HTTPBodyStream, socket: Int32, connection: Connection?) {
            self.stream = stream
            self.socket = socket
            self.connection = connection
        }

        /// Ends the answer as a failed stream does (see the type's comment).
        func fail() -> Int {
            if socket >= 0 { shutdown(socket, Int32(SHUT_RDWR)) }
            return -1
        }
    }

    /// The one connection a stream's response is queued on, and the registry that suspends it
    /// while the stream's next bytes are made elsewhere.
    struct Connection {
        let handle: OpaquePointer
        let pauses: StreamPauses
    }

    /// MHD_ContentReaderCallback: fills `buffer` from the stream; -1 is
    /// MHD_CONTENT_READER_END_OF_STREAM (also after a failure, see ``StreamContext``).
    private static let readStream: MHD_ContentReaderCallback = { context, position, buffer, capacity in
        guard let context, let buffer, capacity > 0 else { return -1 }
        let streaming = Unmanaged<StreamContext>.fromOpaque(context).takeUnretainedValue()
        switch streaming.stream.next(position, UnsafeMutableRawBufferPointer(start: buffer, count: capacity)) {
        case let .wrote(count) where count > 0:
            return min(count, capacity)
        case .wrote, .finished:
            return -1
        case .failed:
            return streaming.fail()
        case let .later(start):
            // No bytes now: the connection waits suspended, holding no worker, until `wake`
            // resumes it and libmicrohttpd asks again (0: nothing written yet).
            guard let connection = streaming.connection, let wake = connection.pauses.pause(connection.handle) else {
                return streaming.fail()
            }
            start(wake)
            return 0
        }
    }

    /// MHD_ContentReaderCallback of an ``HTTPResponse/Body/unframed`` answer: no bytes
    /// (MHD_CONTENT_READER_END_OF_STREAM), should it ever be asked.
    private static let noBody: MHD_ContentReaderCallback = { _, _, _, _ in -1 }

    /// MHD_ContentReaderFreeCallback: releases the stream once MHD is done with the response.
    private static let releaseStream: MHD_ContentReaderFreeCallback = { context in
        guard let context else { return }
        Unmanaged<StreamContext>.fromOpaque(context).release()
    }
}
