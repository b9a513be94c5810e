import CatbirdTestSupport
import Foundation
import Synchronization
import XCTest

/// One SQL function call cannot hold an SQL connection past the time limit
/// (docs/protocol.md#sql, "one function call"): SQLite cannot interrupt a call, so the calls
/// whose work grows as length × length are refused at once past their bound.
///
/// Each case is a regression: before the check, the query below ran for tens of seconds inside
/// one SQLite call (an `instr` of the same shape, 100,001 bytes in 8,000,000: 41 s over a real
/// server at load 8; these, measured with the same SQLite library: `instr` and `replace`
/// ~20 s, `like` and `glob` ~90 s, `ltrim` ~90 s, `json_patch` ~7 s of CPU), and three
/// tenants running it took all three SQL connections, so a fourth tenant's `SELECT 1` waited
/// into its own time limit and got a 400. The values are cheap to build (megabytes), so the
/// refusal comes at once even on a loaded machine.
final class SQLFunctionCostTests: XCTestCase {
    /// 2,000,000 `a`s.
    private static let haystack = "replace(hex(zeroblob(1000000)), '0', 'a')"
    /// 200,000 `a`s and a `b`: compared in full at every byte of the haystack.
    private static let needle = "replace(hex(zeroblob(100000)), '0', 'a') || 'b'"

    func testInstrOfALongNeedleInALongHaystackIsRefusedAtOnce() throws {
        try assertRefusedWhileOthersQuery(
            "SELECT instr(\(Self.haystack), \(Self.needle))",
            reason: "instr() of a 2000000-byte haystack and a 200001-byte needle could take 400002000000 steps in one call, past the limit of 2147483648 per call")
    }

    func testReplaceOfALongPatternInALongValueIsRefusedAtOnce() throws {
        try assertRefusedWhileOthersQuery(
            "SELECT length(replace(\(Self.haystack), \(Self.needle), 'x'))",
            reason: "replace() of a 2000000-byte value and a 200001-byte pattern could take 400002000000 steps in one call, past the limit of 2147483648 per call")
    }

    func testLikeWithALongWildcardTailOverALongValueIsRefusedAtOnce() throws {
        try assertRefusedWhileOthersQuery(
            "SELECT replace(hex(zeroblob(1000000)), '0', 'a') LIKE '%' || replace(hex(zeroblob(10000)), '0', 'a') || 'b'",
            reason: "like() of a 20002-byte pattern from its first % and a 2000000-byte value could take 40004000000 steps in one call, past the limit of 67108864 per call")
    }

    func testGlobWithALongWildcardTailOverALongValueIsRefusedAtOnce() throws {
        try assertRefusedWhileOthersQuery(
            "SELECT replace(hex(zeroblob(1000000)), '0', 'a') GLOB '*' || replace(hex(zeroblob(10000)), '0', 'a') || 'b'",
            reason: "glob() of a 20002-byte pattern from its first * and a 2000000-byte value could take 40004000000 steps in one call, past the limit of 67108864 per call")
    }

    func testTrimWithALongSetOverALongValueIsRefusedAtOnce() throws {
        try assertRefusedWhileOthersQuery(
            "SELECT length(ltrim(replace(hex(zeroblob(1000000)), '0', 'a'), replace(hex(zeroblob(10000)), '0', 'b') || 'a'))",
            reason: "ltrim() of a 2000000-byte value and a 20001-byte set of characters could take 40002000000 steps in one call, past the limit of 67108864 per call")
    }

    func testJSONPatchOfTwoLargeObjectsIsRefusedAtOnce() throws {
        let objects = "WITH RECURSIVE c(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM c WHERE i < 40000), "
            + "o AS (SELECT json_group_object('a' || i, i) AS t, json_group_object('b' || i, i) AS p FROM c) "
        try assertRefusedWhileOthersQuery(
            objects + "SELECT length(json_patch(t, p)) FROM o",
            reason: "json_patch() of a 577789-byte target and a 577789-byte patch could take 333840128521 steps in one call, past the limit of 2147483648 per call")
    }

