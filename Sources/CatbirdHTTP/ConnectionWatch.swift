import CMicroHTTPD
import CatbirdSupport
import Foundation
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// Keeps slow and idle connections from holding the server (tester finding try8b F12: one
/// client held all ~20,000 connection slots with idle sockets, and a head trickled one byte per
/// 55 s was never timed out, since libmicrohttpd's idle timeout starts again with every byte).
///
/// libmicrohttpd 0.9.75 offers an idle timeout (`MHD_OPTION_CONNECTION_TIMEOUT`, per connection
/// `MHD_CONNECTION_OPTION_TIMEOUT`), a connection limit that refuses past it
/// (`MHD_OPTION_CONNECTION_LIMIT`) and a per-IP limit, which a CI fleet cannot use (its shards
/// and an nginx in front all come from 127.0.0.1); no deadline for a request's head and no way
/// to let idle connections go first. This watch adds both on its
/// `MHD_OPTION_NOTIFY_CONNECTION` record of each connection (``Connection``, the socket context):
/// - **Head deadline**: a request whose line arrived but whose header section is not complete
///   ``headTimeout`` later (seen on a tick, so within a ``tickInterval`` past it) gets a 408
///   (``slowHeadAnswer``) on its socket, which is then shut down; so does a connection that
///   received bytes of a request line for ``headTimeout`` without completing it (a trickled
///   request line, or one that stopped arriving; told by `TCP_INFO`, from the first tick that
///   sees the connection: on a connection with no request yet by the count of bytes it has
///   received, on one idle after a request by the time of its last received data; timed from
///   that tick, so also within a ``tickInterval`` past the deadline). No request exists for such
///   a line (libmicrohttpd calls nothing before the line ends): the connection's close tells
///   ``requestLineTimedOut`` (tester finding tester23b-F1: it was neither journaled, logged nor
///   counted, and its 408 came two to three seconds past the deadline, since bytes were first
///   looked for on a connection's third tick; tester24a-F2: a first line whose bytes came with
///   the opening was timed from its next byte, or never, when none came: left to the idle
///   timeout). On a keep-alive connection a line is told by its bytes' time against its last
///   request's end (``Connection/endedAt``), looked at from the first tick that sees it idle
///   (tester24a-F2 too: bytes sent within the second after an answer, then nothing, were never
///   told); bytes that came within ``kernelClockMargin`` of that end, or with the last request
///   (pipelined), cannot be told from its own: the idle timeout closes such a connection.
/// - **Stalled bodies**: a request whose body is under way and whose socket has received no
///   byte for ``headTimeout`` gets a 408 (``stalledBodyAnswer``) and is shut down, so that
///   what its body holds of the server's body budget is given back (tester finding try10b F2:
///   uploads that sent 2 bytes of a declared 50 MB held the budget for good). A slow upload
///   that keeps sending is never cut.
/// - **Unread answers**: a connection whose answer holds part of the server's body budget
///   (``HTTPResponse/budgetShare``: a forwarded answer, a control answer over 64 KiB, a HAR
///   export's page) or is larger than the socket buffers (a large mock answer), watched from
///   when it is queued, or any other answer, watched from the first tick that sees its request
///   answering for a second (pipelined small answers fill the socket too: tester finding
///   tester66b-F1), and whose
///   client has taken none of its bytes for ``headTimeout`` (up to 16 times that after large
///   bursts: ``UnreadAnswerProgress``) while bytes wait for it in the socket (told by
///   `TCP_INFO`'s count of bytes acknowledged and the socket's send queue, from the first tick
///   that sees the answer a second old) is shut down,
///   reset rather than left to send what it holds, so that its part goes back to the budget
///   (tester finding tester35a-F7: unread HAR exports held a small budget for libmicrohttpd's
///   120-s idle timeout, and every other tenant's large answers got 503 meanwhile). Bytes the
///   client acknowledges start the time again; its reads show only when they open its receive
///   window again (Linux: about half its receive buffer, some 129 KB on loopback; tester
///   finding tester37a-F1: a client reading 3 KB/s was cut); an answer with nothing waiting in the
///   socket (a HAR page being made) is not timed.
/// - **Room at the limit**: when the acceptor finds every slot taken, ``makeRoom(_:)`` closes
///   the connections idle longest (between requests, no request started; a keep-alive client
///   sees its idle connection closed, as after an idle timeout, and opens another), so new
///   clients, health checks and other tenants get in while idle sockets hold the slots; those
///   of a holder (tenant) past its share of the slots first, and, with clients waiting, its
///   briefly idle ones too (``ConnectionWatch+HolderShare``).
///
/// What a request pays: three relaxed atomic writes on its connection's record (request line
/// read, head complete, request done; the second a compare-and-swap), one atomic load when its
/// body ended (two compare-and-swaps more for a request with a body), one clock read and one
/// relaxed atomic write when it ended (``Connection/endedAt``) and one
/// `MHD_get_connection_info` call; the ticks run on a thread of their own.
final class ConnectionWatch: Sendable {
    /// How often the records are looked at: 1 s.
    static let tickInterval: Duration = .seconds(1)

