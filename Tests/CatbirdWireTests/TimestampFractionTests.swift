import CatbirdSupport
import XCTest

/// The fraction of a second in a timestamp (``Timestamp/date(from:)``,
/// ``Timestamp/millisecondsRoundedUp(from:)``), read once whatever its length: 1 to 18 digits,
/// fewer than three scaled up to milliseconds, more than three rounding up when any digit past
/// the millisecond is not zero; none, an empty one, 19 digits or a non-digit refuse.
final class TimestampFractionTests: XCTestCase {
    private let stem = "2026-12-02T16:46:52"

    func testMillisecondsRoundedUpFromEachLengthOfFraction() throws {
        let whole = try XCTUnwrap(Timestamp.millisecondsRoundedUp(from: stem + "Z"))
        XCTAssertEqual(whole % 1000, 0)
        let cases: [(fraction: String, milliseconds: Int)] = [
            (".5", 500), (".05", 50), (".597", 597), (".5970", 597), (".5971", 598), (".597000000000000001", 598),
            (".000000000000000001", 1), (".999999999999999999", 1000), (".000", 0),
        ]
        for (fraction, milliseconds) in cases {
            XCTAssertEqual(Timestamp.millisecondsRoundedUp(from: stem + fraction + "Z"), whole + milliseconds, fraction)
            XCTAssertEqual(Timestamp.millisecondsRoundedUp(from: stem + fraction + "+00:00"), whole + milliseconds, fraction)
        }
        for refused in [".", ".0000000000000000001", ".5a", ".-5"] {
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
