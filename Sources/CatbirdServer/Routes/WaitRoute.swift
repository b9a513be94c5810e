import CatbirdDomain
import CatbirdHTTP
import CatbirdMatching
import CatbirdSupport
@_spi(Server) import CatbirdWire
import Synchronization

/// `POST /catbird/api/requests/wait` with `{"pattern": RequestPattern, "timeout": seconds,
/// "since": id}` (docs/protocol.md#waiting-for-a-request): answers the first journal entry of
/// the caller's tenant after `since` that matches the pattern, as soon as there is one; `408`
/// listing what did arrive when `timeout` passes first. The connection is parked meanwhile
/// (docs/answering-later.md): no worker thread waits; each look at the journal runs in the
/// tenant's turn on the slow control lane (a look matches the pattern, which may be a slow
/// regexp; docs/tenancy.md#fair-shares), one of the tenant's looks at a time (``SerialLooks``:
/// its parked waits hold at most one of its slow threads), and between looks a journal waiter
/// (``JournalWaiters``) holds the request. A wait is not counted among the tenant's admitted
/// slow calls: it holds no thread between looks.
enum WaitRoute {
    /// The longest wait accepted, in seconds.
    static let maxTimeout = 300.0
    /// How long a wait may take when the body gives no timeout, in seconds.
    static let defaultTimeout = 5.0
    /// How long past its timeout a wait may wait for the journal writer to store the tenant's
    /// requests answered before it: a healthy writer's commit takes milliseconds, so `timeout:
    /// 0` right after a request still sees it (read your writes); a writer held by a busy file
    /// (its transaction waits up to 5 s) makes the wait answer 503 at most this long after its
    /// timeout (``RequestWaitUnsettled``).
    static let writerGrace: Duration = .seconds(1)
    /// How many arrived entries a timeout's reason lists.
    static let listedArrivals = 20
    /// How many characters of each arrived entry's URL a timeout's reason shows.
    static let shownURLCharacters = 200

    /// Throws a 400 when `since` is above every entry id the database has issued
    /// (``Journal/newestIssuedID()``): no entry can ever come after it, so the wait could only
    /// time out, its 408 saying nothing arrived while matching requests did (tester finding
    /// tester27a-F2: a `since` kept across a restart on a fresh database). Ids are issued as
    /// rows are written, so the entries not yet written count as issued (read your writes): the
    /// id of a request answered a moment ago is one (tester finding tester54c-F3: refused 30
    /// times in 30 right after its request, the reason saying the id was never issued). Counted,
    /// not waited for: the wait's own bound on the writer holds (tester finding tester55b-F1: a
    /// stuck writer held this check 5 s).
    /// - Throws: `APIError` (400), `SQLiteError`.
    static func checkSince(_ since: Int64, _ journal: Journal) throws {
        guard since > 0 else { return }
        // Counted first: a commit between the two reads moves entries into the ids issued, never out.
        let notYetWritten = Int64(journal.entriesNotYetWritten)
        let issued = try journal.newestIssuedID()
        guard since > issued + notYetWritten else { return }
        throw APIError.badRequest(
            "'since' \(since) is not an id of this journal: the newest entry id this database has issued is \(issued), "
                + "so no entry can come after it (a since kept from another database, such as an earlier run on "
                + "--db :memory:?); wait with since 0, or an id this server gave (the listing's newestId and serverRun "
                + "tell: docs/protocol.md#following-the-journal)")
    }

