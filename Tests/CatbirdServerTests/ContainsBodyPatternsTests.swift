import CatbirdTestSupport
import Foundation
import XCTest

/// Many `contains` body patterns against one body (docs/matching.md#evaluation-budget): the body
/// is indexed by pairs of bytes once and each pattern looked up, with the answers of searching
/// the body once per pattern (tester finding: 1,000 `contains` mocks on a 60 KB body searched it
/// 1,000 times, within a worker's slice and again on the matching lane).
final class ContainsBodyPatternsTests: XCTestCase {
    /// The finding's exact input: tenant `cont` has 1,000 mocks `POST equal "/upload"` with body
    /// `contains "\"orderId\":\"<i, 6 digits>\""` answering `m<i>`; a 60 KB body of JSON-like
    /// filler ending with the last one's needle gets `m999`; ending with a needle no mock has,
    /// a 404 whose closest mocks are of that url; a body with the first needle in its middle, `m0`.
    func testAThousandContainsMocksAnswerAsEachSearchedTheBody() throws {
        let server = try TestServer()
        defer { server.removeFiles() }
        let client = try server.client()
        for number in 0..<1000 {
            let action = #"{"type":"update","pattern":{"method":"POST","url":{"kind":"equal","value":"/upload"},"body":{"kind":"contains","value":"\"orderId\":\"\#(String(format: "%06d", number))\""}},"response":{"status":200,"body":"\#(Data("m\(number)".utf8).base64EncodedString())"}}"#
            XCTAssertEqual(try client.json("POST", "/catbird/api/mocks", action, headers: E2E.tenantHeader("cont")).status, 201)
        }
        var random = SeededRandom(seed: 1)
        let filler = (0..<60000).map { _ in random.pick(Array("abcdefghij0123456789\"{}:,".utf8)) }
        let last = try client.request("POST", "/upload", headers: E2E.tenantHeader("cont"), body: filler + Array(#""orderId":"000999""#.utf8))
        XCTAssertEqual(last.status, 200)
        XCTAssertEqual(last.text, "m999")
        let none = try client.request("POST", "/upload", headers: E2E.tenantHeader("cont"), body: filler + Array(#""orderId":"zzzzzz""#.utf8))
        XCTAssertEqual(none.status, 404, String(none.text.prefix(300)))
        let first = try client.request(
            "POST", "/upload", headers: E2E.tenantHeader("cont"),
            body: Array(filler[..<30000]) + Array(#""orderId":"000000""#.utf8) + Array(filler[30000...]))
        XCTAssertEqual(first.text, "m0")
    }
}
