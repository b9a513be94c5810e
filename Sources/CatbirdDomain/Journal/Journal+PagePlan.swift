import CatbirdStorage
import CatbirdSupport

/// A journal page found but not yet read (``Journal/pagePlan(of:_:timeLimit:)``): its entries'
/// ids and how many bytes of JSON they are expected to take, so that a caller can choose where
/// to build it before paying for it (docs/tenancy.md#fair-shares: a page of 100 entries with
/// 64-KiB bodies is 4 MiB of JSON and half a second of work, try9b F12).
public struct JournalPagePlan: Sendable {
    /// The page's entry ids in its order; one more than the query's `limit` when more follow.
    public let ids: [Int64]
    /// The JSON the page is expected to take, in bytes (``Journal/expectedBytes(of:bodies:)``):
    /// an estimate from the stored sizes, never read from the bodies themselves.
    public let expectedBytes: Int

    /// Whether the page has no entry.
    public var isEmpty: Bool { ids.isEmpty }
}

extension Journal {
    /// Bytes of JSON expected per entry besides its stored texts and bodies (field names,
    /// numbers, the time): 400.
    static let expectedEntryOverhead = 400

    /// The page `query` selects, found: its ids, and the bytes its JSON is expected to take.
    /// Build it with ``encodedPage(of:_:_:maxSize:)``.
    /// - Throws: ``JournalCountError/listingTooSlow(milliseconds:)`` as
    ///   ``encodedPage(of:_:maxSize:timeLimit:)`` does; `SQLiteError`.
    public func pagePlan(of tenant: TenantID, _ query: JournalQuery, timeLimit: Duration = defaultCountTimeLimit) throws -> JournalPagePlan {
        let ids = try pageIDs(of: tenant, query, timeLimit: timeLimit)
        let listed = Array(ids.prefix(query.limit))
        return JournalPagePlan(ids: ids, expectedBytes: listed.isEmpty ? 0 : try expectedBytes(of: listed, bodies: query.includeBodies))
    }

    /// `plan`'s page as JSON; see ``encodedPage(of:ids:_:maxSize:)`` (an entry deleted since
    /// the plan was made is left out).
    /// - Throws: `SQLiteError`.
    public func encodedPage(of tenant: TenantID, _ plan: JournalPagePlan, _ query: JournalQuery, maxSize: Int = maxPageSize) throws
        -> EncodedJournalPage
    {
        try encodedPage(of: tenant, ids: plan.ids, query, maxSize: maxSize)
    }

    /// The JSON the entries `ids` are expected to take, in bytes: their stored texts (URL,
    /// headers, near misses, problem), with `bodies` their bodies at 4/3 of their stored bytes
    /// (base64, or text with escapes), plus ``expectedEntryOverhead`` each. Read from the rows by
    /// their ids with blob lengths (SQLite reads no body's overflow pages for them), the shared
    /// response bodies' from `journal_bodies`.
    /// - Throws: `SQLiteError`.
    func expectedBytes(of ids: [Int64], bodies: Bool) throws -> Int {
        let shared = "ifnull((SELECT length(b.body) FROM journal_bodies b WHERE b.id = r.response_body_id), 0)"
        let bodyBytes = "ifnull(length(r.request_body), 0) + ifnull(length(r.response_body), 0) + \(shared)"
        let row = try reader.use { db in
            try db.query(
                """
                SELECT sum(\(JournalBytes.rowBytes("r.")) - ifnull(length(r.request_body), 0) - ifnull(length(r.response_body), 0)
                           + ifnull(r.near_misses_length, 0)),
                       sum(\(bodyBytes))
                FROM journal_rows r WHERE r.id IN \(Self.boundIDs)
                """, [Self.idList(ids)]
            ).first
        }
        let texts = Int(row?[0].intValue ?? 0)
        let bodyTotal = bodies ? Int(row?[1].intValue ?? 0) * 4 / 3 : 0
        return texts + bodyTotal + ids.count * Self.expectedEntryOverhead
    }
}
