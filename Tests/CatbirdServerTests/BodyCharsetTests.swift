import CatbirdTestSupport
import Foundation
import XCTest

/// A body sent in another charset than UTF-8 (docs/matching.md#body-text-and-charsets): the
/// matchers compare its bytes as received, and the journal and the HAR export show its text
/// read by the declared charset. Regression: a body sent with `charset=latin1` was read as
/// UTF-8, so `café` (`63 61 66 E9`) had no text at all, and `Ã©` (`C3 A9`) was shown as `é`.
final class BodyCharsetTests: ServerTestCase {
    private func post(_ path: String, _ body: [UInt8], contentType: String?) throws -> RawResponse {
        try client.request("POST", path, headers: contentType.map { [("Content-Type", $0)] } ?? [], body: body)
    }

    /// A mock of `POST url` answering "matched" to a body that contains `value`.
    private func addMock(_ url: String, bodyContains value: String) throws {
        let action = #"{"type":"update","pattern":{"method":"POST","url":{"kind":"equal","value":"\#(url)"},"body":{"kind":"contains","value":"\#(value)"}},"response":{"status":200,"body":"bWF0Y2hlZA=="}}"#
        let answer = try client.json("POST", "/catbird/api/mocks", action)
        XCTAssertEqual(answer.status, 201, answer.text)
    }

    func testMatchersCompareTheBytesWhateverTheCharset() throws {
        try addMock("/accent", bodyContains: "café")
        try addMock("/ascii", bodyContains: "caf")
        let latin1: [UInt8] = [0x63, 0x61, 0x66, 0xE9]
        XCTAssertEqual(try post("/accent", latin1, contentType: "text/plain; charset=latin1").status, 404, "E9 is not é's UTF-8 bytes")
        XCTAssertEqual(try post("/accent", Array("café".utf8), contentType: "text/plain; charset=utf-8").text, "matched")
        XCTAssertEqual(try post("/ascii", latin1, contentType: "text/plain; charset=latin1").text, "matched")
    }

    func testTheJournalAndTheHARExportReadTheTextByTheDeclaredCharset() throws {
        let cases: [(body: [UInt8], contentType: String?, text: String?)] = [
            ([0x63, 0x61, 0x66, 0xE9], "text/plain; charset=latin1", "café"),
            ([0xC3, 0xA9], #"text/plain;charset="ISO-8859-1""#, "Ã©"),
            ([0x80, 0x41], "text/plain; Charset=L1", "\u{80}A"),
            (Array("abc".utf8), "text/plain; charset=windows-1252", nil),
            (Array("café".utf8), "text/plain", "café"),
            (Array("café".utf8), "application/json; charset=UTF-8", "café"),
            ([0x63, 0xE9], nil, nil),
        ]
        for (index, sent) in cases.enumerated() {
            XCTAssertEqual(try post("/sent/\(index)", sent.body, contentType: sent.contentType).status, 404)
        }
        let journal = try E2E.journal(client, tenant: nil, once: cases.count)
        let har = try client.request("GET", "/catbird/api/requests.har")
        XCTAssertEqual(har.status, 200, har.text)
        let exported = ((har.object["log"] as? [String: Any])?["entries"] as? [[String: Any]]) ?? []
        XCTAssertEqual(exported.count, cases.count, har.text)
        for (index, sent) in cases.enumerated() {
            let label = "\(sent.contentType ?? "no Content-Type") \(sent.body)"
            let request = try XCTUnwrap(journal.first { $0["url"] as? String == "/sent/\(index)" }?["request"] as? [String: Any], label)
            XCTAssertEqual(request["body"] as? String, sent.text, label)
            XCTAssertEqual(request["bodyBase64"] as? String, Data(sent.body).base64EncodedString(), "the bytes are kept: \(label)")
            let entry = try XCTUnwrap(
                exported.first { (($0["request"] as? [String: Any])?["url"] as? String)?.hasSuffix("/sent/\(index)") == true }, label)
            let postData = try XCTUnwrap((entry["request"] as? [String: Any])?["postData"] as? [String: Any], label)
            if let text = sent.text {
                XCTAssertEqual(postData["text"] as? String, text, label)
                XCTAssertNil(postData["_encoding"], label)
            } else {
                XCTAssertEqual(postData["text"] as? String, Data(sent.body).base64EncodedString(), label)
                XCTAssertEqual(postData["_encoding"] as? String, "base64", label)
            }
        }
    }
}
