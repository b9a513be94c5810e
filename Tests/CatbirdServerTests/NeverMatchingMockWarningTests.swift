import CatbirdTestSupport
import Foundation
import XCTest

/// A mock no request can match is kept, as Catbird 0.11 keeps it, and its 201 names why in
/// `warnings` (docs/protocol.md#mocks-that-can-never-match).
final class NeverMatchingMockWarningTests: ServerTestCase {
    private let tenant = [("X-Catbird-Parallel-Id", "wm")]

    /// Adds `method` mocks with each url of `kind` and asserts each is kept (201, a JSON answer)
    /// with exactly its warning.
    private func assertKeptWithWarning(
        _ cases: [(String, String)], method: String = "GET", kind: String = "equal", file: StaticString = #filePath, line: UInt = #line
    ) throws {
        for (url, warning) in cases {
            let added = try client.json(
                "POST", "/catbird/api/mocks",
                #"{"type":"update","pattern":{"method":"\#(method)","url":{"kind":"\#(kind)","value":"\#(url)"}},"response":{"status":200}}"#,
                headers: tenant)
            XCTAssertEqual(added.status, 201, added.text, file: file, line: line)
            XCTAssertEqual(added.header("Content-Type"), "application/json; charset=utf-8", url, file: file, line: line)
            XCTAssertEqual(added.object["warnings"] as? [String], [warning], url, file: file, line: line)
        }
    }

