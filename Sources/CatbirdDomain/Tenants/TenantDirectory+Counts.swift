extension TenantDirectory {
    /// How many tenants (the default tenant included) and mocks (every tenant's) are stored,
    /// read on the read connection; for `/catbird/metrics`.
    /// - Throws: `SQLiteError`.
    public func counts() throws -> (tenants: Int, mocks: Int) {
        try reader.use { db in
            let row = try db.query("SELECT (SELECT COUNT(*) FROM tenants), (SELECT COUNT(*) FROM mock_rows)").first
            return (Int(row?[0].intValue ?? 0), Int(row?[1].intValue ?? 0))
        }
    }

    /// Per-tenant entries held in memory, by kind: mock tables, pending journal deletions of one
    /// tenant, retention's notes, remembered journal commits, tenants with journal waiters, and
    /// tenants with work in flight or just ended (for `/catbird/metrics`). What a drop must let
    /// go: after every tenant is dropped only the tenants used since (and the default tenant's
    /// table) are left, whatever the number dropped (about 470 bytes stayed per tenant dropped).
    public func memoryEntries() -> [(kind: String, count: Int)] {
        let commits = journal.waiters.tenantEntries
        return [
            ("mock_tables", mocks.tenantTables),
            ("journal_deletions", journal.deletions.tenantsPending),
            ("retention_notes", journal.pruned.tenantEntries),
            ("journal_commits", commits.remembered),
            ("journal_waiters", commits.waiting),
            ("activity", activity.tenantEntries),
        ]
    }
}