    static func routes(_ dependencies: RouteDependencies) -> [Route] {
        [
            Route("POST", "/catbird/api/requests/wait") { context in
                let body = try JSONBody.decode(CatbirdWaitRequest.self, from: context.request)
                let timeout = body.timeout ?? defaultTimeout
                guard timeout.isFinite, (0...maxTimeout).contains(timeout) else {
                    throw APIError.badRequest(
                        "'timeout' must be a number of seconds from 0 to \(Int(maxTimeout)), not \(JSONValue.number(timeout).jsonText)")
                }
                let since = body.since ?? 0
                guard since >= 0 else { throw APIError.badRequest("'since' must be a journal entry id (0 or more), not \(since)") }
                try MockPatternLimits.checkExpressions(body.pattern)
                try BodyPatternCheck.check(body.pattern)
                // Its connection's place among its tenant's parked requests (``ParkedRequests``), and
                // its body's bytes, held until the wait is done (a refusal here is answered at once).
                let place = try dependencies.parkedRequests.admitting(context.tenant)
                let charge = try dependencies.parkedWaits.admit(context.tenant, bodyBytes: context.request.body.count)
                let lane = context.slowLooks
                let tenant = context.tenant
                // Compiled on the slow lane, in the tenant's turn, not on this worker (try9b F13).
                return ParkedRequests.holding(place, .later { responder in
                    let hangUp = JournalWaitHangUp(responder, waiters: dependencies.journal.waiters)
                    lane.run {
                        do {
                            try checkSince(since, dependencies.journal)
                            let wait = RequestWait(
                                dependencies: dependencies, lane: lane, tenant: tenant, pattern: try CompiledRequestPattern(body.pattern),
                                since: since, timeout: timeout, charge: charge, hangUp: hangUp)
                            wait.look(responder)
                        } catch {
                            responder.send(ErrorAnswer.response(for: error, log: dependencies.log))
                        }
                    }
                })
            },
        ]
    }
}

/// One waiting `POST /catbird/api/requests/wait`: looks at the journal on the slow control lane
/// (at once, then each time the tenant's journal gets new entries, only at entries it has not
/// seen) until a match arrives or the deadline passes, and answers through its responder
/// exactly once. Between looks nothing runs: a journal waiter wakes it.
final class RequestWait: Sendable {
    private let dependencies: RouteDependencies
    private let lane: LookLane
    private let tenant: TenantID
    private let pattern: CompiledRequestPattern
    private let since: Int64
    private let timeout: Double
    private let deadline: ContinuousClock.Instant
    /// The id of the last journal entry looked at; only later ones are matched next time.
    private let searchedThrough: Mutex<Int64>
    /// Its body's share of the parked waits' bytes (``ParkedWaitBytes``), given back when the
    /// wait is let go: once answered, or when its client leaves (``JournalWaitHangUp``).
    private let charge: ParkedWaitBytes.Charge
    private let hangUp: JournalWaitHangUp

    init(
        dependencies: RouteDependencies, lane: LookLane, tenant: TenantID, pattern: CompiledRequestPattern, since: Int64, timeout: Double,
        charge: ParkedWaitBytes.Charge, hangUp: JournalWaitHangUp
    ) {
        self.charge = charge
        self.hangUp = hangUp
        self.dependencies = dependencies
        self.lane = lane
        self.tenant = tenant
        self.pattern = pattern
        self.since = since
        self.timeout = timeout
        deadline = ContinuousClock.now.advanced(by: .milliseconds(Int64(timeout * 1000)))
        searchedThrough = Mutex(since)
    }

    /// Looks at the journal now (called on the lane), and keeps looking until it can answer `responder`.
    func look(_ responder: HTTPResponder) {
        guard responder.isWaiting else { return }
        do {
            let after = searchedThrough.withLock { $0 }
            // The writer's wait ends at most ``WaitRoute/writerGrace`` past the deadline (tester
            // finding tester29a-F6: with the database's write lock held elsewhere, `timeout: 0`
            // answered 503 after 5 s and `timeout: 1` 408 after 3.5 s): what is stored by then
            // is searched.
            let (entry, through, complete) = try dependencies.journal.firstMatch(
                of: tenant, matching: pattern, after: after, flushingBefore: deadline + WaitRoute.writerGrace)
            if let entry {
                responder.send(JSONBody.response(entry))
                return
            }
            guard complete else {
                responder.send(ErrorAnswer.response(for: unsettled(), log: dependencies.log))
                return
            }
            searchedThrough.withLock { $0 = through }
            let now = ContinuousClock.now
            guard now < deadline else {
                responder.send(try timedOut())
                return
            }
            hangUp.wait(for: tenant, after: through, timeout: now.duration(to: deadline)) { _ in
                self.lane.run { self.look(responder) }
            }
        } catch {
            responder.send(ErrorAnswer.response(for: error, log: dependencies.log))
        }
    }