    /// Tester finding tester69b-F1, its wildcards: a class's `?`, `*`, `{`, `}` and leading `!`
    /// are translated as everywhere (0.11's rule, kept: `[?]` is `[.]`), and the 201 said
    /// nothing. It now says so, and the mock still matches as 0.11 matches it; a plain class,
    /// and escaped characters inside one, get no warning.
    func testAWildcardClassHoldingWildcardCharactersIsKeptWithAWarning() throws {
        let rule = "inside a class Catbird 0.11's translation still reads ? as ., * as .*, { as ( and } as ) (and , inside braces as |), "
            + #"and a leading ! or ^ is a literal, not a negation ("[?]" is [.], matching a '.', not a '?'), so this mock may match other requests than "#
            + #"written; for a literal ?, * or { write \?, \* or \{ outside a class (docs/matching.md#wildcard)"#
        try assertKeptWithWarning([
            ("/x/[?]", #"'pattern.url.value' "/x/[?]" is a wildcard whose […] holds '?': "# + rule),
            ("/x/[*]", #"'pattern.url.value' "/x/[*]" is a wildcard whose […] holds '*': "# + rule),
            ("/x/[{}]", #"'pattern.url.value' "/x/[{}]" is a wildcard whose […] holds '{', '}': "# + rule),
            ("/x/[!a-c]", #"'pattern.url.value' "/x/[!a-c]" is a wildcard whose […] holds a leading !: "# + rule),
            // Tester finding tester72a-F3, its wildcards: a leading ^ is literal too, and a class
            // inside braces has its , read as an alternative's separator.
            ("/files/[^/]*", #"'pattern.url.value' "/files/[^/]*" is a wildcard whose […] holds a leading ^: "# + rule),
            ("/b/{x,[,]}", #"'pattern.url.value' "/b/{x,[,]}" is a wildcard whose […] holds ',' inside braces: "# + rule),
        ], kind: "wildcard")
        for url in ["/y/[a-c]", #"/y/[\\?]"#, "/y/[]?]x"] {
            let added = try client.json(
                "POST", "/catbird/api/mocks",
                #"{"type":"update","pattern":{"method":"GET","url":{"kind":"wildcard","value":"\#(url)"}},"response":{"status":200}}"#,
                headers: tenant)
            XCTAssertEqual(added.status, 201, added.text)
            if url == "/y/[]?]x" {
                XCTAssertNotNil(added.object["warnings"], "a ] right after [ is in the class, and so is the ? after it: \(added.text)")
            } else {
                XCTAssertEqual(added.body, [], "\(url): \(added.text)")
            }
        }
        XCTAssertEqual(try client.request("GET", "/x/.", headers: tenant).status, 200, "0.11's [?] is [.]")
        XCTAssertEqual(try client.request("GET", "/x/?", headers: tenant).status, 404, "0.11's [?] is [.]")
        let count = try client.json(
            "POST", "/catbird/api/requests/count", #"{"pattern":{"method":"GET","url":{"kind":"wildcard","value":"/x/[?]"}}}"#,
            headers: tenant)
        XCTAssertEqual(count.object["warnings"] as? [String], [#"'pattern.url.value' "/x/[?]" is a wildcard whose […] holds '?': "# + rule.replacingOccurrences(of: "this mock", with: "this pattern")], count.text)
    }

    /// Regression (try7a F5): an `equal` url without its leading `/` ("api/nolead") was added
    /// with an empty 201, and `GET /api/nolead` then missed without a hint. The 201 now says
    /// so; the mock is still stored (0.11 accepts it) and still never matches.
    func testAnEqualURLWithoutALeadingSlashIsKeptWithAWarning() throws {
        try assertKeptWithWarning([(
            "api/nolead",
            #"'pattern.url.value' "api/nolead" is an equal url that is not a request-target (it starts with neither '/' nor "#
                + #"a scheme such as http://, and is not '*' or host:port for CONNECT): no request can match this mock; "#
                + #"did you mean "/api/nolead"?"#
        )])
        XCTAssertEqual(try client.request("GET", "/api/nolead", headers: tenant).status, 404)
        let listed = try client.request("GET", "/catbird/api/mocks", headers: tenant)
        XCTAssertTrue(listed.text.contains(#""value":"api/nolead""#), listed.text)
    }

    /// Tester finding T15A-F4, the exact body: an empty `equal` url got a bare 201, though no
    /// request-target is empty. It is kept (0.11 accepts it) with the warning `api/users` gets;
    /// an empty `wildcard` (`^$`) likewise, and an empty `regexp` (every request) gets none.
    func testAnEmptyEqualOrWildcardURLIsKeptWithAWarning() throws {
        try assertKeptWithWarning([(
            "",
            #"'pattern.url.value' "" is an equal url that is not a request-target (it starts with neither '/' nor "#
                + #"a scheme such as http://, and is not '*' or host:port for CONNECT): no request can match this mock; "#
                + #"did you mean "/"?"#
        )])
        try assertKeptWithWarning(
            [(
                "",
                #"'pattern.url.value' "" is an empty wildcard, which matches only an empty request-target (it translates to "#
                    + #"^$, docs/matching.md#wildcard), and no request has one: no request can match this mock; did you mean "*" "#
                    + #"(every request) or "/"?"#
            )],
            method: "PUT", kind: "wildcard")
        XCTAssertEqual(try client.request("GET", "/", headers: tenant).status, 404)
        XCTAssertEqual(try client.request("PUT", "/", headers: tenant).status, 404)
        let regexp = try client.json(
            "POST", "/catbird/api/mocks",
            #"{"type":"update","pattern":{"method":"POST","url":{"kind":"regexp","value":""}},"response":{"status":200}}"#,
            headers: tenant)
        XCTAssertEqual(regexp.status, 201, regexp.text)
        XCTAssertEqual(regexp.text, "", "an empty regexp matches every request: no warning")
        XCTAssertEqual(try client.request("POST", "/any/thing", headers: tenant).status, 200)
    }

    /// Regression (try7a F5): a header `equal` value with spaces around it (`" abc "`) was
    /// added silently, and `X-V:  abc ` never matched it (values are matched without them).
    func testAnEqualHeaderValueWithSpacesAroundItIsKeptWithAWarning() throws {
        let added = try client.json(
            "POST", "/catbird/api/mocks",
            #"{"type":"update","pattern":{"method":"GET","url":{"kind":"equal","value":"/hv"},"headers":{"X-V":{"kind":"equal","value":" abc "}}},"response":{"status":200}}"#,
            headers: tenant)
        XCTAssertEqual(added.status, 201, added.text)
        XCTAssertEqual(
            added.object["warnings"] as? [String],
            [
                #"'pattern.headers.X-V.value' " abc " has spaces or tabs around it, but header values are matched without "#
                    + #"them: no request can match this mock; did you mean "abc"?"#
            ])
        XCTAssertEqual(try client.request("GET", "/hv", headers: tenant + [("X-V", " abc ")]).status, 404)
    }

    /// Regression (tester54b-F1, its exact patterns): a `wildcard` or `regexp` header value that
    /// needs a space or tab at the value's start or end (`" Bearer *"`, `"Bearer * "`,
    /// `"^ Bearer"`) got a bare 201 and never matched; a regexp whose space is optional, or
    /// one with an alternation, is kept without a word and matches.
    func testAWildcardOrRegexpHeaderValueNeedingASpaceAroundItIsKeptWithAWarning() throws {
        let cases = [
            ("wildcard", " Bearer *", "start"), ("wildcard", "Bearer * ", "end"), ("regexp", "^ Bearer", "start"),
            ("regexp", "Bearer\t$", "end"),
            // tester55b-F8, its exact values: the escapes and classes written for a space or tab.
            ("regexp", #"^\tBearer"#, "start"), ("regexp", #"^\sBearer"#, "start"), ("regexp", #"^\s+Bearer"#, "start"),
            ("regexp", "^[ ]Bearer", "start"), ("regexp", #"^\x20Bearer"#, "start"), ("regexp", #"^\ Bearer"#, "start"),
            ("regexp", #"Bearer\s$"#, "end"), ("wildcard", "[ ]x", "start"), ("wildcard", #"\ x"#, "start"),
        ]
        for (index, (kind, value, side)) in cases.enumerated() {
            let path = "/ws\(index)"
            let added = try addedMock(path: path, authorization: (kind, value))
            let shown = String(decoding: try JSONSerialization.data(withJSONObject: value, options: .fragmentsAllowed), as: UTF8.self)
            XCTAssertEqual(
                added.object["warnings"] as? [String],
                [
                    "'pattern.headers.Authorization.value' \(shown) is a \(kind) that needs a space or tab at the value's \(side), "
                        + "but header values are matched without the spaces and tabs around them: no request can match this mock"
                ], value)
            XCTAssertEqual(try client.request("GET", path, headers: tenant + [("Authorization", "Bearer x")]).status, 404, value)
            XCTAssertEqual(try client.request("GET", path, headers: tenant + [("Authorization", "  Bearer x ")]).status, 404, value)
        }
        for (index, value) in ["^ *Bearer", "^ Bearer|Token", "Bearer *", #"^\s*Bearer"#, #"^Bearer\sx$"#].enumerated() {
            let path = "/ok\(index)"
            let kind = value == "Bearer *" ? "wildcard" : "regexp"
            let added = try addedMock(path: path, authorization: (kind, value))
            XCTAssertEqual(added.text, "", "\(value) can match: no warning")
            let header = value.hasSuffix("Token") ? "Token x" : "Bearer x"
            XCTAssertEqual(try client.request("GET", path, headers: tenant + [("Authorization", header)]).status, 200, value)
        }
    }

    /// Regression (tester54a-F2, its exact mock): `"delay": 1500` (a WireMock user's
    /// milliseconds) got a bare 201 and each request then waited 25 minutes; now the 201 says
    /// the delay is seconds and what to send for milliseconds. A delay under 1,000 s gets no word.
    func testADelayOfAThousandSecondsOrMoreIsKeptWithAWarning() throws {
        let added = try addedMock(path: "/slow", response: #"{"status":200,"delay":1500}"#)
        XCTAssertEqual(
            added.object["warnings"] as? [String],
            [
                "'response.delay' 1500 is in whole seconds (25 minutes: each request this mock answers waits that long); "
                    + "if it is milliseconds, as WireMock's fixedDelayMilliseconds and MockServer's delay are, send 2"
            ])
        let listed = try client.request("GET", "/catbird/api/mocks", headers: tenant)
        XCTAssertTrue(listed.text.contains(#""delay":1500"#), "kept as sent: \(listed.text)")
        XCTAssertEqual(try addedMock(path: "/short", response: #"{"status":200,"delay":999}"#).text, "", "999 s: no warning")
    }

    /// Regression (tester58b-F6, its exact mock): `"limit": -1` (a common "unlimited" idiom) got
    /// a bare 201, and the mock answered once, then 404. Now the 201 says it counts as 1 (0.11's
    /// rule, kept), and so for 0; a limit of 1 gets no word.
    func testALimitBelowOneIsKeptWithAWarning() throws {
        for limit in [-1, 0] {
            let added = try addedMock(path: "/lm\(limit)", response: #"{"status":200,"limit":\#(limit)}"#)
            XCTAssertEqual(
                added.object["warnings"] as? [String],
                [
                    "'response.limit' \(limit) counts as 1 (Catbird 0.11's rule): this mock answers one request and is removed; "
                        + "leave limit out (or null) for a mock that answers every request"
                ])
            XCTAssertEqual(try client.request("GET", "/lm\(limit)", headers: tenant).status, 200)
            XCTAssertEqual(try client.request("GET", "/lm\(limit)", headers: tenant).status, 404, "counted as 1, as 0.11 counts it")
        }
        XCTAssertEqual(try addedMock(path: "/lm1", response: #"{"status":200,"limit":1}"#).text, "", "limit 1: no warning")
    }

    /// Regression (tester60b-F4 and tester58b-F3, their mock): a wildcard url with a non-ASCII
    /// letter got a bare 201, and the app's percent-encoded request a 404 saying only "url
    /// differs". The 201 now says clients send it encoded and what to write; the 404 says so
    /// too; the wildcard written encoded answers. An `equal` url gets no warning (its 404
    /// already names the encoded form).
    func testAWildcardOrRegexpURLWithNonASCIICharactersIsKeptWithAWarning() throws {
        try assertKeptWithWarning([
            ("/menu/café*", #"'pattern.url.value' "/menu/café*" holds "é" (%C3%A9), which clients (URLSession, OkHttp, browsers) "#
                + "send percent-encoded as its UTF-8 bytes: a wildcard url is matched against the request-target as sent, so where this "
                + #"mock needs such a character it matches only a request that sends it raw; to match the encoded form, write it "/menu/caf%C3%A9*""#),
        ], kind: "wildcard")
        try assertKeptWithWarning([
            ("^/city/münchen$", #"'pattern.url.value' "^/city/münchen$" holds "ü" (%C3%BC), which clients (URLSession, OkHttp, "#
                + "browsers) send percent-encoded as its UTF-8 bytes: a regexp url is matched against the request-target as sent, so "
                + "where this mock needs such a character it matches only a request that sends it raw; to match the encoded form, write "
                + "each such character as its "
                + "percent-encoded bytes (a regexp also ignores the case of %XX)"),
        ], kind: "regexp")
        let miss = try client.request("GET", "/menu/caf%C3%A9-au-lait", headers: tenant)
        E2E.assertError(miss, status: 404, reasonContains: #"its url pattern holds "é" (%C3%A9), which this request sends percent-encoded "#
            + #"as its UTF-8 bytes: a wildcard url is matched against the request-target as sent, so write it "/menu/caf%C3%A9*""#)
        let encoded = try client.json(
            "POST", "/catbird/api/mocks",
            #"{"type":"update","pattern":{"method":"GET","url":{"kind":"wildcard","value":"/menu/caf%C3%A9*"}},"response":{"status":200}}"#,
            headers: tenant)
        XCTAssertEqual(encoded.body, [], "an ASCII wildcard: no warning")
        XCTAssertEqual(try client.request("GET", "/menu/caf%C3%A9-au-lait", headers: tenant).status, 200)
        let equal = try client.json(
            "POST", "/catbird/api/mocks",
            #"{"type":"update","pattern":{"method":"GET","url":{"kind":"equal","value":"/api/bé"}},"response":{"status":200}}"#,
            headers: tenant)
        XCTAssertEqual(equal.status, 201)
        XCTAssertEqual(equal.body, [], "an equal url: no warning")
    }

    /// The 201 of an `update` of `GET path` (equal) with the header pattern `Authorization: kind value`, answering 200.
    /// Regression (tester finding tester61a-F3, its requests): the 404's hint said the request
    /// sent the pattern's "é" percent-encoded whenever the closest mock's url held a character
    /// past ASCII: for `/menu/caf%C3%A8` (è), and for a decomposed "é" in the pattern against the
    /// app's precomposed one, where its suggested url still did not match; the decomposed "é"
    /// was shown as `%65%CC%81`. Now the hint is given only when the decoded request matches,
    /// and a normalization mismatch is named, with the url in the request's form.
    func testTheNonASCII404HintIsGivenOnlyWhenTheDecodedRequestMatches() throws {
        let added = try client.json(
            "POST", "/catbird/api/mocks",
            #"{"type":"update","pattern":{"method":"GET","url":{"kind":"wildcard","value":"/menu/café*"}},"response":{"status":200}}"#,
            headers: tenant)
        XCTAssertEqual(added.status, 201, added.text)
        let other = try client.request("GET", "/menu/caf%C3%A8", headers: tenant)
        XCTAssertEqual(other.status, 404, other.text)
        XCTAssertFalse(other.text.contains("its url pattern holds"), other.text)
        XCTAssertTrue(other.text.contains("url differs"), other.text)

        let nfd = [("X-Catbird-Parallel-Id", "nfd")]
        let decomposed = try client.json(
            "POST", "/catbird/api/mocks",
            #"{"type":"update","pattern":{"method":"GET","url":{"kind":"wildcard","value":"/nfd/cafe\u0301*"}},"response":{"status":200}}"#,
            headers: nfd)
        XCTAssertTrue((decomposed.object["warnings"] as? [String] ?? []).contains { $0.contains(#"holds "é" (e%CC%81)"#) }, decomposed.text)
        let miss = try client.request("GET", "/nfd/caf%C3%A9", headers: nfd)
        E2E.assertError(
            miss, status: 404,
            reasonContains: #"its url pattern holds "é" (e%CC%81), and this request sends "é" (%C3%A9) percent-encoded: the same "#
                + #"characters in another Unicode normalization (other bytes), and a wildcard url is matched against the "#
                + #"request-target as sent, so write it "/nfd/caf%C3%A9*""#)
        let fixed = try client.json(
            "POST", "/catbird/api/mocks",
            #"{"type":"update","pattern":{"method":"GET","url":{"kind":"wildcard","value":"/nfd/caf%C3%A9*"}},"response":{"status":200}}"#,
            headers: nfd)
        XCTAssertEqual(fixed.status, 201, fixed.text)
        XCTAssertEqual(try client.request("GET", "/nfd/caf%C3%A9", headers: nfd).status, 200, "the url the hint gave answers")
    }

    /// Regression (tester62a-F2, F3 and F4, their mocks): a wildcard's class of characters past
    /// ASCII was told to become a class of their bytes (`/a/[%C3%A9%C3%A8]x`, which never
    /// matches), a regexp's the same by its words; a case-sensitive `(?-i)` regexp was told it
    /// ignores the case of %XX; an `equal` url got no hint for an NFD request.
    func testTheNonASCIIAdviceWorksForClassesCaseAndNormalization() throws {
        func warning(_ kind: String, _ url: String) throws -> String {
            let added = try client.json(
                "POST", "/catbird/api/mocks",
                #"{"type":"update","pattern":{"method":"GET","url":{"kind":"\#(kind)","value":"\#(url)"}},"response":{"status":200}}"#,
                headers: tenant)
            return (added.object["warnings"] as? [String])?.first ?? added.text
        }
        XCTAssertTrue(try warning("wildcard", "/a/[éè]x").hasSuffix(#"write it "/a/{%C3%A9,%C3%A8}x""#))
        XCTAssertEqual(try client.request("GET", "/a/%C3%A8x", headers: tenant).status, 404)
        XCTAssertEqual(try warning("wildcard", "/a/{%C3%A9,%C3%A8}x"), "", "an ASCII wildcard: no warning")
        XCTAssertEqual(try client.request("GET", "/a/%C3%A8x", headers: tenant).status, 200, "the url the warning gave answers")
        let regexpClass = try warning("regexp", "^/r/[éè]$")
        XCTAssertTrue(regexpClass.contains("and a class holding one as alternatives ([éè] as (?:%C3%A9|%C3%A8)) (a regexp also ignores the case of %XX)"), regexpClass)
        // tester63a-F6: a negated class is not told to become alternatives, which would turn it round.
        for (kind, url) in [("regexp", "^/neg/[^é]x$"), ("wildcard", "/neg/[!é]x")] {
            let negated = try warning(kind, url)
            XCTAssertFalse(negated.contains("alternatives"), negated)
            XCTAssertTrue(negated.contains("write each such character as its percent-encoded bytes"), negated)
        }
        let caseSensitive = try warning("regexp", "(?-i)^/cs/É$")
        XCTAssertTrue(caseSensitive.hasSuffix("write each such character as its percent-encoded bytes"), caseSensitive)
        XCTAssertEqual(try warning("equal", "/menu/café"), "")
        let nfd = try client.request("GET", "/menu/cafe%CC%81", headers: tenant)
        E2E.assertError(
            nfd, status: 404,
            reasonContains: #"its url differs only in Unicode normalization and percent-encoding (both are "/menu/café" decoded; this request sends "#
                + #""é" (e%CC%81), the mock holds "é" (%C3%A9): the same characters, other bytes): equal compares the request-target as "#
                + #"sent, so write the mock's url as the app sends it, "/menu/cafe%CC%81""#)
    }

    /// Regression (tester63b-F2, its mocks): `/api/cafe` and `/api/café` tie for the app's
    /// `/api/caf%C3%A9` (one letter sent encoded is six edits), the reason named `/api/cafe` and
    /// the percent-encoding hint was lost. It is given for the near miss it fits.
    func testThePercentEncodingHintIsGivenForANearMissThatTies() throws {
        let q4 = [("X-Catbird-Parallel-Id", "q4")]
        for url in ["/api/cafe", "/api/café"] {
            let added = try client.json(
                "POST", "/catbird/api/mocks",
                #"{"type":"update","pattern":{"method":"GET","url":{"kind":"equal","value":"\#(url)"}},"response":{"status":200}}"#, headers: q4)
            XCTAssertEqual(added.status, 201, added.text)
        }
        let cafeID = JSONNumber.int(try E2E.mocks(client, tenant: "q4").first { (($0["pattern"] as? [String: Any])?["url"] as? [String: Any])?["value"] as? String == "/api/café" }?["id"]) ?? -1
        let miss = try client.request("GET", "/api/caf%C3%A9", headers: q4)
        XCTAssertEqual(miss.status, 404, miss.text)
        let reason = miss.object["reason"] as? String ?? ""
        XCTAssertTrue(
            reason.contains(#"its url differs only in percent-encoding (both are "/api/café" decoded): equal compares the request-target "#
                + #"as sent, so write the mock's url as the app sends it, "/api/caf%C3%A9""#), reason)
        if !reason.contains("the closest is mock \(cafeID) ") {
            XCTAssertTrue(reason.contains("mock \(cafeID) (another near miss): its url differs only in percent-encoding"), reason)
        }
    }

    /// Tester finding tester61a-F7: the warning said "this mock answers only a client that sends
    /// it raw" of a negated class, which answers encoded targets too. It says now where the mock
    /// needs such a character.
    func testTheNonASCIIWarningIsSaidOfWhereTheMockNeedsTheCharacter() throws {
        let added = try client.json(
            "POST", "/catbird/api/mocks",
            #"{"type":"update","pattern":{"method":"GET","url":{"kind":"regexp","value":"^/neg/[^é]+$"}},"response":{"status":200}}"#,
            headers: tenant)
        let warning = try XCTUnwrap((added.object["warnings"] as? [String])?.first, added.text)
        XCTAssertTrue(warning.contains("so where this mock needs such a character it matches only a request that sends it raw"), warning)
        XCTAssertEqual(try client.request("GET", "/neg/caf%C3%A9", headers: tenant).status, 200)
    }

    private func addedMock(path: String, authorization: (kind: String, value: String)) throws -> RawResponse {
        let body = try JSONSerialization.data(withJSONObject: [
            "type": "update",
            "pattern": [
                "method": "GET", "url": ["kind": "equal", "value": path],
                "headers": ["Authorization": ["kind": authorization.kind, "value": authorization.value]],
            ],
            "response": ["status": 200],
        ])
        let added = try client.json("POST", "/catbird/api/mocks", String(decoding: body, as: UTF8.self), headers: tenant)
        XCTAssertEqual(added.status, 201, added.text)
        return added
    }

    /// The 201 of an `update` of `GET path` (equal) answering `response` (a JSON object), in this test's tenant.
    private func addedMock(path: String, response: String) throws -> RawResponse {
        let added = try client.json(
            "POST", "/catbird/api/mocks",
            #"{"type":"update","pattern":{"method":"GET","url":{"kind":"equal","value":"\#(path)"}},"response":\#(response)}"#,
            headers: tenant)
        XCTAssertEqual(added.status, 201, added.text)
        return added
    }

    /// Tester finding try9a F14, the exact mocks: an `equal` url with a fragment or a literal
    /// space (pasted from a browser or a log) got a bare 201, though no HTTP client sends either.
    func testAnEqualURLWithAFragmentOrASpaceIsKeptWithAWarning() throws {
        let cases = [
            ("/api/feed#top", #"'pattern.url.value' "/api/feed#top" holds a fragment ('#...'), which HTTP clients never send "#
                + #"(RFC 9110 section 4.2.4): no usual client's request can match this mock; did you mean "/api/feed"?"#),
            // try10a F19: an https:// URL pasted from Charles or a browser. Tester finding
            // tester23b-F4: it said CONNECT is refused (501), which holds only in proxy mode.
            ("https://api.example.com/api/feed", #"'pattern.url.value' "https://api.example.com/api/feed" is an https:// URL, "#
                + #"which only a proxy-form request could match, and clients send HTTPS through a proxy as CONNECT host:443, "#
                + #"never as GET https://… (this server opens no tunnel: with --proxy it answers CONNECT 501, else matches it "#
                + #"like any request): no usual client's request can match this mock; did you mean "/api/feed" (with the "#
                + #"app's base URL pointed at this server)?"#),
            ("/api/search?q=hello world", #"'pattern.url.value' "/api/search?q=hello world" holds a space, which HTTP clients "#
                + #"send as %20 (a space ends the request-target, RFC 9112 section 3): no usual client's request can match this "#
                + #"mock; did you mean "/api/search?q=hello%20world"?"#),
        ]
        try assertKeptWithWarning(cases)
        XCTAssertEqual(try client.request("GET", "/api/search?q=hello%20world", headers: tenant).status, 404, "curl's request misses it")
    }

    /// tester48a-F6, its mocks: an `equal` url with a tab (`"/a\tb"`) or another control
    /// character got a bare 201, though every request-target holding one is refused with 400.
    func testAnEqualURLWithAControlCharacterIsKeptWithAWarning() throws {
        try assertKeptWithWarning([
            (#"/a\tb"#, #"'pattern.url.value' "/a\tb" holds a control character (U+0009), which this server refuses in a "#
                + #"request-target with 400 before matching (RFC 9112 section 3.2): no request can match this mock; did you mean "/a%09b"?"#),
            (#"/a\u0001b"#, #"'pattern.url.value' "/a\u0001b" holds a control character (U+0001), which this server refuses in a "#
                + #"request-target with 400 before matching (RFC 9112 section 3.2): no request can match this mock; did you mean "/a%01b"?"#),
        ])
    }

    /// tester49a-F4, its mocks: a wildcard url with a tab or a space was stored silently, and
    /// `"\t/x"` was told "did you mean \"/\t/x\"", the tab kept.
    func testAWildcardURLWithASpaceOrAControlCharacterAndAPastedTabAreNamed() throws {
        let tail = "no request can match this mock; write it percent-encoded (%20, %09…) as clients send it"
        try assertKeptWithWarning([
            (#"/a\t*"#, #"'pattern.url.value' "/a\t*" is a wildcard holding a control character, which no request-target holds (a "#
                + #"space ends it, RFC 9112 section 3, and this server refuses a control character in one with 400): "# + tail),
            (#"/a b*"#, #"'pattern.url.value' "/a b*" is a wildcard holding a space, which no request-target holds (a "#
                + #"space ends it, RFC 9112 section 3, and this server refuses a control character in one with 400): "# + tail),
        ], kind: "wildcard")
        try assertKeptWithWarning([
            (#"\t/x"#, #"'pattern.url.value' "\t/x" is an equal url that is not a request-target (it starts with neither '/' nor a "#
                + #"scheme such as http://, and is not '*' or host:port for CONNECT): no request can match this mock; did you mean "/x"?"#),
        ])
    }

    /// try10a F17 (try9a F13's second half): `"body":"done"` with `Content-Type: text/plain` got a
    /// bare 201 and was served as 3 bytes of binary (`7689 de`). It is kept as sent (0.11 reads
    /// base64) with a warning saying what to send for the text; a binary type, or a body that is
    /// UTF-8 once decoded, keeps the empty 201.
    func testATextBodyThatIsBase64OfBinaryIsKeptWithAWarning() throws {
        let added = try client.json(
            "POST", "/catbird/api/mocks",
            #"{"type":"update","pattern":{"method":"GET","url":{"kind":"equal","value":"/done"}},"response":{"status":200,"headers":{"Content-Type":"text/plain"},"body":"done"}}"#,
            headers: tenant)
        XCTAssertEqual(added.status, 201, added.text)
        XCTAssertEqual(
            added.object["warnings"] as? [String],
            [#"'response.body' "done" is base64 (as in Catbird 0.11) for 3 bytes that are not UTF-8 text, though the "#
                + #"Content-Type is "text/plain": they are served as those bytes; for the text "done" send "ZG9uZQ==""#])
        XCTAssertEqual(try client.request("GET", "/done", headers: tenant).body, [0x76, 0x89, 0xDE], "served as sent")
        // tester48b-F7: Latin-1 text with its charset declared (`café`, "Y2Fm6Q==") got the
        // warning and advice that would have served the base64 itself; any declared charset
        // other than UTF-8 keeps the bytes as its text, quietly.
        for (type, body) in [("application/octet-stream", "done"), ("text/plain", "ZG9uZQ=="), ("text/plain; charset=ISO-8859-1", "Y2Fm6Q=="),
                             ("text/html; charset=latin1", "Y2Fm6Q=="), ("text/plain; charset=\\\"shift_jis\\\"", "gqA=")] {
            let quiet = try client.json(
                "POST", "/catbird/api/mocks",
                #"{"type":"update","pattern":{"method":"GET","url":{"kind":"equal","value":"/q"}},"response":{"status":200,"headers":{"Content-Type":"\#(type)"},"body":"\#(body)"}}"#,
                headers: tenant)
            XCTAssertEqual(quiet.status, 201)
            XCTAssertEqual(quiet.body, [], "\(type) \(body)")
        }
        // Tester finding T19B-F9, the exact input: the same body with no Content-Type at all got a
        // bare 201; a short word warns now, a longer or non-letter base64 body stays quiet.
        let bare = try client.json(
            "POST", "/catbird/api/mocks",
            #"{"type":"update","pattern":{"method":"GET","url":{"kind":"equal","value":"/done"}},"response":{"status":200,"body":"done"}}"#,
            headers: tenant)
        XCTAssertEqual(
            bare.object["warnings"] as? [String],
            [#"'response.body' "done" is base64 (as in Catbird 0.11) for 3 bytes that are not UTF-8 text, and the response "#
                + #"has no Content-Type: they are served as those bytes; for the text "done" send "ZG9uZQ==""#], bare.text)
        for body in ["3q2+7w==", "AAECAwQFBgcICQoLDA0ODw=="] {
            let quiet = try client.json(
                "POST", "/catbird/api/mocks",
                #"{"type":"update","pattern":{"method":"GET","url":{"kind":"equal","value":"/q"}},"response":{"status":200,"body":"\#(body)"}}"#,
                headers: tenant)
            XCTAssertEqual(quiet.body, [], body)
        }
    }

    /// Tester finding T13-F10, the exact input: `"method":"get"` was added with an empty 201,
    /// although methods are compared exactly (RFC 9110 section 9.1) and clients send `GET`.
    /// Kept (a custom method token is legal, as in 0.11), with a warning naming `GET`; the
    /// same for other standard methods in another case.
    func testAStandardMethodInAnotherCaseIsKeptWithAWarning() throws {
        let added = try client.json(
            "POST", "/catbird/api/mocks",
            #"{"type":"update","pattern":{"method":"get","url":{"kind":"equal","value":"/rc"},"headers":{}},"response":{"status":203}}"#,
            headers: tenant)
        XCTAssertEqual(added.status, 201, added.text)
        XCTAssertEqual(
            added.object["warnings"] as? [String],
            [
                #"'pattern.method' "get" is compared exactly with the request's method, case included (RFC 9110 section 9.1, "#
                    + #"as in Catbird 0.11): clients send "GET", so no usual client's request can match this mock; did you mean "GET"?"#
            ])
        XCTAssertEqual(try client.request("GET", "/rc", headers: tenant).status, 404)
        XCTAssertEqual(try client.request("get", "/rc", headers: tenant).status, 203, "kept: a request sent with get matches it")
        for (method, standard) in [("Post", "POST"), ("patch", "PATCH"), ("oPtIoNs", "OPTIONS")] {
            let other = try client.json(
                "POST", "/catbird/api/mocks",
                #"{"type":"update","pattern":{"method":"\#(method)","url":{"kind":"equal","value":"/rc"}},"response":{"status":200}}"#,
                headers: tenant)
            XCTAssertEqual(other.status, 201, other.text)
            XCTAssertTrue(((other.object["warnings"] as? [String])?.first ?? "").contains(#"clients send "\#(standard)""#), other.text)
        }
        // A method no standard one spells another way keeps the empty 201.
        let custom = try client.json(
            "POST", "/catbird/api/mocks",
            #"{"type":"update","pattern":{"method":"purge","url":{"kind":"equal","value":"/rc"}},"response":{"status":200}}"#,
            headers: tenant)
        XCTAssertEqual(custom.status, 201, custom.text)
        XCTAssertEqual(custom.body, [], custom.text)
    }

    /// An `equal` url that is an http URI with no host (`http:///x`, T13-F9) or an invalid
    /// authority (`http://h:99999/x`, T13B-F6) is refused with 400 before matching, so a mock of
    /// one can never match: kept with a warning naming what is wrong.
    func testAnEqualURLThatIsAnInvalidHTTPURIIsKeptWithAWarning() throws {
        let cases = [
            (
                "http:///nohost",
                #"'pattern.url.value' "http:///nohost" is an equal url that is an http URI whose authority has no host "#
                    + #"(nothing, or only user information or a port, between '//' and the path), which is refused with 400 "#
                    + #"before matching (RFC 9110 section 4.2.1): no request can match this mock"#
            ),
            (
                "http://h:99999/x",
                #"'pattern.url.value' "http://h:99999/x" is an equal url that is an http URI whose authority has the port "#
                    + #""99999", which is not a number from 0 to 65535, which is refused with 400 before matching "#
                    + #"(RFC 3986 section 3.2): no request can match this mock"#
            ),
        ]
        try assertKeptWithWarning(cases)
    }

    /// Mocks some request can match keep 0.11's empty 201: origin, absolute and asterisk
    /// forms, `host:port` for CONNECT, any wildcard or regexp url, a header value without
    /// spaces around it.
    /// Regression (tester21a-F2), the finding's exact call: tenant "slowt" adds a mock whose
    /// header pattern wants `X-Catbird-Parallel-Id: zz`; only "slowt"'s requests reach it, so it
    /// never matches, and the 201 was empty. A pattern its own tenant satisfies stays silent.
    func testAParallelIdHeaderPatternNamingAnotherTenantIsKeptWithAWarning() throws {
        let slowt = [("X-Catbird-Parallel-Id", "slowt")]
        let added = try client.json(
            "POST", "/catbird/api/mocks",
            #"{"type":"update","pattern":{"method":"POST","url":{"kind":"equal","value":"/slow"},"headers":{"X-Catbird-Parallel-Id":{"kind":"equal","value":"zz"}}},"response":{"status":202,"headers":{}}}"#,
            headers: slowt)
        XCTAssertEqual(added.status, 201, added.text)
        XCTAssertEqual(added.object["warnings"] as? [String], [
            #"'pattern.headers.X-Catbird-Parallel-Id' never matches: this mock is tenant "slowt"'s, which only requests whose "#
                + #"X-Catbird-Parallel-Id is "slowt" reach (docs/tenancy.md); the parallel id picks the tenant and is no header "#
                + "pattern here (Catbird 0.11 treated it as one): remove the header pattern, or add the mock with the parallel id it names",
        ])
        XCTAssertEqual(try client.request("POST", "/slow", headers: slowt, body: Array("hello".utf8)).status, 404)
        // Satisfied by the tenant's own id (a wildcard too): no warning.
        for value in [#"{"kind":"equal","value":"slowt"}"#, #"{"kind":"wildcard","value":"slow*"}"#] {
            let own = try client.json(
                "POST", "/catbird/api/mocks",
                #"{"type":"update","pattern":{"method":"GET","url":{"kind":"equal","value":"/own"},"headers":{"x-catbird-parallel-id":\#(value)}},"response":{"status":200}}"#,
                headers: slowt)
            XCTAssertEqual(own.status, 201, own.text)
            XCTAssertTrue(own.text.isEmpty, own.text)
        }
        // The default tenant's requests carry no parallel id: any pattern on it never matches there.
        let shared = try client.json(
            "POST", "/catbird/api/mocks",
            #"{"type":"update","pattern":{"method":"GET","url":{"kind":"equal","value":"/shared"},"headers":{"X-Catbird-Parallel-Id":{"kind":"wildcard","value":"*"}}},"response":{"status":200}}"#)
        XCTAssertTrue((shared.object["warnings"] as? [String])?.first?.contains("the default tenant's, which only requests without an X-Catbird-Parallel-Id reach") == true, shared.text)
    }

    /// Regression (tester21a-F9), the finding's exact body: a mock with 1,000 header patterns
    /// got an empty 201, though any request carrying 453 or more header fields is refused with
    /// 431 before matching (only more than 7,168 were refused). Now it gets a warning, and the
    /// warning is exact: with the smallest count that gets it, a request carrying one field
    /// fewer (the shortest request line, every field named) is still answered by its mock, and
    /// one carrying all of them is not.
    func testMoreHeaderPatternsThanAnAnswerableRequestCarriesAreKeptWithAWarning() throws {
        let thousand = (0..<1000).map { #""X\#($0)":{"kind":"equal","value":"v"}"# }.joined(separator: ",")
        let added = try client.json(
            "POST", "/catbird/api/mocks",
            #"{"type":"update","pattern":{"method":"GET","url":{"kind":"equal","value":"/hp1000"},"headers":{\#(thousand)}},"response":{"status":200,"headers":{}}}"#,
            headers: [("X-Catbird-Parallel-Id", "hp")])
        XCTAssertEqual(added.status, 201, added.text)
        XCTAssertEqual(added.object["warnings"] as? [String], [
            "'pattern.headers' names 1000 headers, each of which a request must carry, but the shortest request carrying them "
                + "(7890 bytes of header fields) is refused with 431 before matching: libmicrohttpd keeps 64 bytes per field "
                + "besides its bytes in its 32 KiB per connection and must have 256 left to answer "
                + "(docs/protocol.md#response-head-size): no request can match this mock",
        ])

        /// Adds method `M` url `/` with `count` header patterns `H0000: v`…, returns whether it is warned about.
        func warned(_ count: Int) throws -> Bool {
            let headers = (0..<count).map { #""H\#(String(format: "%04d", $0))":{"kind":"equal","value":"v"}"# }.joined(separator: ",")
            let answer = try client.json(
                "POST", "/catbird/api/mocks",
                #"{"type":"update","pattern":{"method":"M","url":{"kind":"equal","value":"/"},"headers":{\#(headers)}},"response":{"status":200}}"#)
            XCTAssertEqual(answer.status, 201, answer.text)
            return !answer.body.isEmpty
        }
        var (fine, warns) = (1, 1000)
        XCTAssertFalse(try warned(fine))
        XCTAssertTrue(try warned(warns))
        while warns - fine > 1 {
            let middle = (fine + warns) / 2
            if try warned(middle) { warns = middle } else { fine = middle }
        }
        XCTAssertGreaterThan(fine, 300, "a few hundred header fields are answered")
        /// The answer to `M / HTTP/1.0` with `count` fields `H0000:v`…: its status, nil when closed with nothing sent.
        func send(_ count: Int) throws -> Int? {
            let connection = try RawHTTPClient(port: server.port)
            let head = "M / HTTP/1.0\r\n" + (0..<count).map { "H\(String(format: "%04d", $0)):v\r\n" }.joined() + "\r\n"
            try connection.send(raw: Array(head.utf8))
            return try? connection.readResponse().status
        }
        XCTAssertEqual(try send(fine), 200, "the largest count without a warning is matched by its mock")
        XCTAssertNotEqual(try send(warns), 200, "the smallest count with one is refused before matching")
    }

    func testMatchableMocksKeepTheEmpty201() throws {
        let patterns = [
            #"{"method":"GET","url":{"kind":"equal","value":"/api/users"},"headers":{"X-V":{"kind":"equal","value":"a b"}}}"#,
            #"{"method":"GET","url":{"kind":"equal","value":"http://example.com/api/feed"}}"#,
            #"{"method":"OPTIONS","url":{"kind":"equal","value":"*"}}"#,
            #"{"method":"CONNECT","url":{"kind":"equal","value":"api.example.com:443"}}"#,
            #"{"method":"GET","url":{"kind":"wildcard","value":"api/*"}}"#,
            #"{"method":"GET","url":{"kind":"regexp","value":"api/"}}"#,
        ]
        for pattern in patterns {
            let added = try client.json(
                "POST", "/catbird/api/mocks", #"{"type":"update","pattern":\#(pattern),"response":{"status":200}}"#, headers: tenant)
            XCTAssertEqual(added.status, 201, pattern)
            XCTAssertEqual(added.body, [], pattern)
            XCTAssertNil(added.header("Content-Type"), pattern)
        }
        XCTAssertEqual(try client.request("OPTIONS", "*", headers: tenant).status, 200)
    }
}
