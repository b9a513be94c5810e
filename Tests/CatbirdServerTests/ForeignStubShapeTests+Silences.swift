import CatbirdTestSupport
import Foundation
import XCTest

/// Tester finding tester46a (F1-F7, F9, F10), the exact stubs: what a posted WireMock stub or
/// MockServer expectation's translation changed or dropped without a word is now carried over
/// or named; and a number past `Int`'s range no longer ends the server.
extension ForeignStubShapeTests {
    /// `"status": 1e300` (and the other numbers the translation reads) trapped converting to
    /// `Int`: the server died with the 400 unsent.
    func testHugeNumbersInAStubAreNamedAndTheServerLives() throws {
        let stubs = [
            #"{"request":{"url":"/x"},"response":{"status":1e300}}"#,
            #"{"request":{"url":"/x"},"response":{"status":-1e300,"fixedDelayMilliseconds":1e300}}"#,
            #"{"httpRequest":{"path":"/x"},"httpResponse":{"statusCode":1e300,"delay":{"timeUnit":"DAYS","value":1e300}}}"#,
            #"{"httpRequest":{"path":"/x"},"times":{"remainingTimes":1e300}}"#,
            #"{"httpRequest":{"path":"/x"},"times":{"remainingTimes":-1e300}}"#,
        ]
        for stub in stubs {
            let refused = try translated(stub)
            XCTAssertTrue(refused.reason.contains("The same mock as a Catbird action"), refused.reason)
        }
        let status = try translated(stubs[0])
        XCTAssertTrue(status.reason.contains("the status 1000000000000000 (refused by update: "), status.reason)
        XCTAssertEqual(try client.request("GET", "/catbird/api/health").status, 200)
    }

