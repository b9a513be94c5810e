import CatbirdAPI
import CatbirdTestSupport
import Foundation
import XCTest

/// The client puts the same requests on the wire as the Catbird 0.11 client, as captured in
/// `Tests/Fixtures/catbird-client-0.11/`.
final class FixtureWireTests: CatbirdTestCase {
    /// Every `.http` file has its case in cases.json and the other way round: 21 of them.
    func testEveryFixtureFileHasACase() throws {
        let files = try Fixtures.httpFiles()
        let caseFiles = try Fixtures.cases().compactMap { $0["file"] as? String }
        XCTAssertEqual(files.count, 21)
        XCTAssertEqual(Set(files), Set(caseFiles))
        XCTAssertEqual(caseFiles.count, Set(caseFiles).count, "a file listed twice")
    }

    /// Each fixture body decodes into the action cases.json describes (checked field by field
    /// against the summary, body by length and SHA-256).
    func testEveryFixtureDecodesToItsCasesAction() throws {
        for fixtureCase in try Fixtures.cases() {
            let file = try XCTUnwrap(fixtureCase["file"] as? String)
            let expected = try XCTUnwrap(fixtureCase["action"] as? [String: Any], file)
            let action = try JSONDecoder().decode(CatbirdAction.self, from: try Fixtures.request(named: file).body)
            try assert(action, matches: expected, file)
        }
    }

    /// Sending each fixture's action through the client produces the fixture's request: method
    /// POST, target /catbird/api/mocks, Content-Type application/json, X-Catbird-Parallel-Id
    /// exactly when the case has a parallel id, Content-Length of the body, and a body that is
    /// the same JSON (key order ignored).
    func testSendingEveryFixtureActionPutsTheFixtureRequestOnTheWire() throws {
        let capture = try CaptureServer()
        defer { capture.stop() }
        let cases = try Fixtures.cases()
        for fixtureCase in cases {
            let file = try XCTUnwrap(fixtureCase["file"] as? String)
            let parallelId = fixtureCase["parallelId"] as? String
            let fixture = try Fixtures.request(named: file)
            let action = try JSONDecoder().decode(CatbirdAction.self, from: fixture.body)

            try Catbird(url: capture.url, parallelId: parallelId).send(action)

            let sent = try XCTUnwrap(capture.requests.last, file)
            XCTAssertEqual("\(sent.method) \(sent.target) HTTP/1.1", fixture.requestLine, file)
            XCTAssertEqual(sent.method, "POST", file)
            XCTAssertEqual(sent.target, "/catbird/api/mocks", file)
            XCTAssertEqual(sent.header("Content-Type"), "application/json", file)
            XCTAssertEqual(sent.count(of: "Content-Type"), 1, file)
            XCTAssertEqual(sent.header("X-Catbird-Parallel-Id"), parallelId, file)
            XCTAssertEqual(sent.header("X-Catbird-Parallel-Id"), fixture.header("X-Catbird-Parallel-Id"), file)
            XCTAssertEqual(sent.header("Content-Length"), String(sent.body.count), file)
            let fromClient = try XCTUnwrap((fixtureCase["request"] as? [String: Any])?["headersFromClient"] as? [String: String])
            for (name, value) in fromClient { XCTAssertEqual(sent.header(name), value, "\(file): \(name)") }
            XCTAssertEqual(try canonicalJSON(sent.body), try canonicalJSON(fixture.body), file)
        }
        XCTAssertEqual(capture.requests.count, cases.count)
    }

    /// The real server accepts every fixture action sent through the client, and lists the
    /// result for the right tenant: an update's mock as sent, a removed pattern gone, nothing
    /// after removeAll.
    func testEveryFixtureActionIsAppliedByTheServer() throws {
        let server = try TestServer()
        defer { server.removeFiles() }
        for fixtureCase in try Fixtures.cases() {
            let file = try XCTUnwrap(fixtureCase["file"] as? String)
            let catbird = server.catbird(fixtureCase["parallelId"] as? String)
            let action = try JSONDecoder().decode(CatbirdAction.self, from: try Fixtures.request(named: file).body)
            try catbird.send(action)
            let mocks = try catbird.mocks()
            switch action {
            case let .update(pattern, response):
                let listed = mocks.first { $0.pattern == pattern }
                XCTAssertEqual(listed?.response, response, file)
                XCTAssertEqual(listed?.remainingLimit, response.limit, file)
            case let .remove(pattern):
                XCTAssertFalse(mocks.contains { $0.pattern == pattern }, file)
            case .removeAll:
                XCTAssertEqual(mocks, [], file)
            }
        }
    }

