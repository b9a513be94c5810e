import CatbirdStorage
import CatbirdTestSupport
import Foundation
import XCTest

/// Error answers a new user met that leaked internals or misled (docs/protocol.md#errors),
/// each with the exact input that showed it, and storage failures answered as 503, never 400.
final class ErrorReasonTests: ServerTestCase {
    func testAWrongJSONTypeInAnSQLRequestNamesTheFieldInsteadOfASwiftDebugDescription() throws {
        let answer = try client.json("POST", "/catbird/api/sql", #"{"sql":5}"#)
        E2E.assertError(answer, status: 400, reasonContains: "'sql' must be a string")
        let reason = answer.object["reason"] as? String ?? ""
        for leak in ["DecodingError", "typeMismatch", "Debug description", "CodingKeys", "Swift."] {
            XCTAssertFalse(reason.contains(leak), "\(leak) in \(reason)")
        }
        E2E.assertError(
            try client.json("POST", "/catbird/api/sql", #"{"sql":"SELECT 1","params":{"a":1}}"#), status: 400,
            reasonContains: "'params' must be an array")
    }

    func testATooLargeLimitNamesTheRangeInsteadOfCallingItNotAWholeNumber() throws {
        let tooLarge = try client.request("GET", "/catbird/api/requests?limit=5000")
        E2E.assertError(tooLarge, status: 400, reasonContains: "'limit' must be from 1 to 1000, not 5000")
        XCTAssertFalse(tooLarge.text.contains("whole number"), tooLarge.text)
        E2E.assertError(
            try client.request("GET", "/catbird/api/requests?limit=abc"), status: 400, reasonContains: "must be a whole number")

        let hugeMockLimit = try client.json(
            "POST", "/catbird/api/mocks",
            #"{"type":"update","pattern":{"method":"GET","url":{"kind":"equal","value":"/a"},"headers":{}},"response":{"status":200,"limit":100000000000000000000}}"#)
        E2E.assertError(hugeMockLimit, status: 400, reasonContains: "'response.limit' (100000000000000000000) is too large")
        XCTAssertFalse(hugeMockLimit.text.contains("whole number"), hugeMockLimit.text)
    }

    /// Regressions (T11-F10, the tester's exact inputs): `"limit": -9223372036854775809` was
    /// called too large; `?status=099` was echoed as `not 99`; a wait of `"timeout": 1e-9` said
    /// it waited `1e-09 s` (it waited 0: the time is counted in whole milliseconds).
    func testReasonsSayWhatWasSentAndWhatHappened() throws {
        let negative = try client.json(
            "POST", "/catbird/api/mocks",
            #"{"type":"update","pattern":{"method":"GET","url":{"kind":"equal","value":"/a"},"headers":{}},"response":{"status":200,"limit":-9223372036854775809}}"#)
        E2E.assertError(negative, status: 400, reasonContains: "'response.limit' (-9223372036854775809) is too small (at least -9223372036854775808)")
        XCTAssertFalse(negative.text.contains("too large"), negative.text)
        E2E.assertError(
            try client.request("GET", "/catbird/api/requests?status=099"), status: 400,
            reasonContains: "'status' must be an HTTP status from 100 to 599 or a class such as 4xx, not 099")
        let wait = try client.json(
            "POST", "/catbird/api/requests/wait", #"{"pattern":{"method":"GET","url":{"kind":"equal","value":"/never"}},"timeout":1e-9}"#)
        E2E.assertError(wait, status: 408, reasonContains: #"no request matching GET equal "/never" arrived within 0 s;"#)
        let half = try client.json(
            "POST", "/catbird/api/requests/wait", #"{"pattern":{"method":"GET","url":{"kind":"equal","value":"/never"}},"timeout":0.25}"#)
        E2E.assertError(half, status: 408, reasonContains: #"no request matching GET equal "/never" arrived within 0.25 s;"#)
    }

    /// Regression (tester58b-F4, its exact mock): a WireMock-style header array got only
    /// "'response.headers.Set-Cookie' must be a string", though docs/protocol.md tells how to send
    /// a field twice; the reason now says it. Nothing is stored.
    func testAResponseHeaderArraySaysHowToSendAFieldTwice() throws {
        let refused = try client.json(
            "POST", "/catbird/api/mocks",
            #"{"type":"update","pattern":{"method":"GET","url":{"kind":"equal","value":"/ck"}},"response":{"status":200,"headers":{"Set-Cookie":["a=1","b=2"]}}}"#,
            headers: [("X-Catbird-Parallel-Id", "w4")])
        E2E.assertError(
            refused, status: 400,
            reasonContains: #"'response.headers.Set-Cookie' must be a string: one string per name (Catbird 0.11's shape); "#
                + #"to send a field twice, give its name in two spellings, {"Set-Cookie": "a=1", "set-cookie": "b=2"}"#)
        XCTAssertEqual(try client.request("GET", "/ck", headers: [("X-Catbird-Parallel-Id", "w4")]).status, 404)
    }

    /// `equalTo` takes any JSON value: `1e400` was refused with "'pattern.body.equalTo' must be an
    /// object", and `"status":1e400` with "malformed JSON"; the fault is a number out of range.
    func testANumberOutOfRangeIsNamedAsSuchWhereverItIs() throws {
        func equalTo(_ number: String) -> String {
            #"{"type":"update","pattern":{"method":"POST","url":{"kind":"equal","value":"/jp3"},"body":{"kind":"jsonPath","value":"$.a","equalTo":\#(number)}},"response":{"status":200}}"#
        }
        for (path, body, reason) in [
            ("/catbird/api/mocks", equalTo("1e400"), "'pattern.body.equalTo' is the number 1e400, out of range"),
            (
                "/catbird/api/mocks", #"{"type":"update","pattern":{"method":"GET","url":{"kind":"equal","value":"/a"}},"response":{"status":-2E+999}}"#,
                "'response.status' is the number -2E+999, out of range"
            ),
            ("/catbird/api/sql", #"{"sql":"SELECT ?","params":[1, 1e400]}"#, "'params[1]' is the number 1e400, out of range"),
            // Not 0 but smaller than any 64-bit float: the decoder refuses it too ("must be an
            // object" for equalTo, as 1e400 was), while JSONSerialization would read it as 0.
            ("/catbird/api/mocks", equalTo("1e-400"), "'pattern.body.equalTo' is the number 1e-400, out of range"),
            ("/catbird/api/sql", #"{"sql":"SELECT ?","params":[-2E-324]}"#, "'params[0]' is the number -2E-324, out of range"),
        ] {
            let answer = try client.json("POST", path, body)
            E2E.assertError(answer, status: 400, reasonContains: reason)
            XCTAssertFalse(answer.text.contains("must be an object"), answer.text)
        }
        XCTAssertEqual(try E2E.mocks(client, tenant: nil).count, 0, "nothing was stored")
        // In range, however written, it still works: 0 written small, the smallest float.
        for (number, sql) in [("0e-400", "SELECT ? = 0"), ("-0.000e-999", "SELECT ? = 0"), ("5e-324", "SELECT ? > 0")] {
            let answer = try client.json("POST", "/catbird/api/sql", #"{"sql":"\#(sql)","params":[\#(number)]}"#)
            XCTAssertEqual(answer.status, 200, "\(number): \(answer.text)")
            XCTAssertEqual((answer.object["rows"] as? [[Int]])?.first, [1], "\(number): \(answer.text)")
        }
        let large = try client.json("POST", "/catbird/api/mocks", equalTo("1e300"))
        XCTAssertEqual(large.status, 201, large.text)
        // ...and it is stored as that number, not as infinity or 0: 1e300 matches, 1 does not.
        XCTAssertEqual(try client.request("POST", "/jp3", body: Array(#"{"a":1e300}"#.utf8)).status, 200)
        XCTAssertEqual(try client.request("POST", "/jp3", body: Array(#"{"a":1}"#.utf8)).status, 404)
    }

    /// `"\ud800"` (a lone surrogate escape) was "a parameter must be null, a boolean, a number or
    /// a string" from the SQL route and "malformed JSON" from the mocks route: one reason,
    /// naming the field, from every control body.
    func testALoneSurrogateEscapeGetsOneReasonEverywhere() throws {
        let pattern = #"{"method":"GET","url":{"kind":"equal","value":"/\ud800"}}"#
        let cases: [(route: String, body: String, reason: String)] = [
            ("/catbird/api/sql", #"{"sql":"SELECT ?","params":["\ud800"]}"#, #"'params[0]' holds the escape \ud800, a lone surrogate"#),
            ("/catbird/api/sql", #"{"sql":"SELECT ?","params":["\uDC00x"]}"#, #"'params[0]' holds the escape \uDC00, a lone surrogate"#),
            ("/catbird/api/sql", #"{"sql":"SELECT '\ud83d'"}"#, #"'sql' holds the escape \ud83d, a lone surrogate"#),
            ("/catbird/api/mocks", #"{"type":"update","pattern":\#(pattern),"response":{"status":200}}"#,
             #"'pattern.url.value' holds the escape \ud800, a lone surrogate"#),
            ("/catbird/api/mocks", #"{"type":"update","pattern":{"method":"GET","url":{"kind":"equal","value":"/a"},"headers":{"\udbff":{"kind":"equal","value":"1"}}},"response":{"status":200}}"#,
             #"'pattern.headers' holds the escape \udbff, a lone surrogate"#),
            ("/catbird/api/requests/find", #"{"pattern":\#(pattern)}"#, #"'pattern.url.value' holds the escape \ud800"#),
            ("/catbird/api/requests/count", #"{"pattern":\#(pattern)}"#, #"'pattern.url.value' holds the escape \ud800"#),
        ]
        for (route, body, reason) in cases {
            let answer = try client.json("POST", route, body)
            E2E.assertError(answer, status: 400, reasonContains: reason)
            XCTAssertFalse(answer.text.contains("malformed JSON"), "\(route) \(body): \(answer.text)")
            XCTAssertFalse(answer.text.contains("must be null, a boolean"), "\(route) \(body): \(answer.text)")
        }
        XCTAssertEqual(try E2E.mocks(client, tenant: nil).count, 0, "nothing was stored")
        // A surrogate pair is one character and works.
        let pair = try client.json("POST", "/catbird/api/sql", #"{"sql":"SELECT ?","params":["\ud83d\ude00"]}"#)
        XCTAssertEqual(pair.status, 200, pair.text)
        XCTAssertEqual((pair.object["rows"] as? [[String]])?.first?.first, "\u{1F600}")
    }

    func testAKeyGivenTwiceIsRefusedNamingTheKeyAndNothingIsStored() throws {
        let twice = try client.json(
            "POST", "/catbird/api/mocks",
            #"{"type":"update","pattern":{"method":"GET","url":{"kind":"equal","value":"/a"},"headers":{}},"response":{"status":200,"limit":2,"limit":3}}"#)
        E2E.assertError(twice, status: 400, reasonContains: #"the JSON object 'response' has the key "limit" more than once"#)
        XCTAssertEqual(try E2E.mocks(client, tenant: nil).count, 0, "the last limit did not silently win")

        E2E.assertError(
            try client.json(
                "POST", "/catbird/api/mocks",
                #"{"type":"update","type":"remove","pattern":{"method":"GET","url":{"kind":"equal","value":"/a"},"headers":{}}}"#),
            status: 400, reasonContains: #"the JSON body has the key "type" more than once"#)
        // Escapes are decoded before keys are compared: "\u0058" is "X".
        E2E.assertError(
            try client.json(
                "POST", "/catbird/api/mocks",
                #"{"type":"remove","pattern":{"method":"GET","url":{"kind":"equal","value":"/a"},"headers":{"X":{"kind":"equal","value":"1"},"\u0058":{"kind":"equal","value":"2"}}}}"#),
            status: 400, reasonContains: #"'pattern.headers' has the key "X""#)
        E2E.assertError(
            try client.json("POST", "/catbird/api/sql", #"{"sql":"SELECT 1","sql":"SELECT 2"}"#), status: 400,
            reasonContains: #"the key "sql" more than once"#)
        // Names differing in case are different keys to JSON.
        let cases = try client.json(
            "POST", "/catbird/api/mocks",
            #"{"type":"remove","pattern":{"method":"GET","url":{"kind":"equal","value":"/a"},"headers":{"X":{"kind":"equal","value":"1"},"x":{"kind":"equal","value":"2"}}}}"#)
        XCTAssertEqual(cases.status, 204, cases.text)
    }

    func testANonFiniteSQLResultIsNullNotTheStringInfinity() throws {
        let rows = try E2E.sqlRows(client, "SELECT 1e999, -1e999, 2.5")
        XCTAssertEqual(rows.count, 1)
        XCTAssertTrue(rows.first?[0] is NSNull, "\(rows)")
        XCTAssertTrue(rows.first?[1] is NSNull, "\(rows)")
        XCTAssertEqual(JSONNumber.double(rows.first?[2]), 2.5)
    }

    func testABusyDatabaseIsA503WithAReasonNotA400() throws {
        // Another connection holds the write lock past the server's 5 s busy timeout.
        let other = try Database(path: server.databasePath)
        try other.execute("BEGIN EXCLUSIVE")
        let answer = try client.json(
            "POST", "/catbird/api/mocks",
            #"{"type":"update","pattern":{"method":"GET","url":{"kind":"equal","value":"/a"},"headers":{}},"response":{"status":200}}"#)
        try other.execute("ROLLBACK")
        other.close()
        E2E.assertError(answer, status: 503, reasonContains: "the database is busy")
        let retried = try client.json(
            "POST", "/catbird/api/mocks",
            #"{"type":"update","pattern":{"method":"GET","url":{"kind":"equal","value":"/a"},"headers":{}},"response":{"status":200}}"#)
        XCTAssertEqual(retried.status, 201, retried.text)
    }

    func testScriptsRunHelpPrintsTheServersHelpWithoutBuilding() throws {
        let root = ProcessRunner.repositoryRoot
        // No swift on PATH: any attempt to set up or build would fail.
        let result = try ProcessRunner.run(
            URL(fileURLWithPath: "/bin/bash"), ["scripts/run", "--help"], in: root,
            environment: ["PATH": "/usr/bin:/bin", "HOME": NSTemporaryDirectory()], seconds: 20)
        XCTAssertEqual(result.status, 0, result.stderr)
        let catbird = try ProcessRunner.run(try BuiltProducts.executable(named: "catbird"), ["--help"], in: root)
        XCTAssertEqual(result.stdout, catbird.stdout)
        XCTAssertTrue(result.stdout.hasPrefix("USAGE: catbird"), result.stdout)
        XCTAssertEqual(result.stderr, "", "nothing was set up or built")
    }
}
