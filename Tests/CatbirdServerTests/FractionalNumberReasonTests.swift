import CatbirdTestSupport
import Foundation
import XCTest

/// A control body's fractional numbers: the 400 names only those in whole-number fields, not
/// the fields that take fractions (a wait's `timeout`, SQL `params`, a `jsonPath` pattern's
/// `equalTo`), docs/protocol.md#errors.
final class FractionalNumberReasonTests: ServerTestCase {
    /// Regression (tester finding T18B-F2, its exact input): `{"timeout":0.25,"since":1.5}` got
    /// `'since' (1.5), 'timeout' (0.25) must be a whole number`, though `timeout` takes 0.25
    /// (alone it is accepted: a 408 after 0.25 s). The same kind in the SQL and mocks routes.
    func testOnlyRefusedFractionsAreNamed() throws {
        let pattern = #"{"method":"GET","url":{"kind":"equal","value":"/x"}}"#
        let wait = try client.json("POST", "/catbird/api/requests/wait", #"{"pattern":\#(pattern),"timeout":0.25,"since":1.5}"#)
        E2E.assertError(wait, status: 400)
        XCTAssertEqual(wait.object["reason"] as? String, "'since' (1.5) must be a whole number")

        let sql = try client.json("POST", "/catbird/api/sql", #"{"sql":"select ?","params":[1.5],"maxRows":2.5}"#)
        E2E.assertError(sql, status: 400)
        XCTAssertEqual(sql.object["reason"] as? String, "'maxRows' (2.5) must be a whole number")

        let mock = try client.json(
            "POST", "/catbird/api/mocks",
            #"{"type":"update","pattern":{"method":"GET","url":{"kind":"equal","value":"/x"},"headers":{},"#
                + #""body":{"kind":"jsonPath","value":"$.a","equalTo":1.5}},"response":{"status":200,"delay":0.5}}"#)
        E2E.assertError(mock, status: 400)
        XCTAssertEqual(mock.object["reason"] as? String, "'response.delay' (0.5, in seconds) must be a whole number")

        // Two refused, both named (find's `limit` and `since`).
        let both = try client.json("POST", "/catbird/api/requests/find", #"{"pattern":\#(pattern),"limit":2.5,"since":1.5}"#)
        E2E.assertError(both, status: 400)
        XCTAssertEqual(both.object["reason"] as? String, "'limit' (2.5), 'since' (1.5) must be a whole number")

        // The fractions a type takes are taken.
        XCTAssertEqual(try client.json("POST", "/catbird/api/sql", #"{"sql":"select ?","params":[1.5]}"#).status, 200)
        let timedOut = try client.json("POST", "/catbird/api/requests/wait", #"{"pattern":\#(pattern),"timeout":0.25}"#)
        XCTAssertEqual(timedOut.status, 408, timedOut.text)
    }
}
