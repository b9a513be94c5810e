import CatbirdTestSupport
import Foundation
import XCTest

/// Body `contains` over real sockets on input that a naive substring search takes
/// O(body × needle) for (docs/matching.md#body-matchers; try7b F14).
final class BodyContainsSearchTests: ServerTestCase {
    /// try7b F14: a mock `POST /c` with the body pattern `contains` `a`×10,000 + `b` and a
    /// 1,000,000-byte body of `a` took 41–219 s per request on a shared worker (a byte-by-byte
    /// search restarting at every offset); now the search is linear (memmem). The body without
    /// the needle gets 404, the same body ending in the needle gets the mock's answer.
    func testAContainsNeedleOfTenKilobytesInAMegabyteOfItsOwnPrefixIsDecidedRight() throws {
        let needle = String(repeating: "a", count: 10_000) + "b"
        let action = #"{"type":"update","pattern":{"method":"POST","url":{"kind":"equal","value":"/c"},"body":{"kind":"contains","value":"\#(needle)"}},"response":{"status":200,"body":"\#(Data("found".utf8).base64EncodedString())"}}"#
        XCTAssertEqual(try client.json("POST", "/catbird/api/mocks", action).status, 201)

        let without = [UInt8](repeating: UInt8(ascii: "a"), count: 1_000_000)
        let missed = try client.request("POST", "/c", body: without)
        XCTAssertEqual(missed.status, 404, missed.text)

        let withAtEnd = [UInt8](repeating: UInt8(ascii: "a"), count: 1_000_000 - needle.utf8.count) + Array(needle.utf8)
        XCTAssertEqual(withAtEnd.count, 1_000_000)
        let hit = try client.request("POST", "/c", body: withAtEnd)
        XCTAssertEqual(hit.status, 200)
        XCTAssertEqual(hit.text, "found")

        let cut = Array(withAtEnd.dropLast())
        XCTAssertEqual(try client.request("POST", "/c", body: cut).status, 404, "the needle less its last byte is not there")
    }
}
