import CatbirdTestSupport
import Foundation
import XCTest

/// Checkpoints that fail under a running server (README.md#storage-faults).
final class CheckpointFailureTests: XCTestCase {
    /// Regression (tester finding tester29b-F3, its steps: one `update` with a 300 KB body,
    /// `chattr +i` on the database file, 59 more, health, then `chattr -i`): every update got 201
    /// (right: SQLite writes them to the `-wal`) while each automatic checkpoint failed
    /// silently, health said `ok`, nothing was logged and the `-wal` grew past its 16 MiB bound,
    /// the first sign being a restart refused. Health now answers 503 saying checkpoints fail
    /// and what to do, a warning is logged once, and health answers 200 again within seconds
    /// of `chattr -i` with no other request (its own checkpoint copies the `-wal` in).
    func testFailingCheckpointsAreReportedByHealthAndEndOnceTheFileIsWritable() throws {
        try LaunchedServer.withTemporaryDatabase { server, client, database in
            let tenant = "w"
            let body = String(repeating: "x", count: 300_000)
            try E2E.addMock(client, tenant: tenant, url: "/m0", body: body)
            let chattr = URL(fileURLWithPath: "/usr/bin/chattr")
            let folder = URL(fileURLWithPath: database).deletingLastPathComponent()
            let made = try ProcessRunner.run(chattr, ["+i", database], in: folder)
            guard made.status == 0 else { throw XCTSkip("chattr +i is not permitted here (not root, or the file system has no such flag): \(made.stderr)") }
            defer { _ = try? ProcessRunner.run(chattr, ["-i", database], in: folder) }
            for index in 1..<60 {
                try E2E.addMock(client, tenant: tenant, url: "/m\(index)", body: body)
            }
            let health = try client.request("GET", "/catbird/api/health")
            XCTAssertEqual(health.status, 503, health.text)
            XCTAssertEqual(health.object["status"] as? String, "degraded")
            let reason = health.object["reason"] as? String ?? ""
            XCTAssertTrue(reason.hasPrefix("checkpoints fail: the database file could not be read or written (disk I/O error) "), reason)
            XCTAssertTrue(reason.contains("nothing is lost, but a start refuses a database file it cannot write; make the file writable again"), reason)
            let walBytes = (try FileManager.default.attributesOfItem(atPath: database + "-wal")[.size] as? Int) ?? 0
            XCTAssertGreaterThan(walBytes, 16 << 20, "the -wal holds every change")
            let warnings = server.stderrText.components(separatedBy: "[warning] database: checkpoints fail (").count - 1
            XCTAssertEqual(warnings, 1, server.stderrText)

            XCTAssertEqual(try ProcessRunner.run(chattr, ["-i", database], in: folder).status, 0)
            let statuses = try E2E.healthStatusesUntilOK(client, every: 300_000)
            XCTAssertEqual(statuses.last, 200, "health only, every 0.3 s: \(statuses)")
            let fileBytes = (try FileManager.default.attributesOfItem(atPath: database)[.size] as? Int) ?? 0
            XCTAssertGreaterThan(fileBytes, 60 * 300_000, "the checkpoint copied every mock into the file")
            let ended = try server.terminate()
            XCTAssertEqual(ended.status, 0, ended.stderr)

            let again = try LaunchedServer(["--port", "\(try FreePort.next())", "--db", database], in: folder)
            let mocks = try E2E.mockList(try again.client(), tenant: tenant)["mocks"] as? [[String: Any]] ?? []
            XCTAssertEqual(mocks.count, 60)
            XCTAssertEqual(try again.terminate().status, 0)
        }
    }
}
