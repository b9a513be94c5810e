@testable import CatbirdHTTP
import XCTest

/// RFC 9110 §14 byte ranges and §13.1.5 `If-Range` as ``ByteRanges`` reads them
/// (docs/files.md#byte-ranges); the server's answers are checked over loopback in
/// CatbirdServerTests' ByteRangeServingTests.
final class ByteRangesTests: XCTestCase {
    private func outcome(_ range: String?, ifRange: String? = nil, etag: String? = "\"t1\"", lastModified: String? = nil, length: Int = 10)
        -> ByteRanges.Outcome {
        ByteRanges.outcome(range: range, ifRange: ifRange, entityTag: etag, lastModified: lastModified, length: length)
    }

    func testSingleRangesOfTheThreeForms() {
        XCTAssertEqual(outcome("bytes=0-1", length: 300_000), .part(0..<2), "AVPlayer's first request (try8a F7)")
        XCTAssertEqual(outcome("bytes=2-"), .part(2..<10))
        XCTAssertEqual(outcome("bytes=-3"), .part(7..<10))
        XCTAssertEqual(outcome("bytes=-30"), .part(0..<10), "a suffix longer than the body is all of it")
        XCTAssertEqual(outcome("bytes=4-400"), .part(4..<10), "last-pos past the end is cut to it")
        XCTAssertEqual(outcome("BYTES=9-9"), .part(9..<10), "the unit is case-insensitive")
        XCTAssertEqual(outcome(" bytes=1-2 , "), .part(1..<3), "whitespace and empty list elements")
        XCTAssertEqual(outcome("bytes=0-99999999999999999999999"), .part(0..<10), "a number past Int is past any length")
    }

    func testUnsatisfiableRanges() {
        XCTAssertEqual(outcome("bytes=10-"), .unsatisfiable)
        XCTAssertEqual(outcome("bytes=10-20, 30-40"), .unsatisfiable)
        XCTAssertEqual(outcome("bytes=-0"), .unsatisfiable)
        XCTAssertEqual(outcome("bytes=0-0", length: 0), .unsatisfiable, "no first-pos is before an empty body's end")
        XCTAssertEqual(outcome("bytes=99999999999999999999999-"), .unsatisfiable)
    }

    func testIgnoredRangesAnswerTheWhole() {
        for ignored in ["bytes=5-2", "items=0-1", "bytes=a-b", "bytes=", "bytes=1", "bytes=--1", "0-1", "bytes=1-2-3", "bytes=+1-2"] {
            XCTAssertEqual(outcome(ignored), .whole, ignored)
        }
        XCTAssertEqual(outcome(nil), .whole)
        XCTAssertEqual(outcome("bytes=0-1,5-6"), .whole, "several ranges: the whole body (200), which RFC 9110 §14.2 allows")
        XCTAssertEqual(outcome("bytes=0-1,50-60"), .whole, "one of several satisfiable: still whole")
        XCTAssertEqual(outcome("bytes=-5", length: 0), .whole, "a suffix of an empty body")
    }

    func testIfRange() {
        XCTAssertEqual(outcome("bytes=0-1", ifRange: "\"t1\""), .part(0..<2), "the same strong tag")
        XCTAssertEqual(outcome("bytes=0-1", ifRange: "\"t2\""), .whole, "another tag: the whole current body")
        XCTAssertEqual(outcome("bytes=0-1", ifRange: "W/\"t1\""), .whole, "a weak tag never matches (strong comparison)")
        XCTAssertEqual(outcome("bytes=0-1", ifRange: "\"t1\"", etag: "W/\"t1\""), .whole, "nor does a weak ETag")
        XCTAssertEqual(outcome("bytes=0-1", ifRange: "\"t1\"", etag: nil), .whole, "no ETag to compare")
        let date = "Wed, 02 Dec 2026 03:00:00 GMT"
        XCTAssertEqual(outcome("bytes=0-1", ifRange: date, lastModified: date), .part(0..<2), "the Last-Modified date exactly")
        XCTAssertEqual(outcome("bytes=0-1", ifRange: date, lastModified: nil), .whole, "a date with no Last-Modified")
        XCTAssertEqual(outcome("bytes=10-", ifRange: "\"t2\""), .whole, "an If-Range that fails makes even an unsatisfiable range whole")
    }

    func testContentRangeFields() {
        XCTAssertEqual(ByteRanges.contentRange(0..<2, length: 300_000), "bytes 0-1/300000")
        XCTAssertEqual(ByteRanges.unsatisfiedRange(length: 300_000), "bytes */300000")
    }
}
