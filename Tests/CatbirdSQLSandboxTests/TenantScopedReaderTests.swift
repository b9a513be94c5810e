import CatbirdDomain
import CatbirdSQLSandbox
import CatbirdStorage
import CatbirdTestSupport
import Foundation
import XCTest

/// `TenantScopedReader` on a real file: each tenant sees only its own rows of the scoped
/// tables, reads that bypass the scoping views are refused however they are written, and
/// `readOnlyQuery`'s guarantees still hold.
final class ScopedReaderTests: StorageTestCase {
    /// Far above what these queries need, so a loaded machine never turns one into `.timedOut`.
    private let generousLimit = Duration.seconds(30)
    private let scope = TenantScope(
        tables: [
            .init("requests", tenantColumn: "tenant", storedIn: ["journal_rows", "journal_bodies"]),
            .init("mocks", tenantColumn: "tenant", storedIn: ["mock_rows", "mock_body_pieces"]),
            .init("tenants", tenantColumn: "id"),
        ],
        sharedTables: ["schema_migrations"],
        tenantFunction: "catbird_tenant")
    /// Rows per tenant in `requests` and `mocks`: different for each, so a leak changes a count.
    private let rowCounts = ["a": 2, "b": 3, "": 1]

    /// A migrated file with tenants 'a', 'b' and '' in all three tables, its writer (kept open:
    /// WAL mode), and a reader on it.
    private func fixture() throws -> (writer: Database, reader: TenantScopedReader) {
        let writer = try openMigrated()
        try writer.run("INSERT INTO tenants VALUES ('a', 'c', 'l')")
        for tenant in rowCounts.keys.sorted() where tenant != "b" {
            try insertRows(writer, tenant: tenant)
        }
        try insertTenantB(writer)
        return (writer, try TenantScopedReader(path: databasePath(), scope: scope))
    }

    /// Tenant `tenant`'s `rowCounts[tenant]` mocks and requests, urls `/<tenant>/<index>`.
    private func insertRows(_ writer: Database, tenant: String) throws {
        for index in 0..<(rowCounts[tenant] ?? 0) {
            try writer.run("""
                INSERT INTO mocks (tenant, position, method, url_kind, url_value, status, created_at)
                VALUES (?, ?, 'GET', 'equal', ?, 200, 'c')
                """, [.text(tenant), .integer(Int64(index)), .text("/\(tenant)/\(index)")])
            try writer.run("""
                INSERT INTO journal_rows (time, tenant, method, url, status, answered_by, duration_ms)
                VALUES ('t', ?, 'GET', ?, 200, 'none', 1)
                """, [.text(tenant), .text("/\(tenant)/\(index)")])
        }
    }

    /// Tenant b's row in `tenants` and its mocks and requests.
    private func insertTenantB(_ writer: Database) throws {
        try writer.run("INSERT INTO tenants VALUES ('b', 'c', 'l')")
        try insertRows(writer, tenant: "b")
    }

    /// Removes every row of tenant b, committed, so a reader's next query no longer sees them.
    private func deleteTenantB(_ writer: Database) throws {
        try writer.run("DELETE FROM journal_rows WHERE tenant = 'b'")
        try writer.run("DELETE FROM mocks WHERE tenant = 'b'")
        try writer.run("DELETE FROM tenants WHERE id = 'b'")
    }

    private func rows(
        _ reader: TenantScopedReader, _ sql: String, tenant: String, _ parameters: [SQLiteValue] = [],
        file: StaticString = #filePath, line: UInt = #line
    ) throws -> [[SQLiteValue]] {
        try reader.query(sql, tenant: tenant, parameters: parameters, maxRows: 100, timeLimit: generousLimit).rows
    }

    private func assertRefused(
        _ reader: TenantScopedReader, _ sql: String, _ expected: ReadOnlyQueryError,
        file: StaticString = #filePath, line: UInt = #line
    ) {
        XCTAssertThrowsError(
            try reader.query(sql, tenant: "a", parameters: [], maxRows: 10, timeLimit: generousLimit), sql,
            file: file, line: line
        ) { error in
            XCTAssertEqual(error as? ReadOnlyQueryError, expected, sql, file: file, line: line)
        }
    }

