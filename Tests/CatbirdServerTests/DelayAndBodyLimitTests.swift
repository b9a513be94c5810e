import CatbirdTestSupport
import Foundation
import XCTest

/// A mock's `delay` must not block a worker thread (docs/protocol.md#control-actions); a body over the
/// configured limit gets 413, whether framed by Content-Length or chunked (docs/protocol.md#errors).
final class DelayAndBodyLimitTests: XCTestCase {
    func testADelayedResponseDoesNotHoldTheOnlyWorkerThread() throws {
        let server = try TestServer { $0.threadCount = 1 }
        defer { server.removeFiles() }
        let control = try server.client()
        // 3 s: ample margin for the fast request to finish first on a loaded machine.
        try E2E.addMock(control, url: "/slow", body: "slow body", delay: 3)
        try E2E.addMock(control, url: "/fast", body: "fast body")

        let port = server.port
        let finished = Locked<[String]>([])
        let slowResult = Locked<[String]>([])
        let slowDone = DispatchSemaphore(value: 0)
        let thread = Thread {
            defer { slowDone.signal() }
            do {
                let client = try RawHTTPClient(port: port)
                let started = ContinuousClock.now
                let response = try client.request("GET", "/slow")
                let elapsed = ContinuousClock.now - started
                finished.append("slow")
                slowResult.append("\(response.status) \(response.text) \(elapsed >= .seconds(3))")
            } catch {
                slowResult.append("error: \(error)")
            }
        }
        thread.start()

        // Wait until the server has taken the slow request (its hit is counted before it is
        // parked); this poll itself is served by the only worker while the slow response waits.
        let second = try server.client()
        XCTAssertTrue(try E2E.waitForHits(second, url: "/slow", 1), "the slow request reached the server")
        let fast = try second.request("GET", "/fast")
        finished.append("fast")
        XCTAssertEqual(fast.status, 200)
        XCTAssertEqual(fast.text, "fast body")

        slowDone.wait()
        XCTAssertEqual(finished.value, ["fast", "slow"], "the second connection completed before the delayed one")
        XCTAssertEqual(slowResult.value, ["200 slow body true"], "the delayed response takes at least its 3 s delay")
        let slowEntry = try E2E.journal(second, tenant: nil, query: "url=/slow").first
        XCTAssertGreaterThanOrEqual(JSONNumber.double(slowEntry?["durationMs"]) ?? 0, 3000, "the journal counts the delay")
    }

    func testDelayedResponsesOnManyConnectionsAllArriveWithOneWorker() throws {
        let server = try TestServer { $0.threadCount = 1 }
        defer { server.removeFiles() }
        let control = try server.client()
        try E2E.addMock(control, url: "/slow", body: "slow body", delay: 1)
        let port = server.port
        let results = Locked<[String]>([])
        E2E.runOnThreads(8) { _ in
            do {
                let client = try RawHTTPClient(port: port)
                let response = try client.request("GET", "/slow")
                results.append("\(response.status) \(response.text)")
            } catch {
                results.append("error: \(error)")
            }
        }
        XCTAssertEqual(results.value, Array(repeating: "200 slow body", count: 8))
        XCTAssertEqual(try E2E.journal(control, tenant: nil).count, 8)
    }

    func testStoppingTheServerAnswersAParkedDelayedRequestAtOnce() throws {
        let server = try TestServer { $0.threadCount = 1 }
        defer { server.removeFiles() }
        let control = try server.client()
        try E2E.addMock(control, url: "/very-slow", body: "late", delay: 120)
        let port = server.port
        let result = Locked<[String]>([])
        let done = DispatchSemaphore(value: 0)
        let thread = Thread {
            defer { done.signal() }
            do {
                // Reads time out after 60 s, well before the 120 s delay would end.
                let client = try RawHTTPClient(port: port, timeoutSeconds: 60)
                let response = try client.request("GET", "/very-slow")
                result.append("\(response.status) \(response.text)")
            } catch {
                result.append("error: \(error)")
            }
        }
        thread.start()
        // Parked: the hit is counted at once; the entry is journaled when the response is sent.
        XCTAssertTrue(try E2E.waitForHits(control, url: "/very-slow", 1))

        try server.restart()
        done.wait()

        XCTAssertEqual(result.value, ["200 late"], "the parked response is sent when the server stops")
        let entries = try E2E.journal(try server.client(), tenant: nil)
        XCTAssertEqual(entries.compactMap { $0["url"] as? String }, ["/very-slow"])
    }

