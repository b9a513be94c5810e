import CatbirdStorage
import CatbirdSupport
@_spi(Server) import CatbirdWire
import Foundation

/// A journal page as the JSON every journal-page route answers (``CatbirdRequestPage``'s
/// shape: the listing, the unmatched listing, find), built entry by entry and bounded in bytes.
public struct EncodedJournalPage: Sendable {
    /// The whole answer: `{"requests":[…],"hasMore":…,"nextBefore":…,"nextSince":…,"sizeLimited":…}`
    /// and `"prunedThrough":…` when it is set (the entries first, so the answer is written once,
    /// in place).
    public var json: [UInt8]
    /// How many entries it holds.
    public var entryCount: Int
    /// Whether more entries follow (by the page size or by the size limit).
    public var hasMore: Bool
    /// Whether the page stopped early because the next entry would have passed the size limit.
    public var sizeLimited: Bool
    /// The highest id of the tenant's entries retention deleted (``JournalPruned``) when the
    /// page's range reached them (``Journal/prunedThrough(of:_:hasMore:)``); nil otherwise.
    public var prunedThrough: Int64?
}

extension EncodedJournalPage {
    /// Adds the member `"name": value` at the end of the answer's object, `value` being JSON
    /// text already (a number, or a quoted string); `name` must not be a member already.
    public mutating func appendMember(_ name: String, json value: String) {
        precondition(json.last == UInt8(ascii: "}"), "a journal page's JSON ends with its object's brace")
        json.removeLast()
        json += Array(",\"\(name)\":\(value)}".utf8)
    }
}

extension Journal {
    /// The most bytes of JSON a journal page holds: 4 MiB (a page always holds at least one
    /// entry, so a single larger entry, possible with a large `--journal-body-limit`, passes it).
    public static let maxPageSize = 4 << 20
    /// Entries read with their bodies per statement while building a page: 4.
    static let pageChunkSize = 4

    /// One page of the tenant's journal as JSON: the entries `query` selects (its filters; with
    /// `query.unmatchedOnly`, the unmatched listing's), oldest first or, when it says so,
    /// newest first, bounded by ``encodedPage(of:ids:_:maxSize:)``.
    ///
    /// A filtered page (``JournalQuery/filtersRows``) reads the tenant's entries until it has
    /// `limit` that pass, however many that takes: that read is stopped after `timeLimit`
    /// (counted after the queued journal is written), so a filter that matches few of a
    /// large journal holds its thread no longer than a count does.
    ///
    /// - Throws: ``JournalCountError/listingTooSlow(milliseconds:)`` once `timeLimit` has
    ///   passed; `SQLiteError`.
    public func encodedPage(
        of tenant: TenantID, _ query: JournalQuery, maxSize: Int = maxPageSize, timeLimit: Duration = defaultCountTimeLimit
    ) throws -> EncodedJournalPage {
        try encodedPage(of: tenant, ids: pageIDs(of: tenant, query, timeLimit: timeLimit), query, maxSize: maxSize)
    }

    /// The ids of the page's entries (``encodedPage(of:_:maxSize:timeLimit:)``'s first half):
    /// in the page's order, one more than `query.limit` when more follow.
    /// - Throws: ``JournalCountError/listingTooSlow(milliseconds:)``; `SQLiteError`.
    func pageIDs(of tenant: TenantID, _ query: JournalQuery, timeLimit: Duration) throws -> [Int64] {
        try writer.flushForReading(tenant)
        let deadline = ContinuousClock.now.advanced(by: timeLimit)
        let (sql, bindings) = Self.select(
            "id", of: tenant, query, limit: query.limit + 1, hiddenThrough: deletions.hiddenThrough(tenant))
        return try reading(until: deadline, timeLimit: timeLimit, tooSlow: JournalCountError.listingTooSlow) { db in
            try db.query(sql, bindings).map { $0[0].intValue ?? 0 }
        }
    }

