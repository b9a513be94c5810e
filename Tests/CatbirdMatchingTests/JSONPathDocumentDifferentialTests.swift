import CatbirdSupport
import CatbirdTestSupport
import CatbirdWire
import Foundation
import XCTest

@testable import CatbirdMatching

/// ``JSONPathDocument`` (the body parsed once, paths looked up in it) against
/// ``JSONPathReader`` (SQLite's `json_type` and `->` on the body's text, the evaluation it
/// replaces): the same answer, and the same JSON text byte for byte, for every generated body
/// and path, odd ones included (try10b F9).
final class JSONPathDocumentDifferentialTests: XCTestCase {
    /// What SQLite says: nil for an error, `.some(nil)` for no field, else the field's text.
    /// Where the document departs from SQLite on purpose (try10b F6): a body with a zero byte is
    /// not JSON, and a leading byte-order mark is skipped; and (try11 T11-F4) a body nested
    /// deeper than 512 levels is not JSON (SQLite 3.40 reads 2,000), which
    /// ``JSONPathReader/text(at:in:)`` applies itself; and (tester28a-F1) a body with a number
    /// a 64-bit float cannot hold or a lone surrogate escape is not JSON, as the `json` kind and
    /// the control routes' reader (``JSONTextCheck``) say.
    private func reference(_ body: [UInt8], _ path: String) -> String?? {
        guard !body.contains(0) else { return nil }
        let unmarked = body.starts(with: [0xEF, 0xBB, 0xBF]) ? Array(body.dropFirst(3)) : body
        let findings = JSONTextCheck.scan(unmarked, as: .body)
        if findings.syntaxError == nil, findings.loneSurrogate != nil || findings.numberOutOfRange != nil { return nil }
        guard let text = String(validating: unmarked, as: UTF8.self) else { return nil }
        return JSONPathReader.text(at: path, in: text)
    }

    private func referenceField(_ body: [UInt8], _ path: String) -> JSONPathReader.Field {
        guard let text = reference(body, path) else { return .notJSON }
        guard let text, let value = JSONBodyParser.value(of: Array(text.utf8)) else { return .absent }
        return .present(value)
    }

    /// Compares one body with every path; returns how many lookups found a field.
    @discardableResult
    private func compare(_ body: [UInt8], _ paths: [String], file: StaticString = #filePath, line: UInt = #line) -> Int {
        guard String(validating: body, as: UTF8.self) != nil else { return 0 }
        if JSONPathDocument.stopsAtContainerName(body) {
            XCTAssertNil(JSONPathDocument(body), file: file, line: line)
            return 0
        }
        var found = 0
        var document = JSONPathDocument(body)
        let text = String(decoding: body, as: UTF8.self)
        if body.contains(0) { XCTAssertNil(document, "a zero byte is not JSON", file: file, line: line) }
        for path in paths {
            let expected = reference(body, path)
            XCTAssertEqual(JSONPathDocument.text(at: path, in: body), expected, "body \(Array(text.utf8.prefix(200))) path \(path.debugDescription)", file: file, line: line)
            // The field as the matcher reads it, through the same (cached) document.
            let field = document?.field(at: path) ?? .notJSON
            XCTAssertEqual(field, referenceField(body, path), "field: body \(text.prefix(200).debugDescription) path \(path.debugDescription)", file: file, line: line)
            if case .some(.some) = expected { found += 1 }
        }
        return found
    }

    func testGeneratedBodiesAndPathsReadAsSQLiteReadsThem() {
        var random = JSONBodies(seed: 0x15_0A7B)
        var found = 0
        var notJSON = 0
        for _ in 0..<1500 {
            let body = random.body()
            let paths = (0..<12).map { _ in random.path() }
            if JSONPathDocument(body) == nil { notJSON += 1 }
            found += compare(body, paths)
        }
        // The generator reaches both sides: found fields, and bodies SQLite refuses.
        XCTAssertGreaterThan(found, 800)
        XCTAssertGreaterThan(notJSON, 150)
    }