    func testABodyUpToTheLimitIsAcceptedAndOneByteMoreIs413() throws {
        let server = try TestServer { $0.maxBodySize = 1000 }
        defer { server.removeFiles() }
        let control = try server.client()
        try E2E.addMock(control, method: "POST", url: "/upload", body: "stored")

        let atLimit = try server.client().request("POST", "/upload", body: [UInt8](repeating: 0x61, count: 1000))
        XCTAssertEqual(atLimit.status, 200, atLimit.text)
        XCTAssertEqual(atLimit.text, "stored")

        let overLimit = try server.client().request("POST", "/upload", body: [UInt8](repeating: 0x61, count: 1001))
        E2E.assertError(overLimit, status: 413, reasonContains: "1000")
        XCTAssertEqual(
            overLimit.object["reason"] as? String,
            "request body is larger than the limit of 1000 bytes (--max-body-size, CATBIRD_MAX_BODY_SIZE)", "no word of mocks: not a control request")

        // Both are journaled (README: every request outside /catbird, answered or not); the
        // rejected one with its 413 and no body (the upload was discarded), its bodySize the
        // declared Content-Length (it was 0).
        let entries = try E2E.journal(control, tenant: nil)
        XCTAssertEqual(entries.compactMap { JSONNumber.int(($0["response"] as? [String: Any])?["status"]) }, [200, 413])
        XCTAssertEqual(entries.compactMap { JSONNumber.int(($0["request"] as? [String: Any])?["bodySize"]) }, [1000, 1001])
        XCTAssertEqual(entries.compactMap { ($0["request"] as? [String: Any])?["bodyTruncated"] as? Bool }, [false, true])
        XCTAssertEqual(entries.compactMap { $0["answeredBy"] as? String }, ["mock", "none"])
        // json6 leftover: the bodySize of a body never read is the declared one, and says so.
        XCTAssertEqual(
            entries.map { $0["problem"] as? String },
            [nil, "refused before its body was read: bodySize is the declared Content-Length, not bytes received"])
        XCTAssertEqual(try E2E.mocks(control, tenant: nil).first.flatMap { JSONNumber.int($0["hits"]) }, 1)
    }

    /// tester48a-F2, its heads: a `Content-Length` from 2^63 to 2^64 - 1 read as no length at
    /// all: no 413 at the head, the body swallowed past the limit, no answer at all, on mocked
    /// and control routes alike. Each is now the 413 a length of 2^63 - 1 got, journaled.
    func testAContentLengthPastInt64Is413AtTheHead() throws {
        let server = try TestServer()
        defer { server.removeFiles() }
        // tester49a-F1: leading zeros; the first two are within range, the third past it.
        let lengths = ["9223372036854775807", "9223372036854775808", "18446744073709551614", "18446744073709551615",
                       "00000000000000000000100000000", "0009223372036854775807", "00000000000000000000000000009223372036854775808"]
        for length in lengths {
            for target in ["/u64", "/catbird/api/mocks"] {
                let raw = try RawHTTPClient(port: server.port, timeoutSeconds: 5)
                try raw.send(raw: Array("POST \(target) HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: \(length)\r\nConnection: close\r\n\r\nabc".utf8))
                let response = try raw.readResponse()
                E2E.assertError(response, status: 413, reasonContains: "larger than the limit")
            }
        }
        let entries = try E2E.journal(try server.client(), tenant: nil)
        XCTAssertEqual(entries.compactMap { JSONNumber.int(($0["response"] as? [String: Any])?["status"]) }, Array(repeating: 413, count: 7))
        let plain = "refused before its body was read: bodySize is the declared Content-Length, not bytes received"
        let held = { (quoted: String) in
            "refused before its body was read: bodySize is the declared Content-Length (\(quoted)) held to 9223372036854775807, not bytes received"
        }
        XCTAssertEqual(entries.map { $0["problem"] as? String }, [
            plain, held("9223372036854775808"), held("18446744073709551614"), held("18446744073709551615"), plain, plain,
            held(String(repeating: "0", count: 28) + "922337203685… (47 bytes)"),
        ])
        XCTAssertEqual(entries.compactMap { JSONNumber.int(($0["request"] as? [String: Any])?["bodySize"]) },
                       [Int.max, Int.max, Int.max, Int.max, 100_000_000, Int.max, Int.max])
    }

