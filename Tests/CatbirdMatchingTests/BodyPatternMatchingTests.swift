import CatbirdMatching
import CatbirdWire
import XCTest

/// The body matchers' rules (docs/matching.md#body-matchers), one kind at a time.
final class BodyPatternMatchingTests: XCTestCase {
    private func matches(_ pattern: BodyPattern, _ body: String) throws -> Bool {
        try CompiledBodyPattern(pattern).matches(Array(body.utf8))
    }

    func testEqualAndContainsCompareBytesCaseSensitively() throws {
        XCTAssertTrue(try matches(.equal("a=1&b=2"), "a=1&b=2"))
        XCTAssertFalse(try matches(.equal("a=1&b=2"), "a=1&b=2 "))
        XCTAssertFalse(try matches(.equal("ABC"), "abc"))
        XCTAssertTrue(try matches(.equal(""), ""))
        XCTAssertTrue(try matches(.contains("\"login\":\"john\""), #"{"login":"john","password":"x"}"#))
        XCTAssertFalse(try matches(.contains("John"), #"{"login":"john"}"#))
        XCTAssertTrue(try matches(.contains(""), ""))
        XCTAssertFalse(try matches(.contains("long needle"), "short"))
        XCTAssertTrue(try matches(.contains("кот"), "мой кот"))
    }

    func testJSONAndJSONPathAgreeOnAByteOrderMarkAndATrailingNUL() throws {
        // try10b F6: '\xef\xbb\xbf{"a":1}' matched `json` but not `jsonPath`; '{"a":1}\x00' the reverse.
        let json = try CompiledBodyPattern(.json(#"{"a":1}"#))
        let jsonPath = try CompiledBodyPattern(.jsonPath("$.a", equalTo: 1))
        let marked: [UInt8] = [0xEF, 0xBB, 0xBF] + Array(#"{"a":1}"#.utf8)
        XCTAssertTrue(json.matches(marked))
        XCTAssertTrue(jsonPath.matches(marked))
        let nulEnded = Array(#"{"a":1}"#.utf8) + [0]
        XCTAssertFalse(json.matches(nulEnded))
        XCTAssertFalse(jsonPath.matches(nulEnded))
        let duplicate = Array(#"{"a":1,"a":2}"#.utf8)
        XCTAssertTrue(json.matches(duplicate))
        XCTAssertTrue(jsonPath.matches(duplicate))
    }

    func testRegexpSearchesTheBodyAsTextCaseInsensitively() throws {
        XCTAssertTrue(try matches(.regexp(#""id":\s*[0-9]+"#), #"{"id": 42}"#))
        XCTAssertTrue(try matches(.regexp("JOHN"), "login=john"))
        XCTAssertFalse(try matches(.regexp("^john$"), "login=john"))
        // Not UTF-8: never matches a regexp.
        XCTAssertFalse(try CompiledBodyPattern(.regexp(".*")).matches([0xFF, 0xFE]))
        XCTAssertThrowsError(try CompiledBodyPattern(.regexp("("))) { error in
            XCTAssertEqual((error as? PatternError)?.status, 400)
        }
    }

    func testJSONIgnoresKeyOrderAndWhitespaceButNotTypes() throws {
        let pattern = BodyPattern.json(#"{"user": {"id": 7, "tags": ["a", "b"]}, "ok": true}"#)
        XCTAssertTrue(try matches(pattern, #"{"ok":true,"user":{"tags":["a","b"],"id":7.0}}"#))
        XCTAssertFalse(try matches(pattern, #"{"ok":1,"user":{"tags":["a","b"],"id":7}}"#), "true is not 1")
        XCTAssertFalse(try matches(pattern, #"{"ok":true,"user":{"tags":["b","a"],"id":7}}"#), "array order counts")
        XCTAssertFalse(try matches(pattern, #"{"ok":true,"user":{"tags":["a","b"],"id":7},"x":null}"#), "an extra key")
        XCTAssertFalse(try matches(pattern, "not json"))
        XCTAssertThrowsError(try CompiledBodyPattern(.json("{oops"))) { error in
            XCTAssertEqual((error as? PatternError)?.reason.hasPrefix("'pattern.body.value' must be JSON text"), true, "\(error)")
        }
    }

    /// Tester finding T13-F7, the exact value: `1e400` is RFC 8259 JSON text, yet was refused as
    /// "must be JSON text … not 1e400"; the reason says now that the number is out of range.
    func testAJSONValueWithANumberOutOfRangeIsRefusedSayingSo() {
        for value in ["1e400", #"{"a":[-1e400]}"#] {
            XCTAssertThrowsError(try CompiledBodyPattern(.json(value)), value) { error in
                let reason = (error as? PatternError)?.reason ?? ""
                XCTAssertTrue(reason.contains("a number out of the range"), reason)
                XCTAssertFalse(reason.contains("must be JSON text"), reason)
            }
        }
    }

    func testJSONPathChecksPresenceOrEqualityWithSQLitePaths() throws {
        let body = #"{"user": {"id": 7, "name": "Ann", "nick": null}, "items": [{"sku": "A-1"}, {"sku": "B-2"}]}"#
        XCTAssertTrue(try matches(.jsonPath("$.user.id"), body))
        XCTAssertTrue(try matches(.jsonPath("$.user.nick"), body), "present, even when null")
        XCTAssertFalse(try matches(.jsonPath("$.user.email"), body))
        XCTAssertTrue(try matches(.jsonPath("$.user.id", equalTo: 7), body))
        XCTAssertFalse(try matches(.jsonPath("$.user.id", equalTo: "7"), body), "a string is not a number")
        XCTAssertTrue(try matches(.jsonPath("$.user.nick", equalTo: .null), body))
        XCTAssertTrue(try matches(.jsonPath("$.items[1].sku", equalTo: "B-2"), body))
        XCTAssertTrue(try matches(.jsonPath("$.items[#-1].sku", equalTo: "B-2"), body))
        XCTAssertTrue(try matches(.jsonPath("$.user", equalTo: .object(["name": "Ann", "nick": .null, "id": 7])), body))
        XCTAssertFalse(try matches(.jsonPath("$.user.id"), "{not json"))
        XCTAssertFalse(try matches(.jsonPath("$.user.id"), ""))
    }

    func testBadJSONPathsAndMisplacedEqualToAreRefused() throws {
        for path in ["user.id", "$..id", "$[", "$."] {
            XCTAssertThrowsError(try CompiledBodyPattern(.jsonPath(path)), path) { error in
                XCTAssertTrue((error as? PatternError)?.reason.contains("JSON path") ?? false, "\(error)")
            }
        }
        XCTAssertThrowsError(try CompiledBodyPattern(BodyPattern(kind: .contains, value: "x", equalTo: 1))) { error in
            XCTAssertEqual((error as? PatternError)?.reason, "'pattern.body.equalTo' is only for the kind \"jsonPath\", not \"contains\"")
        }
    }

    func testARequestPatternWithABodyPatternMatchesTheBodyToo() throws {
        let pattern = try CompiledRequestPattern(RequestPattern(method: .POST, url: "/login", body: .jsonPath("$.login", equalTo: "john")))
        XCTAssertTrue(pattern.matches(method: "POST", target: "/login", headerValue: { _ in nil }, body: Array(#"{"login":"john"}"#.utf8)))
        XCTAssertFalse(pattern.matches(method: "POST", target: "/login", headerValue: { _ in nil }, body: Array(#"{"login":"ann"}"#.utf8)))
        XCTAssertFalse(pattern.matches(method: "POST", target: "/login", headerValue: { _ in nil }))
    }

    func testTheWireShapeLeavesBodyOutWhenUnsetAndKeepsEqualToNull() throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        let plain = String(decoding: try encoder.encode(RequestPattern(method: .GET, url: "/a")), as: UTF8.self)
        XCTAssertEqual(plain, #"{"headers":{},"method":"GET","url":{"kind":"equal","value":"/a"}}"#)
        let withNull = RequestPattern(method: .POST, url: "/a", body: .jsonPath("$.x", equalTo: .null))
        let text = String(decoding: try encoder.encode(withNull), as: UTF8.self)
        XCTAssertEqual(text, #"{"body":{"equalTo":null,"kind":"jsonPath","value":"$.x"},"headers":{},"method":"POST","url":{"kind":"equal","value":"/a"}}"#)
        XCTAssertEqual(try JSONDecoder().decode(RequestPattern.self, from: Data(text.utf8)), withNull)
        let presence = try JSONDecoder().decode(BodyPattern.self, from: Data(#"{"kind":"jsonPath","value":"$.x"}"#.utf8))
        XCTAssertNil(presence.equalTo)
    }
}
