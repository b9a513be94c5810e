import CatbirdTestSupport
import Foundation
import XCTest

/// Read your writes per tenant (docs/protocol.md#read-your-writes): a journal read waits for its
/// own tenant's queued rows, never for another tenant's.
final class TenantFlushTests: XCTestCase {
    private static func countBody(_ method: String) -> String {
        #"{"pattern":{"method":"\#(method)","url":{"kind":"wildcard","value":"/*"}}}"#
    }

    /// Regression (try9b F9): tenant A's flood of 64-KiB requests kept the shared journal queue
    /// at its 16 MiB, and tenant vic's `count` of its own 3 rows went from p50 1.2 ms to 265 ms
    /// (max 571 ms): every read waited until everything queued before it was committed. Here
    /// A's rows wait as long as the test wants (the journal writer is held: another connection
    /// has the file's write lock). vic's rows were written before; its count, listing and SQL
    /// answer while A's rows wait, and A's own count waits for them (read your writes holds).
    func testAReadWaitsForItsOwnTenantsRowsOnly() throws {
        let server = try TestServer()
        defer { server.removeFiles() }
        let client = try server.client()
        for index in 0..<3 { XCTAssertEqual(try client.request("GET", "/v/\(index)", headers: E2E.tenantHeader("vic")).status, 404) }
        XCTAssertEqual(JSONNumber.int(try count(client, "vic")["count"]), 3)

        let hold = try JournalWriterHold(server)
        defer { hold.end() }
        let body = [UInt8](repeating: UInt8(ascii: "a"), count: 64 << 10)
        for index in 0..<3 {
            XCTAssertEqual(try client.request("POST", "/a/\(index)", headers: E2E.tenantHeader("A"), body: body).status, 404)
        }
        let counted = Locked<Int?>(nil)
        let group = DispatchGroup()
        let port = server.port
        DispatchQueue.global().async(group: group) {
            let answer = try? RawHTTPClient(port: port).json(
                "POST", "/catbird/api/requests/count", Self.countBody("POST"), headers: E2E.tenantHeader("A"))
            counted.set(JSONNumber.int(answer?.object["count"]))
        }
        E2E.waitUntilWaiting(server, 1)  // A's count waits for A's rows

        XCTAssertEqual(JSONNumber.int(try count(client, "vic")["count"]), 3, "vic's count answers while A's rows wait")
        XCTAssertEqual(try E2E.journal(client, tenant: "vic", query: "bodies=false").count, 3, "so does its listing")
        XCTAssertEqual(JSONNumber.int(try E2E.sqlRows(client, "SELECT count(*) FROM requests", tenant: "vic").first?.first ?? nil), 3)
        XCTAssertNil(counted.value, "A's count still waits for A's rows")

        try hold.release()
        XCTAssertEqual(group.wait(timeout: .now() + 30), .success)
        XCTAssertEqual(counted.value, 3, "A's count sees A's rows")
    }

    /// The writer keeps the latest run of one tenant's rows aside and notes its last row's place
    /// for reads only when another tenant's row is queued (JournalWriter.State.latestRun): with
    /// A, B, A queued while the writer is held, B's count waits for B's row (noted when A's
    /// second row came) and A's for A's last one, and each sees its own rows once written;
    /// vic, with nothing queued, answers at once.
    func testReadsWaitForTheirOwnRowsWhenTenantsInterleave() throws {
        let server = try TestServer()
        defer { server.removeFiles() }
        let client = try server.client()
        XCTAssertEqual(try client.request("GET", "/v/0", headers: E2E.tenantHeader("vic")).status, 404)
        XCTAssertEqual(JSONNumber.int(try count(client, "vic")["count"]), 1)

        let hold = try JournalWriterHold(server)
        defer { hold.end() }
        for (index, tenant) in ["A", "B", "A"].enumerated() {
            XCTAssertEqual(try client.request("GET", "/x/\(index)", headers: E2E.tenantHeader(tenant)).status, 404)
        }
        let counted = Locked<[String: Int]>([:])
        let group = DispatchGroup()
        let port = server.port
        for tenant in ["A", "B"] {
            DispatchQueue.global().async(group: group) {
                let answer = try? RawHTTPClient(port: port).json(
                    "POST", "/catbird/api/requests/count", Self.countBody("GET"), headers: E2E.tenantHeader(tenant))
                counted.change { $0[tenant] = JSONNumber.int(answer?.object["count"]) ?? -1 }
            }
        }
        E2E.waitUntilWaiting(server, 2)  // A's and B's counts wait for their rows

        XCTAssertEqual(JSONNumber.int(try count(client, "vic")["count"]), 1, "vic's count answers while A's and B's rows wait")
        XCTAssertEqual(counted.value, [:], "A's and B's counts still wait for their rows")

        try hold.release()
        XCTAssertEqual(group.wait(timeout: .now() + 30), .success)
        XCTAssertEqual(counted.value, ["A": 2, "B": 1], "each count sees its tenant's rows")
    }

    private func count(_ client: RawHTTPClient, _ tenant: String) throws -> [String: Any] {
        let answer = try client.json("POST", "/catbird/api/requests/count", Self.countBody("GET"), headers: E2E.tenantHeader(tenant))
        XCTAssertEqual(answer.status, 200, answer.text)
        return answer.object
    }
}