    /// The page of the tenant's entries `found` (ids in the page's order; one more than
    /// `query.limit` when more follow) as JSON, stopping early once the next entry would take
    /// it past `maxSize` bytes (`hasMore` and `sizeLimited` are then true and
    /// `nextSince`/`nextBefore` continue from the last entry included). Of `query` it uses
    /// `limit`, `includeBodies`, `newestFirst` and, for an empty page, `since` and `before`.
    ///
    /// The one encoder of every journal-page route, so each is bounded alike
    /// (docs/protocol.md#journal): the rows are read a few at a time, each entry encoded,
    /// appended to the answer and dropped, so memory stays near the answer's size whatever the
    /// bodies.
    ///
    /// - Throws: `SQLiteError`.
    func encodedPage(of tenant: TenantID, ids found: [Int64], _ query: JournalQuery, maxSize: Int) throws -> EncodedJournalPage {
        let ids = Array(found.prefix(query.limit))
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        var json = Array(#"{"requests":["#.utf8)
        var included: [Int64] = []
        var sizeLimited = false
        var start = 0
        chunks: while start < ids.count {
            let chunk = ids[start..<min(start + Self.pageChunkSize, ids.count)]
            start += chunk.count
            let rows = try reader.use { db in
                try db.query(
                    """
                    SELECT \(Self.columns(bodies: query.includeBodies)) FROM requests
                    WHERE tenant = ? AND id IN \(Self.boundIDs)
                    ORDER BY id \(query.newestFirst ? "DESC" : "")
                    """, [.text(tenant.rawValue), Self.idList(chunk)])
            }
            for row in rows {
                let entry = try encoder.encode(Self.record(from: row))
                // 200 bytes kept for the closing fields.
                if !included.isEmpty, json.count + 1 + entry.count > maxSize - 200 {
                    sizeLimited = true
                    break chunks
                }
                if !included.isEmpty { json.append(UInt8(ascii: ",")) }
                json.append(contentsOf: entry)
                included.append(row[0].intValue ?? 0)
            }
        }
        let hasMore = found.count > query.limit || sizeLimited
        let nextSince = included.max() ?? query.since ?? 0
        let nextBefore = included.min() ?? query.before
        json += Array("],\"hasMore\":\(hasMore)".utf8)
        if let nextBefore { json += Array(",\"nextBefore\":\(nextBefore)".utf8) }
        json += Array(",\"nextSince\":\(nextSince),\"sizeLimited\":\(sizeLimited)".utf8)
        let prunedThrough = prunedThrough(of: tenant, query, hasMore: hasMore)
        if let prunedThrough { json += Array(",\"prunedThrough\":\(prunedThrough)".utf8) }
        json.append(UInt8(ascii: "}"))
        return EncodedJournalPage(
            json: json, entryCount: included.count, hasMore: hasMore, sizeLimited: sizeLimited, prunedThrough: prunedThrough)
    }

    /// `(…)` of an `IN` whose ids are bound as one JSON array (``idList(_:)``), so that the
    /// statement's text is the same for every page: with the ids written into the text, every
    /// new page was a new statement, kept in the connection's cache for good (tester finding
    /// tester32b-F2: about 95 KB per tenant that listed its journal, 38 MB to 352 MB over four
    /// bursts of 800 tenants).
    static let boundIDs = "(SELECT value FROM json_each(?))"

    /// `ids` as the JSON array ``boundIDs`` reads: `[3,5,8]`.
    static func idList(_ ids: some Sequence<Int64>) -> SQLiteValue {
        .text("[" + ids.map(String.init).joined(separator: ",") + "]")
    }

    /// The highest id of the tenant's entries retention deleted (``JournalPruned``), when a
    /// page of `query` reached them: oldest first, when it starts before that id (`since`
    /// below it; the entries between `since` and the page's first are gone); newest first, when
    /// it reached the oldest entry kept (no more follow) or its `before` is at or below that id.
    /// Nil when retention deleted none of the range (and always after a journal clear, which
    /// starts the range anew).
    func prunedThrough(of tenant: TenantID, _ query: JournalQuery, hasMore: Bool) -> Int64? {
        let through = pruned.through(tenant)
        guard through > 0 else { return nil }
        let reached = query.newestFirst ? !hasMore || (query.before.map { $0 <= through } ?? false) : (query.since ?? 0) < through
        return reached ? through : nil
    }
}