    private func outside(_ table: String) -> ReadOnlyQueryError {
        .outsideTenantScope(table: table, scopedTables: ["requests", "mocks", "tenants"])
    }

    func testEachTenantSeesOnlyItsOwnRows() throws {
        let (_, reader) = try fixture()
        for (tenant, count) in rowCounts {
            let expected = SQLiteValue.integer(Int64(count))
            XCTAssertEqual(try rows(reader, "SELECT COUNT(*) FROM requests", tenant: tenant), [[expected]], tenant)
            XCTAssertEqual(try rows(reader, "SELECT COUNT(*) FROM mocks", tenant: tenant), [[expected]], tenant)
            XCTAssertEqual(try rows(reader, "SELECT COUNT(*) FROM tenants", tenant: tenant), [[1]], tenant)

            let requests = try reader.query("SELECT * FROM requests", tenant: tenant, parameters: [], maxRows: 100, timeLimit: generousLimit)
            XCTAssertEqual(requests.columns.count, 23)
            XCTAssertEqual(requests.columns.last, "near_misses", "the generated column too (migration 0008)")
            let tenantColumn = try XCTUnwrap(requests.columns.firstIndex(of: "tenant"))
            XCTAssertEqual(requests.rows.map { $0[tenantColumn] }, Array(repeating: .text(tenant), count: count))
            let mocks = try reader.query("SELECT * FROM mocks", tenant: tenant, parameters: [], maxRows: 100, timeLimit: generousLimit)
            XCTAssertEqual(mocks.rows.map { $0[1] }, Array(repeating: .text(tenant), count: count))
            XCTAssertEqual(try rows(reader, "SELECT * FROM tenants", tenant: tenant).map { $0[0] }, [.text(tenant)])

            XCTAssertEqual(try rows(reader, "SELECT DISTINCT tenant FROM requests", tenant: tenant), [[.text(tenant)]])
            XCTAssertEqual(try rows(reader, "SELECT catbird_tenant()", tenant: tenant), [[.text(tenant)]], "'' stays text, not NULL")
            // Joins, spelling variants, the explicit temp schema and CTEs over the views.
            XCTAssertEqual(
                try rows(reader, "SELECT COUNT(*) FROM requests r JOIN mocks m ON m.url_value = r.url JOIN tenants t ON t.id = m.tenant",
                         tenant: tenant),
                [[expected]])
            for sql in [
                "SELECT COUNT(*) FROM REQUESTS", "SELECT COUNT(*) FROM \"Requests\"", "SELECT COUNT(*) FROM temp.requests",
                "WITH mine AS (SELECT * FROM requests) SELECT COUNT(*) FROM mine",
                "WITH requests AS (SELECT * FROM temp.requests) SELECT COUNT(*) FROM requests",
                "SELECT (SELECT COUNT(*) FROM requests WHERE tenant <> catbird_tenant()) + COUNT(*) FROM requests",
            ] {
                XCTAssertEqual(try rows(reader, sql, tenant: tenant), [[expected]], sql)
            }
        }
        XCTAssertEqual(try rows(reader, "SELECT COUNT(*) FROM requests", tenant: "nobody"), [[0]])
        XCTAssertEqual(try rows(reader, "SELECT COUNT(*) FROM tenants", tenant: "nobody"), [[0]])
    }

    func testTheViewsSeeRowsCommittedLater() throws {
        let (writer, reader) = try fixture()
        try writer.run("INSERT INTO tenants VALUES ('late', 'c', 'l')")
        try writer.run("INSERT INTO journal_rows (time, tenant, method, url, status, answered_by, duration_ms) VALUES ('t', 'late', 'GET', '/', 200, 'none', 1)")
        XCTAssertEqual(try rows(reader, "SELECT url FROM requests", tenant: "late"), [["/"]])
        XCTAssertEqual(try rows(reader, "SELECT COUNT(*) FROM requests", tenant: "a"), [[2]])
    }

