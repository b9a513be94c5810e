import CatbirdTestSupport
import Foundation
import XCTest

/// `count`, `find` and `wait` match the request body the journal kept (its first
/// `--journal-body-limit` bytes), so a body pattern looking past it misses a request its mock
/// matched; a `wait` that times out says which entries failed only there, and names the whole
/// pattern, body included (docs/protocol.md#waiting-for-a-request).
final class TruncatedBodyWaitTests: ServerTestCase {
    /// Regression (try5 finding 3): the mock answered the 100,006-byte upload, count said 0 and
    /// the 408 read `no request matching POST equal "/upload" arrived within 1 s; after entry 0
    /// the journal has: POST /upload → 200`, with no word of the body or its truncation.
    func testAWaitThatMissesOnlyOnACutBodySaysSo() throws {
        let pattern = #"{"method":"POST","url":{"kind":"equal","value":"/upload"},"body":{"kind":"contains","value":"NEEDLE"}}"#
        let tenant = E2E.tenantHeader("trunc")
        let added = try client.json(
            "POST", "/catbird/api/mocks", #"{"type":"update","pattern":\#(pattern),"response":{"status":200,"body":"T0s="}}"#, headers: tenant)
        XCTAssertEqual(added.status, 201, added.text)
        let upload = try client.request("POST", "/upload", headers: tenant, body: Array((String(repeating: "a", count: 100_000) + "NEEDLE").utf8))
        XCTAssertEqual(upload.status, 200, "the mock saw the whole body")
        XCTAssertEqual(upload.text, "OK")
        let other = try client.request("POST", "/other", headers: tenant, body: Array(String(repeating: "b", count: 100_000).utf8))
        XCTAssertEqual(other.status, 404)
        let count = try client.json("POST", "/catbird/api/requests/count", #"{"pattern":\#(pattern)}"#, headers: tenant)
        XCTAssertEqual(count.object["count"] as? Int, 0, "the journal kept 65536 bytes, without NEEDLE: \(count.text)")
        let wait = try client.json("POST", "/catbird/api/requests/wait", #"{"pattern":\#(pattern),"timeout":0}"#, headers: tenant)
        XCTAssertEqual(wait.status, 408, wait.text)
        let reason = try XCTUnwrap(wait.object["reason"] as? String)
        XCTAssertTrue(reason.hasPrefix(#"no request matching POST equal "/upload" body contains "NEEDLE" arrived within 0 s"#), reason)
        XCTAssertTrue(
            reason.contains("POST /upload → 200 (matches but for the body, which was tested on the 65536 of its 100006 bytes "
                + "the journal kept: raise --journal-body-limit; a body its client did not finish has no more)"), reason)
        XCTAssertTrue(reason.hasSuffix("POST /other → 404"), "a request that differs elsewhere is not marked: \(reason)")
    }
}
