import CatbirdSupport
import Foundation

/// Appending to the queue: plain appends, held large entries (a tenant's share), the entries
/// replaced or amended after they were queued, and strict durability's commit waits.
extension JournalWriter {
    /// Queues an entry for writing. Returns at once unless the queue is full. Once the writer
    /// has stopped (``stop()``), the entry is dropped.
    /// - Returns: the entry's ticket, for ``whenCommitted(_:_:)`` (strict durability).
    @discardableResult
    public func append(_ entry: consuming JournalEntry) -> JournalTicket {
        // `consuming`: the caller's entry is moved in and on into the queue, not copied (a
        // copy retains each of its strings and arrays).
        var entry = entry
        let bytes = truncate(&entry)
        let tenant = entry.tenant
        condition.lock()
        return enqueue(consume entry, bytes: bytes, tenant: tenant)
    }

    /// Queues a truncated `entry` of `bytes` (``queuedSize(of:)``) for `tenant`, waiting for
    /// room (``append(_:)``) while the writer is not stuck. Called with `condition` locked;
    /// unlocks it. While the writer is stuck (``State/isStuck``) it is queued or dropped at once
    /// (``State/roomWhileStuck(for:of:capacity:byteCapacity:)``, tester25a-F9, tester26b-F5).
    private func enqueue(_ entry: consuming JournalEntry, bytes: Int, tenant: TenantID) -> JournalTicket {
        while state.phase < .stopping {
            if state.takesUsualAppend(of: bytes, capacity: capacity, byteCapacity: byteCapacity) {
                break  // the usual append: nothing more to check
            }
            if state.isStuck {
                // Queued, or dropped at once: an append never holds its worker while nothing
                // leaves the queue (tester25a-F9, tester26b-F5).
                guard state.roomWhileStuck(for: bytes, of: tenant, capacity: capacity, byteCapacity: byteCapacity) else {
                    return drop(entry)
                }
                break
            }
            // Back-pressure: wait for room, for a round under way no longer than until it counts as stuck.
            if let since = state.roundSince {
                _ = condition.wait(until: Date(timeIntervalSinceNow: (since + Self.stuckRound - .now).timeInterval))
            } else {
                condition.wait()
            }
        }
        // While stopping the writer still drains the queue; once stopped nothing would write it.
        guard state.phase < .stopped else {
            condition.unlock()
            return .dropped
        }
        let ticket = queueNow(entry, bytes: bytes, tenant: tenant)
        state.statistics.longestQueue = max(state.statistics.longestQueue, state.waiting)
        state.statistics.longestQueueBytes = max(state.statistics.longestQueueBytes, state.queuedBytes)
        // Only the writer waits for appends.
        if state.writerIdle || (state.writerGathering && (state.waiting >= Self.gatherRows || state.queuedBytes >= byteCapacity / 2)) {
            condition.broadcast()
        }
        condition.unlock()
        return ticket
    }

    /// Called with `condition` locked while the writer is stuck (``enqueue(_:bytes:tenant:)``):
    /// drops `entry` unqueued, counts it (``JournalWriterStatistics/droppedRows``), keeps its
    /// mock hit for a later round (``HeldHits``; not with strict durability, whose caller gives
    /// it back) and logs the first drop and every 1,000th. Unlocks `condition`.
    private func drop(_ entry: borrowing JournalEntry) -> JournalTicket {
        state.statistics.droppedRows += 1
        state.failure?.droppedRows += 1
        if holdsWhatFails, let hit = entry.mockHit { state.heldHits.add(hit.mockID, count: 1) }
        let dropped = state.statistics.droppedRows
        condition.unlock()
        if dropped == 1 || dropped % 1000 == 0 {  // not a line per request
            let hit = holdsWhatFails ? "; its mock hit is kept" : ""
            log.error(
                "journal: the queue is full and the writer stuck (failing, or its round waiting for the database): dropped an entry (\(dropped) dropped in all\(hit))"
            )
        }
        return .dropped
    }

    /// Cuts `entry`'s bodies to the journal's body limit, as every entry is queued, and returns
    /// its size in the queue (``queuedSize(of:)``).
    private func truncate(_ entry: inout JournalEntry) -> Int {
        entry.truncateBodies(to: bodyLimit)
        return Self.queuedSize(of: entry)
    }

