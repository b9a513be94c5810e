import CatbirdMatching
@_spi(Server) import CatbirdWire
import XCTest

/// ``PatternIndex`` and ``LiteralRequirement``: whatever the index says, every pattern that
/// matches a target is among its candidates, in position order, each once.
final class PatternIndexTests: XCTestCase {
    func testEveryMatchingPatternIsACandidateInPositionOrder() throws {
        var random = RandomPatterns(seed: 7)
        var patterns: [(entry: PatternIndex.Entry, pattern: CompiledPatternMatch)] = []
        var index = PatternIndex()
        var position: Int64 = 0
        while patterns.count < 600 {
            let source: PatternMatch = random.chance(50) ? .wildcard(random.wildcard()) : .regexp(random.regularExpression())
            guard let compiled = try? CompiledPatternMatch(source) else { continue }
            position += Int64(1 + random.below(3))
            let entry = PatternIndex.Entry(position: position, id: 1000 + position)
            patterns.append((entry, compiled))
            index.insert(entry, requirement: compiled.requirement)
        }
        // Remove some, so removal is checked too.
        for _ in 0..<100 {
            let victim = patterns.remove(at: random.below(patterns.count))
            index.remove(id: victim.entry.id)
        }
        var matched = 0
        var pruned = 0
        for round in 0..<1500 {
            let near = patterns[random.below(patterns.count)].pattern.source
            let target = switch round % 3 {
            case 0: random.subject()
            case 1: near.kind == .wildcard ? random.subject(near: near.value) : random.subject(nearExpression: near.value)
            default: "/api/users/\(random.below(100))?q=\(random.pick(["a", "B", "é"]))"
            }
            let candidates = index.candidates(for: target)
            XCTAssertEqual(candidates, candidates.sorted(), "ascending position for \(target.debugDescription)")
            XCTAssertEqual(Set(candidates).count, candidates.count, "each once for \(target.debugDescription)")
            let candidateIDs = Set(candidates.map(\.id))
            for (entry, pattern) in patterns where pattern.matches(target) {
                matched += 1
                XCTAssertTrue(candidateIDs.contains(entry.id),
                              "\(pattern.source) matches \(target.debugDescription) but the index left it out (requirement \(pattern.requirement))")
            }
            pruned += patterns.count - candidates.count
        }
        print("index: \(matched) matches checked, \(pruned) pattern tries saved")
        XCTAssertGreaterThan(matched, 1000)
        XCTAssertGreaterThan(pruned, 100_000, "the index should leave most patterns out")
    }

    func testIndexKeepsOnlyPatternsThatCanMatch() throws {
        var index = PatternIndex()
        var wildcards: [Int64: CompiledPatternMatch] = [:]
        for n in 0..<1000 {
            let pattern = try CompiledPatternMatch(n.isMultiple(of: 2) ? .wildcard("/w/\(n)/*") : .regexp("^/r/\(n)/[0-9]+$"))
            wildcards[Int64(n)] = pattern
            index.insert(PatternIndex.Entry(position: Int64(n), id: Int64(n)), requirement: pattern.requirement)
        }
        XCTAssertEqual(index.candidates(for: "/w/998/x").map(\.id), [998])
        XCTAssertEqual(index.candidates(for: "/R/999/12").map(\.id), [999])
        XCTAssertEqual(index.candidates(for: "/nothing/here"), [])
        XCTAssertEqual(index.candidates(for: "/w/é").count, 1000, "a non-ASCII target is tried against every pattern")
    }

    func testRequirementsReadFromExpressions() {
        func requirement(_ expression: String) -> (String, String) {
            let read = LiteralRequirement(regularExpression: expression)
            return (String(decoding: read.prefix, as: UTF8.self), String(decoding: read.infix, as: UTF8.self))
        }
        XCTAssertTrue(requirement("^/API/users/[0-9]+$") == ("/api/users/", "/api/users/"))
        XCTAssertTrue(requirement("users/\\d+") == ("", "users/"))
        XCTAssertTrue(requirement("^/abc?d") == ("/ab", "/ab"), "an optional character is not required")
        XCTAssertTrue(requirement("^/ab+c") == ("/ab", "/ab"))
        XCTAssertTrue(requirement("^/a{2}x") == ("/", "/"))
        XCTAssertTrue(requirement("^\\/search\\?q\\=.*$") == ("/search?q=", "/search?q="))
        XCTAssertTrue(requirement("^foo(bar|b.*z)$") == ("foo", "foo"))
        XCTAssertTrue(requirement("x(ab)*longer") == ("", "longer"))
        XCTAssertTrue(requirement("[]a]bcd") == ("", ""), "a set that may start with ] is not read")
        // A leading (?i) changes nothing (matching is case-insensitive anyway), nor does a leading
        // (?-i) (it matches a subset: the WireMock translation's urlPath, T18A-F2); other flags do.
        XCTAssertTrue(requirement("(?i)^/abc") == ("/abc", "/abc"))
        XCTAssertTrue(requirement("(?-i)^/API/feed(\\?.*)?$") == ("/api/feed", "/api/feed"))
        for unsure in ["^/a|/b", "(?x)^/abc", "^(?i)/abc", "^(?-i)/abc", "(?-i)(?i)^/abc", "^\\x41bc", "^\\QA.B\\E", "^/a\\p{L}bc", "a)b"] {
            XCTAssertTrue(requirement(unsure) == ("", ""), unsure)
        }
    }
}
