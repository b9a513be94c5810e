import CatbirdTestSupport
import XCTest

@testable import CatbirdMatching

/// The whole-path check (``JSONPathSyntax/fault(in:)``, which refuses a new `jsonPath` pattern)
/// accepts exactly the paths the lookup (``JSONPathDocument/lookup(_:)``, which matches request
/// bodies) reads to their end, and SQLite (``JSONPathReader/text(at:in:)``) agrees with both:
/// for each path, a body that has every step it selects is built, and on it an accepted path
/// finds its field without a path error while a refused one is a path error at the step the
/// check names. The two read the grammar through one ``JSONPathStep``; this shows they agree,
/// and that the grammar is SQLite's.
final class JSONPathCheckMatchesLookupTests: XCTestCase {
    /// The value at the end of every well-formed path: its JSON text as the lookup renders it.
    private static let leaf = #"{"leaf":true}"#

    /// One step of a path, written out, with what a body needs for the lookup to take it.
    private struct Step {
        enum Kind {
            /// Well-formed: the value it selects goes between `before` and `after`.
            case reads(before: String, after: String)
            /// Well-formed, selecting the element past an array's end (`[#]`, `[#-0]`): the
            /// lookup ends there, absent.
            case pastTheEnd
            /// Malformed, standing on `on` (of the kind SQLite looks at before it reports the
            /// error: an object for `.`, an array for `[#`).
            case malformed(on: String)
        }

        let text: String
        let kind: Kind
        /// Only at a path's end (`."a` reads on to the next `"`; nothing is reached past `[#]`).
        var last = false
        /// An unquoted name, which reads on to the next `.` or `[`: the next step starts with one.
        var open = false

        var isMalformed: Bool {
            if case .malformed = kind { return true }
            return false
        }
    }