    /// One TCP connection's record, kept in its socket context from its start to its close.
    ///
    /// `@unchecked Sendable`: ``phase`` is atomic; the other variables are read and written
    /// only under the watch's lock (by the tick and ``makeRoom(_:)``).
    final class Connection: @unchecked Sendable {
        let socket: Int32
        /// When libmicrohttpd took the connection.
        let opened = ContinuousClock.now
        /// The request's number on this connection (bits 3 up) and its state (bits 0-2,
        /// ``State``); written by the connection's worker, and by the watch when it closes it.
        let phase = Atomic<UInt64>(0)
        /// The phase the last tick saw, and since when it has seen it.
        var seenPhase = UInt64.max
        var seenSince = ContinuousClock.now
        /// When its last request ended (``requestEnded()``), in nanoseconds since ``opened``; 0
        /// before any did. Written by its worker before the phase says idle (a releasing
        /// compare-and-swap), read by the tick after an acquiring load of the phase saw it so.
        let endedAt = Atomic<Int64>(0)
        /// Since when a tick has seen request-line bytes arrive while no request started.
        var partialSince: ContinuousClock.Instant?
        /// When the watch closed it for a trickled request line (``State/lineTimedOut``): since
        /// when that line had been seen arriving (``partialSince`` then), for
        /// ``ConnectionWatch/requestLineTimedOut``.
        var lineSince: ContinuousClock.Instant?
        /// Since when its socket has received nothing, as the last tick that looked saw it
        /// (a connection whose body is under way).
        var quietSince: ContinuousClock.Instant?
        /// The 408 the watch wrote when it closed the connection, as written (nil: none, or not
        /// written whole): read by ``ConnectionWatch/writtenAnswer(of:)``.
        var written: WrittenAnswer?
        /// Its answer is watched for a client that takes none of it (``watchAnswer()``, until
        /// ``requestEnded()``): one holding part of the body budget, or larger than the socket buffers.
        let answerWatched = Atomic<Bool>(false)
        /// How its client takes that answer's bytes, as the ticks saw (``UnreadAnswerProgress``).
        var answerProgress = UnreadAnswerProgress()
        /// The bytes its client had acknowledged when its watched answer was queued (``watchAnswer()``).
        let answerStartAcked = Atomic<Int64>(0)
        /// For an answer its worker did not watch (``watchAnswer()``: a small one), the bytes its
        /// client had acknowledged when the first tick that saw it busy for a second looked;
        /// nil before (under the watch's lock; cleared with every phase change).
        var tickStartAcked: Int64?

        init(socket: Int32) {
            self.socket = socket
        }

        /// How long it has been idle as far as the ticks know (under the watch's lock): since it
        /// opened, when it never had a request; since a tick first saw it idle after one; 0
        /// when it is not idle, or its last request ended after the last tick.
        func idleAge(at now: ContinuousClock.Instant) -> Duration {
            let current = phase.load(ordering: .relaxed)
            guard current & State.mask == State.idle else { return .zero }
            if current >> State.bits == 0 { return now - opened }
            return current == seenPhase ? now - seenSince : .zero
        }

        /// How long ago, at `now`, it became idle in `phase` (an idle phase it was seen in after
        /// an acquiring load): since it opened when it never had a request, else since its last
        /// request ended (``endedAt``).
        func idleFor(_ phase: UInt64, at now: ContinuousClock.Instant) -> Duration {
            phase >> State.bits == 0 ? now - opened : now - (opened + .nanoseconds(endedAt.load(ordering: .relaxed)))
        }

        /// The request line was read: its head is under way.
        func requestStarted() {
            // Compare-and-swap, not a store: the watch may close the connection (idle, to make
            // room) between this thread's load and its write, and that must not be undone
            // (review of this change: the request was then served on a shut-down socket).
            var current = phase.load(ordering: .relaxed)
            while current & State.mask < State.headTimedOut {
                let (exchanged, found) = phase.compareExchange(
                    expected: current, desired: ((current >> State.bits) + 1) << State.bits | State.head, ordering: .relaxed)
                if exchanged { return }
                current = found
            }
        }

        /// The head is complete; false when the watch timed it out meanwhile (its 408 is on
        /// the way: close the connection, touch nothing of the request).
        func headCompleted() -> Bool {
            let current = phase.load(ordering: .relaxed)
            guard current & State.mask == State.head else { return current & State.mask < State.headTimedOut }
            return phase.compareExchange(
                expected: current, desired: current & ~State.mask | State.busy, ordering: .relaxed
            ).exchanged
        }

        /// Who holds its upload (the request's budget holder: its tenant), told when its body
        /// starts; nil: not known (no header names holders). Read by ``ConnectionWatch/makeRoom(_:slots:)``.
        let uploadHolder = Mutex<[UInt8]?>(nil)

        /// Whether the request whose body is under way is a `HEAD` (told by ``bodyStarted(holder:head:)``):
        /// the watch's 408 then goes out without its body (tester finding tester40b-F4).
        let headRequest = Atomic<Bool>(false)

        /// Its body is under way (the head declared one): watched for stalling until
        /// ``bodyEnded()``; `holder` is who holds it (``uploadHolder``); `head`: the request is a `HEAD`.
        func bodyStarted(holder: [UInt8]? = nil, head: Bool = false) {
            if let holder {
                uploadHolder.withLock { $0 = holder }
                // Its holder from now, not from its last request's end: a first request's upload
                // counts for its tenant's share of the slots (tester finding tester70a-F1: 175
                // uploads of one tenant, none ended, counted for no one, and another tenant's
                // idle connections within its share were closed for room).
                holderKey.store(ServerCore.holderKey(of: holder), ordering: .relaxed)
            }
            headRequest.store(head, ordering: .relaxed)
            let current = phase.load(ordering: .relaxed)
            guard current & State.mask == State.busy else { return }
            // Releasing: a tick of the watch, which loads the phase acquiring, sees `headRequest` too.
            _ = phase.compareExchange(expected: current, desired: current & ~State.mask | State.body, ordering: .releasing)
        }

