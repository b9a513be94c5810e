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
        let path = try reader.use { $0.path }
        return SerialDatabase(try Database(path: path, mode: .readOnly), faults: reader.faults)
    }

    /// Up to `count` of the tenant's entries the query selects (its filters and order; its
    /// `limit` is not used), continuing after the entry `cursor` in that order (nil: from the
    /// start), read on `connection` (from ``exportConnection()``). Does not wait for the journal
    /// writer: call ``flush()`` once before a series.
    /// - Throws: `SQLiteError`.
    public func exportPage(
        of tenant: TenantID, _ query: JournalQuery, after cursor: Int64?, count: Int, on connection: SerialDatabase
    ) throws -> [JournalExportEntry] {
        var query = query
        if let cursor {
            if query.newestFirst { query.before = min(query.before ?? cursor, cursor) } else { query.since = max(query.since ?? 0, cursor) }
        }
        let (sql, bindings) = Self.select(
            Self.columns(bodies: query.includeBodies), of: tenant, query, limit: count, hiddenThrough: deletions.hiddenThrough(tenant))
        let rows = try connection.use { try $0.query(sql, bindings) }
        return rows.map { row in
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
        }
    }

    /// Whether the tenant's entry `id` is still in the journal as readers see it: neither
    /// deleted (retention) nor hidden by a clear or a drop (``JournalDeletions``), read on
    /// `connection`. An export asks it of the last entry it wrote when it finds no more: a clear
    /// during the export also ends it, and must not pass for the journal's end (T11-F11).
    /// - Throws: `SQLiteError`.
    public func stillHolds(entry id: Int64, of tenant: TenantID, on connection: SerialDatabase) throws -> Bool {
        guard id > deletions.hiddenThrough(tenant) else { return false }
        let rows = try connection.use {
            try $0.query("SELECT 1 FROM journal_rows WHERE id = ? AND tenant = ?", [.integer(id), .text(tenant.rawValue)])
        }
        return !rows.isEmpty
    }
}
