import CatbirdStorage
import CatbirdSupport
import Foundation

/// The writer thread: it gathers the queue into rounds, writes each in one transaction, and
/// keeps what a failing round held (back-off, probes, giving up at the stop).
extension JournalWriter {
    func run() {
        while true {
            condition.lock()
            let admitted = admitHeld()
            if !admitted.isEmpty {
                condition.unlock()
                for (hold, ticket) in admitted { hold.queued(ticket) }  // their answers leave
                condition.lock()
            }
            waitForWork()
            gather()
            if state.waiting == 0 && state.amendments.isEmpty && state.held.isEmpty && state.phase >= .stopping
                && (state.heldHits.isEmpty || state.givingUp) {
                if state.givenUp != (0, 0) {
                    let (entries, amendments) = state.givenUp
                    let amended = amendments == 1 ? "1 amendment of an earlier entry" : "\(amendments) amendments of earlier entries"
                    let what = amendments == 0 ? entries.counted("entry", "entries") : entries == 0 ? amended : "\(entries.counted("entry", "entries")) and \(amended)"
                    log.error("journal: stopping: \(what) not stored: an earlier round failed since the stop")
                }
                if !state.heldHits.isEmpty {
                    state.statistics.droppedHits += state.heldHits.count
                    log.error("journal: stopping with \(state.heldHits.describe) not stored; the mocks' rows in the database show fewer")
                    state.heldHits = HeldHits()
                }
                state.phase = .stopped
                let unanswered = state.commitWaiters.take(through: .max)
                condition.broadcast()
                condition.unlock()
                for done in unanswered { done(false) }
                return
            }
            if state.waiting == 0 && state.amendments.isEmpty && state.heldHits.isEmpty && state.failure != nil {
                condition.unlock()
                probe()  // nothing to write: see whether the database takes writes again (waitForWork's back-off)
                continue
            }
            // Strict durability after a round was dropped for a cause that lasts (a held write
            // lock, a full disk): the next round takes every entry queued (up to the queue's bytes)
            // and gets one attempt, so each withheld answer gets its 503 after one more attempt
            // (one 5 s busy timeout) rather than a round of four 60 KB rows at a time, 15 s each
            // (tester25a-F2: the 13th of 16 uploads answered after 62 s, another tenant's hit
            // queued behind them after 69 s).
            let failingStrict = !holdsWhatFails && state.failure != nil
            var batch = state.take(
                Self.maxBatchSize, bytes: failingStrict ? byteCapacity : Self.maxRoundBytes, spare: &spareBuffer)
            let first = state.committed + 1
            // Those whose entry is written by now or in this round; the rest wait for a later one.
            let amendments = state.amendments.filter { $0.sequence < first + UInt64(batch.count) }
            if !amendments.isEmpty { state.amendments.removeAll { $0.sequence < first + UInt64(batch.count) } }
            var roundBytes = 0
            batch.withUnsafeBufferPointer { entries in
                for index in entries.indices {  // in place, no copies
                    let size = Self.queuedSize(of: entries[index])
                    roundBytes += size
                    state.countTaken(size, of: entries[index].tenant)
                }
            }
            state.inRound = QueuedByTenant.Queued(entries: batch.count, bytes: roundBytes)
            state.roundSince = .now
            var hits = HeldHits()
            swap(&hits, &state.heldHits)
            state.heldHitsInRound = hits.hits
            let givingUp = state.givingUp
            condition.broadcast()  // room in the queue again
            condition.unlock()

            let outcome = givingUp
                ? .dropped("an earlier round failed since the stop")
                : write(batch, from: first, amending: amendments, hits: hits, attempts: failingStrict ? 1 : 3)
            if case .retry(let reason) = outcome {
                giveBack(batch, amendments: amendments, hits: hits, reason: reason)
                continue
            }
            let latestIDs: [TenantID: Int64]? = if case .committed(let ids) = outcome { ids } else { nil }
            let cause = if case .dropped(let cause) = outcome { cause } else { "" }
            // Before a flusher is told the batch is committed (below), so what it reads next is bounded by it.
            if let top = latestIDs?.values.max(), top > highest.load(ordering: .relaxed) { highest.store(top, ordering: .releasing) }
            // Noted before any flusher is told too (below): a tenant's drop flushes its rows, then
            // forgets what is remembered of it; noted after, its commit came back for good
            // (tester finding tester33a-F1: 2-15 % of dropped tenants kept both entries).
            if let latestIDs, !batch.isEmpty {
                waiters.committed(latestIDs)
                activity.journaled(latestIDs.keys)
            }

            condition.lock()
            var backsOff = false
            var recovered: (failure: JournalWriterFailure, queued: Int)?
            state.failedAttempt = nil  // the round ended: committed, or dropped (then ``failure`` says so)
            state.heldHitsInRound = 0  // written, or held again just below
            state.inRound = QueuedByTenant.Queued()
            state.roundSince = nil
            state.committed += UInt64(batch.count)
            state.amendmentsDone += UInt64(amendments.count)
            if latestIDs == nil, !batch.isEmpty {
                // Before noteFailure, whose back-off waits with the lock let go: a commit waiter
                // asking meanwhile finds its ticket at or below `committed` and must learn it was
                // dropped, not committed (strict durability: a request answered 200 with its row
                // dropped, the database file deleted; StorageFaultTests failed so under load).
                state.commitWaiters.dropped(first...state.committed)
            }
            if latestIDs == nil {
                state.statistics.droppedRows += batch.count
                state.statistics.droppedAmendments += amendments.count
                if givingUp {
                    state.givenUp.entries += batch.count
                    state.givenUp.amendments += amendments.count
                }
                // The rows are lost, their mocks' hits are not: a later round writes them.
                state.heldHits.add(hits)
                if holdsWhatFails { state.heldHits.add(hitsOf: batch) }
                if state.phase >= .stopComing {
                    state.givingUp = true
                } else {
                    // The cause, not the drop: health says what was dropped (T19B-F12: "1 row were dropped").
                    // Its back-off waits until the round's waiters are told (below).
                    recordFailure(cause, keptQueued: false, dropped: batch.count)
                    backsOff = true
                }
            } else {
                if let failure = state.failure { recovered = (failure, state.waiting) }
                state.noteWrites()
            }
            // A dropped round's tickets are noted above (a round of amendments only has none).
            if latestIDs != nil, !batch.isEmpty { state.statistics.recordCommit(rows: batch.count) }
            let resumed = state.commitWaiters.take(through: state.committed)
            state.forgetCommitted()
            state.lastReleased = resumed.count
            condition.broadcast()
            condition.unlock()
            if let recovered {
                // The episode's end, as its start was logged (tester finding tester42b-F3: a full
                // disk's errors stopped, and nothing said the queued rows were then written).
                log.warning(
                    "journal: writing again (its writes failed since \(Timestamp.string(from: recovered.failure.since)): "
                        + "\(recovered.failure.reason)): \(batch.count) entries written now, \(recovered.queued) more queued")
            }
            if !resumed.isEmpty { releasing { for done in resumed { done(latestIDs != nil) } } }
            if backsOff {
                // After the dropped round's waiters are told: while the back-off waited before
                // them, a waiter registered after the drop was told at once (its answer's 503
                // went out) while one registered before it, the hit's refund, waited up to 2 s
                // (StrictWithheldAnswerLimitTests saw the use not yet given back after the 503).
                condition.lock()
                backOff()
                condition.unlock()
            }
            // The written entries are freed only now: after the answers waiting for them left,
            // and outside the lock (their last use above is under it, where appenders wait).
            // Their buffer is kept for the next round (spareBuffer).
            batch.removeAll(keepingCapacity: batch.capacity <= 1024)
            spareBuffer = batch
        }
    }

