import CatbirdTestSupport
import Foundation
import XCTest

/// What a HAR entry says of its request beyond the journal's columns
/// (docs/protocol.md#har-export): `request.url` made absolute from a `Host` that is a URI
/// authority only, and `_catbird.problem` for a request with no answer of Catbird's own.
final class HARRequestFieldsTests: ServerTestCase {
    /// The export's entries once the journal holds `count` (refusals are journaled a moment
    /// after their answer went out).
    private func exportedEntries(_ count: Int) throws -> [[String: Any]] {
        _ = try E2E.journal(client, tenant: nil, once: count)
        let har = try client.request("GET", "/catbird/api/requests.har")
        XCTAssertEqual(har.status, 200, har.text)
        let entries = ((har.object["log"] as? [String: Any])?["entries"] as? [[String: Any]]) ?? []
        XCTAssertEqual(entries.count, count, har.text)
        return entries
    }

    /// tester48b-F3: two exports of an unchanged journal differed byte for byte (each object's
    /// keys in another order each time), so a golden file or a checksum saw a change every run.
    func testTwoExportsOfTheSameJournalAreTheSameBytes() throws {
        for index in 0..<5 {
            XCTAssertEqual(try client.request("POST", "/many/\(index)?q=\(index)", headers: [("X-A", "\(index)")], body: Array("b\(index)".utf8)).status, 404)
        }
        _ = try exportedEntries(5)
        let first = try client.request("GET", "/catbird/api/requests.har")
        for _ in 0..<5 {
            XCTAssertEqual(try client.request("GET", "/catbird/api/requests.har").body, first.body, "the same bytes each time")
        }
    }

    /// Regression: the url was `http://` + any `Host` received, so `Host: evil.example/x?` made
    /// `http://evil.example/x?/a`, another URL than the one asked for. A `Host` that is not
    /// `host[:port]` gives the server's own address; the header itself is kept as received.
    func testTheURLIsMadeFromAHostThatIsAnAuthorityElseFromTheServersAddress() throws {
        let origin = "http://127.0.0.1:\(server.port)"
        let cases: [(host: String, url: String)] = [
            ("api.example.com:8443", "http://api.example.com:8443/h0"),
            ("[::1]:9", "http://[::1]:9/h1"),
            ("Example.COM", "http://Example.COM/h2"),
            ("evil.example/x?", "\(origin)/h3"),
            ("user@api.example.com", "\(origin)/h4"),
            ("api.example.com:80x", "\(origin)/h5"),
            ("[::1", "\(origin)/h6"),
            ("exa mple", "\(origin)/h7"),
            ("", "\(origin)/h8"),
        ]
        for (index, (host, _)) in cases.enumerated() {
            let answer = try E2E.exchange(server, "GET /h\(index) HTTP/1.1\r\nHost: \(host)\r\nConnection: close\r\n\r\n")
            XCTAssertTrue(answer.hasPrefix("HTTP/1.1 404 "), "Host \(host.debugDescription): \(answer.prefix(100))")
        }
        let entries = try exportedEntries(cases.count)
        for (index, (host, url)) in cases.enumerated() {
            let request = entries[index]["request"] as? [String: Any] ?? [:]
            XCTAssertEqual(request["url"] as? String, url, "Host \(host.debugDescription)")
            let sent = (request["headers"] as? [[String: String]] ?? []).filter { $0["name"]?.lowercased() == "host" }.map { $0["value"] }
            XCTAssertEqual(sent, [host], "the Host header as received")
        }
    }