    func testOddBodies() {
        let paths = ["$", "$.a", "$.b", "$[0]", "$[#-1]", "$.a[0]", "$.\"a\"", "$.\"\"", "$.x", "$.a.b", "$.a[#]", "$[1]"]
        let bodies: [String] = [
            "\u{FEFF}{\"a\":1}", "{\"a\":1}\u{0}", "{\"a\":1}\u{0}garbage", "{\"a\":1,\"a\":2}", "{\"a\":1} ", " \n\t\r{\"a\":1}",
            "{\"a\":1}\u{0C}", "\u{0B}{\"a\":1}", "{\"a\":1}\u{A0}", "", " ", "\u{0}", "null", "0", "-0", "1.5e3", "\"x\"",
            "[1,2,3]", "[1,2,3,]", "[,1]", "{\"a\":}", "{\"a\" 1}", "{\"a\":1,}", "{,}", "{}", "[]", "[ ]", "{ }",
            "{\"a\":\"\\u00e9\",\"b\":\"é\"}", "{\"a\\u0062\":1,\"ab\":2}", "{\"a\":\"\\ud800\"}", "{\"a\":\"\\ud83d\\ude00\"}",
            "{\"a\":\"\\u0000\"}", "{\"a\":\"\\x\"}", "{\"a\":\"a\tb\"}", "{\"a\":\"\u{7F}\"}", "{\"a\":1e400}", "{\"a\":-1e-400}",
            "{\"a\":123456789012345678901234567890}", "{\"a\":9007199254740993}", "{\"a\":01}", "{\"a\":1.}", "{\"a\":.5}",
            "{\"a\":-}", "{\"a\":1e}", "{\"a\":1e+}", "{\"a\":1E+5}", "{\"a\":2.5e3.1}", "{\"a\":nulll}", "{\"a\":tru}",
            "{\"a\":truefalse}", "{\"a\":true1}", "{\"a\":[{\"b\":[1,{\"c\":null}]}]}", "{\"a\":{\"b\":{}}}", "{\"\":7}",
            "{\"a\" : [ 1 , 2 ] , \"b\" : { \"c\" : \"d\" } }", "[[[[]]]]", "{\"a\":[],\"b\":{}}", "{\"a\":\"}\"}",
            "{\"a\":1}}", "{\"a\":1]", "[1}", "{\"a\":\"\\/\"}", "{\"a\":\"\\uZZZZ\"}", "{\"a\":\"\\u12\"}", "'a'", "{a:1}",
            "[1,2,3,4,5,6,7,8,9,10,11,12]", "{\"k0\":0,\"k1\":1,\"k2\":2,\"k3\":3,\"k4\":4,\"k5\":5,\"k6\":6,\"k7\":7,\"k8\":8,\"a\":9,\"a\":10}",
        ]
        for body in bodies {
            compare(Array(body.utf8), paths)
        }
        // Bytes that are not UTF-8 are not JSON to the matcher, which checks them first.
        XCTAssertFalse(try CompiledBodyPattern(.jsonPath("$")).matches([0x22, 0xFF, 0x22]))
        XCTAssertTrue(try CompiledBodyPattern(.jsonPath("$")).matches([0x22, 0xC3, 0xA9, 0x22]))
    }