    private static let steps: [Step] = [
        Step(text: ".a", kind: .reads(before: #"{"z":0,"a":"#, after: "}"), open: true),
        Step(text: ".b", kind: .reads(before: #"{"b":"#, after: #","z":1}"#), open: true),
        Step(text: #"."a.b""#, kind: .reads(before: #"{"a.b":"#, after: "}")),
        Step(text: #"."""#, kind: .reads(before: #"{"":"#, after: "}")),
        Step(text: #"."x[0]""#, kind: .reads(before: #"{"x[0]":"#, after: "}")),
        Step(text: ".a b", kind: .reads(before: #"{"a b":"#, after: "}"), open: true),
        Step(text: ".a]", kind: .reads(before: #"{"a]":"#, after: "}"), open: true),
        Step(text: ".é", kind: .reads(before: #"{"é":"#, after: "}"), open: true),
        Step(text: ".*", kind: .reads(before: #"{"*":"#, after: "}"), open: true),  // a member named "*", not a wildcard
        Step(text: #".a\u0062"#, kind: .reads(before: #"{"ab":0,"a\u0062":"#, after: "}"), open: true),  // names as written
        Step(text: ".$", kind: .reads(before: #"{"$":"#, after: "}"), open: true),
        Step(text: ".-1", kind: .reads(before: #"{"-1":"#, after: "}"), open: true),
        Step(text: "[0]", kind: .reads(before: "[", after: ",7]")),
        Step(text: "[2]", kind: .reads(before: "[0,1,", after: "]")),
        Step(text: "[01]", kind: .reads(before: "[0,", after: "]")),
        Step(text: "[12]", kind: .reads(before: "[0,1,2,3,4,5,6,7,8,9,10,11,", after: "]")),
        Step(text: "[4294967296]", kind: .reads(before: "[", after: ",1]")),  // wraps at 2^32, as SQLite's index does
        Step(text: "[#-1]", kind: .reads(before: "[0,", after: "]")),
        Step(text: "[#-3]", kind: .reads(before: "[", after: ",1,2]")),
        Step(text: "[#]", kind: .pastTheEnd, last: true),
        Step(text: "[#-0]", kind: .pastTheEnd, last: true),
        Step(text: ".", kind: .malformed(on: "{}"), open: true),
        Step(text: "..a", kind: .malformed(on: #"{"a":1}"#)),
        Step(text: ".[0]", kind: .malformed(on: "{}")),
        Step(text: #"."a"#, kind: .malformed(on: #"{"a":1}"#), last: true),
        Step(text: "[*]", kind: .malformed(on: "[1]")),
        Step(text: "[-1]", kind: .malformed(on: "[1]")),
        Step(text: "[]", kind: .malformed(on: "[1]")),
        Step(text: "[ 0]", kind: .malformed(on: "[1]")),
        Step(text: "[0", kind: .malformed(on: "[1]"), last: true),
        Step(text: "[0:1]", kind: .malformed(on: "[1,2]")),
        Step(text: #"["a"]"#, kind: .malformed(on: #"{"a":1}"#)),
        Step(text: "[#5]", kind: .malformed(on: "[1]")),
        Step(text: "[#-]", kind: .malformed(on: "[1]")),
        Step(text: "[#+1]", kind: .malformed(on: "[1]")),
        Step(text: "[#-1x]", kind: .malformed(on: "[1,2]")),
        Step(text: "[?(@.a)]", kind: .malformed(on: "[1]")),
        Step(text: "x", kind: .malformed(on: "{}")),
        Step(text: " .a", kind: .malformed(on: #"{"a":1}"#)),
        Step(text: "*", kind: .malformed(on: "[1]")),
    ]

    /// The lookup's answer in SQLite's shape (``JSONPathDocument/text(at:in:)``).
    private static func lookup(_ path: String, in body: String) -> String?? {
        JSONPathDocument.text(at: path, in: Array(body.utf8))
    }

    /// Checks `path` (steps `chosen` after `$`) on the body that has every step it selects.
    private func check(_ chosen: [Step], file: StaticString = #filePath, line: UInt = #line) {
        let path = "$" + chosen.map(\.text).joined()
        let firstMalformed = chosen.firstIndex(where: \.isMalformed)
        var value = Self.leaf
        var reached = firstMalformed.map { chosen[..<$0] } ?? chosen[...]
        if case let .malformed(on)? = firstMalformed.map({ chosen[$0].kind }) { value = on }
        var expected: String?? = .some(Self.leaf)
        if case .pastTheEnd? = reached.last?.kind {
            reached = reached.dropLast()
            value = "[0]"
            expected = .some(nil)
        }
        for step in reached.reversed() {
            guard case let .reads(before, after) = step.kind else { preconditionFailure("\(step.text) is not a reading step") }
            value = before + value + after
        }
        let fault = JSONPathSyntax.fault(in: path)
        let context = "path \(path.debugDescription) body \(value)"
        if let firstMalformed {
            let offset = 1 + chosen[..<firstMalformed].map(\.text.utf8.count).reduce(0, +)
            XCTAssertEqual(fault?.offset, offset, "refused where it stops being a path: \(context)", file: file, line: line)
            expected = nil
        } else {
            XCTAssertNil(fault.map { "\($0)" }, "accepted: \(context)", file: file, line: line)
        }
        XCTAssertEqual(Self.lookup(path, in: value), expected, "lookup: \(context)", file: file, line: line)
        XCTAssertEqual(JSONPathReader.text(at: path, in: value), expected, "SQLite: \(context)", file: file, line: line)
    }

    /// Each step alone, after one and before one of each other kind.
    func testEveryStepAloneAndBesideTheOthers() {
        for step in Self.steps {
            check([step])
            for other in Self.steps where !other.last {
                if !(other.open && !(step.text.hasPrefix(".") || step.text.hasPrefix("["))) { check([other, step]) }
            }
            if !step.last {
                for other in Self.steps where !(step.open && !(other.text.hasPrefix(".") || other.text.hasPrefix("["))) {
                    check([step, other])
                }
            }
        }
    }

    /// Paths of up to 6 steps drawn from the table, malformed at any step or nowhere.
    func testGeneratedPaths() {
        var random = SeededRandom(seed: 0x0F_A017)
        var accepted = 0
        var refused = 0
        for _ in 0..<2000 {
            var chosen: [Step] = []
            for _ in 0..<(1 + random.below(6)) {
                if chosen.last?.last == true { break }
                var step = random.pick(Self.steps)
                // Mostly well-formed steps, so that refusals come at every depth.
                if step.isMalformed && random.chance(70) { continue }
                while let previous = chosen.last, previous.open, !(step.text.hasPrefix(".") || step.text.hasPrefix("[")) {
                    step = random.pick(Self.steps)
                }
                chosen.append(step)
            }
            check(chosen)
            if chosen.contains(where: \.isMalformed) { refused += 1 } else { accepted += 1 }
        }
        XCTAssertGreaterThan(accepted, 500)
        XCTAssertGreaterThan(refused, 500)
    }

    /// Paths of random bytes, SQLite the judge: a body is built from the steps the check read
    /// (up to the one it refuses, set on a value of the kind that step needs), and on it an
    /// accepted path finds its field, a refused one is a path error, for the lookup and SQLite.
    func testRandomBytePaths() {
        let alphabet = ["$", ".", ".", "[", "[", "]", "]", "#", "-", "\"", "0", "1", "7", "a", "b", "*", " ", "é", "?", "\\"]
        var random = SeededRandom(seed: 0x0B_7E5)
        var accepted = 0
        var refused = 0
        for _ in 0..<20000 {
            let path = (random.chance(90) ? "$" : "") + (0..<random.below(11)).map { _ in random.pick(alphabet) }.joined()
            guard let body = Self.witness(for: path) else { continue }
            let fault = JSONPathSyntax.fault(in: path)
            let expected: String?? = fault == nil ? body.field : nil
            let context = "path \(path.debugDescription) body \(body.text)"
            XCTAssertEqual(Self.lookup(path, in: body.text), expected, "lookup: \(context)")
            XCTAssertEqual(JSONPathReader.text(at: path, in: body.text), expected, "SQLite: \(context)")
            if fault == nil { accepted += 1 } else { refused += 1 }
        }
        XCTAssertGreaterThan(accepted, 1500)
        XCTAssertGreaterThan(refused, 10000)
    }

    /// A body on which `path` reaches its end, or the step the check refuses, and what the
    /// lookup finds there when it is accepted; nil when none is built (a name that is not JSON
    /// string text as written, an index over 64, a step past an array's end before the end).
    private static func witness(for path: String) -> (text: String, field: String??)? {
        let bytes = Array(path.utf8)
        guard var offset = JSONPathStep.firstStep(in: bytes) else { return (#"{"a":[1]}"#, nil) }
        var wrappers: [(String, String)] = []
        var value = leaf
        var field: String?? = .some(leaf)
        steps: while let step = JSONPathStep(in: bytes, at: offset) {
            if step.problem != nil {
                switch step.selector {
                case .member: value = "{}"
                case let .fromEnd(back):
                    guard back <= 64 else { return nil }
                    value = "[" + Array(repeating: "0", count: max(Int(back), 1)).joined(separator: ",") + "]"
                case .element, nil: value = "[0]"
                }
                break steps
            }
            switch step.selector {
            case let .member(name)?:
                wrappers.append(("{\"" + String(decoding: bytes[name], as: UTF8.self) + "\":", "}"))
            case let .element(index)?:
                guard index <= 64 else { return nil }
                wrappers.append(("[" + String(repeating: "0,", count: Int(index)), "]"))
            case let .fromEnd(back)?:
                guard back <= 64 else { return nil }
                guard back > 0 else {
                    guard JSONPathStep(in: bytes, at: step.next) == nil else { return nil }
                    value = "[0]"
                    field = .some(nil)
                    break steps
                }
                wrappers.append(("[", String(repeating: ",0", count: Int(back) - 1) + "]"))
            case nil:
                preconditionFailure("a step read without a problem selects something")
            }
            offset = step.next
        }
        let text = wrappers.reversed().reduce(value) { inner, wrapper in wrapper.0 + inner + wrapper.1 }
        guard JSONPathDocument(Array(text.utf8)) != nil else { return nil }
        return (text, field)
    }

    /// Paths that do not start with `$`: refused at byte 0, a path error for the lookup and SQLite.
    func testAPathStartsWithTheDollar() {
        for path in ["", "a", ".a", "[0]", " $", "a$", "\u{0}$"] {
            XCTAssertEqual(JSONPathSyntax.fault(in: path)?.offset, 0, path.debugDescription)
            XCTAssertEqual(Self.lookup(path, in: #"{"a":[1]}"#), String??.none, path.debugDescription)
            XCTAssertEqual(JSONPathReader.text(at: path, in: #"{"a":[1]}"#), String??.none, path.debugDescription)
        }
    }

    /// The one place the two differ, on purpose: the lookup reads a path up to its first NUL,
    /// as SQLite does, and the check refuses it there, since what follows would be ignored.
    func testANulIsRefusedWhereTheLookupStopsReading() {
        let body = #"{"a":{"b":[1,2]}}"#
        for (path, field) in [("$.a", #"{"b":[1,2]}"#), ("$.a.b[1]", "2"), ("$", body)] {
            for tail in ["", "x", ".b", "[*]", "\u{0}"] {
                let withNul = path + "\u{0}" + tail
                XCTAssertEqual(JSONPathSyntax.fault(in: withNul)?.offset, path.utf8.count, withNul.debugDescription)
                XCTAssertEqual(Self.lookup(withNul, in: body), .some(field), withNul.debugDescription)
                XCTAssertEqual(JSONPathReader.text(at: withNul, in: body), .some(field), withNul.debugDescription)
            }
        }
    }
}
