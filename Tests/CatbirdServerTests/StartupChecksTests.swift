import CatbirdServer
import CatbirdStorage
import CatbirdTestSupport
import Foundation
import XCTest
#if canImport(Glibc)
import Glibc
#endif

/// What `catbird` checks before it touches anything, and one server per database file
/// whatever the path (issue: the lock went by the path, a lock file was left beside files that
/// are not ours, an empty `--db=` gave an SQL error, a busy port was found after migrating,
/// an IPv6 address was logged as an unusable URL, `--max-body-size 0` got a wrong message).
final class StartupChecksTests: XCTestCase {
    private var directory: URL!

    override func setUpWithError() throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("catbird-startup-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    }

    override func tearDown() {
        if let directory { try? FileManager.default.removeItem(at: directory) }
    }

    // MARK: - One server per database file

    /// Regression: a second server reached the same file through a symbolic link, a `./a/../`
    /// spelling or a hard link, and the two then disagreed on mocks.
    func testASecondServerIsRefusedWhateverPathReachesTheSameFile() throws {
        let database = directory.appendingPathComponent("db.sqlite").path
        let first = try CatbirdServer(settings: .init(port: 0, databasePath: database, logLevel: .error))
        try first.start()
        defer { first.stop() }
        try FileManager.default.createDirectory(at: directory.appendingPathComponent("a"), withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(atPath: directory.appendingPathComponent("link.sqlite").path, withDestinationPath: database)
        try FileManager.default.linkItem(atPath: database, toPath: directory.appendingPathComponent("hard.sqlite").path)
        let spellings = [
            directory.appendingPathComponent("link.sqlite").path,
            directory.path + "/./a/../db.sqlite",
            directory.appendingPathComponent("hard.sqlite").path,
            database,
        ]
        for path in spellings {
            XCTAssertThrowsError(try CatbirdServer(settings: .init(port: 0, databasePath: path, logLevel: .error)), path) { error in
                XCTAssertTrue("\(error)".contains("is in use by another Catbird server"), "\(path): \(error)")
            }
        }
        let names = try FileManager.default.contentsOfDirectory(atPath: directory.path)
        XCTAssertFalse(names.contains { $0.hasSuffix(".lock") }, "no lock file beside the database: \(names)")
    }

    /// The lock goes with the process: the binary killed with SIGKILL leaves the file free.
    func testTheLockIsFreeAfterTheHolderIsKilled() throws {
        let database = directory.appendingPathComponent("killed.sqlite").path
        let holder = try LaunchedServer(["--port", "\(try FreePort.next())", "--db", database, "--log-level", "error"], in: directory)
        let refused = try run(["--port", "\(try FreePort.next())", "--db", database])
        XCTAssertEqual(refused.status, 1, refused.output)
        XCTAssertTrue(refused.stderr.contains("is in use by another Catbird server"), refused.stderr)
        _ = try holder.terminate(signal: SIGKILL)
        let next = try LaunchedServer(["--port", "\(try FreePort.next())", "--db", database, "--log-level", "error"], in: directory)
        XCTAssertEqual(try next.terminate().status, 0)
    }

    /// Regression (T14B-F3): `--db file:foo.sqlite` was read by SQLite as a URI: the server
    /// locked and checked the empty file `file:foo.sqlite` but wrote `foo.sqlite`, which a second
    /// server on `--db foo.sqlite` then shared (two mocks at position 1). The file named is the
    /// file written, and a second server on it is refused.
    func testADatabasePathThatLooksLikeAnSQLiteURIIsTheFileOfThatName() throws {
        let first = try LaunchedServer(["--port", "\(try FreePort.next())", "--db", "file:foo.sqlite", "--log-level", "error"], in: directory)
        let update = try first.client().json(
            "POST", "/catbird/api/mocks", #"{"type":"update","pattern":{"method":"GET","url":{"kind":"equal","value":"/p"}},"response":{"status":200}}"#)
        XCTAssertEqual(update.status, 201, update.text)
        let refused = try run(["--port", "\(try FreePort.next())", "--db", directory.appendingPathComponent("file:foo.sqlite").path])
        XCTAssertEqual(refused.status, 1, refused.output)
        XCTAssertTrue(refused.stderr.contains("is in use by another Catbird server"), refused.stderr)
        XCTAssertEqual(try first.terminate().status, 0)
        XCTAssertFalse(FileManager.default.fileExists(atPath: directory.appendingPathComponent("foo.sqlite").path))
        let database = try Database(path: directory.appendingPathComponent("file:foo.sqlite").path, mode: .readOnly)
        XCTAssertEqual(try database.query("SELECT url_value FROM mocks").map { $0[0].stringValue }, ["/p"])
    }

    // MARK: - Checked before anything is touched

    /// Regression: `--db` naming a file that is not ours got a `<file>.lock` beside it, left
    /// there, and an SQL error.
    func testAFileThatIsNotADatabaseIsLeftAsItWasWithNothingBesideIt() throws {
        let notes = directory.appendingPathComponent("notes.txt")
        let text = String(repeating: "my notes, not a database\n", count: 400)
        try Data(text.utf8).write(to: notes)
        let result = try run(["--port", "\(try FreePort.next())", "--db", notes.path])
        XCTAssertEqual(result.status, 3, result.output)
        XCTAssertTrue(result.stderr.contains("database \(notes.path): the file is not an SQLite database"), result.stderr)
        XCTAssertEqual(try String(contentsOf: notes, encoding: .utf8), text, "the file is unchanged")
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: directory.path).sorted(), ["notes.txt"])
    }

    func testAnotherProgramsSQLiteDatabaseIsRefusedUnchanged() throws {
        let path = directory.appendingPathComponent("app.sqlite").path
        do {
            let db = try Database(path: path)
            try db.execute("CREATE TABLE customers (id INTEGER PRIMARY KEY, name TEXT)")
            try db.execute("PRAGMA journal_mode=DELETE")
            db.close()
        }
        let before = try Data(contentsOf: URL(fileURLWithPath: path))
        let result = try run(["--port", "\(try FreePort.next())", "--db", path])
        XCTAssertEqual(result.status, 3, result.output)
        XCTAssertTrue(result.stderr.contains("the file is an SQLite database of another program (tables customers"), result.stderr)
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: path)), before, "not migrated")
    }

    /// Regression (tester findings tester68b-F1/F2, their exact files): another program's
    /// database with a `schema_migrations` of its own (Rails' one column; a table of Catbird's
    /// shape recording version 1 as another migration) was taken for Catbird's: switched to
    /// WAL, then refused with a raw SQL error (or migrated from version 2 on); an empty file
    /// stamped with an `application_id` and `user_version` was taken over. Each is now refused
    /// as another program's, byte for byte unchanged.
    func testAnotherProgramsMigratedOrStampedDatabaseIsRefusedUnchanged() throws {
        for (file, script, expected) in [
            ("rails.sqlite",
             "CREATE TABLE schema_migrations (version varchar NOT NULL PRIMARY KEY); CREATE TABLE ar_internal_metadata (key varchar NOT NULL PRIMARY KEY, value varchar); CREATE TABLE users(id integer primary key, name text); INSERT INTO schema_migrations VALUES('20240101000000'); INSERT INTO users(name) VALUES('alice');",
             "the file is an SQLite database of another program (tables ar_internal_metadata, schema_migrations, users; its schema_migrations has the columns version, another migrator's, not version, name, applied_at); refusing to change it"),
            ("g.sqlite",
             "CREATE TABLE schema_migrations (version integer primary key, name text, applied_at text); INSERT INTO schema_migrations VALUES (1,'create_users','2024'); CREATE TABLE users(id integer primary key);",
             #"the file is an SQLite database of another program (tables schema_migrations, users; its schema_migrations records version 1 as "create_users", another migrator's, not 0001_initial); refusing to change it"#),
            ("c.sqlite", "PRAGMA user_version=42; PRAGMA application_id=1234;",
             "the file is an SQLite database of another program (no tables; its header's application_id is 1234 and user_version 42, which Catbird never sets); refusing to change it"),
        ] {
            let path = directory.appendingPathComponent(file).path
            do {
                let db = try Database(path: path)
                try db.execute("PRAGMA journal_mode=DELETE")
                try db.execute(script)
                db.close()
            }
            let before = try Data(contentsOf: URL(fileURLWithPath: path))
            let result = try run(["--port", "\(try FreePort.next())", "--db", path])
            XCTAssertEqual(result.status, 3, "\(file): \(result.output)")
            XCTAssertTrue(result.stderr.contains(expected), "\(file): \(result.stderr)")
            XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: path)), before, "\(file) is unchanged")
        }
    }

    func testAFolderGivenAsTheDatabaseGetsAClearMessage() throws {
        let result = try run(["--port", "\(try FreePort.next())", "--db", directory.path])
        XCTAssertEqual(result.status, 3, result.output)
        XCTAssertTrue(result.stderr.contains("give a file path, not a folder"), result.stderr)
        let missing = try run(["--port", "\(try FreePort.next())", "--db", directory.path + "/no/such/folder/db.sqlite"])
        XCTAssertEqual(missing.status, 3, missing.output)
        XCTAssertTrue(missing.stderr.contains("the folder does not exist"), missing.stderr)
    }

    /// Regression (tester finding T13-F13): a symbolic link to a missing file as `--db` was
    /// told "the folder does not exist", though the folder was there.
    func testADanglingSymbolicLinkSaysItsTargetIsMissing() throws {
        let target = directory.appendingPathComponent("nonexistent-target.sqlite").path
        let link = directory.appendingPathComponent("dangling.sqlite").path
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: target)
        let result = try run(["--port", "\(try FreePort.next())", "--db", link])
        XCTAssertEqual(result.status, 3, result.output)
        XCTAssertTrue(result.stderr.contains("it is a symbolic link to \(target), which does not exist"), result.stderr)
        XCTAssertFalse(result.stderr.contains("the folder does not exist"), result.stderr)
        XCTAssertFalse(FileManager.default.fileExists(atPath: target), "nothing created")
    }

    /// Regression (tester finding T13B-F7, nearby): `--db` naming a FIFO, `/dev/null`,
    /// `/dev/zero` or `/dev/full` failed with a misleading "disk I/O error" (or "the disk holding
    /// the database is full") and left `<db>-journal` beside it (`/dev/null-journal`). Now each,
    /// also through a symbolic link, exits 3 saying what it is, before anything opens it for
    /// writing: nothing is created beside it.
    func testADeviceOrAFIFOAsTheDatabaseIsRefusedWithNothingBesideIt() throws {
        let fifo = directory.appendingPathComponent("pipe.sqlite").path
        XCTAssertEqual(mkfifo(fifo, 0o644), 0, String(cString: strerror(errno)))
        let link = directory.appendingPathComponent("null-link.sqlite").path
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: "/dev/null")
        let cases = [
            (fifo, "a FIFO (named pipe)"), (link, "a character device"), ("/dev/null", "a character device"),
            ("/dev/zero", "a character device"), ("/dev/full", "a character device"),
        ]
        for (path, kind) in cases {
            let beside = ["-journal", "-wal", "-shm"].flatMap { [path + $0, "/dev/null" + $0] }
            let before = beside.filter(Self.exists)
            let result = try run(["--port", "\(try FreePort.next())", "--db", path])
            XCTAssertEqual(result.status, 3, "\(path): \(result.output)")
            XCTAssertTrue(result.stderr.contains("\(path) is \(kind), not a regular file: give a regular file's path"), result.stderr)
            XCTAssertEqual(beside.filter(Self.exists), before, "\(path): nothing is created beside it")
        }
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: directory.path).sorted(), ["null-link.sqlite", "pipe.sqlite"])
    }

    /// Regression (tester finding T13B-F7): `--db` naming a block device (a loop device over a
    /// scratch image here; `/dev/sdb` by a typo) passed the start-up check as an empty file (a
    /// device's size reads as 0), and SQLite wrote its header over the device's first pages, its
    /// partition table, then failed with exit 1 and left `<device>-shm` in `/dev`. Now exit 3
    /// before the device is opened for writing; its bytes are unchanged.
    func testABlockDeviceAsTheDatabaseIsLeftUnchanged() throws {
        let losetup = ["/usr/sbin/losetup", "/sbin/losetup"].first { FileManager.default.isExecutableFile(atPath: $0) }
        guard getuid() == 0, let losetup else {
            throw XCTSkip("making a loop device needs root and losetup; the FIFO and /dev/null test covers the same check")
        }
        let image = directory.appendingPathComponent("disk.img")
        var bytes = [UInt8](repeating: 0, count: 1 << 20)
        let label = Array("a disk's first bytes, not SQLite".utf8)
        bytes.replaceSubrange(0..<label.count, with: label)
        bytes[510] = 0x55
        bytes[511] = 0xAA  // an MBR's signature
        try Data(bytes).write(to: image)
        let attach = try ProcessRunner.run(URL(fileURLWithPath: losetup), ["-f", "--show", image.path], in: directory)
        guard attach.status == 0 else { throw XCTSkip("losetup could not attach a loop device: \(attach.output)") }
        let device = attach.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        defer { _ = try? ProcessRunner.run(URL(fileURLWithPath: losetup), ["-d", device], in: directory) }

        let result = try run(["--port", "\(try FreePort.next())", "--db", device])
        XCTAssertEqual(result.status, 3, result.output)
        XCTAssertTrue(result.stderr.contains("\(device) is a block device, not a regular file: give a regular file's path"), result.stderr)
        let handle = try XCTUnwrap(FileHandle(forReadingAtPath: device))
        defer { try? handle.close() }
        XCTAssertEqual(Array(try XCTUnwrap(try handle.read(upToCount: bytes.count))), bytes, "the device's bytes are unchanged")
        for suffix in ["-journal", "-wal", "-shm"] { XCTAssertFalse(Self.exists(device + suffix), "\(device + suffix) was created") }
    }

    /// Regression: `--db=` (empty) reached SQLite and came back as an SQL error.
    func testAnEmptyDatabasePathIsAUsageError() throws {
        for arguments in [["--db="], ["--db", ""]] {
            let result = try run(arguments)
            XCTAssertEqual(result.status, 2, "\(arguments): \(result.output)")
            XCTAssertTrue(result.stderr.contains("database path must not be empty"), "\(arguments): \(result.stderr)")
        }
    }

    /// Regression: `--max-body-size 0` was told it must be "bytes or a size like 1kb", which 0 is.
    func testAZeroMaxBodySizeGetsTheRightMessage() throws {
        let result = try run(["--max-body-size", "0"])
        XCTAssertEqual(result.status, 2, result.output)
        XCTAssertTrue(result.stderr.contains("max body size must be at least 1 byte, not '0'"), result.stderr)
        let unit = try run(["--max-body-size=0kb"])
        XCTAssertTrue(unit.stderr.contains("max body size must be at least 1 byte, not '0kb'"), unit.stderr)
    }

    /// Regression (tester finding tester42b-F16): a database locked by another program (a backup
    /// script run under `flock catbird.sqlite …`) was refused as "in use by another Catbird
    /// server", naming no process. The refusal now names the holder and says it is no Catbird.
    func testADatabaseLockedByAnotherProgramNamesIt() throws {
        let database = directory.appendingPathComponent("locked.sqlite").path
        let holder = Process()
        holder.executableURL = URL(fileURLWithPath: "/usr/bin/flock")
        holder.arguments = ["-x", database, "sleep", "5"]
        try holder.run()
        defer { holder.terminate(); holder.waitUntilExit() }
        var result = try run(["--port", "\(try FreePort.next())", "--db", database])
        for _ in 0..<20 where !result.stderr.contains("locked (flock)") {  // until flock holds it
            usleep(100_000)
            result = try run(["--port", "\(try FreePort.next())", "--db", database])
        }
        XCTAssertEqual(result.status, 1, result.output)
        XCTAssertTrue(
            result.stderr.contains(
                "database \(database) is locked (flock) by process \(holder.processIdentifier) (/usr/bin/flock -x \(database) sleep 5), "
                    + "which is not a Catbird server; wait for it to end, or choose another --db"),
            result.stderr)
    }

    /// Regression: a busy port was found only after the database had been created and migrated.
    func testABusyPortIsFoundBeforeTheDatabaseIsCreated() throws {
        let holder = try CatbirdServer(settings: .init(port: 0, databasePath: ":memory:", logLevel: .error))
        try holder.start()
        defer { holder.stop() }
        let database = directory.appendingPathComponent("never.sqlite")
        let result = try run(["--port", "\(holder.port)", "--db", database.path])
        XCTAssertEqual(result.status, 1, result.output)
        XCTAssertTrue(
            result.stderr.contains("cannot listen on 127.0.0.1:\(holder.port): another process listens on that port (choose another --port)"),
            result.stderr)
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: directory.path), [], "no database was created")
    }

    /// tester41a-F8: a port held only by a closed connection's TIME-WAIT (its client side was
    /// bound to that port and closed first) was refused as "in use by another process", and no
    /// process could be found to blame. The refusal now says that no process listens on it and
    /// what holds it.
    func testAPortHeldOnlyByAClosedConnectionSaysSo() throws {
        let port = try Self.portInTimeWait()
        let result = try run(["--port", "\(port)", "--db", directory.appendingPathComponent("never.sqlite").path])
        XCTAssertEqual(result.status, 1, result.output)
        XCTAssertTrue(
            result.stderr.contains(
                "cannot listen on 127.0.0.1:\(port): the port is in use although no process listens on it: "
                    + "a connection closed in the last 60 seconds (TCP TIME-WAIT) still holds it; wait up to a minute or choose another --port"),
            result.stderr)
        XCTAssertFalse(result.stderr.contains("another process"), result.stderr)
    }

    /// A local port in TIME-WAIT with no socket open on it: a loopback connection whose client
    /// side was bound to that port, closed by the client first. The port is outside the
    /// kernel's range for outgoing connections (below 32768), so that no other test's
    /// connection takes it over meanwhile (tcp_tw_reuse on loopback).
    private static func portInTimeWait() throws -> UInt16 {
        func loopback(_ port: UInt16) -> sockaddr_in {
            var address = sockaddr_in()
            address.sin_family = sa_family_t(AF_INET)
            address.sin_port = port.bigEndian
            address.sin_addr.s_addr = inet_addr("127.0.0.1")
            return address
        }
        func withAddress<T>(_ address: sockaddr_in, _ body: (UnsafePointer<sockaddr>, socklen_t) -> T) -> T {
            var address = address
            return withUnsafePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { body($0, socklen_t(MemoryLayout<sockaddr_in>.size)) } }
        }
        let listener = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(listener) }
        guard withAddress(loopback(0), { bind(listener, $0, $1) }) == 0, listen(listener, 1) == 0 else { throw POSIXError(.EADDRINUSE) }
        var bound = sockaddr_in()
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &bound) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(listener, $0, &length) } }
        let client = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var tries = 0
        while withAddress(loopback(UInt16.random(in: 20_000..<32_000)), { bind(client, $0, $1) }) != 0 {
            tries += 1
            if tries > 50 { throw POSIXError(.EADDRINUSE) }
        }
        guard withAddress(loopback(UInt16(bigEndian: bound.sin_port)), { connect(client, $0, $1) }) == 0 else { throw POSIXError(.ECONNREFUSED) }
        var local = sockaddr_in()
        length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &local) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(client, $0, &length) } }
        let accepted = accept(listener, nil, nil)
        close(client)  // the client first: its side goes to TIME-WAIT once the server's side closes too
        usleep(50_000)
        close(accepted)
        usleep(100_000)
        return UInt16(bigEndian: local.sin_port)
    }

    /// Regression: `--host ::1` was logged as `http://::1:8080`, which no client can use.
    func testAnIPv6AddressIsLoggedAsAUsableURL() throws {
        guard Self.loopbackIPv6Works() else { throw XCTSkip("this machine has no IPv6 loopback (::1)") }
        for host in ["::1", "[::1]"] {
            let port = try FreePort.next()
            let database = directory.appendingPathComponent("v6-\(port).sqlite").path
            let process = Process()
            process.executableURL = try BuiltProducts.executable(named: "catbird")
            process.arguments = ["--host", host, "--port", "\(port)", "--db", database, "--log-level", "info"]
            process.environment = LaunchedServer.childEnvironment([:])
            let errors = Pipe()
            process.standardError = errors
            process.standardOutput = FileHandle.nullDevice
            try process.run()
            var logged = ""
            let deadline = ContinuousClock.now + .seconds(20)
            while !logged.contains("listening on"), process.isRunning, ContinuousClock.now < deadline {
                let chunk = errors.fileHandleForReading.availableData
                if chunk.isEmpty { break }  // it exited
                logged += String(decoding: chunk, as: UTF8.self)
            }
            kill(process.processIdentifier, SIGTERM)
            try LaunchedServer.wait(for: process, seconds: 30)
            XCTAssertTrue(logged.contains("listening on http://[::1]:\(port) "), "\(host): \(logged)")
        }
    }

    /// Tester finding tester42b-F4, its steps: a server on `real.sqlite` killed (`kill -9`) after
    /// two acknowledged updates, `ln real.sqlite hard.sqlite`, a start on `hard.sqlite`. It
    /// found no `-wal` (SQLite names it after the path it opens), applied the migrations afresh
    /// and served no mocks; a third mock added there was rolled back by the next start on
    /// `real.sqlite`, which replayed the old `-wal`. Now the start through the other name is
    /// refused (exit 3) naming the `-wal` and what to do, and changes nothing; the start on
    /// `real.sqlite` keeps both mocks; after its clean stop, a start on `hard.sqlite` works,
    /// warning that the file has two names.
    func testAStartThroughAHardLinkWhoseOtherNameHasACrashedRunsWALIsRefused() throws {
        let real = directory.appendingPathComponent("real.sqlite").path
        let hard = directory.appendingPathComponent("hard.sqlite").path
        let killed = try LaunchedServer(["--port", "\(try FreePort.next())", "--db", real], in: directory)
        try E2E.addMock(try killed.client(), url: "/one", body: "1")
        try E2E.addMock(try killed.client(), url: "/two", body: "2")
        kill(killed.process.processIdentifier, SIGKILL)
        killed.process.waitUntilExit()
        XCTAssertEqual(link(real, hard), 0, "ln real.sqlite hard.sqlite")
        let walBefore = try Data(contentsOf: URL(fileURLWithPath: real + "-wal"))
        XCTAssertGreaterThan(walBefore.count, 0)

        let refused = try run(["--port", "\(try FreePort.next())", "--db", hard])
        XCTAssertEqual(refused.status, 3, refused.output)
        XCTAssertTrue(
            refused.stderr.contains(
                "database \(hard): \(hard) is another name (a hard link) of \(real), whose \(real)-wal (\(walBefore.count) bytes) holds "
                    + "changes not yet in the file, left by a server that did not stop cleanly (killed or crashed)"),
            refused.stderr)
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: real + "-wal")), walBefore, "the -wal is untouched")
        XCTAssertFalse(Self.exists(hard + "-wal"), "nothing made beside the other name")

        let replayed = try LaunchedServer(["--port", "\(try FreePort.next())", "--db", real], in: directory)
        XCTAssertEqual(try replayed.client().request("GET", "/one").text, "1")
        XCTAssertEqual(try replayed.client().request("GET", "/two").text, "2")
        XCTAssertEqual(try replayed.terminate().status, 0)
        let other = try LaunchedServer(["--port", "\(try FreePort.next())", "--db", hard], in: directory)
        XCTAssertEqual(try other.client().request("GET", "/two").text, "2", "the same file through its other name")
        let (status, _, stderr) = try other.terminate()
        XCTAssertEqual(status, 0, stderr)
        XCTAssertTrue(
            stderr.contains("[warning] database \(hard) has 2 names (hard links): SQLite keeps its -wal beside the name it opens"),
            stderr)
    }

    // MARK: - Helpers

    private func run(_ arguments: [String]) throws -> ProcessRunner.Result {
        try ProcessRunner.run(
            try BuiltProducts.executable(named: "catbird"), arguments, in: directory,
            environment: LaunchedServer.childEnvironment([:]), seconds: 30)
    }

    /// Whether anything (a dangling symbolic link too) is at `path`.
    private static func exists(_ path: String) -> Bool {
        var status = stat()
        return lstat(path, &status) == 0
    }

    private static func loopbackIPv6Works() -> Bool {
        let probe = socket(AF_INET6, Int32(SOCK_STREAM.rawValue), 0)
        guard probe >= 0 else { return false }
        defer { close(probe) }
        var address = sockaddr_in6()
        address.sin6_family = sa_family_t(AF_INET6)
        address.sin6_addr = in6addr_loopback
        return withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(probe, $0, socklen_t(MemoryLayout<sockaddr_in6>.size)) == 0 }
        }
    }
}