    /// Called with `condition` locked: waits until there is something to write (entries,
    /// amendments, held mock hits) or ``stop()``. Held hits (``HeldHits``) wait while the
    /// rounds fail, but only for the back-off (``backOffDelay``): then they are tried on their
    /// own, so hits held after a round dropped for a lasting cause (the file moved away and put
    /// back, a statement error) reach the `mocks` rows once the database takes writes again
    /// even when no request comes to start a round (they waited for the next one, or the stop).
    /// With nothing at all to write while ``failure`` is recorded, it returns after the back-off
    /// too, for ``run()``'s ``probe()``: a dropped round leaves nothing queued, and the failure
    /// lasted until the next request (tester finding T19B-F12: an idle server stayed degraded
    /// for good after its file was put back).
    private func waitForWork() {
        // When held hits are retried, or the database checked (``probe()``), after a failure.
        var retryDue: Date?
        // Held hits start no round once a round failed after the stop began (``stopComing()``): ``stop()`` drops them.
        while state.waiting == 0 && state.amendments.isEmpty && state.phase < .stopping
            && (state.heldHits.isEmpty || state.failure != nil || state.givingUp) {
            state.writerIdle = true
            defer { state.writerIdle = false }
            guard !state.heldHits.isEmpty || state.failure != nil, !state.givingUp else {
                condition.wait()
                continue
            }
            let due = retryDue ?? Date(timeIntervalSinceNow: backOffDelay)
            retryDue = due
            if !condition.wait(until: due) { return }
        }
    }