    /// The README's `LoginMock`, built in Swift, encodes as the k1, k2 and k6 captures (its
    /// bodies come from JSONSerialization, so they are compared as JSON too).
    func testReadmeLoginMockEncodesAsItsFixtures() throws {
        let expectations: [(CatbirdAction, String)] = [
            (.add(LoginMock.success), "k1-update-readme-login-success.http"),
            (.add(LoginMock.blockedUserError), "k2-update-readme-login-blocked-user-error.http"),
            (.remove(LoginMock.success), "k6-remove-readme-login.http"),
        ]
        for (action, file) in expectations {
            let encoded = try JSONEncoder().encode(action)
            XCTAssertEqual(try canonicalActionJSON(encoded), try canonicalActionJSON(try Fixtures.request(named: file).body), file)
        }
        // The bodies come from JSONSerialization, whose key order may differ between two
        // evaluations of `response`: compare them as JSON.
        guard case let .update(pattern, response) = CatbirdAction.add(LoginMock.blockedUserError) else {
            return XCTFail("add is not an update")
        }
        XCTAssertEqual(pattern, LoginMock.blockedUserError.pattern)
        XCTAssertEqual(response.status, 400)
        XCTAssertEqual(response.headers, LoginMock.blockedUserError.response.headers)
        XCTAssertEqual(
            try canonicalJSON(try XCTUnwrap(response.body)), try canonicalJSON(try XCTUnwrap(LoginMock.blockedUserError.response.body)))
        XCTAssertEqual(CatbirdAction.remove(LoginMock.success), .remove(LoginMock.success.pattern))
    }

    /// Values built in Swift from cases.json's actions (all but the two whose bodies are only
    /// summarised as a hash) encode as their fixtures.
    func testActionsBuiltInSwiftEncodeAsTheirFixtures() throws {
        var built = 0
        for fixtureCase in try Fixtures.cases() {
            let file = try XCTUnwrap(fixtureCase["file"] as? String)
            let description = try XCTUnwrap(fixtureCase["action"] as? [String: Any])
            guard let action = try Self.action(from: description) else { continue }
            let encoded = try JSONEncoder().encode(action)
            XCTAssertEqual(try canonicalJSON(encoded), try canonicalJSON(try Fixtures.request(named: file).body), file)
            built += 1
        }
        XCTAssertGreaterThanOrEqual(built, 19)
    }