    /// Called with `condition` locked and room checked: puts `entry` in the queue and returns its ticket.
    private func queueNow(_ entry: consuming JournalEntry, bytes: Int, tenant: TenantID) -> JournalTicket {
        state.queue.append(consume entry)
        state.countQueued(bytes, of: tenant)
        state.appended += 1
        state.noteAppended(state.appended, of: tenant)
        return JournalTicket(sequence: state.appended)
    }

    /// ``append(_:)`` for an entry made on a thread that serves other tenants too (a
    /// libmicrohttpd worker): a large entry (``largeEntryBytes``) whose tenant has its share of
    /// the queue already (``tenantShareBytes``; three quarters of ``byteCapacity`` for all
    /// tenants' large entries), or entries held before it, is held rather than waited for: the
    /// writer queues it once its tenant's earlier large entries are written (tenants with held
    /// entries take turns), and the caller answers then (``JournalHold/whenQueued(_:)``), so the
    /// thread goes on meanwhile. While the writer fails (a busy or full file, a file-size
    /// limit) the tenant's share is not kept, but the three quarters are: held entries are
    /// queued while those have room (their answers leave: tester23c-F1, held entries were
    /// dropped after 2 s of failure with the queue nearly empty; the clean-clone CI of d5ddd7d,
    /// held for the whole failure, past their client's timeout), and past them an entry is
    /// queued without its bodies (``bodilessProblem``), which the last quarter has room for,
    /// so it is neither held nor dropped (tester25a-F5, F6: held rows past the three quarters
    /// were dropped after 2 s, another tenant's one upload and its row among them, and a
    /// client that hung up meanwhile kept its mock's hit). One is dropped only as a plain
    /// append's entry is, once the whole queue had no room for it for ``appendPatience``.
    /// Other tenants' small entries keep the last quarter (tester23c-F2: appends that went
    /// around the share while the writer failed filled the whole queue with one tenant's
    /// entries, and another tenant's small entry waited for room).
    /// Other entries are appended as by ``append(_:)`` (waiting only when the whole queue is
    /// full); so are all once the stop began.
    public func appendOrHold(_ entry: consuming JournalEntry) -> JournalAppend {
        var entry = entry
        let bytes = truncate(&entry)
        let tenant = entry.tenant
        condition.lock()
        guard bytes >= Self.largeEntryBytes, state.phase == .running,
            state.held.holds(tenant) || !state.admitsLarge(bytes, of: tenant, capacity: capacity, byteCapacity: byteCapacity)
        else { return .queued(enqueue(consume entry, bytes: bytes, tenant: tenant)) }
        if state.failure != nil && !state.held.holds(tenant) {
            // The writer fails and large rows fill their three quarters: queued now without its
            // bodies, as a plain append (waiting only for the whole queue).
            let (bodiless, size) = Self.bodiless(entry)
            return .queued(enqueue(bodiless, bytes: size, tenant: tenant))
        }
        let hold = JournalHold()
        // While the writer fails, held for want of room (or behind such a row): its patience
        // starts now, not at the writer's next look, which a busy file's 5 s busy timeout puts
        // up to 5 s later (tester25a-F1: dropped 10.5 s after it came, two looks later).
        let noRoomSince: ContinuousClock.Instant? = state.failure != nil ? .now : nil
        state.held.add(HeldAppends.Held(entry: entry, bytes: bytes, noRoomSince: noRoomSince, hold: hold))
        state.statistics.heldForShare += 1
        state.statistics.mostHeld = max(state.statistics.mostHeld, state.held.count)
        if state.writerGathering { condition.broadcast() }  // nothing more of this tenant's comes meanwhile
        condition.unlock()
        return .held(hold)
    }

