import CatbirdStorage
import CatbirdSupport
@_spi(Server) import CatbirdWire

/// The SQL that writes the journal: `journal_rows`, the former `requests` table, which SQL users
/// read through the `requests` view (schema: migrations/0001_initial.sql,
/// migrations/0010_requests_response_bodies_once.sql).
///
/// Columns as written here:
/// - `request_headers`, `response_headers`: a JSON object, one key per header name (first
///   spelling); a name sent once maps to its value as a string, a repeated name to an array of
///   its values in the order received (``JSONText/object(_:)``).
/// - `request_body`, `response_body`: at most the writer's body limit of bytes, NULL when empty;
///   `*_body_size` the full size, `*_body_truncated` 1 when only a prefix was kept.
/// - `mock_id`: the mock that answered (NULL otherwise); it may since be gone.
/// - `near_misses`: a 404's near misses as a JSON array (migrations/0006_requests_near_misses.sql),
///   a generated column since migrations/0008_requests_near_misses_once.sql: written as their
///   place in `response_body` (`near_misses_offset`, 1-based, and `near_misses_length`, bytes) or,
///   when the stored body does not hold them, as their text (`near_misses_copy`).
/// - `problem`: why a request has no answer of Catbird's own (migrations/0007_requests_problem.sql).
/// - `response_body_id`: the `journal_bodies` row holding a response body the tenant's rows
///   repeat (``JournalBodies``); `response_body` is then NULL.
enum JournalRecords {
    /// The `requests` columns written, in the order of each row's parameters.
    static let columns = """
        time, tenant, method, url, request_headers, request_body, request_body_size,
        request_body_truncated, status, response_headers, response_body, response_body_size,
        response_body_truncated, answered_by, mock_id, duration_ms, file_path, near_misses_copy, problem,
        near_misses_offset, near_misses_length, response_body_id
        """
    /// Parameters per row.
    static let columnCount: Int32 = 22
    /// Rows per `INSERT` at most: 32 (704 parameters, under SQLite's historical limit of 999).
    static let rowsPerStatement = 32

    /// `INSERT INTO journal_rows (…) VALUES (…), (…), …` for `rows` rows. One statement for many
    /// rows: SQLite's per-statement work (AUTOINCREMENT's `sqlite_sequence` read and write,
    /// starting the program) is paid once, not per row; measured, a third less of the writer's
    /// time per row than one statement per row.
    static func insertSQL(rows: Int) -> String {
        let row = "(" + Array(repeating: "?", count: Int(columnCount)).joined(separator: ", ") + ")"
        return "INSERT INTO journal_rows (\(columns)) VALUES " + Array(repeating: row, count: rows).joined(separator: ", ")
    }

    /// The statement texts, built and hashed once (``StatementText``): ``rowsPerStatement`` rows
    /// and each power of two below it.
    private static let insertSQLByRows: [Int: StatementText] = Dictionary(
        uniqueKeysWithValues: sequence(first: rowsPerStatement) { $0 > 1 ? $0 / 2 : nil }.map { ($0, StatementText(insertSQL(rows: $0))) })

    /// What one batch's ``insert(_:into:bodies:)`` wrote.
    struct Written {
        /// The highest row id inserted per tenant.
        var latestIDs: [TenantID: Int64] = [:]
        /// The rows' bytes per tenant as the journal's byte limit counts them
        /// (``JournalBytes/rowBytes(of:responseBodyInRow:)``).
        var rowBytes: [TenantID: Int] = [:]
        /// The bytes of the shared bodies inserted (`journal_bodies.body`).
        var bodyBytes = 0
        /// The bytes each amendment added to its row (``JournalRecords/amend(_:in:written:)``),
        /// with the row's id and tenant: counted only when the byte count already holds the row
        /// (``JournalBytes/committed(_:)``), since a row the start-up scan has not read yet is
        /// counted, amendment included, when it is.
        var amendedBytes: [(rowID: Int64, tenant: TenantID, bytes: Int)] = []
    }

