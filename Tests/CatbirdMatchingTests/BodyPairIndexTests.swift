import CatbirdSupport
import CatbirdTestSupport
import Foundation
import XCTest
@testable import CatbirdMatching

/// A body's pair index (``BodyPairIndex``) answers `contains` exactly as a search of the body
/// does, or leaves the needle to the search: checked on bodies over small alphabets (pairs that
/// occur everywhere, needles that occur late, overlap, or almost occur) against ``ByteSearch``.
final class BodyPairIndexTests: XCTestCase {
    func testLookUpsAgreeWithASearchOfTheBody() throws {
        var random = SeededRandom(seed: 11)
        var lookedUp = 0
        for round in 0..<300 {
            let alphabet = Array("ab\"{}:,0123456789".utf8.prefix(2 + round % 16))
            let body = (0..<random.below(3000)).map { _ in random.pick(alphabet) }
            let index = body.withUnsafeBufferPointer { BodyPairIndex($0) }
            for _ in 0..<40 {
                var needle = (0..<(2 + random.below(12))).map { _ in random.pick(alphabet) }
                if !body.isEmpty, random.chance(40) {  // a piece of the body, perhaps changed at its end
                    let start = random.below(body.count)
                    needle = Array(body[start..<min(body.count, start + 2 + random.below(12))])
                    if random.chance(50), let last = needle.last { needle[needle.count - 1] = last == alphabet[0] ? alphabet[1] : alphabet[0] }
                }
                guard needle.count >= 2 else { continue }
                let expected = ByteSearch.contains(needle, in: body)
                let looked = needle.withUnsafeBufferPointer { needle in body.withUnsafeBufferPointer { index.contains(needle, in: $0) } }
                if let looked {
                    lookedUp += 1
                    XCTAssertEqual(looked.found, expected, "needle \(needle) in a body of \(body.count) bytes")
                }
            }
        }
        XCTAssertGreaterThan(lookedUp, 3000, "most needles are looked up, not left to the search")
    }

    /// The finding's shape: 1,000 needles `"orderId":"<6 digits>"` against a 60 KB JSON-like body
    /// that holds the last one: each is looked up, and only the last is found.
    func testTheFindingsNeedlesAreLookedUp() throws {
        var random = SeededRandom(seed: 1)
        let filler = (0..<60000).map { _ in random.pick(Array("abcdefghij0123456789\"{}:,".utf8)) }
        let body = filler + Array(#""orderId":"000999""#.utf8)
        let index = body.withUnsafeBufferPointer { BodyPairIndex($0) }
        var found: [Int] = []
        for number in 0..<1000 {
            let needle = Array(#""orderId":"\#(String(format: "%06d", number))""#.utf8)
            let looked = try XCTUnwrap(needle.withUnsafeBufferPointer { needle in body.withUnsafeBufferPointer { index.contains(needle, in: $0) } })
            XCTAssertLessThan(looked.work, body.count / 10, "a look-up reads a small part of what a search would")
            if looked.found { found.append(number) }
        }
        XCTAssertEqual(found, [999])
    }
}
