import CatbirdServer
import CatbirdStorage
import CatbirdTestSupport
import Foundation
import XCTest
#if canImport(Glibc)
import Glibc
#endif

/// What a server whose database file was deleted, moved or replaced under it leaves at the path
/// when it stops cleanly (README.md#storage-faults): SQLite leaves the `-wal` and `-shm` there
/// for a moved file; the server removes them or moves them aside, and only its own.
final class StorageFaultStopTests: XCTestCase {
    private var directory: URL!
    private var database: String { directory.appendingPathComponent("catbird.sqlite").path }
    private var arguments: [String] = []

    override func setUpWithError() throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("catbird-stop-faults-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        arguments = ["--port", "\(try FreePort.next())", "--db", database, "--log-level", "warning"]
    }

    override func tearDown() {
        if let directory { try? FileManager.default.removeItem(at: directory) }
    }

    /// Regression (tester finding T13B-F5): after `rm` of the file under a running server, its
    /// clean stop left `<db>-wal` and `<db>-shm` at the path, and the restart the README
    /// advises ("restart the server, which starts a new, empty file") exited 3 with "found
    /// …-wal and …-shm without the database file itself". Now the stop removes them (its own,
    /// by device and inode) and the restart begins a new, empty file.
    func testARestartAfterTheFileWasDeletedStartsAfresh() throws {
        let server = try LaunchedServer(arguments, in: directory)
        let client = try server.client()
        try E2E.addMock(client, url: "/kept", body: "kept")
        XCTAssertGreaterThan(try fileSize(database + "-wal"), 0, "the mock is in the WAL")
        XCTAssertEqual(unlink(database), 0)
        let refused = try client.json("POST", "/catbird/api/mocks", E2E.updateAction(url: "/after-rm", body: Array("x".utf8)))
        E2E.assertError(refused, status: 503, reasonContains: "\(database) was deleted")

        let ended = try server.terminate()
        XCTAssertEqual(ended.status, 0, ended.stderr)
        XCTAssertTrue(
            ended.stderr.contains("removed \(database)-wal and \(database)-shm, this server's WAL of the database file deleted under it"),
            ended.stderr)
        XCTAssertTrue(ended.stderr.contains("the next start on \(database) begins a new, empty file"), ended.stderr)
        for suffix in ["", "-wal", "-shm"] { XCTAssertFalse(exists(database + suffix), "\(database + suffix) is left") }

        let restarted = try LaunchedServer(arguments, in: directory)  // exited 3 before the fix
        let again = try restarted.client()
        XCTAssertEqual(try again.request("GET", "/kept").status, 404, "a new, empty file")
        try E2E.addMock(again, url: "/new", body: "new")
        XCTAssertEqual(try again.request("GET", "/new").text, "new")
        XCTAssertEqual(try restarted.terminate().status, 0)
    }

    /// Regression (tester finding T13B-F11, its repro): three mocks added (201), the file moved
    /// to `moved/` under the server, a clean stop: the moved file held no table (4096 bytes, the
    /// mocks in the `-wal` left at the old path), and a start on it began a new, empty database.
    /// Now the stop moves its `-wal` beside the moved file and copies it in: a start on the moved
    /// file serves the three mocks, and nothing is left at the old path.
    func testAFileMovedAwayGetsItsChangesAtTheCleanStop() throws {
        try assertMovedAwayFileGetsItsChanges(deletingCompanions: false)
    }

    /// Regression (tester finding tester55b-F10, its steps: `mv mv.sqlite mvbak.sqlite; rm
    /// mv.sqlite-wal mv.sqlite-shm`, then SIGTERM): the stop kept nothing (the moved file a
    /// 4,096-byte header without tables), logged nothing, exited 0, and left its `-shm`, which
    /// refused the next start. Now the WAL is copied into the moved file through the descriptors
    /// the server holds before it closes.
    func testAFileMovedAwayWhoseWALWasDeletedGetsItsChangesAtTheCleanStop() throws {
        try assertMovedAwayFileGetsItsChanges(deletingCompanions: true)
    }

