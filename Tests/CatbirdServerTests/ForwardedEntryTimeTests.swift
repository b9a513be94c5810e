import CatbirdTestSupport
import Foundation
import XCTest

/// A forwarded request's journal `time` (and HAR `startedDateTime`) is when Catbird chose its
/// answer, the request matched and sent on, as a delayed mock's is before its delay
/// (docs/protocol.md#what-the-journal-records), in redirect and record mode and for Catbird's
/// own 504 in place of an upstream that was too slow.
final class ForwardedEntryTimeTests: RecordingTestCase {
    /// Regression (tester finding tester26a-F4): an upstream answering after 2 s had its entry
    /// stamped when its answer came back, 2 s after the request arrived, while `durationMs`
    /// counted from arrival: the HAR put the request after its own end. The same for a record
    /// mode server, and for the 504 of an upstream slower than `--upstream-timeout` (2 s here).
    func testAForwardedEntrysTimeIsWhenTheRequestWasSentOn() throws {
        let redirecting = try TestServer { $0.redirectURL = self.upstream.baseURL }
        defer { redirecting.removeFiles() }
        let timingOut = try TestServer { settings in
            settings.redirectURL = self.upstream.baseURL
            settings.upstreamTimeout = .seconds(2)
        }
        defer { timingOut.removeFiles() }
        let recording = try server(recording: true)
        for (mode, server, path, status) in [
            ("redirect", redirecting, "/slow/2", 200), ("record", recording, "/slow/2", 200), ("504", timingOut, "/slow/4", 504),
        ] {
            let client = try server.client()
            let sentAt = Date()
            XCTAssertEqual(try client.request("GET", path).status, status, mode)
            let entry = try XCTUnwrap(try E2E.journal(client, tenant: nil).first { $0["url"] as? String == path }, mode)
            let time = try date(entry["time"])
            // Within a second of the request (2 s before its answer), not when the answer came.
            XCTAssertLessThan(time.timeIntervalSince(sentAt), 1, "\(mode): \(entry["time"] ?? "") for a request sent at \(sentAt)")
            XCTAssertGreaterThan(time.timeIntervalSince(sentAt), -0.01, "\(mode): \(entry["time"] ?? "")")
            XCTAssertGreaterThanOrEqual(JSONNumber.double(entry["durationMs"]) ?? 0, 1_900, "\(mode): counted from arrival")
            let har = try client.request("GET", "/catbird/api/requests.har")
            let exported = ((har.object["log"] as? [String: Any])?["entries"] as? [[String: Any]]) ?? []
            let started = exported.first { (($0["request"] as? [String: Any])?["url"] as? String)?.hasSuffix(path) == true }
            XCTAssertEqual(started?["startedDateTime"] as? String, entry["time"] as? String, "\(mode): HAR startedDateTime is time")
        }
    }

    private func date(_ value: Any?) throws -> Date {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        return try XCTUnwrap((value as? String).flatMap(formatter.date(from:)), "\(value ?? "nil")")
    }
}
