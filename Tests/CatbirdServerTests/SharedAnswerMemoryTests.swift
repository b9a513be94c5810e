import CatbirdTestSupport
import Foundation
import XCTest

/// What clients that do not read a large mock answer make the server hold
/// (docs/operations.md#connections-and-memory: "the budget bounds what clients can make it hold
/// by sending or not reading").
final class SharedAnswerMemoryTests: XCTestCase {
    /// Regression (tester finding tester22b-F1, its shape): a mock's answer is made again each
    /// second (its `Date`), and each second's form held its own copy of the body; a client that
    /// sent `GET /big` and never read kept that copy alive until the idle timeout, so one such
    /// client a second to a 30 MiB mock grew the server by 30 MiB a second (450 MB after 15).
    /// Here 5 such clients, each in its own second, to a 12 MiB mock: the server grew by about
    /// 60 MB before; now the answers send the mock's own bytes. A reading client still gets
    /// them exactly, and removing the mock while the clients hold its answers is safe.
    func testClientsThatDoNotReadHoldNoCopyOfTheBodyPerSecond() throws {
        var random = SeededRandom(seed: 22)
        let block = (0..<4096).map { _ in UInt8.random(in: 0...255, using: &random) }
        let body = Array((0..<3072).map { _ in block }.joined())  // 12 MiB
        try LaunchedServer.withTemporaryDatabase { server, client in
            let update = E2E.updateAction(url: "/big", body: body)
            XCTAssertEqual(try client.request(
                "POST", "/catbird/api/mocks", headers: E2E.tenantHeader("NR") + [("Content-Type", "application/json")], body: Array(update.utf8)
            ).status, 201)
            let whole = try server.client().request("GET", "/big", headers: E2E.tenantHeader("NR"))
            XCTAssertEqual(whole.status, 200)
            XCTAssertTrue(whole.body == body, "a reading client gets the body exactly (\(whole.body.count) bytes)")

            let before = try server.currentResidentMegabytes()
            var nonReading: [RawHTTPClient] = []
            for _ in 0..<5 {
                Thread.sleep(forTimeInterval: 1.05)  // each in a second of its own: a new form of the answer
                let stuck = try RawHTTPClient(port: server.port, receiveBuffer: 4096)
                try stuck.send(raw: Array("GET /big HTTP/1.1\r\nHost: x\r\nX-Catbird-Parallel-Id: NR\r\n\r\n".utf8))
                nonReading.append(stuck)
            }
            Thread.sleep(forTimeInterval: 0.5)
            let grown = try server.currentResidentMegabytes() - before
            XCTAssertLessThan(grown, 24, "5 stuck answers of a 12 MiB mock, in 5 seconds, held no copy each (grew \(grown) MB)")
            XCTAssertEqual(JSONNumber.int(try E2E.mocks(client, tenant: "NR").first?["hits"]), 6, "every request was answered")

            try E2E.removeAll(client, tenant: "NR")
            nonReading.removeAll()  // closed with their answers unread: a reset, as a client that gives up sends
            Thread.sleep(forTimeInterval: 0.3)
            XCTAssertEqual(try client.request("GET", "/catbird/api/health").status, 200, server.stderrText)
        }
    }

