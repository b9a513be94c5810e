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
        let server = try strictRecordingServer()
        defer { server.removeFiles() }
        XCTAssertEqual(try server.client().request("GET", "/echo/pre").status, 200)
        XCTAssertTrue(exists("echo/pre") && exists("echo/pre.catbird-response.json"))

        let (entry, _) = try recordWhileTheCommitWaits(server, "/echo/kept") { echo in
            for suffix in ["", ".catbird-response.json"] {
                try FileManager.default.copyItem(
                    at: echo.appendingPathComponent("pre" + suffix), to: echo.appendingPathComponent("kept" + suffix))
            }
        }
        XCTAssertTrue((entry["problem"] as? String)?.contains("not recorded:") == true, "\(entry)")
        XCTAssertTrue(entry["filePath"] is NSNull || entry["filePath"] == nil, "\(entry)")
        let echo = mocksDirectory.appendingPathComponent("echo")
        XCTAssertEqual(try Data(contentsOf: echo.appendingPathComponent("kept")), try Data(contentsOf: echo.appendingPathComponent("pre")))
    }

    /// Regression (tester finding tester28c-F1): with `--durability strict`, a recording whose
    /// planned name became a directory while its entry waited for the commit is written to that
    /// directory's `index`, as docs/files.md#recording says, but the entry's `filePath` kept
    /// naming the directory. The exact case: `POST /t/x` waits for its commit while
    /// `mkdir …/t/x` runs; the entry now names `…/t/x/index`, the file written, with no problem.
    func testARecordingPlacedAtIndexAfterItsCommitNamesThatFile() throws {
        let server = try strictRecordingServer()
        defer { server.removeFiles() }
        XCTAssertEqual(try server.client().request("GET", "/echo/pre").status, 200)

        let (entry, answer) = try recordWhileTheCommitWaits(server, "/echo/x") { echo in
            try FileManager.default.createDirectory(at: echo.appendingPathComponent("x"), withIntermediateDirectories: false)
        }
        let index = mocksDirectory.appendingPathComponent("echo/x/index").path
        XCTAssertEqual(entry["filePath"] as? String, index, "\(entry)")
        XCTAssertTrue(entry["problem"] is NSNull || entry["problem"] == nil, "\(entry)")
        XCTAssertTrue(exists("echo/x/index") && exists("echo/x/index.catbird-response.json"), "written to the directory's index")
        XCTAssertEqual(Array(try Data(contentsOf: URL(fileURLWithPath: index))), answer, "the upstream's answer, as sent")
        XCTAssertFalse(answer.isEmpty)
    }

    /// A server forwarding to the upstream, recording to ``mocksDirectory``, with `--durability strict`.
    private func strictRecordingServer() throws -> TestServer {
        try TestServer { settings in
            settings.redirectURL = self.upstream.baseURL
            settings.recordMode = true
            settings.mocksDirectory = self.mocksDirectory.path
            settings.durability = .strict
        }
    }

    /// Sends `POST path` (body `posted`) while the journal writer is held, so that its recording
    /// is planned (its temporary files written in `echo/`, asserted) and waits for the commit;
    /// runs `meanwhile` with the `echo` folder, lets the writer go, and returns the entry the
    /// journal then holds for `path` and the body of the upstream's answer, which reached the client.
    private func recordWhileTheCommitWaits(
        _ server: TestServer, _ path: String, meanwhile: (URL) throws -> Void
    ) throws -> (entry: [String: Any], answer: [UInt8]) {
        let writer = try JournalWriterHold(server)
        defer { writer.end() }
        let answered = DispatchSemaphore(value: 0)
        let answer = Locked<RawResponse?>(nil)
        Thread.detachNewThread {
            let client = try? RawHTTPClient(port: server.port, timeoutSeconds: 60)
            answer.set(try? client?.request("POST", path, body: Array("posted".utf8)))
            answered.signal()
        }
        let echo = mocksDirectory.appendingPathComponent("echo")
        let deadline = ContinuousClock.now + .seconds(10)
        var planned: Bool {
            ((try? FileManager.default.contentsOfDirectory(atPath: echo.path)) ?? []).contains { $0.contains(".catbird-recording-") }
        }
        while ContinuousClock.now < deadline, !planned { usleep(20_000) }
        XCTAssertTrue(planned, "the recording's temporary files are written while its entry waits for the commit")
        try meanwhile(echo)
        try writer.release()
        XCTAssertEqual(answered.wait(timeout: .now() + 30), .success)
        XCTAssertEqual(answer.value?.status, 200, "the upstream's answer goes to the client")

        let listing = try server.client().request("GET", "/catbird/api/requests?url=\(path)")
        let entries = (listing.json as? [String: Any])?["requests"] as? [[String: Any]] ?? []
        XCTAssertEqual(entries.count, 1, listing.text)
        return (entries.first ?? [:], answer.value?.body ?? [])
    }
}
