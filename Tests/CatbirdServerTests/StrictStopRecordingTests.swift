import CatbirdServer
import CatbirdStorage
import CatbirdTestSupport
import Foundation
import XCTest

/// `--durability strict` with `--record` stopped under forwarding load: every journal row is the
/// answer its client got (README.md#durability). Regression (tester finding tester57a-F1, its
/// load at a test's scale: keep-alive clients asking the upstream through redirect mode, each
/// URL unique, the server stopped a moment in): the stop's 503 went to 1 to 5 requests per stop
/// (8 stops of 15) whose rows the commit that followed wrote as the upstream's 200, their
/// recordings placed. Now, over three rounds, no row says an answer its client did not get.
final class StrictStopRecordingTests: RecordingTestCase {
    private static let clients = 8

    func testEveryRowOfAStrictRecordingStopIsTheAnswerItsClientGot() throws {
        var stoppingAnswers = 0
        for round in 0..<3 {
            let server = try TestServer { settings in
                settings.redirectURL = self.upstream.baseURL
                settings.recordMode = true
                settings.mocksDirectory = self.mocksDirectory.appendingPathComponent("\(round)").path
                settings.durability = .strict
            }
            defer { server.removeFiles() }
            let received = Locked<[String: Int]>([:])
            let refused = Locked<Set<String>>([])
            let stopper = Thread {
                usleep(1_000_000)
                _ = server.stopInBackground()
            }
            stopper.start()
            E2E.runOnThreads(Self.clients) { [port = server.port] client in
                E2E.askUntilGone(port: port) { sequence in "/echo/\(round)/\(client)/\(sequence)" } received: { url, response in
                    received.change { $0[url] = response.status }
                    if response.status == 503, response.text.contains("the server is stopping") { refused.change { _ = $0.insert(url) } }
                    return response.header("Connection") != "close"
                }
            }
            server.stop()
            let db = try Database(path: server.databasePath, mode: .readOnly)
            defer { db.close() }
            var journaled: [String: (status: Int, answeredBy: String)] = [:]
            for row in try db.query("SELECT url, status, answered_by FROM requests") {
                journaled[row[0].stringValue ?? ""] = (Int(row[1].intValue ?? 0), row[2].stringValue ?? "")
            }
            let answers = received.value
            XCTAssertGreaterThan(answers.count, 20, "round \(round): the clients got answers before the stop")
            var mismatches: [String] = []
            for (url, status) in answers {
                guard let row = journaled[url] else {
                    // Only a stop's 503 to a request never forwarded may be missing.
                    if status != 503 { mismatches.append("\(url): got \(status), not journaled") }
                    continue
                }
                let expected = status == 200 ? "redirect" : "none"
                if row.status != status || row.answeredBy != expected {
                    mismatches.append("\(url): got \(status), journaled as \(row.status) \(row.answeredBy)")
                }
            }
            for (url, row) in journaled where answers[url] == nil && row.status == 200 {
                mismatches.append("\(url): journaled as \(row.status) \(row.answeredBy), its client got nothing")
            }
            XCTAssertEqual(mismatches, [], "round \(round): rows that differ from what their client got")
            stoppingAnswers += refused.value.count
        }
        print("StrictStopRecordingTests: \(stoppingAnswers) stop 503s over three rounds")
    }
}
