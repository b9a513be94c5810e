import CatbirdStorage

/// The SQL that writes the `requests` table (schema: migrations/0001_initial.sql).
///
/// Columns as written here:
/// - `request_headers`, `response_headers`: a JSON object, one key per header name (first
///   spelling); a name sent once maps to its value as a string, a repeated name to an array of
///   its values in the order received (``JSONText/object(_:)``).
/// - `request_body`, `response_body`: at most the writer's body limit of bytes, NULL when empty;
///   `*_body_size` the full size, `*_body_truncated` 1 when only a prefix was kept.
/// - `mock_id`: the mock that answered (NULL otherwise); it may since be gone.
enum JournalRecords {
    static let insertSQL = """
        INSERT INTO requests (time, tenant, method, url, request_headers, request_body, request_body_size,
                              request_body_truncated, status, response_headers, response_body, response_body_size,
                              response_body_truncated, answered_by, mock_id, duration_ms, file_path)
        VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
        """

    /// Inserts a batch inside the caller's transaction: tenants first (the journal references
    /// them), then the rows, then the served mocks' hit counts and limits.
    /// - Returns: the highest row id inserted per tenant.
    static func insert(_ batch: [JournalEntry], into db: Database) throws -> [TenantID: Int64] {
        var latestIDs: [TenantID: Int64] = [:]
        var latest: [TenantID: String] = [:]
        for entry in batch where (latest[entry.tenant] ?? "") < entry.time { latest[entry.tenant] = entry.time }
        for (tenant, time) in latest { try TenantRecords.touch(db, tenant: tenant, at: time) }

        let statement = try db.statement(insertSQL)
        for entry in batch {
            statement.bind(.text(entry.time), at: 1)
            statement.bind(.text(entry.tenant.rawValue), at: 2)
            statement.bind(.text(entry.method), at: 3)
            statement.bind(.text(entry.url), at: 4)
            statement.bind(.text(entry.requestHeaders), at: 5)
            bindBody(entry.requestBody, fullSize: entry.requestBodySize, statement, at: 6)
            statement.bind(.text(entry.responseHeaders), at: 10)
            statement.bind(.integer(Int64(entry.status)), at: 9)
            bindBody(entry.responseBody, fullSize: entry.responseBodySize, statement, at: 11)
            statement.bind(.text(entry.answeredBy.rawValue), at: 14)
            statement.bind(entry.mockHit.map { .integer($0.mockID) } ?? .null, at: 15)
            statement.bind(.real(entry.durationMs), at: 16)
            statement.bind(entry.filePath.map { .text($0) } ?? .null, at: 17)
            try statement.run()
            latestIDs[entry.tenant] = db.lastInsertRowID
        }
        try recordHits(of: batch, into: db)
        return latestIDs
    }

    /// Writes the batch's mock hits: one `UPDATE` per mock served (its hits summed), not one per
    /// request, so a batch of a thousand hits on one mock costs one statement; a mock whose limit
    /// a hit used up is deleted.
    private static func recordHits(of batch: [JournalEntry], into db: Database) throws {
        var hits: [Int64: (count: Int, exhausted: Bool)] = [:]
        var order: [Int64] = []
        for entry in batch {
            guard let hit = entry.mockHit else { continue }
            if let seen = hits[hit.mockID] {
                hits[hit.mockID] = (seen.count + 1, seen.exhausted || hit.exhausted)
            } else {
                hits[hit.mockID] = (1, hit.exhausted)
                order.append(hit.mockID)
            }
        }
        for id in order {
            let hit = hits[id]!
            try MockRecords.recordHits(db, id: id, count: hit.count, exhausted: hit.exhausted)
        }
    }

    /// Deletes the tenant's journal rows; `db.changes` is then how many.
    static func deleteAll(_ db: Database, tenant: TenantID) throws {
        try db.run("DELETE FROM requests WHERE tenant = ?", [.text(tenant.rawValue)])
    }

    /// Binds a (possibly truncated) body at `index`, its full size at `index + 1` and its
    /// truncation flag at `index + 2`.
    private static func bindBody(_ body: [UInt8], fullSize: Int, _ statement: Statement, at index: Int32) {
        if body.isEmpty { statement.bindNull(at: index) } else { statement.bind(bytes: body, at: index) }
        statement.bind(.integer(Int64(fullSize)), at: index + 1)
        statement.bind(.integer(fullSize > body.count ? 1 : 0), at: index + 2)
    }
}
