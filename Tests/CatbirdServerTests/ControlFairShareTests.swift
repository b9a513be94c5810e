import CatbirdTestSupport
import Foundation
import XCTest

/// One tenant's slow control calls take only its fair share of the control threads
/// (docs/tenancy.md#fair-shares): quick actions of other tenants never wait behind them, other
/// tenants' slow calls run beside them, and a tenant's burst past its share gets 429 at once.
final class ControlFairShareTests: XCTestCase {
    /// The count of a catastrophic regexp over `GET /aaaa…a!` (40 `a`): runs into the count's
    /// 2-second limit.
    private static let slowCount = #"{"pattern":{"method":"GET","url":{"kind":"regexp","value":"^/(a+)+$"}}}"#
    private static let slowTarget = "/" + String(repeating: "a", count: 40) + "!"

    private struct Answer {
        let status: Int
        let text: String
        let took: Duration
    }

    /// Sends `count` slow counts of tenant rx at once, each on its own connection; the answers
    /// are collected in the returned box once the group is done.
    private func startSlowCounts(_ count: Int, port: UInt16) -> (DispatchGroup, Locked<[Answer]>) {
        let answers = Locked<[Answer]>([])
        let group = DispatchGroup()
        for _ in 0..<count {
            group.enter()
            Thread {
                defer { group.leave() }
                let started = ContinuousClock.now
                do {
                    let answer = try RawHTTPClient(port: port).json(
                        "POST", "/catbird/api/requests/count", Self.slowCount, headers: E2E.tenantHeader("rx"))
                    answers.append(Answer(status: answer.status, text: answer.text, took: ContinuousClock.now - started))
                } catch {
                    answers.append(Answer(status: 0, text: "\(error)", took: ContinuousClock.now - started))
                }
            }.start()
        }
        return (group, answers)
    }

    /// Checks the slow counts' answers: the tenant's 4 admitted ran into the time limit (400 after about 2 s:
    /// they really ran), the rest were refused at once with 429 naming the share.
    private func assertSlowCountsRanOrWereRefused(_ answers: [Answer], file: StaticString = #filePath, line: UInt = #line) {
        let ran = answers.filter { $0.status == 400 }
        let refused = answers.filter { $0.status == 429 }
        XCTAssertEqual(ran.count + refused.count, answers.count, "every count is a 400 or a 429: \(answers.map { ($0.status, $0.text) })", file: file, line: line)
        XCTAssertEqual(ran.count, 4, "the tenant's 4 admitted counts ran: \(answers.map { ($0.status, $0.took) })", file: file, line: line)
        for answer in ran {
            XCTAssertTrue(answer.text.contains("too slow to count"), answer.text, file: file, line: line)
            XCTAssertGreaterThan(answer.took, .milliseconds(1500), "the count ran until its time limit", file: file, line: line)
        }
        for answer in refused {
            XCTAssertTrue(answer.text.contains("already has 4 slow control calls"), answer.text, file: file, line: line)
            XCTAssertTrue(answer.text.contains("docs/tenancy.md#fair-shares"), answer.text, file: file, line: line)
            XCTAssertLessThan(answer.took, .milliseconds(1500), "a refusal comes at once", file: file, line: line)
        }
    }

    /// Regression: sixteen slow counts of tenant rx made tenant victim's mock update take
    /// 7.89 s (3.7 s with eight), past the Swift client's 5-s timeout: every control call
    /// shared one pool of 4 threads, first come first served.
    func testOneTenantsSlowCountsDoNotDelayAnotherTenantsMockUpdate() throws {
        let server = try TestServer()
        defer { server.removeFiles() }
        let client = try server.client()
        // Four journaled rows: since counts match on the stored bytes, one row of this regexp takes
        // about 0.9 s, so four keep every admitted count running into its 2-second limit.
        for _ in 0..<4 { XCTAssertEqual(try client.request("GET", Self.slowTarget, headers: E2E.tenantHeader("rx")).status, 404) }

        let (counts, answers) = startSlowCounts(16, port: server.port)
        usleep(300_000)  // the counts have arrived and run

        let victim = try server.client()
        var started = ContinuousClock.now
        let update = try victim.json(
            "POST", "/catbird/api/mocks",
            #"{"type":"update","pattern":{"method":"GET","url":{"kind":"equal","value":"/v"}},"response":{"status":200}}"#,
            headers: E2E.tenantHeader("victim"))
        let updateTook = ContinuousClock.now - started
        XCTAssertEqual(update.status, 201, update.text)
        // Generous for a loaded 2-core machine; before: 7.89 s.
        XCTAssertLessThan(updateTook, .seconds(1), "victim's update waited behind rx's counts")

        // The victim's own slow call (a count) runs beside rx's, on the threads rx cannot take.
        started = ContinuousClock.now
        let count = try victim.json(
            "POST", "/catbird/api/requests/count", #"{"pattern":{"method":"GET","url":{"kind":"equal","value":"/v"}}}"#,
            headers: E2E.tenantHeader("victim"))
        let countTook = ContinuousClock.now - started
        XCTAssertEqual(count.status, 200, count.text)
        XCTAssertEqual(count.object["count"] as? Int, 0, "the victim counts its own journal only: \(count.text)")
        XCTAssertLessThan(countTook, .seconds(1), "victim's count waited behind rx's counts")
        XCTAssertEqual(try victim.request("GET", "/v", headers: E2E.tenantHeader("victim")).status, 200)
        let stillRunning = answers.value.filter { $0.status == 400 }.isEmpty
        XCTAssertTrue(stillRunning, "the victim's calls were measured while rx's counts ran")

        XCTAssertEqual(counts.wait(timeout: .now() + 30), .success, "rx's counts answered")
        assertSlowCountsRanOrWereRefused(answers.value)
        print("victim: update \(updateTook), count \(countTook); rx: \(answers.value.map { "\($0.status) \($0.took)" })")
    }

