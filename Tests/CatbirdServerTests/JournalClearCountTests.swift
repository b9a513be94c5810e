import CatbirdTestSupport
import Foundation
import Synchronization
import XCTest

/// A journal clear counts the rows it hides on a read connection, not holding the write
/// connection (docs/answering-later.md: a large clear never delays another tenant's mock update).
final class JournalClearCountTests: XCTestCase {
    /// Regression (tester finding tester32a-F2): `DELETE /catbird/api/requests` of tenant
    /// `heavy`'s 630,985 rows counted them inside its write transaction, so tenant `light`'s
    /// `update` sent 1 ms after it waited 449 ms, the clear's whole 459 ms. Here 1,000,000 rows
    /// written into the file: an update sent while the clear counts them is answered in a
    /// fraction of the clear's time.
    func testAnotherTenantsUpdateDoesNotWaitForALargeClearsCount() throws {
        // Retention off: the rows' 2026-01-01 would be past the default age limit.
        let server = try TestServer { $0.retention = .off }
        defer { server.removeFiles() }
        try server.restart { database in
            try database.execute(E2E.largeJournalSQL(tenant: "heavy", rows: 1_000_000, prefix: "h"))
        }
        let port = server.port
        let light = try server.client()
        try E2E.addMock(light, tenant: "light", url: "/l", body: "0")

        let cleared = Mutex<(status: Int, text: String, took: Duration)?>(nil)
        let clear = Thread {
            let started = ContinuousClock.now
            let answer = try? RawHTTPClient(port: port).request("DELETE", "/catbird/api/requests", headers: E2E.tenantHeader("heavy"))
            cleared.withLock { $0 = (answer?.status ?? 0, answer?.text ?? "", ContinuousClock.now - started) }
        }
        clear.start()
        usleep(5_000)
        let started = ContinuousClock.now
        try E2E.addMock(light, tenant: "light", url: "/l", body: "1")
        let update = ContinuousClock.now - started
        while cleared.withLock({ $0 }) == nil { usleep(1_000) }
        let answer = try XCTUnwrap(cleared.withLock { $0 })
        XCTAssertEqual(answer.status, 200, answer.text)
        XCTAssertEqual(answer.text, #"{"deleted":1000000}"#)
        XCTAssertLessThan(update, answer.took / 2, "the update took \(update) during a clear of \(answer.took)")
        XCTAssertEqual(try light.request("GET", "/l", headers: E2E.tenantHeader("light")).text, "1")
    }
}
