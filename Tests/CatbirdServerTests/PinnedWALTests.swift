import CatbirdStorage
import CatbirdTestSupport
import Foundation
import XCTest

/// Tester finding tester39b-F3, its reader: a `sqlite3` shell left inside `BEGIN; SELECT count(*)
/// FROM requests;` beside the server. No checkpoint could copy the frames written after its
/// snapshot, so the `-wal` grew with every journaled request (266 MB in 12 s of one client's
/// hits) while health said ok and nothing was logged. The server now says so, and says when the
/// reader's end let the frames go.
final class PinnedWALTests: XCTestCase {
    func testAReaderLeftInsideATransactionIsReportedOnceTheWALPassesItsBound() throws {
        try LaunchedServer.withTemporaryDatabase(["--journal-body-limit", "1mb"]) { server, client, database in
            XCTAssertEqual(try client.request("POST", "/warm", body: Array(repeating: UInt8(ascii: "w"), count: 1024)).status, 404)
            let reader = try Database(path: database, mode: .readOnly)
            defer { reader.close() }
            try reader.execute("BEGIN")
            XCTAssertNotNil(try reader.query("SELECT count(*) FROM requests").first)
            // About 80 MB of request bodies, every one journaled: past the 64 MiB the warning waits for.
            let body = Array(repeating: UInt8(ascii: "a"), count: 512 * 1024)
            var warned = false
            for index in 1...160 {
                XCTAssertEqual(try client.request("POST", "/grow/\(index)", body: body).status, 404)
                if index % 20 == 0, server.stderrText.contains("that no checkpoint can copy into the file") { warned = true; break }
            }
            if !warned {
                _ = try client.request("GET", "/catbird/api/requests?limit=1&bodies=false")  // flushes the writer's last rounds
                warned = server.stderrText.contains("that no checkpoint can copy into the file")
            }
            XCTAssertTrue(warned, "the pinned -wal is logged: \(server.stderrText.suffix(1500))")
            XCTAssertTrue(server.stderrText.contains("another process reads an old snapshot of it (a sqlite3 shell inside BEGIN"), server.stderrText)
            XCTAssertEqual(try client.request("GET", "/catbird/api/health").status, 200, "the server works on")

            try reader.execute("COMMIT")
            for index in 1...20 {
                XCTAssertEqual(try client.request("POST", "/after/\(index)", body: body).status, 404)
                if server.stderrText.contains("the -wal's frames are copied into the file again") { break }
            }
            XCTAssertTrue(
                server.stderrText.contains("the -wal's frames are copied into the file again"), "its end is logged: \(server.stderrText.suffix(1500))")
        }
    }
}
