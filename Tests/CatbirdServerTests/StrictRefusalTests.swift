import CatbirdStorage
import CatbirdTestSupport
import Foundation
import XCTest

/// `--durability strict` and the requests refused before they are read whole (README.md#durability,
/// docs/protocol.md#malformed-requests): a refusal is journaled like any answer, so it too leaves
/// only once its entry is committed, and it waits parked, not on a worker thread. With one worker
/// and the journal writer held up by another connection's write lock, an oversized upload (413),
/// a target too long (414, refused when its headers are read) and a query with too many
/// parameters (414, refused before libmicrohttpd parses the query) all wait, while a request on
/// another connection is answered at once (each used to hold the only worker until the commit);
/// once the lock goes, each gets its refusal and is in the file.
final class StrictRefusalTests: XCTestCase {
    func testRefusalsWaitingForTheirCommitHoldNoWorker() throws {
        let server = try TestServer.strictWithOneWorker { $0.maxBodySize = 1024 }
        defer { server.removeFiles() }
        let writer = try JournalWriterHold(server)
        defer { writer.end() }

        let longTarget = "/long/" + String(repeating: "a", count: 9000)
        let manyParameters = "/many?" + (0...200).map { "p\($0)=1" }.joined(separator: "&")
        let refusals: [(request: String, status: Int, url: String)] = [
            ("POST /upload HTTP/1.1\r\nHost: x\r\nContent-Length: 5000\r\n\r\n", 413, "/upload"),
            ("GET \(longTarget) HTTP/1.1\r\nHost: x\r\n\r\n", 414, longTarget),
            ("GET \(manyParameters) HTTP/1.1\r\nHost: x\r\n\r\n", 414, manyParameters),
        ]
        let clients = try refusals.map { refusal in
            let client = try RawHTTPClient(port: server.port, timeoutSeconds: 10)
            try client.send(raw: Array(refusal.request.utf8))
            return client
        }
        // Each refusal is journaled and waits, without a worker, for the commit the lock holds up.
        E2E.waitUntilWaiting(server, refusals.count)

        let other = try RawHTTPClient(port: server.port, timeoutSeconds: 3)
        let version: RawResponse
        do {
            version = try other.request("GET", "/catbird/version")
        } catch {
            return XCTFail("GET /catbird/version on the worker's other connection got no answer within 3 s (\(error)): a refusal holds the worker until its commit")
        }
        XCTAssertEqual(version.status, 200, version.text)
        for (client, refusal) in zip(clients, refusals) {
            XCTAssertEqual(
                client.readUntilQuiet(firstByteWithin: 100, quietAfter: 50), [],
                "\(refusal.request.prefix(30)): no refusal leaves before its entry is committed")
        }

        try writer.release()
        for (client, refusal) in zip(clients, refusals) {
            let answer = try client.readResponse()
            XCTAssertEqual(answer.status, refusal.status, "\(refusal.request.prefix(30)): \(answer.text)")
            XCTAssertEqual(answer.header("Connection"), "close")
            let rows = try writer.database.query("SELECT status FROM requests WHERE url = ?", [.text(refusal.url)])
            XCTAssertEqual(rows.map { $0[0].intValue }, [Int64(refusal.status)], "\(refusal.request.prefix(30)) is journaled as answered")
        }
    }
}
