import CatbirdDomain
import CatbirdServer
import CatbirdTestSupport
import Foundation
import XCTest

/// While the journal writer fails (a held write lock), the tenant that fills the 12 MiB large
/// rows may take loses its bodies first: another tenant's occasional uploads are still
/// journaled with theirs (docs/tenancy.md#fair-shares).
final class JournalLargeRowFairnessTests: XCTestCase {
    /// One worker thread and a journal queue of `queue` rows (16 MiB), tenant A's and C's
    /// upload mocks (`POST /a/up`, `POST /c/up`) added.
    private func server(queue: Int) throws -> (TestServer, RawHTTPClient) {
        let server = try TestServer {
            $0.threadCount = 1
            $0.journalQueueCapacity = queue
        }
        let client = try server.client()
        try E2E.addMock(client, tenant: "A", method: "POST", url: "/a/up", body: "ok")
        try E2E.addMock(client, tenant: "C", method: "POST", url: "/c/up", body: "c-ok")
        return (server, client)
    }

    /// Sends tenant C's ten uploads one after another, each answered within a second.
    private func sendTenantCsUploads(_ server: TestServer) throws {
        let other = try RawHTTPClient(port: server.port, timeoutSeconds: 3)
        for index in 0..<10 {
            let started = ContinuousClock.now
            let upload = try other.request("POST", "/c/up", headers: [("X-Catbird-Parallel-Id", "C")], body: JournalShare.upload)
            XCTAssertEqual(upload.text, "c-ok")
            XCTAssertLessThan(ContinuousClock.now - started, .seconds(1), "tenant C's upload \(index)")
        }
    }

    /// Asserts that tenant C's ten rows are written with their whole bodies and no problem.
    private func assertTenantCsRowsKeepTheirBodies(_ client: RawHTTPClient, file: StaticString = #filePath, line: UInt = #line) throws {
        let own = try E2E.sqlRows(
            client, "SELECT count(*), coalesce(min(length(request_body)), 0), count(problem) FROM requests", tenant: "C")
        XCTAssertEqual(
            own.first?.compactMap { JSONNumber.int($0) }, [10, 60_000, 0], "C's rows, their shortest body, rows with a problem",
            file: file, line: line)
    }

    /// Regression (tester finding tester26b-F3): tenant `up` uploaded 60,000-byte bodies on 24
    /// connections under a held lock and filled the three quarters of the queue large rows may
    /// take; tenant `b`'s uploads, one every 0.4 s, were then journaled without their bodies
    /// (11 of 25). Here tenant A's 230 uploads pass the 12 MiB (A's later rows lose their
    /// bodies), then tenant C sends ten uploads one after another: each is answered at once and
    /// every one of C's rows keeps its body.
    func testAnotherTenantsUploadsKeepTheirBodiesWhileOneTenantFillsTheLargeRowsRoom() throws {
        let (server, client) = try server(queue: 16_384)
        defer { server.removeFiles() }
        let hold = try JournalWriterHold(server)
        defer { hold.end() }
        let uploads = try JournalShare.uploadsPastThreeQuarters(server, client)
        for upload in uploads { XCTAssertEqual(try upload.readResponse().status, 200) }

        try sendTenantCsUploads(server)
        let failing = try E2E.metrics(client)
        XCTAssertEqual(failing["catbird_journal_dropped_rows_total"], 0, "\(failing)")
        XCTAssertEqual(try client.request("GET", "/catbird/api/health").status, 503, "the lock is still held")

        try hold.release()
        try assertTenantCsRowsKeepTheirBodies(client)
        let flooder = try E2E.sqlRows(
            client, "SELECT count(*) FROM requests WHERE problem = ?", params: [JournalWriter.bodilessProblem], tenant: "A")
        XCTAssertGreaterThan(flooder.first?.first.flatMap { JSONNumber.int($0) } ?? 0, 0, "the flooder's rows past the 12 MiB: \(flooder)")
        XCTAssertEqual(try JournalShare.rows(client, tenant: "A"), uploads.count)
    }

    /// Regression (tester finding tester27b-F2): under the same held lock, the flooder's rows
    /// past the 12 MiB (queued without their bodies) filled the queue's rows, and from then on
    /// the other tenant's uploads lost their bodies again (17 of 36). Scaled to a 4,096-row
    /// queue: tenant A's 230 uploads, then 4,200 of its hits fill the rows; tenant C's ten
    /// uploads after that keep their bodies (the queue's bounds passed by C, as its small rows
    /// may), and A's rows past the full queue are dropped.
    func testAnotherTenantsUploadsKeepTheirBodiesOnceTheFloodersRowsFillTheQueue() throws {
        let (server, client) = try server(queue: 4_096)
        defer { server.removeFiles() }
        try E2E.addMock(client, tenant: "A", url: "/a/hit", body: "hit")
        let hold = try JournalWriterHold(server)
        defer { hold.end() }
        let uploads = try JournalShare.uploadsPastThreeQuarters(server, client)
        for upload in uploads { XCTAssertEqual(try upload.readResponse().status, 200) }
        let flooder = try RawHTTPClient(port: server.port, timeoutSeconds: 10)
        for _ in 0..<4_200 {
            XCTAssertEqual(try flooder.request("GET", "/a/hit", headers: [("X-Catbird-Parallel-Id", "A")]).status, 200)
        }
        let full = try E2E.metrics(client)
        XCTAssertGreaterThanOrEqual(full["catbird_journal_queue_entries"] ?? 0, 4_000, "A's rows fill the queue: \(full)")
        XCTAssertGreaterThan(full["catbird_journal_dropped_rows_total"] ?? 0, 0, "A's rows past it are dropped: \(full)")

        try sendTenantCsUploads(server)
        try hold.release()
        try assertTenantCsRowsKeepTheirBodies(client)
    }
}
