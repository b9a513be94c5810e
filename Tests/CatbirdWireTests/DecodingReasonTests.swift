@_spi(Server) import CatbirdWire
import Foundation
import XCTest

/// Invalid control bodies give readable reasons naming the coding path (docs/protocol.md#errors).
final class DecodingReasonTests: XCTestCase {
    private let pattern = #""pattern":{"method":"GET","url":{"kind":"equal","value":"\/a"},"headers":{}}"#
    private let response = #""response":{"status":200,"headers":{}}"#

    /// The reason `describe` gives for `json`; fails the test when it decodes.
    private func reason(_ json: String, file: StaticString = #filePath, line: UInt = #line) -> String {
        do {
            let action = try JSONDecoder().decode(CatbirdAction.self, from: Data(json.utf8))
            XCTFail("decoded \(action)", file: file, line: line)
            return ""
        } catch let error as DecodingError {
            return error.readableReason
        } catch {
            XCTFail("not a DecodingError: \(error)", file: file, line: line)
            return ""
        }
    }

    func testMalformedJSON() {
        XCTAssertTrue(reason(#"{"type":"#).hasPrefix("malformed JSON: "))
        XCTAssertTrue(reason("").hasPrefix("malformed JSON: "))
        XCTAssertTrue(reason("type=update").hasPrefix("malformed JSON: "))
    }

    func testBodyMustBeAnObject() {
        XCTAssertEqual(reason("[]"), "the JSON body must be an object")
        XCTAssertEqual(reason(#""update""#), "the JSON body must be an object")
    }

    func testUnknownType() {
        XCTAssertEqual(reason(#"{"type":"frobnicate"}"#), #"unknown action type "frobnicate" (expected "update", "remove" or "removeAll")"#)
        do {
            _ = try JSONDecoder().decode(CatbirdAction.self, from: Data(#"{"type":"x"}"#.utf8))
            XCTFail("decoded")
        } catch {
            XCTAssertTrue(String(describing: error).contains(#"unknown action type "x""#), "\(error)")
        }
    }

    func testMissingOrMistypedType() {
        XCTAssertEqual(reason("{}"), "missing key 'type'")
        XCTAssertEqual(reason(#"{"type":1}"#), "'type' must be a string")
    }

    func testMissingPattern() {
        XCTAssertEqual(reason(#"{"type":"update",\#(response)}"#), "missing key 'pattern'")
        XCTAssertEqual(reason(#"{"type":"remove"}"#), "missing key 'pattern'")
    }

    func testMissingResponse() {
        XCTAssertEqual(reason(#"{"type":"update",\#(pattern)}"#), "missing key 'response'")
    }

    func testMissingNestedKeys() {
        XCTAssertEqual(reason(#"{"type":"remove","pattern":{"method":"GET"}}"#), "missing key 'pattern.url'")
        XCTAssertEqual(reason(#"{"type":"remove","pattern":{"url":{"kind":"equal","value":"\/"}}}"#), "missing key 'pattern.method'")
        XCTAssertEqual(reason(#"{"type":"remove","pattern":{"method":"GET","url":{"kind":"equal"}}}"#), "missing key 'pattern.url.value'")
        XCTAssertEqual(reason(#"{"type":"update",\#(pattern),"response":{"headers":{}}}"#), "missing key 'response.status'")
    }

    func testInvalidBase64Body() {
        XCTAssertEqual(reason(#"{"type":"update",\#(pattern),"response":{"status":200,"headers":{},"body":"not base64!"}}"#),
                       #"response.body is not valid base64: the body is its bytes in standard padded base64 (Catbird 0.11's format); "#
                        + #"for the text "not base64!" send "bm90IGJhc2U2NCE=""#)
        // try9a F13, the exact bodies: JSON and plain text, the first thing everyone sends.
        XCTAssertEqual(reason(#"{"type":"update",\#(pattern),"response":{"status":200,"body":"{\"a\":1}"}}"#),
                       #"response.body is not valid base64: the body is its bytes in standard padded base64 (Catbird 0.11's format); "#
                        + #"for the text "{\"a\":1}" send "eyJhIjoxfQ==""#)
        XCTAssertEqual(reason(#"{"type":"update",\#(pattern),"response":{"status":200,"body":"hello world"}}"#),
                       #"response.body is not valid base64: the body is its bytes in standard padded base64 (Catbird 0.11's format); "#
                        + #"for the text "hello world" send "aGVsbG8gd29ybGQ=""#)
        do {
            _ = try JSONDecoder().decode(ResponseMock.self, from: Data(#"{"status":200,"body":"YWI"}"#.utf8))
            XCTFail("decoded unpadded base64")
        } catch let DecodingError.dataCorrupted(context) {
            XCTAssertTrue(context.debugDescription.contains("body is not valid base64"), context.debugDescription)
        } catch {
            XCTFail("unexpected \(error)")
        }
    }

    /// Tester finding T13-F3, the exact bodies: Foundation's decoder on Linux took these and the
    /// mock served a NUL byte (`"===="`, `"========"`), `00 02` (`"AB=C"`) or `ABC`
    /// (`"QUJD===="`). Each is refused now; canonical and non-zero-pad-bit forms still decode.
    func testBase64WithPaddingOutOfPlaceIsRefused() {
        for text in ["====", "========", "AB=C", "QUJD====", "=", "==", "A===", "A=BC", "AA==AA==", "QUJD\\nQUJD", " QUJD"] {
            let json = #"{"status":200,"body":"\#(text)"}"#
            XCTAssertThrowsError(try JSONDecoder().decode(ResponseMock.self, from: Data(json.utf8)), text) { error in
                XCTAssertTrue("\(error)".contains("body is not valid base64"), "\(text): \(error)")
            }
        }
        // Wrapped base64 (GNU base64's 76 columns) is told to use one line.
        let wrapped = String(repeating: "QUJD", count: 19) + "\\n" + "QUJD"
        XCTAssertEqual(reason(#"{"type":"update",\#(pattern),"response":{"status":200,"body":"\#(wrapped)"}}"#),
                       #"response.body is not valid base64: the body is its bytes in standard padded base64 (Catbird 0.11's format) "#
                        + "on one line, without line breaks (GNU base64 wraps at 76 columns: use base64 -w0)")
        for (text, bytes) in [("QUJD", [65, 66, 67]), ("QUI=", [65, 66]), ("QQ==", [65]), ("QR==", [65]), ("", [])] as [(String, [UInt8])] {
            let json = #"{"status":200,"body":"\#(text)"}"#
            XCTAssertEqual(try JSONDecoder().decode(ResponseMock.self, from: Data(json.utf8)).body.map(Array.init), bytes, text)
        }
    }

    func testStatusAsString() {
        XCTAssertEqual(reason(#"{"type":"update",\#(pattern),"response":{"status":"200","headers":{}}}"#),
                       "'response.status' must be a number")
    }

    func testNullStatus() {
        XCTAssertEqual(reason(#"{"type":"update",\#(pattern),"response":{"status":null,"headers":{}}}"#),
                       "'response.status' must be a number, not null")
    }

    func testUnknownPatternKind() {
        XCTAssertEqual(reason(#"{"type":"remove","pattern":{"method":"GET","url":{"kind":"glob","value":"\/"}}}"#),
                       #"'pattern.url.kind' must be "equal", "wildcard" or "regexp", not "glob""#)
    }

    func testMistypedHeaders() {
        XCTAssertEqual(reason(#"{"type":"remove","pattern":{"method":"GET","url":{"kind":"equal","value":"\/"},"headers":{"X-A":"v"}}}"#),
                       #"'pattern.headers.X-A' must be an object such as {"kind": "equal", "value": "application/json"} (kinds: equal, wildcard, regexp)"#)
        XCTAssertEqual(reason(#"{"type":"update",\#(pattern),"response":{"status":200,"headers":{"X-A":1}}}"#),
                       #"'response.headers.X-A' must be a string: one string per name (Catbird 0.11's shape); "#
                        + #"to send a field twice, give its name in two spellings, {"Set-Cookie": "a=1", "set-cookie": "b=2"} (docs/protocol.md, ResponseMock)"#)
        XCTAssertEqual(reason(#"{"type":"update",\#(pattern),"response":{"status":200,"headers":[]}}"#),
                       "'response.headers' must be an object")
        XCTAssertEqual(reason(#"{"type":"update",\#(pattern),"response":{"status":200,"limit":"2"}}"#),
                       "'response.limit' must be a number")
    }

    /// Regression (tester finding tester30a-F3, its inputs): the reasons named the key but not
    /// the shape to write: a url or header pattern written as its value (WireMock and 0.11
    /// habits), a JSON response body.
    func testTheCommonShapeMistakesSayWhatToWrite() {
        XCTAssertEqual(
            reason(#"{"type":"update","pattern":{"method":"GET","url":"/a"},"response":{"status":200}}"#),
            #"'pattern.url' must be an object such as {"kind": "equal", "value": "/api/users"} (kinds: equal, wildcard, regexp)"#)
        XCTAssertEqual(
            reason(#"{"type":"update","pattern":{"method":"GET","url":{"kind":"equal","value":"/hh"},"headers":{"accept":"application/json"}},"response":{"status":200}}"#),
            #"'pattern.headers.accept' must be an object such as {"kind": "equal", "value": "application/json"} (kinds: equal, wildcard, regexp)"#)
        XCTAssertEqual(
            reason(#"{"type":"update","pattern":{"method":"GET","url":{"kind":"equal","value":"/q"}},"response":{"status":200,"body":{"a":1}}}"#),
            #"'response.body' must be a string: the body's bytes in base64 (for the JSON {"a":1} send "eyJhIjoxfQ==")"#)
    }

    // MARK: accepted variations

    func testExtraKeysAndAnyKeyOrderAreAccepted() throws {
        let json = #"{"extra":[1,2],"pattern":{"headers":{},"url":{"value":"\/a","kind":"equal"},"method":"GET"},"type":"remove"}"#
        XCTAssertEqual(try JSONDecoder().decode(CatbirdAction.self, from: Data(json.utf8)),
                       .remove(RequestPattern(method: "GET", url: .equal("/a"))))
        XCTAssertEqual(try JSONDecoder().decode(CatbirdAction.self, from: Data(#"{"type":"removeAll","pattern":5}"#.utf8)),
                       .removeAll)
    }

    func testMissingHeadersAreEmpty() throws {
        let json = #"{"type":"update","pattern":{"method":"GET","url":{"kind":"equal","value":"\/a"}},"response":{"status":204}}"#
        XCTAssertEqual(try JSONDecoder().decode(CatbirdAction.self, from: Data(json.utf8)),
                       .update(RequestPattern(method: "GET", url: .equal("/a"), headers: [:]), ResponseMock(status: 204)))
    }

    func testNullBodyIsNoBody() throws {
        let mock = try JSONDecoder().decode(ResponseMock.self, from: Data(#"{"status":200,"headers":{},"body":null,"limit":null}"#.utf8))
        XCTAssertNil(mock.body)
        XCTAssertNil(mock.limit)
    }
}
