import CatbirdDomain
import CatbirdServer
import CatbirdTestSupport
import Foundation
import XCTest

/// The journal's row limit is shared fairly between tenants, and a read that reaches entries
/// retention deleted says so (docs/operations.md#retention).
final class RetentionFairShareTests: XCTestCase {
    private func server(maxRows: Int) throws -> TestServer {
        try TestServer { settings in
            settings.retention = RetentionPolicy(tenantTTL: nil, journalMaxRows: maxRows, journalMaxAge: nil)
            settings.retentionInterval = .milliseconds(100)
        }
    }

    private func prunedOverLimit(_ client: RawHTTPClient) throws -> Int {
        let info = try client.request("GET", "/catbird/api/info").object
        let pruned = (info["retention"] as? [String: Any])?["pruned"] as? [String: Any]
        return JSONNumber.int(pruned?["journalRowsOverLimit"]) ?? 0
    }

    private func count(_ client: RawHTTPClient, _ tenant: String, url: String) throws -> [String: Any] {
        let answer = try client.json(
            "POST", "/catbird/api/requests/count", #"{"pattern":{"method":"GET","url":{"kind":"wildcard","value":"\#(url)"}}}"#,
            headers: E2E.tenantHeader(tenant))
        XCTAssertEqual(answer.status, 200, answer.text)
        return answer.object
    }

    /// Regression (try9b F2), the tester's exact shape: `--journal-max-rows 1000`; tenant quiet
    /// makes 10 requests, then tenant noisy 2,000 (0.2 s over two keep-alive connections);
    /// quiet's `count` answered 0 once a pass had run (noisy kept its newest 1,000). Now the
    /// tenant over its share loses its own oldest rows: quiet keeps its 10 and its count says
    /// nothing was pruned; noisy keeps 990 and its count, listing and find say what retention
    /// deleted (`prunedThrough`), as does a wait for a request it deleted.
    func testANoisyTenantPrunesItsOwnRowsNotAQuietTenants() throws {
        let test = try server(maxRows: 1000)
        defer { test.removeFiles() }
        let client = try test.client()
        for index in 0..<10 { XCTAssertEqual(try client.request("GET", "/quiet/\(index)", headers: E2E.tenantHeader("quiet")).status, 404) }
        XCTAssertEqual(JSONNumber.int(try count(client, "quiet", url: "/quiet/*")["count"]), 10)
        let port = test.port
        E2E.runOnThreads(2) { half in
            guard let noisy = try? RawHTTPClient(port: port) else { return XCTFail("connect") }
            for batch in 0..<10 {
                let requests = (0..<100).map { index in
                    E2E.PipelinedRequest(method: "GET", target: "/noisy/\(half)/\(batch)/\(index)", headers: E2E.tenantHeader("noisy"))
                }
                XCTAssertEqual((try? E2E.pipeline(noisy, requests))?.count, 100)
            }
        }
        let deadline = Date().addingTimeInterval(20)
        while try prunedOverLimit(client) < 1010, Date() < deadline { Thread.sleep(forTimeInterval: 0.05) }
        XCTAssertEqual(try prunedOverLimit(client), 1010, "2,010 rows, 1,000 kept")

        let quiet = try count(client, "quiet", url: "/quiet/*")
        XCTAssertEqual(JSONNumber.int(quiet["count"]), 10, "quiet keeps its rows: \(quiet)")
        XCTAssertNil(quiet["prunedThrough"], "nothing of quiet's was pruned: \(quiet)")
        XCTAssertEqual(try E2E.journal(client, tenant: "quiet").count, 10)
        let quietPage = try E2E.journalPage(client, tenant: "quiet", query: "")
        XCTAssertNil(quietPage["prunedThrough"], "\(quietPage.keys)")

        let noisy = try count(client, "noisy", url: "/noisy/*")
        XCTAssertEqual(JSONNumber.int(noisy["count"]), 990, "noisy keeps the rest of the limit: \(noisy)")
        let prunedThrough = try XCTUnwrap(JSONNumber.int(noisy["prunedThrough"]), "the count says rows were pruned: \(noisy)")
        let noisyPage = try E2E.journalPage(client, tenant: "noisy", query: "bodies=false")
        XCTAssertEqual(JSONNumber.int(noisyPage["prunedThrough"]), prunedThrough, "a listing from the start says so too")
        let firstKept = try XCTUnwrap(JSONNumber.int((noisyPage["requests"] as? [[String: Any]])?.first?["id"]))
        XCTAssertGreaterThan(firstKept, prunedThrough, "the entries kept are those after it")
        let later = try E2E.journalPage(client, tenant: "noisy", query: "since=\(prunedThrough)&bodies=false")
        XCTAssertNil(later["prunedThrough"], "a page after the pruned entries does not")
        let find = try client.json(
            "POST", "/catbird/api/requests/find", #"{"pattern":{"method":"GET","url":{"kind":"wildcard","value":"/noisy/*"}},"limit":1}"#,
            headers: E2E.tenantHeader("noisy"))
        XCTAssertEqual(JSONNumber.int(find.object["prunedThrough"]), prunedThrough, find.text)
        let wait = try client.json(
            "POST", "/catbird/api/requests/wait", #"{"pattern":{"method":"GET","url":{"kind":"equal","value":"/noisy/0/0/0"}},"timeout":0}"#,
            headers: E2E.tenantHeader("noisy"))
        XCTAssertEqual(wait.status, 408, wait.text)
        XCTAssertTrue(wait.text.contains("retention deleted this tenant's entries up to \(prunedThrough)"), wait.text)

        // A journal clear starts the range anew: nothing of the new range was pruned.
        XCTAssertEqual(try client.request("DELETE", "/catbird/api/requests", headers: E2E.tenantHeader("noisy")).status, 200)
        XCTAssertEqual(try client.request("GET", "/noisy/again", headers: E2E.tenantHeader("noisy")).status, 404)
        let fresh = try count(client, "noisy", url: "/noisy/*")
        XCTAssertEqual(JSONNumber.int(fresh["count"]), 1)
        XCTAssertNil(fresh["prunedThrough"], "\(fresh)")
    }

