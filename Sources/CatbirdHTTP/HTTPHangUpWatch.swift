/// What counts as the client gone while its request is parked (``HTTPAnswer/later(watching:_:)``),
/// so that it is let go before its answer is ready (docs/protocol.md#delays).
///
/// A client's end of stream (a FIN) does not tell one that closed its socket from one that only
/// shut down its sending side and still reads (`shutdown(SHUT_WR)`, `nc -N`; RFC 9112 section
/// 9.6): they differ only in how they take bytes sent to them (a closed socket answers with a
/// reset), and the only bytes that may go before the answer are an interim 1xx, which HTTP/1.0
/// may not be sent (RFC 9110 section 15.2). Which mistake is cheaper depends on the wait.
public enum HTTPHangUpWatch: Sendable, Equatable {
    /// A FIN counts, as a reset does: an HTTP/1.1 client is then sent `HTTP/1.1 100 Continue`
    /// and is gone if that resets (a half-closed one reads it, then its answer, try7b F3); an
    /// HTTP/1.0 client is gone at once. For waits that only serve the client and should end
    /// when it gives up, as most do with a plain close (a test's timeout, a cancelled
    /// URLSession task, curl's `--max-time`): a mock's delay (whose hit is given back), an
    /// upstream call (cancelled), a long poll or wait (issue 9; nginx logs such a client as 499).
    case endOfStream
    /// Only a reset (`EPOLLHUP`/`EPOLLERR`) counts; a client that sent a FIN gets its answer
    /// when it is ready, with no interim 100. For work that is done whatever the client does
    /// (a control change, a count, an export on the control pools): its answer must reach a
    /// half-closed client, and nothing is saved by letting a closed one go (tester finding T12-F1).
    case resetOnly
}
