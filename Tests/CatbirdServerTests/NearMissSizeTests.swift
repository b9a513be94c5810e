import CatbirdTestSupport
import Foundation
import XCTest

/// A near miss shows a long pattern value cut (docs/matching.md#near-misses). Regression
/// (try7b F12): a mock `POST equal /upload` whose body pattern is a 4 MB text (an app uploading
/// a base64 image in JSON) made every miss of that body a 16,001,080-byte 404 whose reason had
/// 8,000,379 characters, and an 8 MB `near_misses` copy in each journal row.
final class NearMissSizeTests: ServerTestCase {
    func testAFourMegabyteBodyPatternIsShownCutInTheNearMissReasonAndJournal() throws {
        let upload = String(repeating: "QUJD", count: 1_000_000)  // 4,000,000 bytes of base64 text
        let action = #"{"type":"update","pattern":{"method":"POST","url":{"kind":"equal","value":"/upload"},"headers":{},"body":{"kind":"equal","value":"\#(upload)"}},"response":{"status":201,"headers":{}}}"#
        let added = try client.json("POST", "/catbird/api/mocks", action, headers: E2E.tenantHeader("up"))
        XCTAssertEqual(added.status, 201, String(added.text.prefix(300)))
        let exact = try client.request("POST", "/upload", headers: E2E.tenantHeader("up"), body: Array(upload.utf8))
        XCTAssertEqual(exact.status, 201, "the whole pattern still matches")

        let changed = "X" + upload.dropFirst()
        let miss = try client.request("POST", "/upload", headers: E2E.tenantHeader("up"), body: Array(changed.utf8))
        XCTAssertEqual(miss.status, 404)
        XCTAssertLessThan(miss.body.count, 8_192, "the 404 is small: \(miss.body.count) bytes")
        let reason = miss.object["reason"] as? String ?? ""
        XCTAssertTrue(reason.hasPrefix("no mock matched POST /upload"), reason)
        XCTAssertTrue(reason.contains("… (4000000 bytes)"), reason)
        let nearMiss = (miss.object["nearMisses"] as? [[String: Any]])?.first ?? [:]
        let shownBody = ((nearMiss["pattern"] as? [String: Any])?["body"] as? [String: Any])?["value"] as? String
        XCTAssertEqual(shownBody, String(upload.prefix(200)) + "… (4000000 bytes)")
        let bodyField = (nearMiss["fields"] as? [[String: Any]])?.first { $0["field"] as? String == "body" }
        XCTAssertEqual(bodyField?["verdict"] as? String, "differs")
        XCTAssertEqual(bodyField?["expected"] as? String, #"equal ""# + String(upload.prefix(200)) + #"… (4000000 bytes)""#)

        let journal = try E2E.journal(client, tenant: "up", once: 2)
        let entry = journal.first { ($0["response"] as? [String: Any])?["status"] as? Int == 404 } ?? [:]
        let stored = try JSONSerialization.data(withJSONObject: entry["nearMisses"] ?? [])
        XCTAssertLessThan(stored.count, 4_096, "the journal's near misses are small: \(stored.count) bytes")
        XCTAssertEqual(try E2E.mocks(client, tenant: "up").count, 1)
        let listed = (try E2E.mocks(client, tenant: "up").first?["pattern"] as? [String: Any])?["body"] as? [String: Any]
        XCTAssertEqual((listed?["value"] as? String)?.utf8.count, 4_000_000, "the mock keeps its whole pattern")
    }
}
