import CatbirdServer
import CatbirdStorage
import CatbirdTestSupport
import Foundation
import XCTest

/// Answers a Catbird makes itself in place of an upstream's (docs/files.md#redirect-and-proxy)
/// all carry `X-Catbird-Generated-By`, so that record mode, its own or a downstream Catbird's,
/// never writes one as the backend's answer (docs/files.md#recording). Catbird B forwards to the
/// upstream; Catbird A records B.
final class ForwardingStandInTests: UpstreamTestCase {
    /// A recording Catbird in front of `backend`, writing into a fresh directory.
    private func recorder(of backend: TestServer) throws -> (server: TestServer, directory: URL) {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("catbird-standin-\(UUID().uuidString)")
        let server = try TestServer { settings in
            settings.redirectURL = "http://127.0.0.1:\(backend.port)"
            settings.mocksDirectory = directory.path
            settings.recordMode = true
        }
        return (server, directory)
    }

    private func recordedFiles(_ directory: URL) -> [String] {
        (FileManager.default.enumerator(atPath: directory.path)?.allObjects as? [String] ?? []).filter { !$0.hasSuffix("/") }
            .filter { path in
                var isDirectory: ObjCBool = false
                return FileManager.default.fileExists(atPath: directory.appendingPathComponent(path).path, isDirectory: &isDirectory)
                    && !isDirectory.boolValue
            }
    }

    /// Every stand-in answer B makes for an upstream's, through A: its status, B's mark, and
    /// nothing recorded by A. Tester finding T14-F4: the head-size 502 (`/t/bighead`, 400 fields
    /// of ~110 bytes) had no mark, and A recorded it as `t/bighead` with status 502.
    func testEveryAnswerMadeInPlaceOfTheUpstreamsIsMarkedAndNotRecordedDownstream() throws {
        let backend = try TestServer { settings in
            settings.redirectURL = self.upstream.baseURL
            settings.upstreamTimeout = .seconds(1)
            settings.maxBodySize = 200  // /binary's 256 bytes are too large
        }
        let (front, directory) = try recorder(of: backend)
        defer { try? FileManager.default.removeItem(at: directory) }
        let standIns: [(path: String, status: Int, reason: String)] = [
            ("/raw/bighead", 502, "the upstream's answer has a header section of "),
            ("/raw/status999", 502, "the upstream answered with status 999"),
            ("/slow/3", 504, "upstream timed out"),
            ("/binary", 502, "upstream answer too large"),
            ("/raw/clmismatch", 502, "Content-Length values that differ"),
            ("/raw/clabc", 502, "a Content-Length that is no valid length"),
        ]
        let client = try front.client()
        for standIn in standIns {
            let answer = try client.request("GET", standIn.path)
            E2E.assertError(answer, status: standIn.status, reasonContains: standIn.reason)
            let mark = answer.header("X-Catbird-Generated-By") ?? ""
            XCTAssertTrue(E2E.matches(mark, "^catbird-[0-9a-f]{8}$"), "\(standIn.path): marked by B, got '\(mark)'")
        }
        XCTAssertEqual(recordedFiles(directory), [], "A recorded none of B's own answers")
        // The mark is B's alone: an upstream's own answer passes through A unmarked, and is recorded.
        let passed = try client.request("GET", "/status/201")
        XCTAssertEqual(passed.status, 201)
        XCTAssertNil(passed.header("X-Catbird-Generated-By"))
        XCTAssertEqual(recordedFiles(directory).filter { !$0.hasSuffix(".catbird-response.json") }, ["status/201"])
    }

