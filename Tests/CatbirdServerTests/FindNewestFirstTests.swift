import CatbirdTestSupport
import Foundation
import XCTest

/// `POST /catbird/api/requests/find` with `"order": "newest"` (docs/protocol.md#find): the
/// latest matches first, paged back with `before` set to each page's `nextBefore`.
final class FindNewestFirstTests: XCTestCase {
    /// Regression (tester finding tester34a-F3, the finding's input scaled down): find answered
    /// `nextBefore` but read oldest first only and refused `order`, so a client paging back
    /// from the newest match with `before` = `nextBefore` got its first page and then nothing
    /// (`hasMore: false`): 9 of 166 matches. Newest first, the pages now hold every match once,
    /// in descending order (limits 9 and 1,000 over 1,100 matches among 1,650 requests: a page
    /// of 1,000 reads its 1,001 ids in two statements of the search), within `since`; a bad
    /// `order` is a 400.
    func testFindPagesBackFromTheNewestMatch() throws {
        let server = try TestServer()
        defer { server.removeFiles() }
        let client = try server.client()
        let tenant = E2E.tenantHeader("P")
        var expected: [Int] = []
        for index in 0..<1_650 {
            let path = index % 3 == 2 ? "/q/\(index)" : "/p/\(index)"
            _ = try client.request("GET", path, headers: tenant)
        }
        let first = try E2E.journal(client, tenant: "P", query: "limit=1000&bodies=false")
        let last = try XCTUnwrap(first.last?["id"] as? Int)
        let all = first + (try E2E.journal(client, tenant: "P", query: "limit=1000&bodies=false&since=\(last)"))
        XCTAssertEqual(all.count, 1_650)
        for entry in all {
            guard let url = (entry["request"] as? [String: Any])?["url"] as? String ?? entry["url"] as? String,
                  url.hasPrefix("/p/"), let id = entry["id"] as? Int else { continue }
            expected.append(id)
        }
        XCTAssertEqual(expected.count, 1_100)
        let pattern = #"{"method":"GET","url":{"kind":"wildcard","value":"/p/*"}}"#

        func pages(limit: Int, extra: String = "") throws -> [Int] {
            var ids: [Int] = []
            var before: Int?
            while true {
                let bound = before.map { #","before":\#($0)"# } ?? ""
                let page = try client.json(
                    "POST", "/catbird/api/requests/find",
                    #"{"pattern":\#(pattern),"order":"newest","limit":\#(limit),"bodies":false\#(bound)\#(extra)}"#, headers: tenant)
                XCTAssertEqual(page.status, 200, page.text)
                let entries = try XCTUnwrap(page.object["requests"] as? [[String: Any]], page.text)
                ids += entries.compactMap { $0["id"] as? Int }
                guard page.object["hasMore"] as? Bool == true else { return ids }
                before = try XCTUnwrap(page.object["nextBefore"] as? Int, page.text)
                if ids.count > 2_000 { XCTFail("no end"); return ids }
            }
        }
        XCTAssertEqual(try pages(limit: 9), expected.reversed())
        XCTAssertEqual(try pages(limit: 1000), expected.reversed())
        let since = expected[100]
        XCTAssertEqual(try pages(limit: 7, extra: #","since":\#(since)"#), expected.filter { $0 > since }.reversed())

        let oldest = try client.json("POST", "/catbird/api/requests/find", #"{"pattern":\#(pattern),"limit":3}"#, headers: tenant)
        XCTAssertEqual((oldest.object["requests"] as? [[String: Any]])?.compactMap { $0["id"] as? Int }, Array(expected.prefix(3)))
        E2E.assertError(
            try client.json("POST", "/catbird/api/requests/find", #"{"pattern":\#(pattern),"order":"latest"}"#, headers: tenant),
            status: 400, reasonContains: #"'order' must be "oldest" or "newest", not "latest""#)
    }
}
