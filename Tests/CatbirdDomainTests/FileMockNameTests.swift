import CatbirdDomain
import XCTest

/// Request-target → file name, and the forms that must never leave the mocks directory.
final class FileMockNameTests: XCTestCase {
    private func name(_ target: String, query: Bool = false) -> String? {
        FileMockName(target: target, includesQuery: query)?.path
    }

    func testOriginFormMapsPathAndIgnoresQuery() {
        XCTAssertEqual(name("/api/books?id=1"), "api/books")
        XCTAssertEqual(name("/api/books/"), "api/books/index")
        XCTAssertEqual(name("/"), "index")
        XCTAssertEqual(name(""), "index")
        XCTAssertEqual(name("//a//b/./c"), "a/b/c")
    }

    func testAbsoluteFormPutsTheHostFirst() {
        XCTAssertEqual(name("http://API.Example.com:8080/v1/x?y"), "api.example.com/v1/x")
        XCTAssertEqual(name("http://example.com"), "example.com/index")
        XCTAssertEqual(name("https://user@[::1]:8443/a"), "::1/a")
        XCTAssertNil(name("http://../etc/passwd"))
        XCTAssertNil(name("http://a%2f..%2f/x"))
        // Regression: Character.isHexDigit takes fullwidth digits, so this was the folder "１ｆ::1".
        XCTAssertNil(name("http://[１ｆ::1]/a"))
        XCTAssertNil(name("http://ｅｘａｍｐｌｅ.com/a"))
        XCTAssertEqual(name("http://[2001:DB8::1]/a"), "2001:db8::1/a")
    }

    func testPercentDecodingHappensOnce() {
        XCTAssertEqual(name("/a%20b.json"), "a b.json")
        XCTAssertEqual(name("/a%252e%252e/x"), "a%2e%2e/x")
        XCTAssertEqual(name("/100%/x%zz"), "100%/x%zz")
        XCTAssertNil(name("/%ff%fe"))
    }

    func testTraversalFormsAreRefused() {
        for target in [
            "/../etc/passwd", "/a/../../etc/passwd", "/%2e%2e/etc/passwd", "/%2E%2E%2Fetc%2Fpasswd",
            "/a/..%2f..%2fetc", "/..\\etc\\passwd", "/a%5c..%5cb", "/a%00b", "/x.json.catbird-response.json",
        ] {
            XCTAssertNil(name(target), target)
        }
    }

    /// Tester finding T13B-F10, the exact target: record mode wrote `rec/api/a<LF>b` for
    /// `GET /api/a%0Ab`. A name holding a control character after decoding is refused (never
    /// recorded, never served), as a NUL was; a space and other characters are kept.
    func testControlCharactersAfterDecodingAreRefused() {
        for target in ["/api/a%0Ab", "/api/a%0Db", "/a%09b", "/a%1Fb", "/a%7Fb", "/host%0A/x"] {
            XCTAssertNil(name(target), target)
        }
        XCTAssertEqual(name("/api/a%20b"), "api/a b")
        XCTAssertEqual(name("/api/%C3%A9"), "api/é")
    }

    func testAbsolutePathInTheTargetStaysRelative() {
        XCTAssertEqual(name("//etc/passwd"), "etc/passwd")
        XCTAssertEqual(name("/%2Fetc%2Fpasswd"), "etc/passwd")
    }

    func testQueryJoinsTheNameWhenAsked() {
        XCTAssertEqual(name("/search?q=a/b&x=1", query: true), "search?q=a%2Fb&x=1")
        XCTAssertEqual(name("/search?", query: true), "search")
        XCTAssertEqual(FileMockName(target: "/data.json?x=1", includesQuery: true)?.hasExtension, true)
        XCTAssertEqual(FileMockName(target: "/data?x.json", includesQuery: true)?.hasExtension, false)
        // A query that makes the name a sidecar's (tester finding try8b F9) names no file.
        XCTAssertNil(FileMockName(target: "/q?y.catbird-response.json", includesQuery: true))
        XCTAssertNil(FileMockName(target: "/q?..%2F..%2Fz.catbird-response.json", includesQuery: true))
        XCTAssertEqual(name("/q?y.catbird-response.json"), "q", "without --files-with-query the query is no part of the name")
        // A backslash (or control character) in the query, kept as received, refuses it too (T15B-F12).
        XCTAssertNil(FileMockName(target: #"/q?a\b"#, includesQuery: true))
        XCTAssertEqual(name(#"/q?a\b"#), "q", "without --files-with-query the query is no part of the name")
        XCTAssertEqual(name("/q?a%5Cb", query: true), "q?a%5Cb", "an escape in the query is kept as written")
    }

    /// Record mode's temporary files (tester finding T12-F3: replay served one a `kill -9` left)
    /// are never named, whatever the spelling or query; names that only look alike are.
    func testARecordingTemporaryFileIsNeverNamed() {
        for target in [
            "/big3/.catbird-recording-13031-3.tmp", "/.catbird-recording-1-2.tmp", "/a/%2Ecatbird-recording-1-2%2Etmp",
            "http://h/.catbird-recording-1-2.tmp?x",
        ] {
            XCTAssertNil(name(target), target)
            XCTAssertNil(name(target, query: true), target)
        }
        XCTAssertEqual(name("/.catbird-recording-x-2.tmp"), ".catbird-recording-x-2.tmp")
        XCTAssertEqual(name("/.catbird-recording-1-2.tmp.json"), ".catbird-recording-1-2.tmp.json")
        XCTAssertEqual(name("/.catbird-recording-1-2-3.tmp"), ".catbird-recording-1-2-3.tmp")
    }

    /// A fragment is no part of the name (tester finding T12-F8: `/hash#frag` was forwarded as
    /// `/hash` but recorded as `hash#frag`); a `#` in a name is written `%23`.
    func testAFragmentIsNoPartOfTheName() {
        XCTAssertEqual(name("/hash#frag"), "hash")
        XCTAssertEqual(name("/hash?q=1#frag", query: true), "hash?q=1")
        XCTAssertEqual(name("http://Host#frag"), "host/index")
        XCTAssertEqual(name("/a%23b"), "a#b")
    }
}