    /// Tester finding T14-F7: a forwarded request in flight when B stops got B's 503 "the server
    /// is stopping" without the mark, and A recorded it as the fixture of `/t/slow`.
    func testTheStoppingServers503ToAForwardedRequestIsMarkedAndNotRecordedDownstream() throws {
        let backend = try TestServer { $0.redirectURL = self.upstream.baseURL }
        let (front, directory) = try recorder(of: backend)
        defer { try? FileManager.default.removeItem(at: directory) }
        let client = try front.client()
        try client.send(raw: Array("GET /slow/6 HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n".utf8))
        usleep(1_500_000)
        backend.stop()
        let answer = try client.readResponse()
        E2E.assertError(answer, status: 503, reasonContains: "the server is stopping")
        let mark = answer.header("X-Catbird-Generated-By") ?? ""
        XCTAssertTrue(E2E.matches(mark, "^catbird-[0-9a-f]{8}$"), "marked by B, got '\(mark)'")
        XCTAssertEqual(recordedFiles(directory), [], "A recorded nothing of B's shutdown")
    }

    /// Leftover of session 14's closing note: B's refusals of a request it would have forwarded,
    /// made before forwarding, had no mark, so A recorded them as the backend's answers: a
    /// `POST /up/big` with a body of 200,000 bytes over B's `--max-body-size` of 131,072 (413),
    /// and a `POST /up/budget` of 100,000 bytes while a stalled upload held B's
    /// `--max-buffered-bodies` of 131,072 (503). Both are now marked, journaled by B with the
    /// mark, and not recorded by A; a control request's 413 (never forwarded) and a server
    /// in no forwarding mode stay unmarked.
    func testRefusalsBeforeForwardingAreMarkedAndNotRecordedDownstream() throws {
        let limit = 131_072
        let backend = try TestServer { settings in
            settings.redirectURL = self.upstream.baseURL
            settings.maxBodySize = limit
            settings.maxBufferedBodies = limit
        }
        defer { backend.removeFiles() }
        let (front, directory) = try recorder(of: backend)
        defer { try? FileManager.default.removeItem(at: directory) }
        let client = try front.client()
        func assertMarked(_ answer: RawResponse, _ what: String, file: StaticString = #filePath, line: UInt = #line) {
            let mark = answer.header("X-Catbird-Generated-By") ?? ""
            XCTAssertTrue(E2E.matches(mark, "^catbird-[0-9a-f]{8}$"), "\(what): marked by B, got '\(mark)'", file: file, line: line)
        }

        let tooLarge = try client.request("POST", "/up/big", body: [UInt8](repeating: UInt8(ascii: "a"), count: 200_000))
        E2E.assertError(tooLarge, status: 413, reasonContains: "larger than the limit of 131072 bytes")
        assertMarked(tooLarge, "413")

        // A stalled upload straight to B holds B's whole budget; the next body does not fit.
        let stalled = try RawHTTPClient(port: backend.port, timeoutSeconds: 10)
        try stalled.send(raw: Array("POST /up/stalled HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: \(limit)\r\n\r\n".utf8))
        try stalled.send(raw: [UInt8](repeating: UInt8(ascii: "a"), count: 100_000))
        usleep(500_000)  // a body counts as it arrives
        let overBudget = try client.request("POST", "/up/budget", body: [UInt8](repeating: UInt8(ascii: "b"), count: 100_000))
        E2E.assertError(overBudget, status: 503, reasonContains: "(--max-buffered-bodies, CATBIRD_MAX_BUFFERED_BODIES)")
        assertMarked(overBudget, "503")
        stalled.hangUp()
        XCTAssertEqual(recordedFiles(directory), [], "A recorded none of B's refusals")

        // B journals each refusal as it went out, the mark included.
        let control = try backend.client()
        let entries = try E2E.journal(control, tenant: nil, once: 3).filter { ["/up/big", "/up/budget"].contains($0["url"] as? String) }
        XCTAssertEqual(entries.count, 2, "\(entries)")
        for entry in entries {
            let headers = (entry["response"] as? [String: Any])?["headers"] as? [String: Any] ?? [:]
            XCTAssertNotNil(headers["X-Catbird-Generated-By"], "journaled with the mark: \(entry)")
        }
        // A control request is never forwarded: its 413 is not in place of an upstream's.
        let controlTooLarge = try control.json("POST", "/catbird/api/mocks", String(repeating: " ", count: 200_000) + "{}")
        E2E.assertError(controlTooLarge, status: 413)
        XCTAssertNil(controlTooLarge.header("X-Catbird-Generated-By"))
        // Nor is anything by a server in no forwarding mode.
        let plain = try TestServer { $0.maxBodySize = limit }
        defer { plain.removeFiles() }
        let unmarked = try plain.client().request("POST", "/up/big", body: [UInt8](repeating: UInt8(ascii: "a"), count: 200_000))
        E2E.assertError(unmarked, status: 413)
        XCTAssertNil(unmarked.header("X-Catbird-Generated-By"))
    }