    /// Regression (the journal's `prunedThrough` was kept in memory only): with
    /// `--journal-max-rows 100`, 300 requests of one tenant lose their oldest 200 to retention;
    /// the count said so (`prunedThrough`), but after a restart it answered 100 with no
    /// `prunedThrough`, as if the app had sent only those. Now the note is stored (migration
    /// 0012) and the count, listing and wait say the same after a restart; a journal clear
    /// deletes it, and a restart after the clear does not bring it back.
    func testWhatRetentionDeletedIsStillSaidAfterARestart() throws {
        let test = try server(maxRows: 100)
        defer { test.removeFiles() }
        var client = try test.client()
        let requests = (0..<300).map { index in
            E2E.PipelinedRequest(method: "GET", target: "/noisy/\(index)", headers: E2E.tenantHeader("noisy"))
        }
        XCTAssertEqual(try E2E.pipeline(client, requests).count, 300)
        let deadline = Date().addingTimeInterval(20)
        while try prunedOverLimit(client) < 200, Date() < deadline { Thread.sleep(forTimeInterval: 0.05) }
        XCTAssertEqual(try prunedOverLimit(client), 200, "300 rows, 100 kept")
        let before = try count(client, "noisy", url: "/noisy/*")
        XCTAssertEqual(JSONNumber.int(before["count"]), 100, "\(before)")
        let prunedThrough = try XCTUnwrap(JSONNumber.int(before["prunedThrough"]), "\(before)")

        try test.restart()
        client = try test.client()
        let after = try count(client, "noisy", url: "/noisy/*")
        XCTAssertEqual(JSONNumber.int(after["count"]), 100, "\(after)")
        XCTAssertEqual(JSONNumber.int(after["prunedThrough"]), prunedThrough, "the restart kept the note: \(after)")
        let page = try E2E.journalPage(client, tenant: "noisy", query: "bodies=false&limit=1")
        XCTAssertEqual(JSONNumber.int(page["prunedThrough"]), prunedThrough, "\(page.keys)")
        let wait = try client.json(
            "POST", "/catbird/api/requests/wait", #"{"pattern":{"method":"GET","url":{"kind":"equal","value":"/noisy/0"}},"timeout":0}"#,
            headers: E2E.tenantHeader("noisy"))
        XCTAssertEqual(wait.status, 408, wait.text)
        XCTAssertTrue(wait.text.contains("retention deleted this tenant's entries up to \(prunedThrough)"), wait.text)

        XCTAssertEqual(try client.request("DELETE", "/catbird/api/requests", headers: E2E.tenantHeader("noisy")).status, 200)
        try test.restart()
        client = try test.client()
        XCTAssertEqual(try client.request("GET", "/noisy/again", headers: E2E.tenantHeader("noisy")).status, 404)
        let fresh = try count(client, "noisy", url: "/noisy/*")
        XCTAssertEqual(JSONNumber.int(fresh["count"]), 1, "\(fresh)")
        XCTAssertNil(fresh["prunedThrough"], "the clear deleted the stored note too: \(fresh)")
    }
}
