import CatbirdTestSupport
import Dispatch
import Foundation
import Synchronization
import XCTest

/// Time spent waiting for an SQL connection is not blamed on the query (tester finding
/// T11-F2): a query's time limit counts from when it starts, and its wait for a connection busy
/// with other tenants' queries has a bound of its own, past which it is a 503 with
/// `Retry-After` that says it waited and never ran.
final class SQLWaitTests: XCTestCase {
    /// The finding's query: counts for ever, until the time limit stops it.
    private static let slowSQL = "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x+1 FROM c) SELECT count(*) FROM c"

    /// What the busy tenants' threads share: when to stop, and their answers' statuses.
    private final class BusyTenants: Sendable {
        let stop = Atomic(false)
        let statuses = Mutex<[Int]>([])
        let group = DispatchGroup()
    }

    /// Tenants `busy-0` … each loop one slow query at a time (each within its fair share)
    /// until `busy.stop`; one query each when `once`.
    private func runSlowQueries(_ server: TestServer, tenants: Int, once: Bool, _ busy: BusyTenants) {
        let port = server.port
        for index in 0..<tenants {
            busy.group.enter()
            Thread {
                defer { busy.group.leave() }
                guard let client = try? RawHTTPClient(port: port) else { return }
                repeat {
                    let status = (try? E2E.sql(client, Self.slowSQL, tenant: "busy-\(index)"))?.status ?? 0
                    busy.statuses.withLock { $0.append(status) }
                } while !once && !busy.stop.load(ordering: .relaxed)
            }.start()
        }
    }

    /// The finding, scaled: six tenants (the finding had four, on a 2-second limit) each loop
    /// one slow query on a 500 ms limit, so the 3 connections are always busy and a fourth
    /// tenant's query always waits behind some of them; an idle tenant's `select 1` waited its
    /// whole 2 seconds and got a 400 "interrupted after its time limit". Now each one runs.
    func testAnIdleTenantsQueryRunsWhileOtherTenantsRunSlowQueries() throws {
        let server = try TestServer { $0.sqlTimeLimit = .milliseconds(500) }
        defer { server.removeFiles() }
        let busy = BusyTenants()
        runSlowQueries(server, tenants: 6, once: false, busy)
        let deadline = ContinuousClock.now + .seconds(10)
        while server.waitingAnswers < 6, ContinuousClock.now < deadline { usleep(5_000) }  // every one in the server

        let client = try server.client()
        var answers: [String] = []
        for _ in 0..<8 {
            let answer = try E2E.sql(client, "select 1", tenant: "victim3")
            answers.append("\(answer.status) \(answer.text)")
        }
        busy.stop.store(true, ordering: .relaxed)
        XCTAssertEqual(busy.group.wait(timeout: .now() + 30), .success)
        XCTAssertEqual(answers, Array(repeating: #"200 {"columns":["1"],"rows":[[1]],"truncated":false}"#, count: 8))
        // The slow queries are still stopped at their limit: SQL stays bounded.
        let statuses = busy.statuses.withLock { $0 }
        XCTAssertFalse(statuses.isEmpty)
        XCTAssertEqual(Set(statuses), [400], "each slow query ran into its time limit: \(statuses)")
    }

    /// A query that waited for a connection still gets its whole time limit once it runs: the
    /// finding's slow query, sent while three other tenants' copies hold the 3 connections for
    /// their whole second, is interrupted a full second after it started, not a second after it
    /// arrived (the old deadline, which the time it waited used up).
    func testAQueryThatWaitedGetsItsWholeTimeLimit() throws {
        let server = try TestServer { $0.sqlTimeLimit = .seconds(1) }
        defer { server.removeFiles() }
        let busy = BusyTenants()
        let sent = ContinuousClock.now
        runSlowQueries(server, tenants: 3, once: true, busy)
        E2E.waitUntilWaiting(server, 3)
        usleep(300_000)
        let client = try server.client()
        let arrived = ContinuousClock.now
        let answer = try E2E.sql(client, Self.slowSQL, tenant: "victim3")
        let answered = ContinuousClock.now
        XCTAssertEqual(answer.status, 400, answer.text)
        XCTAssertEqual(answer.object["reason"] as? String, "the query was interrupted after its time limit of 1000 ms")
        // It could start only when one of the three ended, a second or more after they were
        // sent, and then ran its own second: a lower bound, which a slow machine only passes by more.
        XCTAssertGreaterThanOrEqual(answered - arrived, (sent + .seconds(1) - arrived) + .seconds(1),
                                    "the time it waited counted against its limit")
        XCTAssertEqual(busy.group.wait(timeout: .now() + 30), .success)
        XCTAssertEqual(busy.statuses.withLock { $0 }, [400, 400, 400])
    }

    /// Past the bound on waiting, the query is refused with a 503 and `Retry-After` whose reason
    /// says it waited for connections busy with other tenants' queries and never ran; the
    /// busy tenants' queries still get their whole time limit.
    func testAQueryThatWaitedPastTheBoundIsA503ThatSaysItNeverRan() throws {
        let server = try TestServer {
            $0.sqlTimeLimit = .seconds(3)
            $0.sqlWaitLimit = .milliseconds(300)
        }
        defer { server.removeFiles() }
        let busy = BusyTenants()
        runSlowQueries(server, tenants: 3, once: true, busy)
        E2E.waitUntilWaiting(server, 3)
        usleep(200_000)  // the three are running (a wait of up to 300 ms is its own)
        let answer = try E2E.sql(try server.client(), "select 1", tenant: "victim3")
        XCTAssertEqual(answer.status, 503, answer.text)
        XCTAssertEqual(answer.header("Retry-After"), "1")
        XCTAssertEqual(
            answer.object["reason"] as? String,
            "the query never ran: it waited 300 ms, the most a query waits, for one of the 3 SQL connections, all busy with "
                + "other tenants' queries (docs/tenancy.md#fair-shares); retry it (Retry-After): its time limit counts from when it starts")
        XCTAssertEqual(busy.group.wait(timeout: .now() + 30), .success)
        XCTAssertEqual(busy.statuses.withLock { $0 }, [400, 400, 400], "each ran into its own time limit")
        // Its place came back: the tenant's next query runs.
        XCTAssertEqual(JSONNumber.int(try E2E.sqlRows(try server.client(), "select 1", tenant: "victim3").first?.first), 1)
    }
}

