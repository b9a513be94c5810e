import CatbirdServer
import CatbirdStorage
import CatbirdTestSupport
import Foundation
import XCTest

/// `--durability strict` with `--record` (README.md#durability, docs/files.md#recording): a
/// recording is put in place only once its answer's journal entry is committed, so an answer
/// withheld because its entry could not be written (the client gets the 503) is not recorded.
///
/// Tester finding tester26a-F8, the exact reproduction: another process holds the database's
/// write lock (`sqlite3 db 'BEGIN IMMEDIATE; …'`) while `GET /t/during` is forwarded; the app
/// got the 503 after about 15 s, but the upstream's 200 was written to the mocks directory, with
/// no journal row and no log line.
final class RecordStrictDurabilityTests: RecordingTestCase {
    func testAnAnswerWithheldForItsJournalEntryIsNotRecorded() throws {
        let work = FileManager.default.temporaryDirectory.appendingPathComponent("catbird-strict-record-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: work, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: work) }
        let database = work.appendingPathComponent("strict.sqlite").path
        let port = try FreePort.next()
        let server = try LaunchedServer(
            [
                "--port", "\(port)", "--db", database, "--durability", "strict", "--redirect-url", upstream.baseURL, "--record",
                "--mocks-dir", mocksDirectory.path,
            ], in: work)
        XCTAssertEqual(try RawHTTPClient(port: port).request("GET", "/echo/pre").status, 200)
        XCTAssertTrue(exists("echo/pre") && exists("echo/pre.catbird-response.json"), "recorded once committed, before its answer left")

        let writer = try JournalWriterHold(path: database)
        defer { writer.end() }
        let during = try RawHTTPClient(port: port, timeoutSeconds: 60).request("GET", "/echo/during")
        E2E.assertError(during, status: 503, reasonContains: "could not be written to the journal")
        XCTAssertFalse(exists("echo/during") || exists("echo/during.catbird-response.json"), "the withheld answer is not recorded")
        let all = FileManager.default.enumerator(atPath: mocksDirectory.path)?.allObjects as? [String] ?? []
        XCTAssertEqual(all.filter { $0.contains(".catbird-recording-") }, [], "its temporary files removed")

        try writer.release()
        XCTAssertEqual(try RawHTTPClient(port: port).request("GET", "/echo/after").status, 200)
        XCTAssertTrue(exists("echo/after") && exists("echo/after.catbird-response.json"))
        let rows = try writer.database.query("SELECT url, file_path FROM requests ORDER BY id")
        XCTAssertEqual(rows.map { $0[0].stringValue ?? "" }, ["/echo/pre", "/echo/after"])
        XCTAssertEqual(rows.map { $0[1].stringValue?.hasSuffix("/echo/after") == true }, [false, true])
        let log = try server.terminate().stderr
        XCTAssertTrue(
            log.contains(
                "record mode: GET /echo/during not recorded: its journal entry could not be written, so --durability strict withheld "
                    + "the upstream's answer and sent a 503 instead (docs/files.md#recording)"), log)
    }
}
