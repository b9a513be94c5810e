import CMicroHTTPD
#if canImport(Glibc)
import Glibc
#endif

/// Makes libmicrohttpd responses from ``HTTPResponse/Body``: bytes copied
/// (`MHD_create_response_from_buffer`), a file region sent from its descriptor
/// (`MHD_create_response_from_fd_at_offset64`, which closes the descriptor when the response is
/// destroyed), a stream read through a callback (`MHD_create_response_from_callback`).
/// https://www.gnu.org/software/libmicrohttpd/manual/html_node/microhttpd_002dresponse-create.html
enum ResponseBody {
    /// Sent instead of a ``HTTPResponse/Body/file(path:offset:length:)`` that cannot be sent.
    static let unreadableFile = HTTPResponse.error(status: 500, reason: "the server could not read the file for this response")

    /// Bytes a stream is asked for at most per call: 64 KiB.
    static let streamBlockSize = 64 * 1024

    /// A new MHD response for `content` (the caller destroys it), or nil when the file cannot be
    /// sent (or memory ran out).
    static func make(_ content: HTTPResponse.Body) -> OpaquePointer? {
        switch content {
        case let .bytes(bytes):
            let mustCopy = MHD_ResponseMemoryMode(rawValue: 2)!  // MHD_RESPMEM_MUST_COPY
            return bytes.withUnsafeBytes { buffer in
                MHD_create_response_from_buffer(buffer.count, UnsafeMutableRawPointer(mutating: buffer.baseAddress), mustCopy)
            }
        case let .file(path, offset, length):
            return file(path, offset: offset, length: length)
        case let .stream(length, stream):
            let context = Unmanaged.passRetained(stream).toOpaque()
            guard let response = MHD_create_response_from_callback(
                length ?? UInt64.max,  // MHD_SIZE_UNKNOWN: chunked
                streamBlockSize, readStream, context, releaseStream)
            else {
                Unmanaged<HTTPBodyStream>.fromOpaque(context).release()
                return nil
            }
            return response
        }
    }

    private static func file(_ path: String, offset: UInt64, length: UInt64?) -> OpaquePointer? {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return nil }
        var info = stat()
        guard fstat(descriptor, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG, UInt64(info.st_size) >= offset else {
            close(descriptor)
            return nil
        }
        let available = UInt64(info.st_size) - offset
        let count = length ?? available
        guard count <= available, let response = MHD_create_response_from_fd_at_offset64(count, descriptor, offset) else {
            close(descriptor)  // not handed over
            return nil
        }
        return response
    }

    /// MHD_ContentReaderCallback: fills `buffer` from the stream; -1 is
    /// MHD_CONTENT_READER_END_OF_STREAM.
    private static let readStream: MHD_ContentReaderCallback = { context, position, buffer, capacity in
        guard let context, let buffer, capacity > 0 else { return -1 }
        let stream = Unmanaged<HTTPBodyStream>.fromOpaque(context).takeUnretainedValue()
        guard let written = stream.next(position, UnsafeMutableRawBufferPointer(start: buffer, count: capacity)),
              written > 0
        else { return -1 }
        return min(written, capacity)
    }

    /// MHD_ContentReaderFreeCallback: releases the stream once MHD is done with the response.
    private static let releaseStream: MHD_ContentReaderFreeCallback = { context in
        guard let context else { return }
        Unmanaged<HTTPBodyStream>.fromOpaque(context).release()
    }
}
