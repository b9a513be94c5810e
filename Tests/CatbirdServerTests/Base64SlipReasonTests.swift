import CatbirdTestSupport
import Foundation
import XCTest

/// A `response.body` that is base64 but for a slip (no `=` padding, base64url) is refused as
/// before, with a reason that says how to write it in standard padded base64 rather than to
/// base64-encode its text (docs/protocol.md#errors).
final class Base64SlipReasonTests: ServerTestCase {
    private static let rule = "response.body is not valid base64: the body is its bytes in standard padded base64 (Catbird 0.11's format); "

    private func reason(body: String) throws -> String {
        let answer = try client.json(
            "POST", "/catbird/api/mocks",
            #"{"type":"update","pattern":{"method":"GET","url":{"kind":"equal","value":"/b64"}},"response":{"status":200,"body":"\#(body)"}}"#)
        E2E.assertError(answer, status: 400, reasonContains: "is not valid base64")
        return answer.object["reason"] as? String ?? ""
    }

    /// Regression (tester finding T18A-F4), the exact bodies: `aGVsbG8` ("hello" without its
    /// padding) and `aGVsbG8_` (base64url) were told `for the text "aGVsbG8" send
    /// "YUdWc2JHOA=="`, which would serve the bytes `aGVsbG8`.
    func testUnpaddedAndBase64URLBodiesAreToldTheirStandardForm() throws {
        XCTAssertEqual(try reason(body: "aGVsbG8"), Self.rule + #""aGVsbG8" is base64 without its "=" padding: send "aGVsbG8=""#)
        XCTAssertEqual(
            try reason(body: "aGVsbG8_"),
            Self.rule + #""aGVsbG8_" is base64url ("-" and "_" for "+" and "/"): send it in standard base64, "aGVsbG8/""#)
        XCTAssertEqual(try reason(body: "aA"), Self.rule + #""aA" is base64 without its "=" padding: send "aA==""#)
        XCTAssertEqual(
            try reason(body: "Pz4_"), Self.rule + #""Pz4_" is base64url ("-" and "_" for "+" and "/"): send it in standard base64, "Pz4/""#)
        XCTAssertEqual(try E2E.mocks(client, tenant: nil).count, 0, "refused: nothing stored")

        let fixed = try client.json(
            "POST", "/catbird/api/mocks",
            #"{"type":"update","pattern":{"method":"GET","url":{"kind":"equal","value":"/b64"}},"response":{"status":200,"body":"aGVsbG8="}}"#)
        XCTAssertEqual(fixed.status, 201, fixed.text)
        XCTAssertEqual(try client.request("GET", "/b64").text, "hello", "the hint's form serves what was meant")
    }

    /// A word that is also unpadded base64 of bytes that are no text (`ok`: one byte 0xA2) may
    /// have been meant as text: both readings are said. A value over 64 bytes gets how to fix
    /// it, not the value again; text that is no base64 keeps the text hint.
    func testAmbiguousLongAndOrdinaryTexts() throws {
        XCTAssertEqual(
            try reason(body: "ok"),
            Self.rule + #"if "ok" is base64 without its "=" padding: send "ok=="; if it is text, for the text "ok" send "b2s=""#)
        let long = String(repeating: "eHh4", count: 20) + "eA"
        XCTAssertEqual(try reason(body: long), Self.rule + #"this is base64 without its "=" padding: add "==" at its end"#)
        XCTAssertEqual(
            try reason(body: String(repeating: "Pz4_", count: 20)),
            Self.rule + #"this is base64url ("-" and "_" for "+" and "/"): send it in standard base64, "+" for "-", "/" for "_", "#
                + #"and "=" padding to a multiple of 4 characters"#)
        XCTAssertEqual(try reason(body: "hello"), Self.rule + #"for the text "hello" send "aGVsbG8=""#)
        XCTAssertEqual(try reason(body: "a-b+c"), Self.rule + #"for the text "a-b+c" send "YS1iK2M=""#)
    }

    /// Tester finding tester44b-F4, the exact bodies: base64 but for a stray space or tab, one
    /// `=` too many, or two encoded pieces glued together was told to encode its text again
    /// (`for the text " aGk=" send "IGFHaz0="`), which would serve the base64 characters. Each
    /// is now told its standard form; text with a space that is no base64 keeps the text hint.
    func testBase64WithSpacesExtraPaddingOrTwoPiecesIsToldItsStandardForm() throws {
        XCTAssertEqual(
            try reason(body: " aGk="), Self.rule + #"" aGk=" holds a space at byte 0, and base64 has none: without its spaces and tabs, send "aGk=""#)
        XCTAssertEqual(
            try reason(body: "aG k="), Self.rule + #""aG k=" holds a space at byte 2, and base64 has none: without its spaces and tabs, send "aGk=""#)
        XCTAssertEqual(
            try reason(body: #"aGk=\t"#),
            Self.rule + #""aGk=\t" holds a tab at byte 4, and base64 has none: without its spaces and tabs, send "aGk=""#)
        XCTAssertEqual(try reason(body: "aGk=="), Self.rule + #""aGk==" has more "=" padding than its last group takes: send "aGk=""#)
        XCTAssertEqual(
            try reason(body: "aGk=aGk="), Self.rule + #""aGk=aGk=" is 2 padded base64 values one after another: for their bytes together send "aGloaQ==""#)
        XCTAssertEqual(try reason(body: "hello world"), Self.rule + #"for the text "hello world" send "aGVsbG8gd29ybGQ=""#)
        // tester45a-F6: two or more extra "=", and a space between glued values, fell back to the text hint.
        XCTAssertEqual(try reason(body: "aGk==="), Self.rule + #""aGk===" has more "=" padding than its last group takes: send "aGk=""#)
        XCTAssertEqual(try reason(body: "YQ==="), Self.rule + #""YQ===" has more "=" padding than its last group takes: send "YQ==""#)
        XCTAssertEqual(
            try reason(body: "aGk= aGk="),
            Self.rule + #""aGk= aGk=" holds a space at byte 4, and base64 has none: without its spaces and tabs, send "aGloaQ==""#)
        XCTAssertEqual(try E2E.mocks(client, tenant: nil).count, 0, "refused: nothing stored")
    }
}
