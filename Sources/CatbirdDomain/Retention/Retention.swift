import CatbirdStorage
import CatbirdSupport
import Foundation

/// Applies a ``RetentionPolicy`` in small batches (docs/operations.md#retention): each batch is
/// one short statement on the write connection of at most ``batchSize`` rows, and the
/// connection is let go between batches, so journal writes and control changes interleave with
/// pruning instead of waiting for it.
///
/// Journal rows are pruned oldest first by id (ids grow with arrival, so the oldest rows are
/// the lowest ids): no scan of the whole table per pass.
public final class Retention: Sendable {
    /// Rows deleted per statement at most: 500.
    public static let batchSize = 500
    public let policy: RetentionPolicy
    private let directory: TenantDirectory
    /// The journal's bytes, counted for ``RetentionPolicy/journalMaxBytes``.
    private let journalBytes = JournalBytes()

    public init(policy: RetentionPolicy, directory: TenantDirectory) {
        self.policy = policy
        self.directory = directory
    }

    /// One pass over every limit of the policy, at most `maxBatches` statements in all (the
    /// next pass continues a large backlog).
    /// - Parameter now: the time the ages are measured from.
    /// - Returns: what was removed.
    /// - Throws: `SQLiteError`; what was deleted before the failure stays deleted (each batch
    ///   is complete in itself).
    public func prune(now: Date = Date(), maxBatches: Int = 200) throws -> RetentionPass {
        var pass = RetentionPass()
        var budget = maxBatches
        if let age = policy.journalMaxAge {
            pass.journalRowsByAge = try pruneJournal(olderThan: Timestamp.string(from: now - age.timeInterval), budget: &budget)
        }
        if let maxRows = policy.journalMaxRows {
            pass.journalRowsOverLimit = try pruneJournal(keeping: maxRows, budget: &budget)
        }
        if let maxBytes = policy.journalMaxBytes {
            pass.journalRowsOverBytes = try pruneJournal(keepingBytes: maxBytes, into: &pass, budget: &budget)
        }
        if let ttl = policy.tenantTTL {
            let cutoff = now - ttl.timeInterval
            directory.activity.forget(endedBefore: cutoff)
            try dropTenants(idleSince: cutoff, into: &pass, budget: &budget)
        }
        pass.unfinished = budget <= 0
        return pass
    }

    private var database: SerialDatabase { directory.database }

    /// Deletes journal rows whose `time` is before `cutoff`, lowest ids first, stopping at the
    /// first row that is not that old.
    private func pruneJournal(olderThan cutoff: String, budget: inout Int) throws -> Int {
        var deleted = 0
        while budget > 0 {
            budget -= 1
            let removed = try database.use { db -> Int in
                let rows = try db.query("SELECT id, time FROM journal_rows ORDER BY id LIMIT ?", [.integer(Int64(Self.batchSize))])
                var last: Int64?
                for row in rows {
                    guard let time = row[1].stringValue, time < cutoff, let id = row[0].intValue else { break }
                    last = id
                }
                guard let last else { return 0 }
                try db.run("DELETE FROM journal_rows WHERE id <= ? AND time < ?", [.integer(last), .text(cutoff)])
                return db.changes
            }
            deleted += removed
            if removed < Self.batchSize { break }
        }
        return deleted
    }

    /// Deletes the oldest journal rows beyond `maxRows`.
    private func pruneJournal(keeping maxRows: Int, budget: inout Int) throws -> Int {
        // max(id) - min(id) + 1 is at least the row count (ids only grow; deletes leave gaps):
        // when it is within the limit, no COUNT(*) over the table is needed.
        var excess = try database.use { db -> Int in
            let span = try db.query("SELECT max(id) - min(id) + 1 FROM journal_rows").first?[0].intValue ?? 0
            guard span > maxRows else { return 0 }
            return Int(try db.query("SELECT COUNT(*) FROM journal_rows").first?[0].intValue ?? 0) - maxRows
        }
        var deleted = 0
        while excess > 0 && budget > 0 {
            budget -= 1
            let removed = try database.use { db -> Int in
                try db.run(
                    "DELETE FROM journal_rows WHERE id IN (SELECT id FROM journal_rows ORDER BY id LIMIT ?)",
                    [.integer(Int64(min(excess, Self.batchSize)))])
                return db.changes
            }
            if removed == 0 { break }
            deleted += removed
            excess -= removed
        }
        return deleted
    }

