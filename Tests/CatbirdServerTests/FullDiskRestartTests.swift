import CatbirdStorage
import CatbirdTestSupport
import Foundation
import XCTest
#if canImport(Glibc)
import Glibc
#endif

/// try6a F5: after a disk-full episode, a restart on the same up-to-date file refused to start
/// (exit 3, `the disk holding the database is full (… in: COMMIT)`): start-up finished pending
/// journal deletions in a transaction even when there were none, and the empty `DELETE`
/// rewrote a page. README.md#storage-faults: an up-to-date file needs no write to start.
final class FullDiskRestartTests: XCTestCase {
    func testAnUpToDateFileStartsOnAFullDiskAndDegradesAtItsFirstWrite() throws {
        let (directory, mount) = try Self.smallDisk(size: "1m")
        defer { Self.remove(directory, mount: mount) }
        let database = mount.appendingPathComponent("f.sqlite").path
        let arguments = { ["--port", "\(try FreePort.next())", "--db", database, "--log-level", "error"] }

        // The try6a steps: a mock, the disk filled, 60 KB bodies until the journal drops rows.
        let first = try LaunchedServer(try arguments(), in: directory)
        let client = try first.client()
        try E2E.addMock(client, method: "POST", url: "/ok", body: "ok")
        let filler = mount.appendingPathComponent("filler")
        let descriptor = open(filler.path, O_WRONLY | O_CREAT, 0o644)
        let block = [UInt8](repeating: 0, count: 64 * 1024)
        while block.withUnsafeBytes({ write(descriptor, $0.baseAddress, $0.count) }) > 0 {}
        close(descriptor)
        let body = Array(repeating: UInt8(ascii: "x"), count: 60_000)
        var health = try client.request("GET", "/catbird/api/health")
        for _ in 0..<12 where health.status == 200 {
            XCTAssertEqual(try client.request("POST", "/ok", body: body).text, "ok")
            usleep(300_000)
            health = try client.request("GET", "/catbird/api/health")
        }
        XCTAssertEqual(health.status, 503, health.text)
        // 4: the journal's rows the full disk did not take are lost at the stop (tester50a-F5).
        XCTAssertEqual(try first.terminate().status, 4)

        // The same command again: it starts, serves the mock from the file, and degrades at its
        // first write.
        let again = try LaunchedServer(try arguments(), in: directory)
        let second = try again.client()
        XCTAssertEqual(try second.request("POST", "/ok").text, "ok")
        var degraded = try second.request("GET", "/catbird/api/health")
        for _ in 0..<100 where degraded.status == 200 {
            usleep(100_000)
            degraded = try second.request("GET", "/catbird/api/health")
        }
        XCTAssertEqual(degraded.status, 503, degraded.text)
        XCTAssertTrue((degraded.object["reason"] as? String ?? "").hasPrefix("the disk holding the database is full: a control change that cannot be written is refused (503)"), degraded.text)
        XCTAssertEqual(try again.terminate().status, 4, "its first request's row was not written either")
    }
    /// Tester finding tester42b-F3: a full disk's journal errors were logged, but not its end:
    /// once space was freed the queued rows were written with no line saying so, and the log
    /// read as if journaling were still broken. The first round that commits after failed ones
    /// now says so (or the writer's probe does, when nothing was queued).
    func testTheEndOfAFullDiskIsLogged() throws {
        let (directory, mount) = try Self.smallDisk(size: "3m")
        defer { Self.remove(directory, mount: mount) }
        let server = try LaunchedServer(
            ["--port", "\(try FreePort.next())", "--db", mount.appendingPathComponent("e.sqlite").path, "--log-level", "warning"], in: directory)
        let client = try server.client()
        try E2E.addMock(client, url: "/big", body: String(repeating: "b", count: 5_000))
        let filler = mount.appendingPathComponent("filler")
        let descriptor = open(filler.path, O_WRONLY | O_CREAT, 0o644)
        let block = [UInt8](repeating: 0, count: 64 * 1024)
        while block.withUnsafeBytes({ write(descriptor, $0.baseAddress, $0.count) }) > 0 {}
        close(descriptor)
        var health = try client.request("GET", "/catbird/api/health")
        for _ in 0..<60 where health.status == 200 {
            for _ in 0..<20 { XCTAssertEqual(try client.request("GET", "/big").status, 200) }
            health = try client.request("GET", "/catbird/api/health")
        }
        XCTAssertEqual(health.status, 503, health.text)
        try FileManager.default.removeItem(at: filler)
        for _ in 0..<100 where health.status != 200 {
            usleep(100_000)
            health = try client.request("GET", "/catbird/api/health")
        }
        XCTAssertEqual(health.status, 200, health.text)
        let (status, _, stderr) = try server.terminate()
        XCTAssertEqual(status, 0, stderr)
        XCTAssertTrue(stderr.contains("the disk holding the database is full"), stderr)
        XCTAssertTrue(
            stderr.contains("[warning] journal: writing again (its writes failed since ") || stderr.contains("journal: the database takes writes again"),
            stderr)
    }

    /// A temporary directory with a tmpfs of `size` (`1m`) mounted at its `full` folder; skips the
    /// test where mounting is not permitted (needs root or CAP_SYS_ADMIN).
    private static func smallDisk(size: String) throws -> (directory: URL, mount: URL) {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("catbird-fulldisk-\(UUID().uuidString)")
        let mount = directory.appendingPathComponent("full")
        try FileManager.default.createDirectory(at: mount, withIntermediateDirectories: true)
        let mounted = try ProcessRunner.run(URL(fileURLWithPath: "/bin/mount"), ["-t", "tmpfs", "-o", "size=\(size)", "tmpfs", mount.path], in: directory)
        guard mounted.status == 0 else {
            try? FileManager.default.removeItem(at: directory)
            throw XCTSkip("cannot mount a small tmpfs here (needs root or CAP_SYS_ADMIN), so the full disk is not tested: \(mounted.stderr)")
        }
        return (directory, mount)
    }

    /// Unmounts ``smallDisk(size:)``'s tmpfs and removes its directory.
    private static func remove(_ directory: URL, mount: URL) {
        _ = try? ProcessRunner.run(URL(fileURLWithPath: "/bin/umount"), ["-l", mount.path], in: directory)
        try? FileManager.default.removeItem(at: directory)
    }
}
