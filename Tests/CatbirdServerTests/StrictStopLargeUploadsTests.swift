import CatbirdStorage
import CatbirdTestSupport
import Foundation
import XCTest
#if canImport(Glibc)
import Glibc
#endif

/// `--durability strict` stopped with SIGTERM while large uploads keep the journal writer
/// behind (docs/tenancy.md#fair-shares: their answers held for the tenant's share, then
/// waiting for their commit). Regression (tester finding tester55a-F1, its load scaled down:
/// 12 keep-alive clients uploading 100-300 KB to tenant `ten-A`'s `POST /p*` mock with a
/// `limit`, 4 more sending small bodies to other tenants, `--journal-body-limit 1mb`, SIGTERM
/// after 2 s): answers whose entries were queued and waiting for their commit got the stop's
/// 503, while the commit that followed wrote their rows as the mock's 201 (only a `problem`
/// told otherwise) and spent their `limit` units (4 to 6 rows of about 30 per run). Now, over
/// two rounds: every `ten-A` row is the answer its client got (201 or the stop's 503, by the
/// request's own `rid`), and the mock's `remaining_limit` went down by exactly the 201s.
final class StrictStopLargeUploadsTests: XCTestCase {
    private static let uploaders = 12
    private static let others = 4
    private static let limit = 100_000

    func testEveryRowOfAStrictStopUnderLargeUploadsIsTheAnswerItsClientGot() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("catbird-strict-uploads-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        var stoppingAnswers = 0
        for round in 0..<2 {
            let database = directory.appendingPathComponent("strict-\(round).sqlite").path
            let server = try LaunchedServer(
                [
                    "--port", "\(try FreePort.next())", "--db", database, "--durability", "strict", "--journal-body-limit", "1mb",
                    "--log-level", "error",
                ], in: directory)
            let control = try server.client()
            try E2E.addMock(control, tenant: "ten-A", method: "POST", url: "/p*", kind: "wildcard", status: 201, body: "created", limit: Self.limit)
            for tenant in ["ten-B", "ten-C"] {
                try E2E.addMock(control, tenant: tenant, method: "POST", url: "/p*", kind: "wildcard", status: 201, body: "small")
            }
            // What each of ten-A's requests got, by its rid: the status.
            let received = Locked<[String: Int]>([:])
            let stopper = Thread { [process = server.process] in
                usleep(2_000_000)
                kill(process.processIdentifier, SIGTERM)
            }
            stopper.start()
            E2E.runOnThreads(Self.uploaders + Self.others) { [port = server.port] client in
                let uploads = client < Self.uploaders
                let tenant = uploads ? "ten-A" : (client % 2 == 0 ? "ten-B" : "ten-C")
                Self.postUntilGone(port: port, tenant: tenant, client: client, large: uploads) { rid, status in
                    if uploads { received.change { $0[rid] = status } }
                }
            }
            try LaunchedServer.wait(for: server.process, seconds: 40)
            XCTAssertEqual(server.process.terminationStatus, 0, "round \(round): a clean exit")

            let db = try Database(path: database, mode: .readOnly)
            defer { db.close() }
            var journaled: [String: (status: Int, answeredBy: String)] = [:]
            for row in try db.query("SELECT url, status, answered_by FROM requests WHERE tenant = 'ten-A'") {
                let rid = String((row[0].stringValue ?? "").split(separator: "=").last ?? "")
                journaled[rid] = (Int(row[1].intValue ?? 0), row[2].stringValue ?? "")
            }
            let answers = received.value
            XCTAssertGreaterThan(answers.count, 30, "round \(round): the uploads got answers before the stop")
            var mismatches: [String] = []
            for (rid, status) in answers {
                guard let row = journaled[rid] else {
                    mismatches.append("\(rid): got \(status), not journaled")
                    continue
                }
                let expected = status == 201 ? "mock" : "none"
                if row.status != status || row.answeredBy != expected {
                    mismatches.append("\(rid): got \(status), journaled as \(row.status) \(row.answeredBy)")
                }
            }
            XCTAssertEqual(mismatches, [], "round \(round): \(mismatches.count) of \(answers.count) rows differ from what their client got")
            let created = answers.values.filter { $0 == 201 }.count
            stoppingAnswers += answers.values.filter { $0 == 503 }.count
            let remaining = try db.query("SELECT remaining_limit FROM mocks WHERE tenant = 'ten-A'").first?[0].intValue
            XCTAssertEqual(remaining.map(Int.init), Self.limit - created, "round \(round): the limit spent is the 201s sent")
        }
        print("StrictStopLargeUploadsTests: \(stoppingAnswers) stop 503s to uploads over two rounds")
    }

    /// Posts to `/p/up?rid=<client>_<n>` on one keep-alive connection until the server closes
    /// it (or 30 s): 100-300 KB bodies when `large`, else a few bytes; `received` is told each
    /// answer's rid and status.
    private static func postUntilGone(
        port: UInt16, tenant: String, client: Int, large: Bool, received: (String, Int) -> Void
    ) {
        guard let connection = try? RawHTTPClient(port: port, timeoutSeconds: 30) else { return }
        var generator = SystemRandomNumberGenerator()
        let deadline = ContinuousClock.now + .seconds(30)
        var sequence = 0
        while ContinuousClock.now < deadline {
            sequence += 1
            let rid = "\(client)_\(sequence)"
            let size = large ? Int.random(in: 100_000...300_000, using: &generator) : 8
            let body = [UInt8](repeating: UInt8(ascii: "a") + UInt8(sequence % 26), count: size)
            guard
                let response = try? connection.request(
                    "POST", "/p/up?rid=\(rid)", headers: [("X-Catbird-Parallel-Id", tenant), ("Content-Type", "application/octet-stream")],
                    body: body)
            else { return }
            received(rid, response.status)
            if response.header("Connection") == "close" { return }
        }
    }
}
