import CatbirdTestSupport
import Foundation
import Synchronization
import XCTest
#if canImport(Glibc)
import Glibc
#endif

/// A file-size limit (RLIMIT_FSIZE: `ulimit -f`, systemd's `LimitFSIZE=`, `docker run --ulimit
/// fsize=`) reached by the database's `-wal` under a running server (README.md#storage-faults,
/// "a write error while running").
final class FileSizeLimitTests: XCTestCase {
    /// Regression (tester findings T18B-F1 and T18B-F3, their repro): with the server's file-size
    /// limit at its `-wal`'s size, 60 journaled requests with 80,000-byte bodies. Before,
    /// the `-wal` reaching the limit killed the server with SIGXFSZ at that write (answers after
    /// it got no status line, nothing was logged, answered requests not yet journaled were lost);
    /// and a write refused with EFBIG (SQLITE_IOERR_WRITE) had its journal round dropped after
    /// three attempts. Now the server lives on degraded, every request is answered, and once the
    /// limit is lifted every answered request is in the journal and no row was dropped.
    func testReachingAFileSizeLimitDegradesAndLosesNothing() throws {
        try LaunchedServer.withTemporaryDatabase { server, client, database in
            try E2E.addMock(client, url: "/limited", body: "ok", limit: 5)
            XCTAssertEqual(try client.request("GET", "/limited").status, 200)

            // The limit at the `-wal`'s size, which ends on a frame (a 24-byte header and a 4,096-byte
            // page after the 32-byte file header): SQLite's next frame gets EFBIG with nothing
            // written, which it reports as SQLITE_IOERR_WRITE ("disk I/O error"; a limit inside a
            // frame makes a short write, reported as SQLITE_FULL, the full disk's case).
            let sizes = try ["", "-wal", "-shm"].map { try FileManager.default.attributesOfItem(atPath: database + $0)[.size] as? Int ?? 0 }
            let wal = sizes[1]
            XCTAssertEqual((wal - 32) % 4_120, 0, "the -wal ends on a frame")
            XCTAssertEqual(sizes.max(), wal, "the -wal is the largest file: \(sizes)")
            try FileSizeLimit.set(of: server.process.processIdentifier, soft: wal)

            var generator = SeededRandom(seed: 18)
            let body = (0..<80_000).map { _ in UInt8(ascii: "a") + UInt8(generator.next() % 26) }
            for index in 1...60 {
                let answer = try client.request("POST", "/up/\(index)", body: body)
                XCTAssertEqual(answer.status, 404, "request \(index) of 60: \(answer.text.prefix(200))")
            }
            XCTAssertEqual(try client.request("GET", "/limited").status, 200, "mocks still served from memory")
            XCTAssertTrue(server.process.isRunning, "the server lives on: \(server.stderrText)")
            let health = try client.request("GET", "/catbird/api/health")
            XCTAssertEqual(health.status, 503, "degraded while writes fail: \(health.text)")
            usleep(1_000_000)  // longer than a round's three attempts (about 0.3 s), after which a round was dropped

            try FileSizeLimit.set(of: server.process.processIdentifier, soft: nil)
            var counted: Int?
            let deadline = Date().addingTimeInterval(20)
            while Date() < deadline {
                let answer = try client.json(
                    "POST", "/catbird/api/requests/count", #"{"pattern":{"method":"POST","url":{"kind":"wildcard","value":"/up/*"}}}"#)
                if answer.status == 200, let count = JSONNumber.int(answer.object["count"]), count == 60 {
                    counted = count
                    break
                }
                usleep(200_000)
            }
            XCTAssertEqual(counted, 60, "every answered request journaled once writes succeed again: \(server.stderrText.suffix(2000))")
            XCTAssertEqual(try E2E.metrics(client)["catbird_journal_dropped_rows_total"], 0, "no row dropped")
            XCTAssertEqual(try client.request("GET", "/catbird/api/health").status, 200)
            XCTAssertTrue(
                server.stderrText.contains("kept queued to try again: the database file could not be read or written (disk I/O error)"),
                "the write error's case, not the full disk's: \(server.stderrText.suffix(2000))")
            let ended = try server.terminate()
            XCTAssertEqual(ended.status, 0, ended.stderr)
        }
    }

    /// Regression (tester finding tester39b-F2): standard error redirected to a file (`catbird …
    /// >> catbird.log 2>&1`) under the file-size limit the docs recommend: once the file reached
    /// the limit every line was lost (each write failed with EFBIG), while
    /// `catbird_log_lines_dropped_total` said 0 and, once the limit was lifted, no line said a
    /// gap existed. Those lines are counted, and the next line written says how many and why.
    func testLogLinesLostToAFileSizeLimitAreCountedAndSaid() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("catbird-log-limit-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let server = try LaunchedServer(
            ["--port", "\(try FreePort.next())", "--db", directory.appendingPathComponent("db.sqlite").path, "--log-level", "info"],
            in: directory)
        defer { if server.process.isRunning { _ = try? server.terminate() } }
        let client = try server.client()
        do {
            XCTAssertEqual(try client.request("GET", "/before").status, 404)
            usleep(200_000)
            let logged = server.stderrText.utf8.count
            XCTAssertTrue(server.stderrText.contains("GET /before"), server.stderrText)
            try FileSizeLimit.set(of: server.process.processIdentifier, soft: logged)
            for index in 1...3 { XCTAssertEqual(try client.request("GET", "/lost/\(index)").status, 404) }
            let dropped = try XCTUnwrap(try E2E.metrics(client)["catbird_log_lines_dropped_total"])
            XCTAssertGreaterThanOrEqual(dropped, 3, "the three requests' lines, at least")
            XCTAssertEqual(server.stderrText.utf8.count, logged, "nothing reached the file past its limit")

            try FileSizeLimit.set(of: server.process.processIdentifier, soft: nil)
            XCTAssertEqual(try client.request("GET", "/after").status, 404)
            usleep(200_000)
            let log = server.stderrText
            XCTAssertTrue(
                log.contains("line\(dropped == 1 ? "" : "s") dropped: standard error is a file at the process's file-size limit (RLIMIT_FSIZE")
                    || log.contains("lines dropped: standard error is a file at the process's file-size limit (RLIMIT_FSIZE"),
                "the gap is said: \(log.suffix(1500))")
            XCTAssertTrue(log.contains("GET /after"), log.suffix(1500).description)
            XCTAssertFalse(log.contains("GET /lost/"), "those lines were lost")
        }
    }

