import Synchronization

/// Produces a response body in chunks (``HTTPResponse/Body/stream(length:_:)``), for large
/// generated answers that should not sit in memory whole.
///
/// `next` is called on the server's worker thread each time the connection can take more, with
/// the body offset reached so far (in bytes) and a buffer to fill; it returns ``Step/wrote(_:)``
/// with how many bytes it wrote (1...buffer.count), ``Step/finished`` when the body is complete,
/// or ``Step/failed`` when it cannot go on. It must not block: the worker serves other
/// connections too. If the client goes away, it is simply not called again.
public final class HTTPBodyStream: Sendable {
    /// What one call of `next` did.
    public enum Step: Sendable, Equatable {
        /// Wrote this many bytes (1...buffer.count) at the start of the buffer.
        case wrote(Int)
        /// The body is complete: a chunked body gets its last chunk (`0\r\n\r\n`).
        case finished
        /// The body cannot be completed. The connection's socket is shut down at once, so the
        /// answer ends without a chunked body's last chunk (or short of a declared length) and
        /// the connection closes: an HTTP client sees an incomplete transfer (curl exits 18)
        /// rather than a whole body.
        case failed
    }

    let next: @Sendable (_ offset: UInt64, _ buffer: UnsafeMutableRawBufferPointer) -> Step

    public init(_ next: @escaping @Sendable (_ offset: UInt64, _ buffer: UnsafeMutableRawBufferPointer) -> Step) {
        self.next = next
    }
}

extension HTTPBodyStream {
    /// A body sent as parts produced one at a time: `first`, then whatever `next` returns, each
    /// call made once everything before it was sent (so at most one part is held), until `next`
    /// returns nil (``Step/finished``) or throws (``Step/failed``: the connection is shut, the
    /// client sees an incomplete transfer). `next` runs on the worker thread sending the answer,
    /// one call at a time, and must not block; an empty part is fine.
    public static func parts(first: [UInt8] = [], _ next: @escaping @Sendable () throws -> [UInt8]?) -> HTTPBodyStream {
        let state = Mutex(PartsState(pending: first))
        return HTTPBodyStream { _, buffer in
            state.withLock { state in
                while state.sent == state.pending.count {
                    if state.finished { return .finished }
                    do {
                        guard let part = try next() else {
                            state.finished = true
                            return .finished
                        }
                        state.pending = part
                        state.sent = 0
                    } catch {
                        state.finished = true
                        return .failed
                    }
                }
                let count = min(buffer.count, state.pending.count - state.sent)
                state.pending.withUnsafeBytes { bytes in
                    buffer.copyMemory(from: UnsafeRawBufferPointer(rebasing: bytes[state.sent..<(state.sent + count)]))
                }
                state.sent += count
                return .wrote(count)
            }
        }
    }

    /// This stream, with `ended` called when it has finished or failed (the server then calls
    /// it no more). A stream dropped before either (the client went away) drops `ended` with it,
    /// uncalled: what `ended` holds is released then (a slow call's admission gives itself back).
    public func whenEnded(_ ended: @escaping @Sendable () -> Void) -> HTTPBodyStream {
        HTTPBodyStream { [next] offset, buffer in
            let step = next(offset, buffer)
            if step == .finished || step == .failed { ended() }
            return step
        }
    }

    /// The part being sent by a ``parts(first:_:)`` stream, and how much of it was sent.
    private struct PartsState {
        var pending: [UInt8]
        var sent = 0
        var finished = false
    }
}