    /// Called with `condition` locked and entries queued: waits up to ``gatherWindow`` for
    /// ``gatherRows`` entries, unless a flush waits or the writer is stopping, or half as many
    /// commit waiters wait as the last round released (at least one; then for
    /// ``waiterGatherWindow`` at most).
    private func gather() {
        guard state.waiting > 0 else { return }
        // After a round with waiters the next one is expected to have some too (only the waiter
        // that completes the count wakes the writer), so it is held for the shorter window.
        let window = state.lastReleased > 0 ? waiterGatherWindow : Self.gatherWindow
        let deadline = Date(timeIntervalSinceNow: window.timeInterval)
        state.writerGathering = true
        // Nor while half the queue's bytes wait: appends would soon block, and the rounds of
        // large entries (``maxRoundBytes``) are full long before ``gatherRows``.
        // Nor while entries are held for their tenant's share (``appendOrHold(_:)``): the queue
        // holds that tenant's share already, and its next entries come only once it is written
        // (gathering meanwhile halved an uploading tenant's rate: a 2 ms wait per 256 KiB round).
        while state.waiting < Self.gatherRows && state.queuedBytes < byteCapacity / 2 && state.held.isEmpty && state.phase < .stopping
            && state.flushers == 0 && state.commitWaiters.count < state.waitersToCommit {
            if !condition.wait(until: deadline) { break }
        }
        state.writerGathering = false
    }

    /// The bytes a round writes for an entry, as far as they can be told before: as
    /// ``queuedSize(of:)``, but a mock's or a file's answer body counts only the first time the
    /// round holds that tenant's answer by that mock or file (`counted` keeps which did): the
    /// journal stores a body a tenant's rows repeat once (``JournalBodies``), and a mock or file
    /// answers with the same bytes each time. Rounds are bounded by these (``maxRoundBytes``):
    /// counted whole every time, a 64 KiB mock body made rounds of 4 entries, and the 64 KiB-answer
    /// benchmark ran at a third of its speed; counted never, different tenants' answers by one
    /// large mock (each tenant stores its own) made rounds of the whole queue again (review).
    static func roundSize(of entry: borrowing JournalEntry, counted: inout Set<String>) -> Int {
        let answer: String? =
            switch entry.answeredBy {
            case .mock: entry.mockHit.map { "\(entry.tenant.rawValue)\u{0}mock \($0.mockID)" }
            case .file: entry.filePath.map { "\(entry.tenant.rawValue)\u{0}file \($0)" }
            default: nil
            }
        let repeated = answer.map { !counted.insert($0).inserted } ?? false
        return queuedSize(of: entry) - (repeated ? entry.responseBody.count : 0)
    }

    /// What became of a round (``write(_:from:amending:hits:)``).
    private enum Outcome {
        /// Committed: the highest id written per tenant.
        case committed([TenantID: Int64])
        /// Not written for a cause that passes (``SQLiteError/isTransient``): the writer gives the
        /// round back and tries it again later (the reason, for health).
        case retry(String)
        /// Not written and given up: the rows are lost (their mock hits are kept); the cause, for health.
        case dropped(String)
    }

