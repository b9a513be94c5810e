@testable import CatbirdWire
import Foundation
import XCTest

/// ``BodyText``'s rules (docs/matching.md#body-text-and-charsets), as the Swift client's
/// `bodyText` applies them to a journal entry.
final class BodyTextTests: XCTestCase {
    func testTheDeclaredCharsetDecidesTheText() {
        let latin1: [UInt8] = [0x63, 0x61, 0x66, 0xE9]
        for contentType in ["text/plain; charset=latin1", "text/plain;charset=ISO-8859-1", #"text/plain; CHARSET = "l1""#, "a/b; x=y; charset=cp819"] {
            XCTAssertEqual(BodyText.text(of: latin1, contentType: contentType), "café", contentType)
        }
        XCTAssertEqual(BodyText.text(of: [0x80, 0x9F, 0xFF], contentType: "text/plain; charset=latin1"), "\u{80}\u{9F}\u{FF}")
        XCTAssertEqual(BodyText.text(of: [0xC3, 0xA9], contentType: "text/plain; charset=latin1"), "Ã©")
        XCTAssertEqual(BodyText.text(of: [0xC3, 0xA9], contentType: "text/plain"), "é")
        XCTAssertEqual(BodyText.text(of: [0xC3, 0xA9], contentType: nil), "é")
        XCTAssertEqual(BodyText.text(of: [0xC3, 0xA9], contentType: "text/plain; charset=us-ascii"), "é")
        XCTAssertNil(BodyText.text(of: latin1, contentType: "text/plain"), "not UTF-8")
        XCTAssertNil(BodyText.text(of: Array("abc".utf8), contentType: "text/plain; charset=windows-1252"))
        XCTAssertNil(BodyText.text(of: [0x61, 0x00], contentType: "text/plain; charset=utf-16le"))
        XCTAssertEqual(BodyText.text(of: [], contentType: "text/plain; charset=latin1"), "")
    }

    /// Parameters are read as RFC 9110 §5.6.6 writes them (tester finding tester29a-F1, whose
    /// exact headers come first: a `;charset=latin1` inside another parameter's quotes, or an
    /// unterminated quote, declares no ISO-8859-1; the web page now reads them alike).
    func testTheCharsetParameterIsReadWithQuotedStrings() {
        let latin1: [UInt8] = [0x63, 0x61, 0x66, 0xE9]
        for contentType in [#"text/plain; foo="a;charset=latin1""#, #"text/plain; foo="a";charset=latin1""#, #"text/plain; charset="latin1"#] {
            XCTAssertNil(BodyText.text(of: latin1, contentType: contentType), contentType)
        }
        XCTAssertEqual(BodyText.charset(of: #"text/plain; foo="a;charset=latin1""#), nil)
        XCTAssertEqual(BodyText.charset(of: #"text/plain; charset="latin1"#), "\"latin1")
        for contentType in [
            #"text/plain; foo="a;b"; charset=latin1"#, #"text/plain; foo="x"y"; charset=latin1"#, #"text/plain; charset="lat\in1""#,
            "text/plain; flag; charset=latin1", "text/plain;;charset=\tLatin1 ", #"text/plain; charset="latin1" ; x=y"#,
        ] {
            XCTAssertEqual(BodyText.text(of: latin1, contentType: contentType), "café", contentType)
        }
        XCTAssertEqual(BodyText.charset(of: "text/plain; charset=utf-8; charset=latin1"), "utf-8", "the first one")
        XCTAssertEqual(BodyText.charset(of: "text/plain"), nil)
        XCTAssertEqual(BodyText.charset(of: "text/plain; charset"), nil)
    }

    func testAClientReadsAJournalEntrysTextByItsCharset() throws {
        let json = #"{"headers":{"Content-Type":"text/plain; charset=latin1"},"bodyBase64":"Y2Fm6Q==","bodySize":4,"bodyTruncated":false}"#
        let message = try JSONDecoder().decode(CatbirdRequest.Message.self, from: Data(json.utf8))
        XCTAssertEqual(message.bodyText, "café")
        let encoded = try XCTUnwrap(String(data: try JSONEncoder().encode(message), encoding: .utf8))
        XCTAssertTrue(encoded.contains(#""body":"café""#), encoded)
    }
}