    /// Tester finding tester44a-F3, its targets: `/fr/a?x=1#frag` (origin form) and
    /// `http://127.0.0.1:<port>/fr/b?x=1#frag` (proxy form), whose raw fragment was left out of
    /// what was forwarded and of the recording's name, were exported with it in `request.url`,
    /// which HAR 1.2 says holds no fragment. It is left out there now; the journal's `url` keeps
    /// the target as received.
    func testARawFragmentIsLeftOutOfTheURL() throws {
        XCTAssertTrue(try E2E.exchange(server, "GET /fr/a?x=1#frag HTTP/1.1\r\nHost: api.test\r\nConnection: close\r\n\r\n").hasPrefix("HTTP/1.1 404 "))
        XCTAssertTrue(try E2E.exchange(server, "GET http://api.test:81/fr/b?x=1#frag HTTP/1.1\r\nHost: api.test:81\r\nConnection: close\r\n\r\n").hasPrefix("HTTP/1.1 404 "))
        let entries = try exportedEntries(2)
        XCTAssertEqual(entries.map { ($0["request"] as? [String: Any])?["url"] as? String }, ["http://api.test/fr/a?x=1", "http://api.test:81/fr/b?x=1"])
        XCTAssertEqual(try E2E.journal(client, tenant: nil).map { $0["url"] as? String }, ["/fr/a?x=1#frag", "http://api.test:81/fr/b?x=1#frag"])
    }

    /// Tester finding tester64a-F1, its target `/fq/p#x?a=1`: the `?` inside the raw fragment was
    /// taken for a query, so `queryString` held `a=1` while `request.url` (fragment left out) had
    /// no query. A `?` before the fragment still starts one.
    func testAQuestionMarkInsideARawFragmentStartsNoQuery() throws {
        XCTAssertTrue(try E2E.exchange(server, "GET /fq/p#x?a=1 HTTP/1.1\r\nHost: api.test\r\nConnection: close\r\n\r\n").hasPrefix("HTTP/1.1 404 "))
        XCTAssertTrue(try E2E.exchange(server, "GET /fq/q?b=2#y?c=3 HTTP/1.1\r\nHost: api.test\r\nConnection: close\r\n\r\n").hasPrefix("HTTP/1.1 404 "))
        let requests = try exportedEntries(2).map { $0["request"] as? [String: Any] }
        XCTAssertEqual(requests.map { $0?["url"] as? String }, ["http://api.test/fq/p", "http://api.test/fq/q?b=2"])
        let pairs = requests.map { ($0?["queryString"] as? [[String: Any]])?.map { "\($0["name"] ?? "")=\($0["value"] ?? "")" } }
        XCTAssertEqual(pairs, [[], ["b=2"]])
    }

    /// Regression: `request.url` was `http://127.0.0.1*` for the target `*`, and held raw
    /// spaces, tabs and control characters (`http://127.0.0.1/sp ace`): not URLs.
    func testTheURLIsAValidURLWhateverTheTargetHeld() throws {
        let cases: [(target: String, url: String)] = [
            ("/sp ace", "http://127.0.0.1/sp%20ace"),
            ("/tab\there", "http://127.0.0.1/tab%09here"),
            ("/ctl\u{1}x\u{7F}", "http://127.0.0.1/ctl%01x%7F"),
            ("/caf\u{E9}?q=\"a\"&b={1}|^`", "http://127.0.0.1/caf%C3%A9?q=%22a%22&b=%7B1%7D%7C%5E%60"),
            ("/100%?ok=%20&bad=%zz%4", "http://127.0.0.1/100%25?ok=%20&bad=%25zz%254"),
            ("/kept/a;b,c@d:e!$'()*+=~-._", "http://127.0.0.1/kept/a;b,c@d:e!$'()*+=~-._"),
            ("*", "http://127.0.0.1/"),
        ]
        for (target, _) in cases {
            let method = target == "*" ? "OPTIONS" : "GET"
            let answer = try E2E.exchange(server, "\(method) \(target) HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n")
            // A space or control character in the target is refused (T13-F2) but journaled as received.
            let refused = target.utf8.contains { $0 <= 0x20 || $0 == 0x7F }
            XCTAssertTrue(answer.hasPrefix(refused ? "HTTP/1.1 400 " : "HTTP/1.1 404 "), "\(target.debugDescription): \(answer.prefix(100))")
        }
        let entries = try exportedEntries(cases.count)
        for (index, (target, url)) in cases.enumerated() {
            let got = (entries[index]["request"] as? [String: Any])?["url"] as? String ?? ""
            XCTAssertEqual(got, url, target.debugDescription)
            XCTAssertNotNil(URLComponents(string: got), "\(got) parses as a URL")
        }
    }

