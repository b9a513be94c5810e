import CatbirdTestSupport
import Foundation
import Synchronization
import XCTest

/// Journal pages are bounded in bytes and built without holding the page several times
/// (docs/protocol.md#journal). Regression: one `GET /catbird/api/requests?limit=1000` page of
/// 70 KB bodies was an 88 MB answer and took the server from 29 MB to 350–550 MB resident
/// (four at once: 740 MB). Measured on a real `catbird` process through its VmHWM.
final class JournalPageMemoryTests: XCTestCase {
    func testPagesOfLargeBodiesStopAtTheSizeLimitAndThePeakStaysSmall() throws {
        try LaunchedServer.withTemporaryDatabase { server, client in try pagesOfLargeBodies(server, client) }
    }

    private func pagesOfLargeBodies(_ server: LaunchedServer, _ client: RawHTTPClient) throws {

        // 300 requests, each with a 64 KiB request body answered by a 64 KiB mock body: both
        // bodies are journaled whole (the default journal body limit), ~300 KB of JSON an entry.
        let responseBody = [UInt8]((0..<65_536).map { UInt8(ascii: "a") + UInt8($0 % 26) })
        try E2E.addMock(client, method: "POST", url: "/big", body: String(decoding: responseBody, as: UTF8.self))
        let requestBody = [UInt8]((0..<65_536).map { UInt8(ascii: "A") + UInt8($0 % 26) })
        let entryCount = 300
        for _ in 0..<entryCount {
            XCTAssertEqual(try client.request("POST", "/big", body: requestBody).status, 200)
        }

        let before = try server.peakResidentMegabytes()
        // Four full pages at once, three times.
        let port = server.port
        let sizes = Mutex<[Int]>([])
        let failures = Mutex<[String]>([])
        for _ in 0..<3 {
            let group = DispatchGroup()
            for _ in 0..<4 {
                group.enter()
                Thread {
                    defer { group.leave() }
                    do {
                        let answer = try RawHTTPClient(port: port).request("GET", "/catbird/api/requests?limit=1000")
                        if answer.status != 200 { failures.withLock { $0.append("status \(answer.status)") } }
                        if answer.object["sizeLimited"] as? Bool != true || answer.object["hasMore"] as? Bool != true {
                            failures.withLock { $0.append("not marked as stopped early: \(answer.text.suffix(120))") }
                        }
                        sizes.withLock { $0.append(answer.body.count) }
                    } catch {
                        failures.withLock { $0.append("\(error)") }
                    }
                }.start()
            }
            XCTAssertEqual(group.wait(timeout: .now() + 120), .success)
        }
        XCTAssertEqual(failures.withLock { $0 }, [])
        let largest = sizes.withLock { $0 }.max() ?? 0
        XCTAssertLessThanOrEqual(largest, 4 << 20, "a page holds at most 4 MiB of JSON")
        XCTAssertGreaterThan(largest, 2 << 20, "a page holds as much as fits")

        // Paging on from nextSince reaches every entry exactly once.
        var since: Int64 = 0
        var seen: [Int64] = []
        var pages = 0
        while pages < 100 {
            let page = try client.request("GET", "/catbird/api/requests?limit=1000&since=\(since)").object
            let ids = (page["requests"] as? [[String: Any]] ?? []).compactMap { ($0["id"] as? NSNumber)?.int64Value }
            seen += ids
            pages += 1
            guard page["hasMore"] as? Bool == true else { break }
            since = (page["nextSince"] as? NSNumber)?.int64Value ?? since
        }
        XCTAssertEqual(seen.count, entryCount)
        XCTAssertEqual(Set(seen).count, entryCount)
        XCTAssertGreaterThan(pages, 10, "300 entries of ~300 KB take many 4 MiB pages")

        // Generous: the fixed server peaks near 60 MB here; unbounded pages took it past 500 MB.
        let peak = try server.peakResidentMegabytes()
        XCTAssertLessThan(peak, 128, "peak RSS (VmHWM) of the server: \(peak) MB")
        print("journal pages: largest answer \(largest) bytes in \(pages) pages; server VmHWM \(before) MB before the pages, \(peak) MB after")
    }

