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

    /// tester42a-F1, the finding's requests: an encoded reserved character (`%2B`, `%3F`, `%26`,
    /// `%3D`, `%2F`) is data where the plain one is structure, so the two urls are not the same
    /// one spelled twice (RFC 3986 section 6.2.2.2); the hint told the author to copy the app's
    /// unencoded `+` (read as a space by any backend) into the mock. It no longer fires there,
    /// and still does for an encoded unreserved character or a hex digit's case.
    func testAnEncodedReservedCharacterGetsNoPercentEncodingHint() throws {
        let pairs = [
            ("/api/verify?phone=%2B4915112345678", "/api/verify?phone=+4915112345678"),
            ("/files/a%3Fb", "/files/a?b"),
            ("/p/a%26b?x=1", "/p/a&b?x=1"),
            ("/q?name=a%26b%3Dc", "/q?name=a&b=c"),
            ("/e/a%2Fb", "/e/a/b"),
        ]
        for (index, (mocked, sent)) in pairs.enumerated() {
            let tenant = "pe\(index)"
            let added = try client.json(
                "POST", "/catbird/api/mocks", #"{"type":"update","pattern":{"method":"GET","url":{"kind":"equal","value":"\#(mocked)"}},"response":{"status":200}}"#,
                headers: E2E.tenantHeader(tenant))
            XCTAssertEqual(added.status, 201, added.text)
            let miss = try client.request("GET", sent, headers: E2E.tenantHeader(tenant))
            XCTAssertEqual(miss.status, 404, sent)
            let reason = miss.object["reason"] as? String ?? ""
            XCTAssertTrue(reason.contains("url differs"), reason)
            XCTAssertFalse(reason.contains("percent-encoding"), "\(sent): \(reason)")
        }
        // Equivalent spellings still get it: an encoded unreserved character, and hex digits' case.
        let added = try client.json(
            "POST", "/catbird/api/mocks", #"{"type":"update","pattern":{"method":"GET","url":{"kind":"equal","value":"/v/%7Euser?k=%2b"}},"response":{"status":200}}"#,
            headers: E2E.tenantHeader("pe-ok"))
        XCTAssertEqual(added.status, 201, added.text)
        let reason = try client.request("GET", "/v/~user?k=%2B", headers: E2E.tenantHeader("pe-ok")).object["reason"] as? String ?? ""
        XCTAssertTrue(reason.contains(#"its url differs only in percent-encoding (both are "/v/~user?k=%2B" decoded)"#), reason)
    }
}