        /// Its body arrived whole (or it had none); false when the watch closed the connection
        /// meanwhile (its 408 is on the way: close, touch nothing of the request).
        func bodyEnded() -> Bool {
            var current = phase.load(ordering: .relaxed)
            while current & State.mask == State.body {
                let (exchanged, found) = phase.compareExchange(
                    expected: current, desired: current & ~State.mask | State.busy, ordering: .relaxed)
                if exchanged { return true }
                current = found
            }
            return current & State.mask < State.headTimedOut
        }

        /// Its answer, queued now, holds part of the body budget or is larger than the socket
        /// buffers (``HTTPResponse/outlastsSocketBuffers``): watched for a client that takes none
        /// of it (the connection's worker).
        func watchAnswer() {
            var acked: Int64 = -1
            _ = catbird_socket_answer_progress(socket, &acked)
            answerStartAcked.store(max(0, acked), ordering: .relaxed)
            answerWatched.store(true, ordering: .relaxed)
        }

        /// Who held its last request (``ServerCore/holderKey(of:)``: its tenant, as a key); 0
        /// before a request ended or an upload started, or when no header names holders. Written
        /// by its worker when a request ends (before the phase says idle) and when its upload
        /// starts (``bodyStarted(holder:head:)``), read by
        /// ``ConnectionWatch/makeRoom(_:slots:clientsWaiting:)`` under the lock.
        let holderKey = Atomic<UInt64>(0)

        /// The request is done (its answer sent, or the connection closing); `holder` is who held
        /// it (``holderKey``). The state the watch closed it in (``State/headTimedOut``,
        /// ``State/bodyStalled``, ``State/closedIdle``), or ``State/idle`` when it did not.
        func requestEnded(holder: UInt64 = 0) -> UInt64 {
            let ended = ContinuousClock.now - opened
            endedAt.store(ended.nanoseconds, ordering: .relaxed)
            holderKey.store(holder, ordering: .relaxed)
            answerWatched.store(false, ordering: .relaxed)
            var current = phase.load(ordering: .relaxed)
            while current & State.mask < State.headTimedOut {
                let (exchanged, found) = phase.compareExchange(
                    expected: current, desired: current & ~State.mask | State.idle, ordering: .releasing)
                if exchanged { return State.idle }
                current = found
            }
            return current & State.mask
        }
    }

    /// A connection's states (``Connection/phase``'s low bits).
    enum State {
        static let bits: UInt64 = 4
        static let mask: UInt64 = 15
        /// Between requests (or none yet).
        static let idle: UInt64 = 0
        /// The request line was read, the header section not yet.
        static let head: UInt64 = 1
        /// The head is complete, its body under way.
        static let body: UInt64 = 2
        /// The head (and body) complete: its answer.
        static let busy: UInt64 = 3
        /// Closed by the watch for its slow head (408 sent). This and the states after it are
        /// closed ones.
        static let headTimedOut: UInt64 = 4
        /// Closed by the watch to make room, or because its client had closed its side.
        static let closedIdle: UInt64 = 5
        /// Closed by the watch because its body stopped arriving (408 sent).
        static let bodyStalled: UInt64 = 6
        /// Closed by the watch to make room while its body had stopped arriving (408 sent).
        static let bodyClosedForRoom: UInt64 = 7
        /// Closed by the watch for a request line trickled in past the head deadline, no request
        /// started (408 sent): told when the connection closes (``ConnectionWatch/closed(_:)``).
        static let lineTimedOut: UInt64 = 8
        /// Closed by the watch because its client took none of an answer holding part of the
        /// body budget for ``ConnectionWatch/headTimeout`` (nothing written: reset).
        static let answerUnread: UInt64 = 9
        /// Closed by the watch to make room while its head had been under way for a second or
        /// longer (408 sent).
        static let headClosedForRoom: UInt64 = 10
        /// Closed by the watch to make room while its client had taken none of its answer's
        /// bytes for ``ConnectionWatch/unreadAnswerRoomAge`` (nothing written: reset).
        static let answerClosedForRoom: UInt64 = 11
        /// Closed by the watch to make room while its body was still arriving, its holder having
        /// more than its share of the slots in uploads under way (408 sent).
        static let uploadClosedOverShare: UInt64 = 12
        /// Closed by the watch to make room while idle between two requests (nothing written);
        /// a request that arrived just then ends as ``HTTPRequestEnding/idleClosedForRoom``.
        static let idleClosedForRoom: UInt64 = 13
    }

    /// The most connections in uploads under way one holder keeps when the watch makes room, of
    /// `slots` connection slots: its share of them (``HTTPServer/slotShare(of:)``, as a tenant's parked requests).
    static func uploadShare(slots: Int) -> Int { HTTPServer.slotShare(of: slots) }

    /// How long a watched answer's client must have taken none of its bytes before its
    /// connection may be closed to make room: 5 s. Longer than for a stalled body or head: the
    /// server sees a client's reads only when they open its TCP receive window again, in steps
    /// of about 129 KB on loopback, so a slow reader may show none for seconds.
    static let unreadAnswerRoomAge: Duration = .seconds(5)

