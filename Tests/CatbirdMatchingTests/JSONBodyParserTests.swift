import CatbirdWire
import Foundation
import XCTest

@testable import CatbirdMatching

/// ``JSONBodyParser`` reads what `JSONDecoder` reads (``JSONValue/init(json:)``, the `json` body
/// pattern's reading before try9a F18) of RFC 8259 JSON, and nothing else, so `json` matching keeps its rules
/// (docs/matching.md#body-matchers), and ordinary JSON takes its own one-pass path.
final class JSONBodyParserTests: XCTestCase {
    /// The try9a F18 body: `[{"id":0,"name":"n0","tags":["a","b"]}, …]` with 1,250 elements,
    /// as Python's `print(json.dumps(…))` writes it (61,531 bytes).
    static let testerBody: [UInt8] = {
        let items = (0..<1250).map { #"{"id": \#($0), "name": "n\#($0)", "tags": ["a", "b"]}"# }
        return Array(("[" + items.joined(separator: ", ") + "]\n").utf8)
    }()

    /// `JSONDecoder`'s reading of `bytes` (``JSONValue/init(json:)``), its strings and keys compared exactly.
    private static func decoded(_ bytes: [UInt8]) -> ExactJSON? {
        JSONValue(json: Data(bytes)).map(ExactJSON.init)
    }

    /// Ordinary JSON: read here, never left to JSONDecoder, with JSONDecoder's value.
    func testOrdinaryJSONIsReadInOnePassWithJSONDecodersValue() {
        XCTAssertEqual(Self.testerBody.count, 61_531)
        let texts = [
            #"{"user": {"id": 7, "tags": ["a", "b"]}, "ok": true, "none": null}"#,
            #" [1, 1.0, 1e2, -0, 0.5, -12.25e-3, 123456789012345, 1234567890123456789, 1E+2, 3.14159] "#,
            #""a string with \"escapes\" \\ \/ \b\f\n\r\t \u00e9 \ud83d\ude00 é кот""#,
            "\t\r\n{\"k\" : [ ] , \"o\" : { } }\n",
            "true", "false", "null", "0", "-1", "\"\"", "[[[[[]]]]]",
            #"{"a":1,"b":[1,2],"a":2}"#,
            #"{"a":{"x":1,"x":[2]},"a":3}"#,
            #"{"\u0061":1,"a":2}"#,
        ]
        for text in texts {
            let bytes = Array(text.utf8)
            guard case let .value(value) = JSONBodyParser.parse(bytes) else {
                XCTFail("not read in one pass: \(text)")
                continue
            }
            XCTAssertEqual(value, Self.decoded(bytes), text)
        }
        guard case let .value(value) = JSONBodyParser.parse(Self.testerBody) else { return XCTFail("the tester's body") }
        XCTAssertEqual(value, Self.decoded(Self.testerBody))
    }

    /// The json rules that matching relies on, by both readings.
    func testEqualityRulesAreKept() {
        func same(_ left: String, _ right: String) -> Bool {
            JSONBodyParser.value(of: Array(left.utf8)) == JSONBodyParser.value(of: Array(right.utf8))
        }
        XCTAssertTrue(same("1e2", "100"))
        XCTAssertTrue(same("1", "1.0"))
        XCTAssertTrue(same(#"{"a":1,"b":2}"#, #"{ "b" : 2 , "a" : 1 }"#))
        XCTAssertFalse(same("[1,2]", "[2,1]"), "array order counts")
        XCTAssertFalse(same("true", "1"), "true is not 1")
        XCTAssertFalse(same(#""1""#, "1"), "a string is not a number")
        XCTAssertTrue(same(#"{"a":1,"a":2}"#, #"{"a":1}"#), "a key named twice: its first value")
        XCTAssertTrue(same(#""\u00e9""#, #""é""#))
    }

    /// Not JSON, and the texts left to JSONDecoder: each gets JSONDecoder's answer when it is
    /// RFC 8259 JSON as `jsonPath` reads it (``JSONPathDocument``), else none: JSONDecoder reads
    /// `[1,]`, `{"a":1,}` and UTF-16 text, which are not JSON (try10a F12).
    func testBrokenAndUnusualTextGetsJSONDecodersAnswer() {
        let texts: [[UInt8]] = [
            "", " ", "{", "}", "[1,]", "[,1]", "{\"a\":}", "{\"a\" 1}", "{a:1}", "{\"a\":1,}", "[1 2]", "01", "1.", ".5",
            "+1", "-", "1e", "1e+", "--1", "tru", "nul", "True", "NaN", "Infinity", "\"abc", "\"\\x\"", "\"\\u12\"",
            "\"\\u12G4\"", "[1]x", "1 2", "'a'", "// c\n1", "/* c */ 1", "1e400", "-1e400", "1e-400", "0e5",
            "\"\\ud800\"", "\"\\udc00\"", "\"\\ud800\\u0041\"", "\"a\tb\"", "\"a\nb\"",
            String(repeating: "[", count: 300) + String(repeating: "]", count: 300),
            String(repeating: "[", count: 600) + String(repeating: "]", count: 600),
            "\u{FEFF}{\"a\":1}", "\u{00A0}1",
        ].map { Array($0.utf8) } + [
            [0x22, 0xFF, 0x22], [0x22, 0xC3, 0x22], [0xEF, 0xBB, 0xBF, 0x31], [0x00, 0x31], [0x31, 0x00],
            [0x7B, 0x00, 0x22, 0x00, 0x61, 0x00, 0x22, 0x00, 0x3A, 0x00, 0x31, 0x00, 0x7D, 0x00],
        ]
        for bytes in texts {
            let expected = JSONPathDocument(bytes) == nil ? nil : Self.decoded(bytes)
            XCTAssertEqual(JSONBodyParser.value(of: bytes), expected, String(decoding: bytes, as: UTF8.self))
        }
    }

    /// Regression (tester finding try10a F12), the exact inputs: `{"a":1,}` was read through
    /// JSONDecoder as `{"a":1}`, so a request body with a trailing comma matched the `json`
    /// pattern `{"a":1}` (and no `jsonPath`, SQLite calling it malformed), and a pattern value
    /// `{"a":1,}` was accepted. UTF-16 text likewise. A stored pattern value is still read as it
    /// was (``JSONBodyParser/storedPatternValue(of:)``), so a mock stored with one still loads.
    func testTrailingCommasAndUTF16AreNotJSONButStoredPatternsStillRead() {
        let utf16: [UInt8] = [0x7B, 0x00, 0x22, 0x00, 0x61, 0x00, 0x22, 0x00, 0x3A, 0x00, 0x31, 0x00, 0x7D, 0x00]
        let bomUTF16: [UInt8] = [0xFF, 0xFE] + utf16
        let broken: [[UInt8]] = [Array(#"{"a":1,}"#.utf8), Array("[1,]".utf8), utf16, bomUTF16]
        for bytes in broken {
            XCTAssertNotNil(JSONValue(json: Data(bytes)), "JSONDecoder reads it: the case is real")
            XCTAssertNil(JSONBodyParser.value(of: bytes), String(decoding: bytes, as: UTF8.self))
            XCTAssertNotNil(JSONBodyParser.storedPatternValue(of: bytes))
        }
        XCTAssertEqual(JSONBodyParser.storedPatternValue(of: Array(#"{"a":1,}"#.utf8)), JSONBodyParser.value(of: Array(#"{"a":1}"#.utf8)))
        XCTAssertEqual(
            JSONBodyParser.value(of: [0xEF, 0xBB, 0xBF] + Array(#"{"a":1}"#.utf8)), .object(["a": .number(1)]),
            "a UTF-8 byte-order mark is skipped, as jsonPath skips it")
    }

    /// Every prefix of a realistic body (each cut mid-token somewhere) gets JSONDecoder's answer.
    func testEveryPrefixOfABodyGetsJSONDecodersAnswer() {
        let body = Array(#"{"user":{"id":-7.5e1,"name":"Ann \"A\" \u00e9","tags":["a",true,false,null,{}]},"n":[0,10,2.5]}"#.utf8)
        for end in 0...body.count {
            let prefix = Array(body[0..<end])
            XCTAssertEqual(JSONBodyParser.value(of: prefix), Self.decoded(prefix), String(decoding: prefix, as: UTF8.self))
        }
    }

    /// Regression (tester finding tester21a-F5), the exact inputs: strings and object keys are
    /// compared exactly, Unicode scalar by scalar (RFC 8259 §8.3), not by Swift's canonical
    /// equivalence: `"é"` (U+00E9) is not `"e\u0301"`, and `"\u212A"` (KELVIN SIGN) is not `"K"`;
    /// an object may hold both `"é"` and `"e\u0301"` as keys (it was left to JSONDecoder, which
    /// joined them into one).
    func testStringsAndKeysAreComparedExactlyNotByCanonicalEquivalence() {
        func read(_ text: String) -> ExactJSON? { JSONBodyParser.value(of: Array(text.utf8)) }
        XCTAssertNotEqual(read("{\"\u{E9}\":1}"), read("{\"e\u{301}\":1}"), "an NFC and an NFD key")
        XCTAssertNotEqual(read("\"\u{212A}\""), read("\"K\""), "KELVIN SIGN and K")
        XCTAssertNotEqual(read("\"\u{E9}\""), read("\"e\u{301}\""))
        XCTAssertEqual(read(#""\u00e9""#), read("\"\u{E9}\""), "an escape and the character it writes")
        let both = Array("{\"\u{E9}\":1,\"e\u{301}\":2}".utf8)
        guard case let .value(.object(members)) = JSONBodyParser.parse(both) else { return XCTFail("not read in one pass") }
        XCTAssertEqual(members, ["\u{E9}": .number(1), "e\u{301}": .number(2)])
        XCTAssertNotEqual(read("{\"\u{E9}\":1,\"e\u{301}\":2}"), read("{\"\u{E9}\":1}"))
    }
}