    /// Regression (tester finding tester29b-F1, its write-error form: `chattr +i` on the `-wal`,
    /// one `update`, `chattr -i`, health polled for 12 s): a write fault that only a control
    /// change met left nothing queued, so once the file took writes again no write came by
    /// itself, and health answered 503 until the next journaled request, which a pod its
    /// readiness probe took out of service never gets. Health now tries one write in the
    /// background (at most once a second) while such a fault is reported, so it answers 200
    /// within seconds of the limit being lifted, with no other request. Here the fault is a
    /// file-size limit of one byte, so that no write fits (at the `-wal`'s size, a small write
    /// still fits in a `-wal` that restarts from its start after a checkpoint), met by one
    /// 30,000-byte `update`.
    func testHealthEndsAWriteFaultThatOnlyAControlChangeMetWithoutOtherRequests() throws {
        try LaunchedServer.withTemporaryDatabase { server, client, _ in
            try E2E.addMock(client, url: "/f1", body: String(repeating: "a", count: 30_000))
            try FileSizeLimit.set(of: server.process.processIdentifier, soft: 1)
            let update = try client.json(
                "POST", "/catbird/api/mocks", E2E.updateAction(url: "/f2", body: Array(String(repeating: "b", count: 30_000).utf8)))
            XCTAssertEqual(update.status, 503, update.text)
            let during = try client.request("GET", "/catbird/api/health")
            XCTAssertEqual(during.status, 503, during.text)
            usleep(1_500_000)  // past a probe's interval: a probe under the limit fails and keeps the fault
            XCTAssertEqual(try client.request("GET", "/catbird/api/health").status, 503, "still degraded while writes fail")

            try FileSizeLimit.set(of: server.process.processIdentifier, soft: nil)
            let statuses = try E2E.healthStatusesUntilOK(client, every: 500_000)
            XCTAssertEqual(statuses.last, 200, "health only, every 0.5 s: \(statuses)")
            XCTAssertEqual(try client.json("POST", "/catbird/api/mocks", E2E.updateAction(url: "/f2", body: Array("b".utf8))).status, 201)
            let ended = try server.terminate()
            XCTAssertEqual(ended.status, 0, ended.stderr)
        }
    }

