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

/// A page of tenants in id order (``TenantDirectory/page(after:prefix:limit:)``).
public struct TenantPage: Sendable, Equatable {
    /// At most the page's limit of tenants, by id (bytes, as SQLite orders them: the default
    /// tenant `""` first).
    public var tenants: [TenantSummary]
    /// Whether more tenants (with the prefix asked) come after the page's last one: ask again
    /// with its id as `after`.
    public var hasMore: Bool
}

extension TenantDirectory {
    /// The most tenants on one page, and the default: 1,000. A page of them is at most about
    /// 6.3 MB of JSON (a 1,024-byte id written as `\u00XX` escapes, 6 bytes a byte, plus the
    /// row's other fields), and takes one read of the `tenants` primary key plus two counts
    /// (of the tenant's mocks and journal, each on an index by tenant) per tenant listed: work
    /// and memory by the page, never by how many tenants the server holds (tester finding
    /// T11-F3: 248,909 tenants listed whole took 0.6-3.5 s and 34.5 MB, the answer built in
    /// memory several times over, and left the server's memory at 814 MB).
    public static let maxPageSize = 1000

    /// Tenants in id order with their counts: those whose id comes after `after` (all when
    /// nil) and starts with `prefix` (all when nil or empty), at most `limit`.
    /// - Parameters:
    ///   - after: the last id of the page before (exclusive), or nil for the first page.
    ///   - prefix: the start of the ids listed, compared byte by byte.
    ///   - limit: the most tenants listed, 1 to ``maxPageSize``.
    /// - Throws: `SQLiteError`.
    public func page(after: TenantID?, prefix: String? = nil, limit: Int) throws -> TenantPage {
        let limit = min(max(1, limit), Self.maxPageSize)
        try journal.flushForReading(nil)
        var conditions: [String] = []
        var parameters: [SQLiteValue] = []
        if let after {
            conditions.append("t.id > ?")
            parameters.append(.text(after.rawValue))
        }
        if let prefix, !prefix.isEmpty {
            // The ids that start with the prefix are one range of the primary key.
            conditions.append("t.id >= ?")
            parameters.append(.text(prefix))
            if let end = Self.end(ofPrefix: prefix) {
                conditions.append("t.id < ?")
                parameters.append(.text(end))
            }
        }
        let filter = conditions.isEmpty ? "" : "WHERE " + conditions.joined(separator: " AND ")
        parameters.append(.integer(Int64(limit + 1)))
        let rows = try reader.use { db in try db.query("\(Self.summarySelect) \(filter) ORDER BY t.id LIMIT ?", parameters) }
        return TenantPage(tenants: rows.prefix(limit).map(Self.summary), hasMore: rows.count > limit)
    }

    /// The tenant's own row with its counts, nil when it has none yet: one read of the
    /// `tenants` primary key (what a shard's `GET /catbird/api/tenants` lists).
    /// - Throws: `SQLiteError`.
    public func summary(of tenant: TenantID) throws -> TenantSummary? {
        try journal.flushForReading(tenant)
        let rows = try reader.use { db in try db.query("\(Self.summarySelect) WHERE t.id = ?", [.text(tenant.rawValue)]) }
        return rows.first.map(Self.summary)
    }

    /// The smallest text above every text that starts with `prefix`: the prefix with its last
    /// character replaced by the next one (UTF-8's byte order is the characters' order, and no
    /// character's bytes start another's), dropping trailing U+10FFFF; nil when nothing is above.
    static func end(ofPrefix prefix: String) -> String? {
        var scalars = Array(prefix.unicodeScalars)
        while let last = scalars.popLast() {
            let next = last.value == 0xD7FF ? 0xE000 : last.value + 1
            if let scalar = Unicode.Scalar(next) {
                scalars.append(scalar)
                return String(String.UnicodeScalarView(scalars))
            }
        }
        return nil
    }

    /// The columns of a ``TenantSummary``, from `tenants t`: the id, its times, and the counts
    /// of its mocks and of its journal entries not hidden by a clear or drop.
    private static let summarySelect = """
        SELECT t.id, t.created_at, t.last_activity_at,
               (SELECT COUNT(*) FROM mock_rows m WHERE m.tenant = t.id),
               (SELECT COUNT(*) FROM journal_rows r WHERE r.tenant = t.id AND r.id > \(JournalDeletions.floorSQL))
        FROM tenants t
        """.replacingOccurrences(of: "tenant = ?), 0)", with: "tenant = t.id), 0)")

    private static func summary(_ row: Row) -> TenantSummary {
        TenantSummary(
            id: row[0].stringValue ?? "", mocks: Int(row[3].intValue ?? 0), requests: Int(row[4].intValue ?? 0),
            createdAt: row[1].stringValue ?? "", lastActivityAt: row[2].stringValue ?? "")
    }
}
