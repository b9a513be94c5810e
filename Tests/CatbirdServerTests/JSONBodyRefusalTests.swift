import CatbirdHTTP
@testable import CatbirdServer
import CatbirdWire
import XCTest

/// ``JSONBody/read(_:from:shapeHint:describe:)`` says whether a refused control body was read as
/// JSON (``JSONBodyRefusal``): what `POST /catbird/api/mocks` looks at again for a WireMock or
/// MockServer shape only when it was (ForeignStubShapeTests has the answers over loopback).
final class JSONBodyRefusalTests: XCTestCase {
    private func refusal(_ body: String, contentType: String = "application/json") -> JSONBodyRefusal? {
        let request = HTTPRequest(
            method: "POST", target: "/catbird/api/mocks", headers: ["Content-Type": contentType], body: Array(body.utf8))
        do {
            _ = try JSONBody.read(CatbirdAction.self, from: request)
            return nil
        } catch {
            return error
        }
    }

    /// A body over the value limit, not JSON by RFC 8259, with a value no decoder holds, nested
    /// past 512 levels, or not declared JSON was not read as JSON; one of the wrong shape, with an
    /// unknown or repeated key, a number past 64 bits or a key twice was. The reasons are
    /// ``JSONBody/decode(_:from:shapeHint:describe:)``'s, unchanged.
    func testEachRefusalSaysWhetherTheBodyWasReadAsJSON() throws {
        let stub = #"{"request":{"url":"/a"},"response":{"status":200}}"#
        let unreadable: [(label: String, body: String, contentType: String, status: Int)] = [
            ("more than 100,000 values", #"{"type":"removeAll","x":["# + String(repeating: "0,", count: 100_000) + "0]}", "application/json", 400),
            ("a trailing comma", #"{"request":{"url":"/a"},"response":{"status":200},}"#, "application/json", 400),
            ("a lone surrogate", #"{"request":{"url":"/a\ud800"}}"#, "application/json", 400),
            ("a number past a 64-bit float", #"{"type":"removeAll","x":1e400}"#, "application/json", 400),
            ("nesting past 512 levels", String(repeating: "[", count: 600) + String(repeating: "]", count: 600), "application/json", 400),
            ("a Content-Type that is not JSON", stub, "text/plain", 415),
        ]
        for (label, body, contentType, status) in unreadable {
            guard case let .unreadable(error)? = refusal(body, contentType: contentType) else {
                XCTFail("\(label): \(String(describing: refusal(body, contentType: contentType)))")
                continue
            }
            XCTAssertEqual(error.status, status, label)
        }

        let undecodable: [(label: String, body: String, reason: String)] = [
            ("a WireMock stub", stub, #"unknown key "request""#),
            ("a wrong type", #"{"type":"remove","pattern":1}"#, "pattern"),
            ("a key twice", #"{"type":"removeAll","type":"removeAll"}"#, "more than once"),
            ("a status past 64 bits",
             #"{"type":"update","pattern":{"method":"GET","url":{"kind":"equal","value":"/n"},"headers":{}},"response":{"status":99999999999999999999}}"#,
             "'response.status' (99999999999999999999) is out of range: it must be between 200 and 599"),
        ]
        for (label, body, reason) in undecodable {
            guard case let .undecodable(error)? = refusal(body) else {
                XCTFail("\(label): \(String(describing: refusal(body)))")
                continue
            }
            XCTAssertEqual(error.status, 400, label)
            XCTAssertTrue(error.reason.contains(reason), "\(label): \(error.reason)")
        }
        XCTAssertNil(refusal(#"{"type":"removeAll"}"#), "an action decodes")
    }
}