    func testReadsBypassingTheViewsAreRefused() throws {
        let (_, reader) = try fixture()
        for sql in [
            "SELECT * FROM main.requests",
            "SELECT COUNT(*) FROM main.requests",
            "SELECT 1 FROM main.requests",
            "SELECT * FROM \"MAIN\".\"Requests\"",
            "SELECT (SELECT COUNT(*) FROM main.requests)",
            "SELECT EXISTS (SELECT 1 FROM main.requests WHERE tenant = 'b')",
            "SELECT * FROM requests WHERE id IN (SELECT id FROM main.requests)",
            "SELECT tenant FROM requests UNION ALL SELECT tenant FROM main.requests",
            "SELECT * FROM (SELECT * FROM main.requests) AS requests",
            "WITH x AS (SELECT * FROM main.requests) SELECT * FROM x",
            // A CTE named like the view: SQLite's authorizer reports the same view name for it,
            // which is why every query is inspected on the connection whose views read nothing.
            "WITH requests AS (SELECT * FROM main.requests) SELECT COUNT(*) FROM requests",
            "WITH \"Requests\" AS (SELECT * FROM main.requests) SELECT tenant FROM REQUESTS",
            "WITH requests AS (SELECT * FROM (SELECT * FROM main.requests)) SELECT COUNT(*) FROM requests",
            "WITH mocks AS (SELECT * FROM main.requests) SELECT COUNT(*) FROM mocks",
            "WITH RECURSIVE requests(t) AS (SELECT tenant FROM main.requests UNION SELECT t FROM requests) SELECT * FROM requests",
            "SELECT * FROM requests WHERE EXISTS (WITH requests AS (SELECT * FROM main.requests) SELECT 1 FROM requests)",
        ] {
            assertRefused(reader, sql, outside("main.requests"))
        }
        assertRefused(reader, "SELECT * FROM main.mocks", outside("main.mocks"))
        assertRefused(reader, "WITH tenants AS (SELECT * FROM main.mocks) SELECT * FROM tenants", outside("main.mocks"))
        assertRefused(reader, "SELECT id FROM main.tenants", outside("main.tenants"))
        assertRefused(reader, "WITH tenants AS (SELECT id FROM main.tenants) SELECT COUNT(*) FROM tenants", outside("main.tenants"))

        let reason = ReadOnlyQueryError.outsideTenantScope(table: "main.requests", scopedTables: ["requests", "mocks", "tenants"])
            .description
        XCTAssertEqual(
            reason,
            "main.requests is not available to tenant-scoped queries; read requests, mocks and tenants "
                + "through their unqualified names, which show only the caller's tenant's rows")
    }