    /// How long a request's head may take from its request line; nil: no deadline.
    let headTimeout: Duration?
    /// The 408 written to a connection whose head timed out (`Connection: close` added).
    let slowHeadAnswer: HTTPResponse
    /// The 408 written to a connection whose body stopped arriving (`Connection: close` added).
    let stalledBodyAnswer: HTTPResponse
    /// The 408 written to an upload closed for room past its holder's share (`Connection: close` added).
    let uploadOverShareAnswer: HTTPResponse
    /// Told, on the closing connection's worker thread, of a connection closed for a request
    /// line trickled in past ``headTimeout`` (``State/lineTimedOut``): since when its bytes were
    /// seen arriving (the first tick that saw them), and the 408 as written (nil: not written
    /// whole). Must not block.
    let requestLineTimedOut: (@Sendable (_ since: ContinuousClock.Instant, _ written: WrittenAnswer?) -> Void)?
    private let connections = Mutex<[ObjectIdentifier: Connection]>([:])
    private let stopping = Atomic<Bool>(false)
    /// The most connections open at once since the heap was last trimmed
    /// (``giveBackClosedConnectionsMemory()``); written under the lock.
    private let mostOpenSinceTrim = Atomic<Int>(0)
    /// When ``closeBrieflyIdle(in:overShare:count:now:)`` may close connections again:
    /// ``closingInterval`` after it last did (taken under the lock of ``connections``).
    let closingNotBefore = Mutex<ContinuousClock.Instant>(.now)
    /// Until when ``makeRoom(_:slots:clientsWaiting:)`` keeps the idle connections of holders
    /// within their share: ``othersKeptFor`` after it last saw a holder past its share.
    let othersKeptUntil = Mutex<ContinuousClock.Instant>(.now)
    /// How long after a holder was last seen past its share the other holders' idle
    /// connections are kept: 2 s, the time its reopened connections take to send a request.
    static let othersKeptFor: Duration = .seconds(2)
    /// Connections closed by ``makeRoom(_:)`` and by the head deadline, since the start (for
    /// tests and the log).
    let closedIdle = Atomic<Int>(0)
    let closedSlow = Atomic<Int>(0)
    /// Connections open now and those closed here, by why, for metrics.
    let counts: HTTPConnectionCounts

    init(
        headTimeout: Duration?, slowHeadAnswer: HTTPResponse, stalledBodyAnswer: HTTPResponse,
        uploadOverShareAnswer: HTTPResponse = HTTPResponse(status: 408),
        counts: HTTPConnectionCounts = HTTPConnectionCounts(),
        requestLineTimedOut: (@Sendable (_ since: ContinuousClock.Instant, _ written: WrittenAnswer?) -> Void)? = nil
    ) {
        self.headTimeout = headTimeout
        self.counts = counts
        self.requestLineTimedOut = requestLineTimedOut
        var answer = slowHeadAnswer
        answer.headers.add(name: "Connection", value: "close")
        self.slowHeadAnswer = answer
        answer = stalledBodyAnswer
        answer.headers.add(name: "Connection", value: "close")
        self.stalledBodyAnswer = answer
        answer = uploadOverShareAnswer
        answer.headers.add(name: "Connection", value: "close")
        self.uploadOverShareAnswer = answer
    }

    /// Starts the tick thread (ended by ``stop()``; an `HTTPServer` is started once).
    func start() {
        let thread = Thread.named("catbird-conns") { [self] in
            while !stopping.load(ordering: .relaxed) {
                Thread.sleep(forTimeInterval: Self.tickInterval.timeInterval)
                tick()
            }
        }
        thread.start()
    }

    func stop() {
        stopping.store(true, ordering: .relaxed)
    }

    /// A connection started (its worker, `MHD_CONNECTION_NOTIFY_STARTED`): its record, retained
    /// for the socket context.
    func opened(socket: Int32) -> UnsafeMutableRawPointer {
        let connection = Connection(socket: socket)
        connections.withLock { connections in
            connections[ObjectIdentifier(connection)] = connection
            // The most open since the last trim, seen by every opening (a tick may miss a burst).
            if connections.count > mostOpenSinceTrim.load(ordering: .relaxed) { mostOpenSinceTrim.store(connections.count, ordering: .relaxed) }
        }
        counts.connectionOpened()
        return Unmanaged.passRetained(connection).toOpaque()
    }

    /// A connection closed (`MHD_CONNECTION_NOTIFY_CLOSED`, before libmicrohttpd closes its
    /// socket: under the lock, no tick shuts down a descriptor reused since). One the watch
    /// closed for a trickled request line is told to ``requestLineTimedOut`` (after the lock):
    /// no request was started on it, so nothing else reports it; a request whose line ended just
    /// as the watch closed it (``Connection/requestStarted()`` then changes nothing) is not
    /// reported by its own completion (``ServerCore/requestCompleted``), so it is told once.
    func closed(_ record: UnsafeMutableRawPointer) {
        let connection = Unmanaged<Connection>.fromOpaque(record).takeRetainedValue()
        let line = connections.withLock { connections -> (since: ContinuousClock.Instant, written: WrittenAnswer?)? in
            connections.removeValue(forKey: ObjectIdentifier(connection))
            guard connection.phase.load(ordering: .relaxed) & State.mask == State.lineTimedOut else { return nil }
            return (connection.lineSince ?? connection.opened, connection.written)
        }
        counts.connectionClosed()
        if let line { requestLineTimedOut?(line.since, line.written) }
    }

    /// The record of `connection` (its socket context), or nil.
    static func record(of connection: OpaquePointer) -> Unmanaged<Connection>? {
        catbird_mhd_socket_context(connection).map { Unmanaged<Connection>.fromOpaque($0) }
    }

    /// How much coarser than ours the kernel's clock of a socket's last receive may be
    /// (`TCP_INFO` counts in jiffies, 1 to 10 ms): 20 ms.
    static let kernelClockMargin: Duration = .milliseconds(20)

    /// Connections idle for less than this are never closed to make room: 1 s, so that a
    /// client between two requests of a burst, or one that just connected and is sending its
    /// first request, keeps its connection.
    static let minimumIdleAge: Duration = .seconds(1)