    /// Three mocks added, the file moved into a folder (its `-wal` and `-shm` deleted too when
    /// `deletingCompanions`), a clean stop: the moved file holds the three, nothing is left at
    /// the path, and the log says where the changes went.
    private func assertMovedAwayFileGetsItsChanges(deletingCompanions: Bool) throws {
        let server = try LaunchedServer(arguments, in: directory)
        let client = try server.client()
        for name in ["a", "b", "c"] { try E2E.addMock(client, url: "/\(name)", body: name) }
        let folder = directory.appendingPathComponent("moved")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let moved = folder.appendingPathComponent("catbird.sqlite").path
        XCTAssertEqual(rename(database, moved), 0)
        if deletingCompanions {
            for suffix in ["-wal", "-shm"] { XCTAssertEqual(unlink(database + suffix), 0, suffix) }
        }

        let ended = try server.terminate()
        XCTAssertEqual(ended.status, 0, ended.stderr)
        XCTAssertTrue(ended.stderr.contains("was moved to \(moved)"), ended.stderr)
        XCTAssertTrue(ended.stderr.contains("were written into it there"), ended.stderr)
        for suffix in ["", "-wal", "-shm"] { XCTAssertFalse(exists(database + suffix), "\(database + suffix) is left") }
        XCTAssertFalse(exists(moved + "-wal"), "the checkpoint emptied and removed the moved file's WAL")

        let restarted = try LaunchedServer(["--port", "\(try FreePort.next())", "--db", moved, "--log-level", "warning"], in: directory)
        let again = try restarted.client()
        for name in ["a", "b", "c"] { XCTAssertEqual(try again.request("GET", "/\(name)").text, name, "mock /\(name)") }
        XCTAssertEqual(try restarted.terminate().status, 0)
    }

    /// Regression (tester finding T13B-F1, its repro): another Catbird database `mv`ed over a
    /// running server's file (`cp d.sqlite e.tmp; mv e.tmp e.sqlite`). At its clean stop the
    /// server left its `-wal` and `-shm` beside the replacement; the next start replayed that
    /// WAL into it and refused it as "corrupt or truncated (PRAGMA quick_check: Page …)", and
    /// the `sqlite3` shell checkpointed it in, corrupting the replacement for good. Now the stop
    /// removes them (the file they belong to has no name left) and the replacement starts whole.
    func testAFileReplacedUnderTheServerIsNotCorruptedByItsWAL() throws {
        let other = try otherDatabase()
        let server = try LaunchedServer(arguments, in: directory)
        let client = try server.client()
        let body = String(repeating: "k", count: 3000)
        for index in 0..<30 { try E2E.addMock(client, url: "/kept/\(index)", body: body) }
        for index in 0..<200 { XCTAssertEqual(try client.request("GET", "/kept/\(index % 30)").status, 200) }
        let copy = directory.appendingPathComponent("e.tmp").path
        try FileManager.default.copyItem(atPath: other, toPath: copy)
        XCTAssertEqual(rename(copy, database), 0)

        let ended = try server.terminate()
        // 4 when a journal round came after the replacement and its rows were dropped (logged).
        let dropped = ended.stderr.contains("journal: dropped") || ended.stderr.contains("not stored")
        XCTAssertEqual(ended.status, dropped ? 4 : 0, ended.stderr)
        XCTAssertTrue(ended.stderr.contains("removed \(database)-wal and \(database)-shm"), ended.stderr)
        XCTAssertTrue(ended.stderr.contains("so that nothing replays it into the file now at \(database)"), ended.stderr)
        XCTAssertFalse(exists(database + "-wal"))
        XCTAssertFalse(exists(database + "-shm"))

        let next = try LaunchedServer(arguments, in: directory)  // exited 3, "corrupt", before the fix
        let again = try next.client()
        XCTAssertEqual(try again.request("GET", "/other").text, "the replacement's")
        XCTAssertEqual(try again.request("GET", "/kept/0").status, 404, "nothing of the replaced file's WAL")
        XCTAssertEqual(try next.terminate().status, 0)
    }

