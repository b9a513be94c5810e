@testable import CatbirdDomain
import CatbirdMatching
import CatbirdStorage
import CatbirdTestSupport
@_spi(Server) import CatbirdWire
import XCTest

/// Journal queries by pattern run in SQLite (`JournalPatternSQL`, `RequestMatchFunction` on the
/// rows' bytes, `JournalHeaderScan`) and must pick exactly the rows the Swift matcher picks
/// (docs/matching.md): a differential test over the docs' examples and generated patterns and
/// subjects, ASCII and not, url and headers, on the real schema.
final class JournalPatternSQLTests: XCTestCase {
    /// An in-memory journal with one tenant, `t` (the deadline tests in `JournalPatternSQLTests+Deadline.swift` use it too).
    var database: Database!

    override func setUpWithError() throws {
        database = try Database(path: ":memory:")
        _ = try Schema.migrate(database)
        try Journal.registerFunctions(on: database)
        try database.execute("INSERT INTO tenants (id, created_at, last_activity_at) VALUES ('t', 'x', 'x')")
    }

    override func tearDown() {
        database.close()
    }

    /// Subjects: the docs' examples, characters ICU folds specially, non-ASCII, GLOB's own
    /// special characters.
    private static let subjects = [
        "", "/", "/api", "/api/", "/api/x", "/API/X", "/api/books", "/api/books?id=1", "/api/books?id=12",
        "/api/books/1/chapters/2?x=y", "/api/book", "/api/users/17", "/api/users/17?expand=true", "/api/users/me",
        "/v1/api/users/17", "/api/users/17/posts", "/api/a/b/c/edit", "/api/a/edit/more", "x/api/a/edit",
        "firetruck", "fooo", "fog", "foz", "foobuzz", "foobar", "http://moz.buzz.com/index.html",
        "http://flozz.buzz.com/index.html", "*o", "foo", "/search?q=abc", "/searchXq=abc", "a/b", "ab", "a?b", "^", "a", "b",
        "/v7/x", "/vz/x", "a,b", "abc\\", "abc", "/a.b+c(d)=e!f|g$h^", "a.c", "a|b", "кот", "КОТ", "a CAT", "dog",
        "/\u{212A}ey", "/key", "/KEY", "/u\u{017F}ers/1", "/users/1", "/a%20b", "/a b", "/[x]", "/*", "/?", "/-",
        "/é", "/É", "x\ny", "abc\n", "abc\r\n", "a\tb", "/api/\u{7F}", "\u{0B}", "/Straße", "/STRASSE", "/a]b", "/a-b", "/a_b", "AbC", "aBc",
        // Canonically equivalent spellings (try7b F4): NFC/NFD, KELVIN SIGN, GREEK QUESTION MARK, GREEK VARIA.
        "/caf\u{E9}", "/cafe\u{301}", "/K", "/\u{212A}", "/k", "/a;b", "/a\u{37E}b", "/`", "/\u{1FEF}", "/K\u{301}", "/\u{212A}\u{301}",
    ]

    private static let wildcards = [
        "/API/*/edit", "f*uck", "uc", "f?o", "fo[oz]", "foo{bar,b*z}", "http://?o[oz].b*z.com/{*.js,*.html}", "\\*o",
        "/search\\?q=*", "/API/*", "/api/books/*", "/api/*", "a?b", "[^a]", "/v[0-9]/x", "a,b", "abc\\",
        "/a.b+c(d)=e!f|g$h^", "a.c", "a\\|b", "/api", "api/*", "*", "", "{a,b},c", "a***b", "\\d", "/[a-c]*", "/*y",
        "/k*", "/K*", "/us*rs/*", "/STRASSE", "/a[-_]b", "/[\\[]x]", "*\\?", "/{a,b,c}{1,2}*", "К*", "/é",
    ]

    private static let regexps = [
        "users/[0-9]+", "/API/Users", "^/api/users/[0-9]+$", "кот|cat", "", "^/api", "x$", "^$", "b.*z", "o+",
        "^f(o|a)+", "^(a|b)?c", "a.c", "\\.", "[^a-z]", "[a-c]x?", "/KEY", "key", "^/users", "users", "\\d\\d",
        "[[:alpha:]]", "\\w+", "(?i)x", "a{2}", "^.+$", "^.*$", "^a*", "s$", "e.it", "^/api/.*/edit$", "[:a]",
        "users/\\d{3}$", "^/api/\\w+/edit", "ab+c{2}d", "x\\Qy\\E", "/u\\w*rs/", "fo{1,2}", "(ab|cd)\\w?ef", "%_\\.",
        "(?i)users/(1|7)\\d*$", "(?i)^/API/", "(?i)KEY",
    ]

    func testTheDocsWildcardsAndRegexpsCountAsTheSwiftMatcherDoes() throws {
        for value in Self.wildcards { try assertSameRows(url: PatternMatch(kind: .wildcard, value: value)) }
        for value in Self.regexps { try assertSameRows(url: PatternMatch(kind: .regexp, value: value)) }
        for value in ["/api/books?id=1", "/API/Users", "", "кот"] { try assertSameRows(url: PatternMatch(kind: .equal, value: value)) }
    }

