import CatbirdSupport
import XCTest

/// RFC 9110 §5.6.2's tchar, as the bit test every field name and method is checked with.
final class TokenCharacterTests: XCTestCase {
    func testEveryByteIsATokenCharacterExactlyWhenRFC9110SaysSo() {
        let punctuation = Set("!#$%&'*+-.^_`|~".utf8)
        var tokenBytes = 0
        for byte in UInt8.min...UInt8.max {
            let expected = (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x61 && byte <= 0x7A) || (byte >= 0x30 && byte <= 0x39)
                || punctuation.contains(byte)
            XCTAssertEqual(HTTPToken.isTokenCharacter(byte), expected, "byte \(byte)")
            if expected { tokenBytes += 1 }
        }
        XCTAssertEqual(tokenBytes, 77)
        XCTAssertEqual(Set(HTTPToken.punctuation.utf8), punctuation)
    }

    func testATokenIsNotEmptyAndMadeOfTokenCharactersOnly() {
        for (text, expected) in [("X-Catbird-Parallel-Id", true), ("GET", true), ("", false), ("a b", false), ("a:b", false),
                                 ("é", false), ("a\u{7F}", false), ("~!", true)] {
            var bytes = text
            XCTAssertEqual(bytes.withUTF8 { HTTPToken.isToken($0) }, expected, text.debugDescription)
        }
    }
}
