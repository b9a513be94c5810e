import CatbirdSupport
import XCTest

/// ``ASCIIByte``'s classes, which the JSON parsers, percent-decoding and `--redirect-url`'s
/// check share, against Foundation's own reading of every byte: only ASCII belongs.
final class ASCIIByteTests: XCTestCase {
    func testHexDigitsAndTheirValuesForEveryByte() {
        for byte in UInt8.min...UInt8.max {
            let expected = byte < 0x80 ? UInt8(String(UnicodeScalar(byte)), radix: 16) : nil
            XCTAssertEqual(ASCIIByte.hexValue(byte), expected, "byte \(byte)")
            XCTAssertEqual(ASCIIByte.isHexDigit(byte), expected != nil, "byte \(byte)")
            XCTAssertEqual(ASCIIByte.isDigit(byte), (0x30...0x39).contains(byte), "byte \(byte)")
        }
    }
}
