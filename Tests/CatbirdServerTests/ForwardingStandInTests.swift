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
}
