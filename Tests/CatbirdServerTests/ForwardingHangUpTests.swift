import CatbirdServer
import CatbirdTestSupport
import Foundation
import XCTest

/// A client that hangs up while its request is forwarded (redirect or proxy) is journaled as
/// what happened on its socket: 499, nothing sent, `answeredBy` `none`, a `problem` saying so;
/// and the upstream transfer is cancelled (docs/files.md#redirect-and-proxy). try5 finding 12:
/// such a request was journaled with the upstream's 200 (or Catbird's 504) and its body.
final class ForwardingHangUpTests: UpstreamTestCase {
    /// Sends `GET target` with the parallel id `fw` on a new connection, hangs up after 0.5 s
    /// (what `curl -m 0.5` does), and returns the tenant's journal entry for it once written
    /// (waiting up to 15 s; the upstream answers after 4 s).
    private func abandon(_ target: String, on server: TestServer) throws -> (entry: [String: Any]?, after: Duration) {
        let raw = try server.client()
        try raw.send(raw: Array("GET \(target) HTTP/1.1\r\nHost: x\r\nX-Catbird-Parallel-Id: fw\r\n\r\n".utf8))
        usleep(500_000)
        let hungUp = ContinuousClock.now
        raw.hangUp()
        let control = try server.client()
        while ContinuousClock.now - hungUp < .seconds(15) {
            if let entry = try E2E.journal(control, tenant: "fw").first { return (entry, ContinuousClock.now - hungUp) }
            usleep(20_000)
        }
        return (nil, ContinuousClock.now - hungUp)
    }

    private func assertNothingSent(_ entry: [String: Any], file: StaticString = #filePath, line: UInt = #line) {
        let response = entry["response"] as? [String: Any] ?? [:]
        XCTAssertEqual(JSONNumber.int(response["status"]), 499, "\(entry)", file: file, line: line)
        XCTAssertEqual(response["headers"] as? [String: String], [:], "nothing was sent", file: file, line: line)
        XCTAssertEqual(JSONNumber.int(response["bodySize"]), 0, file: file, line: line)
        XCTAssertEqual(entry["answeredBy"] as? String, "none", file: file, line: line)
        let problem = entry["problem"] as? String ?? ""
        XCTAssertTrue(problem.hasPrefix("the client closed the connection while the request was forwarded to http://127.0.0.1:\(upstream.port)/"), problem, file: file, line: line)
        XCTAssertTrue(problem.hasSuffix("the upstream transfer was cancelled; nothing was sent"), problem, file: file, line: line)
        let waited = JSONNumber.double(entry["durationMs"]) ?? -1
        XCTAssertGreaterThanOrEqual(waited, 500, "the time it waited", file: file, line: line)
        XCTAssertLessThan(waited, 4000, "not the upstream's time", file: file, line: line)
    }

    /// The redirect case: the upstream answers after 4 s, the client gives up at 0.5 s.
    /// The entry is written when the transfer is cancelled, before the upstream would have
    /// answered, and the upstream sees its connection closed.
    func testAClientThatHangsUpDuringARedirectIsJournaledAs499AndTheTransferIsCancelled() throws {
        let server = try TestServer { $0.redirectURL = upstream.baseURL }
        let (entry, after) = try abandon("/hold/4", on: server)
        let journaled = try XCTUnwrap(entry, "journaled within 15 s")
        assertNothingSent(journaled)
        XCTAssertLessThan(after, .seconds(3), "journaled when the transfer was cancelled, not when the upstream answered")
        XCTAssertEqual(journaled["url"] as? String, "/hold/4")

        let deadline = ContinuousClock.now + .seconds(10)
        var abandoned: [String] = []
        while !abandoned.contains("/hold/4"), ContinuousClock.now < deadline {
            let answer = try CurlClient.run(["\(upstream.baseURL)/abandoned"])
            abandoned = (try? JSONSerialization.jsonObject(with: Data(answer.body))) as? [String] ?? []
            usleep(50_000)
        }
        XCTAssertEqual(abandoned, ["/hold/4"], "the upstream saw Catbird close the transfer before it answered")
    }

    /// tester20a-F10: with `--redirect-url http://user:s3cret@…`, the password was hidden in the
    /// log and in every 502/504 reason but shown in the 499 entry's `problem`, to the tenant whose
    /// app hung up (its journal, HAR, page).
    func testAHangUpsProblemHidesTheRedirectURLsPassword() throws {
        let server = try TestServer { $0.redirectURL = "http://user:s3cret@127.0.0.1:\(upstream.port)" }
        let (entry, _) = try abandon("/hold/4", on: server)
        let problem = try XCTUnwrap(entry?["problem"] as? String, "journaled within 15 s: \(entry ?? [:])")
        XCTAssertFalse(problem.contains("s3cret"), problem)
        XCTAssertTrue(problem.contains("forwarded to http://user:***@127.0.0.1:\(upstream.port)/hold/4;"), problem)
    }

    /// The proxy case with `--upstream-timeout 2`: journaled as 504 with Catbird's
    /// timeout error before; now 499, the transfer cancelled before the timeout.
    func testAClientThatHangsUpDuringAProxiedRequestWithAnUpstreamTimeoutIsJournaledAs499() throws {
        let server = try TestServer { settings in
            settings.proxyEnabled = true
            settings.upstreamTimeout = .seconds(2)
        }
        let (entry, _) = try abandon("\(upstream.baseURL)/slow/4", on: server)
        let journaled = try XCTUnwrap(entry, "journaled within 15 s")
        assertNothingSent(journaled)
        XCTAssertEqual(journaled["url"] as? String, "\(upstream.baseURL)/slow/4")
    }
}
