import CatbirdServer
import CatbirdTestSupport
import Foundation
import XCTest

/// With `--files-with-query`, the names a query (and an `Accept` extension after it) make are
/// confined like a path's (`docs/files.md#confinement`, `#sidecar`), in replay and recording.
final class RecordQueryNameTests: RecordingTestCase {
    private func server(recording: Bool, query: Bool) throws -> TestServer {
        try TestServer { settings in
            if recording {
                settings.redirectURL = self.upstream.baseURL
                settings.recordMode = true
            }
            settings.mocksDirectory = self.mocksDirectory.path
            settings.filesIncludeQuery = query
        }
    }

    private func contents(_ name: String) -> String? {
        FileManager.default.contents(atPath: mocksDirectory.appendingPathComponent(name).path).map { String(decoding: $0, as: UTF8.self) }
    }

    /// Tester finding T15B-F4, the exact inputs: `/foo?x=` recorded, then
    /// `/foo?x=.catbird-response` with `Accept: application/json` was recorded to
    /// `foo?x=.catbird-response.json`, over `/foo?x=`'s sidecar (its replay then a 500), and
    /// replay served that sidecar's JSON as the body. Now that request maps to the bare
    /// `foo?x=.catbird-response` in both, and the sidecar stays as recorded.
    func testAnAcceptExtensionAfterTheQueryNeverNamesASidecar() throws {
        let recorder = try server(recording: true, query: true)
        let client = try recorder.client()
        let json = [("Accept", "application/json")]
        let kept = try client.request("GET", "/foo?x=")
        XCTAssertEqual(kept.status, 200)
        let sidecar = try XCTUnwrap(contents("foo?x=.catbird-response.json"))
        let forged = try client.request("GET", "/foo?x=.catbird-response", headers: json)
        XCTAssertEqual(forged.status, 200)
        XCTAssertEqual(contents("foo?x=.catbird-response.json"), sidecar, "the sidecar is left as recorded")
        XCTAssertEqual(contents("foo?x=.catbird-response").map { Array($0.utf8) }, forged.body, "recorded under the bare name")
        let journal = try E2E.journal(client, tenant: nil)
        XCTAssertEqual(journal.count, 2)
        XCTAssertNil(journal.last?["problem"] as? String)
        recorder.stop()
        upstream.stop()

        let replayer = try server(recording: false, query: true)
        let replay = try replayer.client()
        let first = try replay.request("GET", "/foo?x=")
        XCTAssertEqual(first.status, 200, first.text)
        XCTAssertEqual(first.body, kept.body)
        let second = try replay.request("GET", "/foo?x=.catbird-response", headers: json)
        XCTAssertEqual(second.status, 200, second.text)
        XCTAssertEqual(second.body, forged.body, "its own recording, not the sidecar of /foo?x=")
        // The tester's replay-only case: a sidecar of `/bar?y=` is never the body of `/bar?y=.catbird-response`.
        try Data("ok /bar".utf8).write(to: mocksDirectory.appendingPathComponent("bar?y="))
        try Data(#"{"status":200,"headers":{"Content-Type":"text/plain"}}"#.utf8)
            .write(to: mocksDirectory.appendingPathComponent("bar?y=.catbird-response.json"))
        XCTAssertEqual(try replay.request("GET", "/bar?y=").text, "ok /bar")
        let asked = try replay.request("GET", "/bar?y=.catbird-response", headers: json)
        XCTAssertEqual(asked.status, 404, "a sidecar is never a body: \(asked.text)")
    }

    /// Tester finding T15B-F12, the exact target: with `--files-with-query`, `/q?a\b` was
    /// recorded as `q?a\b` and replayed from it, though a backslash refuses a request
    /// (docs/files.md#confinement). It is forwarded, not recorded, and a file of that name is
    /// not served.
    func testABackslashInTheQueryIsNeitherRecordedNorServed() throws {
        let recorder = try server(recording: true, query: true)
        let client = try recorder.client()
        XCTAssertEqual(try client.request("GET", #"/q?a\b"#).status, 200, "forwarded")
        let journal = try E2E.journal(client, tenant: nil)
        XCTAssertEqual(journal.count, 1)
        XCTAssertTrue(E2E.isNull(journal.first?["filePath"]), "not recorded: \(journal)")
        XCTAssertNil(contents(#"q?a\b"#))
        recorder.stop()
        upstream.stop()

        try Data("by hand".utf8).write(to: mocksDirectory.appendingPathComponent(#"q?a\b"#))
        let replayer = try server(recording: false, query: true)
        let answer = try replayer.client().request("GET", #"/q?a\b"#)
        XCTAssertEqual(answer.status, 404, answer.text)
    }
}