    /// The checked functions still give SQLite's own answers within their bounds, types,
    /// NULLs, blobs, UTF-8 positions, ESCAPE and JSON subtypes included (the values are the
    /// `sqlite3` CLI's for the same query).
    func testCheckedFunctionsAnswerAsSQLiteWithinTheirBounds() throws {
        let server = try TestServer()
        defer { server.removeFiles() }
        let client = try server.client()
        let rows = try E2E.sqlRows(
            client,
            "SELECT instr(\(Self.haystack) || 'b', 'aab'), instr('héllo', 'l'), instr(x'0102', x'02'), instr(NULL, 'a'), "
                + "instr('abc', 2), replace('abcabc', 'b', 'XY'), 'abc' LIKE 'A%', 'abc' GLOB 'a*', 'a%' LIKE 'a\\%' ESCAPE '\\', "
                + "trim('xxaxx', 'x'), ltrim('xxa', 'x'), rtrim('axx', 'x'), json_object('p', json_patch('{\"a\":1}', '{\"b\":2}')), "
                + "typeof(replace(x'6161', 'a', 'b')), instr('', ''), typeof(replace(x'', 'a', 'b')), instr(x'', x''), "
                + "length(replace(\(Self.haystack), 'a', 'bc'))")
        let row = try XCTUnwrap(rows.first)
        XCTAssertEqual(row.count, 18)
        XCTAssertEqual(row[0] as? Int, 1_999_999)
        XCTAssertEqual(row[1] as? Int, 3)
        XCTAssertEqual(row[2] as? Int, 2)
        XCTAssertTrue(row[3] is NSNull)
        XCTAssertEqual(row[4] as? Int, 0)
        XCTAssertEqual(row[5] as? String, "aXYcaXYc")
        XCTAssertEqual(row[6..<9].map { $0 as? Int }, [1, 1, 1])
        XCTAssertEqual(row[9..<12].map { $0 as? String }, ["a", "a", "a"])
        XCTAssertEqual(row[12] as? String, #"{"p":{"a":1,"b":2}}"#)
        XCTAssertEqual(row[13] as? String, "text")
        XCTAssertEqual(row[14] as? Int, 1)
        XCTAssertEqual(row[15] as? String, "text")
        XCTAssertEqual(row[16] as? Int, 1)
        XCTAssertEqual(row[17] as? Int, 4_000_000)
    }

    /// Regression: `replace(x, '', y)` is x itself in SQLite, JSON subtype and all, but the
    /// checked replace() computed it on its private connection, where x had lost its subtype:
    /// `json_object('k', replace(json('{"a":1}'), '', ''))` gave `{"k":"{\"a\":1}"}` where
    /// SQLite gives `{"k":{"a":1}}`. The other checked functions give no subtype, as SQLite's
    /// own do (each value here is the `sqlite3` CLI's, SQLite 3.40.1).
    func testCheckedFunctionsKeepOrDropJSONSubtypesAsSQLite() throws {
        let server = try TestServer()
        defer { server.removeFiles() }
        let client = try server.client()
        let object = #"json('{"a":1}')"#
        let string = #"{"k":"{\"a\":1}"}"#
        // Each expression and what the `sqlite3` CLI gives for it.
        let cases: [(expression: String, sqlite: String)] = [
            ("json_object('k', replace(\(object), '', ''))", #"{"k":{"a":1}}"#),
            ("json_object('k', replace(\(object), '', 'x'))", #"{"k":{"a":1}}"#),
            ("json_object('k', replace(\(object), zeroblob(0), 'x'))", #"{"k":{"a":1}}"#),
            ("json_object('k', replace(json('[1]'), x'0041', 'z'))", #"{"k":[1]}"#),
            ("json_object('k', replace(\(object), 'zz', ''))", string),
            ("json_object('k', replace(\(object), NULL, ''))", #"{"k":null}"#),
            ("json_object('k', trim(\(object), 'x'))", string),
            ("json_object('k', ltrim(\(object), ''))", string),
            ("json_object('k', printf('%s', \(object)))", string),
            ("json_object('k', format(\(object)))", string),
            ("typeof(replace(5, '', ''))", "integer"),
            ("typeof(replace(x'00', zeroblob(0), 'a'))", "text"),
            ("typeof(replace(1.5, '', 'a'))", "real"),
        ]
        let rows = try E2E.sqlRows(client, "SELECT " + cases.map(\.expression).joined(separator: ", "))
        let row = try XCTUnwrap(rows.first)
        XCTAssertEqual(row.count, cases.count)
        for (value, expected) in zip(row, cases) {
            XCTAssertEqual(value as? String, expected.sqlite, expected.expression)
        }
    }

    /// Runs `sql` as three tenants at once (every connection of the SQL pool) while a fourth
    /// tenant asks `SELECT 1`: each of the three gets a 400 naming the function and its limit
    /// within the time limit, and the fourth is answered without waiting for them.
    private func assertRefusedWhileOthersQuery(
        _ sql: String, reason: String, file: StaticString = #filePath, line: UInt = #line
    ) throws {
        let server = try TestServer()
        defer { server.removeFiles() }
        let port = server.port
        let answers = Mutex<[(status: Int, text: String, took: Duration)]>([])
        let costly = DispatchGroup()
        for tenant in ["a", "b", "c"] {
            costly.enter()
            Thread {
                defer { costly.leave() }
                let started = ContinuousClock.now
                let answer = try? E2E.sql(try RawHTTPClient(port: port), sql, tenant: tenant)
                answers.withLock { $0.append((answer?.status ?? 0, answer?.text ?? "no answer", ContinuousClock.now - started)) }
            }.start()
        }
        usleep(300_000)
        let started = ContinuousClock.now
        let other = try E2E.sql(try server.client(), "SELECT 1", tenant: "d")
        // Before the check it waited for a connection into its own 2-second limit: a 400.
        XCTAssertEqual(other.status, 200, other.text, file: file, line: line)
        XCTAssertLessThan(ContinuousClock.now - started, .seconds(2), "tenant d's SELECT 1 waited", file: file, line: line)

        XCTAssertEqual(costly.wait(timeout: .now() + 30), .success, "the costly queries never answered", file: file, line: line)
        for answer in answers.withLock({ $0 }) {
            XCTAssertEqual(answer.status, 400, answer.text, file: file, line: line)
            XCTAssertTrue(answer.text.contains(reason), answer.text, file: file, line: line)
            XCTAssertTrue(answer.text.contains(#""error":true"#), answer.text, file: file, line: line)
            // Refused, not stopped by the 2-second limit (the reason says which); generous.
            XCTAssertLessThan(answer.took, .seconds(4), "the query ran past its time limit", file: file, line: line)
        }
    }
}
