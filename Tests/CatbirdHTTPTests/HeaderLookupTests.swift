import CatbirdHTTP
import XCTest

/// ``HTTPHeaders/Lookup`` answers every name exactly as ``HTTPHeaders/first(_:)`` does, by a
/// search and from its index (built at the second lookup of a request of more than
/// ``HTTPHeaders/Lookup/linearLimit`` fields): ASCII case folded, nothing else; the first of
/// repeated fields; names of 8 and 16 bytes (whole words of the index's hash) and longer.
final class HeaderLookupTests: XCTestCase {
    private static let names = [
        "Accept", "ACCEPT", "accept", "X-Key-1234", "x-key-1234", "X-KEY-1234", "Content-Type", "abcdefgh", "ABCDEFGH",
        "abcdefghijklmnop", "ABCDEFGHIJKLMNOP", "abcdefghijklmnopq", "Ärger", "ärger", "ÄRGER", "Straße", "STRASSE", "", "a", "A",
        "X-Missing", "x-catbird-parallel-id", "X-Other-7", "x-other-70", "X-Dup",
    ]

    private func headers(count: Int) -> HTTPHeaders {
        var headers = HTTPHeaders([("X-Dup", "first"), ("x-dup", "second"), ("Ärger", "upper umlaut"), ("ärger", "lower umlaut")])
        headers.add(name: "ABCDEFGH", value: "8 bytes")
        headers.add(name: "abcdefghijklmnop", value: "16 bytes")
        headers.add(name: "Straße", value: "eszett")
        headers.add(name: "a", value: "one byte")
        var index = 0
        while headers.fields.count < count {
            headers.add(name: index == 2 ? "x-key-1234" : "X-Other-\(index)", value: "v\(index)")
            index += 1
        }
        headers.add(name: "X-KEY-1234", value: "later")
        headers.add(name: "accept", value: "*/*")
        headers.add(name: "X-DUP", value: "third")
        return headers
    }

    func testEveryNameGetsWhatFirstSaysByASearchAndFromTheIndex() {
        for count in [0, 5, HTTPHeaders.Lookup.linearLimit - 3, HTTPHeaders.Lookup.linearLimit, 300] {
            let headers = headers(count: count)
            var lookup = HTTPHeaders.Lookup(headers)
            // Twice over: the first lookup searches, the later ones read the index (when built).
            for round in 0..<2 {
                for name in Self.names {
                    XCTAssertEqual(lookup.first(name), headers.first(name), "\(count) fields, round \(round), \(name)")
                }
            }
        }
        let headers = headers(count: 300)
        var lookup = HTTPHeaders.Lookup(headers)
        XCTAssertEqual(lookup.first("x-dup"), "first")
        XCTAssertEqual(lookup.first("X-Key-1234"), "v2", "the first of repeated names, whatever their case")
        XCTAssertEqual(lookup.first("ärger"), "lower umlaut", "only A-Z are folded")
        XCTAssertEqual(lookup.first("STRASSE"), nil)
        XCTAssertEqual(lookup.first("x-other-200"), "v200")
    }
}
