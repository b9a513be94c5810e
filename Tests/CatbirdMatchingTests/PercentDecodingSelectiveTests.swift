import CatbirdSupport
import XCTest

/// ``PercentDecoding/bytes(_:decoding:uppercasingKept:stray:)``, the one pass behind the normal
/// form of a control path and a recording's target (RFC 3986 §6.2.2) and the 404's
/// percent-encoding hints.
final class PercentDecodingSelectiveTests: XCTestCase {
    private func text(_ bytes: [UInt8]?) -> String? { bytes.map { String(decoding: $0, as: UTF8.self) } }

    func testTheNormalFormDecodesUnreservedCharactersOnly() {
        XCTAssertEqual(text(PercentDecoding.normalizedEscapes("/catbird/api/%72equests/%7e%2f%2F%41%")), "/catbird/api/requests/~%2F%2FA%")
        XCTAssertEqual(text(PercentDecoding.normalizedEscapes("%zz%4")), "%zz%4")
    }

    func testBytesPastASCIIDecodedTheRestKeptAsWritten() {
        let decoded = PercentDecoding.bytes("/caf%c3%a9?q=%2f%e", decoding: { $0 >= 0x80 }, uppercasingKept: false, stray: .kept)
        XCTAssertEqual(text(decoded), "/café?q=%2f%e")
    }

    func testAStrayPercentRefusedWhenAsked() {
        XCTAssertNil(PercentDecoding.bytes("/a%zz", decoding: { _ in true }, uppercasingKept: true, stray: .refused))
        XCTAssertNil(PercentDecoding.bytes("/a%4", decoding: { _ in true }, uppercasingKept: true, stray: .refused))
        XCTAssertEqual(text(PercentDecoding.bytes("/a%41%2b", decoding: { $0 != UInt8(ascii: "+") }, uppercasingKept: true, stray: .refused)), "/aA%2B")
    }
}
