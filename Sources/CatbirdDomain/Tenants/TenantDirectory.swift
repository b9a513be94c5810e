import CatbirdStorage

/// One tenant as listed by `GET /catbird/api/tenants`.
public struct TenantSummary: Sendable, Codable, Equatable {
    /// The parallel id; "" for the default tenant.
    public var id: String
    /// Mocks in the tenant's table.
    public var mocks: Int
    /// Entries in the tenant's journal.
    public var requests: Int
    /// UTC, ISO 8601 with milliseconds.
    public var createdAt: String
    /// The last control change or journaled request (UTC, ISO 8601 with milliseconds).
    public var lastActivityAt: String
}

/// Lists tenants and drops them (mocks and journal together).
public final class TenantDirectory: Sendable {
    let mocks: MockStore
    private let journal: Journal
    let database: SerialDatabase
    let reader: DatabasePool

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

    /// Every tenant with its counts, default tenant first, then by id.
    /// - Throws: `SQLiteError`.
    public func list() throws -> [TenantSummary] {
        journal.flush()
        let rows = try reader.use { db in
            try db.query("""
                SELECT t.id, t.created_at, t.last_activity_at,
                       (SELECT COUNT(*) FROM mocks m WHERE m.tenant = t.id),
                       (SELECT COUNT(*) FROM requests r WHERE r.tenant = t.id)
                FROM tenants t ORDER BY t.id
                """)
        }
        return rows.map { row in
            TenantSummary(
                id: row[0].stringValue ?? "", mocks: Int(row[3].intValue ?? 0), requests: Int(row[4].intValue ?? 0),
                createdAt: row[1].stringValue ?? "", lastActivityAt: row[2].stringValue ?? "")
        }
    }

    /// Deletes the tenant's mocks and journal. The default tenant is emptied but kept.
    /// - Returns: false when the tenant did not exist.
    /// - Throws: `SQLiteError` (nothing changed).
    @discardableResult
    public func drop(_ tenant: TenantID) throws -> Bool {
        journal.flush()
        return try database.use { db in
            let existed = try db.transaction {
                try MockRecords.deleteAll(db, tenant: tenant)
                try JournalRecords.deleteAll(db, tenant: tenant)
                if tenant.isDefault { return true }
                try db.run("DELETE FROM tenants WHERE id = ?", [.text(tenant.rawValue)])
                return db.changes > 0
            }
            // Under the write connection, so no control change can slip in between.
            mocks.forget(tenant)
            return existed
        }
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

    /// Deletes every tenant's mocks and journal (the explicit "clear everything" admin action).
    /// - Throws: `SQLiteError` (nothing changed).
    public func dropAll() throws {
        journal.flush()
        try database.use { db in
            try db.transaction {
                try db.execute("DELETE FROM mocks; DELETE FROM requests; DELETE FROM tenants WHERE id <> '';")
            }
            mocks.forgetAll()
        }
    }
}
