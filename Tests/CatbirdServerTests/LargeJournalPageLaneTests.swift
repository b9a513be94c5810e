import CatbirdTestSupport
import Foundation
import XCTest

/// A journal page without a filter is built on the quick lane only when its JSON is expected to
/// be small; a page of large bodies is built on the bulk lane (docs/tenancy.md#fair-shares).
final class LargeJournalPageLaneTests: XCTestCase {
    /// Regression (try9b F12): a default listing (`limit` 100, `bodies=true`) of 100 POSTs of
    /// 64 KiB answered by a 64-KiB mock is 4 MiB of JSON, 0.5-0.8 s of work, and ran on the
    /// quick lane: six tenants paging such journals held both quick threads and another
    /// tenant's `update` waited 0.4-1.4 s. The same journal, 30 entries (past the 4-MiB page
    /// anyway). To see on which lane the page is built, the bulk lane is held: the write lock is
    /// taken by another connection and two other tenants send large updates, which wait on both
    /// bulk threads for their commit. The default page of tenant lst then waits for the bulk
    /// lane, while lst's page without bodies (a few KiB) and another tenant's listing answer on
    /// the quick lane at once; once the lock is let go, the large page answers in full.
    func testAPageOfLargeBodiesIsBuiltOnTheBulkLane() throws {
        let server = try TestServer()
        defer { server.removeFiles() }
        let client = try server.client()
        let body = (0..<(64 << 10)).map { UInt8(ascii: "a") + UInt8($0 % 26) }
        let lst = E2E.tenantHeader("lst")
        XCTAssertEqual(
            try client.json("POST", "/catbird/api/mocks", E2E.updateAction(method: "POST", url: "/up", body: body), headers: lst).status, 201)
        for _ in 0..<30 { XCTAssertEqual(try client.request("POST", "/up", headers: lst, body: body).status, 200) }
        XCTAssertEqual(try client.request("GET", "/v", headers: E2E.tenantHeader("other")).status, 404)
        XCTAssertEqual(try E2E.journal(client, tenant: "lst", query: "bodies=false").count, 30)  // written: no flush waits below

        let hold = try JournalWriterHold(server)
        defer { hold.end() }
        let port = server.port
        let group = DispatchGroup()
        let updates = Locked<[Int]>([])
        let large = (0..<(2 << 20)).map { UInt8(truncatingIfNeeded: $0 * 7) }
        for tenant in ["bulk0", "bulk1"] {
            DispatchQueue.global().async(group: group) {
                let answer = try? RawHTTPClient(port: port).json(
                    "POST", "/catbird/api/mocks", E2E.updateAction(url: "/big", body: large), headers: E2E.tenantHeader(tenant))
                updates.append(answer?.status ?? 0)
            }
        }
        E2E.waitUntilWaiting(server, 2)  // both bulk threads wait for the write lock
        let page = Locked<RawResponse?>(nil)
        DispatchQueue.global().async(group: group) {
            page.set(try? RawHTTPClient(port: port).request("GET", "/catbird/api/requests", headers: lst))
        }
        E2E.waitUntilWaiting(server, 3)

        let summaries = try E2E.journalPage(client, tenant: "lst", query: "bodies=false")
        XCTAssertEqual((summaries["requests"] as? [Any])?.count, 30, "lst's small page answers on the quick lane")
        XCTAssertEqual(try E2E.journal(client, tenant: "other", query: "").count, 1, "another tenant's page answers")
        // Built on the quick lane, the page answered within about a second (a debug build);
        // on the bulk lane it waits for the lock to be let go. (The updates wait for the lock
        // up to SQLite's 5-s busy timeout: the hold stays well within it.)
        let deadline = ContinuousClock.now + .seconds(2)
        while page.value == nil, ContinuousClock.now < deadline { usleep(20_000) }
        XCTAssertNil(page.value, "the large page waits for the bulk lane")
        XCTAssertEqual(updates.value, [], "the large updates still wait for the write lock")

        try hold.release()
        XCTAssertEqual(group.wait(timeout: .now() + 60), .success)
        XCTAssertEqual(updates.value, [201, 201])
        let answer = try XCTUnwrap(page.value, "the large page answered")
        XCTAssertEqual(answer.status, 200, answer.text)
        let object = answer.object
        let entries = object["requests"] as? [[String: Any]] ?? []
        XCTAssertGreaterThan(entries.count, 10, "the page holds its entries with their bodies")
        XCTAssertLessThan(entries.count, 30)
        XCTAssertEqual(object["sizeLimited"] as? Bool, true, "30 entries of 2 x 64 KiB pass the 4-MiB page")
        XCTAssertEqual(object["hasMore"] as? Bool, true)
        XCTAssertGreaterThan(answer.body.count, 3 << 20)
    }
}