    /// The wire details of the 0.11 encoder: `headers` always present, `body` base64 and left
    /// out when nil, `limit` and `delay` left out when nil, `method` a plain string.
    func testWireDetails() throws {
        let minimal = CatbirdAction.update(RequestPattern(method: .GET, url: "/about"), ResponseMock())
        let object = try XCTUnwrap(try JSONSerialization.jsonObject(with: try JSONEncoder().encode(minimal)) as? [String: Any])
        XCTAssertEqual(object["type"] as? String, "update")
        let pattern = try XCTUnwrap(object["pattern"] as? [String: Any])
        XCTAssertEqual(pattern["method"] as? String, "GET")
        XCTAssertEqual((pattern["headers"] as? [String: Any])?.count, 0, "pattern.headers must be present and empty")
        let response = try XCTUnwrap(object["response"] as? [String: Any])
        XCTAssertEqual(Set(response.keys), ["status", "headers"])
        XCTAssertEqual((response["headers"] as? [String: Any])?.count, 0, "response.headers must be present and empty")

        let full = ResponseMock(status: 201, headers: ["A": "b"], body: Data([0, 255, 1]), limit: 2, delay: 3)
        let fullObject = try XCTUnwrap(try JSONSerialization.jsonObject(with: try JSONEncoder().encode(full)) as? [String: Any])
        XCTAssertEqual(fullObject["body"] as? String, "AP8B")
        XCTAssertEqual(JSONNumber.int(fullObject["limit"]), 2)
        XCTAssertEqual(JSONNumber.int(fullObject["delay"]), 3)
        XCTAssertEqual(try JSONDecoder().decode(ResponseMock.self, from: try JSONEncoder().encode(full)), full)
        XCTAssertEqual(String(decoding: try JSONEncoder().encode(CatbirdAction.removeAll), as: UTF8.self), #"{"type":"removeAll"}"#)
    }

    // MARK: - Helpers

    /// Checks a decoded action against cases.json's description of it.
    private func assert(_ action: CatbirdAction, matches expected: [String: Any], _ file: String) throws {
        let type = try XCTUnwrap(expected["type"] as? String, file)
        switch action {
        case let .update(pattern, response):
            XCTAssertEqual(type, "update", file)
            try assert(pattern, matches: try XCTUnwrap(expected["pattern"] as? [String: Any], file), file)
            let expectedResponse = try XCTUnwrap(expected["response"] as? [String: Any], file)
            XCTAssertEqual(response.status, JSONNumber.int(expectedResponse["status"]), file)
            XCTAssertEqual(response.headers, expectedResponse["headers"] as? [String: String], file)
            XCTAssertEqual(response.limit, JSONNumber.int(expectedResponse["limit"]), file)
            XCTAssertEqual(response.delay, JSONNumber.int(expectedResponse["delay"]), file)
            if let body = expectedResponse["body"] as? [String: Any] {
                let bytes = try XCTUnwrap(response.body, file)
                XCTAssertEqual(bytes.count, JSONNumber.int(body["length"]), file)
                XCTAssertEqual(SHA256.hex(bytes), body["sha256"] as? String, file)
                if let utf8 = body["utf8"] as? String { XCTAssertEqual(String(data: bytes, encoding: .utf8), utf8, file) }
            } else {
                XCTAssertNil(response.body, file)
            }
        case let .remove(pattern):
            XCTAssertEqual(type, "remove", file)
            try assert(pattern, matches: try XCTUnwrap(expected["pattern"] as? [String: Any], file), file)
        case .removeAll:
            XCTAssertEqual(type, "removeAll", file)
        }
    }

    private func assert(_ pattern: RequestPattern, matches expected: [String: Any], _ file: String) throws {
        XCTAssertEqual(pattern.method.rawValue, expected["method"] as? String, file)
        XCTAssertEqual(pattern.url, try Self.patternMatch(from: expected["url"]), file)
        let headers = try XCTUnwrap(expected["headers"] as? [String: Any], file)
        XCTAssertEqual(pattern.headers, try headers.mapValues(Self.patternMatch(from:)), file)
    }

    private static func patternMatch(from value: Any?) throws -> PatternMatch {
        let object = try XCTUnwrap(value as? [String: String])
        let kind = try XCTUnwrap(PatternMatch.Kind(rawValue: try XCTUnwrap(object["kind"])))
        return PatternMatch(kind: kind, value: try XCTUnwrap(object["value"]))
    }

    /// The action cases.json describes, built with the public API; nil when its body is
    /// given only as a hash (no `utf8`), except the 256-byte 0x00…0xFF body, which is rebuilt.
    private static func action(from description: [String: Any]) throws -> CatbirdAction? {
        func pattern() throws -> RequestPattern {
            let object = try XCTUnwrap(description["pattern"] as? [String: Any])
            let headers = try XCTUnwrap(object["headers"] as? [String: Any]).mapValues { try patternMatch(from: $0) }
            return RequestPattern(
                method: RequestPattern.HTTPMethod(rawValue: try XCTUnwrap(object["method"] as? String)),
                url: try patternMatch(from: object["url"]), headers: headers)
        }
        switch try XCTUnwrap(description["type"] as? String) {
        case "removeAll":
            return .removeAll
        case "remove":
            return .remove(try pattern())
        default:
            let object = try XCTUnwrap(description["response"] as? [String: Any])
            var body: Data?
            if let summary = object["body"] as? [String: Any] {
                if let utf8 = summary["utf8"] as? String {
                    body = Data(utf8.utf8)
                } else if JSONNumber.int(summary["length"]) == 256 {
                    body = Data((0...255).map(UInt8.init))
                } else {
                    return nil
                }
                XCTAssertEqual(SHA256.hex(try XCTUnwrap(body)), summary["sha256"] as? String)
            }
            let response = ResponseMock(
                status: try XCTUnwrap(JSONNumber.int(object["status"])), headers: try XCTUnwrap(object["headers"] as? [String: String]),
                body: body, limit: JSONNumber.int(object["limit"]), delay: JSONNumber.int(object["delay"]))
            return .update(try pattern(), response)
        }
    }
}
