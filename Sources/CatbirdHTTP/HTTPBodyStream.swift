import Synchronization

/// Produces a response body in chunks (``HTTPResponse/Body/stream(length:_:)``), for large
/// generated answers that should not sit in memory whole.
///
/// `next` is called on the server's worker thread each time the connection can take more, with
/// the body offset reached so far (in bytes) and a buffer to fill; it returns ``Step/wrote(_:)``
/// with how many bytes it wrote (1...buffer.count), ``Step/finished`` when the body is complete,
/// ``Step/failed`` when it cannot go on, or ``Step/later(_:)`` when its next bytes are being
/// made on another thread. It must not block: the worker serves other connections too. If the
/// client goes away, it is simply not called again.
public final class HTTPBodyStream: Sendable {
    /// What one call of `next` did.
    public enum Step: Sendable {
        /// Wrote this many bytes (1...buffer.count) at the start of the buffer.
        case wrote(Int)
        /// The body is complete: a chunked body gets its last chunk (`0\r\n\r\n`).
        case finished
        /// The body cannot be completed. The connection's socket is shut down at once, so the
        /// answer ends without a chunked body's last chunk (or short of a declared length) and
        /// the connection closes: an HTTP client sees an incomplete transfer (curl exits 18)
        /// rather than a whole body.
        case failed
        /// Nothing now: the next bytes are made off the worker. The server suspends the
        /// connection (`MHD_suspend_connection`, from the content reader: it holds no worker
        /// meanwhile) and calls the closure with `wake`, which the maker calls once, from any
        /// thread, when `next` has bytes (or an end) to give; the connection is then resumed and
        /// `next` called again. Should the server stop first, the answer ends as on
        /// ``failed`` and `wake` does nothing.
        case later(@Sendable (_ wake: @escaping @Sendable () -> Void) -> Void)

        /// Whether the stream is done (finished or failed): the server calls it no more.
        var ends: Bool {
            switch self {
            case .finished, .failed: true
            case .wrote, .later: false
            }
        }
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
                return copy(state.pending, sent: &state.sent, into: buffer)
            }
        }
    }

    /// Copies what `buffer` takes of `part` from byte `sent` on, and counts it in `sent`.
    private static func copy(_ part: [UInt8], sent: inout Int, into buffer: UnsafeMutableRawBufferPointer) -> Step {
        let count = min(buffer.count, part.count - sent)
        part.withUnsafeBytes { bytes in
            buffer.copyMemory(from: UnsafeRawBufferPointer(rebasing: bytes[sent..<(sent + count)]))
        }
        sent += count
        return .wrote(count)
    }

    /// ``parts(first:_:)`` whose parts after `first` are made on another thread: `makingOn` runs
    /// each call of `next` (one at a time, the next one only once everything before was sent),
    /// while the connection is suspended (``Step/later(_:)``), so the worker sending the answer
    /// never makes a part (tester finding tester34a-F2: a HAR export's pages were read and
    /// encoded on the workers that serve mocks, 1.58 s of their CPU per 146 MB export, and other
    /// tenants' hits waited behind them). At most one part is held beside the one being sent.
    public static func parts(
        first: [UInt8] = [], makingOn run: @escaping @Sendable (_ job: @escaping @Sendable () -> Void) -> Void,
        _ next: @escaping @Sendable () throws -> [UInt8]?
    ) -> HTTPBodyStream {
        let made = MadeElsewhere(pending: first)
        return HTTPBodyStream { _, buffer in
            made.state.withLock { state -> Step in
                while state.sent == state.pending.count {
                    if state.finished { return .finished }
                    switch state.made {
                    case let .success(part)?:
                        state.made = nil
                        guard let part else {
                            state.finished = true
                            return .finished
                        }
                        state.pending = part
                        state.sent = 0
                    case .failure?:
                        state.finished = true
                        return .failed
                    case nil:
                        return .later { wake in made.make(run: run, next, wake: wake) }
                    }
                }
                return copy(state.pending, sent: &state.sent, into: buffer)
            }
        }
    }

    /// A ``parts(first:makingOn:_:)`` stream's state: the part being sent, how much of it was
    /// sent, and the next one as it is made.
    private final class MadeElsewhere: Sendable {
        struct State {
            var pending: [UInt8]
            var sent = 0
            var finished = false
            /// The next part once made (nil inside: the end), or why it could not be.
            var made: Result<[UInt8]?, any Error>?
            var making = false
            /// Called once ``made`` is set.
            var wake: (@Sendable () -> Void)?
        }

        let state: Mutex<State>

        init(pending: [UInt8]) {
            state = Mutex(State(pending: pending))
        }

        /// The next part asked for: `wake` is called once it is made (at once when it already
        /// is); the making is started unless it runs already.
        func make(
            run: (_ job: @escaping @Sendable () -> Void) -> Void, _ next: @escaping @Sendable () throws -> [UInt8]?,
            wake: @escaping @Sendable () -> Void
        ) {
            let (madeAlready, starts) = state.withLock { state -> (Bool, Bool) in
                if state.made != nil { return (true, false) }
                state.wake = wake
                defer { state.making = true }
                return (false, !state.making)
            }
            if madeAlready { return wake() }
            guard starts else { return }
            run { [self] in
                let made = Result { try next() }
                let wake = state.withLock { state -> (@Sendable () -> Void)? in
                    state.made = made
                    state.making = false
                    defer { state.wake = nil }
                    return state.wake
                }
                wake?()
            }
        }
    }

    /// This stream, with `ended` called when it has finished or failed (the server then calls
    /// it no more). A stream dropped before either (the client went away) drops `ended` with it,
    /// uncalled: what `ended` holds is released then (a slow call's admission gives itself back).
    public func whenEnded(_ ended: @escaping @Sendable () -> Void) -> HTTPBodyStream {
        HTTPBodyStream { [next] offset, buffer in
            let step = next(offset, buffer)
            if step.ends { ended() }
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