    /// Inserts a batch inside the caller's transaction: tenants first (the journal references
    /// them), then the repeated response bodies (`bodies`), then the rows (``rowsPerStatement``
    /// per statement, the rest in halving chunks), then the served mocks' hit counts and limits.
    /// When this throws, the caller rolls back and must call `bodies.removeAll()`.
    /// - Returns: the highest row id inserted per tenant and the bytes written (``Written``).
    static func insert(_ batch: [JournalEntry], into db: Database, bodies: inout JournalBodies) throws -> Written {
        // Read in place through a buffer: an array subscript copies the entry it returns
        // (a retain and a release for each of its strings and arrays).
        try batch.withUnsafeBufferPointer { entries in
            try touchTenants(of: entries, db)
            var written = Written()
            let bodyIDs = try bodies.assign(entries, db, insertedBytes: &written.bodyBytes)
            // Summed over each run of one tenant's rows, hashed once per run.
            var run: (tenant: TenantID, bytes: Int)?
            // Each statement's texts and blobs, bound without SQLite copying each one.
            var borrowed = BorrowedBindings()
            var start = 0
            var chunk = rowsPerStatement
            while start < entries.count {
                while chunk > entries.count - start { chunk /= 2 }
                let statement = try db.statement(insertSQLByRows[chunk]!)
                borrowed.removeAll()
                for offset in 0..<chunk {
                    let index = start + offset
                    bind(entries[index], bodyID: bodyIDs[index], to: statement, at: Int32(offset) * columnCount, borrowing: &borrowed)
                    let bytes = JournalBytes.rowBytes(of: entries[index], responseBodyInRow: bodyIDs[index] == nil)
                    if let current = run, current.tenant == entries[index].tenant {
                        run = (current.tenant, current.bytes + bytes)
                    } else {
                        if let current = run { written.rowBytes[current.tenant, default: 0] += current.bytes }
                        run = (entries[index].tenant, bytes)
                    }
                }
                try borrowed.bound(to: statement) { () throws(SQLiteError) in try statement.run() }
                // One statement's rows get consecutive ids (AUTOINCREMENT, one writer), the last one
                // lastInsertRowID.
                let lastID = db.lastInsertRowID
                for offset in 0..<chunk {
                    // Only a tenant's last row in a run of its rows can be its latest (no hashing per row).
                    guard offset == chunk - 1 || entries[start + offset + 1].tenant != entries[start + offset].tenant else { continue }
                    written.latestIDs[entries[start + offset].tenant] = lastID - Int64(chunk - 1 - offset)
                }
                start += chunk
            }
            if let current = run { written.rowBytes[current.tenant, default: 0] += current.bytes }
            try recordHits(of: entries, into: db)
            return written
        }
    }

    /// Sets each tenant's activity time to now, the time its rows are journaled (not their
    /// `time`, the request's arrival: a request answered after a long `delay` is activity when
    /// it ends, docs/operations.md#retention), creating the tenant's row when missing (a
    /// request answered after its tenant was dropped re-creates it, docs/tenancy.md). A batch
    /// is usually one or a few runs of one tenant's rows: compared with the run's tenant,
    /// hashed once per run.
    private static func touchTenants(of entries: UnsafeBufferPointer<JournalEntry>, _ db: Database) throws {
        var tenants: Set<TenantID> = []
        var index = entries.startIndex
        while index < entries.endIndex {
            let tenant = entries[index].tenant
            index += 1
            while index < entries.endIndex, entries[index].tenant == tenant { index += 1 }
            tenants.insert(tenant)
        }
        let now = Timestamp.now()
        for tenant in tenants { try TenantRecords.touch(db, tenant: tenant, at: now) }
    }

    /// Writes the batch's mock hits: one `UPDATE` per mock served (its hits summed), not one per
    /// request, so a batch of a thousand hits on one mock costs one statement; a mock whose limit
    /// the hits use up is deleted (``MockRecords/recordHits(_:id:count:)``). Runs of hits on one
    /// mock are summed before they are hashed.
    private static func recordHits(of batch: UnsafeBufferPointer<JournalEntry>, into db: Database) throws {
        var hits: [Int64: Int] = [:]
        var order: [Int64] = []
        var index = batch.startIndex
        while index < batch.endIndex {
            guard let hit = batch[index].mockHit else {
                index += 1
                continue
            }
            var run = 1
            index += 1
            while index < batch.endIndex, let next = batch[index].mockHit, next.mockID == hit.mockID {
                run += 1
                index += 1
            }
            if let seen = hits[hit.mockID] {
                hits[hit.mockID] = seen + run
            } else {
                hits[hit.mockID] = run
                order.append(hit.mockID)
            }
        }
        for id in order {
            try MockRecords.recordHits(db, id: id, count: hits[id]!)
        }
    }

    /// Adds each sentence (if any) to the `problem` of row `rowID` (after the row's own, `; `
    /// between) and changes its `file_path` as its ``JournalFilePathChange`` says, inside the
    /// caller's transaction, and notes the bytes this adds (fewer when a path is cleared or
    /// shortened) with the row's id and tenant in `written.amendedBytes` (retention's byte
    /// limit, ``JournalBytes``, which counts both columns: a deleted row releases its bytes as
    /// stored then). A row that is gone (deleted since) is skipped.
    /// See ``JournalWriter/amend(_:problem:filePath:)``.
    static func amend(
        _ amendments: [(rowID: Int64, problem: String?, filePath: JournalFilePathChange)], in db: Database, written: inout Written
    ) throws {
        for (rowID, problem, filePath) in amendments {
            let (pathChange, path): (Int64, SQLiteValue) =
                switch filePath {
                case .unchanged: (0, .null)
                case .cleared: (1, .null)
                case let .replaced(path): (2, .text(path))
                }
            let bytes = "ifnull(length(CAST(problem AS BLOB)), 0) + ifnull(length(CAST(file_path AS BLOB)), 0)"
            guard let before = try db.query("SELECT \(bytes) FROM journal_rows WHERE id = ?", [.integer(rowID)]).first?[0].intValue,
                let row = try db.query(
                    """
                    UPDATE journal_rows SET
                        problem = CASE WHEN ?1 IS NULL THEN problem WHEN problem IS NULL THEN ?1 ELSE problem || '; ' || ?1 END,
                        file_path = CASE ?3 WHEN 0 THEN file_path WHEN 1 THEN NULL ELSE ?4 END
                    WHERE id = ?2 RETURNING tenant, \(bytes)
                    """, [problem.map { .text($0) } ?? .null, .integer(rowID), .integer(pathChange), path]
                ).first, let tenant = row[0].stringValue, let after = row[1].intValue
            else { continue }
            let added = after - before
            written.amendedBytes.append((rowID, TenantID(tenant), Int(added)))
        }
    }

