import CatbirdTestSupport
import Foundation
import XCTest

/// A mock whose response could not go out as configured is refused with 400 when it is added,
/// so what the journal records of it is what is sent (docs/protocol.md#what-the-journal-records).
final class MockResponseValidationTests: XCTestCase {
    func testResponsesThatCannotBeSentAsConfiguredAreRefused() throws {
        let harness = try ControlBadInputHarness()
        let cases: [(String, String, String)] = [
            ("204 with a body", #"{"status":204,"headers":{},"body":"eA=="}"#, "204"),
            ("304 with a body", #"{"status":304,"headers":{},"body":"eA=="}"#, "304"),
            // Regression (a new user): a 205 with `hello` was accepted and its 5 bytes sent,
            // though RFC 9110 §15.3.6 forbids content there.
            ("205 with a body", #"{"status":205,"headers":{},"body":"aGVsbG8="}"#, "a 205 response has no body"),
            ("101 (interim)", #"{"status":101,"headers":{}}"#, "status"),
            ("Transfer-Encoding", #"{"status":200,"headers":{"Transfer-Encoding":"chunked"},"body":"YWJj"}"#, "Transfer-Encoding"),
            ("Content-Length 10 on 3 bytes", #"{"status":200,"headers":{"Content-Length":"10"},"body":"YWJj"}"#, "length"),
            ("Connection keep-alive", #"{"status":200,"headers":{"Connection":"keep-alive"}}"#, "Connection"),
            ("an empty value", #"{"status":200,"headers":{"X-Empty":""}}"#, "empty"),
            // Tester finding T13-F5, the exact headers: 201, the wire carried only `date: x` and
            // the journal said `Date: yesterday, x`.
            ("Date in two spellings", #"{"status":200,"headers":{"Date":"yesterday","date":"x"}}"#, "second Date"),
            // Tester finding T13B-F2, the exact headers: 201, the wire carried `Content-Type: a/b`
            // and `content-type: c/d`, the journal `Content-Type: a/b, c/d`.
            ("Content-Type in two spellings", #"{"status":200,"headers":{"Content-Type":"a/b","content-type":"c/d"}}"#,
             #"response header "content-type" is a second Content-Type (beside "Content-Type"): a response has one Content-Type (RFC 9110 §8.3)"#),
            ("Location in two spellings", #"{"status":302,"headers":{"Location":"/a","LOCATION":"/b"}}"#, "second Location (beside"),
            ("ETag in two spellings", #"{"status":200,"headers":{"ETag":"\"a\"","etag":"\"b\""}}"#, "second ETag"),
            ("Content-Length in two spellings", #"{"status":200,"headers":{"Content-Length":"3","content-length":"3"},"body":"YWJj"}"#,
             "second Content-Length"),
            // T13B-F2, same area: 201, one `Connection: close` on the wire, `close, close` in the journal.
            ("Connection close twice", #"{"status":200,"headers":{"Connection":"close","connection":"close"}}"#, "second Connection"),
            // Tester finding T13B-F3, the exact values: 201, and the journal held ` `, ` lead` and
            // `trail<TAB>` where a client reads ``, `lead` and `trail`.
            ("a value of a space", #"{"status":200,"headers":{"X-A":" "}}"#, #"response header "X-A" has an empty value (only spaces or tabs"#),
            ("a value with a leading space", #"{"status":200,"headers":{"X-B":" lead"}}"#,
             #"response header "X-B" has a space at the start or end of its value " lead", which is not part of the value (RFC 9110 §5.5)"#),
            ("a value with a trailing tab", #"{"status":200,"headers":{"X-C":"trail\t"}}"#, #"has a tab at the start or end of its value "trail\t""#),
            ("a value of tabs", #"{"status":200,"headers":{"X-D":"\t\t"}}"#, "has an empty value"),
            // RFC 9110 §8.6 would allow it, but libmicrohttpd 0.9.75 adds its own
            // `Content-Length: 0` to a 304: the reason says so.
            ("304 with the representation's Content-Length", #"{"status":304,"headers":{"Content-Length":"1234"}}"#, "libmicrohttpd"),
        ]
        for (label, response, mention) in cases {
            try harness.assertRejected(label, 400, mentioning: [mention]) {
                try $0.json("POST", "/catbird/api/mocks", ControlBadInputHarness.update(response: response))
            }
        }
    }

    /// List fields keep working in two spellings (docs/protocol.md#update): both values go out,
    /// and spaces inside a value are kept; one field of each single-value kind is accepted.
    func testListFieldsInTwoSpellingsAndSingletonsOnceGoOut() throws {
        let server = try TestServer()
        defer { server.removeFiles() }
        let client = try server.client()
        let added = try client.json(
            "POST", "/catbird/api/mocks",
            #"{"type":"update","pattern":{"method":"GET","url":{"kind":"equal","value":"/lists"}},"response":{"status":200,"#
                + #""headers":{"Set-Cookie":"a=1","set-cookie":"b=2","Cache-Control":"no-cache","cache-control":"private","#
                + #""Vary":"Accept","vary":"Origin","X-Custom":"in side","x-custom":"2","Content-Type":"a/b","Location":"/l","#
                + #""Connection":"close"}}}"#)
        XCTAssertEqual(added.status, 201, added.text)
        let answer = try E2E.exchange(server, "GET /lists HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
        let lines = answer.components(separatedBy: "\r\n\r\n")[0].components(separatedBy: "\r\n").dropFirst()
        func values(_ name: String) -> [String] {
            lines.filter { $0.lowercased().hasPrefix(name.lowercased() + ":") }.map { String($0.dropFirst(name.count + 1)).trimmingCharacters(in: .whitespaces) }
        }
        XCTAssertEqual(values("Set-Cookie"), ["a=1", "b=2"], answer)
        XCTAssertEqual(values("Cache-Control"), ["no-cache", "private"], answer)
        XCTAssertEqual(values("Vary"), ["Accept", "Origin"], answer)
        XCTAssertEqual(values("X-Custom"), ["in side", "2"], answer)
        XCTAssertEqual(values("Content-Type"), ["a/b"], answer)
        XCTAssertEqual(values("Location"), ["/l"], answer)
        XCTAssertEqual(values("Connection"), ["close"], answer)
    }

    /// Regression: an `equal` url holding `\u0000` was accepted though no request-target can
    /// hold a NUL (such requests are refused before matching), so it could never match; the same
    /// for CR or LF, and in a wildcard.
    func testAnEqualURLWithANULIsRefused() throws {
        let harness = try ControlBadInputHarness()
        for (kind, url) in [("equal", #"/a\u0000b"#), ("equal", #"/a\r\nX-Injected: 1"#), ("wildcard", #"/a\u0000*"#)] {
            try harness.assertRejected("\(kind) url \(url)", 400, mentioning: ["NUL, CR or LF"]) {
                try $0.json(
                    "POST", "/catbird/api/mocks",
                    #"{"type":"update","pattern":{"method":"GET","url":{"kind":"\#(kind)","value":"\#(url)"}},"response":{"status":200}}"#)
            }
        }
    }

    /// Regression: `{"kind":"equal","value":"/catbird/api/mocks"}` was added (201) though a
    /// request with that target is a control request, never matched (docs/matching.md#resolution-order).
    func testAnEqualURLThatIsAControlPathIsRefused() throws {
        let harness = try ControlBadInputHarness()
        for url in ["/catbird/api/mocks", "/catbird", "/catbird?x=1", "/catbird/", "http://api.example.com/catbird/api/mocks"] {
            try harness.assertRejected("equal url \(url)", 400, mentioning: ["is a control path"]) {
                try $0.json(
                    "POST", "/catbird/api/mocks",
                    #"{"type":"update","pattern":{"method":"GET","url":{"kind":"equal","value":"\#(url)"}},"response":{"status":200}}"#)
            }
        }
    }

    /// A wildcard or regexp under `/catbird` may still match: both are case-insensitive and
    /// `/CATBIRD/x` is not a control path; `/catbirdx` is not one either.
    func testPatternsThatMayMatchOutsideTheControlPathsAreKept() throws {
        let server = try TestServer()
        defer { server.removeFiles() }
        let client = try server.client()
        try E2E.addMock(client, url: "/catbird/w*", kind: "wildcard", body: "w")
        try E2E.addMock(client, url: "^/catbird/r", kind: "regexp", body: "r")
        try E2E.addMock(client, url: "/catbirdx", body: "x")
        XCTAssertEqual(try client.request("GET", "/CATBIRD/w1").text, "w")
        XCTAssertEqual(try client.request("GET", "/CatBird/r").text, "r")
        XCTAssertEqual(try client.request("GET", "/catbirdx").text, "x")
        XCTAssertEqual(try client.request("GET", "/catbird/w1").status, 404, "a control path, never matched")
    }

    func testResponsesSentAsConfiguredAreAccepted() throws {
        let server = try TestServer()
        defer { server.removeFiles() }
        let client = try server.client()
        try E2E.addMock(client, url: "/no-content", status: 204, body: nil)
        try E2E.addMock(client, url: "/not-modified", status: 304, body: "")
        try E2E.addMock(client, url: "/length", responseHeaders: ["Content-Length": "3", "Connection": "close"], body: "abc")
        XCTAssertEqual(try client.request("GET", "/no-content").status, 204)
        XCTAssertEqual(try client.request("GET", "/not-modified").status, 304)
        XCTAssertEqual(try client.request("GET", "/length").text, "abc")
    }
}
