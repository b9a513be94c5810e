import CatbirdMatching
import CatbirdStorage
import CatbirdSupport
import CatbirdWire
import Foundation

/// The SQL for the mocks' rows (schema: migrations/0001_initial.sql, `body_pattern` from
/// migrations/0005_mocks_body_pattern.sql). Since migrations/0014_mock_bodies_in_pieces.sql the
/// rows are in `mock_rows`, a body longer than a piece in `mock_body_pieces` (``MockBodyPieces``),
/// and `mocks` is the view users read: the server writes `mock_rows` (a write to the view runs
/// its triggers row by row).
enum MockRecords {
    /// How many mocks are stored, of how many tenants (one pass over the tenant-and-position index).
    static func count(_ db: Database) throws -> (mocks: Int, tenants: Int) {
        let row = try db.query("SELECT COUNT(*) AS mocks, COUNT(DISTINCT tenant) AS tenants FROM mock_rows").first
        return (Int(row?["mocks"].intValue ?? 0), Int(row?["tenants"].intValue ?? 0))
    }

    /// Inserts a mock's row. `body`: `response.body`'s bytes (nil: none); `bodyID`: the body's
    /// pieces, written already (``MockBodyPieces``), which the row then points at instead of
    /// holding the body; nil: the row holds it.
    static func insert(
        _ db: Database, tenant: TenantID, position: Int64, pattern: CompiledRequestPattern, response: ResponseMock,
        body: [UInt8]?, bodyID: Int64? = nil
    ) throws -> Mock {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        let headerPatterns = String(decoding: try encoder.encode(pattern.source.headers), as: UTF8.self)
        let responseHeaders = String(decoding: try encoder.encode(response.headers), as: UTF8.self)
        let bodyPattern = try pattern.source.body.map { String(decoding: try encoder.encode($0), as: UTF8.self) }
        let createdAt = Timestamp.now()
        let limit = response.effectiveLimit
        try db.run("""
            INSERT INTO mock_rows (tenant, position, method, url_kind, url_value, header_patterns, status,
                                   response_headers, response_body, remaining_limit, delay_seconds, hits, created_at,
                                   body_pattern, response_body_id)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 0, ?, ?, ?)
            """, [
                .text(tenant.rawValue), .integer(position), .text(pattern.source.method.rawValue),
                .text(pattern.source.url.kind.rawValue), .text(pattern.source.url.value), .text(headerPatterns),
                .integer(Int64(response.status)), .text(responseHeaders), bodyID == nil ? body.map { .blob($0) } ?? .null : .null,
                limit.map { .integer(Int64($0)) } ?? .null, response.delay.map { .integer(Int64($0)) } ?? .null,
                .text(createdAt), bodyPattern.map { .text($0) } ?? .null, bodyID.map { .integer($0) } ?? .null,
            ])
        return Mock(
            id: db.lastInsertRowID, tenant: tenant, position: position, pattern: pattern, response: response,
            responseBody: body ?? [], remainingLimit: limit, hits: 0, createdAt: createdAt)
    }

    static func delete(_ db: Database, id: Int64) throws {
        try db.run("DELETE FROM mock_rows WHERE id = ?", [.integer(id)])
    }

    static func deleteAll(_ db: Database, tenant: TenantID) throws {
        try db.run("DELETE FROM mock_rows WHERE tenant = ?", [.text(tenant.rawValue)])
    }

    /// Records `count` served responses of one mock: counts the hits and spends as many units
    /// of the limit, or deletes the mock when they use the limit up. Relative updates, so hits
    /// written in any order, one by one or summed, add up to the same row: `remaining_limit` =
    /// the limit − answers journaled, whichever hits were given back meanwhile (a hit that
    /// used the mock up in memory may have been followed by refunds of earlier ones, README.md
    /// ResponseMock `delay`).
    static func recordHits(_ db: Database, id: Int64, count: Int) throws {
        try db.run("""
            UPDATE mock_rows SET hits = hits + ?2,
                remaining_limit = CASE WHEN remaining_limit IS NULL THEN NULL ELSE remaining_limit - ?2 END
            WHERE id = ?1 AND (remaining_limit IS NULL OR remaining_limit > ?2)
            """, [.integer(id), .integer(Int64(count))])
        // No row changed: the limit is used up (or the mock was removed already).
        if db.changes == 0 { try delete(db, id: id) }
    }
}
