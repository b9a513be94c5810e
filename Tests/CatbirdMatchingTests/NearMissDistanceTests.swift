import CatbirdMatching
import CatbirdTestSupport
@_spi(Server) import CatbirdWire
import XCTest

/// The near-miss distance's parts (docs/matching.md#near-misses): the bit-parallel edit
/// distance against a plain dynamic-programming Levenshtein over bytes, and the byte-class
/// bounds the ranking skips mocks by, which must never exceed the distance they bound.
final class NearMissDistanceTests: XCTestCase {
    /// Text of URL bytes, a few odd ones and non-ASCII, `length` bytes at most.
    private func text(_ random: inout RandomPatterns, length: Int) -> String {
        var scalars = ""
        while scalars.utf8.count < length {
            scalars += random.pick(["a", "b", "s", "S", "/", "/", "1", "9", "?", "=", "-", "é", "🐈", "x", "api", "users"])
        }
        return String(decoding: Array(scalars.utf8.prefix(length)), as: UTF8.self)
    }

    func testTheBitParallelDistanceIsLevenshteinOverBytesForShortAndLongTargets() {
        var random = RandomPatterns(seed: 11)
        for round in 0..<500 {
            // Lengths around the one-word (64) and two-word (128) limits, and beyond the cut.
            let lengths = [0, 1, 2, 5, 13, 40, 63, 64, 65, 100, 127, 128, 129, 200]
            let target = text(&random, length: round % 3 == 0 ? random.pick(lengths) : random.below(30))
            let other = Array(text(&random, length: round % 5 == 0 ? random.pick(lengths) : random.below(30)).utf8.prefix(128))
            let probe = EditDistanceProbe(target, limit: 128)
            XCTAssertEqual(probe.distance(to: other), referenceLevenshtein(Array(target.utf8.prefix(128)), other), "\(target) → \(other)")
        }
        XCTAssertEqual(EditDistanceProbe("/api/usres", limit: 128).distance(to: Array("/api/users".utf8)), 2)
        XCTAssertEqual(EditDistanceProbe("", limit: 128).distance(to: Array("/abc".utf8)), 4)
        XCTAssertEqual(EditDistanceProbe("/abc", limit: 128).distance(to: []), 4)
    }

    func testTheByteClassBoundsNeverExceedTheDistanceOfAnyPatternTheyCover() {
        var random = RandomPatterns(seed: 12)
        for _ in 0..<200 {
            let probe = NearMissProbe(method: "GET", target: text(&random, length: 1 + random.below(90)))
            let block = (0..<(1 + random.below(16))).map { _ in Array(text(&random, length: random.below(140)).utf8.prefix(128)) }
            let union = block.map(ByteHistogram.init).reduce(ByteHistogram.empty) { $0.union($1) }
            let shortest = block.map(\.count).min() ?? 0
            let blockBound = probe.urlDistanceBound(classes: union, shortest: shortest)
            for url in block {
                let exact = CompiledRequestPattern.urlDistance(
                    edits: probe.url.distance(to: url), longer: max(url.count, probe.url.bytes.count))
                let own = probe.urlDistanceBound(classes: ByteHistogram(url), shortest: url.count)
                XCTAssertLessThanOrEqual(own, exact, "\(probe.target) → \(String(decoding: url, as: UTF8.self))")
                XCTAssertLessThanOrEqual(blockBound, own)
            }
        }
    }

    private func longestCommonSubsequence(_ a: [UInt8], _ b: [UInt8]) -> Int {
        var previous = [Int](repeating: 0, count: b.count + 1)
        for x in a {
            var current = [0]
            for (j, y) in b.enumerated() { current.append(x == y ? previous[j] + 1 : max(previous[j + 1], current[j])) }
            previous = current
        }
        return previous[b.count]
    }

    private func isSubsequence(_ small: [UInt8], of large: [UInt8]) -> Bool {
        var rest = small[...]
        for byte in large where rest.first == byte { rest = rest.dropFirst() }
        return rest.isEmpty
    }

    func testTheBitParallelLongestCommonSubsequenceAndTheSupersequenceBoundOfABlock() {
        var random = RandomPatterns(seed: 13)
        for round in 0..<80 {
            let target = text(&random, length: round % 4 == 0 ? 60 + random.below(69) : 1 + random.below(30))
            let probe = NearMissProbe(method: "GET", target: target)
            let block = (0..<(1 + random.below(8))).map { _ in Array(text(&random, length: random.below(30)).utf8) }
            for url in block {
                XCTAssertEqual(probe.url.longestCommonSubsequence(with: url), longestCommonSubsequence(probe.url.bytes, url))
            }
            guard let supersequence = CommonSupersequence.of(block) else { continue }
            XCTAssertTrue(block.allSatisfy { isSubsequence($0, of: supersequence) })
            let bound = probe.urlDistanceBound(supersequence: supersequence, shortest: block.map(\.count).min() ?? 0)
            for url in block {
                let exact = CompiledRequestPattern.urlDistance(
                    edits: probe.url.distance(to: url), longer: max(url.count, probe.url.bytes.count))
                XCTAssertLessThanOrEqual(bound, exact, "\(target) → \(String(decoding: url, as: UTF8.self))")
            }
        }
        XCTAssertNil(CommonSupersequence.of([[UInt8]](repeating: [], count: 1) + (0..<20).map { [UInt8](repeating: UInt8($0), count: 20) }))
    }

    func testTheMethodBoundAssumesADifferenceOnlyBetweenKnownMethods() {
        let get = NearMissProbe(method: "GET", target: "/")
        XCTAssertEqual(get.methodDistanceBound(NearMissProbe.methodKey("GET")), 0)
        XCTAssertEqual(get.methodDistanceBound(NearMissProbe.methodKey("POST")), 1)
        XCTAssertEqual(get.methodDistanceBound(NearMissProbe.methodKey("get")), 1, "methods are case-sensitive")
        XCTAssertEqual(get.methodDistanceBound(NearMissProbe.methodKey("PROPPATCH")), 0, "a long method is unknown to the bound")
        XCTAssertNotEqual(NearMissProbe.methodKey("GE"), NearMissProbe.methodKey("GET"))
    }

    func testCompareSumsTheFieldsAndBuildsTheirTextsOnlyWhenAsked() throws {
        let pattern = try CompiledRequestPattern(RequestPattern(
            method: "GET", url: .equal("/api/users"), headers: ["X-Token": .equal("abc")]))
        let probe = NearMissProbe(method: "POST", target: "/api/usres")
        let headers: (String) -> String? = { $0 == "X-Token" ? "abd" : nil }
        let deadline = ContinuousClock.now.advanced(by: .seconds(60))
        let bare = pattern.compare(probe, headerValue: headers, body: [], urlMatches: false, until: deadline, fields: false)
        let full = pattern.compare(probe, headerValue: headers, body: [], urlMatches: false, until: deadline, fields: true)
        // method 1 + url 0.25 + 0.75 × 2/10 + header 0.5
        XCTAssertEqual(bare.distance, 1.9, accuracy: 1e-9)
        XCTAssertEqual(full.distance, bare.distance)
        XCTAssertTrue(bare.fields.isEmpty)
        XCTAssertEqual(full.fields.map(\.label), ["method", "url", "header X-Token"])
        XCTAssertEqual(full.fields.map(\.verdict), [.differs, .differs, .differs])
    }
}
