import CatbirdTestSupport
import Foundation
import XCTest

/// Bad input to the journal and count routes, and requests for routes or methods that do not
/// exist.
extension ControlBadInputTests {
    func testBadJournalQueriesAreRejected() throws {
        let harness = try ControlBadInputHarness()
        let cases = [
            ("limit=abc", "limit"), ("limit=0", "limit"), ("limit=", "limit"), ("limit=-5", "limit"), ("limit=1.5", "limit"),
            ("since=-1", "since"), ("since=abc", "since"), ("since=", "since"), ("status=abc", "status"),
            ("answeredBy=robot", "answeredBy"), ("answeredBy=", "answeredBy"), ("bogus=1", "bogus"),
        ]
        for (query, problem) in cases {
            try harness.assertRejected("GET /catbird/api/requests?\(query)", 400, mentioning: [problem]) {
                try $0.request("GET", "/catbird/api/requests?\(query)")
            }
        }
    }

    /// A finding in tester38a's first draft (withdrawn by them), its requests: a number written
    /// with a sign (`%2B` is `+`; a bare `+` in a query is a space) was taken by `since`, `before`,
    /// every `limit`, `status` and a journal entry's id in its path, while `wait` refused it, and
    /// the docs call them whole numbers. Each is refused now, naming its parameter; the same
    /// numbers without the sign are answered.
    func testNumbersWrittenWithASignAreRefusedEverywhere() throws {
        let harness = try ControlBadInputHarness()
        XCTAssertEqual(try harness.client.request("GET", "/known").status, 200)
        let id = try XCTUnwrap(JSONNumber.int(try E2E.journal(harness.client, tenant: nil).last?["id"]), "the journal has the hit")
        let refused = [
            ("/catbird/api/requests?bodies=false&since=%2B1", "since"),
            ("/catbird/api/requests?bodies=false&before=%2B5", "before"),
            ("/catbird/api/requests?bodies=false&limit=%2B5", "limit"),
            ("/catbird/api/requests?bodies=false&limit=%2B0005", "limit"),
            ("/catbird/api/requests?bodies=false&status=%2B200", "status"),
            ("/catbird/api/requests?bodies=false&wait=%2B1", "wait"),
            ("/catbird/api/requests/\(id)/request/body?limit=%2B5", "limit"),
            ("/catbird/api/requests/%2B\(id)", "journal id"),
            ("/catbird/api/requests.har?limit=%2B5", "limit"),
            ("/catbird/api/tenants?limit=%2B5", "limit"),
        ]
        for (target, problem) in refused {
            try harness.assertRejected("GET \(target)", 400, mentioning: [problem]) { try $0.request("GET", target) }
        }
        for target in [
            "/catbird/api/requests?bodies=false&since=0&before=\(id + 1)&limit=5&status=200",
            "/catbird/api/requests/\(id)/response/body?limit=2", "/catbird/api/requests/\(id)",
            "/catbird/api/requests.har?limit=5", "/catbird/api/tenants?limit=5",
        ] {
            let answer = try harness.client.request("GET", target)
            XCTAssertEqual(answer.status, 200, "GET \(target): \(answer.text)")
        }
        XCTAssertEqual(try harness.client.request("GET", "/catbird/api/requests/\(id)/response/body?limit=2").text, "kn")
        // tester39a-F6: digits past 64 bits were told to be "a whole number >= 0".
        for target in [
            "/catbird/api/requests?since=99999999999999999999", "/catbird/api/requests?before=99999999999999999999",
            "/catbird/api/requests/\(id)/request/body?limit=99999999999999999999",
        ] {
            try harness.assertRejected("GET \(target)", 400, mentioning: ["(99999999999999999999) is too large (at most 9223372036854775807)"]) {
                try $0.request("GET", target)
            }
        }
    }

    func testBadRequestCountBodiesAreRejected() throws {
        let harness = try ControlBadInputHarness()
        let cases: [(String, String, [String])] = [
            ("malformed JSON", #"{"pattern":"#, ["JSON"]),
            ("pattern missing", "{}", ["pattern"]),
            ("url missing", #"{"pattern":{"method":"GET"}}"#, ["url"]),
            ("invalid regexp", #"{"pattern":{"method":"GET","url":{"kind":"regexp","value":"(unclosed"}}}"#,
             ["regular expression", "regexp", "(unclosed"]),
            ("invalid kind", #"{"pattern":{"method":"GET","url":{"kind":"glob","value":"/x"}}}"#, ["glob"]),
        ]
        for (label, body, problem) in cases {
            try harness.assertRejected("requests/count \(label)", 400, mentioning: problem) {
                try $0.json("POST", "/catbird/api/requests/count", body)
            }
        }
        try harness.assertRejected("requests/count text/plain", 415, mentioning: ["Content-Type", "JSON"]) {
            try $0.request(
                "POST", "/catbird/api/requests/count", headers: [("Content-Type", "text/plain")],
                body: Array(#"{"pattern":{"method":"GET","url":{"kind":"equal","value":"/known"}}}"#.utf8))
        }
    }

    func testWrongMethodsOnKnownRoutesAreNotAllowed() throws {
        let harness = try ControlBadInputHarness()
        try harness.assertRejected("PUT /catbird/api/mocks", 405, mentioning: []) {
            try $0.json("PUT", "/catbird/api/mocks", ControlBadInputHarness.update(response: #"{"status":200,"headers":{}}"#))
        }
        for (method, path) in [
            ("PATCH", "/catbird/api/mocks"), ("GET", "/catbird/api/sql"), ("POST", "/catbird/api/requests"),
            ("GET", "/catbird/api/requests/count"), ("POST", "/catbird/api/tenants"), ("POST", "/catbird/api/health"),
        ] {
            try harness.assertRejected("\(method) \(path)", 405, mentioning: []) {
                try $0.request(method, path)
            }
        }
    }

    func testUnknownPathsUnderCatbirdAreNotFound() throws {
        let harness = try ControlBadInputHarness()
        try harness.assertRejected("POST /catbird/api/nope", 404, mentioning: []) {
            try $0.json("POST", "/catbird/api/nope", ControlBadInputHarness.update(response: #"{"status":200,"headers":{}}"#))
        }
        for path in ["/catbird/api/nope", "/catbird/api", "/catbird/api/", "/catbird/api/mocks/", "/catbird/nope"] {
            try harness.assertRejected("GET \(path)", 404, mentioning: []) {
                try $0.request("GET", path)
            }
        }
        // A mock is removed by id (DELETE /catbird/api/mocks/{id}); it is not read that way.
        try harness.assertRejected("GET /catbird/api/mocks/1", 405, mentioning: ["DELETE"]) {
            try $0.request("GET", "/catbird/api/mocks/1")
        }
    }
}