    /// Writes `batch` (its first entry's sequence `first`), `amendments` (``amend(_:problem:filePath:)``)
    /// and `hits` (mock hits of entries dropped earlier) in one transaction, and counts their
    /// bytes (``bytes``) once committed, before letting go of the connection; notes the batch's
    /// row ids (``rowIDs``).
    /// - Returns: `.committed`; `.retry` after one attempt that failed for a cause that passes
    ///   (busy, locked, full, a write error: ``SQLiteError/isTransient``) unless the writer is stopping; `.dropped` after
    ///   `attempts` attempts that failed otherwise (3; 1 for a strict round while the writer
    ///   fails, ``run()``), after one when stopping, or after one when the
    ///   database file was deleted, replaced or truncated under the server
    ///   (``DatabaseFileLock/isFileFault(_:)``: waiting does not bring it back; T13-F8, tester21b-F13).
    private func write(
        _ batch: [JournalEntry], from first: UInt64, amending amendments: [Amendment], hits: HeldHits, attempts: Int
    ) -> Outcome {
        var lastError: (any Error)?
        for attempt in 1...attempts {
            do {
                return .committed(try database.use { db in
                    var run: JournalRowIDs.Run?
                    let written = try db.transaction {
                        var written = try batch.isEmpty ? JournalRecords.Written() : JournalRecords.insert(batch, into: db, bodies: &bodies)
                        // The batch's rows have consecutive ids, its highest the last one's (JournalRowIDs).
                        run = written.latestIDs.values.max().map {
                            JournalRowIDs.Run(firstSequence: first, count: UInt64(batch.count), firstID: $0 - Int64(batch.count) + 1)
                        }
                        if !amendments.isEmpty {
                            let rows = amendments.compactMap { amendment in
                                (run?.rowID(of: amendment.sequence) ?? rowIDs.rowID(of: amendment.sequence)).map {
                                    ($0, amendment.problem, amendment.filePath)
                                }
                            }
                            try JournalRecords.amend(rows, in: db, written: &written)
                        }
                        try hits.write(into: db)
                        return written
                    }
                    if let run { rowIDs.add(run) }
                    bytes.committed(written)
                    return written.latestIDs
                })
            } catch {
                bodies.removeAll()  // the rolled-back transaction's body ids may be reused
                let what = Self.describe(batch, amendments, hits)
                if DatabaseFileLock.isFileFault(error), let moved = error as? SQLiteError {
                    let reason = moved.environmentalReason ?? moved.description
                    log.error("journal: \(Self.describeDrop(batch, amendments, hits)): \(reason)")
                    return .dropped(reason)
                }
                if holdsWhatFails, let sqlite = error as? SQLiteError, sqlite.isTransient {
                    let reason = sqlite.environmentalReason ?? sqlite.description
                    if isStopping {
                        log.error("journal: stopping: \(what) not stored: \(reason)")
                        return .dropped(reason)
                    }
                    log.error("journal: writing \(what) failed, kept queued to try again: \(reason)")
                    return .retry(reason)
                }
                if isStopping {
                    // The attempt under way ends the round: another would hold the stop for a
                    // busy timeout more each (strict durability, tester21b-F14: 14 s, not 5).
                    let sqlite = error as? SQLiteError
                    let reason = sqlite?.environmentalReason ?? sqlite?.description ?? "\(error)"
                    log.error("journal: stopping: \(what) not stored: \(reason)")
                    return .dropped(reason)
                }
                log.error("journal: writing \(what) failed (attempt \(attempt) of \(attempts)): \(error)")
                lastError = error
                if attempt < attempts {
                    let sqlite = error as? SQLiteError
                    noteFailedAttempt(sqlite?.environmentalReason ?? sqlite?.description ?? "\(error)", attempt: attempt, of: attempts)
                    usleep(useconds_t(attempt * 50_000))
                }
            }
        }
        log.error("journal: \(Self.describeDrop(batch, amendments, hits)) after \(attempts.counted("failed attempt", "failed attempts"))")
        let sqlite = lastError as? SQLiteError
        return .dropped(sqlite?.environmentalReason ?? sqlite?.description ?? lastError.map { "\($0)" } ?? "a write failed")
    }

    /// Notes, for health (``failure``), that the round under way failed `attempt` of its
    /// `attempts` attempts and is tried again (``State/failedAttempt``).
    private func noteFailedAttempt(_ reason: String, attempt: Int, of attempts: Int) {
        condition.lock()
        defer { condition.unlock() }
        var noted = state.failedAttempt ?? JournalWriterFailure(since: Date(), reason: reason, rounds: 0)
        noted.reason = reason
        noted.attemptsFailed = attempt
        noted.attemptsAllowed = attempts
        state.failedAttempt = noted
    }

    /// Whether ``stop()`` or ``stopComing()`` was called.
    private var isStopping: Bool {
        condition.lock()
        defer { condition.unlock() }
        return state.phase >= .stopComing
    }

    /// Puts a failed round back at the front of the queue (its entries keep their sequences),
    /// with its amendments and hits, and notes the failure (``noteFailure(_:)``).
    private func giveBack(_ batch: [JournalEntry], amendments: [Amendment], hits: HeldHits, reason: String) {
        condition.lock()
        defer { condition.unlock() }
        state.queue.insert(contentsOf: batch, at: state.head)
        state.inRound = QueuedByTenant.Queued()
        state.roundSince = nil
        for entry in batch { state.countQueued(Self.queuedSize(of: entry), of: entry.tenant) }
        state.amendments.insert(contentsOf: amendments, at: 0)
        state.heldHits.add(hits)
        state.heldHitsInRound = 0
        state.failedAttempt = nil
        noteFailure(reason)
    }

