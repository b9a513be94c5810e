import CatbirdMatching
@_spi(Server) import CatbirdWire
import XCTest

/// Whole-request matching: method, url, headers (docs/matching.md#request-matching).
final class CompiledRequestPatternTests: XCTestCase {
    /// Request headers in arrival order; lookup is case-insensitive and returns the first value,
    /// which is what the server's caller provides.
    private func lookup(_ headers: [(String, String)]) -> (String) -> String? {
        { name in headers.first { $0.0.caseInsensitiveCompare(name) == .orderedSame }?.1 }
    }

    private let login = RequestPattern(
        method: "POST",
        url: .equal("/api/login"),
        headers: [
            "Authorization": .wildcard("Bearer *"),
            "Content-Type": .equal("application/json"),
            "X-Device-Id": .regexp("^[0-9a-f]{8}$"),
        ]
    )

    private let goodHeaders: [(String, String)] = [
        ("authorization", "Bearer abc"),
        ("CONTENT-TYPE", "application/json"),
        ("x-device-id", "0123abcd"),
        ("User-Agent", "tests"),
    ]

    func testAllPartsMatch() throws {
        let pattern = try CompiledRequestPattern(login)
        XCTAssertTrue(pattern.matches(method: "POST", target: "/api/login", headerValue: lookup(goodHeaders)))
    }

    func testMethodIsExactAndCaseSensitive() throws {
        let pattern = try CompiledRequestPattern(login)
        XCTAssertFalse(pattern.matches(method: "GET", target: "/api/login", headerValue: lookup(goodHeaders)))
        XCTAssertFalse(pattern.matches(method: "post", target: "/api/login", headerValue: lookup(goodHeaders)))
    }

    func testURLMustMatch() throws {
        let pattern = try CompiledRequestPattern(login)
        XCTAssertFalse(pattern.matches(method: "POST", target: "/api/login?x=1", headerValue: lookup(goodHeaders)))
    }

    func testHeaderNamesAreLookedUpAsWrittenInThePattern() throws {
        let pattern = try CompiledRequestPattern(login)
        var asked: [String] = []
        _ = pattern.matches(method: "POST", target: "/api/login") { name in
            asked.append(name)
            return self.lookup(self.goodHeaders)(name)
        }
        XCTAssertEqual(Set(asked), ["Authorization", "Content-Type", "X-Device-Id"])
    }

    func testMissingHeaderFails() throws {
        let pattern = try CompiledRequestPattern(login)
        let headers = goodHeaders.filter { $0.0 != "x-device-id" }
        XCTAssertFalse(pattern.matches(method: "POST", target: "/api/login", headerValue: lookup(headers)))
    }

    func testHeaderValueMustMatchItsPattern() throws {
        let pattern = try CompiledRequestPattern(login)
        var headers = goodHeaders
        headers[2] = ("X-Device-Id", "0123abcde")
        XCTAssertFalse(pattern.matches(method: "POST", target: "/api/login", headerValue: lookup(headers)))
        headers = goodHeaders
        headers[1] = ("Content-Type", "Application/JSON")   // equal is case-sensitive
        XCTAssertFalse(pattern.matches(method: "POST", target: "/api/login", headerValue: lookup(headers)))
        headers = goodHeaders
        headers[0] = ("Authorization", "bearer xyz")         // wildcard is case-insensitive
        XCTAssertTrue(pattern.matches(method: "POST", target: "/api/login", headerValue: lookup(headers)))
    }

    func testExtraHeadersAreIgnored() throws {
        let pattern = try CompiledRequestPattern(RequestPattern(method: "GET", url: .wildcard("/api/books/*")))
        let headers = [("X-Anything", "1"), ("Accept", "*/*")]
        XCTAssertTrue(pattern.matches(method: "GET", target: "/api/books/1", headerValue: lookup(headers)))
        XCTAssertTrue(pattern.matches(method: "GET", target: "/api/books/1", headerValue: { _ in nil }))
    }

    func testFirstHeaderValueIsUsed() throws {
        let pattern = try CompiledRequestPattern(
            RequestPattern(method: "GET", url: .equal("/"), headers: ["Authorization": .wildcard("Bearer *")])
        )
        let bearerFirst = [("Authorization", "Bearer a"), ("authorization", "Basic b")]
        let basicFirst = [("Authorization", "Basic b"), ("authorization", "Bearer a")]
        XCTAssertTrue(pattern.matches(method: "GET", target: "/", headerValue: lookup(bearerFirst)))
        XCTAssertFalse(pattern.matches(method: "GET", target: "/", headerValue: lookup(basicFirst)))
    }

    func testAbsoluteURLTargetForProxyForm() throws {
        let pattern = try CompiledRequestPattern(RequestPattern(method: "GET", url: .equal("http://example.com/api/feed")))
        XCTAssertTrue(pattern.matches(method: "GET", target: "http://example.com/api/feed", headerValue: { _ in nil }))
        XCTAssertFalse(pattern.matches(method: "GET", target: "/api/feed", headerValue: { _ in nil }))
    }

    func testEqualURL() throws {
        XCTAssertEqual(try CompiledRequestPattern(login).equalURL, "/api/login")
        XCTAssertNil(try CompiledRequestPattern(RequestPattern(method: "GET", url: .wildcard("/a"))).equalURL)
        XCTAssertNil(try CompiledRequestPattern(RequestPattern(method: "GET", url: .regexp("/a"))).equalURL)
    }

    func testInvalidHeaderRegexpFailsToCompile() {
        let bad = RequestPattern(method: "GET", url: .equal("/"), headers: ["X-A": .regexp("(")])
        XCTAssertThrowsError(try CompiledRequestPattern(bad)) { error in
            XCTAssertEqual(error as? PatternError, .invalidRegularExpression(pattern: "(", reason: "not a valid ICU regular expression"))
        }
        let badURL = RequestPattern(method: "GET", url: .regexp("[z-a]"))
        XCTAssertThrowsError(try CompiledRequestPattern(badURL))
    }

    func testSourceIsKept() throws {
        XCTAssertEqual(try CompiledRequestPattern(login).source, login)
    }
}
