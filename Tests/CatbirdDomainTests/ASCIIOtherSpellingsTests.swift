@testable import CatbirdDomain
import XCTest

/// `JournalPatternSQL.asciiWithOtherSpellings` lets an ASCII `equal` url be compared by bytes
/// alone when it holds none of `K`, `;` and `` ` `` (try7b F4). That holds only while no other
/// scalar is canonically equivalent to ASCII text under this toolchain's `String` `==`: every
/// assigned scalar outside ASCII is compared with every ASCII text of one and two characters.
final class ASCIIOtherSpellingsTests: XCTestCase {
    func testOnlyKelvinSignGreekQuestionMarkAndVariaEqualASCIIText() {
        var asciiTexts: [String: [UInt8]] = [:]
        for first in UInt8(0)..<0x80 {
            asciiTexts[String(decoding: [first], as: UTF8.self)] = [first]
            for second in UInt8(0)..<0x80 { asciiTexts[String(decoding: [first, second], as: UTF8.self)] = [first, second] }
        }
        var found: [UInt32: [UInt8]] = [:]
        for value in UInt32(0x80)...0x10FFFF {
            guard let scalar = Unicode.Scalar(value) else { continue }  // surrogates
            switch scalar.properties.generalCategory {
            case .unassigned, .privateUse: continue
            default: break
            }
            if let ascii = asciiTexts[String(scalar)] { found[value] = ascii }
        }
        XCTAssertEqual(found, [0x212A: Array("K".utf8), 0x37E: Array(";".utf8), 0x1FEF: Array("`".utf8)])
        XCTAssertEqual(
            JournalPatternSQL.asciiWithOtherSpellings, Set(found.values.flatMap { $0 }),
            "the characters JournalPatternSQL hands to the Swift matcher")
    }
}