    /// Called with `condition` locked after a failed round (not while stopping): notes it in
    /// ``failure`` (its `reason`, whether its rows stay queued, how many were `dropped`) and
    /// wakes the waiters, so that a flush with a patience (``flushUnlessFailing(_:)``) and an
    /// append waiting for room start counting it now rather than at their next wake-up; then
    /// waits before the next attempt (``backOff()``).
    private func noteFailure(_ reason: String, keptQueued: Bool = true, dropped: Int = 0) {
        recordFailure(reason, keptQueued: keptQueued, dropped: dropped)
        backOff()
    }

    /// ``noteFailure(_:keptQueued:dropped:)`` without its back-off. Called with `condition` locked.
    private func recordFailure(_ reason: String, keptQueued: Bool, dropped: Int) {
        let earlier = state.failure
        state.failure = JournalWriterFailure(
            since: earlier?.since ?? Date(), reason: reason, rounds: (earlier?.rounds ?? 0) + 1, keptQueued: keptQueued,
            droppedRows: (earlier?.droppedRows ?? 0) + dropped)
        condition.broadcast()
    }

    /// Called on the writer thread, `condition` not locked, when ``failure`` is recorded and
    /// nothing is left to write (the failed rounds were dropped): the write a round would make,
    /// with nothing in it (``probeStatement``, in a transaction through the write connection,
    /// which first checks that the file is still at its path). When it commits, the failure
    /// ends (health answers 200 again without waiting for a request, T19B-F12); when it fails,
    /// the failure stays and the next check waits longer (``JournalWriterFailure/probes``).
    /// Its busy timeout is short (100 ms): a check waits for no lock, the next one comes.
    private func probe() {
        let works = (try? database.use { db in
            try db.withBusyTimeout(.milliseconds(100)) { try db.transaction { try db.execute(Self.probeStatement) } }
        }) != nil
        condition.lock()
        let ended = works ? state.failure : nil
        if works {
            state.noteWrites()
            condition.broadcast()
        } else {
            state.failure?.probes += 1
        }
        condition.unlock()
        if let ended { log.warning("journal: the database takes writes again (its writes failed since \(Timestamp.string(from: ended.since)))") }
    }

    /// ``probe()``'s write: one row rewritten as it is (the latest migration's), so the commit writes a
    /// page, as a round does, and counts as a change (``CatbirdStorage/StorageFaults/clear()``), but
    /// changes nothing a reader sees.
    static let probeStatement = "UPDATE schema_migrations SET name = name WHERE version = (SELECT max(version) FROM schema_migrations)"

    /// Seconds to wait after a failed round, read with `condition` locked: 0.1 after the first
    /// failure in a row (``failure``'s `rounds`, and its failed `probes`), doubling up to 2.
    private var backOffDelay: TimeInterval {
        let rounds = min((state.failure?.rounds ?? 1) + (state.failure?.probes ?? 0), 6)
        return min(0.1 * Double(1 << (rounds - 1)), 2.0)
    }

    /// Called with `condition` locked after a failed round: waits ``backOffDelay``, or until
    /// ``stop()``.
    private func backOff() {
        let deadline = Date(timeIntervalSinceNow: backOffDelay)
        while state.phase < .stopping {
            if !condition.wait(until: deadline) { break }
        }
    }

    /// A dropped round, for its log lines (the entries and amendments are lost; the hits are held
    /// again for a later round, ``HeldHits``): `dropped 3 entries`, `dropped 3 entries (2 hits
    /// of 1 mock kept for a later round)`, `could not write 3 hits of 1 mock (kept for a later
    /// round)` (a round of held hits only).
    private static func describeDrop(_ batch: [JournalEntry], _ amendments: [Amendment], _ hits: HeldHits) -> String {
        let kept = hits.isEmpty ? "" : " (\(hits.describe) kept for a later round)"
        if batch.isEmpty && amendments.isEmpty && !hits.isEmpty { return "could not write \(hits.describe) (kept for a later round)" }
        return "dropped \(describe(batch, amendments))\(kept)"
    }

    /// What a round writes, for its log lines: `1 entry`, `3 entries`, `3 entries and 2 amendments of
    /// earlier entries` (their `problem` or `filePath`), `1 amendment of an earlier entry` (a
    /// round of amendments only).
    private static func describe(_ batch: [JournalEntry], _ amendments: [Amendment], _ hits: HeldHits = HeldHits()) -> String {
        let entries = batch.count.counted("entry", "entries")
        let amended = amendments.count == 1 ? "1 amendment of an earlier entry" : "\(amendments.count) amendments of earlier entries"
        var parts = batch.isEmpty ? [] : [entries]
        if !amendments.isEmpty { parts.append(amended) }
        if !hits.isEmpty { parts.append(hits.describe) }
        if parts.isEmpty { parts = [entries] }
        return parts.joined(separator: " and ")
    }
}
