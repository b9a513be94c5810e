import CatbirdMatching
import CatbirdSupport
import CatbirdTestSupport
@_spi(Server) import CatbirdWire
import Foundation
import XCTest

/// The near-miss distance's parts (docs/matching.md#near-misses): the bit-parallel edit
/// distance against a plain dynamic-programming Levenshtein over bytes, and the byte-class and
/// column bounds the ranking skips mocks by, which must never exceed the distance they bound.
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

    /// The probe's table holds only the byte values from its lowest to its highest byte: every
    /// byte outside (0, 255, one below the lowest, one above the highest) finds no position,
    /// for one-word and two-word probes, in ``EditDistanceProbe/distance(to:)`` and in
    /// ``EditDistanceProbe/leastDistance(to:)`` alike.
    func testBytesOutsideTheProbesByteRangeMatchNoPosition() {
        for target in ["mno", "m", String(repeating: "mon", count: 30), "\u{0}m\u{7F}", "aé"] {
            let probe = EditDistanceProbe(target, limit: 128)
            let bytes = probe.bytes
            let low = bytes.min()!, high = bytes.max()!
            let outside = [0, 255, Int(low) - 1, Int(high) + 1].filter { (0...255).contains($0) && !bytes.contains(UInt8($0)) }
            for byte in outside.map(UInt8.init) {
                for other in [[byte], [byte] + bytes, bytes.map { _ in byte }, [low, byte, high], Array(bytes.dropLast()) + [byte]] {
                    XCTAssertEqual(probe.distance(to: other), referenceLevenshtein(bytes, other), "\(target) → \(other)")
                    let columns = ColumnClasses([other], maximumBytes: .max)!
                    XCTAssertEqual(probe.leastDistance(to: columns), referenceLevenshtein(bytes, other), "\(target) → \(other)")
                }
            }
            XCTAssertEqual(probe.distance(to: bytes), 0, target)
        }
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

    /// The plain dynamic-programming distance to a text of byte classes: column `j` matches a
    /// probe byte that is one of `columns[j]`.
    private func referenceLeastDistance(_ probe: [UInt8], _ columns: [Set<UInt8>]) -> Int {
        var previous = Array(0...columns.count)
        for (i, byte) in probe.enumerated() {
            var current = [i + 1]
            for (j, column) in columns.enumerated() {
                current.append(min(previous[j] + (column.contains(byte) ? 0 : 1), previous[j + 1] + 1, current[j] + 1))
            }
            previous = current
        }
        return previous[columns.count]
    }

    func testTheColumnBoundOfMocksOfOneLengthIsTheClassDistanceAndNeverExceedsAnyOfTheirDistances() {
        var random = RandomPatterns(seed: 13)
        let lengths = [0, 1, 2, 13, 63, 64, 65, 100, 127, 128]
        for round in 0..<160 {
            let target = text(&random, length: round % 3 == 0 ? random.pick(lengths) : random.below(30))
            let probe = NearMissProbe(method: "GET", target: target)
            let length = round % 4 == 0 ? random.pick(lengths) : random.below(30)
            let block = (0..<(1 + random.below(16))).map { _ in
                Array((Array(text(&random, length: length).utf8) + repeatElement(UInt8(ascii: "x"), count: length)).prefix(length))
            }
            let columns = ColumnClasses(block, maximumBytes: .max)!
            XCTAssertEqual(columns.length, length)
            let least = probe.url.leastDistance(to: columns)
            XCTAssertEqual(least, referenceLeastDistance(probe.url.bytes, (0..<length).map { j in Set(block.map { $0[j] }) }), target)
            for url in block {
                XCTAssertLessThanOrEqual(least, referenceLevenshtein(probe.url.bytes, url), "\(target) → \(String(decoding: url, as: UTF8.self))")
            }
            // Texts that differ only in bytes the probe does not hold are bounded exactly.
            let absent = (0...255).map(UInt8.init).filter { !probe.url.bytes.contains($0) }
            let varied = block.map { _ in block[0].map { probe.url.bytes.contains($0) ? $0 : random.pick(absent) } }
            let exact = probe.url.leastDistance(to: ColumnClasses(varied, maximumBytes: .max)!)
            XCTAssertTrue(varied.allSatisfy { referenceLevenshtein(probe.url.bytes, $0) == exact }, target)
        }
        XCTAssertNil(ColumnClasses([Array("ab".utf8), Array("abc".utf8)], maximumBytes: .max), "texts of different lengths")
        XCTAssertNil(ColumnClasses((0..<16).map { [UInt8($0), UInt8($0 + 16)] }, maximumBytes: 20), "more bytes than allowed")
        XCTAssertEqual(NearMissProbe(method: "GET", target: "").url.leastDistance(to: ColumnClasses([Array("/abc".utf8)], maximumBytes: 8)!), 4)
        XCTAssertEqual(NearMissProbe(method: "GET", target: "/abc").url.leastDistance(to: ColumnClasses([[UInt8]()], maximumBytes: 8)!), 4)
    }

    func testTheMethodBoundAssumesADifferenceOnlyBetweenKnownMethods() {
        let get = NearMissProbe(method: "GET", target: "/")
        XCTAssertEqual(get.methodDistanceBound(NearMissProbe.methodKey("GET")), 0)
        XCTAssertEqual(get.methodDistanceBound(NearMissProbe.methodKey("POST")), 1)
        XCTAssertEqual(get.methodDistanceBound(NearMissProbe.methodKey("get")), 1, "methods are case-sensitive")
        XCTAssertEqual(get.methodDistanceBound(NearMissProbe.methodKey("PROPPATCH")), 0, "a long method is unknown to the bound")
        XCTAssertNotEqual(NearMissProbe.methodKey("GE"), NearMissProbe.methodKey("GET"))
    }

    func testCompareSumsTheFieldsWhetherOrNotItKeepsWhatTheyShow() throws {
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
        var json = ByteWriter(capacity: 16)
        var requestJSON = NearMissRequestJSON()
        full.writeNearMissJSON(to: &json, distance: full.distance, mockId: 1, position: 1, tenant: "", requestJSON: &requestJSON)
        let fields = try JSONDecoder().decode(CatbirdNearMiss.self, from: Data(json.bytes())).fields
        XCTAssertEqual(fields.map(\.label), ["method", "url", "header X-Token"])
        XCTAssertEqual(fields.map(\.verdict), [.differs, .differs, .differs])
    }
}