    /// Deletes the oldest journal rows while the journal holds more than `maxBytes`
    /// (``JournalBytes``): first counts what was written since the last pass (a restarted
    /// server counts its whole journal over its first passes, deleting nothing by bytes until
    /// then), then deletes, oldest id first, just enough rows to bring the count within the
    /// limit. Rows written after the count are never deleted by it: the newest rows that fit
    /// in the limit are always kept.
    private func pruneJournal(keepingBytes maxBytes: Int, into pass: inout RetentionPass, budget: inout Int) throws -> Int {
        var countedAll = false
        while !countedAll && budget > 0 {
            budget -= 1
            countedAll = try database.use { db in try journalBytes.catchUp(db) }
        }
        guard countedAll else { return 0 }
        var deleted = 0
        while budget > 0 {
            budget -= 1
            let (removed, bytes) = try database.use { db -> (Int, Int) in
                let bytes = try journalBytes.bytes(db)
                var excess = bytes - maxBytes
                guard excess > 0 else { return (0, bytes) }
                var last: Int64?
                for row in try journalBytes.oldest(db, limit: Self.batchSize) where excess > 0 {
                    last = row.id
                    excess -= row.bytes
                }
                guard let last else { return (0, bytes) }
                try db.run("DELETE FROM journal_rows WHERE id <= ?", [.integer(last)])
                return (db.changes, try journalBytes.bytes(db))
            }
            pass.journalBytes = bytes
            if removed == 0 { break }
            deleted += removed
        }
        return deleted
    }

    /// Drops tenants (never the default tenant) idle since `cutoff`: last active before it
    /// (`last_activity_at`: their last control change or journaled request) and with no work in
    /// flight nor ended since (``TenantActivity``: a delayed answer, a parked wait). Their
    /// journal goes in batches, each deleted only while the tenant is still idle, then their
    /// mocks and row in one transaction that checks again, after every journal entry queued
    /// so far is committed (a request answered just before counts as activity).
    private func dropTenants(idleSince cutoffDate: Date, into pass: inout RetentionPass, budget: inout Int) throws {
        let cutoff = Timestamp.string(from: cutoffDate)
        let activity = directory.activity
        let idle = try database.use { db in
            try db.query(
                "SELECT id FROM tenants WHERE id <> '' AND last_activity_at < ? ORDER BY last_activity_at LIMIT ?",
                [.text(cutoff), .integer(Int64(Self.batchSize))]
            ).compactMap { $0[0].stringValue }
        }
        for id in idle where budget > 0 {
            let tenant = TenantID(id)
            let stillIdle = "(SELECT last_activity_at FROM tenants WHERE id = ?) < ?"
            var journalRows = 0
            while budget > 0, !activity.isBusy(tenant, since: cutoffDate) {
                budget -= 1
                let removed = try database.use { db -> Int in
                    try db.run(
                        "DELETE FROM journal_rows WHERE id IN (SELECT id FROM journal_rows WHERE tenant = ? ORDER BY id LIMIT ?) AND \(stillIdle)",
                        [.text(id), .integer(Int64(Self.batchSize)), .text(id), .text(cutoff)])
                    return db.changes
                }
                journalRows += removed
                if removed < Self.batchSize { break }
            }
            pass.idleTenantJournalRows += journalRows
            guard budget > 0 else { return }
            guard !activity.isBusy(tenant, since: cutoffDate) else { continue }
            budget -= 1
            // Entries queued before this point are committed, their tenants' activity set.
            directory.flushJournal()
            let mocks = try database.use { db -> Int? in
                let dropped = try db.transaction { () -> Int? in
                    // Checked again under the write connection: work begun since keeps the tenant.
                    guard try db.query("SELECT 1 WHERE \(stillIdle)", [.text(id), .text(cutoff)]).first != nil,
                          !activity.isBusy(tenant, since: cutoffDate)
                    else { return nil }
                    try MockRecords.deleteAll(db, tenant: tenant)
                    let mocks = db.changes
                    try JournalRecords.deleteAll(db, tenant: tenant)
                    pass.idleTenantJournalRows += db.changes
                    try db.run("DELETE FROM tenants WHERE id = ?", [.text(id)])
                    return mocks
                }
                // Under the write connection, so no control change can slip in between.
                if dropped != nil { directory.mocks.forget(tenant) }
                return dropped
            }
            if let mocks {
                pass.idleTenants += 1
                pass.idleTenantMocks += mocks
            }
        }
    }
}
