extension TenantDirectory {
    /// How many tenants (the default tenant included) and mocks (every tenant's) are stored,
    /// read on the read connection; for `/catbird/metrics`.
    /// - Throws: `SQLiteError`.
    public func counts() throws -> (tenants: Int, mocks: Int) {
        try reader.use { db in
            let row = try db.query("SELECT (SELECT COUNT(*) FROM tenants), (SELECT COUNT(*) FROM mocks)").first
            return (Int(row?[0].intValue ?? 0), Int(row?[1].intValue ?? 0))
        }
    }
}