    /// With `--durability strict` an answer whose journal entry cannot be committed is withheld,
    /// and `503 the request could not be written to the journal …` goes in its place: for a
    /// forwarded request, in place of the upstream's answer, yet it went out unmarked. Here the
    /// database may grow by 3 pages (`maxDatabasePages`), which forwarded `POST /echo/fill`s of
    /// 32 KiB bodies soon fill.
    func testTheStrictWithheld503InPlaceOfAForwardedAnswerIsMarked() throws {
        try assertStrictWithheld503IsMarked(path: "/echo/fill") { answer in XCTAssertEqual(answer.status, 200, answer.text) }
    }

    /// The same 503 in place of a mock's answer, in redirect mode: Catbird's own answer where
    /// the request would have been forwarded, so marked too (re-read: it went out unmarked, and a
    /// recording Catbird in front would have written it as the backend's answer).
    func testTheStrictWithheld503InPlaceOfAMocksAnswerIsMarkedInRedirectMode() throws {
        try assertStrictWithheld503IsMarked(path: "/mocked/fill", mocked: true) { answer in XCTAssertEqual(answer.text, "mocked") }
    }

    /// Sends `POST path`s of 32 KiB to a strict redirect-mode server whose database may grow
    /// by 3 pages (`maxDatabasePages`) until one is withheld with the 503 (each answer before it
    /// checked by `answered`), and asserts that 503 is marked. `mocked`: a mock answers `path`.
    private func assertStrictWithheld503IsMarked(
        path: String, mocked: Bool = false, answered: (RawResponse) -> Void, file: StaticString = #filePath, line: UInt = #line
    ) throws {
        let made = try TestServer()  // a migrated file, to count its pages
        made.stop()
        let database = try Database(path: made.databasePath, mode: .readOnly)
        let pages = Int(try database.query("PRAGMA page_count").first?[0].intValue ?? 0)
        database.close()
        let backend = try TestServer { settings in
            settings.databasePath = made.databasePath
            settings.maxDatabasePages = pages + 3
            settings.durability = .strict
            settings.redirectURL = self.upstream.baseURL
            settings.logLevel = .error
        }
        defer {
            backend.removeFiles()
            made.removeFiles()
        }
        let client = try backend.client()
        if mocked { try E2E.addMock(client, method: "POST", url: path, body: "mocked", file: file, line: line) }
        var withheld: RawResponse?
        for _ in 0..<50 where withheld == nil {
            let answer = try client.request("POST", path, body: Array(repeating: UInt8(ascii: "a"), count: 32 * 1024))
            if answer.status == 503 { withheld = answer } else { answered(answer) }
        }
        let answer = try XCTUnwrap(withheld, "the journal filled its pages", file: file, line: line)
        E2E.assertError(answer, status: 503, reasonContains: "could not be written to the journal", file: file, line: line)
        let mark = answer.header("X-Catbird-Generated-By") ?? ""
        XCTAssertTrue(E2E.matches(mark, "^catbird-[0-9a-f]{8}$"), "marked, got '\(mark)'", file: file, line: line)
    }
}
