import CatbirdSupport
import XCTest

/// ``ASCIICase/find(_:in:anchoredStart:anchoredEnd:)`` for literals over 8 bytes in subjects over
/// 1,024 bytes, searched in linear time (try7b F14's shape: a needle `a…ab` in a run of `a`),
/// against the plain definition: the literal occurs in the subject with ASCII capitals lowered.
final class ASCIICaseSearchTests: XCTestCase {
    private func reference(_ literal: [UInt8], _ subject: [UInt8]) -> Bool {
        let lowered = subject.map(ASCIICase.lower)
        guard lowered.count >= literal.count else { return false }
        return (0...(lowered.count - literal.count)).contains { Array(lowered[$0..<($0 + literal.count)]) == literal }
    }

    private func find(_ literal: [UInt8], _ subject: [UInt8]) -> Bool {
        subject.withUnsafeBufferPointer { ASCIICase.find(literal, in: $0) }
    }

    func testASelfSimilarNeedleIsFoundOnlyWhereItIsWithCapitalsFolded() {
        let literal = Array(repeating: UInt8(ascii: "a"), count: 10_000) + [UInt8(ascii: "b")]
        let run = [UInt8](repeating: UInt8(ascii: "A"), count: 100_000)
        XCTAssertFalse(find(literal, run))
        XCTAssertTrue(find(literal, run + [UInt8(ascii: "B")]), "capitals folded, found at the end")
        XCTAssertFalse(find(literal, run + [UInt8(ascii: "c")]))
    }

    func testGeneratedSubjectsAgreeWithTheDefinition() {
        var generator = SystemRandomNumberGenerator()
        let alphabet = Array("aAbB-é".utf8)
        for _ in 0..<200 {
            let subject = (0..<Int.random(in: 1_025...1_400, using: &generator)).map { _ in alphabet.randomElement(using: &generator)! }
            let start = Int.random(in: 0..<(subject.count - 40), using: &generator)
            var literal = subject[start..<(start + Int.random(in: 9...40, using: &generator))].map(ASCIICase.lower)
            if Bool.random(using: &generator) { literal[Int.random(in: 0..<literal.count, using: &generator)] = UInt8(ascii: "z") }
            XCTAssertEqual(find(literal, subject), reference(literal, subject), "\(literal) in \(subject)")
        }
    }
}