    /// Regression (try7a F6): a mock body under `--max-body-size` (40 MiB at the default 50 MiB)
    /// got 413 `… (CATBIRD_MAX_BODY_SIZE)`, which named neither the option nor why: the control
    /// request carries the body as base64, 4/3 of its size. Same shape at a 1,000-byte limit: a
    /// 900-byte mock body is 1,200 bytes of base64.
    func testAControlCallOverTheLimitIs413() throws {
        let server = try TestServer { $0.maxBodySize = 1000 }
        defer { server.removeFiles() }
        let big = E2E.updateAction(url: "/big", body: [UInt8](repeating: 0x62, count: 900))
        let answer = try server.client().json("POST", "/catbird/api/mocks", big)
        E2E.assertError(answer, status: 413)
        XCTAssertEqual(
            answer.object["reason"] as? String,
            "request body is larger than the limit of 1000 bytes (--max-body-size, CATBIRD_MAX_BODY_SIZE); a control request "
                + "carries a mock's body as base64, 4/3 of its size, so a mock body of at most about 750 bytes fits", answer.text)
        XCTAssertEqual(try E2E.mocks(try server.client(), tenant: nil).count, 0)
    }

    func testAChunkedUploadOverTheLimitIs413() throws {
        let server = try TestServer { $0.maxBodySize = 1000 }
        defer { server.removeFiles() }
        let control = try server.client()
        try E2E.addMock(control, method: "POST", url: "/upload", body: "stored")

        let over = try server.client()
        try over.send(raw: chunkedRequest(chunks: [500, 500, 1]))
        E2E.assertError(try over.readResponse(), status: 413, reasonContains: "1000")

        let muchOver = try server.client()
        try muchOver.send(raw: chunkedRequest(chunks: Array(repeating: 4096, count: 16)))
        E2E.assertError(try muchOver.readResponse(), status: 413)

        let under = try server.client()
        try under.send(raw: chunkedRequest(chunks: [400, 600]))
        let accepted = try under.readResponse()
        XCTAssertEqual(accepted.status, 200, accepted.text)
        XCTAssertEqual(accepted.text, "stored")

        // All three are journaled; only the accepted one was served, with its whole body.
        let entries = try E2E.journal(control, tenant: nil)
        XCTAssertEqual(entries.compactMap { JSONNumber.int(($0["response"] as? [String: Any])?["status"]) }, [413, 413, 200])
        let served = entries.filter { $0["answeredBy"] as? String == "mock" }
        XCTAssertEqual(served.count, 1)
        XCTAssertEqual(JSONNumber.int((served.first?["request"] as? [String: Any])?["bodySize"]), 1000)
        // The refused ones journal the bytes received (was 0): a chunked body's size is known
        // only as it arrives.
        XCTAssertEqual(entries.compactMap { JSONNumber.int(($0["request"] as? [String: Any])?["bodySize"]) }, [1001, 65536, 1000])
        let received = "refused once its chunked body passed the size limit: bodySize is the bytes received, which were discarded"
        XCTAssertEqual(entries.map { $0["problem"] as? String }, [received, received, nil])
    }