    /// Called by the writer thread with `condition` locked, before it looks for work: queues
    /// the held entries that now fit their share (``appendOrHold(_:)``; all of them once the
    /// writer stops). While the rounds fail, queues those the queue has room for (the share is
    /// not kept then, ``State/admitsLarge(_:of:capacity:byteCapacity:)``), past the three
    /// quarters without their bodies (``bodiless(_:)``), and drops those for which the whole
    /// queue had no room for ``appendPatience`` or longer, as a plain ``append(_:)`` drops its
    /// entry (``HeldAppends/removeStarved(now:patience:admits:)``). Returns the holds to tell,
    /// with their tickets, once the lock is let go.
    func admitHeld() -> [(JournalHold, JournalTicket)] {
        guard !state.held.isEmpty else { return [] }
        var told: [(JournalHold, JournalTicket)] = []
        let stopping = state.phase >= .stopping
        var held = HeldAppends()
        swap(&held, &state.held)  // out of `state` while the entries it takes go into the queue
        let failing = state.failure != nil && !stopping
        let now = ContinuousClock.now
        held.admit { held in
            let tenant = held.entry.tenant
            if stopping || state.admitsLarge(held.bytes, of: tenant, capacity: capacity, byteCapacity: byteCapacity) {
                told.append((held.hold, queueNow(held.entryQueued(now: now), bytes: held.bytes, tenant: tenant)))
                return true
            }
            // Failing, past the three quarters: without its bodies, when the whole queue has room.
            guard failing else { return false }
            let (bodiless, size) = Self.bodiless(held.entryQueued(now: now))
            guard state.hasRoom(for: size, capacity: capacity, byteCapacity: byteCapacity) else { return false }
            told.append((held.hold, queueNow(bodiless, bytes: size, tenant: tenant)))
            return true
        }
        if failing {
            let starved = held.removeStarved(now: now, patience: Self.appendPatience) { held in
                state.hasRoom(for: Self.bodiless(held.entry).bytes, capacity: capacity, byteCapacity: byteCapacity)
            }
            for entry in starved {
                state.statistics.droppedRows += 1
                state.failure?.droppedRows += 1
                if holdsWhatFails, let hit = entry.entry.mockHit { state.heldHits.add(hit.mockID, count: 1) }
                told.append((entry.hold, .dropped))
            }
            if !starved.isEmpty {
                let hit = holdsWhatFails ? "; their mock hits are kept" : ""
                log.error(
                    "journal: the queue is full and the writer failing: dropped \(starved.count.counted("held entry", "held entries")) that found no room for 2 s\(hit)")
            }
        } else {
            held.forgetNoRoom()
        }
        swap(&held, &state.held)
        return told
    }

    /// Puts `entry` (truncated here) in place of the queued entry behind `ticket`, while it is
    /// still queued (not yet taken for a round): for an answer that will not be sent after all
    /// (its client hung up while the entry was held, ``appendOrHold(_:)``), whose entry must
    /// say so (status 499, no mock hit). The queue's counts follow the new entry.
    /// - Returns: false when the entry is no longer queued (taken for a round, or dropped):
    ///   nothing was changed.
    public func replaceQueued(_ ticket: JournalTicket, with entry: consuming JournalEntry) -> Bool {
        var entry = entry
        let bytes = truncate(&entry)
        condition.lock()
        defer { condition.unlock() }
        // The queue holds the last `waiting` entries appended, in sequence order.
        let first = state.appended - UInt64(state.waiting) + 1
        guard ticket != .dropped, ticket.sequence >= first, ticket.sequence <= state.appended else { return false }
        let index = state.head + Int(ticket.sequence - first)
        let old = state.queue[index]
        guard old.tenant == entry.tenant else { return false }
        state.countTaken(Self.queuedSize(of: old), of: old.tenant)
        state.queue[index] = entry
        state.countQueued(bytes, of: entry.tenant)
        return true
    }

    /// Puts `entry` (truncated here) in place of the entry `hold` stands for while it is still
    /// held (``appendOrHold(_:)``; not yet queued nor dropped), keeping its place in its tenant's
    /// line: for an answer whose client hung up while it was held, which will not be sent
    /// (tester25a-F11: known only once the hold ended, the mock's use given back only then).
    /// - Returns: false when the entry is no longer held (nothing was changed): the hold is
    ///   told, or about to be, as usual.
    public func replaceHeld(_ hold: JournalHold, with entry: consuming JournalEntry) -> Bool {
        var entry = entry
        let bytes = truncate(&entry)
        condition.lock()
        defer { condition.unlock() }
        guard state.held.replace(hold, of: entry.tenant, with: entry, bytes: bytes) else { return false }
        hold.markReplaced()
        return true
    }

