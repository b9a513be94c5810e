import CatbirdServer
import CatbirdTestSupport
import Foundation
import XCTest

/// `--cors`: preflights answered, CORS headers on mocked, file and forwarded answers.
final class CORSTests: XCTestCase {
    func testPreflightAndHeadersOnMockFileAndForwardedAnswers() throws {
        let upstream = try Upstream()
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("catbird-cors-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        try Data("{}".utf8).write(to: directory.appendingPathComponent("file.json"))
        let server = try TestServer { settings in
            settings.cors = true
            settings.mocksDirectory = directory.path
            settings.redirectURL = upstream.baseURL
        }
        let client = try server.client()
        try E2E.addMock(client, url: "/mocked", body: "m")
        let origin = ("Origin", "http://app.test:3000")
        let preflight = try client.request("OPTIONS", "/mocked", headers: [
            origin, ("Access-Control-Request-Method", "PUT"), ("Access-Control-Request-Headers", "content-type, x-token"),
        ])
        XCTAssertEqual(preflight.status, 204)
        XCTAssertEqual(preflight.header("Access-Control-Allow-Origin"), "http://app.test:3000")
        XCTAssertEqual(preflight.header("Access-Control-Allow-Methods"), "PUT")
        XCTAssertEqual(preflight.header("Access-Control-Allow-Headers"), "content-type, x-token")
        XCTAssertEqual(preflight.header("Access-Control-Allow-Credentials"), "true")
        for path in ["/mocked", "/file.json", "/echo/forwarded", "/missing-goes-upstream"] {
            let answer = try client.request("GET", path, headers: [origin])
            XCTAssertEqual(answer.status, 200, path)
            XCTAssertEqual(answer.header("Access-Control-Allow-Origin"), "http://app.test:3000", path)
            XCTAssertEqual(answer.header("Vary"), "Origin", path)
        }
        XCTAssertNil(try client.request("GET", "/mocked").header("Access-Control-Allow-Origin"), "no Origin, no CORS fields")
        let plain = try TestServer()
        let notEnabled = try plain.client().request("OPTIONS", "/mocked", headers: [origin, ("Access-Control-Request-Method", "PUT")])
        XCTAssertEqual(notEnabled.status, 404, "without --cors a preflight is an ordinary request")
    }
}
