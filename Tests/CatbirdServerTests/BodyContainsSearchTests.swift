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

        // Reads give up a little after the bound, so a slow search fails below by name.
        let client = try RawHTTPClient(port: server.port, timeoutSeconds: Int(Self.bound.components.seconds) + 5)
        let without = [UInt8](repeating: UInt8(ascii: "a"), count: 1_000_000)
        let missed = try timed { try client.request("POST", "/c", body: without) }
        XCTAssertEqual(missed.status, 404, missed.text)

        let withAtEnd = [UInt8](repeating: UInt8(ascii: "a"), count: 1_000_000 - needle.utf8.count) + Array(needle.utf8)
        XCTAssertEqual(withAtEnd.count, 1_000_000)
        let hit = try timed { try client.request("POST", "/c", body: withAtEnd) }
        XCTAssertEqual(hit.status, 200)
        XCTAssertEqual(hit.text, "found")

        let cut = Array(withAtEnd.dropLast())
        XCTAssertEqual(try timed { try client.request("POST", "/c", body: cut) }.status, 404, "the needle less its last byte is not there")
    }

    /// The longest a request here may take: 10 s. Generous (the linear search decides a
    /// megabyte in milliseconds; sending it takes longer on a loaded machine) but a quarter of
    /// the fastest answer of the byte-by-byte search (41 s).
    private static let bound = Duration.seconds(10)

    /// `send`'s answer, asserting it came within ``bound`` (also when the read gave up first).
    private func timed(_ send: () throws -> RawResponse, line: UInt = #line) throws -> RawResponse {
        let clock = ContinuousClock()
        let start = clock.now
        defer {
            let took = start.duration(to: clock.now)
            XCTAssertLessThan(took, Self.bound, "a 1 MB body searched for a 10 KB needle took \(took): the search is not linear", line: line)
        }
        return try send()
    }
}