    /// T13B-F1 with the file moved away first (`mv e.sqlite e.bak; cp d.sqlite e.sqlite`): the
    /// stop moves its WAL beside the moved file and copies it in (as for a file moved away,
    /// T13B-F11), so nothing of it is left beside the replacement, which starts whole, and the
    /// moved file holds every change.
    func testAFileMovedAwayAndReplacedGetsItsChangesWhereItWentAndTheReplacementStaysWhole() throws {
        let other = try otherDatabase()
        let server = try LaunchedServer(arguments, in: directory)
        let client = try server.client()
        for index in 0..<20 { try E2E.addMock(client, url: "/kept/\(index)", body: "kept \(index)") }
        let moved = directory.appendingPathComponent("moved.sqlite").path
        XCTAssertEqual(rename(database, moved), 0)
        try FileManager.default.copyItem(atPath: other, toPath: database)

        let ended = try server.terminate()
        XCTAssertEqual(ended.status, 0, ended.stderr)
        XCTAssertTrue(ended.stderr.contains("were written into it there"), ended.stderr)
        XCTAssertFalse(exists(database + "-wal"))
        XCTAssertFalse(exists(database + "-shm"))
        XCTAssertFalse(exists(moved + "-wal"), "the checkpoint emptied and removed the moved file's WAL")

        let next = try LaunchedServer(arguments, in: directory)
        let replacement = try next.client()
        XCTAssertEqual(try replacement.request("GET", "/other").text, "the replacement's")
        XCTAssertEqual(try replacement.request("GET", "/kept/0").status, 404, "nothing of the moved file's WAL")
        XCTAssertEqual(try next.terminate().status, 0)

        let recovered = try LaunchedServer(["--port", "\(try FreePort.next())", "--db", moved, "--log-level", "warning"], in: directory)
        let back = try recovered.client()
        for index in 0..<20 { XCTAssertEqual(try back.request("GET", "/kept/\(index)").text, "kept \(index)") }
        XCTAssertEqual(try recovered.terminate().status, 0)
    }

    /// A `-wal` at the path that is not the server's own (another inode: here the file and its
    /// WAL were deleted, as by `git clean -fdx`, and others put in their place) is left alone.
    /// Regression (tester finding tester54c-F2: a second server's files there): the stop called
    /// that `-wal` its own, one it "could not copy into the file", and said "nothing is lost",
    /// though its own changes went with the deleted files; it now says so.
    func testAnotherFilesWALAtThePathIsLeftAlone() throws {
        let server = try LaunchedServer(arguments, in: directory)
        try E2E.addMock(try server.client(), url: "/kept", body: "kept")
        for suffix in ["", "-wal", "-shm"] { XCTAssertEqual(unlink(database + suffix), 0, suffix) }
        XCTAssertTrue(FileManager.default.createFile(atPath: database, contents: Data()))
        let foreign = Data("another process's WAL".utf8)
        XCTAssertTrue(FileManager.default.createFile(atPath: database + "-wal", contents: foreign))

        let ended = try server.terminate()
        XCTAssertEqual(ended.status, 0, ended.stderr)
        XCTAssertEqual(FileManager.default.contents(atPath: database + "-wal"), foreign, "left as it was")
        XCTAssertFalse(ended.stderr.contains("removed \(database)-wal"), ended.stderr)
        XCTAssertFalse(ended.stderr.contains("nothing is lost"), ended.stderr)
        XCTAssertTrue(
            ended.stderr.contains(
                "[warning] database \(database): the file this server opened is no longer at that path, and its own -wal is not "
                    + "there either (deleted with it?): the changes it took since its last checkpoint went with them; the -wal now at "
                    + "the path (\(foreign.count) bytes) is another file's and was left alone"),
            ended.stderr)
    }

