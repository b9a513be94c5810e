import CatbirdSupport
import CatbirdTestSupport
import Foundation
import XCTest

/// Body matchers over real sockets (docs/matching.md#body-matchers): in mocks (kept across a
/// restart), in count, in `POST /catbird/api/requests/find` with its paging and time bounds,
/// and a 400 for every bad matcher.
final class BodyMatcherTests: ServerTestCase {
    private func addMock(_ body: String, answer: String, tenant: String? = nil) throws {
        let action = #"{"type":"update","pattern":{"method":"POST","url":{"kind":"equal","value":"/login"},"headers":{},"body":\#(body)},"response":{"status":200,"headers":{},"body":"\#(Data(answer.utf8).base64EncodedString())"}}"#
        let answer = try client.json("POST", "/catbird/api/mocks", action, headers: E2E.tenantHeader(tenant))
        XCTAssertEqual(answer.status, 201, answer.text)
    }

    private func login(_ body: String) throws -> RawResponse {
        try client.request("POST", "/login", headers: [("Content-Type", "application/json")], body: Array(body.utf8))
    }

    func testMocksMatchTheBodyByEachKindAndKeepTheirBodyPatternAcrossARestart() throws {
        try addMock(#"{"kind":"jsonPath","value":"$.login","equalTo":"john"}"#, answer: "john")
        try addMock(#"{"kind":"json","value":"{\"login\": \"ann\", \"remember\": true}"}"#, answer: "ann")
        try addMock(#"{"kind":"contains","value":"bob"}"#, answer: "bob")
        try addMock(#"{"kind":"regexp","value":"^login=[a-z]+$"}"#, answer: "form")
        try addMock(#"{"kind":"equal","value":""}"#, answer: "empty")

        XCTAssertEqual(try login(#"{"login": "john", "password": "x"}"#).text, "john")
        XCTAssertEqual(try login(#"{"remember":true,  "login":"ann"}"#).text, "ann")
        XCTAssertEqual(try login(#"{"login":"bobby"}"#).text, "bob")
        XCTAssertEqual(try login("LOGIN=eve").text, "form")
        XCTAssertEqual(try client.request("POST", "/login").text, "empty")
        XCTAssertEqual(try login(#"{"login":"zed"}"#).status, 404)

        // The same method and url with another body pattern is another mock, not a replacement.
        XCTAssertEqual(try E2E.mocks(client, tenant: nil).count, 5)
        let listed = try E2E.mocks(client, tenant: nil).first?["pattern"] as? [String: Any]
        XCTAssertEqual((listed?["body"] as? [String: Any])?["equalTo"] as? String, "john")

        try server.restart()
        let again = try server.client()
        let john = try again.request("POST", "/login", body: Array(#"{"login":"john"}"#.utf8))
        XCTAssertEqual(john.text, "john", "the body pattern survived the restart")
        XCTAssertEqual(try again.request("POST", "/login", body: Array(#"{"login":"zed"}"#.utf8)).status, 404)
    }

    /// try6a F8: a `json` mock `{"a":1,"b":[1,2]}` matched `POST /j` with the body
    /// `{"a":1,"b":[1,2],"a":2}`, silently by its first `a`, while the control API refuses a key
    /// given twice. A pattern naming a key twice is now refused with 400; a request body naming
    /// one twice is read by its first value, by `json` and `jsonPath` alike (docs/matching.md#body-matchers).
    /// The reason read "is JSON whose its top-level object" (tester finding T13B-F9).
    func testAJSONPatternWithADuplicateKeyIsRefusedAndABodysFirstValueCounts() throws {
        for (value, reason) in [
            (#"{\"a\":1,\"b\":[1,2],\"a\":2}"#, #"top-level object has the key "a" more than once"#),
            (#"{\"x\":[{\"k\":1,\"k\":1}]}"#, #"object 'x[0]' has the key "k" more than once"#),
        ] {
            let action = #"{"type":"update","pattern":{"method":"POST","url":{"kind":"equal","value":"/j"},"body":{"kind":"json","value":"\#(value)"}},"response":{"status":200}}"#
            let refused = try client.json("POST", "/catbird/api/mocks", action)
            E2E.assertError(refused, status: 400, reasonContains: "'pattern.body.value' is JSON whose " + reason)
        }
        XCTAssertEqual(try E2E.mocks(client, tenant: nil).count, 0, "nothing was added")

        let added = try client.json(
            "POST", "/catbird/api/mocks",
            #"{"type":"update","pattern":{"method":"POST","url":{"kind":"equal","value":"/j"},"body":{"kind":"json","value":"{\"a\":1,\"b\":[1,2]}"}},"response":{"status":200,"body":"anNvbg=="}}"#)
        XCTAssertEqual(added.status, 201, added.text)
        try addMock(#"{"kind":"jsonPath","value":"$.a","equalTo":1}"#, answer: "path")
        let duplicate = try client.request("POST", "/j", body: Array(#"{"a":1,"b":[1,2],"a":2}"#.utf8))
        XCTAssertEqual(duplicate.status, 200, "the body's first a counts: \(duplicate.text)")
        XCTAssertEqual(duplicate.text, "json")
        XCTAssertEqual(try client.request("POST", "/j", body: Array(#"{"a":2,"b":[1,2],"a":1}"#.utf8)).status, 404, "its first a is 2")
        XCTAssertEqual(try login(#"{"a":1,"a":2}"#).text, "path", "jsonPath reads the first value too")
        XCTAssertEqual(try login(#"{"a":2,"a":1}"#).status, 404)
    }

    func testCountAndFindMatchJournaledBodiesAndPageWithinTimeBounds() throws {
        for name in ["john", "ann", "john", "john"] { _ = try login(#"{"login":"\#(name)"}"#) }
        let pattern = #"{"method":"POST","url":{"kind":"equal","value":"/login"},"body":{"kind":"jsonPath","value":"$.login","equalTo":"john"}}"#
        XCTAssertEqual(try E2E.count(client, tenant: nil, patternJSON: pattern), 3)

        let first = try client.json("POST", "/catbird/api/requests/find", #"{"pattern":\#(pattern),"limit":2}"#)
        XCTAssertEqual(first.status, 200, first.text)
        let entries = try XCTUnwrap(first.object["requests"] as? [[String: Any]])
        XCTAssertEqual(entries.compactMap { ($0["request"] as? [String: Any])?["body"] as? String }, [#"{"login":"john"}"#, #"{"login":"john"}"#])
        XCTAssertEqual(first.object["hasMore"] as? Bool, true)
        let nextSince = try XCTUnwrap(first.object["nextSince"] as? Int)
        let second = try client.json("POST", "/catbird/api/requests/find", #"{"pattern":\#(pattern),"since":\#(nextSince),"bodies":false}"#)
        let rest = try XCTUnwrap(second.object["requests"] as? [[String: Any]])
        XCTAssertEqual(rest.count, 1)
        XCTAssertEqual(second.object["hasMore"] as? Bool, false)
        XCTAssertNil((rest.first?["request"] as? [String: Any])?["body"], "bodies=false leaves the body out")

        let future = #"{"pattern":\#(pattern),"from":"2999-01-01T00:00:00.000Z"}"#
        XCTAssertEqual((try client.json("POST", "/catbird/api/requests/find", future).object["requests"] as? [Any])?.count, 0)
        let past = #"{"pattern":\#(pattern),"until":"2000-01-01T00:00:00Z"}"#
        XCTAssertEqual((try client.json("POST", "/catbird/api/requests/find", past).object["requests"] as? [Any])?.count, 0)
        let always = #"{"pattern":\#(pattern),"from":"2000-01-01T00:00:00Z","until":"2999-01-01T00:00:00Z"}"#
        XCTAssertEqual((try client.json("POST", "/catbird/api/requests/find", always).object["requests"] as? [Any])?.count, 3)
        // RFC 3339 offsets (try9a F3: Python's `isoformat()` writes `+00:00`, which was refused
        // with 400): the same instant as `Z`, and another offset converted to UTC.
        let pythonForm = #"{"pattern":\#(pattern),"from":"2000-01-01T00:00:00.000000+00:00","until":"2999-01-01T00:00:00+00:00"}"#
        let python = try client.json("POST", "/catbird/api/requests/find", pythonForm)
        XCTAssertEqual((python.object["requests"] as? [Any])?.count, 3, python.text)
        // tester20b-F2: bounds past 9999-12-31T23:59:59.999Z once rounded or converted were compared
        // as five-digit-year text: `until` found nothing, `from` everything. The exact inputs.
        for (bounds, expected) in [
            (#""until":"9999-12-31T23:59:59.999999+00:00""#, 3), (#""until":"9999-12-31T23:59:59.9991Z""#, 3),
            (#""until":"9999-12-31T23:59:59-01:00""#, 3), (#""until":"9999-12-31T23:59:59.999+00:00""#, 3),
            (#""from":"9999-12-31T23:59:59.9991Z""#, 0), (#""from":"9999-12-31T23:59:59.999999999999Z""#, 0),
            (#""from":"9999-12-31T23:59:59-23:59""#, 0), (#""from":"0000-01-01T00:00:00+01:00""#, 3),
            (#""until":"0000-01-01T00:00:00+01:00""#, 0),
        ] {
            let answer = try client.json("POST", "/catbird/api/requests/find", #"{"pattern":\#(pattern),\#(bounds)}"#)
            XCTAssertEqual((answer.object["requests"] as? [Any])?.count, expected, "\(bounds): \(answer.text)")
        }
        let plusOne = ISO8601DateFormatter()
        plusOne.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        plusOne.timeZone = TimeZone(secondsFromGMT: 3_600)
        let found = try XCTUnwrap(python.object["requests"] as? [[String: Any]])
        let latest = try XCTUnwrap(found.compactMap { $0["time"] as? String }.compactMap(Timestamp.date(from:)).max())
        let atLatest = found.filter { ($0["time"] as? String).flatMap(Timestamp.date(from:)) == latest }.count
        XCTAssertGreaterThan(atLatest, 0)
        for (from, expected) in [(latest, atLatest), (latest.addingTimeInterval(0.001), 0)] {
            let text = plusOne.string(from: from)
            XCTAssertTrue(text.hasSuffix("+01:00"), text)
            let answer = try client.json("POST", "/catbird/api/requests/find", #"{"pattern":\#(pattern),"from":"\#(text)"}"#)
            XCTAssertEqual((answer.object["requests"] as? [Any])?.count, expected, "\(text): \(answer.text)")
        }

        // Another tenant finds nothing of the default tenant's.
        let other = try client.json("POST", "/catbird/api/requests/find", #"{"pattern":\#(pattern)}"#, headers: E2E.tenantHeader("s1"))
        XCTAssertEqual((other.object["requests"] as? [Any])?.count, 0)
    }

    /// Regression: `equalTo: true` (and `false`) never matched, in mocks, count, find and wait,
    /// because SQLite's `json_extract` reads JSON `true` as the integer 1. `true`, `1` and `"1"`
    /// stay distinct; `1` equals `1.0` (docs/matching.md#body-matchers).
    func testJSONPathEqualToTrueOrFalseMatchesOnlyThatBoolean() throws {
        let tenant = [("X-Catbird-Parallel-Id", "bm2")]
        let mock = #"{"type":"update","pattern":{"method":"POST","url":{"kind":"equal","value":"/t"},"body":{"kind":"jsonPath","value":"$.t","equalTo":true}},"response":{"status":200,"body":"dHJ1ZQ=="}}"#
        XCTAssertEqual(try client.json("POST", "/catbird/api/mocks", mock, headers: tenant).status, 201)
        let falseMock = #"{"type":"update","pattern":{"method":"POST","url":{"kind":"equal","value":"/f"},"body":{"kind":"jsonPath","value":"$.t","equalTo":false}},"response":{"status":200,"body":"ZmFsc2U="}}"#
        XCTAssertEqual(try client.json("POST", "/catbird/api/mocks", falseMock, headers: tenant).status, 201)
        let oneMock = #"{"type":"update","pattern":{"method":"POST","url":{"kind":"equal","value":"/one"},"body":{"kind":"jsonPath","value":"$.t","equalTo":1}},"response":{"status":200,"body":"MQ=="}}"#
        XCTAssertEqual(try client.json("POST", "/catbird/api/mocks", oneMock, headers: tenant).status, 201)

        func post(_ url: String, _ body: String) throws -> RawResponse {
            try client.request("POST", url, headers: tenant, body: Array(body.utf8))
        }
        let hit = try post("/t", #"{"t":true}"#)
        XCTAssertEqual(hit.status, 200, hit.text)
        XCTAssertEqual(hit.text, "true")
        XCTAssertEqual(try post("/f", #"{"t":false}"#).text, "false")
        XCTAssertEqual(try post("/one", #"{"t":1.0}"#).text, "1", "1 equals 1.0")
        for (url, body) in [("/t", #"{"t":1}"#), ("/t", #"{"t":"true"}"#), ("/t", #"{"t":false}"#), ("/f", #"{"t":0}"#),
                            ("/one", #"{"t":true}"#), ("/one", #"{"t":"1"}"#)] {
            XCTAssertEqual(try post(url, body).status, 404, "\(url) \(body)")
        }

        let pattern = #"{"method":"POST","url":{"kind":"equal","value":"/t"},"body":{"kind":"jsonPath","value":"$.t","equalTo":true}}"#
        XCTAssertEqual(try E2E.count(client, tenant: "bm2", patternJSON: pattern), 1)
        let falsePattern = #"{"method":"POST","url":{"kind":"equal","value":"/f"},"body":{"kind":"jsonPath","value":"$.t","equalTo":false}}"#
        XCTAssertEqual(try E2E.count(client, tenant: "bm2", patternJSON: falsePattern), 1)
        let onePattern = #"{"method":"POST","url":{"kind":"equal","value":"/one"},"body":{"kind":"jsonPath","value":"$.t","equalTo":1}}"#
        XCTAssertEqual(try E2E.count(client, tenant: "bm2", patternJSON: onePattern), 1)
        let found = try client.json("POST", "/catbird/api/requests/find", #"{"pattern":\#(pattern)}"#, headers: tenant)
        XCTAssertEqual(found.status, 200, found.text)
        let bodies = (found.object["requests"] as? [[String: Any]] ?? []).compactMap { ($0["request"] as? [String: Any])?["body"] as? String }
        XCTAssertEqual(bodies, [#"{"t":true}"#])
        let waited = try client.json("POST", "/catbird/api/requests/wait", #"{"pattern":\#(pattern),"timeout":5,"since":0}"#, headers: tenant)
        XCTAssertEqual(waited.status, 200, waited.text)
        XCTAssertEqual(((waited.object["request"] as? [String: Any])?["body"]) as? String, #"{"t":true}"#, waited.text)
    }

    /// Regression (tester finding tester36b-F2, the finding's paths): a jsonPath SQLite's
    /// parser refuses (`$..x` and 150 or 5,000 `a`) was echoed whole, and again whole in
    /// SQLite's `near '…'`: the 5,000-byte one filled the reason's 8,000-byte cap and cut away
    /// "is not a SQLite JSON path". Both are now cut as echoed input is; the same for a path
    /// without `$`.
    func testARefusedJSONPathIsEchoedCut() throws {
        let server = try TestServer()
        defer { server.removeFiles() }
        let client = try server.client()
        for (path, words) in [
            ("$..x" + String(repeating: "a", count: 150), "is not a SQLite JSON path (JSON path error near"),
            ("$..x" + String(repeating: "a", count: 5000), "is not a SQLite JSON path (JSON path error near"),
            (String(repeating: "b", count: 5000), "is not a JSON path: it must start with '$'"),
        ] {
            let pattern = #"{"method":"GET","url":{"kind":"equal","value":"/x"},"body":{"kind":"jsonPath","value":"\#(path)"}}"#
            for answer in [
                try client.json("POST", "/catbird/api/requests/count", #"{"pattern":\#(pattern)}"#, headers: E2E.tenantHeader("rs")),
                try client.json("POST", "/catbird/api/mocks", #"{"type":"update","pattern":\#(pattern),"response":{"status":200}}"#),
            ] {
                XCTAssertEqual(answer.status, 400, answer.text)
                let reason = answer.object["reason"] as? String ?? ""
                XCTAssertTrue(reason.contains(words), reason)
                XCTAssertTrue(reason.contains("(\(path.utf8.count) bytes)"), reason)
                XCTAssertLessThan(reason.utf8.count, 600, reason)
            }
        }
    }

    func testBadBodyMatchersAndFindBoundsAreA400NamingTheField() throws {
        let cases: [(String, String)] = [
            (#"{"kind":"glob","value":"x"}"#, #"'pattern.body.kind' must be "equal", "contains", "regexp", "json" or "jsonPath", not "glob""#),
            (#"{"kind":"json","value":"{oops"}"#, "'pattern.body.value' must be JSON text"),
            (#"{"kind":"jsonPath","value":"user.id"}"#, "must start with '$'"),
            (#"{"kind":"jsonPath","value":"$..id"}"#, "is not a SQLite JSON path"),
            (#"{"kind":"regexp","value":"("}"#, "invalid regular expression \"(\""),
            (#"{"kind":"equal","value":"x","equalTo":1}"#, "'pattern.body.equalTo' is only for the kind \"jsonPath\""),
            (#"{"kind":"equal"}"#, "missing key 'pattern.body.value'"),
        ]
        for (body, reason) in cases {
            let action = #"{"type":"update","pattern":{"method":"POST","url":{"kind":"equal","value":"/x"},"body":\#(body)},"response":{"status":200}}"#
            let answer = try client.json("POST", "/catbird/api/mocks", action)
            XCTAssertEqual(answer.status, 400, body)
            XCTAssertTrue((answer.object["reason"] as? String ?? "").contains(reason), "\(body): \(answer.text)")
            let find = try client.json("POST", "/catbird/api/requests/find", #"{"pattern":{"method":"POST","url":{"kind":"equal","value":"/x"},"body":\#(body)}}"#)
            XCTAssertEqual(find.status, 400, body)
        }
        XCTAssertEqual(try E2E.mocks(client, tenant: nil).count, 0, "nothing was stored")
        let pattern = #"{"method":"GET","url":{"kind":"equal","value":"/x"}}"#
        for (extra, reason) in [
            (#""from":"yesterday""#, "'from' must be a UTC time"), (#""limit":0"#, "'limit' must be from 1 to 1000"),
            (#""since":-1"#, "'since' must be a journal id"),
            // Days the calendar does not have: 2026-02-30 was accepted while 2026-13-45 was refused.
            (#""until":"2026-02-30T00:00:00Z""#, "'until' must be a UTC time"),
            (#""from":"2025-02-29T00:00:00Z""#, "'from' must be a UTC time"),
            (#""until":"2026-04-31T12:00:00.5Z""#, "'until' must be a UTC time"),
            (#""until":"2100-02-29T00:00:00Z""#, "'until' must be a UTC time"),
            (#""until":"2026-13-45T00:00:00Z""#, "'until' must be a UTC time"),
            (#""until":"2026-12-02T03:00:00+24:00""#, "'until' must be a UTC time"),
            (#""until":"2026-12-02T03:00:00+0100""#, "'until' must be a UTC time"),
        ] {
            let answer = try client.json("POST", "/catbird/api/requests/find", #"{"pattern":\#(pattern),\#(extra)}"#)
            XCTAssertEqual(answer.status, 400, extra)
            XCTAssertTrue((answer.object["reason"] as? String ?? "").contains(reason), answer.text)
        }
        // Leap days are read as those days (not refused, nor moved to March 1st): the bound
        // falls where it should around a request journaled now.
        XCTAssertEqual(try client.request("GET", "/x").status, 404)
        _ = try E2E.journal(client, tenant: nil, once: 1)
        let leapDays: [(text: String, secondsSince1970: Double, isPast: Bool)] = [
            ("2024-02-29T00:00:00Z", 1_709_164_800, true), ("2000-02-29T23:59:59.999Z", 951_868_799.999, true),
            ("2096-02-29T00:00:00Z", 3_981_312_000, false),
            // Tester finding T13-F7, the exact form: lower-case t and z (RFC 3339 §5.6) were a 400.
            ("2024-02-29t00:00:00z", 1_709_164_800, true), ("2096-02-29t00:00:00.000+00:00", 3_981_312_000, false),
        ]
        for leapDay in leapDays {
            let date = try XCTUnwrap(Timestamp.date(from: leapDay.text), leapDay.text)
            XCTAssertEqual(date.timeIntervalSince1970, leapDay.secondsSince1970, accuracy: 0.0005, leapDay.text)
            for (bound, found) in [("from", leapDay.isPast ? 1 : 0), ("until", leapDay.isPast ? 0 : 1)] {
                let answer = try client.json(
                    "POST", "/catbird/api/requests/find", #"{"pattern":\#(pattern),"\#(bound)":"\#(leapDay.text)"}"#)
                XCTAssertEqual(answer.status, 200, "\(bound) \(leapDay.text): \(answer.text)")
                XCTAssertEqual((answer.object["requests"] as? [Any])?.count, found, "\(bound) \(leapDay.text): \(answer.text)")
            }
        }
    }
}

extension BodyMatcherTests {
    /// Tester finding T13B-F4, the exact bounds: with an entry at `…52.597Z`, `until`
    /// `…52.5971Z` (also `.5970001Z` and `.5970000001Z`) found nothing and `from` the same
    /// found it: the digits past the millisecond were dropped. They count now: the entry is
    /// before those times, so `until` finds it and `from` does not. Python's `isoformat()`
    /// writes microseconds (`…52.597300+00:00`), the same.
    func testFindBoundsCountDigitsPastTheMillisecond() throws {
        XCTAssertEqual(try client.request("GET", "/sub-ms").status, 404)
        let entry = try XCTUnwrap(try E2E.journal(client, tenant: nil, once: 1).first)
        let time = try XCTUnwrap(entry["time"] as? String)  // such as 2026-12-02T16:46:52.597Z
        XCTAssertEqual(time.count, 24, time)
        let stem = String(time.dropLast())
        let pattern = #"{"method":"GET","url":{"kind":"equal","value":"/sub-ms"}}"#
        let cases: [(bound: String, text: String, found: Int)] = [
            ("until", stem + "1Z", 1), ("until", stem + "0001Z", 1), ("until", stem + "0000001Z", 1),
            ("until", stem + "300+00:00", 1),
            ("from", stem + "1Z", 0), ("from", stem + "0001Z", 0), ("from", stem + "0000001Z", 0),
            ("from", stem + "300+00:00", 0),
            // The entry's own time, also with zeros past the millisecond: at it, not before it.
            ("until", time, 0), ("until", stem + "0000Z", 0), ("from", time, 1), ("from", stem + "000000+00:00", 1),
        ]
        for (bound, text, found) in cases {
            let answer = try client.json("POST", "/catbird/api/requests/find", #"{"pattern":\#(pattern),"\#(bound)":"\#(text)"}"#)
            XCTAssertEqual(answer.status, 200, "\(bound) \(text): \(answer.text)")
            XCTAssertEqual((answer.object["requests"] as? [Any])?.count, found, "\(bound) \(text): \(answer.text)")
        }
        let milliseconds = try XCTUnwrap(Timestamp.millisecondsRoundedUp(from: time))
        XCTAssertEqual(Timestamp.millisecondsRoundedUp(from: stem + "0000000001Z"), milliseconds + 1)
        XCTAssertEqual(Timestamp.millisecondsRoundedUp(from: stem + "000000000Z"), milliseconds)
        XCTAssertEqual(Timestamp.string(millisecondsSince1970: milliseconds), time)
    }
}