    /// Query shapes that would show tenant b's rows to tenant a if anything bypassed the views:
    /// each must be refused or answer without b's values (urls `/b/…`, tenant `b`).
    func testNoQueryShapeShowsAnotherTenantsRows() throws {
        let (writer, reader) = try fixture()
        let attempts = [
            "SELECT url FROM main.requests", "SELECT url FROM MAIN.REQUESTS", "SELECT url FROM \"main\".\"requests\"",
            "SELECT url FROM main . requests", "SELECT * FROM main.requests AS requests", "SELECT url FROM requests AS main",
            "SELECT url FROM requests NOT INDEXED", "SELECT url FROM requests INDEXED BY requests_by_tenant",
            "SELECT url FROM requests WHERE tenant = 'b'", "SELECT url FROM requests WHERE catbird_tenant() = 'a' OR 1",
            "SELECT url FROM requests WHERE rowid > 0", "SELECT url_value FROM mocks WHERE tenant <> 'a'",
            "SELECT id FROM tenants WHERE id = 'b'",
            "WITH r AS MATERIALIZED (SELECT url FROM main.requests) SELECT url FROM r",
            "WITH requests AS NOT MATERIALIZED (SELECT * FROM main.requests) SELECT url FROM requests",
            "WITH a AS (SELECT 1), requests AS (SELECT * FROM main.requests) SELECT url FROM requests",
            "WITH tenants AS (SELECT * FROM main.requests), mocks AS (SELECT * FROM tenants) SELECT url FROM mocks",
            "WITH RECURSIVE x(u) AS (SELECT url FROM main.requests UNION SELECT u FROM x) SELECT u FROM x",
            "SELECT url FROM requests UNION SELECT url FROM main.requests",
            "SELECT url FROM requests WHERE 0 UNION ALL SELECT url FROM main.requests ORDER BY 1",
            "SELECT (SELECT group_concat(url) FROM main.requests)", "SELECT json_group_array(url) FROM main.requests",
            "SELECT url FROM requests WHERE url IN (SELECT url FROM main.requests)",
            "SELECT * FROM requests JOIN main.requests USING (id)", "SELECT * FROM requests NATURAL JOIN main.mocks",
            "SELECT * FROM temp.requests, main.requests", "SELECT url FROM (SELECT * FROM main.requests) WHERE 1",
            "SELECT url FROM requests, (SELECT * FROM main.tenants) t",
            "SELECT url FROM requests r WHERE EXISTS (SELECT 1 FROM main.requests s WHERE s.id = r.id + 1)",
            "SELECT url FROM requests ORDER BY (SELECT max(url) FROM main.requests)",
            "SELECT url FROM requests LIMIT (SELECT count(*) FROM main.requests)",
            "SELECT count(*) FILTER (WHERE (SELECT 1 FROM main.requests)) FROM requests",
            "SELECT url, row_number() OVER (ORDER BY (SELECT max(url) FROM main.requests)) FROM requests",
            "VALUES ((SELECT url FROM main.requests WHERE tenant = 'b'))",
            "SELECT iif(1, (SELECT url FROM main.requests WHERE tenant = 'b'), 0)",
            "SELECT url FROM requests WHERE tenant = (SELECT id FROM main.tenants WHERE id = 'b')",
            "SELECT value FROM json_each((SELECT json_group_array(url) FROM main.requests))",
            "SELECT * FROM dbstat", "SELECT * FROM sqlite_stmt", "SELECT * FROM sqlite_sequence",
            "EXPLAIN SELECT url FROM main.requests", "EXPLAIN QUERY PLAN SELECT url FROM main.requests",
            "PRAGMA main.table_info(requests)", "SELECT * FROM pragma_index_info('requests_by_tenant')",
            "SELECT sql FROM sqlite_schema", "SELECT sql FROM sqlite_temp_schema",
        ]
        // Each attempt runs with b's rows present and again with them deleted: any difference
        // (rows, counts, or an error for one and not the other) means b's rows reached tenant a.
        func run(_ sql: String) -> Result<ReadOnlyQueryResult, ReadOnlyQueryError> {
            Result { () throws(ReadOnlyQueryError) -> ReadOnlyQueryResult in
                try reader.query(sql, tenant: "a", parameters: [], maxRows: 100, timeLimit: generousLimit)
            }
        }
        var answered = 0
        for sql in attempts {
            let withB = run(sql)
            try deleteTenantB(writer)
            XCTAssertEqual(
                try scalar(writer, "SELECT count(*) FROM requests WHERE tenant = 'b'"), .integer(0), sql)
            let withoutB = run(sql)
            try insertTenantB(writer)
            XCTAssertEqual(withB, withoutB, "\(sql) depends on tenant b's rows")
            if case .success(let result) = withB {
                answered += 1
                for row in result.rows {
                    for case .text(let text) in row where text == "b" || text.contains("/b/") {
                        XCTFail("\(sql) showed b's value \(text)")
                    }
                }
            }
        }
        XCTAssertGreaterThan(answered, 0, "some attempts are answered (from a's rows), not all refused")
    }

