import Synchronization

/// What the server's connection slots are doing, for metrics (tester finding tester41a-F6:
/// nothing showed the slots filling, or the connections the server closed to make room, so a
/// host locked out by one tenant's stalled uploads looked healthy): connections open now, how
/// often every slot was taken, and the connections the server itself closed, by why.
/// Counted by the ``ConnectionWatch`` and the acceptor; one object per server
/// (``HTTPServer/Configuration/connectionCounts``), read by anyone.
public final class HTTPConnectionCounts: Sendable {
    /// Why the server closed a connection itself (not its client, not the idle timeout).
    public enum CloseReason: Int, CaseIterable, Sendable {
        /// Idle (between requests) for a second or longer, closed to make room at the limit.
        case idleForRoom
        /// Its request's head under way for a second or longer, closed to make room (408 sent).
        case headForRoom
        /// Its request's body receiving nothing for a second or longer, closed to make room (408 sent).
        case bodyForRoom
        /// Its client took none of a large answer's bytes for 5 s, closed to make room (reset).
        case answerUnreadForRoom
        /// An upload still arriving past its tenant's share of the slots, closed to make room (408 sent).
        case uploadOverShare
        /// A keep-alive connection of a tenant past its share of the slots, idle between two
        /// requests for less than a second, closed to make room while clients wait.
        case keepAliveOverShare
        /// A request line or head not complete within the head timeout (408 sent).
        case headTimedOut
        /// A request body that received nothing for the head timeout (408 sent).
        case bodyStalled
        /// A large answer whose client took none of its bytes for the head timeout (reset).
        case answerUnread

        /// The metric label: `idle_for_room`, `head_for_room`, `body_for_room`,
        /// `answer_unread_for_room`, `upload_over_share`, `keep_alive_over_share`, `head_timed_out`, `body_stalled`,
        /// `answer_unread`.
        public var label: String {
            switch self {
            case .idleForRoom: "idle_for_room"
            case .headForRoom: "head_for_room"
            case .bodyForRoom: "body_for_room"
            case .answerUnreadForRoom: "answer_unread_for_room"
            case .uploadOverShare: "upload_over_share"
            case .keepAliveOverShare: "keep_alive_over_share"
            case .headTimedOut: "head_timed_out"
            case .bodyStalled: "body_stalled"
            case .answerUnread: "answer_unread"
            }
        }
    }

    private let openNow = Atomic<Int>(0)
    private let limitReachedCount = Atomic<Int>(0)
    private let closes = Mutex<[Int]>(Array(repeating: 0, count: CloseReason.allCases.count))

    public init() {}

    /// Connections open now (started by libmicrohttpd and not closed yet).
    public var open: Int { openNow.load(ordering: .relaxed) }

    /// How many times every connection slot became taken (each time the acceptor found the
    /// limit reached after it had not been): new clients then wait in the listen backlog.
    public var limitReached: Int { limitReachedCount.load(ordering: .relaxed) }

    /// Connections the server closed for `reason` since it started.
    public func closed(_ reason: CloseReason) -> Int { closes.withLock { $0[reason.rawValue] } }

    func connectionOpened() { openNow.add(1, ordering: .relaxed) }
    func connectionClosed() { openNow.subtract(1, ordering: .relaxed) }
    func noteLimitReached() { limitReachedCount.add(1, ordering: .relaxed) }
    func noteClosed(_ reason: CloseReason, count: Int = 1) {
        guard count > 0 else { return }
        closes.withLock { $0[reason.rawValue] += count }
    }
}
