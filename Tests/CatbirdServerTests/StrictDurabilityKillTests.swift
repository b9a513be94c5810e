import CatbirdStorage
import CatbirdTestSupport
import Foundation
import XCTest
#if canImport(Glibc)
import Glibc
#endif

/// `--durability strict` under kill -9 (README.md#durability): the `catbird` binary serves
/// several client connections at once and is killed with SIGKILL, round after round. After each
/// restart every request a client received a complete answer for is in the journal, and no
/// limited mock has handed out more answers than its limit, across all the rounds.
final class StrictDurabilityKillTests: XCTestCase {
    private static let rounds = 5
    private static let clients = 8
    /// Limited mocks added per round, each with ``limit`` answers.
    private static let limitedPerRound = 40
    private static let limit = 3

    func testEveryAnsweredRequestIsJournaledAndNoLimitIsSpentTwiceAcrossKills() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("catbird-kill-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let database = directory.appendingPathComponent("strict.sqlite").path
        // Per limited mock's URL, the 200s clients received in all rounds.
        let handedOut = Locked<[String: Int]>([:])
        var limitedURLs: [String] = []
        // URLs clients received a complete answer for in the round (unique except the limited
        // mocks', which the journal then holds once or more).
        let answeredURLs = Locked<Set<String>>([])
        var answeredTotal = 0

        for round in 0...Self.rounds {
            let server = try LaunchedServer(
                ["--port", "\(try FreePort.next())", "--db", database, "--durability", "strict", "--log-level", "error"],
                in: directory)
            // What the previous round's clients received is all there after the restart.
            if round > 0 {
                let (journaled, remaining) = try Self.readBack(database, limitedURLs: limitedURLs)
                let answered = answeredURLs.value
                let missing = answered.subtracting(journaled)
                XCTAssertTrue(missing.isEmpty, "round \(round - 1): \(missing.count) of \(answered.count) answered requests missing from the journal, e.g. \(missing.sorted().prefix(3))")
                for url in limitedURLs {
                    let given = handedOut.value[url] ?? 0
                    XCTAssertLessThanOrEqual(given, Self.limit, "\(url) answered 200 \(given) times with limit \(Self.limit)")
                    XCTAssertLessThanOrEqual(remaining[url] ?? 0, Self.limit - given, "\(url): the limit came back after the kill")
                }
                answeredTotal += answered.count
                answeredURLs.set([])
            }
            if round == Self.rounds {
                XCTAssertEqual(try server.terminate().status, 0)
                break
            }
            let control = try server.client()
            for index in 0..<Self.limitedPerRound {
                let url = "/limited/\(round)/\(index)"
                try E2E.addMock(control, url: url, body: "limited", limit: Self.limit)
                limitedURLs.append(url)
            }
            try E2E.addMock(control, url: "/free/*", kind: "wildcard", body: "free")
            let urls = limitedURLs
            let killer = Thread { [process = server.process] in
                usleep(useconds_t(700_000 + Int.random(in: 0..<600_000)))
                kill(process.processIdentifier, SIGKILL)
            }
            killer.start()
            E2E.runOnThreads(Self.clients) { [port = server.port] client in
                E2E.askUntilGone(port: port) { sequence in
                    sequence % 2 == 0 ? urls.randomElement()! : "/free/\(round)-\(client)-\(sequence)"
                } received: { url, response in
                    answeredURLs.change { _ = $0.insert(url) }
                    if url.hasPrefix("/limited/"), response.status == 200 {
                        handedOut.change { $0[url, default: 0] += 1 }
                    }
                    return true
                }
            }
            try LaunchedServer.wait(for: server.process, seconds: 30)
            XCTAssertEqual(server.process.terminationReason, .uncaughtSignal)
        }
        XCTAssertGreaterThan(answeredTotal, Self.rounds * 50, "the clients got answers before each kill")
        XCTAssertGreaterThan(handedOut.value.values.reduce(0, +), 0, "limited mocks were hit")
    }

    /// The journal's URLs and each limited mock's remaining limit (0 once its row is gone),
    /// read from the database file while the restarted server runs.
    private static func readBack(_ path: String, limitedURLs: [String]) throws -> (Set<String>, [String: Int]) {
        let db = try Database(path: path, mode: .readOnly)
        defer { db.close() }
        let journaled = Set(try db.query("SELECT DISTINCT url FROM requests").compactMap { $0[0].stringValue })
        var remaining: [String: Int] = [:]
        for row in try db.query("SELECT url_value, remaining_limit FROM mocks WHERE url_value LIKE '/limited/%'") {
            remaining[row[0].stringValue ?? ""] = Int(row[1].intValue ?? 0)
        }
        return (journaled, remaining)
    }
}
