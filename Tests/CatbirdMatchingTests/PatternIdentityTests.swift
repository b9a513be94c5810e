import CatbirdMatching
@_spi(Server) import CatbirdWire
import Foundation
import XCTest

/// `RequestPattern.isSamePattern(as:)` and `identity`: the "same pattern" test of `update`
/// (replace in place) and `remove` (docs/matching.md#update-replaces-in-place), which compares header names case-insensitively
/// the way matching does (docs/matching.md#request-matching).
final class PatternIdentityTests: XCTestCase {
    private func pattern(
        method: RequestPattern.HTTPMethod = "GET", url: PatternMatch = .equal("/api/feed"), headers: [String: PatternMatch]
    ) -> RequestPattern {
        RequestPattern(method: method, url: url, headers: headers)
    }

    /// The reported case: a mock added with `X-Token`, then `update` with `x-token` and
    /// `remove` with `X-TOKEN`, all `equal "abc"`.
    func testHeaderNamesAreComparedCaseInsensitively() {
        let added = pattern(headers: ["X-Token": .equal("abc")])
        XCTAssertTrue(added.isSamePattern(as: pattern(headers: ["x-token": .equal("abc")])))
        XCTAssertTrue(added.isSamePattern(as: pattern(headers: ["X-TOKEN": .equal("abc")])))
        XCTAssertEqual(added.identity, pattern(headers: ["x-TOKEN": .equal("abc")]).identity)
        XCTAssertEqual(Set([added.identity, pattern(headers: ["x-token": .equal("abc")]).identity]).count, 1)
        // `==` stays exact (the Codable value as sent).
        XCTAssertNotEqual(added, pattern(headers: ["x-token": .equal("abc")]))
    }

    func testEverythingElseIsComparedExactly() {
        let base = pattern(headers: ["X-Token": .equal("abc"), "Accept": .wildcard("*json*")])
        XCTAssertTrue(base.isSamePattern(as: base))
        let different: [RequestPattern] = [
            pattern(headers: ["X-Token": .equal("ABC"), "Accept": .wildcard("*json*")]),  // value case
            pattern(headers: ["X-Token": .regexp("abc"), "Accept": .wildcard("*json*")]),  // kind
            pattern(headers: ["X-Token": .equal("abc")]),  // a header fewer
            pattern(headers: ["X-Token": .equal("abc"), "Accept": .wildcard("*json*"), "X-More": .equal("")]),
            pattern(headers: ["X-Tokens": .equal("abc"), "Accept": .wildcard("*json*")]),  // another name
            pattern(method: "get", headers: ["X-Token": .equal("abc"), "Accept": .wildcard("*json*")]),
            pattern(url: .equal("/API/feed"), headers: ["X-Token": .equal("abc"), "Accept": .wildcard("*json*")]),
            pattern(url: .wildcard("/api/feed"), headers: ["X-Token": .equal("abc"), "Accept": .wildcard("*json*")]),
        ]
        for other in different {
            XCTAssertFalse(base.isSamePattern(as: other), "\(other)")
            XCTAssertFalse(other.isSamePattern(as: base), "\(other)")
            XCTAssertNotEqual(base.identity, other.identity, "\(other)")
        }
    }

    /// A pattern may list one header under two spellings (both are checked when matching); it
    /// is the same as another listing the same patterns under other spellings, in any order,
    /// and not the same as one listing only one of them.
    func testOneHeaderUnderTwoSpellings() {
        let both = pattern(headers: ["X-Token": .equal("abc"), "x-token": .wildcard("a*")])
        XCTAssertTrue(both.isSamePattern(as: pattern(headers: ["x-token": .equal("abc"), "X-TOKEN": .wildcard("a*")])))
        XCTAssertFalse(both.isSamePattern(as: pattern(headers: ["X-Token": .equal("abc")])))
        XCTAssertFalse(both.isSamePattern(as: pattern(headers: ["X-Token": .equal("abc"), "x-token": .equal("abc")])))
    }

    /// Only ASCII letters are folded, as header-name matching folds them.
    func testOnlyASCIILettersAreFolded() {
        XCTAssertFalse(pattern(headers: ["X-É": .equal("1")]).isSamePattern(as: pattern(headers: ["x-é": .equal("1")])))
        XCTAssertTrue(pattern(headers: ["X-É": .equal("1")]).isSamePattern(as: pattern(headers: ["x-É": .equal("1")])))
    }

