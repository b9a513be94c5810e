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
