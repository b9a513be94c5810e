import CatbirdTestSupport
import Foundation
import XCTest

/// `--tenant-ttl` judges a tenant this process saw at work on the monotonic clock, so a step of
/// the wall clock (NTP's correction after a VM resume or a snapshot restore) drops no tenant at
/// work (docs/operations.md#retention). Regression (tester finding tester21b-F5): with the
/// process's wall clock stepped 8 days forward (libfaketime), a tenant that had set a mock and
/// been answered 2 s before was dropped at the next pass as "idle longer than 7d", its mocks
/// and journal gone; its app's next request got a 404.
final class TenantTTLClockStepTests: XCTestCase {
    private static let libraries = [
        "/usr/lib/x86_64-linux-gnu/faketime/libfaketime.so.1", "/usr/lib/aarch64-linux-gnu/faketime/libfaketime.so.1",
        "/usr/lib/faketime/libfaketime.so.1",
    ]

    func testAWallClockSteppedForwardDropsNoTenantAtWorkButStillAnIdleOne() throws {
        guard let library = Self.libraries.first(where: { FileManager.default.fileExists(atPath: $0) }) else {
            throw XCTSkip("libfaketime is not installed (Debian package faketime, which scripts/setup.sh installs): the wall clock cannot be stepped for the server alone")
        }
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("catbird-clockstep-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let database = directory.appendingPathComponent("step.sqlite").path
        // A tenant last active before this server started: judged by its row's wall-clock time.
        let earlier = try LaunchedServer(["--port", "\(try FreePort.next())", "--db", database], in: directory)
        try E2E.addMock(try earlier.client(), tenant: "before-restart", url: "/old", body: "old")
        XCTAssertEqual(try earlier.terminate().status, 0)

        let clock = directory.appendingPathComponent("faketime")
        try Data("+0\n".utf8).write(to: clock)
        // The settings as variables too: under libfaketime the Swift runtime may not see the
        // process's arguments (it read none when started so from Foundation's Process here).
        let port = try FreePort.next()
        let server = try LaunchedServer(
            ["--port", "\(port)", "--db", database, "--tenant-ttl", "1h"], in: directory,
            environment: [
                "CATBIRD_PORT": "\(port)", "CATBIRD_DB": database, "CATBIRD_TENANT_TTL": "1h",
                "LD_PRELOAD": library, "FAKETIME_TIMESTAMP_FILE": clock.path, "FAKETIME_NO_CACHE": "1",
                "FAKETIME_DONT_FAKE_MONOTONIC": "1",
            ])
        let client = try server.client()
        try E2E.addMock(client, tenant: "T1", url: "/m", body: "still here")
        XCTAssertEqual(try client.request("GET", "/m", headers: E2E.tenantHeader("T1")).status, 200)
        XCTAssertEqual(Set(try E2E.tenants(client).compactMap { $0["id"] as? String }), ["", "T1", "before-restart"])

        try Data("+2h\n".utf8).write(to: clock)  // the wall clock stepped past the TTL
        // A pass every 2 s: "before-restart" goes at the next one; T1, at work a moment ago, stays.
        let deadline = ContinuousClock.now + .seconds(15)
        var ids: Set<String> = []
        repeat {
            usleep(200_000)
            ids = Set(try E2E.tenants(client).compactMap { $0["id"] as? String })
        } while ids.contains("before-restart") && ContinuousClock.now < deadline
        XCTAssertFalse(ids.contains("before-restart"), "a tenant idle for the TTL by its row is still dropped: \(server.stderrText)")
        usleep(2_500_000)  // another pass
        let answer = try client.request("GET", "/m", headers: E2E.tenantHeader("T1"))
        XCTAssertEqual(answer.status, 200, answer.text)
        XCTAssertEqual(answer.text, "still here")
        XCTAssertTrue(Set(try E2E.tenants(client).compactMap { $0["id"] as? String }).contains("T1"))
    }
}