    func testUnscopedTablesAreRefusedButSchemaReadsAreAllowed() throws {
        let (writer, reader) = try fixture()
        XCTAssertThrowsError(try reader.query("SELECT COUNT(*) FROM dbstat", tenant: "a", parameters: [], maxRows: 1, timeLimit: generousLimit)) {
            guard case .outsideTenantScope(let table, _) = $0 as? ReadOnlyQueryError else { return XCTFail("unexpected \($0)") }
            XCTAssertTrue(table.hasSuffix("dbstat"), table)
        }
        // Regression (tester29a's note): the no-column notice of `sqlite_stmt`, the pooled
        // connection's statements, passed.
        assertRefused(reader, "SELECT count(*) FROM sqlite_stmt", outside("sqlite_stmt"))
        // Regression (tester finding tester29c-F1, F5): through the temp schema, where
        // eponymous virtual tables exist too, both passed (dbstat: the shared file's page count).
        for spelling in ["temp.sqlite_stmt", "TEMP.\"sqlite_stmt\"", "temp.dbstat", "temp . DBSTAT"] {
            XCTAssertThrowsError(
                try reader.query("SELECT count(*) FROM \(spelling)", tenant: "a", parameters: [], maxRows: 1, timeLimit: generousLimit),
                spelling
            ) {
                guard case .outsideTenantScope = $0 as? ReadOnlyQueryError else { return XCTFail("\(spelling): unexpected \($0)") }
            }
        }
        // A table created after the reader opened (here SQLite's statistics, which count every
        // tenant's rows) is refused too.
        try writer.execute("ANALYZE")
        assertRefused(reader, "SELECT * FROM sqlite_stat1", outside("main.sqlite_stat1"))
        assertRefused(reader, "SELECT COUNT(*) FROM sqlite_stat1", outside("sqlite_stat1"))
        // AUTOINCREMENT's bookkeeping holds every tenant's highest id.
        assertRefused(reader, "SELECT seq FROM sqlite_sequence", outside("main.sqlite_sequence"))
        assertRefused(reader, "SELECT COUNT(*) FROM sqlite_sequence", outside("sqlite_sequence"))
        assertRefused(reader, "SELECT COUNT(*) FROM main.sqlite_sequence", outside("main.sqlite_sequence"))
        try writer.execute("CREATE TABLE later (tenant TEXT)")
        assertRefused(reader, "SELECT * FROM later", outside("main.later"))

        XCTAssertEqual(
            try rows(reader, "SELECT COUNT(*) FROM schema_migrations", tenant: "a"), [[.integer(Int64(Schema.migrations.count))]])
        XCTAssertFalse(try rows(reader, "SELECT name FROM sqlite_schema WHERE type = 'table'", tenant: "a").isEmpty)
        XCTAssertEqual(
            try rows(reader, "SELECT name FROM sqlite_temp_schema ORDER BY name", tenant: "a"), [["mocks"], ["requests"], ["tenants"]])
        XCTAssertEqual(try rows(reader, "SELECT name FROM pragma_table_info('requests')", tenant: "a").count, 23)
        // main's requests is a view (migration 0010): its table_info lists near_misses too.
        XCTAssertEqual(try rows(reader, "SELECT name FROM pragma_table_info('requests', 'main')", tenant: "a").count, 23)
        XCTAssertEqual(try rows(reader, "SELECT name FROM pragma_table_xinfo('requests', 'main')", tenant: "a").count, 23)
        XCTAssertEqual(try rows(reader, "PRAGMA table_info(tenants)", tenant: "a").map { $0[1] }, ["id", "created_at", "last_activity_at"])
        XCTAssertEqual(try rows(reader, "SELECT value FROM json_each('[1,2]')", tenant: "a"), [[1], [2]])
    }

    func testParametersAreBound() throws {
        let (_, reader) = try fixture()
        let hostile = "a' OR tenant <> 'a"
        XCTAssertEqual(try rows(reader, "SELECT url FROM requests WHERE tenant = ?", tenant: "b", [.text(hostile)]), [])
        XCTAssertEqual(try rows(reader, "SELECT COUNT(*) FROM requests WHERE tenant = :t", tenant: "b", ["a"]), [[0]], "'a' is not b's")
        XCTAssertEqual(try rows(reader, "SELECT url FROM requests WHERE url = ?", tenant: "b", ["/b/1"]), [["/b/1"]])
        XCTAssertEqual(try rows(reader, "SELECT ?1, typeof(?2)", tenant: "b", [.text(hostile), .blob([1])]), [[.text(hostile), "blob"]])
        XCTAssertThrowsError(try reader.query("SELECT ?, ?", tenant: "b", parameters: [1], maxRows: 1, timeLimit: generousLimit)) {
            XCTAssertEqual($0 as? ReadOnlyQueryError, .parameterCountMismatch(expected: 2, given: 1))
        }
    }