    /// F1: a typo in a header matcher, and `caseInsensitive` beside `contains`, were dropped in
    /// silence; the latter was then said to be "translated with equalTo alone" (tester61a-F5).
    func testAHeaderMatchersKeysNotReadAreNamed() throws {
        let typo = try translated(
            #"{"request":{"method":"GET","url":"/x","headers":{"X-A":{"equalTo":"A","caseInsensitve":true}}},"response":{"status":200}}"#)
        XCTAssertTrue(typo.reason.contains(#"Not carried over: the header matcher of "X-A"'s "caseInsensitve"."#), typo.reason)
        let contains = try translated(
            #"{"request":{"method":"GET","url":"/x","headers":{"X-A":{"contains":"A.B","caseInsensitive":true}}},"response":{"status":200}}"#)
        XCTAssertTrue(
            contains.reason.contains(
                #"the header matcher of "X-A"'s "caseInsensitive" (WireMock reads it with "equalTo" only: translated with "contains" alone)"#),
            contains.reason)
        let exact = try translated(
            #"{"request":{"method":"GET","url":"/x","headers":{"X-A":{"equalTo":"A","caseInsensitive":true}}},"response":{"status":200}}"#)
        XCTAssertFalse(exact.reason.contains("Not carried over"), exact.reason)
    }

    /// F2: `matchesJsonPath`'s object form, an untranslated kind and a second pattern were all
    /// "body patterns beyond one …".
    func testBodyPatternsAreNamedByWhatIsNotTranslated() throws {
        let path = try translated(
            #"{"request":{"method":"POST","url":"/p","bodyPatterns":[{"matchesJsonPath":{"expression":"$.a","equalTo":"x"}}]},"response":{"status":200}}"#)
        XCTAssertTrue(path.action.contains(#""body":{"equalTo":"x","kind":"jsonPath","value":"$.a"}"#), path.action)
        XCTAssertTrue(
            path.reason.contains(#"Carried over with another meaning: "matchesJsonPath"'s "equalTo" "x", as the JSON string "x" (WireMock "#
                + #"compares the field's text; the jsonPath pattern compares JSON values, so only a field holding that string matches it)."#),
            path.reason)
        XCTAssertFalse(path.reason.contains("Not carried over"), path.reason)
        XCTAssertEqual(try client.json("POST", "/catbird/api/mocks", path.action).status, 201)
        XCTAssertEqual(try client.request("POST", "/p", body: Array(#"{"a":"x"}"#.utf8)).status, 200)
        XCTAssertEqual(try client.request("POST", "/p", body: Array(#"{"a":"y"}"#.utf8)).status, 404)
        let other = try translated(
            #"{"request":{"method":"POST","url":"/p","bodyPatterns":[{"matchesJsonPath":{"expression":"$.a","contains":"x"}}]},"response":{"status":200}}"#)
        XCTAssertTrue(other.reason.contains(#"the body pattern "matchesJsonPath" with "contains", "expression" (only {"#), other.reason)
        XCTAssertFalse(other.action.contains(#""body""#), other.action)
        let xml = try translated(#"{"request":{"method":"POST","url":"/p","bodyPatterns":[{"equalToXml":"<a/>"}]},"response":{"status":200}}"#)
        XCTAssertTrue(xml.reason.contains(#"Not carried over: the body pattern "equalToXml" (translated: equalTo, contains, "#), xml.reason)
        let two = try translated(
            #"{"request":{"method":"POST","url":"/p","bodyPatterns":[{"contains":"a"},{"contains":"b"}]},"response":{"status":200}}"#)
        XCTAssertTrue(two.reason.contains(#"Not carried over: the body patterns after the first (a Catbird mock has one body pattern)."#), two.reason)
    }

    /// Regression (tester58b-F8, its exact stub): the jsonPath `equalTo` the action holds was
    /// listed under "Not carried over"; it is carried over as a JSON string, which a field
    /// holding the number 5 does not match, and the reason now says so and what to write.
    func testAJSONPathEqualToIsSaidToBeCarriedOverAsAString() throws {
        let stub = try translated(
            #"{"request":{"method":"POST","url":"/x","bodyPatterns":[{"matchesJsonPath":{"expression":"$.user.id","equalTo":"5"}}]},"response":{"status":200}}"#)
        XCTAssertTrue(stub.action.contains(#""body":{"equalTo":"5","kind":"jsonPath","value":"$.user.id"}"#), stub.action)
        XCTAssertTrue(
            stub.reason.contains(#"Carried over with another meaning: "matchesJsonPath"'s "equalTo" "5", as the JSON string "5" (WireMock "#
                + #"compares the field's text; the jsonPath pattern compares JSON values, so only a field holding that string matches it); "#
                + #"if the field holds 5 itself, not a string, write "equalTo": 5 in the action."#),
            stub.reason)
        XCTAssertFalse(stub.reason.contains("Not carried over"), stub.reason)
        // What the reason says holds: the action as offered misses the number, the one it suggests matches it.
        XCTAssertEqual(try client.json("POST", "/catbird/api/mocks", stub.action).status, 201)
        XCTAssertEqual(try client.request("POST", "/x", body: Array(#"{"user":{"id":5}}"#.utf8)).status, 404)
        XCTAssertEqual(try client.request("POST", "/x", body: Array(#"{"user":{"id":"5"}}"#.utf8)).status, 200)
        let suggested = stub.action.replacingOccurrences(of: #""equalTo":"5""#, with: #""equalTo":5"#)
        XCTAssertEqual(try client.json("POST", "/catbird/api/mocks", suggested).status, 201)
        XCTAssertEqual(try client.request("POST", "/x", body: Array(#"{"user":{"id":5}}"#.utf8)).status, 200)
    }

    /// Regression (tester59b-F1, its stubs): a WireMock body `matches` and `equalTo` with
    /// `caseInsensitive` were translated to regexps ending in `$`, which ICU also matches
    /// before a last line break: `abc\n` and `abc\r\n` got the mock WireMock's stub does not
    /// answer. Now they end in `\z`.
    func testAWholeBodyRegexpTranslationMatchesNoTrailingLineBreak() throws {
        let matches = try translated(#"{"request":{"method":"POST","url":"/q","bodyPatterns":[{"matches":"a.c"}]},"response":{"status":200,"body":"matches"}}"#)
        XCTAssertTrue(matches.action.contains(#""body":{"kind":"regexp","value":"(?s-i)^(?:a.c)\\z"}"#), matches.action)
        let equal = try translated(
            #"{"request":{"method":"POST","url":"/q2","bodyPatterns":[{"equalTo":"abc","caseInsensitive":true}]},"response":{"status":200,"body":"eq"}}"#)
        XCTAssertTrue(equal.action.contains(#""body":{"kind":"regexp","value":"^abc\\z"}"#), equal.action)
        for action in [matches.action, equal.action] { XCTAssertEqual(try client.json("POST", "/catbird/api/mocks", action).status, 201, action) }
        for (path, body, status) in [("/q", "abc", 200), ("/q", "abc\n", 404), ("/q", "abc\r\n", 404), ("/q2", "ABC", 200), ("/q2", "ABC\n", 404)] {
            XCTAssertEqual(try client.request("POST", path, body: Array(body.utf8)).status, status, "\(path) \(body.debugDescription)")
        }
    }

    /// Regression (tester60a-F6): the header form of `matches` and `equalTo` with
    /// `caseInsensitive` still ended in `$`, which ICU also matches before a last line
    /// terminator: a header value ending in NEL (U+0085, sent as its UTF-8 bytes) matched.
    func testAWholeHeaderValueRegexpTranslationMatchesNoTrailingLineTerminator() throws {
        let stub = try translated(
            #"{"request":{"method":"GET","url":"/h","headers":{"X-A":{"matches":"abc"},"X-B":{"equalTo":"def","caseInsensitive":true}}},"response":{"status":200}}"#)
        XCTAssertTrue(stub.action.contains(#""X-A":{"kind":"regexp","value":"(?s-i)^(?:abc)\\z"}"#), stub.action)
        XCTAssertTrue(stub.action.contains(#""X-B":{"kind":"regexp","value":"^def\\z"}"#), stub.action)
        XCTAssertEqual(try client.json("POST", "/catbird/api/mocks", stub.action).status, 201)
        XCTAssertEqual(try client.request("GET", "/h", headers: [("X-A", "abc"), ("X-B", "DEF")]).status, 200)
        XCTAssertEqual(try client.request("GET", "/h", headers: [("X-A", "abc\u{85}"), ("X-B", "DEF")]).status, 404)
        XCTAssertEqual(try client.request("GET", "/h", headers: [("X-A", "abc"), ("X-B", "DEF\u{85}")]).status, 404)
    }

    /// Regression (tester61a-F5, its stub): the url translations (`urlPattern`, `urlPathPattern`,
    /// `urlPath`, a MockServer path) still ended in `$`, which ICU also matches before a last
    /// line terminator: the raw request-targets `/abc` + U+2028 and `/abc` + U+0085 got the mock
    /// WireMock's stub does not answer.
    func testAURLRegexpTranslationMatchesNoTrailingLineTerminator() throws {
        let stub = try translated(#"{"request":{"method":"GET","urlPattern":"/a.c"},"response":{"status":200}}"#)
        XCTAssertTrue(stub.action.contains(#""url":{"kind":"regexp","value":"(?s-i)^(?:/a.c)\\z"}"#), stub.action)
        XCTAssertEqual(try client.json("POST", "/catbird/api/mocks", stub.action).status, 201)
        let path = try translated(#"{"request":{"method":"GET","urlPathPattern":"/p.q"},"response":{"status":200}}"#)
        XCTAssertEqual(try client.json("POST", "/catbird/api/mocks", path.action).status, 201)
        for (target, status) in [("/abc", 200), ("/abc\u{2028}", 404), ("/abc\u{85}", 404), ("/pxq?a=1", 200), ("/pxq\u{2029}", 404)] {
            XCTAssertEqual(try client.request("GET", target).status, status, target.debugDescription)
        }
    }

    /// Regression (tester62a-F5 and F6, their stubs): a path expression's `.*` ran on into the
    /// query (`/api/.*/details` answered `/api/1?next=/details`, the MockServer path `/ms/.*\.json`
    /// answered `/ms/a?f=.json`), and the query part stopped at a raw U+2028 (`/api/feed?x=` + U+2028
    /// got a 404 though WireMock's `urlPath` ignores the query).
    func testAPathExpressionMatchesThePathAloneAndAnyQuery() throws {
        let wireMock = try translated(#"{"request":{"method":"GET","urlPathPattern":"/api/.*/details"},"response":{"status":200}}"#)
        XCTAssertTrue(wireMock.action.contains(#""value":"(?s-i)^(?=[^?]*+((?s:\\?.*)?)\\z)(?:/api/.*/details)\\1\\z""#), wireMock.action)
        let mockServer = try translated(#"{"httpRequest":{"method":"GET","path":"/ms/.*\\.json"},"httpResponse":{"statusCode":200}}"#)
        let negated = try translated(#"{"request":{"method":"GET","urlPathPattern":"/n/[^/]+/\\S+"},"response":{"status":200}}"#)
        let path = try translated(#"{"request":{"method":"GET","urlPath":"/api/feed"},"response":{"status":200}}"#)
        for action in [wireMock.action, mockServer.action, negated.action, path.action] {
            XCTAssertEqual(try client.json("POST", "/catbird/api/mocks", action).status, 201, action)
        }
        let cases: [(String, Int)] = [
            ("/api/1/details", 200), ("/api/1/details?x=1", 200), ("/api/1?next=/details", 404),
            ("/ms/a.json", 200), ("/ms/a?f=.json", 404), ("/n/a/b", 200), ("/n/a/b?c", 200), ("/n/a?/b", 404),
            ("/api/feed?x=\u{2028}", 200), ("/api/feed?x=\u{85}y", 200), ("/api/feed\u{2028}", 404),
        ]
        for (target, status) in cases {
            XCTAssertEqual(try client.request("GET", target).status, status, target.debugDescription)
        }
    }

    /// Regression (tester61a-F9, its expectation): the MockServer body `REGEX` (and header)
    /// translations still ended in `$`: `a.c` answered the bodies `abc\n` and `abc\r\n`.
    func testAMockServerWholeBodyRegexpMatchesNoTrailingLineBreak() throws {
        let expectation = try translated(
            #"{"httpRequest":{"method":"POST","path":"/ms","body":{"type":"REGEX","regex":"a.c"}},"httpResponse":{"statusCode":200,"body":"ms"}}"#)
        XCTAssertTrue(expectation.action.contains(#""body":{"kind":"regexp","value":"(?-i)^(?:a.c)\\z"}"#), expectation.action)
        XCTAssertEqual(try client.json("POST", "/catbird/api/mocks", expectation.action).status, 201)
        for (body, status) in [("abc", 200), ("abc\n", 404), ("abc\r\n", 404)] {
            XCTAssertEqual(try client.request("POST", "/ms", body: Array(body.utf8)).status, status, body.debugDescription)
        }
    }

    /// Regression (tester60a-F9, its stub): an unterminated `\Q` (Java quotes to the end) took in
    /// the translation's own `)` and suffix, and the action offered had an invalid url. The
    /// quote is closed before them now, in every wrapped expression.
    func testAnUnterminatedQuoteIsClosedBeforeTheTranslationsSuffix() throws {
        let path = try translated(#"{"request":{"method":"GET","urlPathPattern":"/a\\Q$"},"response":{"status":200}}"#)
        XCTAssertTrue(path.action.contains(#""value":"(?s-i)^(?=[^?]*+((?s:\\?.*)?)\\z)(?:/a\\Q$\\E)\\1\\z""#), path.action)
        XCTAssertEqual(try client.json("POST", "/catbird/api/mocks", path.action).status, 201)
        XCTAssertEqual(try client.request("GET", "/a$?x=1").status, 200)
        let url = try translated(#"{"request":{"method":"GET","urlPattern":"/b\\Q.x"},"response":{"status":200}}"#)
        XCTAssertEqual(try client.json("POST", "/catbird/api/mocks", url.action).status, 201, url.action)
        XCTAssertEqual(try client.request("GET", "/b.x").status, 200)
        XCTAssertEqual(try client.request("GET", "/bax").status, 404)
        let header = try translated(#"{"request":{"method":"GET","url":"/h","headers":{"X-Q":{"matches":"a\\Q.b"}}},"response":{"status":200}}"#)
        XCTAssertTrue(header.action.contains(#""X-Q":{"kind":"regexp","value":"(?s-i)^(?:a\\Q.b\\E)\\z"}"#), header.action)
    }

    /// Regression (tester59b-F2, its stub): a `$` quoted with `\Q…\E` in a `urlPathPattern` was
    /// rewritten as the end of the path, and the translated mock matched neither `/a$` nor
    /// `/a%24`. A quoted span is now copied as it is.
    func testAQuotedDollarInAURLPathPatternStaysLiteral() throws {
        let stub = try translated(#"{"request":{"method":"GET","urlPathPattern":"/a\\Q$\\E"},"response":{"status":200}}"#)
        XCTAssertTrue(stub.action.contains(#""value":"(?s-i)^(?=[^?]*+((?s:\\?.*)?)\\z)(?:/a\\Q$\\E)\\1\\z""#), stub.action)
        XCTAssertEqual(try client.json("POST", "/catbird/api/mocks", stub.action).status, 201)
        XCTAssertEqual(try client.request("GET", "/a$").status, 200)
        XCTAssertEqual(try client.request("GET", "/a$?x=1").status, 200)
        XCTAssertEqual(try client.request("GET", "/a").status, 404)
    }

    /// tester47a-F2, its stubs: a path regular expression ending in `$` anchored before the
    /// query the translation lets follow: `/api/items/5?page=2` found no mock.
    func testAPathExpressionsEndMatchesBeforeAQuery() throws {
        let wireMock = try translated(#"{"request":{"method":"GET","urlPathPattern":"^/api/items/[0-9]+$"},"response":{"status":200,"body":"ok"}}"#)
        XCTAssertEqual(try client.json("POST", "/catbird/api/mocks", wireMock.action).status, 201)
        let mockServer = try translated(#"{"httpRequest":{"method":"GET","path":"/api/users/\\d+$"},"httpResponse":{"statusCode":200,"body":"ok"}}"#)
        XCTAssertEqual(try client.json("POST", "/catbird/api/mocks", mockServer.action).status, 201)
        for (target, status) in [("/api/items/5", 200), ("/api/items/5?page=2", 200), ("/api/items/5x", 404), ("/api/items/5/x?y", 404),
                                 ("/api/users/5", 200), ("/api/users/5?x=1", 200), ("/api/users/5x", 404)] {
            XCTAssertEqual(try client.request("GET", target).status, status, target)
        }
        // A `$` escaped or in a class is no anchor.
        let literal = try translated(#"{"request":{"method":"GET","urlPathPattern":"/cost/[$]\\$"},"response":{"status":200}}"#)
        XCTAssertTrue(literal.action.contains(#"(?:/cost/[$]\\$)"#), literal.action)
    }

    /// Tester finding tester63a-F5, its stubs: what rewriting `.` as `[^?]` left still ran on
    /// into the query (`[\s\S]*`, `\X`, `\p{…}`, `\H`, a literal `\?`), and a `(?x)` comment
    /// took in the translation's `)` and suffix (an action with an invalid url). The path is
    /// now taken whole by a lookahead and the expression must end where it ends; a numbered
    /// backreference names its group plus one; a comment gets a line break after it.
    func testNothingInAPathExpressionRunsIntoTheQuery() throws {
        let stubs = [
            #"{"request":{"method":"GET","urlPathPattern":"/s/[\\s\\S]*/details"},"response":{"status":200}}"#,
            #"{"request":{"method":"GET","urlPathPattern":"/x/\\X+/details"},"response":{"status":200}}"#,
            #"{"request":{"method":"GET","urlPathPattern":"/p/\\p{Any}+/details"},"response":{"status":200}}"#,
            #"{"request":{"method":"GET","urlPathPattern":"/h/\\H+/details"},"response":{"status":200}}"#,
            #"{"request":{"method":"GET","urlPathPattern":"/q/a\\?b"},"response":{"status":200}}"#,
            #"{"request":{"method":"GET","urlPathPattern":"(?x)/c/[a-z]+ # items"},"response":{"status":200}}"#,
            #"{"request":{"method":"GET","urlPathPattern":"/r/(\\w+)/\\1"},"response":{"status":200}}"#,
            #"{"httpRequest":{"method":"GET","path":"/m/[\\s\\S]*\\.json"},"httpResponse":{"statusCode":200}}"#,
            // tester66a-F1's: `/b/[\x00-\x7f]+` answered `GET /b/?page=1`; so did the others below.
            #"{"request":{"method":"GET","urlPathPattern":"/b/[\\x00-\\x7f]+"},"response":{"status":200}}"#,
            #"{"request":{"method":"GET","urlPathPattern":"/u/a\\P{L}\\x3f\\u003fb"},"response":{"status":200}}"#,
            #"{"request":{"method":"GET","urlPathPattern":"/k/[[:punct:]]+"},"response":{"status":200}}"#,
        ]
        for stub in stubs {
            let action = try translated(stub).action
            XCTAssertEqual(try client.json("POST", "/catbird/api/mocks", action).status, 201, action)
        }
        let cases: [(String, Int)] = [
            ("/s/1/details", 200), ("/s/1/details?x=1", 200), ("/s/1?next=/details", 404),
            ("/x/1/details", 200), ("/x/1?next=/details", 404),
            ("/p/1/details", 200), ("/p/1?next=/details", 404),
            ("/h/1/details", 200), ("/h/1?next=/details", 404),
            ("/q/a?b", 404),  // `\?` is a literal `?`, which no path holds: WireMock never matches it
            ("/c/items", 200), ("/c/items?page=2", 200), ("/c/items/1", 404),
            ("/r/ab/ab", 200), ("/r/ab/ab?x", 200), ("/r/ab/ac", 404),
            ("/m/a/b.json", 200), ("/m/a.json?v=1", 200), ("/m/a?f=.json", 404),
            ("/b/?page=1", 404), ("/b/x", 200), ("/b/x?page=1", 200),
            ("/u/a??b", 404), ("/u/a-%3F%3Fb", 404),
            ("/k/?", 404), ("/k/!?x", 200),
        ]
        for (target, status) in cases {
            XCTAssertEqual(try client.request("GET", target).status, status, target)
        }
        let backreference = try translated(stubs[6]).action
        XCTAssertTrue(backreference.contains(#"(?:/r/(\\w+)/(?:\\2))\\1\\z"#), backreference)
    }

    /// Tester finding tester67a-F1, its stubs: a lookahead inside a path expression read on into
    /// the query (`/api/(?!.*debug).*` refused `/api/foo?debug=1`; `/a/\w+(?=.*x)` answered
    /// `/a/b?x`, here under `/la`; the MockServer path `/files/(?!.*secret).+` refused `/files/a.txt?token=secret`),
    /// where WireMock and MockServer match the path alone. What a lookahead matches must now end
    /// within the path.
    func testALookaheadInAPathExpressionReadsThePathAlone() throws {
        let stubs = [
            #"{"request":{"method":"GET","urlPathPattern":"/api/(?!.*debug).*"},"response":{"status":200}}"#,
            #"{"request":{"method":"GET","urlPathPattern":"/la/\\w+(?=.*x)"},"response":{"status":200}}"#,
            #"{"httpRequest":{"method":"GET","path":"/files/(?!.*secret).+"},"httpResponse":{"statusCode":200}}"#,
        ]
        for stub in stubs {
            let action = try translated(stub).action
            XCTAssertEqual(try client.json("POST", "/catbird/api/mocks", action).status, 201, action)
        }
        let cases: [(String, Int)] = [
            ("/api/foo", 200), ("/api/foo?debug=1", 200), ("/api/foo?mode=debug", 200), ("/api/debug", 404),
            // WireMock: the path alone holds no x after the word, so none of these.
            ("/la/b?x", 404), ("/la/bx", 404), ("/la/x?x", 404),
            ("/files/a.txt", 200), ("/files/a.txt?token=secret", 200), ("/files/secret.txt", 404),
        ]
        for (target, status) in cases {
            XCTAssertEqual(try client.request("GET", target).status, status, target)
        }
    }

    /// Tester finding tester67a-F2, its stub: WireMock compiles every regular expression with
    /// `DOTALL`, so its body `matches` `.*"user": *"bob".*` takes the same JSON pretty-printed
    /// over several lines; the translation (`.` stopping at a line break) took only the one-line
    /// body. WireMock's translations now carry `(?s)`.
    func testAWireMockRegexpsDotMatchesLineBreaks() throws {
        let stub = try translated(
            #"{"request":{"method":"POST","urlPath":"/login","bodyPatterns":[{"matches":".*\"user\": *\"bob\".*"}]},"response":{"status":200,"body":"ok"}}"#)
        XCTAssertTrue(stub.action.contains(#""body":{"kind":"regexp","value":"(?s-i)^(?:.*\"user\": *\"bob\".*)\\z"}"#), stub.action)
        XCTAssertEqual(try client.json("POST", "/catbird/api/mocks", stub.action).status, 201, stub.action)
        XCTAssertEqual(try client.request("POST", "/login", body: Array(#"{"user": "bob"}"#.utf8)).status, 200)
        XCTAssertEqual(try client.request("POST", "/login", body: Array("{\n  \"user\": \"bob\"\n}".utf8)).status, 200)
        XCTAssertEqual(try client.request("POST", "/login", body: Array("{\n  \"user\": \"eve\"\n}".utf8)).status, 404)
    }

    /// tester47a-F7, its stubs: a 12 KB `equalToJson` body pattern, or a 9 KB header value,
    /// made the reason pass its 8,000 bytes: the action was cut mid-JSON and its notes lost.
    /// Such values are left out of the action, each named, and the action parses and is taken.
    func testLongPatternValuesAreLeftOutOfTheActionAndNamed() throws {
        let items = (0..<200).map { #"{"id":\#($0),"name":"item number \#($0)","tags":["a","b"]}"# }.joined(separator: ",")
        let stubs = [
            (#"{"request":{"method":"POST","url":"/order","bodyPatterns":[{"equalToJson":{"items":[\#(items)]}}],"cookies":{"s":{"equalTo":"1"}}},"response":{"status":200}}"#,
             #"the request body pattern (json, "#),
            (#"{"request":{"method":"GET","url":"/order","headers":{"Authorization":{"equalTo":"Bearer \#(String(repeating: "t", count: 9000))"}}},"response":{"status":200}}"#,
             #"the header pattern of "Authorization" (9007 bytes) is left out above"#),
        ]
        for (stub, note) in stubs {
            let refused = try client.json("POST", "/catbird/api/mocks", stub)
            let reason = refused.object["reason"] as? String ?? ""
            XCTAssertLessThan(reason.utf8.count, 8_000, reason)
            XCTAssertTrue(reason.contains(note), reason)
            XCTAssertTrue(reason.hasSuffix("(README.md#coming-from-wiremock-or-mockserver)"), String(reason.suffix(200)))
            let action = try shownAction(reason)
            XCTAssertEqual(try client.json("POST", "/catbird/api/mocks", action).status, 201, action)
        }
        let cookies = try client.json("POST", "/catbird/api/mocks", stubs[0].0).object["reason"] as? String ?? ""
        XCTAssertTrue(cookies.contains(#""cookies" (Catbird has no cookie matcher"#), "the notes are kept: \(cookies)")
    }

    /// The last note's leftover, its stub: a WireMock stub with a 7 KB url made the action pass
    /// the reason's 8,000 bytes, cut mid-JSON with its notes. Such a url is left out of the
    /// action and named; the action with the url put back is taken and answers it.
    func testALongURLIsLeftOutOfTheActionAndNamed() throws {
        let url = "/search?q=" + String(repeating: "x", count: 7_000)
        let stub = #"{"request":{"method":"GET","url":"\#(url)","cookies":{"s":{"equalTo":"1"}}},"response":{"status":200,"body":"found"}}"#
        let refused = try translated(stub)
        XCTAssertLessThan(refused.reason.utf8.count, 8_000, refused.reason)
        XCTAssertTrue(refused.reason.contains(#"the url pattern (equal, 7010 bytes) is left out above: add it to the action's pattern as "url""#),
                      refused.reason)
        XCTAssertTrue(refused.reason.contains(#""cookies" (Catbird has no cookie matcher"#), "the notes are kept: \(refused.reason)")
        XCTAssertTrue(refused.reason.hasSuffix("(README.md#coming-from-wiremock-or-mockserver)"), String(refused.reason.suffix(200)))
        var action = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(refused.action.utf8)) as? [String: Any], refused.action)
        var pattern = try XCTUnwrap(action["pattern"] as? [String: Any])
        XCTAssertNil(pattern["url"], refused.action)
        pattern["url"] = ["kind": "equal", "value": url]
        action["pattern"] = pattern
        let body = String(decoding: try JSONSerialization.data(withJSONObject: action), as: UTF8.self)
        XCTAssertEqual(try client.json("POST", "/catbird/api/mocks", body).status, 201, body)
        XCTAssertEqual(try client.request("GET", url).text, "found")
    }

    /// tester47a-F11, its stub: several response headers `update` refuses were each named with
    /// the first one's reason.
    func testEachRefusedHeaderIsNamedWithItsOwnReason() throws {
        let refused = try translated(
            #"{"httpRequest":{"method":"GET","path":"/a"},"httpResponse":{"statusCode":200,"headers":{"Bad Name":["v"],"X-Ok":["1"],"Y":[" s "]}}}"#)
        XCTAssertTrue(refused.reason.contains(#"the response header "Bad Name" (refused by update: response header name "Bad Name""#), refused.reason)
        XCTAssertTrue(refused.reason.contains(#"the response header "Y" (refused by update: response header "Y" has a space"#), refused.reason)
        XCTAssertTrue(refused.action.contains(#""X-Ok":"1""#), refused.action)
        XCTAssertEqual(try client.json("POST", "/catbird/api/mocks", refused.action).status, 201)
    }

    /// tester47a-F5, its stubs: numbers changed in silence (200.5 shown as 200, a limit of
    /// 2^63-1 as 10^15, a delay of -1 ms as none), and a note quoting the held number rather
    /// than the stub's.
    func testANumberChangedBeyondItsRoundingIsNamedAsWritten() throws {
        let cases = [
            (#"{"request":{"method":"GET","url":"/a"},"response":{"status":200.5}}"#, #""status": 200.5 (not a whole number, cut to one)"#),
            (#"{"request":{"method":"GET","url":"/a"},"response":{"status":99999999999999999999999}}"#, #""status": 1e+23 (past 10^15)"#),
            (#"{"httpRequest":{"method":"GET","path":"/a"},"httpResponse":{"statusCode":200},"times":{"remainingTimes":9223372036854775807}}"#,
             #""remainingTimes": 9.223372036854776e+18 (past 10^15): no limit is shown"#),
            (#"{"httpRequest":{"method":"GET","path":"/a"},"httpResponse":{"statusCode":200},"times":{"remainingTimes":1.5}}"#,
             #""remainingTimes": 1.5 (not a whole number, cut to one): no limit is shown"#),
            (#"{"request":{"method":"GET","url":"/a"},"response":{"status":200,"fixedDelayMilliseconds":-1}}"#,
             #""fixedDelayMilliseconds": -1 (below zero): no delay is shown"#),
            (#"{"request":{"method":"GET","url":"/a"},"response":{"status":200,"fixedDelayMilliseconds":1e20}}"#,
             #""fixedDelayMilliseconds": 1e+20 (past 10^15): no delay is shown"#),
        ]
        for (stub, note) in cases {
            let shown = try translated(stub)
            XCTAssertTrue(shown.reason.contains(note), "\(note): \(shown.reason)")
            XCTAssertEqual(try client.json("POST", "/catbird/api/mocks", shown.action).status, 201, shown.action)
        }
    }

    /// tester47a-F4: a stub naming a key twice was translated with one of its values in
    /// silence (WireMock and MockServer read the last).
    func testAKeyGivenTwiceIsNamed() throws {
        let twice = try translated(#"{"request":{"method":"GET","url":"/a"},"response":{"status":201,"status":404}}"#)
        XCTAssertTrue(twice.reason.contains(
            #"The stub names a key twice (the JSON object 'response' has the key "status" more than once; give each key once): "#
                + "WireMock and MockServer read its last value"), twice.reason)
        XCTAssertTrue(twice.reason.hasSuffix("(README.md#coming-from-wiremock-or-mockserver)"), twice.reason)
        XCTAssertFalse(try translated(#"{"request":{"method":"GET","url":"/a"},"response":{"status":201}}"#).reason.contains("twice"))
    }

    /// tester47a-F6, its expectations: a JSON Schema header value became a regexp of its JSON
    /// text (a mock nothing matches) in silence; an optional `?X-Foo` was called an invalid name;
    /// `pathParameters` naming no `{name}` of the path was said to have been substituted.
    func testMockServerMatcherObjectsAndOptionalHeadersAreNamed() throws {
        let schema = try translated(
            #"{"httpRequest":{"method":"GET","path":"/sch","headers":{"X-Id":[{"schema":{"type":"string","pattern":"^[0-9]+$"}}]}},"httpResponse":{"statusCode":200}}"#)
        XCTAssertTrue(schema.reason.contains(#"the header matcher of "X-Id" (a JSON Schema or matcher object, which Catbird has not)"#), schema.reason)
        XCTAssertTrue(schema.action.contains(#""headers":{}"#), schema.action)
        let optional = try translated(#"{"httpRequest":{"method":"GET","path":"/h","headers":{"?X-Foo":["1"]}},"httpResponse":{"statusCode":200}}"#)
        XCTAssertTrue(optional.reason.contains(#"the header matcher of "?X-Foo" (an optional header, which Catbird has not"#), optional.reason)
        let other = try translated(
            #"{"httpRequest":{"method":"GET","path":"/users/{id}","pathParameters":{"other":["1"]}},"httpResponse":{"statusCode":200}}"#)
        XCTAssertTrue(other.reason.contains(#""pathParameters" (none of its names is a {name} of the path"#), other.reason)
    }

    /// tester47a-F3, its stubs: a `jsonBody` (or MockServer JSON body) with an id past 2^53 was
    /// served with other digits (`9007199254740993` as `9007199254740992`), in silence.
    func testAJSONBodyWithNumbersPastTwoToTheFiftyThreeIsNamed() throws {
        let wireMock = try translated(#"{"request":{"method":"GET","url":"/j"},"response":{"status":200,"jsonBody":{"id":9007199254740993}}}"#)
        XCTAssertTrue(wireMock.reason.contains(#""jsonBody" written back from its parsed JSON: its numbers past 2^53 are 64-bit floats"#),
                      wireMock.reason)
        let mockServer = try translated(
            #"{"httpRequest":{"method":"GET","path":"/j"},"httpResponse":{"statusCode":200,"body":{"type":"JSON","json":{"ids":[12345678901234567890]}}}}"#)
        XCTAssertTrue(mockServer.reason.contains(#""json" written back from its parsed JSON"#), mockServer.reason)
        let small = try translated(#"{"request":{"method":"GET","url":"/j"},"response":{"status":200,"jsonBody":{"id":42,"x":1.5}}}"#)
        XCTAssertFalse(small.reason.contains("written back"), small.reason)
    }

    /// F3: `/api/users/{id}` with `pathParameters` became a regexp of the literal `{id}`, a mock
    /// that answered no real id.
    func testAMockServerPathTemplateIsOnePathSegmentPerParameter() throws {
        let template = try translated(
            #"{"httpRequest":{"method":"GET","path":"/api/users/{id}","pathParameters":{"id":["[0-9]+"]}},"httpResponse":{"statusCode":200}}"#)
        XCTAssertTrue(template.action.contains(#""url":{"kind":"regexp","value":"(?-i)^/api/users/[^/?]+(\\?(?s:.*))?\\z"}"#), template.action)
        XCTAssertTrue(template.reason.contains(#"Not carried over: the "pathParameters" values (each {name} of the path is translated as any one path segment)."#),
            template.reason)
        XCTAssertEqual(try client.json("POST", "/catbird/api/mocks", template.action).status, 201)
        XCTAssertEqual(try client.request("GET", "/api/users/42").status, 200)
        XCTAssertEqual(try client.request("GET", "/api/users/42/x").status, 404)
    }

    /// F4: a delay written as a string, `body` beside `jsonBody`, `bodyPatterns` not a list,
    /// a method or status of another type: dropped or changed in silence.
    func testWireMockValuesOfAnotherTypeAreReadOrNamed() throws {
        let delay = try translated(#"{"request":{"method":"GET","url":"/x"},"response":{"status":"404","fixedDelayMilliseconds":"1000"}}"#)
        XCTAssertTrue(delay.action.contains(#""response":{"delay":1,"headers":{},"status":404}"#), delay.action)
        XCTAssertFalse(delay.reason.contains("Not carried over"), delay.reason)
        let both = try translated(#"{"request":{"method":"GET","url":"/x"},"response":{"status":200,"jsonBody":{"a":1},"body":"x"}}"#)
        XCTAssertTrue(both.action.contains(#""body":"eA==""#), both.action)
        XCTAssertTrue(both.reason.contains(#"Not carried over: "jsonBody" (WireMock serves "body" when both are given)."#), both.reason)
        let object = try translated(#"{"request":{"method":"GET","url":"/x","bodyPatterns":{"contains":"a"}},"response":{"status":200}}"#)
        XCTAssertTrue(object.reason.contains(#"Not carried over: "bodyPatterns" (not a list)."#), object.reason)
        let types = try translated(#"{"request":{"method":5,"url":"/x"},"response":{"status":{"a":1}}}"#)
        XCTAssertTrue(types.reason.contains(#"Not carried over: "method": 5 (not a string); GET is shown; "status": {"a":1} (not a number); 200 is shown."#),
            types.reason)
    }

    /// F5: every `timeUnit` but milliseconds and minutes was read as seconds (1,500 µs: 25 minutes).
    func testAMockServerDelayIsReadInItsUnit() throws {
        func delay(_ unit: String, _ value: Int = 1500) throws -> (reason: String, action: String) {
            try translated(#"{"httpRequest":{"method":"GET","path":"/x"},"httpResponse":{"statusCode":200,"delay":{"timeUnit":"\#(unit)","value":\#(value)}}}"#)
        }
        for (unit, seconds) in [("NANOSECONDS", 1), ("MICROSECONDS", 1), ("MILLISECONDS", 2), ("SECONDS", 1500), ("MINUTES", 60)] {
            let shown = try delay(unit, unit == "MINUTES" ? 1 : 1500)
            XCTAssertTrue(shown.action.contains(#""delay":\#(seconds),"#), "\(unit): \(shown.action)")
            XCTAssertFalse(shown.reason.contains("Not carried over"), shown.reason)
        }
        let hours = try delay("HOURS")
        XCTAssertTrue(hours.reason.contains("Not carried over: the delay (refused by update: "), hours.reason)
        XCTAssertFalse(hours.action.contains(#""delay""#), hours.action)
        let unknown = try delay("FORTNIGHTS")
        XCTAssertTrue(unknown.reason.contains(#"Not carried over: the response's "delay" (its "timeUnit" "FORTNIGHTS" is none of NANOSECONDS, "#),
            unknown.reason)
        XCTAssertFalse(unknown.action.contains(#""delay""#), unknown.action)
    }

    /// F6: `BINARY` and `XML` bodies were served as their wrapper's JSON text; a body's
    /// `contentType` was dropped.
    func testMockServerResponseBodiesAreTheirBytesWithTheirContentType() throws {
        let binary = try translated(
            #"{"httpRequest":{"method":"GET","path":"/img"},"httpResponse":{"statusCode":200,"body":{"type":"BINARY","base64Bytes":"AAEC","contentType":"image/png"}}}"#)
        XCTAssertTrue(binary.action.contains(#""response":{"body":"AAEC","headers":{"Content-Type":"image/png"},"status":200}"#), binary.action)
        XCTAssertFalse(binary.reason.contains("Not carried over"), binary.reason)
        XCTAssertEqual(try client.json("POST", "/catbird/api/mocks", binary.action).status, 201)
        let image = try client.request("GET", "/img")
        XCTAssertEqual(image.body, [0, 1, 2])
        XCTAssertEqual(image.header("Content-Type"), "image/png")
        let xml = try translated(#"{"httpRequest":{"method":"GET","path":"/x"},"httpResponse":{"statusCode":200,"body":{"type":"XML","xml":"<a/>"}}}"#)
        XCTAssertTrue(xml.action.contains(#""body":"PGEvPg==""#), xml.action)
        let text = try translated(
            #"{"httpRequest":{"method":"GET","path":"/x"},"httpResponse":{"statusCode":200,"body":{"type":"STRING","string":"x","contentType":"text/plain; charset=utf-8"}}}"#)
        XCTAssertTrue(text.action.contains(#""response":{"body":"eA==","headers":{"Content-Type":"text/plain; charset=utf-8"},"status":200}"#), text.action)
        let form = try translated(#"{"httpRequest":{"method":"GET","path":"/x"},"httpResponse":{"statusCode":200,"body":{"type":"PARAMETERS","parameters":{}}}}"#)
        XCTAssertTrue(form.reason.contains(#"Not carried over: the response body of type "PARAMETERS" (translated: STRING, JSON, XML, BINARY)."#), form.reason)
        XCTAssertFalse(form.action.contains(#""body""#), form.action)
    }

    /// F7: a header name negation `"!Accept"` became a header pattern of a header so named.
    func testAMockServerHeaderNameNegationIsNamed() throws {
        let negation = try translated(#"{"httpRequest":{"method":"GET","path":"/x","headers":{"!Accept":[".*"]}},"httpResponse":{"statusCode":200}}"#)
        XCTAssertTrue(negation.action.contains(#""pattern":{"headers":{},"#), negation.action)
        XCTAssertTrue(negation.reason.contains(#"Not carried over: the header matcher of "!Accept" (a negation, which Catbird has not)."#), negation.reason)
    }

    /// F9 and F10: `"statusCode": "404"` was 200; MockServer's unlimited times was a limit of 0
    /// (answered once), `"remainingTimes": "2"` no limit.
    func testAMockServerStatusAndTimesAreReadAsMockServerReadsThem() throws {
        let status = try translated(#"{"httpRequest":{"method":"GET","path":"/x"},"httpResponse":{"statusCode":"404"}}"#)
        XCTAssertTrue(status.action.contains(#""status":404"#), status.action)
        let unlimited = try translated(
            #"{"httpRequest":{"method":"POST","path":"/t"},"httpResponse":{"statusCode":200},"times":{"remainingTimes":0,"unlimited":true}}"#)
        XCTAssertFalse(unlimited.action.contains(#""limit""#), unlimited.action)
        XCTAssertFalse(unlimited.reason.contains("Not carried over"), unlimited.reason)
        XCTAssertEqual(try client.json("POST", "/catbird/api/mocks", unlimited.action).status, 201)
        for _ in 0..<3 { XCTAssertEqual(try client.request("POST", "/t").status, 200) }
        let two = try translated(#"{"httpRequest":{"method":"GET","path":"/x"},"times":{"remainingTimes":"2","unlimited":false}}"#)
        XCTAssertTrue(two.action.contains(#""limit":2"#), two.action)
        let none = try translated(#"{"httpRequest":{"method":"GET","path":"/x"},"times":{"remainingTimes":0}}"#)
        XCTAssertFalse(none.action.contains(#""limit""#), none.action)
        XCTAssertTrue(none.reason.contains(#"Not carried over: "remainingTimes": 0 without "unlimited" (a Catbird limit answers one request at least)"#),
            none.reason)
    }
}
