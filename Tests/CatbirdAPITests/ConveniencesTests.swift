import CatbirdAPI
import CatbirdTestSupport
import Foundation
import XCTest

/// `ResponseMock.json(…)` and `ResponseMock(contentsOf:…)`.
final class ConveniencesTests: CatbirdTestCase {
    private struct Feed: Codable, Equatable {
        var posts: [String]
    }

    func testJSONResponse() throws {
        let mock = try ResponseMock.json(Feed(posts: ["a/b", "c"]), status: 201, headers: ["X-Trace": "1"])
        XCTAssertEqual(mock.status, 201)
        XCTAssertEqual(mock.headers, ["Content-Type": "application/json", "X-Trace": "1"])
        XCTAssertEqual(try JSONDecoder().decode(Feed.self, from: try XCTUnwrap(mock.body)), Feed(posts: ["a/b", "c"]))
        XCTAssertNil(mock.limit)
        XCTAssertNil(mock.delay)

        let defaults = try ResponseMock.json(["ok": true])
        XCTAssertEqual(defaults.status, 200)
        XCTAssertEqual(defaults.headers, ["Content-Type": "application/json"])

        let custom = try ResponseMock.json([1, 2], headers: ["content-type": "application/vnd.api+json"])
        XCTAssertEqual(custom.headers, ["content-type": "application/vnd.api+json"], "a given Content-Type wins")

        XCTAssertThrowsError(try ResponseMock.json([Double.nan])) { XCTAssertTrue($0 is EncodingError, "\($0)") }
    }

    /// A json() mock served by a real server.
    func testJSONResponseIsServed() throws {
        let server = try TestServer()
        defer { server.removeFiles() }
        let mock = try ResponseMock.json(Feed(posts: ["x"]))
        try server.catbird().send(.update(RequestPattern(method: .GET, url: "/api/feed"), mock))
        let answer = try server.appRequest("GET", "/api/feed")
        XCTAssertEqual(answer.status, 200)
        XCTAssertEqual(answer.header("Content-Type"), "application/json")
        XCTAssertEqual(try JSONDecoder().decode(Feed.self, from: Data(answer.body)), Feed(posts: ["x"]))
    }

    func testContentsOfFile() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("catbird-api-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }

        let json = directory.appendingPathComponent("feed.JSON")
        try Data(#"{"posts":[]}"#.utf8).write(to: json)
        let jsonMock = try ResponseMock(contentsOf: json)
        XCTAssertEqual(jsonMock, ResponseMock(status: 200, headers: ["Content-Type": "application/json"], body: Data(#"{"posts":[]}"#.utf8)))

        let binary = directory.appendingPathComponent("avatar.png")
        try Data([0x89, 0x50, 0x4E, 0x47]).write(to: binary)
        let binaryMock = try ResponseMock(contentsOf: binary, status: 203, headers: ["X-A": "b"])
        XCTAssertEqual(binaryMock.status, 203)
        XCTAssertEqual(binaryMock.headers, ["Content-Type": "application/octet-stream", "X-A": "b"])
        XCTAssertEqual(binaryMock.body, Data([0x89, 0x50, 0x4E, 0x47]))

        let typed = try ResponseMock(contentsOf: binary, headers: ["CONTENT-TYPE": "image/png"])
        XCTAssertEqual(typed.headers, ["CONTENT-TYPE": "image/png"], "a given Content-Type wins")

        let empty = directory.appendingPathComponent("empty.json")
        try Data().write(to: empty)
        XCTAssertEqual(try ResponseMock(contentsOf: empty).body, Data())

        XCTAssertThrowsError(try ResponseMock(contentsOf: directory.appendingPathComponent("missing.json")))
    }
}
