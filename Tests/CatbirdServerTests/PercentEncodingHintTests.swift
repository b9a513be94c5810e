import CatbirdTestSupport
import Foundation
import XCTest

/// The 404's hint when the closest mock's `equal` url differs from the request-target only in
/// percent-encoding (docs/matching.md#near-misses).
final class PercentEncodingHintTests: ServerTestCase {
    /// try6a F10: `update` with url `{"kind":"equal","value":"/api/bé"}` (what Swift's
    /// JSONEncoder sends), then `GET /api/b%C3%A9` (URLSession's form) and curl's `/api/b%c3%a9`:
    /// both 404 with "url differs (expected equal "/api/bé", got "/api/b%C3%A9")" and no word of
    /// percent-encoding. Now the reason says so and how to write the url.
    func testAnEqualURLThatDiffersOnlyInPercentEncodingGetsAHint() throws {
        let added = try client.json("POST", "/catbird/api/mocks", #"{"type":"update","pattern":{"method":"GET","url":{"kind":"equal","value":"/api/bé"}},"response":{"status":200}}"#)
        XCTAssertEqual(added.status, 201, added.text)
        for sent in ["/api/b%C3%A9", "/api/b%c3%a9"] {
            let miss = try client.request("GET", sent)
            XCTAssertEqual(miss.status, 404, sent)
            let reason = try XCTUnwrap(miss.object["reason"] as? String)
            XCTAssertTrue(
                reason.contains(#"url differs (expected equal "/api/bé", got "\#(sent)"); its url differs only in percent-encoding (both are "/api/bé" decoded): equal compares the request-target as sent, so write the mock's url as the app sends it, "\#(sent)" (a regexp url also ignores the case of %XX)"#),
                reason)
        }
        // The hint's advice works: the url as sent matches.
        let encoded = try client.json("POST", "/catbird/api/mocks", #"{"type":"update","pattern":{"method":"GET","url":{"kind":"equal","value":"/api/b%C3%A9"}},"response":{"status":200}}"#)
        XCTAssertEqual(encoded.status, 201, encoded.text)
        XCTAssertEqual(try client.request("GET", "/api/b%C3%A9").status, 200)
        // Another url that is not the same text decoded gets no hint.
        let other = try client.request("GET", "/api/b%C3%A8")
        XCTAssertEqual(other.status, 404)
        XCTAssertFalse((other.object["reason"] as? String ?? "").contains("percent-encoding"), other.text)
    }
}
