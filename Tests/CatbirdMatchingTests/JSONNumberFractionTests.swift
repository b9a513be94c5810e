@testable import CatbirdSupport
import XCTest

/// ``JSONTextCheck/hasFraction(_:)``: whether a JSON number has a fractional part as written,
/// its exponent applied exactly (tester finding tester63a-F2: `45035996273704975e-1`, a fraction
/// its float lost, got past the check that looked for a `.` without an exponent).
final class JSONNumberFractionTests: XCTestCase {
    func testTheExponentIsAppliedToTheDigits() {
        let fractional = ["2.5", "-0.5", "45035996273704975e-1", "9007199254740993.5e0", "3.0000000000000000000000000000001e0", "1e-400", "25E-1"]
        let whole = ["0", "7.0", "2.50e1", "1e2", "-0.5e1", "1.25e2", "45035996273704970e-1", "0.0e-5", "12E+3"]
        for literal in fractional { XCTAssertTrue(JSONTextCheck.hasFraction(Array(literal.utf8)), literal) }
        for literal in whole { XCTAssertFalse(JSONTextCheck.hasFraction(Array(literal.utf8)), literal) }
    }
}