    /// T13B-F1's live variant, the limit README.md#storage-faults names: another process opened
    /// the replacement while the server ran, and reads the server's `-wal` through its `-shm`
    /// as the replacement's. The server cannot tell at that start; at its stop it sees the
    /// `-shm` locked by that process and leaves both, saying so, rather than pull them from under it.
    func testAWALAnotherProcessHasOpenIsLeftAtStop() throws {
        let other = try otherDatabase()
        let server = try LaunchedServer(arguments, in: directory)
        try E2E.addMock(try server.client(), url: "/kept", body: "kept")
        let moved = directory.appendingPathComponent("moved.sqlite").path
        XCTAssertEqual(rename(database, moved), 0)
        try FileManager.default.copyItem(atPath: other, toPath: database)
        let reader = Process()
        reader.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        let script = """
            import sqlite3, sys
            db = sqlite3.connect(sys.argv[1])
            try:
                db.execute("SELECT count(*) FROM sqlite_master").fetchall()
            except Exception as error:
                pass
            print("open", flush=True)
            sys.stdin.read()
            """
        reader.arguments = ["python3", "-c", script, database]
        let input = Pipe(), output = Pipe()
        reader.standardInput = input
        reader.standardOutput = output
        try reader.run()
        defer {
            kill(reader.processIdentifier, SIGKILL)  // not a clean close: that would checkpoint the WAL into the replacement
            reader.waitUntilExit()
        }
        var said = ""
        while !said.hasSuffix("\n"), case let chunk = output.fileHandleForReading.availableData, !chunk.isEmpty {
            said += String(decoding: chunk, as: UTF8.self)
        }
        XCTAssertEqual(said, "open\n", "the reader has the replacement open")

        let ended = try server.terminate()
        XCTAssertEqual(ended.status, 0, ended.stderr)
        XCTAssertTrue(
            ended.stderr.contains("left \(database)-wal and \(database)-shm, this server's WAL of the file that was at \(database) "
                + "before it was replaced: process \(reader.processIdentifier) has \(database)-shm open"),
            ended.stderr)
        XCTAssertTrue(exists(database + "-wal"))
        XCTAssertTrue(exists(database + "-shm"))
    }

    /// Regression (tester finding tester21b-F13, its repro): 300 requests with 20,000 random
    /// bytes each (enough for a checkpoint into the file), ten mocks added, then
    /// `: > catbird.sqlite` under the running server. The control change after it got 201 (lost
    /// with everything else), health said only "database unavailable", a journal read answered
    /// 500, the clean stop deleted the 4 MB `-wal` (the last copy of the recent changes) and
    /// left a 0-byte file, and the restart blamed "another process". Now the change, health and
    /// the read answer 503 saying the file was truncated, the stop keeps the `-wal` as it was,
    /// and the restart's refusal says that no process has them open and why they are there.
    func testAFileEmptiedUnderTheServerRefusesChangesAndKeepsItsWAL() throws {
        let server = try LaunchedServer(arguments, in: directory)
        let client = try server.client()
        for index in 0..<300 {
            let body = (0..<20_000).map { _ in UInt8.random(in: 0...255) }
            XCTAssertEqual(try client.request("POST", "/a\(index)", body: body).status, 404)
        }
        let tenant = E2E.tenantHeader("t")
        for index in 1...10 {
            let action = #"{"type":"update","pattern":{"method":"GET","url":{"kind":"equal","value":"/m\#(index)"}},"response":{"status":200}}"#
            XCTAssertEqual(try client.json("POST", "/catbird/api/mocks", action, headers: tenant).status, 201)
        }
        XCTAssertEqual(try client.request("GET", "/catbird/api/requests?limit=1").status, 200)  // waits for the journal writer
        let size = try fileSize(database)
        XCTAssertGreaterThan(size, 1_000_000, "checkpoints wrote the journal into the file")
        let wal = try XCTUnwrap(FileManager.default.contents(atPath: database + "-wal"))
        XCTAssertGreaterThan(wal.count, 0, "the latest changes are in the WAL")
        XCTAssertEqual(truncate(database, 0), 0)  // `: > catbird.sqlite`

        let after = #"{"type":"update","pattern":{"method":"GET","url":{"kind":"equal","value":"/after"}},"response":{"status":200}}"#
        let truncated = "the database file was truncated under the running server: \(database) is 0 bytes, shorter than the \(size) bytes"
        E2E.assertError(try client.json("POST", "/catbird/api/mocks", after, headers: tenant), status: 503, reasonContains: truncated)
        let health = try client.request("GET", "/catbird/api/health")
        XCTAssertEqual(health.status, 503, health.text)
        XCTAssertEqual(health.object["status"] as? String, "degraded", health.text)
        XCTAssertTrue((health.object["reason"] as? String ?? "").contains(truncated), health.text)
        XCTAssertNotNil(health.object["since"], health.text)
        E2E.assertError(try client.request("GET", "/catbird/api/requests?limit=1"), status: 503, reasonContains: truncated)

        let ended = try server.terminate()
        XCTAssertEqual(ended.status, 0, ended.stderr)
        XCTAssertTrue(
            ended.stderr.contains("kept \(database)-wal and \(database)-shm beside the file, which was truncated under the server"),
            ended.stderr)
        XCTAssertEqual(try fileSize(database), 0)
        XCTAssertEqual(FileManager.default.contents(atPath: database + "-wal"), wal, "the -wal is kept as it was")

        let restart = try E2E.startOnce(database: database, in: directory)
        XCTAssertEqual(restart.status, 3, restart.output)
        XCTAssertTrue(
            restart.stderr.contains(
                "found \(database)-wal and \(database)-shm beside an empty database file (0 bytes): no process has them open: "
                    + "a server whose file was emptied (truncated) while it ran left them at its stop"),
            restart.stderr)
        XCTAssertFalse(restart.stderr.contains("another process"), restart.stderr)
        XCTAssertEqual(FileManager.default.contents(atPath: database + "-wal"), wal, "the refused start left the -wal alone")
    }

