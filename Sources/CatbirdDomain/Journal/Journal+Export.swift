import CatbirdStorage
@_spi(Server) import CatbirdWire

/// A journal entry with what an export needs beyond the listing's shape: each header field once
/// per value (the listing joins repeated ones), the stored time text as written.
public struct JournalExportEntry: Sendable {
    public var id: Int64
    /// UTC, ISO 8601 with milliseconds (`2026-11-30T18:31:34.225Z`).
    public var time: String
    public var tenant: String
    public var method: String
    /// The request-target as received (origin form, or absolute form in proxy mode).
    public var url: String
    public var request: Message
    public var response: Message
    public var status: Int
    public var answeredBy: String
    public var mockID: Int64?
    /// Milliseconds from arrival until the answer was ready, plus a mock's delay.
    public var durationMs: Double
    public var filePath: String?
    /// Why the request has no answer of Catbird's own (libmicrohttpd refused it, the client
    /// left, the connection timed out), one sentence; nil for an answered request
    /// (docs/protocol.md#what-libmicrohttpd-answers-itself).
    public var problem: String?

    /// One side of the exchange.
    public struct Message: Sendable {
        /// One pair per value received; names sorted (``JournalHeaders/pairs``).
        public var headers: [(name: String, value: String)]
        /// The stored body (at most the journal body limit).
        public var body: [UInt8]
        /// The full size in bytes, as received or sent.
        public var bodySize: Int
        /// Whether only the first `body.count` bytes were kept.
        public var bodyTruncated: Bool
    }
}

extension Journal {
    /// A read-only connection of its own on the journal's database, for a long series of reads
    /// (an export read while the client downloads it): those reads then never wait behind the
    /// shared reader's other users (SQLite's WAL lets readers run side by side). Its failures
    /// are reported where the shared reader's are (``DatabasePool/faults``), so a corrupt page
    /// an export meets shows in the server's health as any other read's does.
    /// - Throws: `SQLiteError` when the file cannot be opened.
    public func exportConnection() throws -> SerialDatabase {
        let path = try reader.use { $0.path }  // refused once the file was truncated (StorageFaults.checkTruncation)
        let connection = try Database(path: path, mode: .readOnly)
        _ = try connection.query("PRAGMA schema_version")  // opens the WAL at once, as the shared reader's connections do
        return SerialDatabase(connection, faults: reader.faults, checksFile: false, checksTruncation: true)
    }

    /// Up to `count` of the tenant's entries the query selects (its filters and order; its
    /// `limit` is not used), continuing after the entry `cursor` in that order (nil: from the
    /// start), read on `connection` (from ``exportConnection()``). Does not wait for the journal
    /// writer: call ``flush()`` once before a series.
    /// - Returns: the entries, and the highest id of the tenant's entries retention had deleted
    ///   as they were read (``prunedThrough(of:reading:on:)``).
    /// - Throws: `SQLiteError`.
    public func exportPage(
        of tenant: TenantID, _ query: JournalQuery, after cursor: Int64?, count: Int, on connection: SerialDatabase
    ) throws -> (entries: [JournalExportEntry], prunedThrough: Int64) {
        let query = Self.continuing(query, after: cursor)
        let (sql, bindings) = Self.select(
            Self.columns(bodies: query.includeBodies), of: tenant, query, limit: count, hiddenThrough: deletions.hiddenThrough(tenant))
        let (rows, prunedThrough) = try Self.prunedThrough(of: tenant, reading: { try $0.query(sql, bindings) }, on: connection)
        return (rows.map { row in
            func message(headers: Int, body: Int) -> JournalExportEntry.Message {
                JournalExportEntry.Message(
                    headers: JournalHeaders(json: row[headers].stringValue).pairs, body: row[body].blobValue ?? [],
                    bodySize: Int(row[body + 1].intValue ?? 0), bodyTruncated: row[body + 2].intValue == 1)
            }
            return JournalExportEntry(
                id: row[0].intValue ?? 0, time: row[1].stringValue ?? "", tenant: row[2].stringValue ?? "",
                method: row[3].stringValue ?? "", url: row[4].stringValue ?? "",
                request: message(headers: 5, body: 6), response: message(headers: 10, body: 11),
                status: Int(row[9].intValue ?? 0), answeredBy: row[14].stringValue ?? "", mockID: row[15].intValue,
                durationMs: row[16].doubleValue ?? 0, filePath: row[17].stringValue, problem: row[19].stringValue)
        }, prunedThrough)
    }