    func testWritesAndSecondStatementsAreStillRefused() throws {
        let (writer, reader) = try fixture()
        for sql in [
            // Writes to the views: refused as writes (on the executing connection alone SQLite
            // would first say "cannot modify requests because it is a view").
            "DELETE FROM requests", "UPDATE tenants SET created_at = 'x'", "INSERT INTO mocks (tenant) VALUES ('a')",
            "WITH x AS (SELECT 1) DELETE FROM requests",
            "DELETE FROM main.requests", "UPDATE main.tenants SET created_at = 'x'",
            "INSERT INTO main.mocks SELECT * FROM main.mocks", "CREATE TEMP VIEW requests2 AS SELECT 1", "DROP VIEW requests",
            "CREATE TEMP TABLE t (x)", "PRAGMA query_only = 0", "ATTACH DATABASE '\(databasePath("other.sqlite"))' AS other",
            "SELECT load_extension('x')",
        ] {
            assertRefused(reader, sql, .notReadOnly)
        }
        assertRefused(reader, "SELECT 1; SELECT * FROM main.requests", .multipleStatements)
        assertRefused(reader, " -- nothing ", .empty)
        XCTAssertThrowsError(try reader.query("SELEC 1", tenant: "a", parameters: [], maxRows: 1, timeLimit: generousLimit)) {
            guard case .sqlite(let error) = $0 as? ReadOnlyQueryError else { return XCTFail("unexpected \($0)") }
            XCTAssertEqual(error.code, 1)
        }
        XCTAssertEqual(try scalar(writer, "SELECT COUNT(*) FROM requests"), 6)
        XCTAssertEqual(try rows(reader, "SELECT COUNT(*) FROM requests", tenant: "a"), [[2]])
        XCTAssertFalse(FileManager.default.fileExists(atPath: databasePath("other.sqlite")))
    }

    func testRowsAreCapped() throws {
        let (_, reader) = try fixture()
        let capped = try reader.query("SELECT url FROM requests ORDER BY id", tenant: "b", parameters: [], maxRows: 2, timeLimit: generousLimit)
        XCTAssertEqual(capped, ReadOnlyQueryResult(columns: ["url"], rows: [["/b/0"], ["/b/1"]], truncated: true))
        let all = try reader.query("SELECT url FROM requests ORDER BY id", tenant: "b", parameters: [], maxRows: 3, timeLimit: generousLimit)
        XCTAssertFalse(all.truncated)
    }

    func testHugeValuesFailClearlyBeforeAllocating() throws {
        let (_, reader) = try fixture()
        XCTAssertEqual(reader.maxValueLength, 64 << 20)
        for sql in ["SELECT randomblob(900000000)", "SELECT zeroblob(100000000)", "SELECT hex(zeroblob(40000000))"] {
            XCTAssertThrowsError(try reader.query(sql, tenant: "a", parameters: [], maxRows: 1, timeLimit: generousLimit), sql) { error in
                XCTAssertEqual(error as? ReadOnlyQueryError, .valueTooLarge(limit: 64 << 20), sql)
                XCTAssertEqual(
                    (error as? ReadOnlyQueryError)?.description,
                    "a string or blob would exceed the limit of 67108864 bytes (64 MiB) per value")
            }
        }
        XCTAssertEqual(try rows(reader, "SELECT length(randomblob(1000000))", tenant: "a"), [[1_000_000]])
        // printf and format refuse a width or precision past the limit before SQLite loops on it
        // (FormatFunctionGuard); two billion used to spin 10-15 s inside one call.
        for sql in ["SELECT printf('%.*c', 100000000, 'x')", "SELECT printf('%.*c', 2000000000, 'x')", "SELECT format('%.2000000000c', 'x')"] {
            XCTAssertThrowsError(try reader.query(sql, tenant: "a", parameters: [], maxRows: 1, timeLimit: generousLimit), sql) {
                XCTAssertEqual($0 as? ReadOnlyQueryError, .valueTooLarge(limit: 64 << 20), sql)
            }
        }
        XCTAssertEqual(try rows(reader, "SELECT length(printf('%.*c', 1000, 'x'))", tenant: "a"), [[1000]])

        // (The limit applies to schema rows too, so it cannot go below a few kilobytes.)
        let small = try TenantScopedReader(path: databasePath(), scope: scope, maxValueLength: 10_000)
        XCTAssertEqual(small.maxValueLength, 10_000)
        XCTAssertEqual(try small.query("SELECT length(zeroblob(10000))", tenant: "a", parameters: [], maxRows: 1, timeLimit: generousLimit).rows, [[10_000]])
        XCTAssertThrowsError(try small.query("SELECT zeroblob(10001)", tenant: "a", parameters: [], maxRows: 1, timeLimit: generousLimit)) {
            XCTAssertEqual($0 as? ReadOnlyQueryError, .valueTooLarge(limit: 10_000))
        }
        // A bound value past the limit is refused as well.
        let big = SQLiteValue.blob(Array(repeating: 0, count: 20_000))
        XCTAssertThrowsError(try small.query("SELECT ?", tenant: "a", parameters: [big], maxRows: 1, timeLimit: generousLimit)) {
            XCTAssertEqual($0 as? ReadOnlyQueryError, .valueTooLarge(limit: 10_000))
        }
    }