    /// Tester finding tester46b-F8, its steps: 300 uploads of 80 KB in tenant `big`, the tenant
    /// dropped, then `sqlite3 catbird.sqlite VACUUM` while the server ran (safe in SQLite): its
    /// checkpoint made the file shorter, which was taken for a truncation: health degraded for
    /// good, every control change 503, journal rows dropped, and the stop told the operator to
    /// restore a copy of an intact file. A file whose header counts it whole is not truncated;
    /// one cut anywhere else still is.
    func testAVacuumByAnotherProcessIsNotATruncation() throws {
        let server = try LaunchedServer(arguments, in: directory)
        let client = try server.client()
        try E2E.addMock(client, url: "/kept", body: "kept")
        let big = E2E.tenantHeader("big")
        // Random bytes: the journal keeps one copy of equal bodies.
        func upload() -> [UInt8] { (0..<60_000).map { _ in UInt8.random(in: 0...255) } }
        for index in 0..<300 { XCTAssertEqual(try client.request("POST", "/u\(index)", headers: big, body: upload()).status, 404) }
        XCTAssertEqual(try client.request("GET", "/catbird/api/requests?limit=1", headers: big).status, 200)  // written
        XCTAssertEqual(try client.request("DELETE", "/catbird/api/tenants/big").status, 204)
        let before = try fileSize(database)
        // The drop deletes the rows in the background: VACUUM until their pages are given back.
        var after = before
        let deadline = Date().addingTimeInterval(20)
        while after >= before / 2, Date() < deadline {
            Thread.sleep(forTimeInterval: 0.5)
            let vacuum = try Database(path: database)
            try vacuum.execute("VACUUM")
            _ = try vacuum.query("PRAGMA wal_checkpoint(TRUNCATE)")
            vacuum.close()
            after = try fileSize(database)
        }
        XCTAssertLessThan(after, before / 2, "the VACUUM gave the dropped tenant's pages back")

        for index in 0..<80 { XCTAssertEqual(try client.request("POST", "/v\(index)", headers: big, body: upload()).status, 404) }
        let action = #"{"type":"update","pattern":{"method":"GET","url":{"kind":"equal","value":"/after"}},"response":{"status":200}}"#
        XCTAssertEqual(try client.json("POST", "/catbird/api/mocks", action).status, 201)
        XCTAssertEqual(try client.request("GET", "/catbird/api/health").status, 200)
        XCTAssertEqual(try E2E.count(client, tenant: "big", patternJSON: #"{"method":"POST","url":{"kind":"wildcard","value":"/v*"}}"#), 80)
        XCTAssertEqual(try E2E.metrics(client)["catbird_journal_dropped_rows_total"], 0)
        XCTAssertEqual(try client.request("GET", "/kept").text, "kept")

        // Cut short of what its header counts: a truncation still.
        let size = try fileSize(database)
        XCTAssertEqual(truncate(database, off_t(size - 4096)), 0)
        E2E.assertError(try client.json("POST", "/catbird/api/mocks", action), status: 503, reasonContains: "was truncated under the running server")
        let ended = try server.terminate()
        XCTAssertEqual(ended.status, 4, "a hit was not stored in the truncated file: \(ended.stderr)")
        XCTAssertTrue(ended.stderr.contains("which was truncated under the server"), ended.stderr)
    }

    /// Tester finding tester46b-F1, its steps: a clean stop whose folder was made immutable
    /// (`chattr +i`) could not copy the WAL into the file and remove it, logged nothing, and the
    /// next start said the `-wal` "was left by a run that did not stop cleanly (killed or
    /// crashed)". The stop says so now; nothing is lost.
    func testACleanStopThatCannotRemoveItsWALSaysSo() throws {
        let folder = directory.appendingPathComponent("frozen")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let path = folder.appendingPathComponent("a.sqlite").path
        let server = try LaunchedServer(["--port", "\(try FreePort.next())", "--db", path, "--log-level", "warning"], in: directory)
        let client = try server.client()
        try E2E.addMock(client, url: "/a", body: "kept")
        guard try ProcessRunner.run(URL(fileURLWithPath: "/usr/bin/chattr"), ["+i", folder.path], in: directory, seconds: 10).status == 0 else {
            _ = try server.terminate()
            throw XCTSkip("chattr +i is not possible here (needs root and a file system that supports it)")
        }
        defer { _ = try? ProcessRunner.run(URL(fileURLWithPath: "/usr/bin/chattr"), ["-i", folder.path], in: directory, seconds: 10) }
        XCTAssertEqual(try client.request("GET", "/a").text, "kept")
        let ended = try server.terminate()
        XCTAssertEqual(ended.status, 0, ended.stderr)
        XCTAssertTrue(ended.stderr.contains("-wal ("), ended.stderr)
        XCTAssertTrue(ended.stderr.contains("could not be copied into the file and removed at this clean stop"), ended.stderr)
    }

    /// Regression (tester finding tester50a-F5), the exact case: another process held the
    /// database's write lock across a SIGTERM with 10 answered requests queued; the stop dropped
    /// them (as documented, README.md#storage-faults "the file busy"), logged them as not stored,
    /// and then said of its `-wal` "nothing is lost", guessing a full disk or a read-only folder,
    /// and exited 0 as a clean stop does.
    func testAStopThatDroppedEntriesNeverSaysNothingIsLost() throws {
        let server = try LaunchedServer(arguments, in: directory)
        let client = try server.client()
        try E2E.addMock(client, tenant: "lk", url: "/a", body: "A", limit: 1000)
        let holder = try Database(path: database)
        defer { holder.close() }
        try holder.execute("BEGIN IMMEDIATE")
        for _ in 1...10 { XCTAssertEqual(try client.request("GET", "/a", headers: E2E.tenantHeader("lk")).status, 200) }
        let ended = try server.terminate()
        try holder.execute("COMMIT")
        // Exited 0, like a clean stop; now 4, with the line that says why.
        XCTAssertEqual(ended.status, 4, ended.stderr)
        XCTAssertTrue(ended.stderr.contains("stopped, but the journal did not store every entry and mock hit since the start"), ended.stderr)
        XCTAssertTrue(ended.stderr.contains("journal: stopping: "), ended.stderr)
        XCTAssertTrue(ended.stderr.contains("not stored"), ended.stderr)
        XCTAssertFalse(ended.stderr.contains("nothing is lost"), ended.stderr)
        if ended.stderr.contains("could not be copied into the file") {
            XCTAssertTrue(ended.stderr.contains("(the entries logged above as not stored are)"), ended.stderr)
            XCTAssertTrue(ended.stderr.contains("another process holding the database"), ended.stderr)
        }
    }

    // MARK: - Helpers

    /// A stopped Catbird database with the mock `GET /other` → "the replacement's" (no `-wal`).
    private func otherDatabase() throws -> String {
        let path = directory.appendingPathComponent("other.sqlite").path
        let server = try CatbirdServer(settings: .init(port: 0, databasePath: path, logLevel: .error))
        try server.start()
        try E2E.addMock(try RawHTTPClient(port: server.port), url: "/other", body: "the replacement's")
        server.stop()
        XCTAssertFalse(exists(path + "-wal"), "a clean stop leaves no WAL")
        return path
    }

    private func fileSize(_ path: String) throws -> Int {
        (try FileManager.default.attributesOfItem(atPath: path)[.size] as? Int) ?? 0
    }

    private func exists(_ path: String) -> Bool {
        var status = stat()
        return lstat(path, &status) == 0
    }
}
