import CatbirdSupport
import CatbirdTestSupport
import Foundation
import XCTest

/// Bad input to `POST /catbird/api/sql`: writes, bad bodies, a query past its time limit.
extension ControlBadInputTests {
    func testSQLWriteStatementsAreRejected() throws {
        let harness = try ControlBadInputHarness()
        let statements = [
            "DELETE FROM mocks",
            "DROP TABLE requests",
            "INSERT INTO tenants VALUES('x','a','b')",
            "SELECT 1; DELETE FROM mocks",
            "PRAGMA journal_mode=DELETE",
            "ATTACH DATABASE '/tmp/x.db' AS x",
            "UPDATE mocks SET hits = 99",
            "REPLACE INTO tenants SELECT * FROM tenants",
            "WITH x AS (SELECT 1) DELETE FROM requests",
            "CREATE TABLE t(x)",
            "CREATE TEMP TABLE t(x)",
            "PRAGMA user_version = 3",
            "BEGIN",
            "DETACH DATABASE main",
            "VACUUM",
            "REINDEX",
            "ANALYZE",
            // tester38a-F1: compiled to nothing (nothing to vacuum or rebuild), they passed
            // sqlite3_stmt_readonly and answered 200 with an empty result.
            "VACUUM temp",
            "vacuum temp into (select group_concat(url) from requests)",
            "REINDEX NOCASE",
            "REINDEX RTRIM",
            "REINDEX temp.requests",
            "/* a comment */ -- and another\n REINDEX NOCASE",
        ]
        for sql in statements {
            try harness.assertRejected("SQL \(sql)", 400, mentioning: ["read-only", "read only", "statement"]) {
                try $0.json("POST", "/catbird/api/sql", #"{"sql":\#(FixtureTestSupport.canonical(sql))}"#)
            }
        }
    }

    /// The statements the SQL route takes (docs/protocol.md#sql), whatever their case and the
    /// comments or semicolons before them, are still answered now that a statement's first word
    /// is checked (tester38a-F1).
    func testSQLReadOnlyStatementKindsAreAnswered() throws {
        let harness = try ControlBadInputHarness()
        for sql in [
            "select 1", "  /* a comment */ WITH x AS (SELECT 2) SELECT * FROM x", "-- a line\nVALUES (3)", ";; SELECT 4",
            "PRAGMA table_info(requests)", "pragma user_version", "EXPLAIN SELECT 5", "explain query plan select url from requests",
            "SELECT count(*) FROM pragma_table_info('requests')",
            // tester39a-F10: SQLite skips a leading byte order mark; the first-word check did not.
            "\u{FEFF}SELECT 6",
        ] {
            let answer = try harness.client.json("POST", "/catbird/api/sql", #"{"sql":\#(FixtureTestSupport.canonical(sql))}"#)
            XCTAssertEqual(answer.status, 200, "\(sql): \(answer.text)")
            XCTAssertNotNil(answer.object["rows"] as? [Any], "\(sql): \(answer.text)")
        }
    }

    /// tester39a-F10, its queries: a no-break space, U+2028 or a byte order mark after
    /// `SELECT 1;` was refused as "only one SQL statement is allowed", a rule the query does not
    /// seem to break, and a syntax error quoted the SQL with such a character raw (`near " SELECT":
    /// syntax error — in: SELECT 1`). The refusal now names the character and says SQLite does
    /// not read it as white space; a quoted statement shows it as `<U+00A0>`.
    func testSQLWithACharacterThatLooksBlankNamesIt() throws {
        let harness = try ControlBadInputHarness()
        for (sql, expected) in [
            ("SELECT 1;\u{00A0}", "the SQL holds U+00A0 after its statement, which SQLite does not read as white space"),
            ("SELECT 1;\u{2028}", "the SQL holds U+2028 after its statement"),
            ("SELECT 1;\u{FEFF}", "the SQL holds U+FEFF after its statement"),
            ("\u{00A0}SELECT 1", "syntax error — in: <U+00A0>SELECT 1"),
            ("SELECT\u{2028}1", "syntax error — in: SELECT<U+2028>1"),
        ] {
            try harness.assertRejected("SQL \(sql.unicodeScalars.map(\.codePointText))", 400, mentioning: [expected]) {
                try $0.json("POST", "/catbird/api/sql", #"{"sql":\#(FixtureTestSupport.canonical(sql))}"#)
            }
        }
        let two = try harness.client.json("POST", "/catbird/api/sql", #"{"sql":"SELECT 1; SELECT 2"}"#)
        E2E.assertError(two, status: 400, reasonContains: "only one SQL statement is allowed")
    }

    /// T12-F4: `select 1\u0000; delete from requests` answered 200 `[[1]]`: SQLite reads the
    /// text to its first NUL, so neither the query run nor the one-statement check saw the
    /// rest; `select 'a\u0000b' as x, 2` got `unrecognized token: "'a"`. Both are refused,
    /// naming the NUL.
    func testSQLHoldingANULCharacterIsRefused() throws {
        let harness = try ControlBadInputHarness()
        for sql in [#"select 1\u0000; delete from requests"#, #"select 'a\u0000b' as x, 2"#] {
            try harness.assertRejected("SQL \(sql)", 400, mentioning: ["'sql' holds a NUL character (\\u0000)"]) {
                try $0.json("POST", "/catbird/api/sql", #"{"sql":"\#(sql)"}"#)
            }
        }
    }

    /// Regression: `SELECT fts3_tokenizer('simple')` answered 200 with a raw pointer (an address
    /// in the server's memory), and `fts3_tokenizer('simple', x'4141414141414141')` answered 200
    /// after installing that address as the connection's tokenizer. Every function of that kind
    /// (docs/protocol.md#sql) is refused, and the reader still answers afterwards.
    func testSQLFunctionsThatHandOutPointersLoadCodeOrWriteAreRejected() throws {
        let harness = try ControlBadInputHarness()
        let statements = [
            "SELECT fts3_tokenizer('simple')",
            "SELECT fts3_tokenizer('simple', x'4141414141414141')",
            "SELECT hex(FTS3_TOKENIZER('porter'))",
            "SELECT load_extension('x')",
            "SELECT fts5(NULL)",
            "SELECT sqlite_log(1, 'x')",
            "SELECT rtreenode(2, x'00000000')",
            "SELECT rtreedepth(x'0000')",
            "SELECT rtreecheck('requests')",
            "SELECT optimize(1)",
        ]
        for sql in statements {
            try harness.assertRejected("SQL \(sql)", 400, mentioning: ["read-only"]) {
                try $0.json("POST", "/catbird/api/sql", #"{"sql":\#(FixtureTestSupport.canonical(sql))}"#)
            }
        }
        let after = try harness.client.json("POST", "/catbird/api/sql", #"{"sql":"SELECT 6 * 7"}"#)
        XCTAssertEqual(after.status, 200, after.text)
        XCTAssertEqual(after.object["rows"] as? [[Int]], [[42]])
    }

    /// Statements that would write a file beside the database are refused before any is made.
    func testSQLThatWouldCreateAFileCreatesNone() throws {
        let harness = try ControlBadInputHarness()
        for (label, file, sql) in [
            ("ATTACH in the server's folder", "attached.db", "ATTACH DATABASE '%@' AS x"), ("VACUUM INTO", "copy.db", "VACUUM INTO '%@'"),
            ("VACUUM temp INTO (tester38a-F1)", "temp-copy.db", "VACUUM temp INTO '%@'"),
        ] {
            let path = harness.server.directory.appendingPathComponent(file).path
            let statement = sql.replacingOccurrences(of: "%@", with: path)
            try harness.assertRejected("SQL \(label)", 400, mentioning: ["read-only", "read only", "statement"]) {
                try $0.json("POST", "/catbird/api/sql", #"{"sql":\#(FixtureTestSupport.canonical(statement))}"#)
            }
            XCTAssertFalse(FileManager.default.fileExists(atPath: path), "a refused \(label) must not create \(path)")
        }
    }

    func testSQLBadBodiesAreRejected() throws {
        let harness = try ControlBadInputHarness()
        let cases: [(String, String, [String])] = [
            ("body not JSON", "SELECT 1", ["JSON", "sql"]),
            ("sql missing", #"{"params":[]}"#, ["sql"]),
            ("sql as a number", #"{"sql":1}"#, ["sql"]),
            ("sql empty", #"{"sql":""}"#, ["statement", "sql"]),
            ("sql only a comment", #"{"sql":"-- nothing"}"#, ["statement", "sql"]),
            ("param is an object", #"{"sql":"SELECT ?","params":[{"a":1}]}"#, ["param"]),
            ("BLOB param not base64", #"{"sql":"SELECT ?","params":[{"base64":"aG k="}]}"#, ["BLOB", "base64"]),
            ("BLOB param with another key", #"{"sql":"SELECT ?","params":[{"base64":"aGk=","x":"1"}]}"#, ["param"]),
            // tester45a-F12: the slips a mock body is told of, and the BLOB form in the body's shape.
            ("BLOB param with a space", #"{"sql":"SELECT ?","params":[{"base64":"AA EC"}]}"#, ["holds a space at byte 2", #"send "AAEC""#, #"{"base64": "AAEC"}"#]),
            ("BLOB param unpadded", #"{"sql":"SELECT ?","params":[{"base64":"AAE"}]}"#, [#"is base64 without its "=" padding: send "AAE=""#]),
            ("params not an array", #"{"sql":"SELECT ?","params":1}"#, ["param"]),
            ("params an array in an array", #"{"sql":"SELECT ?","params":[[1]]}"#, ["param"]),
            ("too many params", #"{"sql":"SELECT ?","params":[1,2]}"#, ["param"]),
            ("too few params", #"{"sql":"SELECT ?, ?","params":[1]}"#, ["param"]),
            ("maxRows 0", #"{"sql":"SELECT 1","maxRows":0}"#, ["maxRows"]),
            ("maxRows negative", #"{"sql":"SELECT 1","maxRows":-1}"#, ["maxRows"]),
            ("maxRows over 10000", #"{"sql":"SELECT 1","maxRows":10001}"#, ["maxRows"]),
            ("maxRows as text", #"{"sql":"SELECT 1","maxRows":"5"}"#, ["maxRows"]),
            ("syntax error", #"{"sql":"SELEKT 1"}"#, ["syntax", "SELEKT"]),
            ("unknown table", #"{"sql":"SELECT * FROM no_such_table"}"#, ["no_such_table"]),
        ]
        for (label, body, problem) in cases {
            try harness.assertRejected("SQL \(label)", 400, mentioning: problem) {
                try $0.json("POST", "/catbird/api/sql", body)
            }
        }
        try harness.assertRejected("SQL body text/plain", 415, mentioning: ["Content-Type", "JSON"]) {
            try $0.request("POST", "/catbird/api/sql", headers: [("Content-Type", "text/plain")], body: Array(#"{"sql":"SELECT 1"}"#.utf8))
        }
        try harness.assertRejected("SQL without Content-Type", 415, mentioning: ["Content-Type", "JSON"]) {
            try $0.request("POST", "/catbird/api/sql", body: Array(#"{"sql":"SELECT 1"}"#.utf8))
        }
    }

    /// A query past the time limit is stopped with a 400, and the server keeps serving.
    func testSQLPastItsTimeLimitIsStopped() throws {
        let harness = try ControlBadInputHarness(configure: { $0.sqlTimeLimit = .milliseconds(300) })
        let sql = "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c) SELECT count(*) FROM c"
        let clock = ContinuousClock()
        let start = clock.now
        try harness.assertRejected("SQL endless recursive CTE", 400, mentioning: ["time", "interrupt"]) {
            try $0.json("POST", "/catbird/api/sql", #"{"sql":\#(FixtureTestSupport.canonical(sql))}"#)
        }
        XCTAssertLessThan(start.duration(to: clock.now), .seconds(10), "the time limit must stop the query")
    }
}
