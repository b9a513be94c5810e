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

    /// Known since tester26a-F8's fix (closing notes of 2026-12-04): with `--durability strict`,
    /// a recording that could not be put in place after its entry's commit had its `problem`
    /// amended (`not recorded: …`), but its `filePath` still named the planned file, which
    /// held another recording. Here a `GET`'s recording of the path is put there while a `POST`
    /// waits for its commit (the writer held), so the `POST`'s rename is refused: its entry now
    /// names no file.
    func testARecordingNotPlacedAfterItsCommitLeavesNoFilePath() throws {
        let server = try TestServer { settings in
            settings.redirectURL = self.upstream.baseURL
            settings.recordMode = true
            settings.mocksDirectory = self.mocksDirectory.path
            settings.durability = .strict
        }
        defer { server.removeFiles() }
        XCTAssertEqual(try server.client().request("GET", "/echo/pre").status, 200)
        XCTAssertTrue(exists("echo/pre") && exists("echo/pre.catbird-response.json"))

        let writer = try JournalWriterHold(server)
        defer { writer.end() }
        let answered = DispatchSemaphore(value: 0)
        let status = Locked(0)
        Thread.detachNewThread {
            let client = try? RawHTTPClient(port: server.port, timeoutSeconds: 60)
            status.set((try? client?.request("POST", "/echo/kept", body: Array("posted".utf8)).status) ?? -1)
            answered.signal()
        }
        // The POST's recording is planned (its temporary files written) and waits for the commit.
        let echo = mocksDirectory.appendingPathComponent("echo")
        let deadline = ContinuousClock.now + .seconds(10)
        while ContinuousClock.now < deadline,
            ((try? FileManager.default.contentsOfDirectory(atPath: echo.path)) ?? []).allSatisfy({ !$0.contains(".catbird-recording-") }) {
            usleep(20_000)
        }
        for suffix in ["", ".catbird-response.json"] {
            try FileManager.default.copyItem(
                at: echo.appendingPathComponent("pre" + suffix), to: echo.appendingPathComponent("kept" + suffix))
        }
        try writer.release()
        XCTAssertEqual(answered.wait(timeout: .now() + 30), .success)
        XCTAssertEqual(status.value, 200, "the upstream's answer goes to the client")

        let listing = try server.client().request("GET", "/catbird/api/requests?url=/echo/kept")
        let entries = (listing.json as? [String: Any])?["requests"] as? [[String: Any]] ?? []
        XCTAssertEqual(entries.count, 1, listing.text)
        XCTAssertTrue((entries.first?["problem"] as? String)?.contains("not recorded:") == true, listing.text)
        XCTAssertTrue(entries.first?["filePath"] is NSNull || entries.first?["filePath"] == nil, listing.text)
        XCTAssertEqual(try Data(contentsOf: echo.appendingPathComponent("kept")), try Data(contentsOf: echo.appendingPathComponent("pre")))
    }
}
