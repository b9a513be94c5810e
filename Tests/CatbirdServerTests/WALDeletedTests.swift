import CatbirdTestSupport
import Foundation
import XCTest

/// The database's `-wal` or `-shm` deleted under a running server (README.md#storage-faults).
final class WALDeletedTests: XCTestCase {
    /// Regression (tester finding tester29b-F2, its steps: `update /w1`, `rm w.sqlite-wal`,
    /// `update /w2`, `update /w3`, health): health said `ok`, and a `kill -9` then lost all
    /// three acknowledged mocks. Health now answers 503 naming the `-wal` and what to do;
    /// changes are still acknowledged (SQLite writes to the `-wal` it has open), and a stop
    /// (SIGTERM) copies them into the file, so a restart has all three.
    func testADeletedWALIsReportedByHealthAndAStopKeepsEveryChange() throws {
        try assertDeletedUnderTheServer(
            "-wal", mocksAfter: 2,
            saying: "a crash would lose every change since the last checkpoint; stop the server and start it again")
    }

    /// Regression (tester finding tester54c-F1, its first step: `rm <db>-shm` under a server
    /// taking changes): health said `ok`, and a `sqlite3` checkpoint afterwards (which made a
    /// new `-shm`, blind to the server's locks) corrupted the file. Health now answers 503
    /// naming the `-shm` and what to do; changes are still acknowledged, and a stop keeps them.
    func testADeletedSHMIsReportedByHealthAndAStopKeepsEveryChange() throws {
        try assertDeletedUnderTheServer("-shm", mocksAfter: 1, saying: "let nothing else open it, and stop the server and start it again")
    }

    /// Regression (tester finding tester55b-F6: `rm <db>-shm <db>-wal`): health named only the
    /// `-wal`, without the `-shm`'s warning that another program opening the file can corrupt it.
    func testBothDeletedAreReportedAsTheSHM() throws {
        try LaunchedServer.withTemporaryDatabase { server, client, database in
            try E2E.addMock(client, url: "/b", body: "b")
            for suffix in ["-shm", "-wal"] { XCTAssertEqual(unlink(database + suffix), 0, suffix) }
            try E2E.addMock(client, url: "/c", body: "c")
            let health = try client.request("GET", "/catbird/api/health")
            XCTAssertEqual(health.status, 503, health.text)
            XCTAssertTrue((health.object["reason"] as? String ?? "").hasPrefix("the database's -shm file was deleted"), health.text)
            XCTAssertEqual(try server.terminate().status, 0)
        }
    }

    /// One mock added, `suffix` (`-wal` or `-shm`) deleted, `mocksAfter` more added: health is
    /// 503 `degraded` with the reason for that file, mocks are still served, and after a clean
    /// stop a restart has every mock and is healthy.
    private func assertDeletedUnderTheServer(_ suffix: String, mocksAfter: Int, saying advice: String) throws {
        try LaunchedServer.withTemporaryDatabase { server, client, database in
            let tenant = "d"
            try E2E.addMock(client, tenant: tenant, url: "/m0", body: "0")
            XCTAssertEqual(try client.request("GET", "/catbird/api/health").status, 200)
            XCTAssertEqual(unlink(database + suffix), 0)
            for index in 1...mocksAfter { try E2E.addMock(client, tenant: tenant, url: "/m\(index)", body: "\(index)") }
            let health = try client.request("GET", "/catbird/api/health")
            XCTAssertEqual(health.status, 503, health.text)
            XCTAssertEqual(health.object["status"] as? String, "degraded")
            let reason = health.object["reason"] as? String ?? ""
            XCTAssertTrue(
                reason.hasPrefix("the database's \(suffix) file was deleted or replaced under the running server (\(database)\(suffix)): "),
                reason)
            XCTAssertTrue(reason.contains(advice), reason)
            XCTAssertEqual(try client.request("GET", "/m\(mocksAfter)", headers: [("X-Catbird-Parallel-Id", tenant)]).status, 200)
            let ended = try server.terminate()
            XCTAssertEqual(ended.status, 0, ended.stderr)
            // Logged once, not only told by health (tester finding tester55b-F6).
            let line = "[warning] database \(database): the database's \(suffix) file was deleted or replaced under the running "
                + "server (\(database)\(suffix)); health answers 503 until a restart"
            XCTAssertEqual(ended.stderr.components(separatedBy: line).count - 1, 1, ended.stderr)

            let port = try FreePort.next()
            let again = try LaunchedServer(
                ["--port", "\(port)", "--db", database], in: URL(fileURLWithPath: database).deletingLastPathComponent())
            let mocks = try E2E.mockList(try RawHTTPClient(port: port), tenant: tenant)["mocks"] as? [[String: Any]] ?? []
            XCTAssertEqual(mocks.count, mocksAfter + 1, "\(mocks)")
            XCTAssertEqual(try RawHTTPClient(port: port).request("GET", "/catbird/api/health").status, 200, "a new \(suffix), all well")
            XCTAssertEqual(try again.terminate().status, 0)
        }
    }
}