    /// Every slow route is admitted per tenant: while rx has its four slow calls, its find,
    /// unmatched listing, journal clear, HAR export, tenant list and drop are refused with 429,
    /// and the same routes of another tenant answer at once; quick routes (journal listing and
    /// entries, health, metrics) and waits are not admitted and answer for both.
    func testEverySlowRouteIsAdmittedPerTenant() throws {
        let server = try TestServer()
        defer { server.removeFiles() }
        let client = try server.client()
        // Four journaled rows: since counts match on the stored bytes, one row of this regexp takes
        // about 0.9 s, so four keep every admitted count running into its 2-second limit.
        for _ in 0..<4 { XCTAssertEqual(try client.request("GET", Self.slowTarget, headers: E2E.tenantHeader("rx")).status, 404) }
        XCTAssertEqual(try client.request("GET", "/w", headers: E2E.tenantHeader("victim")).status, 404)

        let (counts, answers) = startSlowCounts(4, port: server.port)
        usleep(300_000)

        let find = #"{"pattern":{"method":"GET","url":{"kind":"equal","value":"/w"}}}"#
        let slowCalls: [(String, String, String?)] = [
            ("POST", "/catbird/api/requests/count", find),
            ("POST", "/catbird/api/requests/find", find),
            ("GET", "/catbird/api/requests/unmatched", nil),
            ("GET", "/catbird/api/requests.har", nil),
            ("GET", "/catbird/api/tenants", nil),
            ("DELETE", "/catbird/api/requests", nil),
        ]
        let rx = try server.client()
        let victim = try server.client()
        // Before the victim's journal is cleared below.
        let wait = try victim.json(
            "POST", "/catbird/api/requests/wait", #"{"pattern":{"method":"GET","url":{"kind":"equal","value":"/w"}},"timeout":5}"#,
            headers: E2E.tenantHeader("victim"))
        XCTAssertEqual(wait.status, 200, wait.text)
        for (method, target, body) in slowCalls {
            let headers = (body == nil ? [] : [("Content-Type", "application/json")])
            let refused = try rx.request(method, target, headers: headers + E2E.tenantHeader("rx"), body: body.map { Array($0.utf8) })
            XCTAssertEqual(refused.status, 429, "\(method) \(target) of rx: \(refused.text)")
            let started = ContinuousClock.now
            let answered = try victim.request(
                method, target, headers: headers + E2E.tenantHeader("victim"), body: body.map { Array($0.utf8) })
            XCTAssertEqual(answered.status, 200, "\(method) \(target) of victim: \(answered.text)")
            XCTAssertLessThan(ContinuousClock.now - started, .seconds(1), "\(method) \(target) of victim waited")
        }
        let drop = try rx.request("DELETE", "/catbird/api/tenants/rx", headers: E2E.tenantHeader("rx"))
        XCTAssertEqual(drop.status, 429, drop.text)

        let quickCalls = ["/catbird/api/requests", "/catbird/api/requests/1", "/catbird/api/health", "/catbird/metrics"]
        for target in quickCalls {
            let answered = try rx.request("GET", target, headers: E2E.tenantHeader("rx"))
            XCTAssertEqual(answered.status, 200, "\(target) of rx: \(answered.text)")
        }
        let stillRunning = answers.value.filter { $0.status == 400 }.isEmpty
        XCTAssertTrue(stillRunning, "the calls were made while rx's counts ran")

        XCTAssertEqual(counts.wait(timeout: .now() + 30), .success, "rx's counts answered")
        XCTAssertEqual(answers.value.map(\.status), [400, 400, 400, 400], "rx's four counts were admitted and ran")
        // Its share given back, rx's calls are admitted again.
        XCTAssertEqual(try rx.request("DELETE", "/catbird/api/tenants/rx", headers: E2E.tenantHeader("rx")).status, 204)
    }
}
