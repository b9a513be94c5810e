import CatbirdTestSupport
import Foundation
import Synchronization
import XCTest

/// One tenant's slow regexp mocks never stall another tenant's mock serving
/// (docs/tenancy.md#fair-shares, docs/matching.md#evaluation-budget): a request whose regular
/// expressions outlast a worker's 1 ms slice is matched on the matching lane, one at a time per
/// tenant, at most 32 per tenant admitted (past that a journaled, counted 429), while the
/// workers go on serving everyone else.
///
/// Found by a new user on a real server (exact inputs): tenant `bad` with the url regexps
/// `(a+)+$`, `(a|aa)+$`, `(a|a?)+$` and 100 requests at once to `/` + 3,000 `a` + `!` made
/// tenant `victim`'s plain `GET /api/feed` take 8.2 s; two requests of tenant `bodyre` against
/// 100 body-regexp mocks made another tenant's `GET /x` take 10.28 s. Each test runs the
/// `catbird` binary with its default workers (one per core) and bounds the victim generously:
/// well under 1 s where it took 8-10 s.
final class SlowMatchingLaneTests: XCTestCase {
    static let slowTarget = "/" + String(repeating: "a", count: 3000) + "!"

    func testAHundredRequestsAgainstCatastrophicURLRegexpsDoNotStallAnotherTenant() throws {
        try LaunchedServer.withTemporaryDatabase { server, client in
            for expression in ["(a+)+$", "(a|aa)+$", "(a|a?)+$"] {
                try E2E.addMock(client, tenant: "bad", url: expression, kind: "regexp", body: "never")
            }
            try E2E.addMock(client, tenant: "victim", url: "/api/feed", body: "feed")

            let answers = Self.inFlight(100, port: server.port) { client in
                try client.request("GET", Self.slowTarget, headers: E2E.tenantHeader("bad"))
            }
            usleep(300_000)
            let victim = try Self.timedVictim(port: server.port, target: "/api/feed", expected: "feed")
            let finishedMeanwhile = answers.finished
            let bad = answers.wait()

            XCTAssertLessThan(victim.slowest, .seconds(1), "victim's plain requests while 100 slow ones are in flight")
            XCTAssertLessThan(finishedMeanwhile, 100, "the slow requests were still in flight while the victim was answered")
            Self.assertSlowRequestsAnsweredOrRefused(bad, client: client, tenant: "bad")
            print("victim: slowest \(victim.slowest) of \(victim.count); bad: \(bad.filter { $0.status == 404 }.count) answered, \(bad.filter { $0.status == 429 }.count) refused")
        }
    }

    func testRequestsAgainstAHundredBodyRegexpMocksDoNotStallAnotherTenant() throws {
        let slow = try answersBesideOtherTenant(count: 8, target: "/b", lane: true)
        for answer in slow {
            E2E.assertError(answer, status: 404, reasonContains: "body regexp \"(a|aa)+$1\") of tenant \"bodyre\" was skipped")
        }
    }

    /// A request no mock answers is compared with the tenant's mocks for its 404's near misses;
    /// on a worker their regular expressions get the same 1 ms (one that needs longer counts as
    /// differing). Tenant `bodyre` sends its slow body to `/c`, which no mock's url matches, so
    /// matching itself is quick but each body regexp would run 50 ms in the near-miss search.
    ///
    /// Bounded at 3 s, not 1 s: the victim's requests queue behind the 60 misses' quick work on
    /// the same workers, and on a CI machine at load 10 that took 1.3-1.9 s (passing alone when
    /// idle). Without the slice each miss would run its 100 regexps 50 ms each (5 s a miss on
    /// two workers, minutes for 60), so 3 s still tells the two apart.
    func testMissesComparedWithSlowBodyRegexpMocksDoNotStallAnotherTenant() throws {
        let misses = try answersBesideOtherTenant(count: 60, target: "/c", lane: false, victimBound: .seconds(3))
        for answer in misses {
            E2E.assertError(answer, status: 404, reasonContains: "no mock matched POST /c")
        }
    }

