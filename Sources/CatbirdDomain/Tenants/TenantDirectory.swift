import CatbirdStorage

/// Lists tenants (``page(after:prefix:limit:)``, ``summary(of:)``) and drops them (mocks and
/// journal together).
public final class TenantDirectory: Sendable {
    let mocks: MockStore
    let journal: Journal
    let database: SerialDatabase
    let reader: DatabasePool
    /// Work in flight per tenant, which keeps `--tenant-ttl` from dropping a tenant that is
    /// not idle (``Retention``).
    public let activity = TenantActivity()

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

    /// Waits until every journal entry queued so far is committed (``Journal/flush()``).
    func flushJournal() {
        journal.flush()
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
        journal.flush(for: tenant)
        return try database.use { db in
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
        try database.use { db in
            let removed = try db.transaction {
                try db.run("DELETE FROM mocks", [])
                return db.changes
            }
            // Under the write connection, so no control change can slip in between.
            mocks.forgetAll()
            return removed
        }
    }

    /// Deletes every tenant's mocks and journal (the explicit "clear everything" admin action);
    /// the journals as ``drop(_:)`` does, hidden at once and deleted in the background.
    /// - Throws: `SQLiteError` (nothing changed).
    public func dropAll() throws {
        journal.flush()
        try database.use { db in
            let scheduled = try Self.withoutCascade(db) {
                try db.transaction { () throws -> [(TenantID, Int64)] in
                    try db.execute("DELETE FROM mocks")
                    var scheduled: [(TenantID, Int64)] = []
                    for row in try db.query("SELECT id FROM tenants") {
                        let tenant = TenantID(row[0].stringValue ?? "")
                        if let through = try Self.scheduleJournalDeletion(db, tenant: tenant) { scheduled.append((tenant, through)) }
                    }
                    try db.execute("DELETE FROM tenants WHERE id <> ''")
                    try JournalPruned.deleteAll(db)
                    return scheduled
                }
            }
            for (tenant, through) in scheduled { journal.deletions.committed(tenant, through: through) }
            journal.pruned.forgetAll()
            mocks.forgetAll()
        }
    }
}
