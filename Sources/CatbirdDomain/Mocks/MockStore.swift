import CatbirdMatching
import CatbirdWire
import CatbirdStorage
import Synchronization

/// Every tenant's mock table: served from memory, written through to SQLite.
///
/// A control change (update, remove, removeAll) holds the write connection for its whole
/// duration, commits to SQLite, and only then changes memory, so its 201/204 is sent after the
/// change is durable. Serving a request touches memory only; the hit counts and limits it
/// changes are written later by the journal writer (see ``JournalEntry/mockHit``).
public final class MockStore: Sendable {
    private let tables = Mutex<[TenantID: MockTable]>([:])
    private let database: SerialDatabase

    /// Loads every mock from the `mocks` table.
    /// - Throws: `SQLiteError`, or `PatternError` when a stored pattern no longer compiles.
    public init(database: SerialDatabase) throws {
        self.database = database
        let loaded = try database.use { try MockRecords.loadAll($0) }
        tables.withLock { tables in
            for mock in loaded { tables[mock.tenant, default: MockTable()].insert(mock) }
        }
    }

    /// The tenant's mocks in match order.
    public func mocks(of tenant: TenantID) -> [Mock] {
        tables.withLock { $0[tenant]?.ordered ?? [] }
    }

    /// Adds a mock, or replaces in place (same position, new id) the tenant's mock whose
    /// pattern is the same as `pattern` (Catbird 0.11 `update`; header names compared
    /// case-insensitively, see ``RequestPattern/isSamePattern(as:)``). The replacement keeps
    /// `pattern` as given, header-name spelling included.
    /// - Throws: `PatternError` for an invalid regular expression (nothing stored);
    ///   `SQLiteError` when the write fails (nothing changed).
    @discardableResult
    public func update(_ pattern: RequestPattern, response: ResponseMock, tenant: TenantID) throws -> Mock {
        let compiled = try CompiledRequestPattern(pattern)
        return try database.use { db in
            // Under the write connection, so no other control change moves these. The table's
            // highest position is never lowered while the table exists (a used-up mock's row
            // may outlive it until the journal writer deletes it); removeAll, drop and dropAll
            // delete every row before forgetting the table, so restarting at 1 is safe.
            let (replaced, highestPosition) = tables.withLock { tables in
                (tables[tenant]?.mock(samePatternAs: pattern), tables[tenant]?.highestPosition ?? 0)
            }
            let position = replaced?.position ?? highestPosition + 1
            let mock = try db.transaction {
                try TenantRecords.touch(db, tenant: tenant)
                if let replaced { try MockRecords.delete(db, id: replaced.id) }
                return try MockRecords.insert(db, tenant: tenant, position: position, pattern: compiled, response: response)
            }
            tables.withLock { tables in
                if let replaced { tables[tenant]?.remove(id: replaced.id) }
                tables[tenant, default: MockTable()].insert(mock)
            }
            return mock
        }
    }

    /// Removes the tenant's mock whose pattern is the same as `pattern` (header names compared
    /// case-insensitively, see ``RequestPattern/isSamePattern(as:)``); nothing when there is none.
    /// - Returns: whether a mock was removed.
    /// - Throws: `SQLiteError` when the write fails (nothing changed).
    @discardableResult
    public func remove(_ pattern: RequestPattern, tenant: TenantID) throws -> Bool {
        try database.use { db in
            guard let existing = tables.withLock({ $0[tenant]?.mock(samePatternAs: pattern) }) else { return false }
            try db.transaction {
                try TenantRecords.touch(db, tenant: tenant)
                try MockRecords.delete(db, id: existing.id)
            }
            tables.withLock { _ = $0[tenant]?.remove(id: existing.id) }
            return true
        }
    }

    /// Removes all of the tenant's mocks (and no other tenant's).
    /// - Throws: `SQLiteError` when the write fails (nothing changed).
    public func removeAll(tenant: TenantID) throws {
        try database.use { db in
            try db.transaction {
                try TenantRecords.touch(db, tenant: tenant)
                try MockRecords.deleteAll(db, tenant: tenant)
            }
            tables.withLock { $0[tenant] = nil }
        }
    }

    /// Serves a request: the first match among `tenant`'s mocks, else among the default
    /// tenant's (docs/tenancy.md#default-tenant). Counts the hit and removes a mock whose limit runs out.
    public func serve(tenant: TenantID, method: String, target: String, headerValue: (String) -> String?) -> MockHit? {
        tables.withLock { tables in
            if let hit = tables[tenant]?.serve(method: method, target: target, headerValue: headerValue) {
                return hit
            }
            guard !tenant.isDefault else { return nil }
            return tables[.defaultTenant]?.serve(method: method, target: target, headerValue: headerValue)
        }
    }

    /// Forgets the tenant's mocks in memory after its rows were deleted (tenant drop).
    func forget(_ tenant: TenantID) {
        tables.withLock { $0[tenant] = nil }
    }

    /// Forgets every tenant's mocks in memory after all rows were deleted.
    func forgetAll() {
        tables.withLock { $0.removeAll() }
    }
}
