import CatbirdMatching
import CatbirdStorage
@_spi(Server) import CatbirdWire

/// Matching journaled requests against a request pattern: counting them
/// (`POST /catbird/api/requests/count`) and finding the first one after an id
/// (`POST /catbird/api/requests/wait`); docs/protocol.md#count and #waiting-for-a-request.
extension Journal {
    /// How long ``count(of:matching:timeLimit:)`` may match by default: 2 seconds.
    public static let defaultCountTimeLimit = Duration.seconds(2)
    /// How many journal rows a match reads per turn on the read connection: 1000.
    public static let countChunkSize = 1000

    /// How many of the tenant's journaled requests match `pattern` (method, url, headers;
    /// Catbird 0.11 matching rules, as for mocks: a header pattern matches the first value of
    /// that header, the name compared case-insensitively).
    ///
    /// Counts the requests journaled before the call: rows are read by id in chunks of
    /// ``countChunkSize``, each under the read connection's lock, and matched after the lock
    /// is released, so a slow pattern never holds up other readers (health, listings).
    ///
    /// - Parameter timeLimit: how long matching may take, counted after the queued journal is
    ///   written; checked before each row, and a regular expression still running at the
    ///   deadline is stopped (docs/matching.md#evaluation-budget).
    /// - Throws: ``JournalCountError/tooSlow(milliseconds:)`` once `timeLimit` has passed;
    ///   `SQLiteError` when reading fails.
    public func count(
        of tenant: TenantID, matching pattern: CompiledRequestPattern, timeLimit: Duration = defaultCountTimeLimit
    ) throws -> Int {
        writer.flush()
        var count = 0
        try matches(of: tenant, pattern, after: 0, timeLimit: timeLimit) { _ in
            count += 1
            return true
        }
        return count
    }

    /// The first of the tenant's journaled requests after the entry `since` that matches
    /// `pattern` (the rules of ``count(of:matching:timeLimit:)``), with its bodies, and the id
    /// of the last entry searched: search again after it to see only what arrived since.
    ///
    /// - Throws: ``JournalCountError/tooSlow(milliseconds:)`` once `timeLimit` has passed;
    ///   `SQLiteError` when reading fails.
    public func firstMatch(
        of tenant: TenantID, matching pattern: CompiledRequestPattern, after since: Int64,
        timeLimit: Duration = defaultCountTimeLimit
    ) throws -> (entry: CatbirdRequest?, searchedThrough: Int64) {
        writer.flush()
        var found: Int64?
        let searched = try matches(of: tenant, pattern, after: since, timeLimit: timeLimit) { id in
            found = id
            return false
        }
        guard let found else { return (nil, searched) }
        return (try entry(of: tenant, id: found), found)
    }

    /// Calls `visit` with the id of each of the tenant's entries after `since` that matches
    /// `pattern`, in id order, up to the newest entry when the call began, until `visit`
    /// returns false.
    /// - Returns: the id of the last entry examined (`since` when there was none).
    @discardableResult
    private func matches(
        of tenant: TenantID, _ pattern: CompiledRequestPattern, after since: Int64, timeLimit: Duration,
        _ visit: (Int64) -> Bool
    ) throws -> Int64 {
        let deadline = ContinuousClock.now.advanced(by: timeLimit)
        let method = pattern.source.method.rawValue
        var sql = """
            SELECT id, url, request_headers FROM requests
            WHERE tenant = ? AND id > ? AND id <= ? AND method = ?
            """
        var bindings: [SQLiteValue] = [.text(tenant.rawValue), .integer(since), .integer(0), .text(method)]
        if let url = pattern.equalURL { sql += " AND url = ?"; bindings.append(.text(url)) }
        sql += " ORDER BY id LIMIT \(Self.countChunkSize)"
        let needsHeaders = !pattern.source.headers.isEmpty
        let newest = try reader.use { db in
            try db.query("SELECT max(id) FROM requests WHERE tenant = ?", [.text(tenant.rawValue)]).first?[0].intValue
        }
        guard let newest, newest > since else { return since }
        bindings[2] = .integer(newest)
        while true {
            let rows = try reader.use { try $0.query(sql, bindings) }
            for row in rows {
                if ContinuousClock.now >= deadline {
                    throw JournalCountError.tooSlow(milliseconds: Int(timeLimit.milliseconds))
                }
                let headers = needsHeaders ? JournalHeaders(json: row[2].stringValue) : JournalHeaders()
                let id = row[0].intValue ?? 0
                switch pattern.evaluate(
                    method: method, target: row[1].stringValue ?? "", headerValue: headers.firstValue(of:), until: deadline)
                {
                case .matched: if !visit(id) { return id }
                case .notMatched: break
                case .outOfTime: throw JournalCountError.tooSlow(milliseconds: Int(timeLimit.milliseconds))
                }
            }
            guard rows.count == Self.countChunkSize, let lastID = rows.last?[0].intValue else { return newest }
            bindings[1] = .integer(lastID)
        }
    }
}