    /// The 503 at the deadline while the journal writer has not stored every request answered
    /// before it (``RequestWaitUnsettled``).
    private func unsettled() -> RequestWaitUnsettled {
        RequestWaitUnsettled(
            pattern: pattern.source.shownInNearMisses.summary, seconds: Self.seconds(timeout), writerFailure: dependencies.journal.writerFailure?.reason)
    }

    /// `timeout` as the reasons say it, counted in whole milliseconds as `deadline` is: `1e-9`
    /// waited 0 s, and says so rather than `1e-09 s` (T11-F10).
    private static func seconds(_ timeout: Double) -> String {
        let milliseconds = Int64(timeout * 1000)
        return milliseconds % 1000 == 0 ? "\(milliseconds / 1000)" : "\(Double(milliseconds) / 1000)"
    }

    /// The 408 answer: which pattern (all of it, headers and body too: ``RequestPattern/summary``),
    /// how long, and what arrived after `since` instead, an entry that matches but for a body the
    /// journal kept cut short marked so (at most
    /// ``WaitRoute/listedArrivals`` entries, each URL cut to ``WaitRoute/shownURLCharacters``
    /// characters, so the reason stays a few KiB whatever arrived).
    private func timedOut() throws -> HTTPResponse {
        let (entries, hasMore) = try dependencies.journal.arrivals(
            of: tenant, after: since, limit: WaitRoute.listedArrivals, urlCharacters: WaitRoute.shownURLCharacters)
        let source = pattern.source
        let seconds = Self.seconds(timeout)
        // Entries kept with a cut request body that match all but the body pattern: it was
        // tested on the part kept (docs/matching.md#body-matchers), which the reason says.
        let cutShort = try entries.contains { $0.requestBodyKept != nil }
            ? dependencies.journal.matchesButForBody(of: tenant, pattern, after: since, through: entries.last?.id ?? since) : []
        var arrived = entries.map { entry in
            // Counted as SQLite's substr and length count, in code points: a combining mark is
            // one of them but no grapheme (String.count) of its own.
            let url = entry.urlCharacters > entry.url.unicodeScalars.count ? entry.url + "… (\(entry.urlCharacters) characters)" : entry.url
            var line = "\(entry.method) \(url) → \(entry.status.map(String.init) ?? "?")"
            if let kept = entry.requestBodyKept, cutShort.contains(entry.id) {
                line += " (matches but for the body, which was tested on the \(kept) of its \(entry.requestBodySize) bytes "
                    + "the journal kept: raise --journal-body-limit; a body its client did not finish has no more)"
            }
            return line
        }.joined(separator: ", ")
        if arrived.isEmpty { arrived = "nothing" }
        if hasMore { arrived += ", … and more" }
        // Retention deleted entries after `since`: the one waited for may have been among them.
        let pruned = dependencies.journal.pruned.through(tenant)
        let prunedNote = pruned > since
            ? "; retention deleted this tenant's entries up to \(pruned) (the journal's row, byte or age limit, or --tenant-ttl while the tenant was idle: "
                + "docs/operations.md#retention), so an entry that matched may have been deleted" : ""
        return APIError(
            status: 408,
            reason: "no request matching \(source.shownInNearMisses.summary) arrived within \(seconds) s; after entry \(since) the journal has: \(arrived)"
                + prunedNote + NeverMatchingMock.journalPatternWarnings(for: source, admin: dependencies.admin).map { "; " + $0 }.joined()
                + (MissingParallelIdNote.note(dependencies.journal, tenant: tenant, pattern: pattern, after: since) ?? "")
        ).response
    }
}
