import CatbirdStorage

/// Lists tenants (``page(after:prefix:limit:)``, ``summary(of:)``) and drops them (mocks and
/// journal together).
public final class TenantDirectory: Sendable {
    let mocks: MockStore
    let journal: Journal
    let database: SerialDatabase
    let reader: DatabasePool
    /// Work in flight per tenant, which keeps `--tenant-ttl` from dropping a tenant that is
    /// not idle (``Retention``); the journal writer's, which tells it of journaled requests.
    public var activity: TenantActivity { journal.writer.activity }

    public init(mocks: MockStore, journal: Journal, database: SerialDatabase, reader: DatabasePool) {
        self.mocks = mocks
        self.journal = journal
        self.database = database
        self.reader = reader
    }

    /// Reads the tenants table on the read connection: throws when the database does not
    /// answer (the health check).
    /// - Throws: `SQLiteError`.
    public func checkReadable() throws {
        _ = try reader.use { try $0.query("SELECT COUNT(*) FROM tenants") }
    }

    /// Waits until every journal entry queued so far is committed, or 5 s while the writer
    /// fails (``Journal/flushUnlessFailing(_:)``).
    func flushJournal() {
        _ = journal.flushUnlessFailing(nil)  // a failing writer does not hold retention (nor the stop that waits for it)
    }

    /// Deletes the tenant's mocks and journal. The default tenant is emptied but kept.
    ///
    /// Answers at once whatever the journal's size: the mocks and the tenant's row go in one
    /// transaction, and the journal is hidden from every read and deleted in the background
    /// (``JournalDeletions``). Foreign keys are off for that transaction, so deleting the
    /// tenant's row does not cascade into its journal; a request of the same parallel id
    /// afterwards starts a new tenant whose journal holds only what comes next.
    /// - Returns: false when the tenant did not exist.
    /// - Throws: `SQLiteError` (nothing changed).
    @discardableResult
    public func drop(_ tenant: TenantID) throws -> Bool {
        _ = journal.flushUnlessFailing(tenant)  // as a clear (Journal.clear)
        return try database.useWithinBusyTimeout { db in
            let (existed, through) = try Self.withoutCascade(db) {
                try db.transaction { () throws -> (Bool, Int64?) in
                    try MockRecords.deleteAll(db, tenant: tenant)
                    let through = try Self.scheduleJournalDeletion(db, tenant: tenant)
                    try JournalPruned.delete(db, tenant)
                    if tenant.isDefault { return (true, through) }
                    try db.run("DELETE FROM tenants WHERE id = ?", [.text(tenant.rawValue)])
                    return (db.changes > 0, through)
                }
            }
            if let through { journal.deletions.committed(tenant, through: through) }
            // Under the write connection, so no control change (nor retention) can slip in between.
            journal.pruned.forget(tenant)
            journal.forget(tenant)
            activity.forget(tenant)
            mocks.forget(tenant)
            return existed
        }
    }

    /// Hides the tenant's journal from readers and queues its deletion (inside the caller's
    /// transaction).
    /// - Returns: the highest id hidden, nil when the tenant has no journal.
    private static func scheduleJournalDeletion(_ db: Database, tenant: TenantID) throws -> Int64? {
        let through = try db.query("SELECT max(id) FROM journal_rows WHERE tenant = ?", [.text(tenant.rawValue)]).first?[0].intValue
        if let through { try JournalDeletions.schedule(db, tenant: tenant, through: through) }
        return through
    }

    /// `body` with foreign keys off on `db` (outside any transaction, as SQLite requires), so
    /// deleting a tenant's row leaves its journal rows to ``JournalDeletions``.
    private static func withoutCascade<T>(_ db: Database, _ body: () throws -> T) throws -> T {
        try db.execute("PRAGMA foreign_keys=OFF")
        defer { try? db.execute("PRAGMA foreign_keys=ON") }
        return try body()
    }

    /// Deletes every tenant's mocks, default tenant included, and keeps every journal and tenant
    /// row (the admin's "start clean" action, run by `deploy/xcode/start.sh` at the start of a
    /// test run: mocks left by an earlier, perhaps crashed, run must not answer the new one,
    /// while its journal stays queryable).
    /// - Returns: how many mocks were deleted.
    /// - Throws: `SQLiteError` (nothing changed).
    @discardableResult
    public func removeEveryTenantsMocks() throws -> Int {
        try database.useWithinBusyTimeout { db in
            let removed = try db.transaction {
                try db.run("DELETE FROM mock_rows", [])
                return db.changes
            }
            // Under the write connection, so no control change can slip in between.
            mocks.forgetAll()
            return removed
        }
    }

    /// Deletes every tenant's mocks and journal (the explicit "clear everything" admin action);
    /// the journals as ``drop(_:)`` does, hidden at once and deleted in the background.
    ///
    /// A few statements whatever the number of tenants: the journal is hidden up to its highest
    /// id by one floor for every tenant (``JournalDeletions/scheduleEveryTenant(_:through:)``),
    /// not one floor per tenant, so the rows of a tenant whose row was already gone (a request
    /// answered after its tenant's drop) go too. Dropping 64,000 tenants read each one's highest
    /// id and wrote a floor for each before it answered: 3.9 s.
    /// - Returns: how many tenants were dropped (every row of `tenants` but the default
    ///   tenant's, which is emptied and kept).
    /// - Throws: `SQLiteError` (nothing changed).
    @discardableResult
    public func dropAll() throws -> Int {
        _ = journal.flushUnlessFailing(nil)  // as a clear (Journal.clear)
        return try database.useWithinBusyTimeout { db in
            let (dropped, through) = try Self.withoutCascade(db) {
                try db.transaction { () throws -> (Int, Int64?) in
                    try db.execute("DELETE FROM mock_rows")
                    let through = try db.query("SELECT max(id) FROM journal_rows").first?[0].intValue
                    if let through { try JournalDeletions.scheduleEveryTenant(db, through: through) }
                    try db.execute("DELETE FROM tenants WHERE id <> ''")
                    let dropped = db.changes
                    try JournalPruned.deleteAll(db)
                    return (dropped, through)
                }
            }
            if let through { journal.deletions.committedEveryTenant(through: through) }
            // Under the write connection, so no control change (nor retention) can slip in between.
            journal.pruned.forgetAll()
            journal.forgetEveryTenant()
            activity.forgetEnded()
            mocks.forgetAll()
            return dropped
        }
    }
}
