import CatbirdTestSupport
import Foundation
import XCTest

/// A WireMock stub mapping or a MockServer expectation posted to `POST /catbird/api/mocks` gets
/// a 400 that says what it is and shows the Catbird action for the same mock, which the server
/// then takes (README.md#coming-from-wiremock-or-mockserver).
final class ForeignStubShapeTests: ServerTestCase {
    /// The action the reason shows, sent as it is shown.
    func shownAction(_ reason: String) throws -> String {
        let start = try XCTUnwrap(reason.range(of: "The same mock as a Catbird action: "), reason).upperBound
        var action = String(reason[start...])
        for end in [" The action has no url: ", " Carried over with another meaning: ", " Not carried over: ", " (README.md#"] {
            if let cut = action.range(of: end) { action = String(action[..<cut.lowerBound]) }
        }
        return action
    }

    /// Regression (tester finding try10a F3), the exact shape: a WireMock stub
    /// `{"request":{"method":..,"urlPath":..},"response":{"status":..,"jsonBody":..}}` got
    /// `unknown key "request" in the JSON body`. The reason now names WireMock and shows the
    /// action; that action is accepted and answers what the stub answered (its `urlPath`
    /// ignoring the query), and the delay is carried over in whole seconds.
    func testAWireMockStubGetsItsCatbirdAction() throws {
        let stub = #"{"request":{"method":"GET","urlPath":"/api/feed"},"response":{"status":200,"jsonBody":{"posts":[1]},"#
            + #""headers":{"Content-Type":"application/json"},"fixedDelayMilliseconds":1}}"#
        let refused = try client.json("POST", "/catbird/api/mocks", stub)
        E2E.assertError(refused, status: 400)
        let reason = refused.object["reason"] as? String ?? ""
        XCTAssertTrue(reason.hasPrefix(
            #"this is a WireMock stub mapping ({"request": …, "response": …}), not a Catbird action: POST /catbird/api/mocks "#
                + #"takes {"type": "update", "pattern": …, "response": …}. The same mock as a Catbird action: "#), reason)
        let action = try shownAction(reason)
        XCTAssertEqual(
            action,
            #"{"pattern":{"headers":{},"method":"GET","url":{"kind":"regexp","value":"(?-i)^/api/feed(\\?(?s:.*))?\\z"}},"#
                + #""response":{"body":"eyJwb3N0cyI6WzFdfQ==","delay":1,"headers":{"Content-Type":"application/json"},"#
                + #""status":200},"type":"update"}"#)
        XCTAssertEqual(try client.json("POST", "/catbird/api/mocks", action).status, 201)
        let answer = try client.request("GET", "/api/feed?page=2")
        XCTAssertEqual(answer.status, 200)
        XCTAssertEqual(answer.text, #"{"posts":[1]}"#)
        XCTAssertEqual(try client.request("GET", "/api/feedx").status, 404)
        // WireMock's urlPath is case-sensitive, and so is its translation (T18A-F2).
        XCTAssertEqual(try client.request("GET", "/API/FEED").status, 404)
    }

    /// Regression (tester finding T18A-F2), the exact stubs: `urlPathTemplate` (a WireMock 3
    /// key), `urlPathEqualTo` (the Java DSL's name) with `cookies`, and a typo `urlpath`, each
    /// got the action `{"pattern":{"headers":{},"method":"GET","url":{"kind":"wildcard","value":"*"}},…}`
    /// with no "Not carried over": pasted, a mock answering every GET. A path template is now
    /// translated (`{name}` one path segment, case-sensitive, any query); a url key not
    /// translated is named, and the action is shown with no url, which says why.
    func testAUrlKeyNotTranslatedIsNamedAndNeverBecomesACatchAll() throws {
        let template = try client.json(
            "POST", "/catbird/api/mocks", #"{"request":{"method":"GET","urlPathTemplate":"/contacts/{contactId}"},"response":{"status":200}}"#)
        E2E.assertError(template, status: 400)
        let templateReason = template.object["reason"] as? String ?? ""
        XCTAssertFalse(templateReason.contains("Not carried over"), templateReason)
        let action = try shownAction(templateReason)
        XCTAssertEqual(
            action,
            #"{"pattern":{"headers":{},"method":"GET","url":{"kind":"regexp","value":"(?-i)^/contacts/[^/?]+(\\?(?s:.*))?\\z"}},"#
                + #""response":{"headers":{},"status":200},"type":"update"}"#)
        XCTAssertEqual(try client.json("POST", "/catbird/api/mocks", action).status, 201)
        for (path, status) in [("/contacts/17", 200), ("/contacts/a-b?x=1", 200), ("/contacts/", 404), ("/contacts/17/notes", 404),
                               ("/CONTACTS/17", 404), ("/other", 404)] {
            XCTAssertEqual(try client.request("GET", path).status, status, path)
        }
        // The journal's count reads the inline flag as the mock does.
        let pattern = #"{"method":"GET","url":{"kind":"regexp","value":"(?-i)^/contacts/[^/?]+(\\?(?s:.*))?\\z"}}"#
        XCTAssertEqual(try client.json("POST", "/catbird/api/requests/count", #"{"pattern":\#(pattern)}"#).text, #"{"count":2}"#)

        let dslName = try client.json(
            "POST", "/catbird/api/mocks",
            #"{"request":{"method":"GET","urlPathEqualTo":"/z","cookies":{"s":{"equalTo":"1"}}},"response":{"status":200}}"#)
        E2E.assertError(dslName, status: 400)
        let dslReason = dslName.object["reason"] as? String ?? ""
        XCTAssertFalse(dslReason.contains(#""kind":"wildcard""#), dslReason)
        XCTAssertTrue(dslReason.contains(
            #"The same mock as a Catbird action: {"pattern":{"headers":{},"method":"GET"},"response":{"headers":{},"status":200},"#
                + #""type":"update"} The action has no url: none of its keys is a url key translated here ("url", "urlPath", "#
                + #""urlPathPattern", "urlPattern", "urlPathTemplate"); add "url" to its pattern"#), dslReason)
        XCTAssertTrue(dslReason.contains(
            #" Not carried over: "cookies" (Catbird has no cookie matcher: match the Cookie header with a header pattern); "#
                + #""urlPathEqualTo" (the Java DSL's name: the JSON key is "urlPath")."#), dslReason)
        // The action shown is refused as it is (it has no url): never a catch-all.
        E2E.assertError(try client.json("POST", "/catbird/api/mocks", try shownAction(dslReason)), status: 400)

        let typo = try client.json("POST", "/catbird/api/mocks", #"{"request":{"method":"GET","urlpath":"/z"},"response":{"status":200}}"#)
        E2E.assertError(typo, status: 400, reasonContains: #"{"pattern":{"headers":{},"method":"GET"},"#)
        E2E.assertError(typo, status: 400, reasonContains: #"The action has no url: none of its keys is a url key translated here"#)
        E2E.assertError(typo, status: 400, reasonContains: #"Not carried over: "urlpath" (WireMock's key is spelled "urlPath")."#)

        let none = try client.json("POST", "/catbird/api/mocks", #"{"request":{"method":"GET"},"response":{"status":200}}"#)
        E2E.assertError(none, status: 400, reasonContains: #"The action has no url: the stub has no url key (WireMock then matches every url)"#)
        XCTAssertEqual(try E2E.mocks(client, tenant: nil).count, 1, "only the path template's action was stored")
        XCTAssertEqual(try client.request("GET", "/z").status, 404)
    }

    /// The rest of the kind (T18A-F2): keys of the stub, its request and its response that are
    /// not translated are named, and WireMock's `contains` and `matches` stay case-sensitive; a
    /// MockServer expectation with no path gets no url either.
    func testEveryKeyNotTranslatedIsNamed() throws {
        let stub = #"{"priority":1,"name":"n","request":{"method":"POST","urlPath":"/p","basicAuthCredentials":{},"#
            + #""headers":{"X-Kind":{"contains":"Blue"}},"bodyPatterns":[{"matches":"a+"}]},"#
            + #""response":{"status":201,"fault":"EMPTY_RESPONSE","transformers":["response-template"]}}"#
        let refused = try client.json("POST", "/catbird/api/mocks", stub)
        E2E.assertError(refused, status: 400)
        let reason = refused.object["reason"] as? String ?? ""
        XCTAssertTrue(reason.contains(
            #" Not carried over: "priority" (the first added mock wins here: add the mocks in the order they are to be tried); "#
                + #""basicAuthCredentials" (match the Authorization header with a header pattern); "fault" (Catbird cannot "#
                + #"simulate a connection fault: this action answers the status shown instead; a 5xx status, or a delay past the "#
                + #"app's timeout, is the nearest); "transformers" (Catbird has no response templates: the body is served as "#
                + #"written)."#), reason)
        let action = try shownAction(reason)
        XCTAssertTrue(action.contains(#""headers":{"X-Kind":{"kind":"regexp","value":"(?-i)Blue"}}"#), action)
        XCTAssertTrue(action.contains(#""body":{"kind":"regexp","value":"(?s-i)^(?:a+)\\z"}"#), action)
        XCTAssertEqual(try client.json("POST", "/catbird/api/mocks", action).status, 201)
        XCTAssertEqual(try client.request("POST", "/p", headers: [("X-Kind", "light Blue")], body: Array("aaa".utf8)).status, 201)
        XCTAssertEqual(try client.request("POST", "/p", headers: [("X-Kind", "light blue")], body: Array("aaa".utf8)).status, 404)
        XCTAssertEqual(try client.request("POST", "/p", headers: [("X-Kind", "Blue")], body: Array("AAA".utf8)).status, 404)

        let expectation = #"{"httpRequest":{"method":"GET","cookies":{"s":"1"}},"httpResponse":{"statusCode":200,"reasonPhrase":"OK"}}"#
        let mockServer = try client.json("POST", "/catbird/api/mocks", expectation)
        E2E.assertError(mockServer, status: 400, reasonContains: #"The action has no url: the expectation has no "path" (MockServer then matches every path)"#)
        E2E.assertError(mockServer, status: 400, reasonContains: #"Not carried over: "cookies" (Catbird has no cookie matcher"#)
        E2E.assertError(mockServer, status: 400, reasonContains: #"; "reasonPhrase"."#)
    }

    /// Regression (tester finding tester58b-F7, its stubs): a fault stub and a proxy stub were
    /// translated into a plain 200 with nothing but `Not carried over: "fault"` (or
    /// `"proxyBaseUrl"`); pasted, such an action made an error-path test pass for the wrong
    /// reason. The note now says what the action does instead, and what comes nearest.
    func testAFaultOrProxyStubSaysTheActionAnswersItsStatusInstead() throws {
        let fault = try client.json(
            "POST", "/catbird/api/mocks", #"{"request":{"method":"GET","url":"/t"},"response":{"fault":"CONNECTION_RESET_BY_PEER"}}"#)
        E2E.assertError(
            fault, status: 400,
            reasonContains: #"Not carried over: "fault" (Catbird cannot simulate a connection fault: this action answers the status "#
                + "shown instead; a 5xx status, or a delay past the app's timeout, is the nearest).")
        let proxy = try client.json(
            "POST", "/catbird/api/mocks", #"{"request":{"method":"GET","url":"/t"},"response":{"proxyBaseUrl":"http://example.com"}}"#)
        E2E.assertError(
            proxy, status: 400,
            reasonContains: #"Not carried over: "proxyBaseUrl" (Catbird forwards with --redirect-url or --proxy, not per mock: "#
                + "this action answers the status shown instead).")
    }

    /// A MockServer expectation, and WireMock's `{"mappings": [...]}` of two stubs (one action
    /// per call, said so); what does not carry over is named.
    func testAMockServerExpectationAndAWireMockImportGetTheirActions() throws {
        let expectation = #"{"httpRequest":{"method":"POST","path":"/login","body":{"type":"JSON","json":{"user":"john"}}},"#
            + #""httpResponse":{"statusCode":201,"body":"ok"},"times":{"remainingTimes":1}}"#
        let refused = try client.json("POST", "/catbird/api/mocks", expectation)
        E2E.assertError(refused, status: 400, reasonContains: #"this is a MockServer expectation ({"httpRequest": …, "httpResponse": …})"#)
        let action = try shownAction(refused.object["reason"] as? String ?? "")
        XCTAssertEqual(try client.json("POST", "/catbird/api/mocks", action).status, 201)
        XCTAssertEqual(try client.request("POST", "/login", body: Array(#"{ "user" : "john" }"#.utf8)).text, "ok")
        XCTAssertEqual(try client.request("POST", "/login", body: Array(#"{"user":"john"}"#.utf8)).status, 404, "limit 1 spent")

        let mappings = #"{"mappings":[{"request":{"method":"ANY","url":"/a?b=1","queryParameters":{"c":{"equalTo":"2"}}},"#
            + #""response":{"status":204}},{"request":{"url":"/b"},"response":{"status":200}}]}"#
        let imported = try client.json("POST", "/catbird/api/mocks", mappings)
        E2E.assertError(imported, status: 400, reasonContains: "Catbird takes one action per call: post each mock on its own")
        let reason = imported.object["reason"] as? String ?? ""
        XCTAssertTrue(reason.contains(#"Not carried over: "method": "ANY" or none (Catbird compares methods exactly: GET is shown"#), reason)
        XCTAssertTrue(reason.contains(#""queryParameters" (a url pattern matches the query too"#), reason)
        XCTAssertTrue(reason.contains(
            "This is the first of the 2 posted; post each of the other 1 alone for its action and what it does not carry over."), reason)
    }

    /// Regression (tester finding tester26b-F2), the exact mappings file and a MockServer array:
    /// only the first stub's action was shown, and nothing said there were others (the second's
    /// `Content-Length`, which update refuses, went unmentioned). The reason now counts them; the
    /// second posted alone names its `Content-Length`.
    func testSeveralStubsPostedAtOnceAreCounted() throws {
        let second = #"{"request":{"method":"GET","url":"/m2"},"response":{"status":201, "headers":{"Content-Length":"3"}}}"#
        let mappings = #"{"mappings":[{"request":{"method":"GET","url":"/m1"},"response":{"status":200}},"# + second + "]}"
        let refused = try client.json("POST", "/catbird/api/mocks", mappings, headers: [("X-Catbird-Parallel-Id", "mm")])
        E2E.assertError(refused, status: 400, reasonContains: "This is the first of the 2 posted; post each of the other 1 alone")
        E2E.assertError(
            try client.json("POST", "/catbird/api/mocks", second), status: 400,
            reasonContains: #"Not carried over: the response header "Content-Length" (refused by update: "#)
        let array = #"[{"httpRequest":{"path":"/a"},"httpResponse":{"statusCode":200}},"#
            + #"{"httpRequest":{"path":"/b"},"httpResponse":{"statusCode":200}},{"httpRequest":{"path":"/c"}}]"#
        E2E.assertError(
            try client.json("POST", "/catbird/api/mocks", array), status: 400,
            reasonContains: "This is the first of the 3 posted; post each of the other 2 alone")
        // An empty mappings file is named as one too (it got `unknown key "mappings"`).
        E2E.assertError(
            try client.json("POST", "/catbird/api/mocks", #"{"mappings":[]}"#), status: 400,
            reasonContains: "this is a WireMock mappings file ({\"mappings\": […]}) with no stub mapping in it")
    }

    /// Regression (fix18c's report), the exact stub: a `base64Body` that is not padded base64
    /// was left out of the action with no word of it; it is named under "Not carried over".
    func testAnInvalidBase64BodyIsNamed() throws {
        let stub = #"{"request":{"method":"GET","url":"/b"},"response":{"status":200,"base64Body":"aGk"}}"#
        let refused = try client.json("POST", "/catbird/api/mocks", stub)
        E2E.assertError(refused, status: 400, reasonContains: #"Not carried over: "base64Body" (not padded base64"#)
        XCTAssertFalse(try shownAction(refused.object["reason"] as? String ?? "").contains(#""body""#), refused.text)
    }

    /// Other bodies that are not actions keep their own reasons.
    func testOtherBodiesKeepTheirReasons() throws {
        let typo = try client.json("POST", "/catbird/api/mocks", #"{"type":"update","pattern":{},"respons":{}}"#)
        E2E.assertError(typo, status: 400, reasonContains: #"unknown key "respons""#)
        XCTAssertFalse((typo.object["reason"] as? String ?? "").contains("WireMock"), typo.text)

        // Regression (lead finding L19-F1), the exact body: "action" for "type" got "this is a
        // WireMock stub mapping" (its "response" key) with a translation of no url and "Not
        // carried over: "action"; "pattern"".
        let action = try client.json(
            "POST", "/catbird/api/mocks",
            #"{"action":"update","pattern":{"method":"GET","url":"/bench"},"response":{"status":200,"body":"aGk="}}"#)
        E2E.assertError(action, status: 400, reasonContains: #"unknown key "action""#)
        XCTAssertFalse((action.object["reason"] as? String ?? "").contains("WireMock"), action.text)
        XCTAssertEqual(try E2E.mocks(client, tenant: nil).count, 0, "nothing stored")
    }

    /// The shape is looked for only in JSON (a deliberate change, not a bug report), with the exact
    /// inputs that changed: a WireMock stub with a trailing comma
    /// `{"request":{"url":"/a"},"response":{"status":200},}`, which is not JSON (RFC 8259) but
    /// which Foundation's parser reads, got the WireMock translation in place of the syntax error
    /// every other control body gets; sent as `text/plain` it got that translation in place of
    /// the 415. The shape is now looked for only in a body read as JSON, so each gets its own
    /// reason, as a stub of more than 100,000 values does (not parsed); the stub as JSON still
    /// gets its translation.
    func testOnlyABodyReadAsJSONIsTakenForAForeignStub() throws {
        let stub = #"{"request":{"url":"/a"},"response":{"status":200}}"#
        let trailingComma = #"{"request":{"url":"/a"},"response":{"status":200},}"#
        let comma = try client.json("POST", "/catbird/api/mocks", trailingComma)
        E2E.assertError(comma, status: 400)
        XCTAssertEqual(
            comma.object["reason"] as? String,
            "invalid JSON at line 1, column 50 (byte offset 49): a trailing comma before '}': JSON allows none (RFC 8259)")

        let plain = try client.request("POST", "/catbird/api/mocks", headers: [("Content-Type", "text/plain")], body: Array(stub.utf8))
        E2E.assertError(plain, status: 415)
        XCTAssertEqual(
            plain.object["reason"] as? String,
            #"Content-Type must be application/json (got "text/plain"; with curl, add -H 'Content-Type: application/json' to -d)"#)

        let many = #"{"request":{"url":"/a"},"response":{"status":200},"x":["# + String(repeating: "0,", count: 100_000) + "0]}"
        let refused = try client.json("POST", "/catbird/api/mocks", many)
        E2E.assertError(refused, status: 400, reasonContains: "the JSON body holds more than 100000 values (array elements, object members)")
        XCTAssertFalse((refused.object["reason"] as? String ?? "").contains("WireMock"), String(refused.text.prefix(300)))

        E2E.assertError(try client.json("POST", "/catbird/api/mocks", stub), status: 400, reasonContains: "this is a WireMock stub mapping")
        XCTAssertEqual(try E2E.mocks(client, tenant: nil).count, 0, "nothing stored")
    }

    /// The 400's reason for `foreign` posted as a mock, and the action it shows.
    func translated(_ foreign: String, file: StaticString = #filePath, line: UInt = #line) throws -> (reason: String, action: String) {
        let refused = try client.json("POST", "/catbird/api/mocks", foreign)
        E2E.assertError(refused, status: 400, file: file, line: line)
        let reason = refused.object["reason"] as? String ?? ""
        return (reason, try shownAction(reason))
    }

    /// Regression (tester finding tester25b F1), the exact expectations: MockServer matches a
    /// path or header value as "plain text or regular expression", case-sensitively; `"/mock/.*"`
    /// was translated as the literal `^/mock/\.\*(\?.*)?$` (case-insensitive, answering only
    /// `/mock/.*`) and `"X-A": ["foo.*"]` as `equal "foo.*"`, with nothing said. Each is now a
    /// case-sensitive regexp matching the text or the expression, and the action posted answers
    /// what MockServer answers.
    func testAMockServerPathOrHeaderIsPlainTextOrARegularExpression() throws {
        let path = try translated(#"{"httpRequest":{"method":"GET","path":"/mock/.*"},"httpResponse":{"statusCode":200,"body":"x"}}"#)
        XCTAssertFalse(path.reason.contains("Not carried over"), path.reason)
        XCTAssertEqual(
            path.action,
            #"{"pattern":{"headers":{},"method":"GET","url":{"kind":"regexp","value":"(?-i)^(?=[^?]*+((?s:\\?.*)?)\\z)(?:/mock/\\.\\*|/mock/.*)\\1\\z"}},"#
                + #""response":{"body":"eA==","headers":{},"status":200},"type":"update"}"#)
        XCTAssertEqual(try client.json("POST", "/catbird/api/mocks", path.action).status, 201)
        for (target, status) in [("/mock/abc", 200), ("/mock/x/y?q=1", 200), ("/mock/.*", 200), ("/MOCK/abc", 404), ("/mocks", 404)] {
            XCTAssertEqual(try client.request("GET", target).status, status, target)
        }

        let header = try translated(#"{"httpRequest":{"method":"GET","path":"/h","headers":{"X-A":["foo.*"]}},"httpResponse":{"statusCode":200}}"#)
        XCTAssertFalse(header.reason.contains("Not carried over"), header.reason)
        XCTAssertTrue(header.action.contains(#""headers":{"X-A":{"kind":"regexp","value":"(?-i)^(?:foo\\.\\*|foo.*)\\z"}}"#), header.action)
        XCTAssertEqual(try client.json("POST", "/catbird/api/mocks", header.action).status, 201)
        for (value, status) in [("foobar", 200), ("foo.*", 200), ("FOOBAR", 404), ("xfoo", 404)] {
            XCTAssertEqual(try client.request("GET", "/h", headers: [("X-A", value)]).status, status, value)
        }
    }

    /// Regression (tester finding tester25b F1), the exact expectations: `!` (MockServer's
    /// negation) on a method, a path or a header value, and a method `GET|POST`, became
    /// literals with nothing said; each is now named, and never shown as a literal.
    func testAMockServerNegationOrMethodExpressionIsNamed() throws {
        let alternatives = try translated(#"{"httpRequest":{"method":"GET|POST","path":"/m"},"httpResponse":{"statusCode":200}}"#)
        XCTAssertTrue(alternatives.reason.contains(
            #"Not carried over: "method": "GET|POST" (a negation or a regular expression: Catbird compares methods exactly: GET is shown; "#
                + #"add one mock per method)."#), alternatives.reason)
        XCTAssertTrue(alternatives.action.contains(#""method":"GET""#), alternatives.action)
        let notGet = try translated(#"{"httpRequest":{"method":"!GET","path":"/n"},"httpResponse":{"statusCode":200}}"#)
        XCTAssertTrue(notGet.reason.contains(#"Not carried over: "method": "!GET" (a negation or a regular expression"#), notGet.reason)
        XCTAssertFalse(notGet.action.contains("!GET"), notGet.action)
        let notPath = try translated(#"{"httpRequest":{"path":"!/m"},"httpResponse":{"statusCode":200}}"#)
        XCTAssertTrue(notPath.reason.contains(#"The action has no url: its "path" "!/m" is a negation ("!"), which Catbird has not;"#), notPath.reason)
        XCTAssertFalse(notPath.action.contains("!/m"), notPath.action)
        let notHeader = try translated(#"{"httpRequest":{"method":"GET","path":"/h","headers":{"X-A":["!x"]}},"httpResponse":{"statusCode":200}}"#)
        XCTAssertTrue(notHeader.reason.contains(
            #"Not carried over: the header matcher of "X-A" (only one value, not a negation, is translated)."#), notHeader.reason)
        XCTAssertTrue(notHeader.action.contains(#""headers":{}"#), notHeader.action)
        XCTAssertEqual(try E2E.mocks(client, tenant: nil).count, 0, "nothing stored")
    }

    /// Regression (tester finding tester25b F1), the exact expectations: response headers in
    /// MockServer's array form were emptied (a 302 with no `Location`), a `subString` body
    /// became `equal`, a JSON body matched but for its extra fields became exact equality, and
    /// a second `Set-Cookie` value was dropped, each with nothing said. The array form and
    /// `subString` are now translated; the others are named.
    func testMockServerBodiesAndResponseHeadersAreTranslatedOrNamed() throws {
        let login = try translated(
            #"{"httpRequest":{"method":"POST","path":"/login","body":{"type":"STRING","value":"{username: foo}"}},"#
                + #""httpResponse":{"statusCode":302,"headers":[{"name":"Location","values":["https://www.mock-server.com"]}]}}"#)
        XCTAssertTrue(login.reason.hasSuffix(#" Not carried over: the request body matcher. (README.md#coming-from-wiremock-or-mockserver)"#), login.reason)
        XCTAssertTrue(login.action.contains(#""response":{"headers":{"Location":"https://www.mock-server.com"},"status":302}"#), login.action)
        XCTAssertEqual(try client.json("POST", "/catbird/api/mocks", login.action).status, 201)
        let found = try client.request("POST", "/login")
        XCTAssertEqual(found.status, 302)
        XCTAssertEqual(found.header("Location"), "https://www.mock-server.com")

        let part = try translated(#"{"httpRequest":{"method":"POST","path":"/b","body":{"type":"STRING","string":"abc","subString":true}},"httpResponse":{"statusCode":200}}"#)
        XCTAssertFalse(part.reason.contains("Not carried over"), part.reason)
        XCTAssertTrue(part.action.contains(#""body":{"kind":"contains","value":"abc"}"#), part.action)
        XCTAssertEqual(try client.json("POST", "/catbird/api/mocks", part.action).status, 201)
        XCTAssertEqual(try client.request("POST", "/b", body: Array("xxabcxx".utf8)).status, 200)

        let json = try translated(#"{"httpRequest":{"method":"POST","path":"/j","body":{"type":"JSON","json":{"a":1}}},"httpResponse":{"statusCode":200}}"#)
        XCTAssertTrue(json.reason.contains(
            #"Not carried over: the JSON body's "matchType" ONLY_MATCHING_FIELDS (MockServer's default: a body with more fields matches "#
                + #"there; the json pattern matches the whole document)."#), json.reason)
        let strict = try translated(
            #"{"httpRequest":{"method":"POST","path":"/j","body":{"type":"JSON","json":{"a":1},"matchType":"STRICT"}},"httpResponse":{"statusCode":200}}"#)
        XCTAssertFalse(strict.reason.contains("Not carried over"), strict.reason)

        // A list field's second value under another spelling of its name, as docs/protocol.md
        // sends a field twice (tester46a-F9); a field a response holds once keeps one, named.
        let cookies = try translated(#"{"httpRequest":{"method":"GET","path":"/c"},"httpResponse":{"statusCode":200,"headers":{"Set-Cookie":["a=1","b=2"]}}}"#)
        XCTAssertFalse(cookies.reason.contains("Not carried over"), cookies.reason)
        XCTAssertTrue(cookies.action.contains(#""headers":{"Set-Cookie":"a=1","set-cookie":"b=2"}"#), cookies.action)
        XCTAssertEqual(try client.json("POST", "/catbird/api/mocks", cookies.action).status, 201)
        XCTAssertEqual(try client.request("GET", "/c").headers.filter { $0.name.lowercased() == "set-cookie" }.map(\.value).sorted(), ["a=1", "b=2"])
        let types = try translated(#"{"httpRequest":{"method":"GET","path":"/t"},"httpResponse":{"statusCode":200,"headers":{"Content-Type":["a/b","c/d"]}}}"#)
        XCTAssertTrue(types.reason.contains(
            #"Not carried over: the values of response header "Content-Type" after the first (a Catbird response header has one value; "#),
            types.reason)
    }

    /// Regression (tester finding tester25b F2), the exact stubs: `ignoreExtraElements`, a
    /// body `equalTo`'s `caseInsensitive` and a second `Set-Cookie` value were dropped with
    /// nothing said, and actions the server refuses were shown (a JSON path with a wildcard,
    /// a 204 with a body, status 700, `Content-Length` and `Transfer-Encoding` headers). The
    /// case-insensitive body is translated; the rest is named, and every action shown is taken.
    func testAWireMockStubNamesWhatItDropsAndShowsOnlyAnActionTheServerTakes() throws {
        let extra = try translated(
            #"{"request":{"method":"POST","urlPath":"/j","bodyPatterns":[{"equalToJson":"{\"a\":1}","ignoreExtraElements":true}]},"response":{"status":200}}"#)
        XCTAssertTrue(extra.reason.contains(
            #"Not carried over: "ignoreExtraElements" (the json pattern matches the whole document, extra fields not ignored)."#), extra.reason)

        let cookies = try translated(#"{"request":{"method":"GET","urlPath":"/c"},"response":{"status":200,"headers":{"Set-Cookie":["a=1","b=2","c=3"]}}}"#)
        XCTAssertFalse(cookies.reason.contains("Not carried over"), cookies.reason)
        XCTAssertTrue(cookies.action.contains(#""headers":{"SET-COOKIE":"a=1","Set-Cookie":"b=2","set-cookie":"c=3"}"#), cookies.action)
        // tester47a-F1, its stubs: the stub's own second spelling overwrote a value (`b=2` lost),
        // and the values went out in another order than the stub's.
        let spelled = try translated(
            #"{"httpRequest":{"method":"GET","path":"/c6"},"httpResponse":{"statusCode":200,"headers":[{"name":"Set-Cookie","values":["a=1","b=2"]},{"name":"set-cookie","values":["c=3"]}]}}"#)
        XCTAssertFalse(spelled.reason.contains("Not carried over"), spelled.reason)
        XCTAssertEqual(try client.json("POST", "/catbird/api/mocks", spelled.action).status, 201)
        XCTAssertEqual(try client.request("GET", "/c6").headers.filter { $0.name.lowercased() == "set-cookie" }.map(\.value), ["a=1", "b=2", "c=3"])
        let five = try translated(
            #"{"httpRequest":{"method":"GET","path":"/c2"},"httpResponse":{"statusCode":200,"headers":{"Set-Cookie":["v=1","v=2","v=3","v=4","v=5"]}}}"#)
        XCTAssertEqual(try client.json("POST", "/catbird/api/mocks", five.action).status, 201)
        XCTAssertEqual(try client.request("GET", "/c2").headers.filter { $0.name.lowercased() == "set-cookie" }.map(\.value),
                       ["v=1", "v=2", "v=3", "v=4", "v=5"], "in the stub's order")
        // A name of one letter has two spellings: the third value is named.
        let short = try translated(#"{"request":{"method":"GET","urlPath":"/c"},"response":{"status":200,"headers":{"X":["1","2","3"]}}}"#)
        XCTAssertTrue(short.reason.contains(#"Not carried over: the values of response header "X" after the first 2 ("#), short.reason)

        let anyCase = try translated(#"{"request":{"method":"POST","urlPath":"/h","bodyPatterns":[{"equalTo":"abc","caseInsensitive":true}]},"response":{"status":200}}"#)
        XCTAssertFalse(anyCase.reason.contains("Not carried over"), anyCase.reason)
        XCTAssertEqual(try client.json("POST", "/catbird/api/mocks", anyCase.action).status, 201)
        for (body, status) in [("abc", 200), ("ABC", 200), ("abcd", 404)] {
            XCTAssertEqual(try client.request("POST", "/h", body: Array(body.utf8)).status, status, body)
        }

        let refusedParts = [
            (#"{"request":{"method":"POST","urlPath":"/p","bodyPatterns":[{"matchesJsonPath":"$.items[*]"}]},"response":{"status":200}}"#,
             #"Not carried over: the request body matcher (refused by update: 'pattern.body.value' "$.items[*]" is not a SQLite JSON path"#),
            (#"{"request":{"method":"DELETE","urlPath":"/a"},"response":{"status":204,"body":"x"}}"#,
             #"Not carried over: the response body (refused by update: a 204 response has no body (RFC 9110)"#),
            (#"{"request":{"method":"GET","urlPath":"/s"},"response":{"status":700}}"#,
             #"Not carried over: the status 700 (refused by update: 'response.status' must be between 200 and 599, not 700); 200 is shown."#),
            (#"{"request":{"method":"GET","urlPath":"/l"},"response":{"status":200,"headers":{"Content-Length":"99","X-Kept":"1"}}}"#,
             #"Not carried over: the response header "Content-Length" (refused by update: "#),
            (#"{"request":{"method":"GET","urlPath":"/t"},"response":{"status":200,"headers":{"Transfer-Encoding":"chunked"}}}"#,
             #"Not carried over: the response header "Transfer-Encoding" (refused by update: "#),
        ]
        for (stub, note) in refusedParts {
            let refused = try translated(stub)
            XCTAssertTrue(refused.reason.contains(note), refused.reason)
            XCTAssertEqual(try client.json("POST", "/catbird/api/mocks", refused.action).status, 201, refused.action)
        }
        XCTAssertEqual(try client.request("GET", "/l").header("X-Kept"), "1")
    }

    /// Regression (tester finding tester25b-F3), the exact requests: a stub posted where WireMock
    /// takes it (`POST /__admin/mappings`) and an expectation put where MockServer does (`PUT
    /// /mockserver/expectation`) got the plain "no mock matched" 404. Still a 404 (app traffic,
    /// journaled), its reason now names the foreign control API and points to
    /// `POST /catbird/api/mocks`; a mock of such a path still answers it, and other 404s get no
    /// such clause.
    func testAStubSentToAnotherServersControlPathIsPointedToTheMocksAPI() throws {
        let wireMock = try client.json(
            "POST", "/__admin/mappings", #"{"request":{"method":"GET","url":"/a"},"response":{"status":200}}"#)
        E2E.assertError(wireMock, status: 404)
        let wireMockReason = wireMock.object["reason"] as? String ?? ""
        XCTAssertTrue(wireMockReason.hasPrefix("no mock matched POST /__admin/mappings in the default tenant"), wireMockReason)
        XCTAssertTrue(wireMockReason.contains(
            #"; "/__admin/mappings" is WireMock's admin API, which Catbird does not serve: add mocks with POST /catbird/api/mocks "#
                + "(a WireMock stub mapping or a MockServer expectation posted there is answered with the Catbird action for it)"),
            wireMockReason)

        let mockServer = try client.json(
            "PUT", "/mockserver/expectation", #"{"httpRequest":{"path":"/a"},"httpResponse":{"statusCode":200}}"#,
            headers: [("X-Catbird-Parallel-Id", "shard-1")])
        E2E.assertError(mockServer, status: 404)
        let mockServerReason = mockServer.object["reason"] as? String ?? ""
        XCTAssertTrue(mockServerReason.contains(
            #"; "/mockserver/expectation" is MockServer's control API, which Catbird does not serve: add mocks with POST /catbird/api/mocks"#),
            mockServerReason)
        // The path is named without its query.
        let requests = try client.request("GET", "/__admin/requests?limit=5")
        XCTAssertTrue((requests.object["reason"] as? String ?? "").contains(#""/__admin/requests" is WireMock's admin API"#), requests.text)
        // tester52b-F2: a count moved from WireMock was pointed to the listing only.
        let count = try client.json("POST", "/__admin/requests/count", #"{"method":"GET","url":"/x"}"#)
        XCTAssertTrue((count.object["reason"] as? String ?? "").contains(
            "count and find it by request pattern with POST /catbird/api/requests/count and /find, its near misses with GET "
                + "/catbird/api/requests/unmatched"), count.text)
        for other in ["/__adminx", "/api/__admin/mappings", "/mockservers"] {
            let reason = try client.request("GET", other).object["reason"] as? String ?? ""
            XCTAssertFalse(reason.contains("Catbird does not serve"), "\(other): \(reason)")
        }
        // Both were journaled as the app's unmatched requests.
        let journaled = try client.json(
            "POST", "/catbird/api/requests/count",
            #"{"pattern":{"method":"POST","url":{"kind":"equal","value":"/__admin/mappings"},"headers":{}}}"#)
        XCTAssertEqual(journaled.object["count"] as? Int, 1, journaled.text)
        // A mock of such a path answers it as any other.
        let update = #"{"type":"update","pattern":{"method":"POST","url":{"kind":"equal","value":"/__admin/mappings"},"headers":{}},"#
            + #""response":{"status":201,"headers":{},"body":"b2s="}}"#
        XCTAssertEqual(try client.json("POST", "/catbird/api/mocks", update).status, 201)
        let answered = try client.json("POST", "/__admin/mappings", "{}")
        XCTAssertEqual(answered.status, 201)
        XCTAssertEqual(answered.text, "ok")
    }
}