    /// Adds `problem` to the `problem` of the entry behind `ticket` (after its own, `; `
    /// between), in the writer's next round that finds the entry written: for what is known
    /// only after the entry was queued, such as an answer whose client hung up while it was
    /// being sent (docs/protocol.md#what-the-journal-records). The entry's row is found by its
    /// ticket (``JournalRowIDs``). Nothing when the entry was dropped (its batch failed, or it
    /// came after ``stop()``), or its row deleted meanwhile. Returns at once.
    /// - Parameters:
    ///   - problem: the sentence to add; nil adds none (an amendment of `filePath` only).
    ///   - filePath: what becomes of the entry's `filePath`, in the same UPDATE: a recording
    ///     placed only after the commit may have failed (``JournalFilePathChange/cleared``) or
    ///     gone to the planned name's `index` (``JournalFilePathChange/replaced(_:)``).
    public func amend(_ ticket: JournalTicket, problem: String?, filePath: JournalFilePathChange = .unchanged) {
        guard ticket != .dropped, problem != nil || filePath != .unchanged else { return }
        condition.lock()
        defer { condition.unlock() }
        guard state.phase < .stopped else { return }
        state.amendments.append(Amendment(sequence: ticket.sequence, problem: problem, filePath: filePath))
        state.amendmentsQueued += 1
        if state.writerIdle { condition.broadcast() }
    }

    /// Strict durability's wait: calls `done(true)` once the entry behind `ticket` is committed
    /// (together with the mock hit it carries), `done(false)` when its batch was dropped after
    /// three failed attempts or the writer stopped before writing it. Calls at once when that is
    /// already known; otherwise on the writer thread right after the commit, so every waiter of
    /// one transaction is resumed together (group commit; its size: the type's notes). `done`
    /// must return quickly.
    public func whenCommitted(_ ticket: JournalTicket, _ done: @escaping @Sendable (Bool) -> Void) {
        condition.lock()
        let known: Bool?
        if ticket == .dropped {
            known = false
        } else if ticket.sequence <= state.committed {
            known = !state.commitWaiters.wasDropped(ticket)
        } else {
            known = state.phase == .stopped ? false : nil
        }
        if known == nil {
            state.commitWaiters.add(ticket, done)
            // The waiter the gathering waits for ends it; later ones go into the round it starts or the next.
            if state.writerGathering && state.commitWaiters.count == state.waitersToCommit { condition.broadcast() }
        }
        condition.unlock()
        if let known { done(known) }
    }

    /// The `problem` of a large entry queued without its bodies while the writer failed
    /// (``appendOrHold(_:)``; its row keeps the bodies' sizes).
    public static let bodilessProblem =
        "the journal writer could not write (a busy or full file) and large rows filled the three quarters of its queue they may: "
        + "this row was kept without its bodies"

    /// `entry` without its bodies (their sizes kept), `problem` saying so
    /// (``bodilessProblem``), and its ``queuedSize(of:)``: how a large entry past the three
    /// quarters is queued while the writer fails (``appendOrHold(_:)``).
    private static func bodiless(_ entry: JournalEntry) -> (entry: JournalEntry, bytes: Int) {
        var entry = entry
        entry.truncateBodies(to: 0)
        entry.problem = entry.problem.map { $0 + "; " + bodilessProblem } ?? bodilessProblem
        return (entry, queuedSize(of: entry))
    }

    /// The bytes an entry counts toward ``byteCapacity``: its (truncated) bodies, its header
    /// JSON, its URL and near misses kept as their own text.
    static func queuedSize(of entry: borrowing JournalEntry) -> Int {
        var size = entry.requestBody.count + entry.responseBody.count
            + entry.requestHeaders.utf8.count + entry.responseHeaders.utf8.count + entry.url.utf8.count
        if case let .text(text)? = entry.nearMisses { size += text.utf8.count }
        return size
    }
}