    /// Tester finding tester52c-F2, scaled (55 MiB in 1 MiB chunks over the default 50 MiB, then
    /// a hang-up): a chunked body that passed the limit and whose client left before its end was
    /// journaled `bodySize` 0, not cut short, as if nothing had arrived. Now its bytes received
    /// (and discarded) are its size, the body marked cut short, and the problem says both.
    func testAChunkedUploadPastTheLimitWhoseClientLeftIsJournaledWithItsBytes() throws {
        let server = try TestServer { $0.maxBodySize = 1000 }
        defer { server.removeFiles() }
        let control = try server.client()
        let leaving = try server.client()
        var bytes = Array("POST /left HTTP/1.1\r\nHost: 127.0.0.1\r\nTransfer-Encoding: chunked\r\n\r\n".utf8)
        for _ in 0..<6 { bytes += Array("400\r\n".utf8) + [UInt8](repeating: 0x61, count: 1024) + Array("\r\n".utf8) }
        try leaving.send(raw: bytes)  // 6,144 bytes, no last chunk
        Thread.sleep(forTimeInterval: 0.5)
        leaving.hangUp()
        var entry: [String: Any]?
        let deadline = Date().addingTimeInterval(10)
        while entry == nil, Date() < deadline {
            entry = try E2E.journal(control, tenant: nil).first { $0["url"] as? String == "/left" }
            if entry == nil { Thread.sleep(forTimeInterval: 0.1) }
        }
        let request = try XCTUnwrap(entry?["request"] as? [String: Any], "journaled")
        XCTAssertEqual(JSONNumber.int(request["bodySize"]), 6144, "\(entry ?? [:])")
        XCTAssertEqual(request["bodyTruncated"] as? Bool, true, "\(entry ?? [:])")
        XCTAssertEqual(JSONNumber.int((entry?["response"] as? [String: Any])?["status"]), 499)
        let problem = entry?["problem"] as? String ?? ""
        XCTAssertTrue(problem.hasPrefix("the client closed the connection before the request was complete"), problem)
        XCTAssertTrue(problem.hasSuffix("refused once its chunked body passed the size limit: bodySize is the bytes received, which were discarded"), problem)
    }

    /// The exact reports: a declared `Content-Length: 60000000` over the default 50 MiB limit,
    /// and a 2,000-byte chunked upload with `--max-body-size 1kb`, were journaled with
    /// `request.bodySize: 0` (docs/protocol.md#journal: the full body size).
    func testARefusedBodyIsJournaledWithItsDeclaredOrReceivedSize() throws {
        let server = try TestServer()
        defer { server.removeFiles() }
        let declared = try server.client()
        try declared.send(raw: Array("POST /big HTTP/1.1\r\nHost: a\r\nContent-Length: 60000000\r\n\r\n".utf8))
        E2E.assertError(try declared.readResponse(), status: 413)
        let small = try TestServer { $0.maxBodySize = 1024 }
        defer { small.removeFiles() }
        let chunked = try small.client()
        try chunked.send(raw: chunkedRequest(chunks: [2000]))
        E2E.assertError(try chunked.readResponse(), status: 413, reasonContains: "1024")
        for (server, size) in [(server, 60_000_000), (small, 2000)] {
            let entry = try XCTUnwrap(try E2E.journal(try server.client(), tenant: nil).first)
            let request = try XCTUnwrap(entry["request"] as? [String: Any])
            XCTAssertEqual(JSONNumber.int(request["bodySize"]), size, "\(request)")
            XCTAssertEqual(request["bodyTruncated"] as? Bool, true)
            XCTAssertNil(request["body"], "nothing of the body is stored")
        }
    }

    /// A `POST /upload` with `Transfer-Encoding: chunked`, one chunk of 'c' per size given.
    private func chunkedRequest(chunks: [Int]) -> [UInt8] {
        var bytes = Array("POST /upload HTTP/1.1\r\nHost: 127.0.0.1\r\nTransfer-Encoding: chunked\r\n\r\n".utf8)
        for size in chunks {
            bytes += Array("\(String(size, radix: 16))\r\n".utf8)
            bytes += [UInt8](repeating: 0x63, count: size)
            bytes += Array("\r\n".utf8)
        }
        bytes += Array("0\r\n\r\n".utf8)
        return bytes
    }
}