    func testOddPaths() {
        let body = Array(#"{"a":{"b":[10,20,{"c":"d"}],"a.b":1,"":2,"a\u0062":3,"é":4,"[0]":5,"length()":6},"b":[[1,2],[3]]}"#.utf8)
        let paths = [
            "$", "$.a", "$.a.b", "$.a.b[0]", "$.a.b[2].c", "$.a.b[#]", "$.a.b[#-1]", "$.a.b[#-0]", "$.a.b[#-3]", "$.a.b[#-4]",
            "$.a.b[#-99x]", "$.a.b[#-1x]", "$.a.b[#+1]", "$.a.b[#-]", "$.a.b[-1]", "$.a.b[*]", "$.a.b[0:1]", "$.a.b[01]",
            "$.a.b[4294967296]", "$.a.b[4294967297]", "$.a.b[99999999999999999999]", "$.a.b[", "$.a.b[0", "$.a.b[]",
            "$.a.\"a.b\"", "$.a.\"\"", "$.a.\"a\\u0062\"", "$.a.a\\u0062", "$.a.é", "$.a.\"[0]\"", "$.a.length()", "$.a.\"unterminated",
            "$.", "$..a", "$.a.", "$x", "x", "", "$ ", "$.a ", "$[0]", "$.b[0][1]", "$.b[1][0]", "$.b[#-1][#-1]", "$.b[0].a",
            "$.a.b.c", "$.missing[?(@.id==1)]", "$.a[?(@.id==1)]", "$.b[?(@.id==1)]", "$.a\u{0}junk", "$.a.b\u{0}[0]", "$[#]",
            "$.a[0]", "$.b.a", "$.a[#]", "$.b[#-2][0]", "$.a.b[2].c.d", "$.a.b[2].c[0]", "$.\"a\".\"b\"[1]",
        ]
        XCTAssertGreaterThan(compare(body, paths), 20)
    }

    func testDeepNesting() {
        // SQLite's limit is 2,000 nested arrays or objects, Catbird's 512 (JSONNesting) for the
        // body and the field's value alike.
        for depth in [256, 257, 512, 513, 2000, 2001] {
            let arrays = String(repeating: "[", count: depth) + "1" + String(repeating: "]", count: depth)
            let objects = String(repeating: "{\"a\":", count: depth) + "1" + String(repeating: "}", count: depth)
            let arrayPaths = ["$", "$[0]", "$" + String(repeating: "[0]", count: depth - 1), "$" + String(repeating: "[0]", count: depth)]
            let objectPaths = ["$", "$.a", "$" + String(repeating: ".a", count: depth - 1), "$" + String(repeating: ".a", count: depth)]
            compare(Array(arrays.utf8), arrayPaths)
            compare(Array(objects.utf8), objectPaths)
        }
    }

    func testAnArrayInAMemberNamesPlaceIsNotJSON() {
        // SQLite 3.40 takes `{["a"]:1}` and then reads past its parse (`->` gave
        // `{["a"]:"a",1:1}\0}`, and a crash in the sqlite3 shell): not JSON here.
        for body in [#"{["a"]:1}"#, #"{"x":{["a"]:1}}"#, #"[{["a","b"]:1}]"#, #"{{"a":"b"}:2}"#] {
            XCTAssertTrue(JSONPathDocument.stopsAtContainerName(Array(body.utf8)), body)
            XCTAssertNil(JSONPathDocument(Array(body.utf8)), body)
            XCTAssertFalse(try CompiledBodyPattern(.jsonPath("$")).matches(Array(body.utf8)), body)
        }
    }

    func testLargeObjectsAndArraysAreSearchedThroughTables() {
        // Over 8 entries an object's names are hashed and an array's elements tabled: the same
        // answers, duplicate names taking the first.
        var members = (0..<50).map { "\"k\($0)\":\($0)" }
        members.append("\"k7\":\"again\"")
        let body = Array(("{" + members.joined(separator: ",") + ",\"list\":[" + (0..<40).map(String.init).joined(separator: ",") + "]}").utf8)
        let paths = ["$.k0", "$.k7", "$.k49", "$.k50", "$.\"k7\"", "$.list[0]", "$.list[39]", "$.list[40]", "$.list[#-1]", "$.list[#-40]", "$.list[#-41]", "$.list[#]"]
        XCTAssertEqual(compare(body, paths), 8)
    }
}

/// Deterministic random JSON-like bodies and SQLite JSON paths for the differential test:
/// mostly JSON, with odd tokens (numbers and strings at the grammar's edges, escapes,
/// duplicate names), odd whitespace, and mutations (a byte-order mark, a trailing NUL, bytes
/// dropped or put in) that make some of them not JSON.
struct JSONBodies {
    private var random: SeededRandom