    /// The authority form (`CONNECT host:port`, RFC 9112 §3.2.3) end to end: the HAR url is
    /// `http://host:port/` (a HAR url is absolute, and the target names no path), the journal's
    /// url the target as received. Regression: a mock's 2xx answer to CONNECT went out without
    /// `Content-Length` (libmicrohttpd sends no field framing a body there, as RFC 9110 §9.3.6
    /// asks), while the journal and the HAR file said `Content-Length: 6`.
    func testTheAuthorityFormEndToEnd() throws {
        try E2E.addMock(client, method: "CONNECT", url: "[::1]:8443", body: "tunnel")
        let unmocked = try E2E.exchange(server, "CONNECT api.example.com:443 HTTP/1.1\r\nHost: api.example.com:443\r\nConnection: close\r\n\r\n")
        XCTAssertTrue(unmocked.hasPrefix("HTTP/1.1 404 "), unmocked)
        let mocked = try E2E.exchange(server, "CONNECT [::1]:8443 HTTP/1.1\r\nHost: [::1]:8443\r\nConnection: close\r\n\r\n")
        let parts = mocked.components(separatedBy: "\r\n\r\n")
        XCTAssertEqual(parts.count, 2, mocked)
        XCTAssertTrue(mocked.hasPrefix("HTTP/1.1 200 "), mocked)
        XCTAssertEqual(parts.last, "tunnel")
        let sent = parts[0].components(separatedBy: "\r\n").dropFirst().compactMap { $0.split(separator: ":").first?.lowercased() }.sorted()
        XCTAssertFalse(sent.contains("content-length"), mocked)

        let entries = try exportedEntries(2)
        let urls = entries.map { ($0["request"] as? [String: Any])?["url"] as? String ?? "" }
        XCTAssertEqual(urls, ["http://api.example.com:443/", "http://[::1]:8443/"])
        let harSent = ((entries[1]["response"] as? [String: Any])?["headers"] as? [[String: String]] ?? []).compactMap { $0["name"]?.lowercased() }
        XCTAssertEqual(harSent.sorted(), sent, "the HAR file lists the fields that went out")
        let journal = try E2E.journal(client, tenant: nil)
        XCTAssertEqual(Set(journal.compactMap { $0["url"] as? String }), ["api.example.com:443", "[::1]:8443"], "the targets as received")
        let entry = try XCTUnwrap(journal.first { $0["url"] as? String == "[::1]:8443" })
        let journaled = ((entry["response"] as? [String: Any])?["headers"] as? [String: Any] ?? [:]).keys.map { $0.lowercased() }
        XCTAssertEqual(journaled.sorted(), sent, "the journal lists the fields that went out")
    }

    /// Regression: `_catbird` left out the journal entry's `problem`, so a request libmicrohttpd
    /// refused looked like an ordinary 400 in the HAR file. It is there when set, and only then.
    func testTheProblemOfARefusedRequestIsInTheCatbirdBlock() throws {
        XCTAssertTrue(try E2E.exchange(server, "GET /refused HTTP/1.1\r\nno colon\r\n\r\n").hasPrefix("HTTP/1.1 400 "))
        XCTAssertEqual(try client.request("GET", "/answered").status, 404)
        let entries = try exportedEntries(2)
        let blocks = entries.map { $0["_catbird"] as? [String: Any] ?? [:] }
        let urls = entries.map { ($0["request"] as? [String: Any])?["url"] as? String ?? "" }
        let refused = try XCTUnwrap(urls.firstIndex { $0.hasSuffix("/refused") }, "\(urls)")
        let answered = try XCTUnwrap(urls.firstIndex { $0.hasSuffix("/answered") }, "\(urls)")
        let journaled = try E2E.journal(client, tenant: nil).first { $0["url"] as? String == "/refused" }
        let problem = try XCTUnwrap(journaled?["problem"] as? String)
        XCTAssertTrue(problem.hasPrefix("libmicrohttpd refused the request with its own 400 page"), problem)
        XCTAssertEqual(blocks[refused]["problem"] as? String, problem, "\(blocks[refused])")
        XCTAssertEqual(blocks[refused]["answeredBy"] as? String, "none")
        XCTAssertNil(blocks[answered]["problem"], "no problem for an answered request: \(blocks[answered])")
        // Regression (tester finding tester29a-F5): `mockId` and `filePath` were left out when
        // null, while protocol.md lists them in every `_catbird` (and the journal writes null).
        for block in blocks {
            XCTAssertTrue(block["mockId"] is NSNull && block["filePath"] is NSNull, "\(block)")
        }
    }

