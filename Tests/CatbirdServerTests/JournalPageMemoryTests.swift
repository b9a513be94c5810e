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
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("catbird-page-memory-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let server = try LaunchedServer(
            ["--port", "\(try FreePort.next())", "--db", directory.appendingPathComponent("db.sqlite").path, "--log-level", "warning"],
            in: directory)
        defer { _ = try? server.terminate() }
        let client = try server.client()

        // 300 requests, each with a 64 KiB request body answered by a 64 KiB mock body: both
        // bodies are journaled whole (the default journal body limit), ~300 KB of JSON an entry.
        let responseBody = [UInt8]((0..<65_536).map { UInt8(ascii: "a") + UInt8($0 % 26) })
        try E2E.addMock(client, method: "POST", url: "/big", body: String(decoding: responseBody, as: UTF8.self))
        let requestBody = [UInt8]((0..<65_536).map { UInt8(ascii: "A") + UInt8($0 % 26) })
        let entryCount = 300
        for _ in 0..<entryCount {
            XCTAssertEqual(try client.request("POST", "/big", body: requestBody).status, 200)
        }

        let before = try Self.peakResidentMegabytes(of: server.process.processIdentifier)
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
        let peak = try Self.peakResidentMegabytes(of: server.process.processIdentifier)
        XCTAssertLessThan(peak, 128, "peak RSS (VmHWM) of the server: \(peak) MB")
        print("journal pages: largest answer \(largest) bytes in \(pages) pages; server VmHWM \(before) MB before the pages, \(peak) MB after")
    }

    /// `VmHWM` of `pid` in megabytes (from /proc/<pid>/status).
    static func peakResidentMegabytes(of pid: Int32) throws -> Int {
        let status = try String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8)
        let line = try XCTUnwrap(status.split(separator: "\n").first { $0.hasPrefix("VmHWM:") })
        let kilobytes = try XCTUnwrap(Int(line.split(separator: " ", omittingEmptySubsequences: true)[1]))
        return kilobytes / 1024
    }
}
