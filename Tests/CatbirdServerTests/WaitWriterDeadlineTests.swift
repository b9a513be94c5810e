import CatbirdTestSupport
import Foundation
import XCTest

/// `POST /catbird/api/requests/wait` while the journal writer cannot store what was answered
/// (another process holds the database's write lock): the wait answers at most 1 s past its
/// `timeout`, not after the journal reads' 5-s wait for the writer
/// (docs/protocol.md#waiting-for-a-request).
final class WaitWriterDeadlineTests: ServerTestCase {
    /// Regression (tester finding tester29a-F6, its exact calls: the write lock held by
    /// `sqlite3 db 'BEGIN IMMEDIATE'`, `GET /arrived` answered, then waits for `GET /never`):
    /// `timeout: 0` answered 503 after 5 s and `timeout: 1` 408 after 3.5 s. Now each answers
    /// 503 one second (``WaitRoute/writerGrace``) past its timeout (whether `/never` came is not known while `/arrived` is unstored); an
    /// entry stored before the hold is still found at once; once the lock is let go, `timeout:
    /// 0` is the 408 that lists `/arrived`.
    func testAWaitAnswersAtItsTimeoutWhileTheWriterCannotStore() throws {
        let tenant = E2E.tenantHeader("wq")
        func wait(_ url: String, timeout: String) throws -> (answer: RawResponse, seconds: Double) {
            let started = ContinuousClock.now
            let answer = try client.json(
                "POST", "/catbird/api/requests/wait",
                #"{"pattern":{"method":"GET","url":{"kind":"equal","value":"\#(url)"}},"timeout":\#(timeout)}"#, headers: tenant)
            let waited = ContinuousClock.now - started
            return (answer, Double(waited.components.seconds) + Double(waited.components.attoseconds) / 1e18)
        }
        XCTAssertEqual(try client.request("GET", "/stored", headers: tenant).status, 404)
        XCTAssertEqual(try wait("/stored", timeout: "1").answer.status, 200, "stored before the hold")

        let writer = try JournalWriterHold(server)
        defer { writer.end() }
        XCTAssertEqual(try client.request("GET", "/arrived", headers: tenant).status, 404)
        for (timeout, bound) in [("0", 1.8), ("1", 2.8)] {
            let (answer, seconds) = try wait("/never", timeout: timeout)
            XCTAssertLessThan(seconds, bound, "timeout \(timeout): \(answer.text)")
            XCTAssertGreaterThanOrEqual(seconds, bound - 0.8, "the writer's grace of 1 s: \(answer.text)")
            XCTAssertEqual(answer.status, 503, answer.text)
            XCTAssertEqual(answer.header("Retry-After"), "1")
            let reason = answer.object["reason"] as? String ?? ""
            XCTAssertTrue(
                reason.hasPrefix(
                    "no request matching GET equal \"/never\" is in the journal, but the \(timeout) s timeout passed before the "
                        + "journal writer stored every request answered before it ("),
                reason)
            XCTAssertTrue(reason.hasSuffix("so one may have arrived; retry the wait (Retry-After)"), reason)
        }
        let found = try wait("/stored", timeout: "0")
        XCTAssertEqual(found.answer.status, 200, "a stored match is answered: \(found.answer.text)")
        XCTAssertLessThan(found.seconds, 1.0)

        try writer.release()
        XCTAssertEqual(try client.request("GET", "/catbird/api/requests?limit=1", headers: tenant).status, 200, "waits for the writer")
        let after = try wait("/never", timeout: "0").answer
        XCTAssertEqual(after.status, 408, after.text)
        XCTAssertTrue((after.object["reason"] as? String ?? "").contains("GET /arrived → 404"), after.text)
    }

    /// Regression (tester finding tester55b-F1, its steps: the write lock held, `GET` answered
    /// as id K+1, then a wait with `"since": K+1, "timeout": 0`): the check that the since was
    /// issued waited for the writer as journal reads do, 5 s, and answered their generic 503.
    /// Now an id not yet written counts as issued: the wait answers within its timeout and the
    /// 1-s grace, with its own 503.
    func testASinceOfAnAnswerNotYetWrittenIsBoundByTheWaitsOwnTimeout() throws {
        let tenant = E2E.tenantHeader("wk")
        XCTAssertEqual(try client.request("GET", "/stored", headers: tenant).status, 404)
        let newest = try client.request("GET", "/catbird/api/requests?limit=1", headers: tenant)
        let stored = try XCTUnwrap(newest.object["newestId"] as? Int, newest.text)
        let writer = try JournalWriterHold(server)
        defer { writer.end() }
        XCTAssertEqual(try client.request("GET", "/unstored", headers: tenant).status, 404)
        let started = ContinuousClock.now
        let answer = try client.json(
            "POST", "/catbird/api/requests/wait",
            #"{"pattern":{"method":"GET","url":{"kind":"equal","value":"/never"}},"timeout":0,"since":\#(stored + 1)}"#, headers: tenant)
        let waited = ContinuousClock.now - started
        XCTAssertLessThan(waited, .milliseconds(1800), answer.text)
        XCTAssertEqual(answer.status, 503, answer.text)
        XCTAssertTrue((answer.object["reason"] as? String ?? "").hasSuffix("so one may have arrived; retry the wait (Retry-After)"), answer.text)
    }
}
