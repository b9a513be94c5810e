import CatbirdTestSupport
import Foundation
import XCTest

/// A default-tenant mock whose regular expression is slow is charged to the default tenant, not
/// to the shards that fall back to its mocks (docs/tenancy.md#slow-regular-expressions).
///
/// Tester finding try9b F7 (exact shape, scaled): one default mock `GET regexp` with a
/// catastrophic expression sent every shard's unmatched request to the 2-thread matching lane
/// (404s from ~4,800/s to ~11/s), and 45 concurrent unmatched requests of `shard-1`, whose only
/// mock is a plain `equal`, got 32 × 404 and 13 × 429 blaming the shard's own (non-existent)
/// regular expressions. Now an expression found slow on a worker is not started for another
/// tenant's request: the mock counts as not matching, the 404 names it, and the request never
/// waits on the lane for it.
final class DefaultTenantSlowRegexpTests: XCTestCase {
    static let skippedWording = #"(GET regexp "(a+)+$") of the default tenant was skipped: its regular expression was found slow, and the default tenant"#
    /// A catastrophic subject for `(a+)+$` short enough (302 units) for a worker's slice to
    /// find its search slow: within 1 µs a unit (``RegexpSlice/timePerUnit``).
    static let slowTarget = "/" + String(repeating: "a", count: 300) + "!"

    func testShardsUnmatchedRequestsSkipTheDefaultTenantsSlowExpressionInsteadOfQueueingOnTheLane() throws {
        try LaunchedServer.withTemporaryDatabase { server, client in
            try E2E.addMock(client, url: "/fixture", body: "fixture")
            try E2E.addMock(client, url: "(a+)+$", kind: "regexp", body: "never")
            // After the slow one: a shard's request still reaches it.
            try E2E.addMock(client, url: "^/a+!$", kind: "regexp", headerPatterns: ["X-After": ("equal", "1")], body: "after")
            try E2E.addMock(client, tenant: "shard-1", url: "/own", body: "own")

            let started = ContinuousClock.now
            let answers = SlowMatchingLaneTests.inFlight(45, port: server.port) { client in
                try client.request("GET", Self.slowTarget, headers: E2E.tenantHeader("shard-1"))
            }.wait()
            let wave = ContinuousClock.now - started
            let refused = answers.filter { $0.status == 429 }
            XCTAssertEqual(refused.count, 0, "45 unmatched requests of a shard without regular expressions: \(refused.first?.text ?? "")")
            for answer in answers { XCTAssertEqual(answer.status, 404, answer.text) }
            let skipped = answers.filter { ($0.object["reason"] as? String)?.contains(Self.skippedWording) == true }
            let onLane = try E2E.metrics(client)["catbird_slow_matching_requests_total"] ?? -1
            // The searches that marked the expression go to the lane (review M1), so do those that
            // started before it was marked, and one probe a second; with the default tenant's cost
            // charged to the request, all 45 went (32 admitted, 13 refused).
            XCTAssertLessThan(onLane, Self.laneBound(after: wave), "requests of shard-1 matched on the lane for the default tenant's expression")
            XCTAssertEqual(skipped.count, answers.count, "every 404 names the default mock skipped: \(answers.first?.text ?? "")")

            // Now marked: every shard's unmatched request is answered on a worker, but for one
            // probe a second that the lane gives the whole budget (review M1).
            let loop = ContinuousClock.now
            for shard in 0..<5 {
                for _ in 0..<10 {
                    let answer = try client.request("GET", Self.slowTarget, headers: E2E.tenantHeader("s\(shard)"))
                    E2E.assertError(answer, status: 404, reasonContains: Self.skippedWording)
                }
            }
            let probes = (try E2E.metrics(client)["catbird_slow_matching_requests_total"] ?? -1) - onLane
            XCTAssertLessThanOrEqual(probes, Self.probeBound(after: ContinuousClock.now - loop), "shard requests sent to the lane as probes")
            let after = try client.request(
                "GET", Self.slowTarget, headers: E2E.tenantHeader("s0") + [("X-After", "1")])
            XCTAssertEqual(after.status, 200, after.text)
            XCTAssertEqual(after.text, "after", "the default mock after the skipped one still answers")
            XCTAssertEqual(try client.request("GET", "/fixture", headers: E2E.tenantHeader("s1")).text, "fixture")
            XCTAssertEqual(try client.request("GET", "/own", headers: E2E.tenantHeader("shard-1")).text, "own")

            // The default tenant's own request still gives its expression the whole budget.
            let own = try client.request("GET", Self.slowTarget)
            E2E.assertError(own, status: 404, reasonContains: "(GET regexp \"(a+)+$\") of the default tenant was skipped: its regular expression ran out of the 100 ms evaluation budget")
        }
    }
    /// A subject too long for a worker's slice to find a search slow (3,002 units: 3 ms at 1 µs
    /// a unit) is judged by the lane's search with the whole budget: the shard's first request
    /// for it goes there (its 404 says the expression ran out of the budget) and marks the
    /// default tenant's catastrophic expression; the shards' later requests skip it on the
    /// workers, but for one probe a second.
    func testADefaultExpressionSlowOnALongSubjectIsMarkedByTheLanesSearch() throws {
        try LaunchedServer.withTemporaryDatabase { _, client in
            try E2E.addMock(client, url: "(a+)+$", kind: "regexp", body: "never")
            let long = SlowMatchingLaneTests.slowTarget
            XCTAssertEqual(long.utf16.count, 3_002)
            let first = try client.request("GET", long, headers: E2E.tenantHeader("s1"))
            E2E.assertError(first, status: 404, reasonContains: "(GET regexp \"(a+)+$\") of the default tenant was skipped: its regular expression ran out of the 100 ms evaluation budget")
            let onLane = try E2E.metrics(client)["catbird_slow_matching_requests_total"] ?? -1
            XCTAssertEqual(onLane, 1, "judged on the lane")
            let loop = ContinuousClock.now
            for shard in 0..<10 {
                E2E.assertError(try client.request("GET", long, headers: E2E.tenantHeader("s\(shard)")), status: 404, reasonContains: Self.skippedWording)
            }
            let probes = (try E2E.metrics(client)["catbird_slow_matching_requests_total"] ?? -1) - onLane
            XCTAssertLessThanOrEqual(probes, Self.probeBound(after: ContinuousClock.now - loop), "marked: skipped on the workers")
        }
    }

