import CatbirdTestSupport
import Foundation
import XCTest

/// Regression (tester finding tester50c-F4): a mock held its body twice in memory (the
/// response as sent, and its bytes as served), so 180 MiB of bodies made 378 MB resident, the
/// same after a restart, and a tenant within its default 512 MB of mock bytes could get a pod
/// with the shipped 1 GiB limit killed. Measured after a restart, where no upload's buffers
/// are left: the bodies' share of the resident memory is about their size now.
final class MockBodyMemoryTests: XCTestCase {
    private var directory: URL!

    override func setUpWithError() throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("catbird-body-memory-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    }

    override func tearDown() {
        if let directory { try? FileManager.default.removeItem(at: directory) }
    }

    func testStoredMockBodiesAreHeldOnceInMemory() throws {
        let database = directory.appendingPathComponent("bodies.sqlite").path
        let bodies = 6, size = 8 << 20  // 48 MiB
        let writer = try LaunchedServer(["--port", "\(try FreePort.next())", "--db", database, "--log-level", "warning"], in: directory)
        let client = try RawHTTPClient(port: writer.port, timeoutSeconds: 60)
        for index in 0..<bodies {
            let body = [UInt8](repeating: UInt8(ascii: "a") + UInt8(index), count: size)
            let update = E2E.updateAction(url: "/big/\(index)", body: body)
            XCTAssertEqual(try client.json("POST", "/catbird/api/mocks", update).status, 201)
        }
        XCTAssertEqual(try writer.terminate().status, 0)

        let empty = try LaunchedServer(
            ["--port", "\(try FreePort.next())", "--db", directory.appendingPathComponent("empty.sqlite").path, "--log-level", "warning"],
            in: directory)
        let baseline = try empty.currentResidentMegabytes()
        _ = try empty.terminate()
        let loaded = try LaunchedServer(["--port", "\(try FreePort.next())", "--db", database, "--log-level", "warning"], in: directory)
        let resident = try loaded.currentResidentMegabytes()
        let answer = try RawHTTPClient(port: loaded.port, timeoutSeconds: 60).request("GET", "/big/5")
        XCTAssertEqual(answer.body.count, size)
        XCTAssertEqual(answer.body.first, UInt8(ascii: "a") + 5)
        _ = try loaded.terminate()
        // Held once: 48 MiB and the server's own; held twice it was 96 MiB and more.
        XCTAssertLessThan(resident - baseline, (bodies * size * 3 / 2) >> 20, "resident \(resident) MB, empty server \(baseline) MB")
    }
}