    /// Deletes the tenant's journal rows; `db.changes` is then how many.
    static func deleteAll(_ db: Database, tenant: TenantID) throws {
        try db.run("DELETE FROM journal_rows WHERE tenant = ?", [.text(tenant.rawValue)])
    }

    /// Binds one row's parameters: `entry`'s column values at `base + 1` … `base + columnCount`,
    /// its texts and blobs through `borrowed`; with a `bodyID`, the response body as that
    /// `journal_bodies` row (and `response_body` NULL).
    private static func bind(
        _ entry: borrowing JournalEntry, bodyID: Int64?, to statement: Statement, at base: Int32, borrowing borrowed: inout BorrowedBindings
    ) {
        // The write connection skips CHECK constraints (CatbirdServer: ignore_check_constraints).
        assert(CatbirdRequest.AnsweredBy.known.contains(entry.answeredBy), "answered_by \(entry.answeredBy) fails its CHECK")
        // The typed binders, not `.text(…)` / `.integer(…)`: no SQLiteValue is made per column.
        borrowed.add(text: entry.time, at: base + 1)
        borrowed.add(text: entry.tenant.rawValue, at: base + 2)
        borrowed.add(text: entry.method, at: base + 3)
        borrowed.add(text: entry.url, at: base + 4)
        borrowed.add(text: entry.requestHeaders, at: base + 5)
        bindBody(entry.requestBody, fullSize: entry.requestBodySize, cut: entry.requestBodyIncomplete, statement, at: base + 6, &borrowed)
        statement.bind(entry.status, at: base + 9)
        borrowed.add(text: entry.responseHeaders, at: base + 10)
        if let bodyID {
            statement.bindNull(at: base + 11)
            statement.bind(entry.responseBodySize, at: base + 12)
            statement.bind(entry.responseBodySize > entry.responseBody.count ? 1 : 0, at: base + 13)
            statement.bind(bodyID, at: base + 22)
        } else {
            bindBody(entry.responseBody, fullSize: entry.responseBodySize, statement, at: base + 11, &borrowed)
            statement.bindNull(at: base + 22)
        }
        borrowed.add(text: entry.answeredBy.rawValue, at: base + 14)
        if let hit = entry.mockHit { statement.bind(hit.mockID, at: base + 15) } else { statement.bindNull(at: base + 15) }
        statement.bind(entry.durationMs, at: base + 16)
        if let path = entry.filePath { borrowed.add(text: path, at: base + 17) } else { statement.bindNull(at: base + 17) }
        if let problem = entry.problem { borrowed.add(text: problem, at: base + 19) } else { statement.bindNull(at: base + 19) }
        // Near misses: their own text, or the 1-based offset and length of their range in the stored response body.
        let (copy, offset, length): (String?, Int?, Int?) =
            switch entry.nearMisses {
            case let .text(text)?: (text, nil, nil)
            // truncateBodies(to:) left the whole range in the stored body
            case let .inResponseBody(range)?: (nil, range.lowerBound + 1, range.count)
            case nil: (nil, nil, nil)
            }
        if let copy { borrowed.add(text: copy, at: base + 18) } else { statement.bindNull(at: base + 18) }
        if let offset { statement.bind(offset, at: base + 20) } else { statement.bindNull(at: base + 20) }
        if let length { statement.bind(length, at: base + 21) } else { statement.bindNull(at: base + 21) }
    }

    /// Binds a (possibly truncated) body at `index` (through `borrowed`; NULL when empty), its
    /// full size at `index + 1` and its truncation flag at `index + 2`: set when the body is a
    /// prefix of `fullSize`, or `cut` (its client never sent the rest).
    private static func bindBody(
        _ body: [UInt8], fullSize: Int, cut: Bool = false, _ statement: Statement, at index: Int32, _ borrowed: inout BorrowedBindings
    ) {
        if body.isEmpty { statement.bindNull(at: index) } else { borrowed.add(bytes: body, at: index) }
        statement.bind(fullSize, at: index + 1)
        statement.bind(fullSize > body.count || cut ? 1 : 0, at: index + 2)
    }
}