    /// Regression (tester59b-F4, its exact mock and bodies): a default-tenant mock with a plain
    /// body regexp, linear in the body, answered the default tenant every time, but a shard's
    /// request once the body passed 10-20 KB only about once a second (404: "found slow on a
    /// worker"): its search on a 12 KB body outlasted half a slice and marked it. A search's
    /// time that comes from its subject's length is no longer slow (1 µs a unit); every
    /// request, of the shards and of the default tenant, gets the mock's answer.
    func testADefaultTenantsLinearBodyRegexpAnswersShardsWhateverTheBodysLength() throws {
        try LaunchedServer.withTemporaryDatabase { _, client in
            let added = try client.json("POST", "/catbird/api/mocks", E2E.jsonText([
                "type": "update",
                "pattern": ["method": "POST", "url": ["kind": "equal", "value": "/upload"],
                            "body": ["kind": "regexp", "value": #""orderId":\s*"[a-z0-9]+-end""#]],
                "response": ["status": 200, "body": Data("DEFAULT-BODY-RX".utf8).base64EncodedString()],
            ]))
            XCTAssertEqual(added.status, 201, added.text)
            for size in [8_000, 12_000, 20_000, 200_000] {
                let body = Array((#"{"pad":""# + String(repeating: "x", count: size) + #"","orderId": "abc123-end"}"#).utf8)
                for i in 0..<8 {
                    let shard = try client.request("POST", "/upload", headers: E2E.tenantHeader("shardb\(size)"), body: body)
                    XCTAssertEqual(shard.status, 200, "shard, \(size) x's, request \(i): \(shard.text.prefix(600))")
                    XCTAssertEqual(shard.text, "DEFAULT-BODY-RX")
                }
                for i in 0..<4 {
                    let own = try client.request("POST", "/upload", body: body)
                    XCTAssertEqual(own.status, 200, "default tenant, \(size) x's, request \(i): \(own.text.prefix(600))")
                }
            }
        }
    }

    /// Tester finding try9b F7's exact input, scaled down: the default fixture `GET equal
    /// /fixture` and one default mock `GET regexp "(.*.*)*#"`; shards s0-s3 request unmocked
    /// `/analytics/<n>` (16 clients there, 4 here, 25 requests each), s4 its own `/own` and the
    /// fixture. Before, each of those misses took the lane's 100 ms (404s ~4,800/s -> ~11/s):
    /// 100 lane requests here. Now the shards' misses skip the expression once it is marked: on
    /// the lane go only the searches that marked it and one probe a second.
    func testTheFindingsFleetWithTheDefaultTenantsCatastrophicExpressionKeepsItsMissesOnTheWorkers() throws {
        try LaunchedServer.withTemporaryDatabase { server, client in
            try E2E.addMock(client, url: "/fixture", body: "fixture")
            try E2E.addMock(client, url: "(.*.*)*#", kind: "regexp", body: "never")
            for shard in 0..<5 { try E2E.addMock(client, tenant: "s\(shard)", url: "/own", body: "own") }

            let started = ContinuousClock.now
            let misses = SlowMatchingLaneTests.inFlight(4, port: server.port) { client in
                let shard = "s\(Int.random(in: 0..<4))"
                var answer = try client.request("GET", "/analytics/0", headers: E2E.tenantHeader(shard))
                for n in 1..<25 {
                    guard answer.status == 404, (answer.object["reason"] as? String)?.contains(Self.fleetWording) == true else { break }
                    answer = try client.request("GET", "/analytics/\(n)", headers: E2E.tenantHeader(shard))
                }
                return answer
            }
            for _ in 0..<10 {
                XCTAssertEqual(try client.request("GET", "/own", headers: E2E.tenantHeader("s4")).text, "own")
                XCTAssertEqual(try client.request("GET", "/fixture", headers: E2E.tenantHeader("s4")).text, "fixture")
            }
            let answers = misses.wait()
            let elapsed = ContinuousClock.now - started
            for answer in answers { E2E.assertError(answer, status: 404, reasonContains: Self.fleetWording) }
            let onLane = try E2E.metrics(client)["catbird_slow_matching_requests_total"] ?? -1
            XCTAssertLessThan(onLane, Self.laneBound(after: elapsed), "100 misses of 4 shards in \(elapsed): matched on the lane")
        }
    }

    /// Review M1 of the first F7 change: a mark set by load alone (here: by one slow subject)
    /// on a legitimate default fixture must not keep it from every shard for good. The shard's
    /// request whose search marks the expression is matched on the lane with the whole budget
    /// (it got a 404 naming the skip); later requests skip the marked mock on the workers
    /// (404), but one a second is a probe, matched on the lane with the whole budget; a probe
    /// that finishes within 1 ms clears the mark and the fixture answers on the workers again.
    func testADefaultFixtureMarkedSlowComesBackForShardsOnceAProbeFindsItQuick() throws {
        try LaunchedServer.withTemporaryDatabase { server, client in
            try E2E.addMock(client, url: Self.fixtureExpression, kind: "regexp", body: "fixture")
            // Fibonacci(n) ways to split the a's before the first branch fails at the "c": milliseconds.
            let slow = "/m/" + String(repeating: "a", count: Self.slowCount) + "c"
            let marking = try client.request("GET", slow, headers: E2E.tenantHeader("s1"))
            XCTAssertEqual(marking.status, 200, "the request whose search marked the fixture: \(marking.text)")
            XCTAssertEqual(marking.text, "fixture")
            XCTAssertEqual(try E2E.metrics(client)["catbird_slow_matching_requests_total"], 1, "matched on the lane")

            // A quick subject, longer than the one the mark was set on: skipped while marked.
            let quick = "/m/" + String(repeating: "a", count: Self.slowCount + 20) + "b"
            var skipped = 0
            var comeBack: ContinuousClock.Instant?
            let deadline = ContinuousClock.now + .seconds(30)
            while comeBack == nil, ContinuousClock.now < deadline {
                let answer = try client.request("GET", quick, headers: E2E.tenantHeader("s2"))
                if answer.status == 200 {
                    XCTAssertEqual(answer.text, "fixture")
                    comeBack = .now
                } else {
                    E2E.assertError(answer, status: 404, reasonContains: "of the default tenant was skipped: its regular expression was found slow, and the default tenant")
                    skipped += 1
                    usleep(20_000)
                }
            }
            XCTAssertNotNil(comeBack, "the fixture never answered a shard again (\(skipped) skipped)")
            XCTAssertGreaterThan(skipped, 0, "marked: the quick subject was skipped until a probe")
            // Cleared: answered on the workers, no request on the lane.
            let onLane = try E2E.metrics(client)["catbird_slow_matching_requests_total"] ?? -1
            for shard in 0..<20 {
                let answer = try client.request("GET", quick, headers: E2E.tenantHeader("s\(shard)"))
                XCTAssertEqual(answer.status, 200, answer.text)
            }
            XCTAssertEqual(try E2E.metrics(client)["catbird_slow_matching_requests_total"], onLane, "the mark is cleared")
        }
    }

    /// Regression (tester finding tester30b-F1, its broader form): ten default mocks `GET regexp
    /// "(.*.*)*#<i>"` beside the fixture `GET equal "/api/feed/items?page=1&size=20&sort=date"`.
    /// Each mark had its own probe a second, each probe took a shard request to the lane for
    /// the whole budget, so once all ten were marked a shard's every request for the fixture was
    /// a probe: 28 requests in 3 s instead of about 48,000. Probes are now one a second for all
    /// marks together: the shard's requests are answered on the workers but for about one a second.
    func testTenMarkedDefaultExpressionsCostTheFleetOneProbeASecondInAll() throws {
        try LaunchedServer.withTemporaryDatabase { _, client in
            for i in 0..<10 { try E2E.addMock(client, url: "(.*.*)*#\(i)", kind: "regexp", body: "never") }
            let fixture = "/api/feed/items?page=1&size=20&sort=date"
            try E2E.addMock(client, url: fixture, body: "FIXTURE")
            try Self.assertShardsGetTheFixtureOnTheWorkersOnceMarked(client, fixture, shards: 1)
        }
    }

    /// Regression (tester finding tester30c-F3, its input scaled): ten default mocks `GET
    /// wildcard "*" + 3,999 a's + "b*" + i a's`, which the glob matches (not ICU), before the
    /// default fixture `GET equal U`, U = `/` + (3,000 a's + `b`) × 2 + 1,900 a's, which shards
    /// fetch. Only ICU's searches marked an expression slow, so these wildcards never were:
    /// every shard request for U was matched on the lane for 100 to 200 ms (67 in 3.5 s). Now
    /// the glob's search stopped on a worker marks its wildcard as ICU's does: once each is
    /// marked, a shard's requests for U are answered on the workers but for about one probe a
    /// second (release build, the exact input: 5,310 in 2 s). Here 1,000 a's for 3,999 and U
    /// scaled alike: a debug build spends more than the worker's 1 ms slice on an 8 KB target
    /// before matching it, so its searches start after the slice and mark nothing
    /// (MatcherSlowMarkTests searches the exact wildcard and subject).
    func testTheDefaultTenantsLongWildcardsAreMarkedSlowAsItsRegexpsAre() throws {
        try LaunchedServer.withTemporaryDatabase { _, client in
            for i in 0..<10 {
                try E2E.addMock(
                    client, url: "*" + String(repeating: "a", count: 1_000) + "b*" + String(repeating: "a", count: i),
                    kind: "wildcard", body: "never")
            }
            let fixture = "/" + String(repeating: String(repeating: "a", count: 750) + "b", count: 2) + String(repeating: "a", count: 500)
            try E2E.addMock(client, url: fixture, body: "FIXTURE")
            try Self.assertShardsGetTheFixtureOnTheWorkersOnceMarked(client, fixture, shards: 4)
        }
    }

    /// Ten default-tenant mocks before the default `fixture` (answering `FIXTURE`), each slow
    /// for its URL: after a warm-up (each request marks one more; a search that waited for a
    /// core, on a loaded machine, marks none, so it goes on until five requests in a row were
    /// answered on the workers, at most 100), `shards` shards' requests for it for 2 s are
    /// answered on the workers, but for the probes (at most one a second go to the lane), and
    /// more than 40 are answered.
    static func assertShardsGetTheFixtureOnTheWorkersOnceMarked(
        _ client: RawHTTPClient, _ fixture: String, shards: Int, file: StaticString = #filePath, line: UInt = #line
    ) throws {
        var onWorkers = 0
        var lane = try E2E.metrics(client)["catbird_slow_matching_requests_total"] ?? -1
        for _ in 0..<100 where onWorkers < 5 {
            XCTAssertEqual(try client.request("GET", fixture, headers: E2E.tenantHeader("warm")).text, "FIXTURE", file: file, line: line)
            let now = try E2E.metrics(client)["catbird_slow_matching_requests_total"] ?? -1
            onWorkers = now == lane ? onWorkers + 1 : 0
            lane = now
        }
        XCTAssertEqual(onWorkers, 5, "the warm-up never ended: every few requests went to the lane", file: file, line: line)
        let before = try E2E.metrics(client)["catbird_slow_matching_requests_total"] ?? -1
        let started = ContinuousClock.now
        var answered = 0
        while ContinuousClock.now - started < .seconds(2) {
            let answer = try client.request("GET", fixture, headers: E2E.tenantHeader("shard-\(answered % shards)"))
            XCTAssertEqual(answer.text, "FIXTURE", file: file, line: line)
            answered += 1
        }
        let onLane = (try E2E.metrics(client)["catbird_slow_matching_requests_total"] ?? -1) - before
        XCTAssertLessThanOrEqual(
            onLane, probeBound(after: ContinuousClock.now - started), "\(answered) shard requests for the fixture: on the lane",
            file: file, line: line)
        XCTAssertGreaterThan(answered, 40, "most answered on the workers", file: file, line: line)
    }

    /// A legitimate fixture: quick on `/m/aaa…b`, but its first branch backtracks through
    /// Fibonacci(n) splits of n a's before a `c` (the second branch then matches).
    static let fixtureExpression = "^/m/(?:(a|aa)+b|a+c)$"
    /// The a's of the slow subject: a few milliseconds of ICU, well within the 100 ms budget.
    static let slowCount = 21
    /// The skip named in the 404s of the finding's fleet.
    static let fleetWording = #"mock 2 (GET regexp "(.*.*)*#") of the default tenant was skipped"#

    /// Requests of other tenants that may be matched on the lane for a default-tenant expression
    /// in `elapsed`: those whose searches marked it or started before it was marked (8 at most
    /// here: libmicrohttpd's workers and the clients' concurrency), and the probes.
    static func laneBound(after elapsed: Duration) -> Double {
        8 + probeBound(after: elapsed)
    }

    /// Probes of one mark in `elapsed`: one a second, the first one second after the mark.
    static func probeBound(after elapsed: Duration) -> Double {
        Double(elapsed.components.seconds) + 1
    }
}
