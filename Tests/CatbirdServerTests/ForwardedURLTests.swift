import CatbirdServer
import CatbirdTestSupport
import Foundation
import XCTest

/// What of a request-target is forwarded, and recorded (docs/files.md#redirect-and-proxy):
/// neither the user information of a proxied URL nor a fragment. Tester finding T12-F8.
final class ForwardedURLTests: UpstreamTestCase {
    /// The `authorization` fields the echoing upstream received.
    private func authorizations(_ answer: RawResponse) -> [String] {
        (answer.object["headers"] as? [[String]] ?? []).filter { $0.first?.lowercased() == "authorization" }.compactMap { $0.last }
    }

    /// The tester's request: `GET http://user:pw@127.0.0.1:<port>/ui` through `--proxy`. libcurl
    /// made `Authorization: Basic dXNlcjpwdw==` of the user information, a field the client
    /// never sent. The user information is dropped; an `Authorization` the client sent goes as sent.
    func testUserInformationInAProxiedURLIsNotSentAsAuthorization() throws {
        let server = try TestServer { $0.proxyEnabled = true }
        let client = try server.client()
        let origin = "127.0.0.1:\(upstream.port)"
        let answer = try client.request("GET", "http://user:pw@\(origin)/ui", headers: [("Host", origin)])
        XCTAssertEqual(answer.status, 200, answer.text)
        XCTAssertEqual(answer.object["path"] as? String, "/ui")
        XCTAssertEqual(authorizations(answer), [], "\(answer.object["headers"] ?? [])")
        let sent = try client.request("GET", "http://user:pw@\(origin)/ui", headers: [("Host", origin), ("Authorization", "Bearer app")])
        XCTAssertEqual(authorizations(sent), ["Bearer app"])
        // A user alone, and no path; an `@` in the path is the path's.
        let userOnly = try client.request("GET", "http://user@\(origin)", headers: [("Host", origin)])
        XCTAssertEqual(userOnly.object["path"] as? String, "/")
        XCTAssertEqual(authorizations(userOnly), [])
        let atInPath = try client.request("GET", "http://\(origin)/a@b/ui", headers: [("Host", origin)])
        XCTAssertEqual(atInPath.object["path"] as? String, "/a@b/ui")
        let journal = try E2E.journal(client, tenant: nil)
        XCTAssertEqual(journal.first?["url"] as? String, "http://user:pw@\(origin)/ui", "journaled as received")
    }

    /// The tester's related oddity: a target `/hash#frag` was forwarded as `/hash` (libcurl
    /// drops a fragment) but recorded as the file `hash#frag`, which a replayed `/hash` never
    /// finds. The fragment is part of neither: recorded as `hash`, replayed for `/hash` (and
    /// for `/hash#frag`).
    func testAFragmentIsNeitherForwardedNorPartOfTheRecordedName() throws {
        let mocks = FileManager.default.temporaryDirectory.appendingPathComponent("catbird-fragment-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: mocks) }
        let recorder = try TestServer { settings in
            settings.redirectURL = self.upstream.baseURL
            settings.recordMode = true
            settings.mocksDirectory = mocks.path
        }
        let client = try recorder.client()
        let answer = try client.request("GET", "/echo/hash#frag")
        XCTAssertEqual(answer.status, 200, answer.text)
        XCTAssertEqual(answer.object["path"] as? String, "/echo/hash")
        let root = mocks.resolvingSymlinksInPath().path
        XCTAssertEqual(try E2E.journal(client, tenant: nil).first?["filePath"] as? String, root + "/echo/hash")
        XCTAssertEqual(
            Set(try FileManager.default.contentsOfDirectory(atPath: mocks.appendingPathComponent("echo").path)),
            ["hash", "hash.catbird-response.json"])
        recorder.stop()
        upstream.stop()

        let replayer = try TestServer { $0.mocksDirectory = mocks.path }
        let replay = try replayer.client()
        for target in ["/echo/hash", "/echo/hash#frag"] {
            let replayed = try replay.request("GET", target)
            XCTAssertEqual(replayed.status, 200, "\(target): \(replayed.text)")
            XCTAssertEqual(replayed.object["path"] as? String, "/echo/hash")
        }
    }
}