    /// Closes up to `count` of the connections idle longest (``Connection/idleAge(at:)``, at
    /// least ``minimumIdleAge``), longest first; while a holder has more than its share of the
    /// `slots` (``holdersOverShare(_:share:)``), only its connections, and when
    /// `clientsWaiting` (in the backlog) its connections idle for less than that too, down to
    /// its share, as many as clients wait (``closeBrieflyIdle(in:overShare:count:now:)``, at
    /// most once per ``closingInterval``); none with bytes waiting unread
    /// (`catbird_socket_unread_bytes`: a request not read yet); when there are not that many, then the
    /// connections whose body has received nothing for longest (at least ``minimumIdleAge``,
    /// as the ticks saw), which get the ``stalledBodyAnswer`` (tester finding try10b F5:
    /// 19,990 connections each holding an unfinished 1,000-byte body, a byte now and then,
    /// locked every tenant and the health check out, since a connection "at work" was never
    /// closed for room), and those whose head has been under way longest (at least
    /// ``minimumIdleAge``, as the ticks saw, whether its bytes stopped or trickle: a head is
    /// one packet or a few), which get the ``slowHeadAnswer`` (tester finding tester40b-F3: 300
    /// connections each holding an unfinished head, stopped or a byte a second, locked every
    /// tenant and the health check out until the head deadline, 30 s). Returns how many.
    /// Called by the acceptor when every slot is taken.
    func makeRoom(_ count: Int, slots: Int = .max, clientsWaiting: Int = 0) -> Int {
        let now = ContinuousClock.now
        return connections.withLock { connections in
            var overShare = slots == .max
                ? [:] : Self.holdersOverShare(connections.values, share: HTTPServer.slotShare(of: slots), allHolders: HTTPServer.slotsForAllHolders(of: slots))
            var idle: [(connection: Connection, age: Duration, phase: UInt64)] = []
            var stalled: [(connection: Connection, age: Duration, phase: UInt64)] = []
            var unread: [(connection: Connection, age: Duration, phase: UInt64)] = []
            for connection in connections.values {
                let phase = connection.phase.load(ordering: .relaxed)
                let age = connection.idleAge(at: now)
                if age >= Self.minimumIdleAge {
                    idle.append((connection, age, phase))
                } else if phase & State.mask == State.body, phase == connection.seenPhase, let quietSince = connection.quietSince,
                          now - quietSince >= Self.minimumIdleAge {
                    stalled.append((connection, now - quietSince, phase))
                } else if phase & State.mask == State.head, phase == connection.seenPhase, now - connection.seenSince >= Self.minimumIdleAge {
                    stalled.append((connection, now - connection.seenSince, phase))
                } else if phase & State.mask == State.busy, phase == connection.seenPhase, let since = connection.answerProgress.since,
                          now - since >= Self.unreadAnswerRoomAge {
                    unread.append((connection, now - since, phase))
                }
            }
            var closed = 0
            // The idle connections of holders past their share first; while one is past it,
            // the others' are kept (tester finding tester67b-F1: another tenant's one
            // connection, idle a few seconds between two test steps, was closed before any of
            // theirs); with clients waiting, their connections idle between two requests for
            // less than a second go too (``closeBrieflyIdle(in:overShare:count:now:)``).
            // Kept a while after a holder was seen past its share: the connections its clients
            // open again belong to no one until their first request ends, and the others' idle
            // ones would go meanwhile (a regression test's run: another tenant's idle
            // connection was closed right after a batch of the busy tenant's).
            let someonePastShare = othersKeptUntil.withLock { until in
                if !overShare.isEmpty { until = now + Self.othersKeptFor }
                return now < until
            }
            let pastShareFirst = idle.sorted { first, second in
                let firstPast = overShare[first.connection.holderKey.load(ordering: .relaxed)] != nil
                let secondPast = overShare[second.connection.holderKey.load(ordering: .relaxed)] != nil
                return firstPast != secondPast ? firstPast : first.age > second.age
            }
            for candidate in pastShareFirst where closed < count {
                let key = candidate.connection.holderKey.load(ordering: .relaxed)
                if someonePastShare, overShare[key].map({ $0 <= 0 }) ?? true { break }
                if closeIdleForRoom(candidate.connection, from: candidate.phase) {
                    closed += 1
                    overShare[key]? -= 1
                }
            }
            var brief = 0
            if !overShare.isEmpty, clientsWaiting > 0, now >= closingNotBefore.withLock({ $0 }) {
                // As many as clients wait, up to a share a batch: the holder's own clients,
                // reconnecting, wait too (tester finding tester70a-F4: one tenant's 200
                // connections, with only its own clients waiting, were closed 5,433 times in 20 s).
                let batch = min(clientsWaiting, HTTPServer.slotShare(of: slots))
                brief = closeBrieflyIdle(in: connections, overShare: &overShare, count: max(count - closed, batch), now: now)
            }
            closedIdle.add(closed, ordering: .relaxed)
            counts.noteClosed(.idleForRoom, count: closed)
            closed += brief  // counted by ``closeBrieflyIdle(in:overShare:count:now:)``
            var cut = 0
            for candidate in stalled.sorted(by: { $0.age > $1.age }) where closed + cut < count {
                if candidate.phase & State.mask == State.head {
                    if close(candidate.connection, from: candidate.phase, as: State.headClosedForRoom, answer: slowHeadAnswer) { cut += 1 }
                    continue
                }
                // Quiet as measured now, not projected from the last tick (review: bytes that came
                // since it would be missed, and an upload sending all along looked quiet): one
                // `TCP_INFO` read per connection about to be closed.
                let quietMs = catbird_socket_ms_since_data_received(candidate.connection.socket, nil, nil)
                guard quietMs >= 0, .milliseconds(quietMs) >= Self.minimumIdleAge else { continue }
                if close(candidate.connection, from: candidate.phase, as: State.bodyClosedForRoom, answer: stalledBodyAnswer) { cut += 1 }
            }
            for candidate in unread.sorted(by: { $0.age > $1.age }) where closed + cut < count {
                // Still nothing taken, as measured now (one `TCP_INFO` and one `SIOCOUTQ` read).
                var acked: Int64 = -1
                let waiting = catbird_socket_answer_progress(candidate.connection.socket, &acked)
                guard waiting > 0, acked == candidate.connection.answerProgress.acked else { continue }
                if close(candidate.connection, from: candidate.phase, as: State.answerClosedForRoom, answer: nil) { cut += 1 }
            }
            if closed + cut < count, slots != .max {
                cut += closeUploadsOverShare(in: connections, count: count - closed - cut, slots: slots, now: now)
            }
            closedSlow.add(cut, ordering: .relaxed)
            return closed + cut
        }
    }