    /// The stored bytes of up to `count` of the tenant's entries the query selects after the
    /// entry `cursor`, as ``exportPage(of:_:after:count:on:)`` would read them: each entry's url,
    /// header fields and bodies (only with `query.includeBodies`), read on `connection` without
    /// the bodies themselves (SQLite takes a blob's length from its record; a response body
    /// shared with other entries, ``JournalBodies``, counts as its full size, at most
    /// `bodyLimit` bytes, the most a journal row keeps).
    /// - Returns: how many entries there are (at most `count`) and their bytes together.
    /// - Throws: `SQLiteError`.
    public func exportSize(
        of tenant: TenantID, _ query: JournalQuery, after cursor: Int64?, count: Int, bodyLimit: Int, on connection: SerialDatabase
    ) throws -> (entries: Int, bytes: Int) {
        let query = Self.continuing(query, after: cursor)
        let bodies = query.includeBodies
            ? " + ifnull(length(request_body), 0) + min(response_body_size, \(max(0, bodyLimit)))" : ""
        let (sql, bindings) = Self.select(
            "length(url) + length(request_headers) + ifnull(length(response_headers), 0)\(bodies) AS bytes", of: tenant, query,
            limit: count, hiddenThrough: deletions.hiddenThrough(tenant))
        let row = try connection.use { try $0.query("SELECT count(*), total(bytes) FROM (\(sql))", bindings) }.first
        return (Int(row?[0].intValue ?? 0), Int(row?[1].doubleValue ?? 0))
    }

    /// `query` continued after the entry `cursor` in its order (nil: from its start).
    private static func continuing(_ query: JournalQuery, after cursor: Int64?) -> JournalQuery {
        var query = query
        if let cursor {
            if query.newestFirst { query.before = min(query.before ?? cursor, cursor) } else { query.since = max(query.since ?? 0, cursor) }
        }
        return query
    }

    /// The id of the last entry an export of `query` writes: the newest it selects (the oldest
    /// with `newestFirst`), nil when it selects none; read on `connection` once, when the export
    /// begins. Entries journaled later are past an export's `before`, so no later entry takes
    /// its place: an export that reaches the end of its pages without having written it lost
    /// entries it had not sent to a clear, a drop or retention (T11-F11), and one that wrote it
    /// is whole, whatever was deleted after that (docs/protocol.md#har-export).
    /// - Returns: that id, and the highest id of the tenant's entries retention had deleted then
    ///   (``prunedThrough(of:reading:on:)``).
    /// - Throws: `SQLiteError`.
    public func exportEnd(of tenant: TenantID, _ query: JournalQuery, on connection: SerialDatabase) throws -> (end: Int64?, prunedThrough: Int64) {
        var reversed = query
        reversed.newestFirst.toggle()
        let (sql, bindings) = Self.select("id", of: tenant, reversed, limit: 1, hiddenThrough: deletions.hiddenThrough(tenant))
        let (rows, prunedThrough) = try Self.prunedThrough(of: tenant, reading: { try $0.query(sql, bindings) }, on: connection)
        return (rows.first?[0].intValue, prunedThrough)
    }

    /// `read`'s rows, and the highest id of the tenant's entries retention had deleted
    /// (`journal_pruned`; 0: none), in one read transaction, so both are of one moment: retention
    /// notes the id before it deletes the rows (``JournalPruned``), so rows missing from the
    /// read are in the note. An oldest-first export whose page meets a note past where it stood
    /// lost entries it had not sent (docs/protocol.md#har-export).
    /// - Throws: `SQLiteError`.
    private static func prunedThrough(
        of tenant: TenantID, reading read: (Database) throws -> [Row], on connection: SerialDatabase
    ) throws -> ([Row], Int64) {
        try connection.use { db in
            try db.readTransaction {
                let rows = try read(db)
                let note = try db.query("SELECT through_id FROM journal_pruned WHERE tenant = ?", [.text(tenant.rawValue)])
                return (rows, note.first?[0].intValue ?? 0)
            }
        }
    }
}
