import CatbirdServer
import CatbirdTestSupport
import Foundation
import XCTest

/// `--cors`: preflights answered, CORS headers on mocked, file and forwarded answers, and on the
/// control routes (docs/files.md#cors).
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

    /// A browser suite on another origin must set its mocks: the exact report was
    /// `OPTIONS /catbird/api/mocks` with `Origin: http://app.test` and
    /// `Access-Control-Request-Method: POST` answered 405 under `--cors`.
    func testTheControlRoutesAnswerPreflightsAndCarryTheHeaders() throws {
        let server = try TestServer { $0.cors = true }
        defer { server.removeFiles() }
        let client = try server.client()
        let origin = ("Origin", "http://app.test")
        let preflight = try client.request("OPTIONS", "/catbird/api/mocks", headers: [
            origin, ("Access-Control-Request-Method", "POST"), ("Access-Control-Request-Headers", "content-type, x-catbird-parallel-id"),
        ])
        XCTAssertEqual(preflight.status, 204, preflight.text)
        XCTAssertEqual(preflight.header("Access-Control-Allow-Origin"), "http://app.test")
        XCTAssertEqual(preflight.header("Access-Control-Allow-Methods"), "POST")
        XCTAssertEqual(preflight.header("Access-Control-Allow-Headers"), "content-type, x-catbird-parallel-id")

        let shard = ("X-Catbird-Parallel-Id", "browser-1")
        let added = try client.json("POST", "/catbird/api/mocks", E2E.updateAction(url: "/cors-mocked", body: Array("m".utf8)), headers: [origin, shard])
        XCTAssertEqual(added.status, 201, added.text)
        XCTAssertEqual(added.header("Access-Control-Allow-Origin"), "http://app.test")
        XCTAssertEqual(added.header("Access-Control-Allow-Credentials"), "true")
        XCTAssertEqual(added.header("Vary"), "Origin")
        XCTAssertEqual(try client.request("GET", "/cors-mocked", headers: [shard]).text, "m")
        // Answers that come later (run on a control pool) and errors carry them too.
        let count = try client.json("POST", "/catbird/api/requests/count", #"{"pattern":{"method":"GET","url":{"kind":"equal","value":"/cors-mocked"}}}"#, headers: [origin, shard])
        XCTAssertEqual(JSONNumber.int(count.object["count"]), 1, count.text)
        XCTAssertEqual(count.header("Access-Control-Allow-Origin"), "http://app.test")
        let listed = try client.request("GET", "/catbird/api/requests", headers: [origin, shard])
        XCTAssertEqual(listed.header("Access-Control-Allow-Origin"), "http://app.test")
        XCTAssertTrue(listed.header("Access-Control-Expose-Headers")?.contains("Content-Type") == true, "\(listed.headers)")
        let refused = try client.json("POST", "/catbird/api/mocks", "{", headers: [origin])
        XCTAssertEqual(refused.status, 400)
        XCTAssertEqual(refused.header("Access-Control-Allow-Origin"), "http://app.test")
        XCTAssertEqual(try E2E.journal(client, tenant: "browser-1").count, 1, "control requests and their preflights are not journaled")
        XCTAssertEqual(try E2E.journal(client, tenant: nil).count, 0, "the preflight without a parallel id is not journaled either")

        let plain = try TestServer()
        defer { plain.removeFiles() }
        let notEnabled = try plain.client().request("OPTIONS", "/catbird/api/mocks", headers: [origin, ("Access-Control-Request-Method", "POST")])
        XCTAssertEqual(notEnabled.status, 405, "without --cors the control routes answer no preflight")
        XCTAssertNil(try plain.client().request("GET", "/catbird/api/mocks", headers: [origin]).header("Access-Control-Allow-Origin"))
    }

    /// Refusals made before a route runs carried no CORS fields, so a browser saw them as
    /// network errors: a control upload over `--max-body-size` (413) and a parallel id that is
    /// not UTF-8 (400), control route or not.
    func testRefusalsCarryTheHeadersToo() throws {
        let server = try TestServer { settings in
            settings.cors = true
            settings.maxBodySize = 64
        }
        defer { server.removeFiles() }
        let origin = ("Origin", "http://app.test")
        for path in ["/catbird/api/mocks", "/upload"] {
            let tooLarge = try server.client().request("POST", path, headers: [origin], body: Array(repeating: UInt8(ascii: "x"), count: 1000))
            XCTAssertEqual(tooLarge.status, 413, path)
            XCTAssertEqual(tooLarge.header("Access-Control-Allow-Origin"), "http://app.test", path)
            XCTAssertEqual(tooLarge.header("Vary"), "Origin", path)

            let raw = try server.client()
            try raw.send(raw: Array("GET \(path) HTTP/1.1\r\nHost: x\r\nOrigin: http://app.test\r\nX-Catbird-Parallel-Id: a".utf8) + [0xFF] + Array("\r\n\r\n".utf8))
            let notUTF8 = try raw.readResponse()
            XCTAssertEqual(notUTF8.status, 400, path)
            XCTAssertEqual(notUTF8.header("Access-Control-Allow-Origin"), "http://app.test", path)
        }
    }
}
