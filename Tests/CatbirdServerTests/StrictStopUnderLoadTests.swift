import CatbirdStorage
import CatbirdTestSupport
import Foundation
import XCTest
#if canImport(Glibc)
import Glibc
#endif

/// `--durability strict` stopped with SIGTERM under load (README.md#durability: at shutdown an
/// answer waiting for its commit still gets its own answer once the row is written). Regression
/// (tester finding T19A-F1), the finding's load: six keep-alive clients, each asking in turn a
/// new URL nothing matches (404) and a mock with a `limit` of 1,000,000, then SIGTERM. Each
/// busy connection's last request got the stop's 503 (`the server is stopping`) while its
/// journal row said 404 or 200 and the mock's `limit` unit was spent (4 of 4 runs of the
/// 404s, 1 of 3 of the mock). Now, after the exit, over three rounds: no request a client got
/// that 503 for is in the journal (the 503 is not journaled), every journaled 200 is one a
/// client received, and the mock's limit went down by exactly its journaled hits.
final class StrictStopUnderLoadTests: XCTestCase {
    private static let clients = 6
    private static let limit = 1_000_000

    func testEveryAnswerTheJournalRecordsIsTheOneTheClientGot() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("catbird-strict-stop-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        var stoppingAnswers = 0
        for round in 0..<3 {
            let database = directory.appendingPathComponent("strict-\(round).sqlite").path
            let server = try LaunchedServer(
                ["--port", "\(try FreePort.next())", "--db", database, "--durability", "strict", "--log-level", "error"],
                in: directory)
            let control = try server.client()
            try E2E.addMock(control, tenant: "tt", url: "/lim*", kind: "wildcard", body: nil, limit: Self.limit)
            // What each client received: URL → status, and the URLs the stop's 503 went to.
            let received = Locked<[String: Int]>([:])
            let refused = Locked<Set<String>>([])
            let stopper = Thread { [process = server.process] in
                usleep(1_200_000)
                kill(process.processIdentifier, SIGTERM)
            }
            stopper.start()
            E2E.runOnThreads(Self.clients) { [port = server.port] client in
                E2E.askUntilGone(port: port, headers: [("X-Catbird-Parallel-Id", "tt")]) { sequence in
                    (sequence % 2 == 0 ? "/lim?" : "/miss") + "/\(client)/\(sequence)"
                } received: { url, response in
                    received.change { $0[url] = response.status }
                    if response.status == 503, response.text.contains("the server is stopping") { refused.change { _ = $0.insert(url) } }
                    return response.header("Connection") != "close"
                }
            }
            try LaunchedServer.wait(for: server.process, seconds: 30)
            XCTAssertEqual(server.process.terminationStatus, 0, "round \(round): a clean exit")

            let db = try Database(path: database, mode: .readOnly)
            defer { db.close() }
            var journaled: [String: Int] = [:]
            for row in try db.query("SELECT url, status FROM requests WHERE tenant = 'tt'") {
                journaled[row[0].stringValue ?? ""] = Int(row[1].intValue ?? 0)
            }
            let answers = received.value
            XCTAssertGreaterThan(answers.count, 50, "round \(round): the clients got answers before the stop")
            for url in refused.value {
                XCTAssertNil(journaled[url], "round \(round): \(url) got the stop's 503 yet is journaled as \(journaled[url] ?? 0)")
            }
            stoppingAnswers += refused.value.count
            let journaledHits = journaled.filter { $0.key.hasPrefix("/lim?") && $0.value == 200 }
            for url in journaledHits.keys {
                XCTAssertEqual(answers[url], 200, "round \(round): \(url) is journaled as answered 200, the client got \(answers[url].map(String.init) ?? "nothing")")
            }
            let remaining = try db.query("SELECT remaining_limit FROM mocks WHERE tenant = 'tt'").first?[0].intValue
            XCTAssertEqual(remaining.map(Int.init), Self.limit - journaledHits.count, "round \(round): the limit spent is the journaled hits")
        }
        print("StrictStopUnderLoadTests: \(stoppingAnswers) stop 503s over three rounds, none journaled")
    }
}