    /// Regression (tester findings tester26b-F6 and tester25a-F8)    /// Regression (tester findings tester26b-F6 and tester25a-F8): under a file-size limit, with
    /// the journal queue full of one tenant's flood (its rows dropped at once while the writer
    /// fails), health said journal rows "stay queued and are written once the database takes
    /// writes again" while 292,691 had been dropped. It now counts them, as the busy lock's
    /// reason does.
    func testHealthCountsTheRowsDroppedUnderAFileSizeLimit() throws {
        try LaunchedServer.withTemporaryDatabase { server, client, database in
            try E2E.addMock(client, url: "/flood", body: "ok")
            XCTAssertEqual(try client.request("GET", "/flood").status, 200)
            let wal = try FileManager.default.attributesOfItem(atPath: database + "-wal")[.size] as? Int ?? 0
            try FileSizeLimit.set(of: server.process.processIdentifier, soft: wal)
            defer { try? FileSizeLimit.set(of: server.process.processIdentifier, soft: nil) }

            // Small hits on 8 connections until the queue (16,384 rows) is full and rows are dropped.
            let group = DispatchGroup()
            let port = server.port
            let done = Atomic(false)
            for _ in 0..<8 {
                group.enter()
                Thread {
                    defer { group.leave() }
                    guard let flooder = try? RawHTTPClient(port: port, timeoutSeconds: 30) else { return }
                    while !done.load(ordering: .relaxed), (try? flooder.request("GET", "/flood"))?.status == 200 {}
                }.start()
            }
            var dropped = 0.0
            let deadline = Date().addingTimeInterval(60)
            while dropped == 0, Date() < deadline {
                usleep(200_000)
                dropped = try E2E.metrics(client)["catbird_journal_dropped_rows_total"] ?? 0
            }
            let health = try client.request("GET", "/catbird/api/health")
            done.store(true, ordering: .relaxed)
            _ = group.wait(timeout: .now() + 30)
            XCTAssertGreaterThan(dropped, 0, "the flood filled the queue")
            XCTAssertEqual(health.status, 503, health.text)
            let reason = health.object["reason"] as? String ?? ""
            XCTAssertTrue(reason.hasPrefix("the database file could not be read or written (disk I/O error)"), reason)
            XCTAssertTrue(reason.contains(" were dropped meanwhile (lost; each drop is logged; mock hits are kept and written later)"), reason)
        }
    }