    /// The patterns decoded from the control actions of the report compare the same.
    func testDecodedFromTheWire() throws {
        func decode(_ json: String) throws -> RequestPattern {
            try JSONDecoder().decode(RequestPattern.self, from: Data(json.utf8))
        }
        let added = try decode(#"{"method":"GET","url":{"kind":"equal","value":"/t"},"headers":{"X-Token":{"kind":"equal","value":"abc"}}}"#)
        let updated = try decode(#"{"method":"GET","url":{"kind":"equal","value":"/t"},"headers":{"x-token":{"kind":"equal","value":"abc"}}}"#)
        let removed = try decode(#"{"method":"GET","url":{"kind":"equal","value":"/t"},"headers":{"X-TOKEN":{"kind":"equal","value":"abc"}}}"#)
        XCTAssertTrue(added.isSamePattern(as: updated))
        XCTAssertTrue(updated.isSamePattern(as: removed))
    }
}

/// `regexp` and `wildcard` values, and body patterns, are compared exactly (Unicode scalar by
/// scalar) by the identity; `equal` values by canonical equivalence, as they match
/// (docs/matching.md#update-replaces-in-place; tester finding tester21a-F6).
final class PatternIdentityExactValueTests: XCTestCase {
    private let nfc = "/r\u{E9}"
    private let nfd = "/re\u{301}"

    private func pattern(url: PatternMatch, headers: [String: PatternMatch] = [:], body: BodyPattern? = nil) -> RequestPattern {
        RequestPattern(method: "GET", url: url, headers: headers, body: body)
    }

    func testExpressionsAreComparedExactly() {
        XCTAssertEqual(nfc, nfd, "Swift's == joins them: the case is real")
        for make in [PatternMatch.regexp, PatternMatch.wildcard] {
            XCTAssertFalse(pattern(url: make("^" + nfc + "$")).isSamePattern(as: pattern(url: make("^" + nfd + "$"))))
            XCTAssertNotEqual(pattern(url: make(nfc)).identity, pattern(url: make(nfd)).identity)
            XCTAssertFalse(pattern(url: .equal("/"), headers: ["X-A": make(nfc)]).isSamePattern(as: pattern(url: .equal("/"), headers: ["X-A": make(nfd)])))
            XCTAssertTrue(pattern(url: make(nfc)).isSamePattern(as: pattern(url: make(nfc))))
        }
        XCTAssertEqual(Set([pattern(url: .regexp("\u{212A}")).identity, pattern(url: .regexp("K")).identity]).count, 2)
    }

    func testEqualValuesKeepCanonicalEquivalence() {
        XCTAssertTrue(pattern(url: .equal(nfc)).isSamePattern(as: pattern(url: .equal(nfd))))
        XCTAssertEqual(Set([pattern(url: .equal(nfc)).identity, pattern(url: .equal(nfd)).identity]).count, 1)
        XCTAssertTrue(pattern(url: .equal("/"), headers: ["X-A": .equal(nfc)]).isSamePattern(as: pattern(url: .equal("/"), headers: ["X-A": .equal(nfd)])))
        // Two patterns under one name, listed in either order, sort alike.
        let one = pattern(url: .equal("/"), headers: ["X-A": .regexp(nfc), "x-a": .regexp(nfd)])
        let other = pattern(url: .equal("/"), headers: ["X-A": .regexp(nfd), "x-a": .regexp(nfc)])
        XCTAssertTrue(one.isSamePattern(as: other))
    }

    func testBodyPatternsAreComparedExactly() {
        let pairs: [(BodyPattern, BodyPattern)] = [
            (BodyPattern(kind: .equal, value: nfc), BodyPattern(kind: .equal, value: nfd)),
            (BodyPattern(kind: .contains, value: nfc), BodyPattern(kind: .contains, value: nfd)),
            (BodyPattern(kind: .regexp, value: nfc), BodyPattern(kind: .regexp, value: nfd)),
            (.jsonPath("$.\u{E9}"), .jsonPath("$.e\u{301}")),
            (.jsonPath("$.a", equalTo: "\u{E9}"), .jsonPath("$.a", equalTo: "e\u{301}")),
            (.jsonPath("$.a", equalTo: .object(["\u{E9}": 1])), .jsonPath("$.a", equalTo: .object(["e\u{301}": 1]))),
            (BodyPattern(kind: .json, value: "{\"\u{E9}\":1}"), BodyPattern(kind: .json, value: "{\"e\u{301}\":1}")),
            (BodyPattern(kind: .json, value: "\"\u{212A}\""), BodyPattern(kind: .json, value: "\"K\"")),
        ]
        for (left, right) in pairs {
            XCTAssertFalse(pattern(url: .equal("/"), body: left).isSamePattern(as: pattern(url: .equal("/"), body: right)), "\(left)")
        }
        XCTAssertTrue(
            pattern(url: .equal("/"), body: BodyPattern(kind: .json, value: "{\"\u{E9}\":1, \"b\":2}"))
                .isSamePattern(as: pattern(url: .equal("/"), body: BodyPattern(kind: .json, value: "{\"b\":2,\"\\u00e9\":1}"))),
            "the same JSON in another spelling")
    }
}
