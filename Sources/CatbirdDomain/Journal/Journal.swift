import CatbirdMatching
import CatbirdStorage
import Foundation

/// The request journal: appends go through the ``JournalWriter``; reads wait for it to flush
/// and then use the read connection, so they see every request answered before they began.
public final class Journal: Sendable {
    public let writer: JournalWriter
    private let reader: SerialDatabase
    private let database: SerialDatabase

    /// - Parameters:
    ///   - writer: the writer that owns appends.
    ///   - database: the write connection (for clearing).
    ///   - reader: a read-only connection on the same file (may be `database` itself).
    public init(writer: JournalWriter, database: SerialDatabase, reader: SerialDatabase) {
        self.writer = writer
        self.database = database
        self.reader = reader
    }

    /// Queues one entry; see ``JournalWriter/append(_:)``.
    public func append(_ entry: JournalEntry) {
        writer.append(entry)
    }

    /// One page of the tenant's journal, oldest first.
    /// - Throws: `SQLiteError`.
    public func page(of tenant: TenantID, _ query: JournalQuery) throws -> JournalPage {
        writer.flush()
        var sql = """
            SELECT id, time, tenant, method, url, request_headers, request_body, request_body_size,
                   request_body_truncated, status, response_headers, response_body, response_body_size,
                   response_body_truncated, answered_by, mock_id, duration_ms
            FROM requests WHERE tenant = ? AND id > ?
            """
        var bindings: [SQLiteValue] = [.text(tenant.rawValue), .integer(query.since ?? 0)]
        if let method = query.method { sql += " AND method = ?"; bindings.append(.text(method)) }
        if let text = query.urlContains { sql += " AND instr(url, ?) > 0"; bindings.append(.text(text)) }
        if let status = query.status { sql += " AND status = ?"; bindings.append(.integer(Int64(status))) }
        if let answeredBy = query.answeredBy { sql += " AND answered_by = ?"; bindings.append(.text(answeredBy.rawValue)) }
        sql += " ORDER BY id LIMIT ?"
        bindings.append(.integer(Int64(query.limit + 1)))
        let rows = try reader.use { try $0.query(sql, bindings) }
        let records = rows.prefix(query.limit).map(Self.record(from:))
        return JournalPage(
            requests: records, hasMore: rows.count > query.limit, nextSince: records.last?.id ?? query.since)
    }

    /// How many of the tenant's journaled requests match `pattern` (method, url, headers;
    /// Catbird 0.11 matching rules).
    /// - Throws: `SQLiteError`.
    public func count(of tenant: TenantID, matching pattern: CompiledRequestPattern) throws -> Int {
        writer.flush()
        var sql = "SELECT url, request_headers FROM requests WHERE tenant = ? AND method = ?"
        var bindings: [SQLiteValue] = [.text(tenant.rawValue), .text(pattern.source.method)]
        if let url = pattern.equalURL { sql += " AND url = ?"; bindings.append(.text(url)) }
        let rows = try reader.use { try $0.query(sql, bindings) }
        let needsHeaders = !pattern.source.headers.isEmpty
        return rows.reduce(0) { count, row in
            let headers = needsHeaders ? Self.headers(row[1].stringValue) : [:]
            let matched = pattern.matches(method: pattern.source.method, target: row[0].stringValue ?? "") { name in
                headers.first { $0.key.caseInsensitiveCompare(name) == .orderedSame }?.value
            }
            return count + (matched ? 1 : 0)
        }
    }

    /// Deletes the tenant's journal (after writing what is queued).
    /// - Returns: the number of entries deleted.
    /// - Throws: `SQLiteError`.
    @discardableResult
    public func clear(_ tenant: TenantID) throws -> Int {
        writer.flush()
        return try database.use { db in
            try db.run("DELETE FROM requests WHERE tenant = ?", [.text(tenant.rawValue)])
            return db.changes
        }
    }

    private static func record(from row: Row) -> JournalRecord {
        func message(status: Int?, headers: Int, body: Int) -> JournalRecord.Message {
            let bytes = row[body].blobValue ?? []
            return JournalRecord.Message(
                status: status, headers: Self.headers(row[headers].stringValue),
                body: bytes.isEmpty ? nil : String(validating: bytes, as: UTF8.self),
                bodyBase64: bytes.isEmpty ? nil : Data(bytes).base64EncodedString(),
                bodySize: Int(row[body + 1].intValue ?? 0), bodyTruncated: row[body + 2].intValue == 1)
        }
        return JournalRecord(
            id: row[0].intValue ?? 0, time: row[1].stringValue ?? "", tenant: row[2].stringValue ?? "",
            method: row[3].stringValue ?? "", url: row[4].stringValue ?? "",
            request: message(status: nil, headers: 5, body: 6),
            response: message(status: Int(row[9].intValue ?? 0), headers: 10, body: 11),
            answeredBy: AnsweredBy(rawValue: row[14].stringValue ?? "") ?? .none,
            mockId: row[15].intValue, durationMs: row[16].doubleValue ?? 0)
    }

    private static func headers(_ json: String?) -> [String: String] {
        guard let json else { return [:] }
        return (try? JSONDecoder().decode([String: String].self, from: Data(json.utf8))) ?? [:]
    }
}