    /// Closes up to `count` connections whose body is still arriving (under way for at least
    /// ``minimumIdleAge``, as the ticks saw, whether bytes trickle or not) of holders that have
    /// more than ``uploadShare(slots:)`` of them, each holder's longest under way first, down to
    /// its share; they get the ``uploadOverShareAnswer``. A holder within its share keeps its
    /// uploads (tester finding tester41a-F5: one tenant's 400 uploads sending a byte every half
    /// second held every slot, and other tenants and the health check waited as long as they
    /// trickled). Under the lock.
    private func closeUploadsOverShare(
        in connections: [ObjectIdentifier: Connection], count: Int, slots: Int, now: ContinuousClock.Instant
    ) -> Int {
        var byHolder: [[UInt8]: [(connection: Connection, phase: UInt64)]] = [:]
        for connection in connections.values {
            let phase = connection.phase.load(ordering: .relaxed)
            guard phase & State.mask == State.body, phase == connection.seenPhase, now - connection.seenSince >= Self.minimumIdleAge,
                  let holder = connection.uploadHolder.withLock({ $0 })
            else { continue }
            byHolder[holder, default: []].append((connection, phase))
        }
        let share = Self.uploadShare(slots: slots)
        var cut = 0
        var left: [[UInt8]: [(connection: Connection, phase: UInt64)]] = [:]
        for (holder, uploads) in byHolder {
            let oldestFirst = uploads.sorted(by: { $0.connection.seenSince < $1.connection.seenSince })
            left[holder] = Array(oldestFirst.suffix(min(share, oldestFirst.count)))
            for candidate in oldestFirst.prefix(max(0, uploads.count - share)) where cut < count {
                if close(candidate.connection, from: candidate.phase, as: State.uploadClosedOverShare, answer: uploadOverShareAnswer) {
                    cut += 1
                }
            }
        }
        // All holders together within theirs too (tester finding tester52c-F1: nine tenants with
        // 12 trickling uploads each, every one within its share, took all 107 slots, and the
        // health check and every other tenant waited as long as they trickled): past it, the
        // oldest upload of the holder with the most is closed, one at a time.
        var total = left.values.reduce(0) { $0 + $1.count }
        let allowed = HTTPServer.slotsForAllHolders(of: slots)
        while total > allowed, cut < count, let holder = left.max(by: { $0.value.count < $1.value.count })?.key,
              let oldest = left[holder]?.first {
            left[holder]?.removeFirst()
            total -= 1
            if close(oldest.connection, from: oldest.phase, as: State.uploadClosedOverShare, answer: uploadOverShareAnswer) { cut += 1 }
        }
        return cut
    }

