import CatbirdServer
import CatbirdStorage
import CatbirdTestSupport
import Foundation
import XCTest
#if canImport(Glibc)
import Glibc
#endif

/// Storage faults on real files (README.md#storage-faults): each is refused at start-up with a
/// clear message and exit code 3, or run through in an honest degraded state (mocks served from
/// memory, control changes refused with 503, `GET /catbird/api/health` saying what is wrong).
final class StorageFaultTests: XCTestCase {
    private var directory: URL!
    private var database: String { directory.appendingPathComponent("catbird.sqlite").path }

    override func setUpWithError() throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("catbird-faults-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    }

    override func tearDown() {
        if let directory { try? FileManager.default.removeItem(at: directory) }
    }

    // MARK: - Refused at start-up

    func testADatabaseFromANewerVersionIsRefused() throws {
        try makeDatabase()
        let db = try Database(path: database)
        try db.run("INSERT INTO schema_migrations (version, name, applied_at) VALUES (9999, 'future', '2030-01-01T00:00:00.000Z')")
        db.close()
        try assertRefused(saying: "database schema is at version 9999 but this catbird knows migrations up to")
    }

    func testGarbageInTheFilesPagesIsFoundAtStartUp() throws {
        try makeDatabase()
        let pageSize = 4096
        let size = try fileSize(database)
        XCTAssertGreaterThan(size, pageSize * 8, "enough pages to corrupt")
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: database))
        for page in 1..<(size / pageSize) {  // every page but the first (the header stays valid)
            try handle.seek(toOffset: UInt64(page * pageSize))
            handle.write(Data((0..<64).map { _ in UInt8.random(in: 0...255) }))
        }
        try handle.close()
        try assertRefused(saying: "the file is corrupt or truncated")
    }

    func testGarbageInTheHeaderIsFoundAtStartUp() throws {
        try makeDatabase()
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: database))
        handle.write(Data(repeating: 0x5A, count: 100))
        try handle.close()
        try assertRefused(saying: "the file is not an SQLite database")
    }

    func testATruncatedFileIsFoundAtStartUp() throws {
        try makeDatabase()
        let size = try fileSize(database)
        XCTAssertEqual(truncate(database, off_t(size / 2)), 0)
        try assertRefused(saying: "the file is corrupt or truncated")
    }

    /// Regression (tester finding tester21b-F2, its repro): a cleanly stopped file with 20 mocks
    /// and 300 journal rows, one copy with random bytes in every third page but the first and
    /// one a page short. Each start was refused (exit 3) but left the `-wal` (0 bytes) and
    /// `-shm` its read-only check had made beside the file; moving the file away, as the refusal
    /// advises, then met a second refusal ("found …-wal and …-shm without the database file
    /// itself: another process may be using them"). Now a refused start leaves the folder as it
    /// found it, and the start after the move begins a new file.
    func testARefusedStartLeavesNoWALOrSHMBesideACorruptOrTruncatedFile() throws {
        try makeDatabase(mocks: 20)
        let pageSize = 4096
        let corrupt = directory.appendingPathComponent("corrupt.sqlite").path
        let short = directory.appendingPathComponent("trunc3.sqlite").path
        try FileManager.default.copyItem(atPath: database, toPath: corrupt)
        try FileManager.default.copyItem(atPath: database, toPath: short)
        let size = try fileSize(database)
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: corrupt))
        for page in stride(from: 3, to: size / pageSize, by: 3) {  // every third page but the first
            try handle.seek(toOffset: UInt64(page * pageSize))
            handle.write(Data((0..<pageSize).map { _ in UInt8.random(in: 0...255) }))
        }
        try handle.close()
        XCTAssertEqual(truncate(short, off_t(size - pageSize)), 0)
        let corruptBytes = FileManager.default.contents(atPath: corrupt)

        for file in [corrupt, short] {
            let refused = try E2E.startOnce(database: file, in: directory)
            XCTAssertEqual(refused.status, 3, refused.output)
            XCTAssertTrue(refused.stderr.contains("the file is corrupt or truncated"), refused.stderr)
            for suffix in ["-wal", "-shm"] {
                XCTAssertFalse(FileManager.default.fileExists(atPath: file + suffix), "the refused start left \(file + suffix)")
            }
        }
        XCTAssertEqual(FileManager.default.contents(atPath: corrupt), corruptBytes, "the file is left as it was")

        XCTAssertEqual(rename(corrupt, directory.appendingPathComponent("corrupt.bad").path), 0)  // "move it away"
        let fresh = try LaunchedServer(["--port", "\(try FreePort.next())", "--db", corrupt, "--log-level", "error"], in: directory)
        XCTAssertEqual(try fresh.client().request("GET", "/kept").status, 404, "a new, empty file")
        XCTAssertEqual(try fresh.terminate().status, 0)
    }

    /// A file the server may not write: `chmod 0444` for an ordinary user; as root (who ignores
    /// file modes) the file is made immutable with `chattr +i` instead.
    func testAReadOnlyFileIsRefused() throws {
        try makeDatabase()
        let immutable = geteuid() == 0
        if immutable {
            let chattr = try ProcessRunner.run(URL(fileURLWithPath: "/usr/bin/chattr"), ["+i", database], in: directory)
            guard chattr.status == 0 else { throw XCTSkip("running as root and chattr +i is not permitted here: \(chattr.stderr)") }
        } else {
            XCTAssertEqual(chmod(database, 0o444), 0)
        }
        defer {
            if immutable { _ = try? ProcessRunner.run(URL(fileURLWithPath: "/usr/bin/chattr"), ["-i", database], in: directory) }
        }
        try assertRefused(saying: "cannot open the file for reading and writing")
    }

    /// Tester finding T15A-F5: a writable database file in a folder that cannot be written
    /// (`chmod 555` for an ordinary user; as root, who ignores modes, `chattr +i` on the folder),
    /// with no `-wal` or `-shm` beside it, exited 3 blaming the file and quoting internal SQL
    /// (`the database file cannot be opened (SQLite error 14 …) — in: SELECT name FROM
    /// sqlite_schema …`). The reason now names the folder and the files SQLite creates there.
    func testAWritableFileInAFolderThatCannotBeWrittenIsRefusedNamingTheFolder() throws {
        try makeDatabase()
        XCTAssertEqual(chmod(database, 0o666), 0)
        let immutable = geteuid() == 0
        if immutable {
            let chattr = try ProcessRunner.run(URL(fileURLWithPath: "/usr/bin/chattr"), ["+i", directory.path], in: directory)
            guard chattr.status == 0 else { throw XCTSkip("running as root and chattr +i is not permitted here: \(chattr.stderr)") }
        } else {
            XCTAssertEqual(chmod(directory.path, 0o555), 0)
        }
        defer {
            if immutable {
                _ = try? ProcessRunner.run(URL(fileURLWithPath: "/usr/bin/chattr"), ["-i", directory.path], in: directory)
            } else {
                chmod(directory.path, 0o755)
            }
        }
        let result = try ProcessRunner.run(
            try BuiltProducts.executable(named: "catbird"), ["--port", "\(try FreePort.next())", "--db", database],
            in: directory, environment: LaunchedServer.childEnvironment([:]), seconds: 30)
        XCTAssertEqual(result.status, 3, result.output)
        XCTAssertTrue(
            result.stderr.contains(
                "its folder \(directory.path) cannot be written (\(immutable ? "Operation not permitted" : "Permission denied")): "
                    + "SQLite creates catbird.sqlite-wal and catbird.sqlite-shm beside the file when it opens it (WAL mode), and "
                    + "catbird.sqlite-wal and catbird.sqlite-shm are not there; the server needs to read and write the file and its folder"),
            result.stderr)
        XCTAssertFalse(result.stderr.contains("SELECT"), "no internal SQL: \(result.stderr)")
        XCTAssertFalse(FileManager.default.fileExists(atPath: database + "-wal"))
    }

    /// Tester finding tester42b-F8: a `-wal` the server's user cannot write (left by a server of
    /// another user, killed) passed every start-up check: health said ok, then every control
    /// change got 503 blaming "the database file", which was writable. Now exit 3 naming the
    /// `-wal`, its owner and mode, and the fix. Made unwritable by mode for an ordinary user;
    /// as root, who ignores modes, by `chattr +i`.
    func testAWALThatCannotBeWrittenIsRefusedAtStartNamingIt() throws {
        let killed = try LaunchedServer(["--port", "\(try FreePort.next())", "--db", database], in: directory)
        try E2E.addMock(try killed.client(), url: "/kept", body: "kept")
        kill(killed.process.processIdentifier, SIGKILL)
        killed.process.waitUntilExit()
        XCTAssertTrue(FileManager.default.fileExists(atPath: database + "-wal"), "the killed server left its -wal")
        let immutable = geteuid() == 0
        if immutable {
            let chattr = try ProcessRunner.run(URL(fileURLWithPath: "/usr/bin/chattr"), ["+i", database + "-wal"], in: directory)
            guard chattr.status == 0 else { throw XCTSkip("running as root and chattr +i is not permitted here: \(chattr.stderr)") }
        } else {
            XCTAssertEqual(chmod(database + "-wal", 0o444), 0)
        }
        defer {
            if immutable {
                _ = try? ProcessRunner.run(URL(fileURLWithPath: "/usr/bin/chattr"), ["-i", database + "-wal"], in: directory)
            } else {
                chmod(database + "-wal", 0o644)
            }
        }
        let result = try ProcessRunner.run(
            try BuiltProducts.executable(named: "catbird"), ["--port", "\(try FreePort.next())", "--db", database],
            in: directory, environment: LaunchedServer.childEnvironment([:]), seconds: 30)
        XCTAssertEqual(result.status, 3, result.output)
        XCTAssertTrue(
            result.stderr.contains("catbird.sqlite-wal cannot be read and written by this process's user ")
                && result.stderr.contains("SQLite writes every change there (WAL mode), so nothing could be stored")
                && result.stderr.contains("(do not delete it: it may hold changes not yet in the file)"),
            result.stderr)
        XCTAssertFalse(result.stderr.contains("listening"), result.stderr)
    }

    // MARK: - A WAL left by a crashed process

    /// Another program (Python's sqlite3) changes a mock in WAL mode and dies without closing:
    /// its change is in the `-wal` file only. The server replays it and serves the change.
    func testAWALLeftByACrashedProcessIsReplayed() throws {
        try makeDatabase()
        try crashAfterWriting("UPDATE mocks SET status = 202 WHERE url_value = '/kept'")
        let server = try LaunchedServer(["--port", "\(try FreePort.next())", "--db", database, "--log-level", "error"], in: directory)
        XCTAssertEqual(try server.client().request("GET", "/kept").status, 202, "the WAL's change is served")
        let ended = try server.terminate()
        XCTAssertEqual(ended.status, 0, "\(ended.reason == .uncaughtSignal ? "killed by signal" : "exit status") \(ended.status): \(ended.stderr.suffix(2000))")
    }

    /// The crashed process was a newer version: its WAL records a schema this binary does not
    /// know, and the server refuses it after replaying, rather than misreading it.
    func testAWALFromANewerVersionIsRefused() throws {
        try makeDatabase()
        try crashAfterWriting("INSERT INTO schema_migrations (version, name, applied_at) VALUES (9998, 'newer', 'x')")
        try assertRefused(saying: "database schema is at version 9998")
    }

    // MARK: - Degraded while running: a full disk

    /// A small tmpfs fills up under a running server (where the test may mount one): mocks are
    /// still served, health says the disk is full, control changes get 503 with the reason, and
    /// in strict mode a mock's answer is withheld (503) rather than given unjournaled. Once space
    /// is freed, the next write clears the fault.
    func testAFullDiskDegradesHonestlyAndRecovers() throws {
        let mount = directory.appendingPathComponent("small")
        try FileManager.default.createDirectory(at: mount, withIntermediateDirectories: true)
        let mounted = try ProcessRunner.run(URL(fileURLWithPath: "/bin/mount"), ["-t", "tmpfs", "-o", "size=4m", "tmpfs", mount.path], in: directory)
        guard mounted.status == 0 else {
            throw XCTSkip("cannot mount a small tmpfs here (needs root or CAP_SYS_ADMIN), so the full disk is not tested: \(mounted.stderr)")
        }
        defer { _ = try? ProcessRunner.run(URL(fileURLWithPath: "/bin/umount"), ["-l", mount.path], in: directory) }

        let relaxed = try CatbirdServer(settings: .init(port: 0, databasePath: mount.appendingPathComponent("relaxed.sqlite").path, logLevel: .error))
        var strictSettings = CatbirdServer.Settings(port: 0, databasePath: mount.appendingPathComponent("strict.sqlite").path, logLevel: .error)
        strictSettings.durability = .strict
        let strict = try CatbirdServer(settings: strictSettings)
        try relaxed.start()
        try strict.start()
        defer {
            relaxed.stop()
            strict.stop()
        }
        let (client, strictClient) = try clientsServingOK(relaxed, strict)
        try E2E.addMock(client, tenant: "shard", url: "/s", body: "s")
        XCTAssertEqual(try client.request("GET", "/s", headers: E2E.tenantHeader("shard")).text, "s")
        XCTAssertEqual(try E2E.journal(client, tenant: "shard").count, 1, "stored before the disk fills")

        let filler = mount.appendingPathComponent("filler")
        try fillDisk(with: filler)
        // The journal writer finds the disk full on its next commit.
        for _ in 0..<20 {
            let answer = try client.request("GET", "/ok")
            XCTAssertEqual(answer.status, 200)
            XCTAssertEqual(answer.text, "from memory")
        }
        let health = try waitForHealth(client, status: 503)
        XCTAssertEqual(health.object["status"] as? String, "degraded", health.text)
        XCTAssertTrue((health.object["reason"] as? String ?? "").contains("the disk holding the database is full"), health.text)
        let refused = try client.json("POST", "/catbird/api/mocks", E2E.updateAction(url: "/new", body: Array("x".utf8)))
        E2E.assertError(refused, status: 503, reasonContains: "full")
        XCTAssertEqual(try client.request("GET", "/ok").status, 200, "mocks are still served")

        let withheld = try strictClient.request("GET", "/ok")
        E2E.assertError(withheld, status: 503, reasonContains: "could not be written to the journal")

        // Regression (tester finding tester34b-F1): a journal clear or a tenant's drop needs room
        // in the -wal too; refused with the bare "disk is full", while the README said the clear
        // would answer at once and hide the rows. It says now that nothing was deleted and how
        // to get out; the tenant and its mock are still there.
        E2E.assertError(
            try client.request("DELETE", "/catbird/api/requests", headers: E2E.tenantHeader("shard")), status: 503,
            reasonContains: "the journal clear needs room in the database's -wal")
        E2E.assertError(
            try client.request("DELETE", "/catbird/api/tenants/shard", headers: E2E.tenantHeader("shard")), status: 503,
            reasonContains: "the disk holding the database is full: the tenant's drop needs room in the database's -wal to record "
                + "itself, so nothing was deleted; free space on that disk and try again")
        let mocks = try client.request("GET", "/catbird/api/mocks", headers: E2E.tenantHeader("shard"))
        XCTAssertEqual((mocks.object["mocks"] as? [Any])?.count ?? (try? JSONSerialization.jsonObject(with: Data(mocks.body)) as? [Any])?.count, 1, mocks.text)

        // A new database on the full disk cannot be migrated: nothing half-made served; exit 1,
        // which a supervisor restarts on, not 3 (tester finding tester42b-F13: the disk, not the
        // file, is at fault, and the same start succeeds once space is freed).
        let fresh = try ProcessRunner.run(
            try BuiltProducts.executable(named: "catbird"),
            ["--port", "\(try FreePort.next())", "--db", mount.appendingPathComponent("fresh.sqlite").path],
            in: directory, environment: LaunchedServer.childEnvironment([:]), seconds: 30)
        XCTAssertEqual(fresh.status, 1, fresh.output)
        XCTAssertTrue(fresh.stderr.contains("the disk holding the database is full"), fresh.stderr)
        XCTAssertFalse(
            FileManager.default.fileExists(atPath: mount.appendingPathComponent("fresh.sqlite").path),
            "the failed start removed the file it had created")

        try FileManager.default.removeItem(at: filler)
        XCTAssertEqual(try client.request("GET", "/ok").status, 200)
        let recovered = try waitForHealth(client, status: 200)
        XCTAssertEqual(recovered.object["status"] as? String, "ok", recovered.text)
        let accepted = try client.json("POST", "/catbird/api/mocks", E2E.updateAction(url: "/new", body: Array("x".utf8)))
        XCTAssertEqual(accepted.status, 201, accepted.text)
        XCTAssertEqual(try strictClient.request("GET", "/ok").text, "from memory", "strict mode answers again")
    }

    // MARK: - Degraded while running: a file at its size limit

    /// The same without privileges: the database capped a few pages above its size (SQLite's
    /// `max_page_count`, which fails writes with `SQLITE_FULL` as a full disk does). Deleting
    /// the journal frees pages, and the next commit ends the fault.
    func testADatabaseAtItsSizeLimitDegradesHonestlyAndRecovers() throws {
        func capped(_ name: String, _ durability: Durability) throws -> CatbirdServer {
            var settings = CatbirdServer.Settings(port: 0, databasePath: directory.appendingPathComponent(name).path, logLevel: .error)
            settings.durability = durability
            try CatbirdServer(settings: settings).stop()  // creates and migrates the file
            let db = try Database(path: settings.databasePath, mode: .readOnly)
            let pages = Int(try db.query("PRAGMA page_count").first?[0].intValue ?? 0)
            db.close()
            settings.maxDatabasePages = pages + 3
            let server = try CatbirdServer(settings: settings)
            try server.start()
            return server
        }
        let relaxed = try capped("relaxed.sqlite", .relaxed)
        let strict = try capped("strict.sqlite", .strict)
        defer {
            relaxed.stop()
            strict.stop()
        }
        let (client, strictClient) = try clientsServingOK(relaxed, strict)

        // Journal rows fill the last pages; then every commit fails.
        var health = try client.request("GET", "/catbird/api/health")
        for _ in 0..<100 where health.status == 200 {
            for _ in 0..<20 { XCTAssertEqual(try client.request("GET", "/ok").text, "from memory", "mocks are still served") }
            health = try waitForHealth(client, status: 503, required: false)
        }
        XCTAssertEqual(health.status, 503, health.text)
        XCTAssertEqual(health.object["status"] as? String, "degraded", health.text)
        XCTAssertTrue((health.object["reason"] as? String ?? "").contains("the disk holding the database is full"), health.text)
        let big = Array(repeating: UInt8(0x62), count: 64 * 1024)  // needs new pages whatever room is left
        E2E.assertError(
            try client.json("POST", "/catbird/api/mocks", E2E.updateAction(url: "/new", body: big)), status: 503, reasonContains: "full")
        XCTAssertEqual(try client.request("GET", "/ok").status, 200, "mocks are still served")
        var withheld = try strictClient.request("GET", "/ok")
        for _ in 0..<200 where withheld.status == 200 { withheld = try strictClient.request("GET", "/ok") }
        E2E.assertError(withheld, status: 503, reasonContains: "could not be written to the journal")
        // Regression: strict mode's health said "mocks are still served from memory", which is false there.
        XCTAssertTrue((health.object["reason"] as? String ?? "").hasSuffix("mocks are still served from memory"), health.text)
        let strictHealth = try waitForHealth(strictClient, status: 503)
        let strictReason = strictHealth.object["reason"] as? String ?? ""
        XCTAssertTrue(strictReason.contains("the disk holding the database is full"), strictHealth.text)
        XCTAssertTrue(strictReason.contains("answers are withheld (503)"), strictHealth.text)
        XCTAssertFalse(strictReason.contains("still served"), strictHealth.text)

        let deleted = try client.request("DELETE", "/catbird/api/requests")
        XCTAssertEqual(deleted.status, 200, deleted.text)
        XCTAssertEqual(try client.request("GET", "/ok").status, 200)
        let recovered = try waitForHealth(client, status: 200)
        XCTAssertEqual(recovered.object["status"] as? String, "ok", recovered.text)
    }

    // MARK: - Degraded while running: corruption

    /// Pages of the journal damaged under a running server: the read that meets them fails and
    /// health reports the corruption. A control change that commits (it writes other pages)
    /// does not end the report, nor does health's own re-check while the pages stay damaged;
    /// once the file is whole again, the re-check (`PRAGMA quick_check`) ends it.
    func testCorruptionFoundWhileRunningStaysReportedUntilTheFileIsWhole() throws {
        try makeDatabase()
        let leaves = try DamagedPages.leafPages(of: "journal_rows", in: database)
        XCTAssertGreaterThan(leaves.count, 10, "enough journal pages to damage")
        let server = try CatbirdServer(settings: .init(port: 0, databasePath: database, logLevel: .error))
        try server.start()  // start-up's quick_check passes: the file is still whole
        defer { server.stop() }
        let client = try RawHTTPClient(port: server.port)
        let damage = try DamagedPages(Array(leaves.dropLast(2)), in: database)  // the oldest rows' pages

        let read = try client.request("GET", "/catbird/api/requests?limit=100")
        XCTAssertGreaterThanOrEqual(read.status, 500, read.text)
        var health = try client.request("GET", "/catbird/api/health")
        XCTAssertEqual(health.status, 503, health.text)
        XCTAssertTrue((health.object["reason"] as? String ?? "").contains("the database file is corrupt"), health.text)
        let since = health.object["since"] as? String

        try E2E.addMock(client, url: "/after", body: "added")  // a write commits on other pages
        XCTAssertEqual(try client.request("GET", "/after").text, "added")
        usleep(1_200_000)  // past the re-check interval: health reads the whole file again
        health = try client.request("GET", "/catbird/api/health")
        XCTAssertEqual(health.status, 503, "a commit elsewhere does not mend damaged pages: \(health.text)")
        XCTAssertTrue((health.object["reason"] as? String ?? "").contains("PRAGMA quick_check"), health.text)
        XCTAssertEqual(health.object["since"] as? String, since, "the fault's start is kept")

        try damage.restore()
        // A commit after the restore: every connection then drops the pages it had cached.
        try E2E.addMock(client, url: "/mended", body: "mended")
        let deadline = ContinuousClock.now + .seconds(10)
        repeat {
            usleep(200_000)
            health = try client.request("GET", "/catbird/api/health")
        } while health.status != 200 && ContinuousClock.now < deadline
        XCTAssertEqual(health.status, 200, health.text)
        XCTAssertEqual(health.object["status"] as? String, "ok", health.text)
        XCTAssertEqual(try client.request("GET", "/catbird/api/requests?limit=100").status, 200, "the journal reads again")
    }

    // MARK: - The file deleted, moved or replaced under a running server

    /// Regression (tester finding T13-F8): `rm` of the database file alone under a running
    /// server left health at 200 and acknowledged every change (201/204): all of them written
    /// to the unlinked file and lost at exit. Now health and control changes say the file was
    /// deleted (503), and mocks are still served from memory.
    func testADatabaseFileDeletedUnderTheServerRefusesChanges() throws {
        let server = try LaunchedServer(["--port", "\(try FreePort.next())", "--db", database, "--log-level", "error"], in: directory)
        let client = try server.client()
        try E2E.addMock(client, url: "/kept", body: "kept")
        XCTAssertEqual(unlink(database), 0)

        let health = try client.request("GET", "/catbird/api/health")
        XCTAssertEqual(health.status, 503, health.text)
        let reason = health.object["reason"] as? String ?? ""
        XCTAssertTrue(reason.contains("the database file was deleted or replaced"), health.text)
        XCTAssertTrue(reason.contains("\(database) was deleted"), health.text)
        let update = try client.json("POST", "/catbird/api/mocks", E2E.updateAction(url: "/after-rm", body: Array("x".utf8)))
        E2E.assertError(update, status: 503, reasonContains: "\(database) was deleted")
        let removeAll = try client.json("POST", "/catbird/api/mocks", #"{"type":"removeAll"}"#)
        E2E.assertError(removeAll, status: 503, reasonContains: "deleted or replaced")
        XCTAssertEqual(try client.request("GET", "/kept").text, "kept", "mocks are still served from memory")
        XCTAssertEqual(try client.request("GET", "/after-rm").status, 404, "the refused change is not served either")
        let ended = try server.terminate()
        // 4: rows were dropped (tester50a-F5: a stop that lost rows exited 0).
        XCTAssertEqual(ended.status, 4, ended.stderr.suffix(2000).description)
        XCTAssertTrue(ended.stderr.contains("journal: dropped"), "the journal rows not kept are logged: \(ended.stderr.suffix(2000))")
    }

    /// Regression (tester finding tester39b-F4): after `rm` of the database file under the
    /// server, `catbird_database_bytes` fell by the file's size (7,454,720 → the `-wal`'s
    /// 4,152,992 alone), though the server still held the deleted file open and its bytes stayed
    /// on disk. The gauge now measures the file the server holds: after 800 journaled uploads of
    /// 20 KB and `rm`, it is still at least the file's size before the `rm`.
    func testTheDatabaseBytesGaugeCountsAFileDeletedUnderTheServer() throws {
        let server = try LaunchedServer(["--port", "\(try FreePort.next())", "--db", database, "--log-level", "error"], in: directory)
        let client = try server.client()
        try E2E.addMock(client, method: "POST", url: "/up", body: "ok")
        let body = [UInt8](repeating: UInt8(ascii: "u"), count: 20_000)
        for _ in 0..<800 { XCTAssertEqual(try client.request("POST", "/up", body: body).status, 200) }
        // The rows reach the file once the WAL is checkpointed (every ~4 MB of it).
        let deadline = ContinuousClock.now + .seconds(10)
        var fileBytes = 0
        repeat {
            fileBytes = (try FileManager.default.attributesOfItem(atPath: database)[.size] as? NSNumber)?.intValue ?? 0
            if fileBytes <= 4_000_000 { usleep(100_000) }
        } while fileBytes <= 4_000_000 && ContinuousClock.now < deadline
        XCTAssertGreaterThan(fileBytes, 4_000_000, "the uploads' rows reached the file")
        XCTAssertEqual(unlink(database), 0)

        let scrape = try client.request("GET", "/catbird/metrics").text
        let gauge = scrape.split(separator: "\n").first { $0.hasPrefix("catbird_database_bytes ") }
        let bytes = try XCTUnwrap(gauge.flatMap { Int($0.split(separator: " ")[1]) }, scrape)
        XCTAssertGreaterThanOrEqual(bytes, fileBytes, "the deleted file the server still holds counts")
        _ = try server.terminate()
    }

    /// Regression (T13-F8): the file moved away under the server (a CI step collecting it as an
    /// artifact) still took changes with 201, none of which reached the file. Now changes get
    /// 503 while nothing is at the path; once the file is back, they commit again, and a
    /// restart finds every acknowledged one.
    func testADatabaseFileMovedAwayRefusesChangesUntilItIsBack() throws {
        let arguments = ["--port", "\(try FreePort.next())", "--db", database, "--log-level", "error"]
        let server = try LaunchedServer(arguments, in: directory)
        let client = try server.client()
        try E2E.addMock(client, url: "/kept", body: "kept")
        let moved = directory.appendingPathComponent("moved.sqlite").path
        XCTAssertEqual(rename(database, moved), 0)

        let update = try client.json("POST", "/catbird/api/mocks", E2E.updateAction(url: "/while-moved", body: Array("x".utf8)))
        E2E.assertError(update, status: 503, reasonContains: "nothing is at \(database) any more (the file was moved away or deleted)")
        let health = try client.request("GET", "/catbird/api/health")
        XCTAssertEqual(health.status, 503, health.text)
        XCTAssertTrue((health.object["reason"] as? String ?? "").contains("the database file was deleted or replaced"), health.text)

        XCTAssertEqual(rename(moved, database), 0)
        try E2E.addMock(client, url: "/after", body: "after")
        let back = try client.request("GET", "/catbird/api/health")
        XCTAssertEqual(back.status, 200, "the file is back: \(back.text)")
        XCTAssertEqual(try server.terminate().status, 0)

        let restarted = try LaunchedServer(arguments, in: directory)
        let again = try restarted.client()
        XCTAssertEqual(try again.request("GET", "/kept").text, "kept")
        XCTAssertEqual(try again.request("GET", "/after").text, "after", "the change acknowledged once the file was back is kept")
        XCTAssertEqual(try again.request("GET", "/while-moved").status, 404, "the refused change was never acknowledged")
        XCTAssertEqual(try restarted.terminate().status, 0)
    }

    /// Regression (T13-F8, a CI `git clean -fdx`): the file and its `-wal` and `-shm` deleted,
    /// then a new file at the path. Changes are refused, saying first that the file was
    /// deleted, then that the path names another file.
    func testADatabaseFileDeletedWithItsWALAndThenReplacedRefusesChanges() throws {
        let server = try LaunchedServer(["--port", "\(try FreePort.next())", "--db", database, "--log-level", "error"], in: directory)
        let client = try server.client()
        try E2E.addMock(client, url: "/kept", body: "kept")
        for suffix in ["", "-wal", "-shm"] { XCTAssertEqual(unlink(database + suffix), 0, suffix) }
        let deleted = try client.json("POST", "/catbird/api/mocks", E2E.updateAction(url: "/after-clean", body: Array("x".utf8)))
        E2E.assertError(deleted, status: 503, reasonContains: "\(database) was deleted")
        XCTAssertEqual(try client.request("GET", "/kept").text, "kept", "mocks are still served from memory")

        XCTAssertTrue(FileManager.default.createFile(atPath: database, contents: Data()))
        let replaced = try client.json("POST", "/catbird/api/mocks", E2E.updateAction(url: "/after-clean", body: Array("x".utf8)))
        E2E.assertError(replaced, status: 503, reasonContains: "\(database) now names another file (the file was replaced)")
        let health = try client.request("GET", "/catbird/api/health")
        XCTAssertEqual(health.status, 503, health.text)
        XCTAssertTrue((health.object["reason"] as? String ?? "").contains("now names another file"), health.text)
        // 4 when the journal dropped the rows of requests answered meanwhile (logged).
        let ended = try server.terminate()
        XCTAssertEqual(ended.status, ended.stderr.contains("journal: dropped") ? 4 : 0, ended.stderr.suffix(2000).description)
    }

    /// With `--durability strict`, a mock's answer whose journal row cannot be kept, the file
    /// being deleted, is withheld (503) rather than sent unjournaled, as on a full disk (T13-F8).
    func testStrictDurabilityWithholdsAnswersWhileTheFileIsDeleted() throws {
        var settings = CatbirdServer.Settings(port: 0, databasePath: database, logLevel: .error)
        settings.durability = .strict
        let server = try CatbirdServer(settings: settings)
        try server.start()
        defer { server.stop() }
        let client = try RawHTTPClient(port: server.port)
        try E2E.addMock(client, url: "/ok", body: "from memory")
        XCTAssertEqual(try client.request("GET", "/ok").text, "from memory")
        XCTAssertEqual(unlink(database), 0)

        E2E.assertError(try client.request("GET", "/ok"), status: 503, reasonContains: "could not be written to the journal")
        let health = try client.request("GET", "/catbird/api/health")
        XCTAssertEqual(health.status, 503, health.text)
        let reason = health.object["reason"] as? String ?? ""
        XCTAssertTrue(reason.contains("the database file was deleted or replaced"), health.text)
        XCTAssertTrue(reason.contains("answers are withheld (503)"), health.text)
    }

    /// Regression (tester finding T13-F12): with a running server's file moved away, a second
    /// start on its path failed (disk I/O error) and deleted that server's `-wal` and `-shm`,
    /// and with them every change not yet copied into the file. Now the start refuses with
    /// exit 3 naming them, and removes only the file it created itself: once the first server
    /// stops and the file is put back, its mocks are all there.
    func testAStartFindingAnotherServersWALWithoutItsFileTouchesNothing() throws {
        let arguments = ["--port", "\(try FreePort.next())", "--db", database, "--log-level", "error"]
        let first = try serverWithMocksInItsWAL(arguments)
        let moved = directory.appendingPathComponent("moved.sqlite").path
        XCTAssertEqual(rename(database, moved), 0)

        try assertRefused(saying: "found \(database)-wal and \(database)-shm without the database file itself")
        XCTAssertTrue(FileManager.default.fileExists(atPath: database + "-wal"), "the other server's WAL is left alone")
        XCTAssertTrue(FileManager.default.fileExists(atPath: database + "-shm"), "the other server's WAL index is left alone")
        XCTAssertFalse(FileManager.default.fileExists(atPath: database), "the failed start removed the file it had created")

        XCTAssertEqual(try first.terminate().status, 0)
        XCTAssertEqual(rename(moved, database), 0)
        let next = try LaunchedServer(arguments, in: directory)
        let again = try next.client()
        for index in 0..<20 { XCTAssertEqual(try again.request("GET", "/kept/\(index)").text, "kept \(index)") }
        XCTAssertEqual(try next.terminate().status, 0)
    }

    /// Regression: the check above ran only when the start created the file, so an empty file
    /// at the path (a `touch` after the running server's file was deleted, or a racing start
    /// that created it) was opened as a new database, and SQLite deleted the other server's
    /// `-wal` beside it. Now the start refuses with exit 3 naming them and leaves all three as
    /// they were.
    func testAStartFindingAnotherServersWALBesideAnEmptyFileTouchesNothing() throws {
        let first = try serverWithMocksInItsWAL(["--port", "\(try FreePort.next())", "--db", database, "--log-level", "error"])
        XCTAssertEqual(unlink(database), 0)
        XCTAssertTrue(FileManager.default.createFile(atPath: database, contents: Data()), "touch")
        let wal = try inode(database + "-wal"), shm = try inode(database + "-shm")

        try assertRefused(saying: "found \(database)-wal and \(database)-shm beside an empty database file")
        XCTAssertEqual(try inode(database + "-wal"), wal, "the other server's WAL is left alone")
        XCTAssertGreaterThan(try fileSize(database + "-wal"), 0, "the other server's WAL still holds its mocks")
        XCTAssertEqual(try inode(database + "-shm"), shm, "the other server's WAL index is left alone")
        XCTAssertEqual(try fileSize(database), 0, "the empty file is left as it was")
        XCTAssertEqual(try first.terminate().status, 0)
    }

    // MARK: - Helpers

    /// A server started with `arguments` (its `--db` the test's database), holding 20 mocks
    /// (`GET /kept/<n>` → "kept <n>") in its `-wal` only.
    private func serverWithMocksInItsWAL(_ arguments: [String]) throws -> LaunchedServer {
        let server = try LaunchedServer(arguments, in: directory)
        let client = try server.client()
        for index in 0..<20 { try E2E.addMock(client, url: "/kept/\(index)", body: "kept \(index)") }
        XCTAssertGreaterThan(try fileSize(database + "-wal"), 0, "the mocks are in the WAL")
        return server
    }

    /// The inode number of the file at `path`.
    private func inode(_ path: String) throws -> UInt64 {
        try XCTUnwrap((try FileManager.default.attributesOfItem(atPath: path)[.systemFileNumber] as? NSNumber)?.uint64Value, path)
    }

    /// A client for each server, after adding to each the mock `GET /ok` → "from memory".
    private func clientsServingOK(_ relaxed: CatbirdServer, _ strict: CatbirdServer) throws -> (RawHTTPClient, RawHTTPClient) {
        let clients = try [relaxed, strict].map { try RawHTTPClient(port: $0.port) }
        for client in clients { try E2E.addMock(client, url: "/ok", body: "from memory") }
        return (clients[0], clients[1])
    }

    /// A database with a mock `/kept` (for GET and POST; and `mocks - 2` more, `GET /more/<n>`)
    /// and 300 journal rows with 1 KB bodies (many pages).
    private func makeDatabase(mocks: Int = 2) throws {
        let server = try CatbirdServer(settings: .init(port: 0, databasePath: database, logLevel: .error))
        try server.start()
        let client = try RawHTTPClient(port: server.port)
        try E2E.addMock(client, method: "POST", url: "/kept", body: "kept")
        try E2E.addMock(client, url: "/kept", body: "kept")
        for index in 0..<max(0, mocks - 2) { try E2E.addMock(client, url: "/more/\(index)", body: "more") }
        for _ in 0..<300 {
            XCTAssertEqual(try client.request("POST", "/kept", body: Array(repeating: 0x61, count: 1024)).status, 200)
        }
        server.stop()
        XCTAssertFalse(FileManager.default.fileExists(atPath: database + "-wal"), "a clean stop leaves no WAL")
    }

    /// Runs `sql` in Python's sqlite3 in WAL mode and exits without closing, as a crash would:
    /// the change stays in the `-wal` file.
    private func crashAfterWriting(_ sql: String) throws {
        let script = """
            import os, sqlite3, sys
            db = sqlite3.connect(sys.argv[1], isolation_level=None)
            db.execute("PRAGMA journal_mode=WAL")
            db.execute("PRAGMA wal_autocheckpoint=0")
            db.execute(sys.argv[2])
            os._exit(0)
            """
        let result = try ProcessRunner.run(URL(fileURLWithPath: "/usr/bin/env"), ["python3", "-c", script, database, sql], in: directory)
        XCTAssertEqual(result.status, 0, result.output)
        XCTAssertGreaterThan((try? fileSize(database + "-wal")) ?? 0, 0, "the change is left in the WAL")
    }

    /// Writes `file` until the file system is full.
    private func fillDisk(with file: URL) throws {
        let descriptor = open(file.path, O_WRONLY | O_CREAT, 0o644)
        XCTAssertGreaterThanOrEqual(descriptor, 0)
        defer { close(descriptor) }
        let block = [UInt8](repeating: 0, count: 64 * 1024)
        while block.withUnsafeBytes({ write(descriptor, $0.baseAddress, $0.count) }) > 0 {}
        XCTAssertEqual(errno, ENOSPC)
    }

    /// Polls `GET /catbird/api/health` (at most 15 s, or 1 s when not `required`) until it
    /// answers `status`; asserts it did when `required`.
    private func waitForHealth(_ client: RawHTTPClient, status: Int, required: Bool = true) throws -> RawResponse {
        let deadline = ContinuousClock.now + .seconds(required ? 15 : 1)
        var health = try client.request("GET", "/catbird/api/health")
        while health.status != status && ContinuousClock.now < deadline {
            usleep(50_000)
            _ = try client.request("GET", "/ok")  // something for the journal writer to commit
            health = try client.request("GET", "/catbird/api/health")
        }
        if required { XCTAssertEqual(health.status, status, health.text) }
        return health
    }

    private func fileSize(_ path: String) throws -> Int {
        (try FileManager.default.attributesOfItem(atPath: path)[.size] as? Int) ?? 0
    }

    /// Runs `catbird` on ``database`` and asserts it exits 3 with `message` in its log.
    private func assertRefused(saying message: String, file: StaticString = #filePath, line: UInt = #line) throws {
        let result = try E2E.startOnce(database: database, in: directory)
        XCTAssertEqual(result.status, 3, result.output, file: file, line: line)
        XCTAssertTrue(result.stderr.contains(message), result.stderr, file: file, line: line)
    }
}
