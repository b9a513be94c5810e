import CatbirdTestSupport
import Foundation
import XCTest

/// A control body holding more than 100,000 JSON values is refused with 400 after the first
/// 100,001 are read, before Foundation's decoder builds any of them (docs/protocol.md#request-bodies).
final class ControlBodyValueLimitTests: XCTestCase {
    /// Tester finding T17-F2, the exact input: a 40 MB `removeAll` with the unknown key `x`
    /// holding 20,971,520 zeros was refused (`unknown key "x"`) only after 79 s, the server's
    /// peak memory 1.4 GB. Now the 400 says the body holds too many values, at once; the server
    /// stays small and keeps its mocks. A body just under the limit is read as before (its own
    /// 400 for the unknown key), and an SQL query with 30,000 parameters runs.
    func testABodyOfMillionsOfValuesIsRefusedBeforeItIsDecoded() throws {
        try LaunchedServer.withTemporaryDatabase { server, client in
        try E2E.addMock(client, url: "/kept", body: "kept")
        try server.resetPeakResident()

        let body = Array((#"{"type":"removeAll","x":["# + String(repeating: "0,", count: 20 * 1024 * 1024 - 1) + "0]}").utf8)
        let began = ContinuousClock.now
        let refused = try client.request(
            "POST", "/catbird/api/mocks", headers: [("Content-Type", "application/json")], body: body)
        let took = ContinuousClock.now - began
        E2E.assertError(refused, status: 400, reasonContains: "the JSON body holds more than 100000 values (array elements, object members)")
        XCTAssertLessThan(took, .seconds(10), "refused without decoding (79 s before)")
        XCTAssertLessThan(try server.peakResidentMegabytes(), 300, "not 1.4 GB")
        XCTAssertEqual(try client.request("GET", "/kept").text, "kept", "removeAll did nothing")

        let under = #"{"type":"remove","x":["# + Array(repeating: "0", count: 99_990).joined(separator: ",") + "]}"
        E2E.assertError(try client.json("POST", "/catbird/api/mocks", under), status: 400, reasonContains: #"unknown key "x""#)
        XCTAssertEqual(try client.request("GET", "/kept").text, "kept")

        let params = Array(repeating: "1", count: 29_999).joined(separator: ",") + ",30000"
        let sum = try client.json("POST", "/catbird/api/sql", #"{"sql":"SELECT ?30000 AS n","params":[\#(params)]}"#)
        XCTAssertEqual(sum.status, 200, String(sum.text.prefix(300)))
        XCTAssertTrue(sum.text.contains("30000"), String(sum.text.prefix(300)))
        }
    }
}

/// Numbers past 64 bits in control bodies: a field's 400 names its documented range, and an SQL
/// parameter that would change its digits is refused (docs/protocol.md#errors, #sql).
final class ControlBodyBigNumberTests: XCTestCase {
    /// Regression (tester21a-F3, its inputs): near 2^63 the reasons contradicted themselves:
    /// `9223372036854775807.0` and `9.223372036854775807e18` were "(9223372036854775807) is too
    /// large (at most 9223372036854775807)", and `9223372036854775806.5`, below the maximum,
    /// "too large" rather than not whole. Past the limit, and a plain whole number, unchanged.
    func testNumbersNearTheLimitGetReasonsThatHold() throws {
        let server = try TestServer()
        defer { server.removeFiles() }
        let client = try server.client()
        let mock = { (limit: String) in
            #"{"type":"update","pattern":{"method":"GET","url":{"kind":"equal","value":"/d"},"headers":{}},"response":{"status":200,"headers":{},"limit":\#(limit)}}"#
        }
        for written in ["9223372036854775807.0", "9.223372036854775807e18"] {
            E2E.assertError(
                try client.json("POST", "/catbird/api/mocks", mock(written)), status: 400,
                reasonContains: "'response.limit' (9223372036854775807) is written with a fraction or an exponent, which is read as a "
                    + "64-bit float, exact only up to 9007199254740992 (2^53): write it as digits alone")
        }
        E2E.assertError(
            try client.json("POST", "/catbird/api/mocks", mock("9223372036854775806.5")), status: 400,
            reasonContains: "'response.limit' (9223372036854775806.5) must be a whole number")
        E2E.assertError(
            try client.json("POST", "/catbird/api/mocks", mock("99999999999999999999")), status: 400,
            reasonContains: "'response.limit' (99999999999999999999) is too large (at most 9223372036854775807)")
        XCTAssertEqual(try E2E.mocks(client, tenant: nil).count, 0, "nothing stored")
        XCTAssertEqual(try client.json("POST", "/catbird/api/mocks", mock("9223372036854775807")).status, 201)
        XCTAssertEqual(try client.json("POST", "/catbird/api/mocks", mock("1.0")).status, 201)
    }

    /// Tester findings T17-F3 and T17-F4, the exact inputs: `"status":99999999999999999999`
    /// was "too large (at most 9223372036854775807)", `"delay":9223372036854775808` likewise;
    /// the SQL parameter 12345678901234567891 was bound as 1.23456789012346e+19 with a 200.
    func testNumbersPast64BitsNameTheRangeOrAreRefused() throws {
        let server = try TestServer()
        defer { server.removeFiles() }
        let client = try server.client()
        let mock = { (response: String) in
            #"{"type":"update","pattern":{"method":"GET","url":{"kind":"equal","value":"/n"},"headers":{}},"response":\#(response)}"#
        }
        E2E.assertError(
            try client.json("POST", "/catbird/api/mocks", mock(#"{"status":99999999999999999999}"#)), status: 400,
            reasonContains: "'response.status' (99999999999999999999) is out of range: it must be between 200 and 599")
        E2E.assertError(
            try client.json("POST", "/catbird/api/mocks", mock(#"{"status":-99999999999999999999}"#)), status: 400,
            reasonContains: "is out of range: it must be between 200 and 599")
        E2E.assertError(
            try client.json("POST", "/catbird/api/mocks", mock(#"{"status":200,"delay":9223372036854775808}"#)), status: 400,
            reasonContains: "(9223372036854775808) is out of range: it must be from 0 to 86400 seconds")
        XCTAssertEqual(try E2E.mocks(client, tenant: nil).count, 0, "nothing stored")

        let sql = try client.json(
            "POST", "/catbird/api/sql",
            #"{"sql":"select ?, typeof(?), cast(? as text)","params":[12345678901234567890,12345678901234567890,12345678901234567891]}"#)
        E2E.assertError(sql, status: 400, reasonContains: "outside the 64-bit integer range and a 64-bit float would change its digits")
        XCTAssertTrue(sql.text.contains("params"), sql.text)
        // One a 64-bit float holds exactly is bound as a real, as before; a string as text.
        let exact = try client.json("POST", "/catbird/api/sql", #"{"sql":"select typeof(?), typeof(?)","params":[1e19,"12345678901234567891"]}"#)
        XCTAssertEqual(exact.status, 200, exact.text)
        XCTAssertTrue(exact.text.contains(#"["real","text"]"#), exact.text)
    }

    /// Regression (tester59c-F1, its exact parameters): a whole number written with `.0` at the
    /// 64-bit edges went through a double, which rounds to 2^63: 9223372036854775807.0,
    /// …806.0 and …296.0 were refused as "outside the 64-bit integer range", and
    /// -9223372036854775808.0 bound as a real. Each is now the integer it is; 2^63, past the
    /// range, stays a real, as before.
    func testWholeNumbersWithAFractionAtThe64BitEdgesAreTheirIntegers() throws {
        let server = try TestServer()
        defer { server.removeFiles() }
        let client = try server.client()
        let cases = [
            ("9223372036854775807.0", #"[9223372036854775807,"integer"]"#),
            ("9223372036854775806.0", #"[9223372036854775806,"integer"]"#),
            ("9223372036854775296.0", #"[9223372036854775296,"integer"]"#),
            ("9223372036854774784.0", #"[9223372036854774784,"integer"]"#),
            ("-9223372036854775807.0", #"[-9223372036854775807,"integer"]"#),
            ("-9223372036854775808.0", #"[-9223372036854775808,"integer"]"#),
            ("12345678901234567.0", #"[12345678901234567,"integer"]"#),
            ("9223372036854775808.0", #""real"]"#),
        ]
        for (param, row) in cases {
            let answer = try client.json("POST", "/catbird/api/sql", #"{"sql":"select ?, typeof(?1)","params":[\#(param)]}"#)
            XCTAssertEqual(answer.status, 200, "\(param): \(answer.text)")
            XCTAssertTrue(answer.text.contains(row), "\(param): \(answer.text)")
        }
        // Regression (tester60a-F1, its parameter): a fraction past 2^53, which a double has lost,
        // was bound as the integer below it (12345678901234567); refused, naming the number.
        // And below 2^53 (tester61a-F4, its parameters): 4503599627370497.5 was bound as 4503599627370498.
        for param in ["12345678901234567.5", "9223372036854775807.5", "4503599627370497.5", "2251799813685249.25"] {
            let answer = try client.json("POST", "/catbird/api/sql", #"{"sql":"select ?","params":[\#(param)]}"#)
            E2E.assertError(answer, status: 400, reasonContains: "has a fraction that a 64-bit float of its size does not hold")
        }
        let kept = try client.json("POST", "/catbird/api/sql", #"{"sql":"select ?, typeof(?1)","params":[2251799813685248.5]}"#)
        XCTAssertTrue(kept.text.contains(#"[2251799813685248.5,"real"]"#), "a fraction the double holds: \(kept.text)")
        let small = try client.json("POST", "/catbird/api/sql", #"{"sql":"select ?, typeof(?1)","params":[2.5]}"#)
        XCTAssertTrue(small.text.contains(#"[2.5,"real"]"#), small.text)
    }

    /// Regression (tester60a-F1, its mock; left open then): a mock's `limit` of
    /// `9007199254740993.5` was stored as 9007199254740993 (and `4503599627370497.5` as …498),
    /// its fraction gone with no word, while `2.5` was refused as not whole. Every whole-number
    /// field now refuses a fraction its float lost, naming it; nothing is stored.
    func testAWholeNumberFieldRefusesAFractionItsFloatLost() throws {
        let server = try TestServer()
        defer { server.removeFiles() }
        let client = try server.client()
        // With an exponent too (tester63a-F2, its numbers: stored rounded, as 4503599627370498, 9007199254740993 and 3).
        for limit in [
            "9007199254740993.5", "4503599627370497.5", "2251799813685249.25", "-9007199254740993.5",
            "45035996273704975e-1", "9007199254740993.5e0", "3.0000000000000000000000000000001e0",
        ] {
            let body = #"{"type":"update","pattern":{"method":"GET","url":{"kind":"equal","value":"/l"}},"response":{"status":200,"limit":\#(limit)}}"#
            let refused = try client.json("POST", "/catbird/api/mocks", body)
            E2E.assertError(
                refused, status: 400,
                reasonContains: "'response.limit' (\(limit)) must be a whole number (a number written with a fraction is read as a 64-bit float, which lost this one's)")
        }
        XCTAssertEqual(try E2E.mocks(client, tenant: nil).count, 0, "nothing stored")
        let wait = try client.json("POST", "/catbird/api/requests/wait", #"{"pattern":{"method":"GET","url":{"kind":"equal","value":"/w"}},"timeout":0,"since":4503599627370497.5}"#)
        E2E.assertError(wait, status: 400, reasonContains: "'since' (4503599627370497.5) must be a whole number")
        let exponent = try client.json("POST", "/catbird/api/requests/wait", #"{"pattern":{"method":"GET","url":{"kind":"equal","value":"/w"}},"timeout":0,"since":3.0000000000000000000000000000001e0}"#)
        E2E.assertError(exponent, status: 400, reasonContains: "'since' (3.0000000000000000000000000000001e0) must be a whole number")
        // A field that takes fractions is not refused so; written whole, the limit is stored.
        let whole = try client.json(
            "POST", "/catbird/api/mocks",
            #"{"type":"update","pattern":{"method":"GET","url":{"kind":"equal","value":"/l"}},"response":{"status":200,"limit":4503599627370497.0}}"#)
        XCTAssertEqual(whole.status, 201, whole.text)
        XCTAssertEqual(JSONNumber.int(try E2E.mocks(client, tenant: nil).first?["remainingLimit"]), 4_503_599_627_370_497)
    }

    /// The range a number past 64 bits is told is the one its field's check refuses others
    /// with, in the same words (docs/protocol.md#errors): `status` 600 and 99999999999999999999,
    /// `delay` 86401 and 9223372036854775808, each reason whole.
    func testTheRangeNamedPast64BitsIsTheFieldChecksOwn() throws {
        let server = try TestServer()
        defer { server.removeFiles() }
        let client = try server.client()
        let cases = [
            (#"{"status":600}"#, "'response.status' must be between 200 and 599, not 600"),
            (#"{"status":99999999999999999999}"#, "'response.status' (99999999999999999999) is out of range: it must be between 200 and 599"),
            (#"{"status":200,"delay":86401}"#, "'response.delay' must be from 0 to 86400 seconds, not 86401"),
            (#"{"status":200,"delay":-1}"#, "'response.delay' must be from 0 to 86400 seconds, not -1"),
            (#"{"status":200,"delay":9223372036854775808}"#,
             "'response.delay' (9223372036854775808) is out of range: it must be from 0 to 86400 seconds"),
        ]
        for (response, reason) in cases {
            let body = #"{"type":"update","pattern":{"method":"GET","url":{"kind":"equal","value":"/n"},"headers":{}},"response":\#(response)}"#
            let refused = try client.json("POST", "/catbird/api/mocks", body)
            E2E.assertError(refused, status: 400)
            XCTAssertEqual(refused.object["reason"] as? String, reason, response)
        }
        XCTAssertEqual(try E2E.mocks(client, tenant: nil).count, 0, "nothing stored")
    }
}
