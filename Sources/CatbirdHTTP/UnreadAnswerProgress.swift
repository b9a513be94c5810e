/// What ``ConnectionWatch``'s ticks know of how a client takes a watched answer's bytes (one
/// holding part of the body budget, or larger than the socket buffers), and whether it has taken
/// none of them for longer than it may (``ConnectionWatch/State/answerUnread``).
///
/// The server sees a client's reads only when they reopen its TCP receive window, and Linux
/// reopens a window in steps: once a share of the receive buffer is free (half of it on older
/// kernels, a sixteenth on newer ones), so a client with a large buffer, reading steadily, shows
/// no byte taken for seconds between steps. How long it may go so grows with the largest burst
/// it has acknowledged (``allowance(_:burst:)``).
///
/// Kept in the connection's record and used under the watch's lock only.
struct UnreadAnswerProgress {
    /// The bytes its client had acknowledged when a look last saw them change; -1 before the
    /// first look.
    private(set) var acked: Int64 = -1
    /// Since when ``acked`` has not changed while bytes waited for the client; nil when nothing
    /// waited (the answer's next part was being made), or before the first look.
    private(set) var since: ContinuousClock.Instant?
    /// The acknowledged bytes when its client last took bytes again after ``pause`` or more of
    /// taking none (0 before): what it acknowledged since is the burst under way.
    private var burstBase: Int64 = 0
    /// The largest burst seen ended so far on this answer, in bytes.
    private var largestBurst: Int64 = 0

    /// How long a client takes none of the bytes before its next ones start a new burst: 1 s
    /// (``ConnectionWatch/minimumIdleAge``, a tick).
    static let pause = ConnectionWatch.minimumIdleAge

    /// Notes one look at `now`: the client had acknowledged `acked` bytes of the connection
    /// (`TCP_INFO`), `waiting` bytes waited for it in the socket (`SIOCOUTQ`), and it had
    /// acknowledged `startAcked` when the answer was queued. True when it has taken none of the
    /// waiting bytes for longer than ``allowance(_:burst:)`` of `headTimeout` allows for the
    /// largest of its bursts: its connection is to be reset.
    ///
    /// The largest burst, not the last one (clean-clone CI failure of
    /// `UnreadMockAnswerTests.testASteadyReaderWithAGrownReceiveBufferIsNotReset`, a client reading
    /// 150 KB a second after a 4 MB burst, on a loaded machine: a step of 5 KB, a window update
    /// between two larger steps, was taken for its last burst, so the 2-s steps after it got a
    /// 2-s allowance and the client was reset). A receive buffer the kernel grew stays grown.
    mutating func look(acked: Int64, waiting: Int64, startAcked: Int64, at now: ContinuousClock.Instant, headTimeout: Duration) -> Bool {
        guard waiting > 0, acked == self.acked, let since else {
            if acked != self.acked, self.acked >= 0, let since, now - since >= Self.pause {
                // It took bytes again after a pause: the burst before it ended.
                largestBurst = max(largestBurst, self.acked - max(burstBase, startAcked))
                burstBase = self.acked
            }
            self.acked = acked
            self.since = waiting > 0 ? now : nil
            return false
        }
        let burst = max(largestBurst, acked - max(burstBase, startAcked))
        return now - since >= Self.allowance(headTimeout, burst: burst)
    }

    /// How long a client may take none of an answer's bytes before its connection is reset:
    /// `headTimeout` times `burst` (bytes) over 128 KiB, between 1 and 16 times. The burst that
    /// filled its receive buffer tells the buffer's size: a buffer of Linux's default size
    /// reopens every 129 KB or so, one the kernel grew to 2.7 MB on loopback (autotuning, up to
    /// `tcp_rmem`'s largest) every 1.4 MB, so a client reading a steady 30 KB a second went 47 s
    /// without a byte taken and was reset at 30 s (tester finding tester52a-F2, a forwarded
    /// 20 MiB answer to `curl --limit-rate 30k`). The window reopens once the client has read at
    /// most what a burst brought, so with this allowance a client reading 128 KiB per
    /// `headTimeout` (about 4.4 KB a second with the default 30 s) is not cut, up to bursts of
    /// 2 MiB; one that stops reading after such a burst holds its part of the body budget up to
    /// 16 × `headTimeout` (8 minutes).
    static func allowance(_ headTimeout: Duration, burst: Int64) -> Duration {
        headTimeout * min(16, max(1, Double(max(0, burst)) / Double(128 << 10)))
    }
}