    /// Regression (tester finding tester22b-F3, its query): control answers a client does not
    /// read (`SELECT hex(zeroblob(8000000))`, 16 MB each, SO_RCVBUF 4096) were held whole until
    /// the idle timeout, uncounted: 30 of them grew the server by 460 MB, and no request was
    /// ever refused. Now each is counted in `--max-buffered-bodies` until read: with 40 MB of
    /// it (16 MB here, answers of 3 MB), the answers that do not fit are refused with a 503 that says why (never before), and
    /// once the clients go the same query is answered again.
    func testControlAnswersNotReadAreCountedInTheBufferBudget() throws {
        try LaunchedServer.withTemporaryDatabase(["--max-body-size", "1mb", "--max-buffered-bodies", "16mb"]) { server, client in
            let query = #"{"sql":"SELECT hex(zeroblob(1500000)) AS x"}"#  // 3 MB answers, 10 of them unread
            XCTAssertEqual(try client.json("POST", "/catbird/api/sql", query, headers: E2E.tenantHeader("R")).status, 200)
            var nonReading: [RawHTTPClient] = []
            for index in 0..<10 {  // a tenant each: one tenant runs one query at a time
                let sent = "POST /catbird/api/sql HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Catbird-Parallel-Id: Q\(index)\r\n"
                    + "Content-Type: application/json\r\nContent-Length: \(query.utf8.count)\r\n\r\n\(query)"
                let stuck = try RawHTTPClient(port: server.port, receiveBuffer: 4096)
                try stuck.send(raw: Array(sent.utf8))
                nonReading.append(stuck)
            }
            // Once the unread answers fill the budget, the next query's answer is refused.
            var refused: RawResponse?
            // Two minutes: with both cores busy (the CI run of 2026-12-04 14:52, two builds beside
            // the suite) a minute was not enough; alone it takes 5-10 s.
            let deadline = ContinuousClock.now + .seconds(120)
            while refused == nil, ContinuousClock.now < deadline {
                let answer = try client.json("POST", "/catbird/api/sql", query, headers: E2E.tenantHeader("R"))
                // Other 503s and 429s come first on a slow build: the queries queue for the 3 SQL connections.
                let reason = answer.object["reason"] as? String ?? ""
                if answer.status == 503, reason.contains("answers not yet read by their clients") {
                    refused = answer
                } else {
                    Thread.sleep(forTimeInterval: 0.3)
                }
            }
            XCTAssertEqual(refused?.status, 503, "the unread answers filled the budget")

            nonReading.removeAll()  // closed with their answers unread: a reset, as a client that gives up sends
            var again: RawResponse?
            for _ in 0..<60 where again?.status != 200 {
                again = try client.json("POST", "/catbird/api/sql", query, headers: E2E.tenantHeader("R"))
                if again?.status != 200 { Thread.sleep(forTimeInterval: 0.5) }
            }
            XCTAssertEqual(again?.status, 200, "answered again once the unread answers are gone: \(again?.text.prefix(300) ?? "")")
        }
    }

    /// Regression (found by the suite: ForwardingStandInTests under a 131,072-byte budget): a
    /// journal page of 155,969 bytes was refused with the budget's 503 however long the client
    /// waited, though nothing else held any of the budget. An answer larger than what the budget
    /// can give goes when it holds the budget alone.
    func testAnAnswerLargerThanASmallBudgetGoesWhenItHoldsTheBudgetAlone() throws {
        let server = try TestServer {
            $0.maxBodySize = 131_072
            $0.maxBufferedBodies = 131_072
        }
        defer { server.removeFiles() }
        let client = try server.client()
        for index in 0..<3 {
            let body = [UInt8](repeating: UInt8(ascii: "a") + UInt8(index), count: 60_000)
            XCTAssertEqual(try client.request("POST", "/up/\(index)", body: body).status, 404)
        }
        let entries = try E2E.journal(client, tenant: nil, once: 3)
        XCTAssertEqual(entries.count, 3)
        // Each upload's bytes are given back when libmicrohttpd completes it, a moment after its
        // answer went out (CI run of 0f500241: the page came first on a loaded machine, while the
        // last upload still held part of the budget, and got the budget's 503).
        XCTAssertEqual(try E2E.bufferedBytesOnceGivenBack(server), 0, "the uploads gave their bytes back")
        let page = try client.request("GET", "/catbird/api/requests?limit=1000")
        XCTAssertEqual(page.status, 200, page.text.prefix(300).description)
        XCTAssertGreaterThan(page.body.count, 131_072, "a page larger than the whole budget")
    }
}
