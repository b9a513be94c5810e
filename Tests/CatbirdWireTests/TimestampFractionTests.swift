import CatbirdSupport
import XCTest

/// The fraction of a second in a timestamp (``Timestamp/date(from:)``,
/// ``Timestamp/millisecondsRoundedUp(from:)``), read once whatever its length: any number of
/// digits, fewer than three scaled up to milliseconds, more than three rounding up when any digit
/// past the millisecond is not zero (the 19th and later included: tester finding tester28a-F3,
/// 19 digits were refused as "not a UTC time"); none, an empty one or a non-digit refuse.
final class TimestampFractionTests: XCTestCase {
    private let stem = "2026-12-02T16:46:52"

    func testMillisecondsRoundedUpFromEachLengthOfFraction() throws {
        let whole = try XCTUnwrap(Timestamp.millisecondsRoundedUp(from: stem + "Z"))
        XCTAssertEqual(whole % 1000, 0)
        let cases: [(fraction: String, milliseconds: Int)] = [
            (".5", 500), (".05", 50), (".597", 597), (".5970", 597), (".5971", 598), (".597000000000000001", 598),
            (".000000000000000001", 1), (".999999999999999999", 1000), (".000", 0),
            (".0000000000000000001", 1), (".5970000000000000000000", 597), (".5970000000000000000001", 598),
            (".9999999999999999999999", 1000), (".1111111111111111111", 112),
        ]
        for (fraction, milliseconds) in cases {
            XCTAssertEqual(Timestamp.millisecondsRoundedUp(from: stem + fraction + "Z"), whole + milliseconds, fraction)
            XCTAssertEqual(Timestamp.millisecondsRoundedUp(from: stem + fraction + "+00:00"), whole + milliseconds, fraction)
        }
        for refused in [".", ".5a", ".-5", ".00000000000000000000a", ".0000000000000000000-"] {
            XCTAssertNil(Timestamp.millisecondsRoundedUp(from: stem + refused + "Z"), refused)
            XCTAssertNil(Timestamp.date(from: stem + refused + "Z"), refused)
        }
    }

    func testDateFromEachLengthOfFraction() throws {
        let whole = try XCTUnwrap(Timestamp.date(from: stem + "Z")).timeIntervalSince1970
        let cases: [(fraction: String, seconds: Double)] = [
            (".5", 0.5), (".25", 0.25), (".125", 0.125), (".0625", 0.0625), (".000000000000000001", 0), (".999999999999999999", 1),
        ]
        for (fraction, seconds) in cases {
            XCTAssertEqual(try XCTUnwrap(Timestamp.date(from: stem + fraction + "Z"), fraction).timeIntervalSince1970, whole + seconds, fraction)
        }
    }
}