    /// Regression (tester finding T19B-F13, its start: `(ulimit -f 3000; exec catbird --port …
    /// --db fs.sqlite --log-level warning)`): a limit of 3,072,000 bytes, below the 4 MiB the
    /// `-wal` reaches before its first checkpoint, started without a word, and 80 uploads later
    /// every write failed for good. The start now warns, giving the limit, what the database
    /// needs and the way out; a server without a limit says nothing of it.
    /// Tester finding tester46b-F4, its limits: a new database under `ulimit -f` 10, 40, 100
    /// or 200 (KiB) failed to start saying "the disk holding the database is full" (exit 1) or
    /// "the database file could not be read or written (disk I/O error)" (exit 3, which tells a
    /// supervisor not to restart), with the disk far from full; the limit was never named. Each
    /// now names the limit as the likely cause and exits 1.
    func testAStartThatALowFileSizeLimitFailsNamesTheLimit() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("catbird-fsize-start-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        for kibibytes in [10, 40, 100, 200] {
            let database = directory.appendingPathComponent("new\(kibibytes).sqlite").path
            let result = try ProcessRunner.run(
                URL(fileURLWithPath: "/bin/bash"),
                ["-c", #"ulimit -S -f \#(kibibytes) && exec "$0" "$@""#, try BuiltProducts.executable(named: "catbird").path,
                 "--port", "\(try FreePort.next())", "--db", database, "--log-level", "warning"],
                in: directory, environment: LaunchedServer.childEnvironment([:]), seconds: 30)
            XCTAssertEqual(result.status, 1, "\(kibibytes) KiB: \(result.stderr)")
            XCTAssertTrue(
                result.stderr.contains("the file-size limit (RLIMIT_FSIZE: ulimit -f, LimitFSIZE=) is \(kibibytes * 1024) bytes, below the "
                    + "database file's"), "\(kibibytes) KiB: \(result.stderr)")
            XCTAssertTrue(result.stderr.contains("is the likely cause, not the disk or the file"), result.stderr)
        }
    }

    func testALimitBelowWhatTheDatabaseNeedsIsWarnedAboutAtStartUp() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("catbird-fsize-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let database = directory.appendingPathComponent("fs.sqlite").path
        let port = try FreePort.next()
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/bash")  // its `ulimit -f` counts KiB (dash's, 512-byte blocks)
        process.arguments = [
            "-c", #"ulimit -f 3000 && exec "$0" "$@""#, try BuiltProducts.executable(named: "catbird").path,
            "--port", "\(port)", "--db", database, "--log-level", "warning",
        ]
        process.environment = LaunchedServer.childEnvironment([:])
        let stderr = Pipe()
        process.standardError = stderr
        process.standardOutput = FileHandle.nullDevice
        try process.run()
        defer { if process.isRunning { process.terminate() }; process.waitUntilExit() }
        // Health first, then the stop, then stderr to its end: a read never waits for a line that is not coming.
        var health = 0
        let deadline = ContinuousClock.now + .seconds(30)
        while ContinuousClock.now < deadline, process.isRunning, health != 200 {
            health = (try? RawHTTPClient(port: port).request("GET", "/catbird/api/health").status) ?? 0
            if health != 200 { usleep(100_000) }
        }
        XCTAssertEqual(health, 200, "warned, not refused")
        process.terminate()
        process.waitUntilExit()
        let output = String(decoding: stderr.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        // The file's size as the start read it (a checkpoint may have grown it since).
        let sizeStart = try XCTUnwrap(output.range(of: "below the database file's "), output).upperBound
        let size = try XCTUnwrap(Int(output[sizeStart...].prefix { $0.isNumber }), output)
        XCTAssertGreaterThan(size, 0, output)
        XCTAssertTrue(
            output.contains(
                "[warning] the file-size limit (RLIMIT_FSIZE: ulimit -f, LimitFSIZE=) is 3072000 bytes, below the database file's "
                    + "\(size) bytes plus 64 MiB (\(size + (64 << 20)) bytes) for its -wal (checkpointed into the file only at about "
                    + "4 MiB, larger in a burst) and the file's growth: once either reaches the limit every write fails and the "
                    + "server stays degraded, a journal clear included, until the limit is raised (prlimit --pid, or a restart "
                    + "with a higher one; README.md#storage-faults)\n"),
            output)

        let unlimited = try LaunchedServer(["--port", "\(try FreePort.next())", "--db", database + ".2"], in: directory)
        let ended = try unlimited.terminate()
        XCTAssertEqual(ended.status, 0, ended.stderr)
        XCTAssertFalse(ended.stderr.contains("RLIMIT_FSIZE"), ended.stderr)
    }
}