    init(seed: UInt64) {
        random = SeededRandom(seed: seed)
    }

    static let names = ["\"a\"", "\"b\"", "\"a.b\"", "\"\"", "\"a\\u0062\"", "\"ab\"", "\"é\"", "\"k1\"", "\"a b\"", "\"[0]\"", "\"\\\"\""]
    static let scalars = [
        "0", "-0", "1", "7", "1.5", "1.0", "1e5", "1E+5", "1e-5", "-1.0e10", "00", "01", "-01", "1.", ".5", "-", "1e", "1e+",
        "2.5e3.1", "123456789012345678901234567890", "1e400", "-1e-400", "9007199254740993", "true", "false", "null", "nulll",
        "tru", "\"x\"", "\"\"", "\"\\u00e9\"", "\"\\ud83d\\ude00\"", "\"\\ud800\"", "\"\\u0000\"", "\"\\/\"", "\"\\x\"",
        "\"a\tb\"", "\"\u{7F}\"", "\"é\"", "\"\\u00E9\"", "\"\\uZZZZ\"", "\"a\\\"b\"", "\"line\\nbreak\"", "\"🐈\"",
    ]
    static let spaces = ["", "", "", "", " ", "\n", "\t", "\r\n", "\u{0C}", "\u{A0}"]
    static let noise = ["{", "}", "[", "]", ",", ":", "\"", "\\", "\u{0}", " ", "1", "a", "é"]

    mutating func value(depth: Int) -> String {
        let space = random.pick(Self.spaces)
        switch random.below(depth > 4 ? 2 : 7) {
        case 0, 1:
            return space + random.pick(Self.scalars) + space
        case 2, 3, 4:
            let members = (0..<random.below(5)).map { _ in
                random.pick(Self.spaces) + random.pick(Self.names) + random.pick(Self.spaces) + ":" + value(depth: depth + 1)
            }
            return space + "{" + members.joined(separator: ",") + random.pick(Self.spaces) + "}"
        default:
            let elements = (0..<random.below(5)).map { _ in value(depth: depth + 1) }
            return space + "[" + elements.joined(separator: ",") + random.pick(Self.spaces) + "]"
        }
    }

    mutating func body() -> [UInt8] {
        var text = value(depth: 0)
        if random.chance(5) { text = "\u{FEFF}" + text }
        if random.chance(5) { text += "\u{0}" }
        if random.chance(3) { text += "\u{0}" + random.pick(Self.noise) }
        if random.chance(10), !text.isEmpty {
            var characters = Array(text)
            for _ in 0..<(1 + random.below(2)) {
                let at = random.below(characters.count + 1)
                if random.chance(50), at < characters.count {
                    characters.remove(at: at)
                } else {
                    characters.insert(contentsOf: random.pick(Self.noise), at: at)
                }
            }
            text = String(characters)
        }
        return Array(text.utf8)
    }

    static let steps = [
        ".a", ".a", ".b", ".b", ".\"a.b\"", ".\"\"", ".\"a\\u0062\"", ".a\\u0062", ".ab", ".é", ".k1", ".\"a b\"", ".a b", ".\"[0]\"",
        ".\"\\\"\"", "[0]", "[0]", "[1]", "[2]", "[#]", "[#-1]", "[#-1]", "[#-0]", "[#-2]", "[#-9]", "[4294967296]", "[01]",
        "[-1]", "[*]", "[#-1x]", ".", "..a", "[", "[#+1]", "[?(@.a==1)]", "\u{0}.a",
    ]

    mutating func path() -> String {
        if random.chance(3) { return random.pick(["x", "", "$x", "$ ", "a.b"]) }
        return "$" + (0..<random.below(4)).map { _ in random.pick(Self.steps) }.joined()
    }
}