    /// An `equal` url selects the rows Swift's `==` selects (canonical equivalence, the mocks'
    /// rule), for every subject as the value, alone and with a header pattern (try7b F4).
    func testEqualURLsCountByCanonicalEquivalenceAsTheSwiftMatcherDoes() throws {
        for value in Self.subjects {
            try assertSameRows(url: PatternMatch(kind: .equal, value: value))
            // Every other row gets the header the pattern asks for.
            try database.execute(#"UPDATE journal_rows SET request_headers = '{"X-N":"1"}' WHERE id % 2 = 1"#)
            let withHeader = RequestPattern(
                method: .GET, url: PatternMatch(kind: .equal, value: value), headers: ["X-N": PatternMatch(kind: .equal, value: "1")])
            try assertSameRows(withHeader, subjects: nil)
        }
    }

    func testGeneratedPatternsCountAsTheSwiftMatcherDoes() throws {
        var random = SeededRandom(seed: 7)
        let wildcardPieces = ["a", "B", "k", "s", "/", ".", "*", "?", "[ab]", "[0-9]", "{a,b}", "\\*", "-", "é", "x", "[^a]", "?*"]
        let regexpPieces = ["a", "B", "k", "/", ".", ".*", ".+", "[ab]", "[^a]", "(a|b)", "\\d", "x?", "\\.", "s", "^", "$", "o+", "|"]
        for _ in 0..<150 {
            let wildcard = (0..<random.below(5)).map { _ in wildcardPieces[random.below(wildcardPieces.count)] }.joined()
            try assertSameRows(url: PatternMatch(kind: .wildcard, value: wildcard))
            let regexp = (0..<random.below(5)).map { _ in regexpPieces[random.below(regexpPieces.count)] }.joined()
            try assertSameRows(url: PatternMatch(kind: .regexp, value: regexp))
        }
    }

    func testARequiredLiteralDecidesTheRowsWithoutIt() throws {
        // An ICU-only expression: the byte path answers "no" at once for ASCII subjects without
        // the literal every match holds, and must still agree with ICU on the others.
        let subjects = ["/api/users/123", "/API/USERS/123", "/api/user/123", "/u\u{017F}ers/123", "/users/12", "/x\nusers/123"]
        for value in ["users/\\d{3}$", "(?i)users/\\d{3}$", "^/api/\\w+/\\d+", "(?i)^/API/(users|user)/\\d+$"] {
            try assertSameRows(RequestPattern(method: .GET, url: PatternMatch(kind: .regexp, value: value)), subjects: subjects)
        }
        XCTAssertEqual(LiteralRequirement(regularExpression: "(?i)users/(1|2)\\d*5$").infix, Array("users/".utf8))
        XCTAssertEqual(LiteralRequirement(regularExpression: "(?x)users"), .none, "other flags change what characters mean")
    }

    func testHeaderPatternsCountAsTheSwiftMatcherDoes() throws {
        let rows: [String] = [
            #"{"X-Token":"abc"}"#, #"{"x-token":"ABC"}"#, #"{"X-TOKEN":["abc","zzz"]}"#, #"{"X-Token":["zzz","abc"]}"#,
            #"{"Accept":"*/*"}"#, "{}", #"{"X-Token":"\u00e9bc"}"#, #"{"X-Token":"a\"b"}"#, #"{"X.Y":"1","X-Token":"abd"}"#,
            #"{"Other":"\"X-Token\""}"#,
            // What JournalHeaderScan leaves to the decoder, and what it must read as the decoder does:
            #" { "X-Token" : [ "abc" , "x" ] } "#, #"{"X-Token":[]}"#, #"{"X-Token":"abc","X-Token":"zzz"}"#,
            #"{"X-Tok\u0065n":"abc"}"#,
            // (Two spellings of a name, neither the pattern's, are never written: the decoder would
            // pick one in no defined order. JournalHeaderScan's own test covers them.)
            #"{"X-Token":"ab\u0063"}"#, #"{"X-Token":1}"#, #"{"X-Token":"abc""#, #"{"X-Token":"abc"} x"#, #"["abc"]"#,
            "{\"X-\u{212A}ey\":\"abc\",\"X-Token\":\"abc\"}", #"{"X-Key":"abc","Ümlaut":"ü"}"#, "{\"X-Token\":\"a\tc\"}",
            #"{"X-Token":"abc","Accept":["*/*",2]}"#, #"{"Accept":"text/html","X-Token":["ABC","abc"]}"#,
        ]
        try database.execute("DELETE FROM journal_rows")
        for headers in rows {
            try database.run(
                "INSERT INTO journal_rows (time, tenant, method, url, request_headers, status, answered_by, duration_ms) VALUES ('x', 't', 'GET', '/h', ?, 200, 'none', 0)",
                [.text(headers)])
        }
        let patterns: [[String: PatternMatch]] = [
            ["X-Token": PatternMatch(kind: .equal, value: "abc")],
            ["x-token": PatternMatch(kind: .equal, value: "ABC")],
            ["X-Token": PatternMatch(kind: .wildcard, value: "ab?")],
            ["x-TOKEN": PatternMatch(kind: .regexp, value: "^a")],
            ["X-Token": PatternMatch(kind: .regexp, value: "")],
            ["X-Token": PatternMatch(kind: .regexp, value: "\\w")],
            ["X-Token": PatternMatch(kind: .wildcard, value: "a\"b")],
            ["X.Y": PatternMatch(kind: .equal, value: "1")],
            ["Accept": PatternMatch(kind: .wildcard, value: "*")],
            ["X-Token": PatternMatch(kind: .wildcard, value: "*b*"), "Accept": PatternMatch(kind: .regexp, value: "")],
            ["Bad\"Name": PatternMatch(kind: .equal, value: "x")],
            ["X-Key": PatternMatch(kind: .equal, value: "abc")],
            ["x-\u{212A}EY": PatternMatch(kind: .wildcard, value: "*")],
            ["X-Token": PatternMatch(kind: .regexp, value: "^abc$")],
            ["X-Token": PatternMatch(kind: .wildcard, value: "a?c")],
            ["Ümlaut": PatternMatch(kind: .equal, value: "ü")],
        ]
        for headers in patterns {
            try assertSameRows(RequestPattern(method: .GET, url: PatternMatch(kind: .regexp, value: ""), headers: headers), subjects: nil)
        }
    }

    func testTheHeaderScanReadsWhatTheWriterWritesAndLeavesTheRestUndecided() {
        func scan(_ name: String, _ json: String) -> String {
            var name = name
            var json = json
            return name.withUTF8 { name in
                json.withUTF8 { bytes in
                    switch JournalHeaderScan.firstValue(of: name, in: bytes) {
                    case let .value(range): String(decoding: UnsafeBufferPointer(rebasing: bytes[range]), as: UTF8.self)
                    case .absent: "absent"
                    case .undecided: "undecided"
                    }
                }
            }
        }
        XCTAssertEqual(scan("X-Token", #"{"Host":"h","X-Token":["abc","def"]}"#), "abc")
        XCTAssertEqual(scan("x-token", #"{"X-Token":"abc"}"#), "abc")
        XCTAssertEqual(scan("X-Token", #"{"x-token":"abc","X-TOKEN":"zzz"}"#), "abc", "the first of two spellings, neither exact")
        XCTAssertEqual(scan("X-Token", #"{"x-token":"zzz","X-Token":"abc"}"#), "abc", "the exact spelling first")
        XCTAssertEqual(scan("X-Token", #"{"X-Token":[]}"#), "absent")
        XCTAssertEqual(scan("X-Token", #"{"Host":"h"}"#), "absent")
        XCTAssertEqual(scan("X-Token", "{}"), "absent")
        for undecided in [#"{"X-Token":"a\"b"}"#, #"{"X-Token":"é"}"#, #"{"X-Token":1}"#, #"{"X-Token":"a""#, #"{"X-Token":"a"}x"#, #"["a"]"#, "", #"{"X-Token":"a","X-Token":"b"}"#] {
            XCTAssertEqual(scan("X-Token", undecided), "undecided", undecided)
        }
    }

    // MARK: - Helpers

    /// Fills the journal with one GET row per subject (and one POST row) and compares the rows
    /// the SQL condition selects with the rows the Swift matcher accepts.
    private func assertSameRows(url: PatternMatch, file: StaticString = #filePath, line: UInt = #line) throws {
        try assertSameRows(RequestPattern(method: .GET, url: url), subjects: Self.subjects, file: file, line: line)
    }

    private func assertSameRows(
        _ pattern: RequestPattern, subjects: [String]?, file: StaticString = #filePath, line: UInt = #line
    ) throws {
        // Every pattern here is one an `update` takes: one refused would compare nothing.
        let compiled = try CompiledRequestPattern(pattern)
        if let subjects {
            try database.execute("DELETE FROM journal_rows")
            for subject in subjects {
                try database.run(
                    "INSERT INTO journal_rows (time, tenant, method, url, status, answered_by, duration_ms) VALUES ('x', 't', 'GET', ?, 200, 'none', 0)",
                    [.text(subject)])
            }
            try database.run(
                "INSERT INTO journal_rows (time, tenant, method, url, status, answered_by, duration_ms) VALUES ('x', 't', 'POST', '/api/x', 200, 'none', 0)",
                [])
        }
        let all = try database.query("SELECT id, method, url, request_headers FROM requests ORDER BY id", [])
        let expected = all.filter { row in
            let headers = JournalHeaders(json: row[3].stringValue)
            return compiled.matches(method: row[1].stringValue ?? "", target: row[2].stringValue ?? "", headerValue: headers.firstValue(of:))
        }.map { $0[0].intValue ?? 0 }
        let condition = JournalPatternSQL(pattern)
        let selected = try database.query(
            "SELECT id FROM requests WHERE tenant = ?" + condition.conditions + " ORDER BY id", [.text("t")] + condition.bindings
        ).map { $0[0].intValue ?? 0 }
        XCTAssertEqual(selected, expected, "\(pattern.url.kind) \(pattern.url.value) headers \(pattern.headers)", file: file, line: line)
    }
}
