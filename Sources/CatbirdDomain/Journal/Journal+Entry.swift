import CatbirdStorage
@_spi(Server) import CatbirdWire

/// One side of a journaled exchange, for reading its stored body.
public enum JournalSide: String, Sendable, CaseIterable {
    case request, response
}

/// A stored body, possibly cut short by the reader.
public struct JournalBody: Sendable, Equatable {
    /// The bytes read: the stored body, or its first `limit` bytes.
    public var bytes: [UInt8]
    /// The body's size as received, in bytes (the journal may have kept only a prefix).
    public var size: Int
    /// The number of bytes the journal kept (at most the journal body limit).
    public var storedSize: Int
}

extension Journal {
    /// The tenant's entry with this id, or nil when the tenant has none such (another tenant's
    /// entry is not found either).
    /// - Parameters:
    ///   - bodies: false leaves the bodies out (their sizes stay).
    ///   - headerFields: true adds each side's header fields one by one
    ///     (``CatbirdRequest/Message/headerFields``: `GET /catbird/api/requests/{id}`).
    /// - Throws: `SQLiteError`.
    public func entry(of tenant: TenantID, id: Int64, bodies: Bool = true, headerFields: Bool = false) throws -> CatbirdRequest? {
        try writer.flushForReading(tenant)
        return try storedEntry(of: tenant, id: id, bodies: bodies, headerFields: headerFields)
    }

    /// ``entry(of:id:bodies:headerFields:)`` as the file holds it now, without waiting for the
    /// journal writer: for a caller that waited already (``firstMatch(of:matching:after:timeLimit:flushingBefore:)``,
    /// whose wait may have ended at its deadline).
    /// - Throws: `SQLiteError` when reading fails.
    func storedEntry(of tenant: TenantID, id: Int64, bodies: Bool = true, headerFields: Bool = false) throws -> CatbirdRequest? {
        let rows = try reader.use { db in
            try db.query(
                "SELECT \(Self.columns(bodies: bodies)) FROM requests WHERE tenant = ? AND id = ? AND id > ?",
                [.text(tenant.rawValue), .integer(id), .integer(deletions.hiddenThrough(tenant))])
        }
        return rows.first.map { Self.record(from: $0, headerFields: headerFields) }
    }

    /// The stored body of one side of the tenant's entry `id`, or nil when there is no such
    /// entry. Reads at most `limit` bytes (SQLite `substr` on the blob), so a preview of a large
    /// body costs no more than the preview.
    /// - Parameter limit: the most bytes to read; nil reads the whole stored body.
    /// - Throws: `SQLiteError`.
    public func body(of tenant: TenantID, id: Int64, side: JournalSide, limit: Int? = nil) throws -> JournalBody? {
        try writer.flushForReading(tenant)
        let column = side == .request ? "request_body" : "response_body"
        let rows = try reader.use { db in
            try db.query(
                """
                SELECT substr(\(column), 1, ?), \(column)_size, length(\(column))
                FROM requests WHERE tenant = ? AND id = ? AND id > ?
                """,
                // At most 2^31-1: SQLite's `substr` read a length from 2^31 up as none (tester
                // finding tester20b-F6: `?limit=2147483648`, or a client's `Int.max`, answered 200
                // with an empty body); a stored body is never that long (SQLITE_MAX_LENGTH).
                [.integer(Int64(min(limit ?? Int(Int32.max), Int(Int32.max)))), .text(tenant.rawValue), .integer(id),
                 .integer(deletions.hiddenThrough(tenant))])
        }
        guard let row = rows.first else { return nil }
        return JournalBody(
            bytes: row[0].blobValue ?? [], size: Int(row[1].intValue ?? 0), storedSize: Int(row[2].intValue ?? 0))
    }
}