    /// Regression: after 1,000 unmatched POSTs of 93 KB each in one tenant,
    /// `GET /catbird/api/requests/unmatched?limit=1000` and `POST /catbird/api/requests/find`
    /// with `"limit": 1000` each answered 153,866,685 bytes with every entry and no
    /// `sizeLimited` (the server peaked at 1.3 GB), while the plain listing stopped at 4 MiB.
    /// Scaled down to 100 such requests (15 MB of entries), every journal-page route must stop
    /// at 4 MiB with `sizeLimited: true`, page on to every entry exactly once, and keep the
    /// server's peak under 128 MB.
    func testUnmatchedAndFindPagesStopAtTheSizeLimitToo() throws {
        try LaunchedServer.withTemporaryDatabase { server, client in try unmatchedAndFindPages(server, client) }
    }

    private func unmatchedAndFindPages(_ server: LaunchedServer, _ client: RawHTTPClient) throws {
        let tenant = [("X-Catbird-Parallel-Id", "SZ2")]

        // The user's body: 70,000 random bytes in base64, 93,336 bytes; nothing answers it.
        var random = SeededRandom(seed: 7)
        let body = Array(Data((0..<70_000).map { _ in UInt8.random(in: 0...255, using: &random) }).base64EncodedString().utf8)
        XCTAssertEqual(body.count, 93_336)
        let entryCount = 100
        for index in 0..<entryCount {
            XCTAssertEqual(try client.request("POST", "/u\(index)", headers: tenant, body: body).status, 404)
        }

        let routes: [(name: String, first: () throws -> RawResponse, after: (Int64) throws -> RawResponse)] = [
            ("unmatched",
             { try client.request("GET", "/catbird/api/requests/unmatched?limit=1000", headers: tenant) },
             { try client.request("GET", "/catbird/api/requests/unmatched?limit=1000&since=\($0)", headers: tenant) }),
            ("find",
             { try client.json("POST", "/catbird/api/requests/find", Self.findBody(since: nil), headers: tenant) },
             { try client.json("POST", "/catbird/api/requests/find", Self.findBody(since: $0), headers: tenant) }),
        ]
        for route in routes {
            let first = try route.first()
            XCTAssertEqual(first.status, 200, route.name)
            XCTAssertLessThanOrEqual(first.body.count, 4 << 20, "\(route.name): a page holds at most 4 MiB of JSON")
            XCTAssertEqual(first.object["sizeLimited"] as? Bool, true, route.name)
            XCTAssertEqual(first.object["hasMore"] as? Bool, true, route.name)
            var seen: [Int64] = []
            var page = first
            var pages = 1
            while true {
                let entries = page.object["requests"] as? [[String: Any]] ?? []
                XCTAssertFalse(entries.isEmpty, "\(route.name): every page holds at least one entry")
                XCTAssertTrue(entries.allSatisfy { ($0["response"] as? [String: Any])?["status"] as? Int == 404 }, route.name)
                seen += entries.compactMap { ($0["id"] as? NSNumber)?.int64Value }
                guard page.object["hasMore"] as? Bool == true, pages < 100 else { break }
                page = try route.after(try XCTUnwrap((page.object["nextSince"] as? NSNumber)?.int64Value))
                XCTAssertEqual(page.status, 200, route.name)
                XCTAssertLessThanOrEqual(page.body.count, 4 << 20, route.name)
                pages += 1
            }
            XCTAssertEqual(seen.count, entryCount, route.name)
            XCTAssertEqual(Set(seen).count, entryCount, route.name)
            XCTAssertGreaterThanOrEqual(pages, 4, "\(route.name): 100 entries of ~150 KB take several 4 MiB pages")
        }
        let peak = try server.peakResidentMegabytes()
        XCTAssertLessThan(peak, 128, "peak RSS (VmHWM) of the server: \(peak) MB")
    }

    /// A find body matching every POST, after `since`, 1,000 entries a page.
    private static func findBody(since: Int64?) -> String {
        #"{"pattern": {"method": "POST", "url": {"kind": "wildcard", "value": "*"}}, "limit": 1000"#
            + (since.map { #", "since": \#($0)"# } ?? "") + "}"
    }
}
