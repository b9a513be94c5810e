import CatbirdTestSupport
import Foundation
import Synchronization
import XCTest

/// User SQL is bounded in memory and stops at its time limit however heavy each step is
/// (docs/protocol.md#sql), measured on a real `catbird` process through /proc.
final class SQLMemoryBoundTests: XCTestCase {
    /// The query a new user sent: ten columns of `hex(zeroblob(30000000 + i))`, each within the
    /// 64 MiB value limit. Regression: three tenants sending it at once answered after 37.8 to
    /// 38.9 s (a 2-second limit), the server's VmHWM reached 5.8 GB and its VmRSS stayed near
    /// 1 GB after (52 MB at start); alone, 2.0 GB and 2.8 s.
    static let tenColumns: String = {
        let inner = (0..<10).map { "hex(zeroblob(\(30_000_000 + $0))) c\($0)" }.joined(separator: ", ")
        let outer = (0..<10).map { "length(c\($0))" }.joined(separator: "+")
        return "SELECT \(outer) FROM (SELECT \(inner))"
    }()

    func testManyLargeValuesAtOnceAreRefusedQuicklyWithinTheMemoryBound() throws {
        try LaunchedServer.withTemporaryDatabase { server, client in
            let port = server.port
            try E2E.addMock(client, tenant: "other", url: "/ping", body: "pong")
            // One large value within the limits still works (the bound is per query, not per value).
            let one = try E2E.sql(client, "SELECT length(hex(zeroblob(30000000)))", tenant: "m1")
            XCTAssertEqual(one.status, 200, one.text)
            XCTAssertEqual(one.object["rows"] as? [[Int]], [[60_000_000]])
            let start = try server.currentResidentMegabytes()

            // Another tenant's mock is served throughout.
            let done = Atomic<Bool>(false)
            let slowestHit = Mutex<Duration>(.zero)
            let hitFailures = Mutex<[String]>([])
            let hitCount = Atomic<Int>(0)
            let hits = Thread {
                let hitClient: RawHTTPClient
                do {
                    hitClient = try RawHTTPClient(port: port)
                } catch {
                    hitFailures.withLock { $0.append("connecting: \(error)") }
                    return
                }
                while !done.load(ordering: .relaxed) {
                    let started = ContinuousClock.now
                    do {
                        let answer = try hitClient.request("GET", "/ping", headers: [("X-Catbird-Parallel-Id", "other")])
                        if answer.status != 200 { hitFailures.withLock { $0.append("status \(answer.status)") } }
                    } catch {
                        hitFailures.withLock { $0.append("\(error)") }
                        return
                    }
                    let took = ContinuousClock.now - started
                    slowestHit.withLock { $0 = max($0, took) }
                    hitCount.add(1, ordering: .relaxed)
                    usleep(10_000)
                }
            }
            hits.start()
            // The hits run before the queries start, so the slowest one covers the queries.
            let firstHitDeadline = ContinuousClock.now + .seconds(10)
            while hitCount.load(ordering: .relaxed) == 0, hitFailures.withLock({ $0.isEmpty }), ContinuousClock.now < firstHitDeadline {
                usleep(5_000)
            }

            let answers = Mutex<[String: (status: Int, text: String, took: Duration)]>([:])
            let hitsBeforeQueries = hitCount.load(ordering: .relaxed)
            let group = DispatchGroup()
            for tenant in ["m1", "m2", "m3"] {
                group.enter()
                Thread {
                    defer { group.leave() }
                    let started = ContinuousClock.now
                    let answer = try? E2E.sql(try RawHTTPClient(port: port, timeoutSeconds: 90), Self.tenColumns, tenant: tenant)
                    answers.withLock { $0[tenant] = (answer?.status ?? 0, answer?.text ?? "no answer", ContinuousClock.now - started) }
                }.start()
            }
            XCTAssertEqual(group.wait(timeout: .now() + 90), .success)
            let hitsDuringQueries = hitCount.load(ordering: .relaxed) - hitsBeforeQueries
            done.store(true, ordering: .relaxed)
            for (tenant, answer) in answers.withLock({ $0 }) {
                XCTAssertEqual(answer.status, 400, "\(tenant): \(answer.text)")
                XCTAssertTrue(answer.text.contains("the query needs more than 256 MiB of memory"), "\(tenant): \(answer.text)")
                // Generous for a loaded machine: they took 38 s.
                XCTAssertLessThan(answer.took, .seconds(6), "\(tenant) answered late")
            }
            XCTAssertEqual(answers.withLock { $0.count }, 3)
            let peak = try server.peakResidentMegabytes()
            // Three queries of at most 256 MiB each, plus the server: it reached 5.8 GB.
            XCTAssertLessThan(peak, 1_000, "the server's VmHWM: \(peak) MB")
            let after = try server.currentResidentMegabytes()
            XCTAssertLessThan(after, start + 48, "VmRSS \(start) MB before the queries, \(after) MB after")

            XCTAssertEqual(hitFailures.withLock { $0 }, [])
            // Counted from the queries' start to their last answer (one hit before them is the
            // set-up's): a hit held up behind the queries for their whole time ends after them.
            XCTAssertGreaterThan(hitsDuringQueries, 0, "no mock hit was served while the queries ran")
            // Generous for three queries touching 256 MiB each on 2 loaded cores; held up
            // behind them, hits took as long as the queries (38 s).
            XCTAssertLessThan(slowestHit.withLock { $0 }, .seconds(3), "another tenant's mock hits were held up")
            XCTAssertEqual(try E2E.sql(client, "SELECT 1", tenant: "m1").status, 200, "the SQL route serves on")
            print("SQL memory: VmRSS \(start) MB before, \(after) MB after; VmHWM \(peak) MB; \(hitsDuringQueries) mock hits during the queries, the slowest \(slowestHit.withLock { $0 })")
        }
    }

    /// A statement whose every step is heavy (a 40 MB value per row) stops within about one
    /// step of its deadline: SQLite's progress handler alone looks at the clock only every
    /// 1000 instructions, about 100 such rows.
    func testAStatementOfHeavyStepsStopsAtItsTimeLimit() throws {
        try LaunchedServer.withTemporaryDatabase { _, client in
            let started = ContinuousClock.now
            let answer = try E2E.sql(
                client,
                "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < 100000) "
                    + "SELECT sum(length(hex(zeroblob(20000000 + x)))) FROM c")
            let took = ContinuousClock.now - started
            XCTAssertEqual(answer.status, 400, answer.text)
            XCTAssertTrue(answer.text.contains("time limit of 2000 ms"), answer.text)
            XCTAssertLessThan(took, .milliseconds(3500), "the query ran past its 2-second limit")
        }
    }
}
