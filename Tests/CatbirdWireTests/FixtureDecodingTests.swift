@_spi(Server) import CatbirdWire
import Foundation
import CatbirdTestSupport
import XCTest

/// Decodes the body of every real Catbird 0.11 client capture and compares it field by field with
/// `cases.json`'s `action` (docs/protocol.md#control-actions; fixtures README).
final class FixtureDecodingTests: XCTestCase {
    func testEveryHTTPFileIsACase() throws {
        let files = try Fixtures.httpFiles()
        let listed = try Fixtures.cases().compactMap { $0["file"] as? String }.sorted()
        XCTAssertGreaterThanOrEqual(files.count, 21, "fixtures folder: \(Fixtures.directory.path)")
        XCTAssertEqual(files, listed)
    }

    func testEveryFixtureBodyDecodesToTheActionInCasesJSON() throws {
        let cases = try Fixtures.cases()
        XCTAssertGreaterThanOrEqual(cases.count, 21)
        for testCase in cases {
            let id = testCase["id"] as? String ?? "?"
            let file = try XCTUnwrap(testCase["file"] as? String, id)
            let request = try Fixtures.request(named: file)
            XCTAssertEqual(request.requestLine, "POST /catbird/api/mocks HTTP/1.1", id)
            XCTAssertEqual(request.header("Content-Length"), String(request.body.count), id)

            let action: CatbirdAction
            do {
                action = try JSONDecoder().decode(CatbirdAction.self, from: request.body)
            } catch {
                XCTFail("case \(id): \((error as? DecodingError)?.readableReason ?? "\(error)")")
                continue
            }
            let expected = try XCTUnwrap(testCase["action"] as? [String: Any], id)
            try check(action, against: expected, case: id)

            // Encoding and decoding again gives the same value.
            let again = try JSONDecoder().decode(CatbirdAction.self, from: JSONEncoder().encode(action))
            XCTAssertEqual(again, action, id)
        }
    }

    func testBinaryBodyIsBytes0Through255() throws {
        let request = try Fixtures.request(named: "d-update-binary-body-256-bytes.http")
        guard case let .update(_, response) = try JSONDecoder().decode(CatbirdAction.self, from: request.body) else {
            return XCTFail("case d is not an update")
        }
        XCTAssertEqual(response.body, Data(0...255))
    }

    func testEscapedStringsAreDecoded() throws {
        let request = try Fixtures.request(named: "l-update-json-string-escapes.http")
        guard case let .update(pattern, response) = try JSONDecoder().decode(CatbirdAction.self, from: request.body) else {
            return XCTFail("case l is not an update")
        }
        XCTAssertEqual(pattern.headers["X-Quote"], .equal("say \"hi\" \\ end"))
        XCTAssertEqual(pattern.headers["X-Animal"], .regexp("кот|cat"))
        XCTAssertEqual(response.headers["X-Note"], "tab\there")
        XCTAssertEqual(response.body.map { String(decoding: $0, as: UTF8.self) }, "Привет, мир\n")
    }

    func testSHA256Helper() {
        XCTAssertEqual(SHA256.hex([UInt8]()), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
        XCTAssertEqual(SHA256.hex(Array("abc".utf8)), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
    }

    // MARK: comparison with cases.json

    private func check(_ action: CatbirdAction, against expected: [String: Any], case id: String) throws {
        let type = expected["type"] as? String
        switch action {
        case let .update(pattern, response):
            XCTAssertEqual(type, "update", id)
            try check(pattern, against: XCTUnwrap(expected["pattern"] as? [String: Any], id), case: id)
            try check(response, against: XCTUnwrap(expected["response"] as? [String: Any], id), case: id)
        case let .remove(pattern):
            XCTAssertEqual(type, "remove", id)
            try check(pattern, against: XCTUnwrap(expected["pattern"] as? [String: Any], id), case: id)
            XCTAssertNil(expected["response"], id)
        case .removeAll:
            XCTAssertEqual(type, "removeAll", id)
        }
    }

    private func check(_ pattern: RequestPattern, against expected: [String: Any], case id: String) throws {
        XCTAssertEqual(pattern.method.rawValue, expected["method"] as? String, id)
        XCTAssertEqual(pattern.url, try patternMatch(expected["url"], id), id)
        let headers = try XCTUnwrap(expected["headers"] as? [String: Any], id)
        XCTAssertEqual(Set(pattern.headers.keys), Set(headers.keys), id)
        for (name, value) in headers {
            XCTAssertEqual(pattern.headers[name], try patternMatch(value, id), "\(id) header \(name)")
        }
    }

    private func patternMatch(_ value: Any?, _ id: String) throws -> PatternMatch {
        let object = try XCTUnwrap(value as? [String: Any], id)
        let kind = try XCTUnwrap(PatternMatch.Kind(rawValue: XCTUnwrap(object["kind"] as? String, id)), id)
        return PatternMatch(kind: kind, value: try XCTUnwrap(object["value"] as? String, id))
    }

    private func check(_ response: ResponseMock, against expected: [String: Any], case id: String) throws {
        XCTAssertEqual(response.status, expected["status"] as? Int, id)
        XCTAssertEqual(response.headers, expected["headers"] as? [String: String], id)
        XCTAssertEqual(response.limit, expected["limit"] as? Int, "\(id) limit")
        XCTAssertEqual(response.delay, expected["delay"] as? Int, "\(id) delay")
        guard let body = expected["body"] as? [String: Any] else {
            XCTAssertNil(response.body, "\(id) body")
            return
        }
        let bytes = try XCTUnwrap(response.body, "\(id) body")
        XCTAssertEqual(bytes.count, body["length"] as? Int, "\(id) body length")
        XCTAssertEqual(SHA256.hex(bytes), body["sha256"] as? String, "\(id) body sha256")
        if let text = body["utf8"] as? String {
            XCTAssertEqual(String(decoding: bytes, as: UTF8.self), text, "\(id) body utf8")
        }
    }
}