    /// One look at every record: notes phase changes, times out slow heads, trickled request
    /// lines and bodies that stopped arriving, and notes since when bodies receive nothing (for
    /// ``makeRoom(_:)``). The `TCP_INFO` reads (one syscall per connection seen idle with no
    /// request line under way, from the first tick that sees it idle: for a keep-alive connection
    /// one tick earlier than before tester24a-F2's change, so one more per idle spell, and a
    /// connection served between every two ticks costs at most what an idle one costs; one per
    /// connection in its body for a second; none for one seen working) are made outside the
    /// lock, which the workers take for every connection they open or close (review of try8b F12's change:
    /// with 20,000 idle sockets each accept waited behind 20,000 getsockopt calls once a
    /// second); closing stays under it (``closed(_:)``).
    private func tick() {
        let now = ContinuousClock.now
        var answering: [(connection: Connection, phase: UInt64)] = []
        giveBackClosedConnectionsMemory()
        let quiet = connections.withLock { connections in
            var asked: [(connection: Connection, phase: UInt64, seenFor: Duration, firstLook: Bool)] = []
            for connection in connections.values {
                guard !noteChange(connection, at: now) else {
                    // A connection seen idle for the first time (new with no request yet, or its
                    // last request ended since the last tick): asked at once whether bytes of a
                    // request line came since it became idle (known exactly: its opening, or
                    // ``Connection/endedAt``), so that a line is timed from this tick.
                    let phase = connection.seenPhase
                    if headTimeout != nil, phase & State.mask == State.idle {
                        asked.append((connection, phase, connection.idleFor(phase, at: now), true))
                    }
                    continue
                }
                let phase = connection.phase.load(ordering: .acquiring)
                let seenFor = now - connection.seenSince
                switch phase & State.mask {
                case State.body where seenFor >= Self.minimumIdleAge:
                    asked.append((connection, phase, seenFor, false))
                case State.busy where headTimeout != nil && seenFor >= Self.minimumIdleAge:
                    // Every answer, not only those its worker watched: pipelined requests for
                    // answers under 64 KiB that the client never reads fill the socket just as
                    // one large answer does (tester finding tester66b-F1: 200 connections of 10
                    // such requests each held every slot for the 120-s idle timeout, and the
                    // health check and every other tenant waited). An answer still being made
                    // (a delay, a long poll, a query) has nothing waiting in the socket and is
                    // not timed.
                    answering.append((connection, phase))
                case State.head:
                    guard let headTimeout, seenFor >= headTimeout else { continue }
                    if close(connection, from: phase, as: State.headTimedOut, answer: slowHeadAnswer) { closedSlow.add(1, ordering: .relaxed) }
                case State.idle:
                    // Idle since the last tick at least: asked whether its client sent its end of
                    // stream (``closeIfPeerClosed``) and whether bytes of a request line came;
                    // once they did, timed out ``headTimeout`` after the tick that saw them.
                    guard let headTimeout, let partialSince = connection.partialSince else {
                        asked.append((connection, phase, connection.idleFor(phase, at: now), false))
                        continue
                    }
                    // Not while bytes wait unread (one FIONREAD per line past its deadline): a
                    // line its busy worker has not read yet, maybe a whole request, is no client's
                    // trickle (as in ``closeIfPeerClosed``); the next tick looks again.
                    if now - partialSince >= headTimeout, catbird_socket_unread_bytes(connection.socket) == 0,
                       close(connection, from: phase, as: State.lineTimedOut, answer: slowHeadAnswer) {
                        connection.lineSince = partialSince
                        closedSlow.add(1, ordering: .relaxed)
                    }
                default:
                    continue
                }
            }
            return asked
        }
        if !answering.isEmpty { lookAtAnswers(answering, at: now) }
        guard !quiet.isEmpty else { return }
        // How long each socket has received nothing. A socket closed meanwhile (its descriptor
        // perhaps reused) has lost its record: its answer is not used.
        let found = quiet.map { candidate in
            var peerClosed: Int32 = 0
            var received: Int64 = -1
            let quietMs = catbird_socket_ms_since_data_received(candidate.connection.socket, &peerClosed, &received)
            return (candidate, quietMs, peerClosed != 0, received)
        }
        connections.withLock { connections in
            for (candidate, quietMs, peerClosed, received) in found where quietMs >= 0 && connections[ObjectIdentifier(candidate.connection)] != nil {
                let connection = candidate.connection
                guard connection.phase.load(ordering: .relaxed) == candidate.phase else { continue }
                let quietFor = Duration.milliseconds(quietMs)
                let sinceOpening = candidate.phase >> State.bits == 0
                if candidate.phase & State.mask == State.idle {
                    // An end of stream is acted on from the second tick that sees a keep-alive
                    // connection idle, as before (its worker may be between two pipelined
                    // requests it already read).
                    if peerClosed {
                        if sinceOpening || !candidate.firstLook { closeIfPeerClosed(connection, from: candidate.phase) }
                        continue
                    }
                    // Bytes received since it became idle: a request line under way. When it
                    // had no request, any byte it ever received is one (the kernel's count of
                    // them; tester finding tester24a-F2: told by time instead, from the opening
                    // less a margin for the kernel's coarser clock, a line whose first bytes
                    // came with the opening was not seen until a later byte, or, sent in one
                    // write and then left, never); a kernel without that count falls back to
                    // the time. Else bytes whose last came more than that margin after its last
                    // request ended (`seenFor` counts from that end; bytes before it may be
                    // that request's).
                    let lineArrived =
                        if sinceOpening, received >= 0 { received > 0 } else { quietFor + Self.kernelClockMargin < candidate.seenFor }
                    if headTimeout != nil, connection.partialSince == nil, lineArrived {
                        connection.partialSince = now
                    }
                    continue
                }
                connection.quietSince = now - quietFor
                if let headTimeout, quietFor >= headTimeout,
                   close(connection, from: candidate.phase, as: State.bodyStalled, answer: stalledBodyAnswer) {
                    closedSlow.add(1, ordering: .relaxed)
                }
            }
        }
    }

    /// Gives the heap's free pages back to the system (``HeapTrim``) once at least
    /// ``trimAfterClosing`` connections have closed since the most open at once since the last
    /// time. Each connection takes its 32 KiB of libmicrohttpd memory from the heap, and
    /// glibc keeps freed blocks among live ones (tester finding tester66b-F3: 12,000 keep-alive
    /// connections took the server from 45 to 444 MB resident, still 438 MB after they closed).
    /// On the tick's thread, never a worker's: a trim walks the heap (milliseconds).
    private func giveBackClosedConnectionsMemory() {
        let due = connections.withLock { connections in
            guard mostOpenSinceTrim.load(ordering: .relaxed) - connections.count >= Self.trimAfterClosing else { return false }
            mostOpenSinceTrim.store(connections.count, ordering: .relaxed)
            return true
        }
        if due { HeapTrim.giveBack() }
    }

    /// Connections that must have closed since the most open before a tick gives their memory
    /// back: 1,000 (some 32 MB of libmicrohttpd's connection memory).
    static let trimAfterClosing = 1_000

    /// Shuts down each of `answering` (connections answering a request, seen in the same phase
    /// for a second) whose client has taken none of the bytes waiting
    /// for it in the socket for ``headTimeout`` (``State/answerUnread``). One `TCP_INFO` read and
    /// one `SIOCOUTQ` per connection, outside the lock.
    private func lookAtAnswers(_ answering: [(connection: Connection, phase: UInt64)], at now: ContinuousClock.Instant) {
        let found = answering.map { candidate in
            var acked: Int64 = -1
            let waiting = catbird_socket_answer_progress(candidate.connection.socket, &acked)
            return (candidate, acked, waiting)
        }
        connections.withLock { connections in
            for (candidate, acked, waiting) in found where waiting >= 0 && acked >= 0 && connections[ObjectIdentifier(candidate.connection)] != nil {
                let connection = candidate.connection
                guard connection.phase.load(ordering: .relaxed) == candidate.phase else { continue }
                let startAcked: Int64
                if connection.answerWatched.load(ordering: .relaxed) {
                    startAcked = connection.answerStartAcked.load(ordering: .relaxed)
                } else {
                    // Watched from this tick on: its client's bytes counted from now.
                    let first = connection.tickStartAcked ?? acked
                    connection.tickStartAcked = first
                    startAcked = first
                }
                if let headTimeout,
                   connection.answerProgress.look(acked: acked, waiting: Int64(waiting), startAcked: startAcked, at: now, headTimeout: headTimeout),
                   close(connection, from: candidate.phase, as: State.answerUnread, answer: nil) {
                    closedSlow.add(1, ordering: .relaxed)
                }
            }
        }
    }

