import CatbirdSupport
import Synchronization

/// Each holder's (tenant's) share of the connection slots when the acceptor makes room
/// (``ConnectionWatch/makeRoom(_:slots:clientsWaiting:)``). A connection belongs to the holder
/// of its last request (``ConnectionWatch/Connection/holderKey``); a holder with more than
/// ``HTTPServer/slotShare(of:)`` connections has its idle ones closed first, and, while clients
/// wait in the backlog, its other connections are told to close after their next answer
/// (`Connection: close`), down to its share (tester finding tester67b-F1: one tenant's 170
/// keep-alive connections, each sending a request every 0.3 s, were never idle a second, so
/// none was closed for room, and the health check and every other tenant waited in the backlog
/// for as long as they ran). Its client learns it from the answer itself, as after a server's
/// keep-alive request limit, and opens another connection, behind the clients that waited
/// before it; no request is cut off (closing a connection between two requests races the
/// client's next one).
extension ConnectionWatch {
    /// How often connections may be told to close after their next answer: at most one batch
    /// per 100 ms. The holder's clients reconnect at once and wait in the backlog themselves,
    /// so without a pause the acceptor would close and accept its connections as fast as they
    /// come back; with it, the clients that waited before them get in within a few batches.
    static let closingInterval: Duration = .milliseconds(100)

    /// A holder's connections past its share (``holdersOverShare(_:share:)``).
    struct PastShare {
        /// How many open connections it has past its share.
        var past: Int
        /// How many of its connections are told to close after their next answer already.
        var told: Int
    }

    /// The holders with more than `share` open connections (by ``Connection/holderKey``;
    /// connections with no request ended yet belong to none, those closed are not counted,
    /// those told to close after their answer are, as ``PastShare/told``).
    static func holdersOverShare(_ connections: Dictionary<ObjectIdentifier, Connection>.Values, share: Int) -> [UInt64: PastShare] {
        var held: [UInt64: PastShare] = [:]
        for connection in connections {
            let key = connection.holderKey.load(ordering: .relaxed)
            guard key != 0, connection.phase.load(ordering: .relaxed) & State.mask < State.headTimedOut else { continue }
            held[key, default: PastShare(past: -share, told: 0)].past += 1
            if connection.closeAfterAnswer.load(ordering: .relaxed) { held[key]?.told += 1 }
        }
        return held.filter { $0.value.past > 0 }
    }

    /// Tells up to `count` open connections of the holders in `overShare` to close after their
    /// next answer (``Connection/closeAfterAnswer``), each holder's down to its share with those
    /// told before (lowering ``PastShare/past``), those idle longest first (then those
    /// answering), and counts them as closed (`keep_alive_over_share`). Under the lock; returns
    /// how many.
    func closeAfterNextAnswer(
        in connections: [ObjectIdentifier: Connection], overShare: inout [UInt64: PastShare], count: Int, now: ContinuousClock.Instant
    ) -> Int {
        var candidates: [(connection: Connection, key: UInt64, idleFor: Duration)] = []
        for connection in connections.values {
            let key = connection.holderKey.load(ordering: .relaxed)
            guard let holder = overShare[key], holder.past > holder.told, !connection.closeAfterAnswer.load(ordering: .relaxed)
            else { continue }
            // Acquiring: its ``Connection/endedAt`` is then the one of the request that ended.
            let phase = connection.phase.load(ordering: .acquiring)
            guard phase & State.mask < State.headTimedOut else { continue }
            let idleFor = phase & State.mask == State.idle ? connection.idleFor(phase, at: now) : .zero
            candidates.append((connection, key, idleFor))
        }
        var told = 0
        for candidate in candidates.sorted(by: { $0.idleFor > $1.idleFor }) where told < count {
            guard let holder = overShare[candidate.key], holder.past > holder.told else { continue }
            candidate.connection.closeAfterAnswer.store(true, ordering: .relaxed)
            overShare[candidate.key]?.told += 1
            told += 1
        }
        if told > 0 {
            closingNotBefore.withLock { $0 = now + Self.closingInterval }
            counts.noteClosed(.keepAliveOverShare, count: told)
        }
        return told
    }
}