    /// Regression (tester finding tester34a-F5, the finding's five query strings): a value with
    /// one `%` that starts no escape was kept whole, its valid escapes too (`ok%20then%` stayed
    /// `ok%20then%` while the entry's `url` read `ok then%`). Each valid escape is now decoded
    /// and a stray `%` kept as itself; a value that does not decode to UTF-8 stays as sent, and
    /// (tester finding tester39a-F5, its queries: `q=%E9` and `q=%25E9` both read `q: %E9`) its
    /// pair's `comment` says so.
    func testTheQueryStringDecodesEveryValidEscapeAndKeepsAStrayPercent() throws {
        let cases: [(query: String, name: String, value: String, keptAsSent: Bool)] = [
            ("q=a%20b", "q", "a b", false),
            ("q=100%", "q", "100%", false),
            ("q=%zz%20x", "q", "%zz x", false),
            ("q=ok%20then%", "q", "ok then%", false),
            ("q=%E9t%C3%A9", "q", "%E9t%C3%A9", true),
            ("q=a+b%2B%4", "q", "a b+%4", false),
            // tester35a-F1: a value not decoding to UTF-8 is as sent, its `+` too.
            ("q=%e9+%41", "q", "%e9+%41", true),
            // tester39a-F5: kept as sent, or decoded from `%25E9`: the comment tells them apart.
            ("q=%E9", "q", "%E9", true),
            ("q=%25E9", "q", "%E9", false),
            ("a%E9=1", "a%E9", "1", true),
            ("a%25E9=1", "a%E9", "1", false),
        ]
        for (index, (query, _, _, _)) in cases.enumerated() {
            let answer = try E2E.exchange(server, "GET /qs\(index)?\(query) HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n")
            XCTAssertTrue(answer.hasPrefix("HTTP/1.1 404 "), "\(query): \(answer.prefix(100))")
        }
        let entries = try exportedEntries(cases.count)
        for (index, (query, name, value, keptAsSent)) in cases.enumerated() {
            let pairs = (entries[index]["request"] as? [String: Any])?["queryString"] as? [[String: String]]
            var expected = ["name": name, "value": value]
            if keptAsSent { expected["comment"] = "kept as sent, percent-encoded: its decoded bytes are not UTF-8" }
            XCTAssertEqual(pairs ?? [], [expected], query)
        }
    }

    /// Regression (tester finding tester35a-F5): the query string and cookies were split at
    /// characters, so a combining mark sent right after `&`, `=` or `;` (U+0301, raw UTF-8)
    /// made one character of the two and hid the separator: `?a=1&́b=2` was one pair, while the
    /// entry's `url` read two. They are split at the separator bytes now.
    func testQueryAndCookiesSplitAtTheSeparatorBytes() throws {
        let mark = "\u{301}"
        let answer = try E2E.exchange(
            server, "GET /qs?a=1&\(mark)b=2 HTTP/1.1\r\nHost: 127.0.0.1\r\nCookie: c=1;\(mark)d=2\r\nConnection: close\r\n\r\n")
        XCTAssertTrue(answer.hasPrefix("HTTP/1.1 404 "), String(answer.prefix(100)))
        let request = try XCTUnwrap(try exportedEntries(1).first?["request"] as? [String: Any])
        XCTAssertEqual(request["queryString"] as? [[String: String]], [["name": "a", "value": "1"], ["name": "\(mark)b", "value": "2"]])
        XCTAssertEqual(request["cookies"] as? [[String: String]], [["name": "c", "value": "1"], ["name": "\(mark)d", "value": "2"]])
    }
}