    /// Closes idle `connection` (unless its worker moved it on from `phase` meanwhile) whose
    /// client has sent its end of stream: its socket is in `CLOSE_WAIT`, yet libmicrohttpd
    /// 0.9.75 holds it open. That library polls a connection edge-triggered and takes a read
    /// shorter than its buffer for "nothing more to read", so a FIN that arrived with the
    /// request's last bytes (a client that sends its request and at once shuts down its sending
    /// side, `nc -N`, RFC 9112 section 9.6) raises no event after that read: the answer was sent
    /// and the client, reading until the server closes, waited out the idle timeout (120 s by
    /// default; a clean-clone CI run's `HalfClosedClientTests` waited 8 s for it). Now such a
    /// connection is shut down on the first tick that sees it idle since the tick before (within
    /// two ``tickInterval``s of its answer); libmicrohttpd then reads its end and closes it. Not
    /// counted as closed for room or for slowness. Not when bytes wait unread before the end: a
    /// request its busy worker has not read yet (as in ``makeRoom(_:)``; a new connection is
    /// looked at from its first tick, tester23b-F1's change). Under the lock.
    private func closeIfPeerClosed(_ connection: Connection, from phase: UInt64) {
        guard catbird_socket_unread_bytes(connection.socket) == 0 else { return }
        _ = close(connection, from: phase, as: State.closedIdle, answer: nil)
    }

    /// Notes a phase `connection` was not seen in before (under the lock); true when it changed.
    @discardableResult
    private func noteChange(_ connection: Connection, at now: ContinuousClock.Instant) -> Bool {
        let phase = connection.phase.load(ordering: .acquiring)
        guard phase != connection.seenPhase else { return false }
        connection.seenPhase = phase
        connection.seenSince = now
        connection.partialSince = nil
        connection.quietSince = nil
        connection.answerProgress = UnreadAnswerProgress()
        connection.tickStartAcked = nil
        return true
    }

    /// Marks `connection` closed (unless its worker moved it on from `phase` meanwhile), writes
    /// `answer` (a 408) when given and the socket has nothing else to send, and shuts the
    /// socket down: libmicrohttpd then reads its end and closes the connection. Under the lock.
    func close(_ connection: Connection, from phase: UInt64, as state: UInt64, answer: HTTPResponse?) -> Bool {
        guard connection.phase.compareExchange(expected: phase, desired: phase & ~State.mask | state, ordering: .relaxed).exchanged
        else { return false }
        if let reason = Self.closeReason(state) { counts.noteClosed(reason) }
        let socket = connection.socket
        guard let answer else {
            if state == State.answerUnread {
                // Reset when closed: what the socket holds for a client that takes nothing is
                // dropped, not kept by the kernel for retries.
                var abort = linger(l_onoff: 1, l_linger: 0)
                setsockopt(socket, SOL_SOCKET, SO_LINGER, &abort, socklen_t(MemoryLayout<linger>.size))
            }
            shutdown(socket, Int32(SHUT_RDWR))
            return true
        }
        // What the client sent and libmicrohttpd did not read: dropped, so that closing does
        // not reset the connection before the client reads the 408.
        var scratch = [UInt8](repeating: 0, count: 4096)
        for _ in 0..<16 {
            let read = scratch.withUnsafeMutableBytes { recv(socket, $0.baseAddress, $0.count, Int32(MSG_DONTWAIT)) }
            if read <= 0 { break }
        }
        let headOnly = (state == State.bodyStalled || state == State.bodyClosedForRoom || state == State.uploadClosedOverShare)
            && connection.headRequest.load(ordering: .relaxed)
        connection.written = ServerCore.send(answer, andShutDown: socket, headOnly: headOnly)
        return true
    }

    /// The metric's reason for closing as `state`; nil for ``State/closedIdle`` (to make room,
    /// counted by ``makeRoom(_:slots:)``, or after the client's end of stream, not counted).
    private static func closeReason(_ state: UInt64) -> HTTPConnectionCounts.CloseReason? {
        switch state {
        case State.headTimedOut, State.lineTimedOut: .headTimedOut
        case State.bodyStalled: .bodyStalled
        case State.bodyClosedForRoom: .bodyForRoom
        case State.answerUnread: .answerUnread
        case State.headClosedForRoom: .headForRoom
        case State.answerClosedForRoom: .answerUnreadForRoom
        case State.uploadClosedOverShare: .uploadOverShare
        default: nil
        }
    }

    /// The 408 written when the watch closed `connection` (``Connection/written``), for the
    /// request's ending (``HTTPRequestEnding``): asked once ``Connection/requestEnded()`` told
    /// that the watch closed it, and taken under the lock that ``close(_:from:as:answer:)``
    /// holds from marking the connection closed until the answer is written, so it is there.
    func writtenAnswer(of connection: Unmanaged<Connection>) -> WrittenAnswer? {
        connections.withLock { _ in connection._withUnsafeGuaranteedRef { $0.written } }
    }
}
