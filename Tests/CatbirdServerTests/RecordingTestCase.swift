import CatbirdServer
import CatbirdTestSupport
import Foundation
import XCTest

/// Base class for record mode suites: a real upstream (``UpstreamTestCase``), a mocks directory
/// of the test's own (removed afterwards), and servers recording into it or replaying from it.
class RecordingTestCase: UpstreamTestCase {
    /// This test's mocks directory (created by the recording server).
    private(set) var mocksDirectory: URL!

    override func setUpWithError() throws {
        try super.setUpWithError()
        mocksDirectory = FileManager.default.temporaryDirectory.appendingPathComponent("catbird-recording-\(UUID().uuidString)")
    }

    override func tearDown() {
        if let mocksDirectory { try? FileManager.default.removeItem(at: mocksDirectory) }
        super.tearDown()
    }

    /// A server on ``mocksDirectory``: recording what it forwards to ``upstream`` (redirect
    /// mode), or (`recording` false) replaying the files, with no upstream.
    func server(recording: Bool) throws -> TestServer {
        try TestServer { settings in
            if recording {
                settings.redirectURL = self.upstream.baseURL
                settings.recordMode = true
            }
            settings.mocksDirectory = self.mocksDirectory.path
        }
    }

    /// Whether `name` (a path relative to ``mocksDirectory``) exists.
    func exists(_ name: String) -> Bool {
        FileManager.default.fileExists(atPath: mocksDirectory.appendingPathComponent(name).path)
    }

    /// Asserts the answer Catbird made in place of an upstream answer it cannot pass on: a 502
    /// whose reason contains `problem`, marked `X-Catbird-Generated-By`, journaled for `path`
    /// with status 502 and `problem` `not recorded: <problem>`, and (`checkingFiles`) nothing
    /// recorded for `path`: neither the file nor its sidecar (false when the test put a file
    /// there itself, to see it kept).
    func assertMarked502NotRecorded(
        _ answer: RawResponse, path: String, problem: String, client: RawHTTPClient, checkingFiles: Bool = true,
        file: StaticString = #filePath, line: UInt = #line
    ) throws {
        E2E.assertError(answer, status: 502, reasonContains: problem, file: file, line: line)
        XCTAssertNotNil(answer.header("X-Catbird-Generated-By"), "\(path): marked as Catbird's own answer", file: file, line: line)
        let entry = try XCTUnwrap(try E2E.journal(client, tenant: nil).first { $0["url"] as? String == path }, "\(path) journaled", file: file, line: line)
        XCTAssertEqual(entry["problem"] as? String, "not recorded: " + problem, file: file, line: line)
        XCTAssertEqual(JSONNumber.int((entry["response"] as? [String: Any])?["status"]), 502, file: file, line: line)
        let name = String(path.dropFirst())
        guard checkingFiles else { return }
        XCTAssertFalse(exists(name) || exists(name + ".catbird-response.json"), "\(path): nothing recorded", file: file, line: line)
    }
}
