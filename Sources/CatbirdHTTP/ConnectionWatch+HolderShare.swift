import CMicroHTTPD
import CatbirdSupport
import Synchronization

/// Each holder's (tenant's) share of the connection slots when the acceptor makes room
/// (``ConnectionWatch/makeRoom(_:slots:clientsWaiting:)``). A connection belongs to the holder
/// of its last request (``ConnectionWatch/Connection/holderKey``); a holder with more than
/// ``HTTPServer/slotShare(of:)`` connections has its idle ones closed first, the others' kept,
/// and, while clients wait in the backlog, its connections between two requests however briefly
/// idle too, down to its share, as many as clients wait; the others' idle connections are kept
/// until ``ConnectionWatch/othersKeptFor`` after a holder was last seen past its share (tester finding tester67b-F1: one
/// tenant's 170 keep-alive connections, each sending a request every 0.3 s, were never idle a
/// second, so none was closed for room, and the health check and every other tenant waited in
/// the backlog for as long as they ran).
///
/// Closed as any idle connection is, between requests with nothing unread, not by an answer's
/// `Connection: close`: closing after an answer while the client's next pipelined request
/// arrives resets the connection, and the client lost that answer though the journal had it as
/// sent (tester finding tester69a-F1). A request that comes in the moment of the close is not
/// answered, as after an idle timeout (HTTP clients retry one on their own).
extension ConnectionWatch {
    /// Closes idle `connection` (unless its worker moved it on from `phase`) to make room, as
    /// ``State/idleClosedForRoom``, unless bytes wait unread on it: a request its worker has not
    /// got to yet (busy sending others' answers), not an idle client (tester finding
    /// tester22b-F8: at the limit, 622 complete requests were closed unanswered, journaled as
    /// their client's hang-up). One FIONREAD. Under the lock.
    func closeIdleForRoom(_ connection: Connection, from phase: UInt64) -> Bool {
        guard catbird_socket_unread_bytes(connection.socket) <= 0 else { return false }
        return close(connection, from: phase, as: State.idleClosedForRoom, answer: nil)
    }

    /// How often connections idle for less than ``minimumIdleAge`` may be closed for room: at
    /// most one batch per 100 ms. The holder's clients reconnect at once and wait in the
    /// backlog themselves, behind those that waited before them, who get in with the batch.
    static let closingInterval: Duration = .milliseconds(100)

    /// How many connections past its share each holder has, for the holders past it (by
    /// ``Connection/holderKey``; connections with no request ended yet belong to none, and
    /// those closed are not counted): past `share` (``HTTPServer/slotShare(of:)``), and, while
    /// all holders together hold more than `allHolders` (``HTTPServer/slotsForAllHolders(of:)``,
    /// 7/8 of the slots) with each within its share, past the level that brings them within it,
    /// the holders holding most first (tester finding tester71a-F1: eight tenants each 5 past
    /// their share of 163 slots were brought down to 20 each, 160 in all, and a ninth tenant's
    /// 3 idle connections, well within its share, were the ones closed at every step).
    static func holdersOverShare(_ connections: Dictionary<ObjectIdentifier, Connection>.Values, share: Int, allHolders: Int = .max) -> [UInt64: Int] {
        var held: [UInt64: Int] = [:]
        for connection in connections {
            let key = connection.holderKey.load(ordering: .relaxed)
            guard key != 0, connection.phase.load(ordering: .relaxed) & State.mask < State.headTimedOut else { continue }
            held[key, default: 0] += 1
        }
        let within = held.mapValues { min($0, share) }
        let total = within.values.reduce(0, +)
        // The highest level each holder may keep so that all together hold `allHolders` at most
        // (a binary search over the level: what all keep below it grows with it).
        var level = share
        if total > allHolders {
            var (low, high) = (0, share)
            while low < high {
                let middle = (low + high + 1) / 2
                if within.values.reduce(0, { $0 + min($1, middle) }) <= allHolders { low = middle } else { high = middle - 1 }
            }
            level = low
        }
        return held.filter { $0.value > level }.mapValues { $0 - level }
    }

    /// Closes up to `count` connections idle now, after at least one request, of the holders in
    /// `overShare` (how many each has past its share, lowered as they close), longest idle
    /// first, none with bytes waiting unread (a request its worker has not read yet), and
    /// counts them (`keep_alive_over_share`). Under the lock; returns how many.
    func closeBrieflyIdle(
        in connections: [ObjectIdentifier: Connection], overShare: inout [UInt64: Int], count: Int, now: ContinuousClock.Instant
    ) -> Int {
        var candidates: [(connection: Connection, phase: UInt64, key: UInt64, idleFor: Duration)] = []
        for connection in connections.values {
            let key = connection.holderKey.load(ordering: .relaxed)
            guard let past = overShare[key], past > 0 else { continue }
            // Acquiring: its ``Connection/endedAt`` is then the one of the request that ended.
            let phase = connection.phase.load(ordering: .acquiring)
            guard phase & State.mask == State.idle, phase >> State.bits > 0 else { continue }
            candidates.append((connection, phase, key, connection.idleFor(phase, at: now)))
        }
        var closed = 0
        for candidate in candidates.sorted(by: { $0.idleFor > $1.idleFor }) where closed < count {
            guard let past = overShare[candidate.key], past > 0 else { continue }
            if closeIdleForRoom(candidate.connection, from: candidate.phase) {
                closed += 1
                overShare[candidate.key] = past - 1
            }
        }
        if closed > 0 {
            closingNotBefore.withLock { $0 = now + Self.closingInterval }
            counts.noteClosed(.keepAliveOverShare, count: closed)
        }
        return closed
    }
}