    func testSlowQueryTimesOutAndTheReaderRecovers() throws {
        let (_, reader) = try fixture()
        let slow = "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < 30000000) SELECT count(*) FROM c, tenants"
        let clock = ContinuousClock()
        let started = clock.now
        XCTAssertThrowsError(try reader.query(slow, tenant: "a", parameters: [], maxRows: 1, timeLimit: .milliseconds(50))) {
            XCTAssertEqual($0 as? ReadOnlyQueryError, .timedOut(milliseconds: 50))
        }
        XCTAssertLessThan(clock.now - started, .seconds(1))
        XCTAssertEqual(try rows(reader, "SELECT COUNT(*) FROM mocks", tenant: "b"), [[3]])
    }

    func testTheConnectionsAreReadOnlyAndTheFileMustExist() throws {
        let (writer, reader) = try fixture()
        let before = try schemaSnapshot(writer)
        reader.close()
        reader.close()
        XCTAssertEqual(try schemaSnapshot(writer), before, "the views live in temp, not in the file")
        XCTAssertThrowsError(try TenantScopedReader(path: databasePath("missing.sqlite"), scope: scope)) { error in
            XCTAssertEqual((error as? SQLiteError)?.code, 14, "\(error)")
        }
        XCTAssertFalse(FileManager.default.fileExists(atPath: databasePath("missing.sqlite")))
        let unknown = TenantScope(tables: [.init("nope", tenantColumn: "tenant")], tenantFunction: "catbird_tenant")
        XCTAssertThrowsError(try TenantScopedReader(path: databasePath(), scope: unknown)) { error in
            XCTAssertTrue((error as? SQLiteError)?.message.contains("no such table: main.nope") == true, "\(error)")
        }
    }

    func testOneReaderServesManyThreads() throws {
        let (_, reader) = try fixture()
        let failures = Failures()
        let rowCounts = rowCounts
        DispatchQueue.concurrentPerform(iterations: 40) { index in
            let tenant = ["a", "b", ""][index % 3]
            do {
                let result = try reader.query(
                    "SELECT COUNT(*), COUNT(DISTINCT tenant), MIN(tenant) FROM requests", tenant: tenant, parameters: [],
                    maxRows: 1, timeLimit: .seconds(5))
                if result.rows != [[.integer(Int64(rowCounts[tenant]!)), 1, .text(tenant)]] {
                    failures.add("\(tenant): \(result.rows)")
                }
            } catch {
                failures.add("\(tenant): \(error)")
            }
        }
        XCTAssertEqual(failures.all, [])
    }
}

/// Messages gathered from several threads.
private final class Failures: @unchecked Sendable {
    // @unchecked Sendable: `messages` is only touched while `lock` is held.
    private let lock = NSLock()
    private var messages: [String] = []

    func add(_ message: String) {
        lock.lock()
        messages.append(message)
        lock.unlock()
    }

    var all: [String] {
        lock.lock()
        defer { lock.unlock() }
        return messages
    }
}