    /// Tenant `bodyre`'s 100 body-regexp mocks (`POST /b`, `(a|aa)+$1` … `(a|aa)+$100`); `count`
    /// requests at once of the slow body to `target` while tenant `other`'s plain hits are timed
    /// (each under `victimBound`); with `lane`, some of them must still be in flight then; returns
    /// the slow requests' answers.
    private func answersBesideOtherTenant(
        count: Int, target: String, lane: Bool, victimBound: Duration = .seconds(1),
        file: StaticString = #filePath, line: UInt = #line
    ) throws -> [RawResponse] {
        var slow: [RawResponse] = []
        try LaunchedServer.withTemporaryDatabase { server, client in
            for n in 1...100 {
                let added = try client.json(
                    "POST", "/catbird/api/mocks", BodyRegexpBudgetTests.bodyRegexpMock("(a|aa)+$\(n)"), headers: E2E.tenantHeader("bodyre"))
                XCTAssertEqual(added.status, 201, added.text, file: file, line: line)
            }
            try E2E.addMock(client, tenant: "other", url: "/x", body: "x")

            let answers = Self.inFlight(count, port: server.port) { client in
                try client.request("POST", target, headers: E2E.tenantHeader("bodyre"), body: Array(BodyRegexpBudgetTests.slowBody.utf8))
            }
            usleep(100_000)
            let victim = try Self.timedVictim(port: server.port, target: "/x", expected: "x", tenant: "other")
            let finishedMeanwhile = answers.finished
            slow = answers.wait()
            XCTAssertLessThan(
                victim.slowest, victimBound, "another tenant's plain requests beside \(count) slow-body requests to \(target)",
                file: file, line: line)
            if lane {
                // On the lane they take their turns, so some are still matching when the victim is
                // timed; else the victim's speed would prove nothing. (The misses need no lane:
                // with the 1 ms slice they end quickly, and without it they stall the victim.)
                XCTAssertLessThan(
                    finishedMeanwhile, count, "the slow requests were still in flight while the victim was answered",
                    file: file, line: line)
            }
        }
        return slow
    }

    /// Each slow request got either the 404 naming the exhausted budget or the 429 of a full
    /// matching lane; the 429s are counted and journaled with their reason.
    private static func assertSlowRequestsAnsweredOrRefused(
        _ answers: [RawResponse], client: RawHTTPClient, tenant: String, file: StaticString = #filePath, line: UInt = #line
    ) {
        let refused = answers.filter { $0.status == 429 }
        for answer in answers {
            if answer.status == 429 {
                E2E.assertError(
                    answer, status: 429,
                    reasonContains: "this request was not matched: its mocks' regular expressions take more than 1 ms (one ran past a worker's slice, or was found slow before), so it is matched on the matching lane, where this tenant already has 32 requests running or waiting",
                    file: file, line: line)
            } else {
                E2E.assertError(answer, status: 404, reasonContains: "ran out of the 100 ms evaluation budget", file: file, line: line)
            }
        }
        XCTAssertGreaterThan(refused.count, 0, "100 at once is more than the 32 a tenant may have on the matching lane", file: file, line: line)
        let samples = (try? E2E.metrics(client)) ?? [:]
        XCTAssertEqual(samples["catbird_slow_matching_refused_total"], Double(refused.count), file: file, line: line)
        XCTAssertEqual(samples["catbird_slow_matching_requests_total"], Double(answers.count - refused.count), file: file, line: line)
        let journaled = ((try? E2E.journal(client, tenant: tenant)) ?? []).filter { ($0["response"] as? [String: Any])?["status"] as? Int == 429 }
        XCTAssertEqual(journaled.count, refused.count, "every 429 is journaled", file: file, line: line)
    }

    /// Requests sent at once, each on its own connection and thread.
    final class InFlight: Sendable {
        let answers = Mutex<[RawResponse]>([])
        let failures = Mutex<[String]>([])
        let done = DispatchGroup()
        var finished: Int { answers.withLock { $0.count } }

        func wait() -> [RawResponse] {
            done.wait()
            XCTAssertEqual(failures.withLock { $0 }, [])
            return answers.withLock { $0 }
        }
    }

    static func inFlight(_ count: Int, port: UInt16, _ send: @escaping @Sendable (RawHTTPClient) throws -> RawResponse) -> InFlight {
        let flight = InFlight()
        for _ in 0..<count {
            flight.done.enter()
            Thread {
                defer { flight.done.leave() }
                do {
                    let answer = try send(try RawHTTPClient(port: port, timeoutSeconds: 30))
                    flight.answers.withLock { $0.append(answer) }
                } catch {
                    flight.failures.withLock { $0.append("\(error)") }
                }
            }.start()
        }
        return flight
    }

    /// Five plain requests of the victim tenant, one after another on new connections; the slowest.
    private static func timedVictim(
        port: UInt16, target: String, expected: String, tenant: String = "victim"
    ) throws -> (slowest: Duration, count: Int) {
        var slowest = Duration.zero
        for _ in 0..<5 {
            let started = ContinuousClock.now
            let answer = try RawHTTPClient(port: port, timeoutSeconds: 30).request("GET", target, headers: E2E.tenantHeader(tenant))
            slowest = max(slowest, ContinuousClock.now - started)
            XCTAssertEqual(answer.text, expected)
        }
        return (slowest, 5)
    }
}
