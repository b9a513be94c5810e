import Foundation

/// Waiting for the writer: the flushes behind journal reads (read your writes) and deletions.
extension JournalWriter {
    /// Blocks until every entry appended before this call is committed.
    public func flush() {
        _ = flush(through: nil)
    }

    /// Blocks until every entry of `tenant` appended before this call is committed: the
    /// entries queued before its last one too (they are written in order), but none queued
    /// after it, so another tenant's backlog queued behind never delays the tenant's reads
    /// (try9b F9: a flood of 64-KiB requests kept the queue at its 16 MiB, and a tenant with
    /// nothing queued waited for all of it).
    public func flush(for tenant: TenantID) {
        _ = flush(through: tenant)
    }

    /// ``flush(for:)`` that gives up at `deadline`: for a caller with a bound on its wait (an
    /// SQL query waits at most 5 seconds before it runs, flush included), while the writer can
    /// be held far longer (its transaction waits up to 5 s for a busy file, three times).
    /// - Returns: true when the entries are committed (or the writer stopped); false when
    ///   `deadline` came first.
    public func flush(for tenant: TenantID, before deadline: ContinuousClock.Instant) -> Bool {
        flush(through: tenant, before: deadline) == .committed
    }

    /// How long a journal read waits for the writer while its rounds fail
    /// (``flushForReading(_:)``): 5 s, the bound on a control request's wait for the database.
    public static let readPatience: Duration = .seconds(5)

    /// ``flush(for:)`` (``flush()`` when `tenant` is nil) for a journal read: waits as long as
    /// it takes while the writer's rounds succeed, but gives up once it has waited
    /// ``readPatience`` while they fail (``failure``).
    /// - Throws: ``JournalWaitError`` when it gave up.
    func flushForReading(_ tenant: TenantID?) throws {
        if let gaveUp = flushUnlessFailing(tenant) { throw gaveUp }
    }

    /// ``flushForReading(_:)`` that also gives up at `deadline`: for a read whose caller set a
    /// time (a wait's `timeout`, ``Journal/firstMatch(of:matching:after:timeLimit:flushingBefore:)``).
    /// - Returns: true when the entries are committed (or the writer stopped); false when
    ///   `deadline` came first.
    /// - Throws: ``JournalWaitError`` when it gave up after ``readPatience`` of failing rounds first.
    func flushForReading(_ tenant: TenantID?, before deadline: ContinuousClock.Instant) throws -> Bool {
        switch flush(through: tenant, before: deadline, givingUpWhileFailingAfter: Self.readPatience) {
        case .committed: return true
        case .deadlinePassed: return false
        case let .writerFailing(gaveUp): throw gaveUp
        }
    }

    /// ``flushForReading(_:)`` for a change that deletes the journal (a clear, a tenant's drop):
    /// while the writer fails, the change goes ahead after ``readPatience`` (what frees a full
    /// disk must not wait for the writer the full disk stops); the entries still queued are
    /// written after it and so are not deleted by it.
    /// - Returns: nil when the entries are committed; what a read would throw when it gave up.
    func flushUnlessFailing(_ tenant: TenantID?) -> JournalWaitError? {
        if case .writerFailing(let gaveUp) = flush(through: tenant, givingUpWhileFailingAfter: Self.readPatience) { return gaveUp }
        return nil
    }

    /// How a flush ended (``flush(through:before:givingUpWhileFailingAfter:)``).
    private enum FlushEnd: Equatable {
        /// The entries are committed, or the writer stopped.
        case committed
        /// The flush's deadline came first.
        case deadlinePassed
        /// The flush lasted its patience while the writer's rounds failed: what a read throws.
        case writerFailing(JournalWaitError)
    }

    /// The flush behind every other: waits until the entries of `tenant` appended before the call
    /// are committed (every tenant's when nil; the entries queued before its last one too, but
    /// none queued after it), and the amendments queued before it. With a `deadline`, gives up
    /// then. With a `patience`, gives up once the flush has lasted that long (counted from its
    /// start) while the writer's rounds fail (``failure``); while they succeed it waits as long
    /// as it takes, with no polling: the writer wakes its waiters when it notes a failure
    /// (``noteFailure(_:)``), as after each round.
    private func flush(
        through tenant: TenantID?, before deadline: ContinuousClock.Instant? = nil,
        givingUpWhileFailingAfter patience: Duration? = nil
    ) -> FlushEnd {
        let started = ContinuousClock.now
        condition.lock()
        defer { condition.unlock() }
        let target = tenant.map { state.lastQueued(of: $0) } ?? state.appended
        // Amendments are rare and not kept by tenant: a flush waits for all those queued before it.
        let amended = state.amendmentsQueued
        var pending: Bool { state.committed < target || state.amendmentsDone < amended }
        guard pending && state.phase < .stopped else { return .committed }
        state.flushers += 1
        defer { state.flushers -= 1 }
        if state.writerGathering { condition.broadcast() }  // a reader wants the commit now
        while pending && state.phase < .stopped {
            let now = ContinuousClock.now
            if let deadline, now >= deadline { return .deadlinePassed }
            var until = deadline
            if let patience, let failure = state.failure {
                let givingUp = started + patience
                guard now < givingUp else {
                    return .writerFailing(JournalWaitError(waitedMilliseconds: Int((now - started).milliseconds), failure: failure.reason))
                }
                until = min(until ?? givingUp, givingUp)
            }
            if let until {
                _ = condition.wait(until: Date(timeIntervalSinceNow: (until - now).timeInterval))
            } else {
                condition.wait()
            }
        }
        return .committed
    }
}
