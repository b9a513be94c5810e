import CatbirdMatching
import CatbirdTestSupport
@_spi(Server) import CatbirdWire
import Foundation
import XCTest

/// `POST /catbird/api/requests/count` and `/find` against the Swift matcher on the same rows:
/// requests sent to a real server over loopback are journaled to its SQLite file, read back
/// through the SQL route, and matched here by ``CompiledRequestPattern`` (the mocks' matcher)
/// with the header lookup of docs/matching.md#request-matching written out again (the first
/// value; the name as spelled, else compared ignoring ASCII case). The server answers from SQL
/// with the matcher on the rows' bytes, a required literal deciding the rows without it, and
/// the stored header JSON scanned rather than decoded: each must give the same rows.
final class JournalCountDifferentialTests: ServerTestCase {
    private static let targets = [
        "/api/users/17", "/API/USERS/170", "/api/users/me", "/api/user/1", "/v1/api/users/12?x=1", "/api/items/3?page=2",
        "/u\u{017F}ers/123", "/Stra\u{00DF}e/1", "/\u{212A}ey", "/key", "/a%20b", "/search?q=users/1", "/users/",
        "/api/books/1/chapters/2", "/x/users/99999",
    ]

    private static let headerSets: [[(String, String)]] = [
        [], [("X-Token", "abc")], [("x-token", "ABC")], [("X-Token", "zzz"), ("X-TOKEN", "abc")],
        [("Accept", "application/json"), ("X-Token", "t1")], [("X-Token", "a\"b")], [("X-Token", "\u{00E9}bc")],
        // A Kelvin sign in a sent field name (X-\u{212A}ey) is no longer journaled: a name that is
        // not a token is refused with 400 (docs/protocol.md#malformed-requests). The patterns keep it.
        [("x-kEY", "k")], [("X-Key", "k")], [("Accept", "text/html")],
    ]

    private static let urlPatterns: [(String, String)] = [
        ("wildcard", "/API/users/*"), ("wildcard", "*users*"), ("wildcard", "/api/user?/*"), ("wildcard", "*"),
        ("wildcard", "/{api,v1}/*"), ("regexp", "users/[0-9]+"), ("regexp", "users/\\d{3}$"), ("regexp", "(?i)^/API/"),
        ("regexp", "(?i)users/(1|7)\\d*$"), ("regexp", "^/\\w+$"), ("regexp", "stra\u{00DF}e"), ("regexp", "key"),
        ("regexp", ""), ("equal", "/key"), ("regexp", "(a|b)?x?$"),
    ]

    private static let headerPatterns: [[String: (String, String)]] = [
        ["X-Token": ("equal", "abc")], ["x-TOKEN": ("wildcard", "A*")], ["X-Token": ("regexp", "^[a-z]+$")],
        ["Accept": ("regexp", "json$"), "X-Token": ("equal", "t1")], ["X-Key": ("wildcard", "*")],
        ["x-\u{212A}ey": ("equal", "k")], ["X-Token": ("regexp", "b")],
    ]

    func testCountAndFindPickTheRowsTheSwiftMatcherPicks() throws {
        for (index, target) in Self.targets.enumerated() {
            for (offset, headers) in Self.headerSets.enumerated() where (index + offset) % 3 == 0 {
                _ = try client.request(index % 4 == 0 ? "POST" : "GET", target, headers: headers)
            }
        }
        let rows = try E2E.sqlRows(client, "SELECT method, url, request_headers FROM requests ORDER BY id")
        XCTAssertGreaterThan(rows.count, 40, "the requests were journaled")

        var patterns: [RequestPattern] = []
        for (kind, value) in Self.urlPatterns {
            let url = PatternMatch(kind: PatternMatch.Kind(rawValue: kind)!, value: value)
            patterns.append(RequestPattern(method: .GET, url: url))
            patterns.append(RequestPattern(method: .POST, url: url))
        }
        for headers in Self.headerPatterns {
            let matches = headers.mapValues { PatternMatch(kind: PatternMatch.Kind(rawValue: $0.0)!, value: $0.1) }
            patterns.append(RequestPattern(method: .GET, url: PatternMatch(kind: .wildcard, value: "*"), headers: matches))
            patterns.append(RequestPattern(method: .GET, url: PatternMatch(kind: .regexp, value: "users"), headers: matches))
        }
        var nonzero = 0
        for pattern in patterns {
            let compiled = try CompiledRequestPattern(pattern)
            let expected = rows.filter { row in
                compiled.matches(
                    method: row[0] as? String ?? "", target: row[1] as? String ?? "",
                    headerValue: { Self.firstValue(of: $0, in: row[2] as? String ?? "{}") })
            }.count
            if expected > 0 { nonzero += 1 }
            let json = String(decoding: try JSONEncoder().encode(pattern), as: UTF8.self)
            XCTAssertEqual(try E2E.count(client, tenant: nil, patternJSON: json), expected, "count \(json)")
            let found = try client.json("POST", "/catbird/api/requests/find", #"{"pattern":\#(json),"limit":1000}"#)
            XCTAssertEqual((found.object["requests"] as? [Any])?.count, expected, "find \(json): \(found.text.prefix(200))")
        }
        XCTAssertGreaterThan(nonzero, patterns.count / 2, "most patterns match some rows")
    }

    /// The first value of header `name` in a stored headers object: the key spelled as `name`,
    /// else one equal to it ignoring ASCII case; a string, or an array's first element.
    private static func firstValue(of name: String, in json: String) -> String? {
        guard let object = try? JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any] else { return nil }
        let value = object[name] ?? object.first { key, _ in
            key.utf8.count == name.utf8.count && zip(key.utf8, name.utf8).allSatisfy { lower($0) == lower($1) }
        }?.value
        return (value as? String) ?? (value as? [String])?.first
    }

    private static func lower(_ byte: UInt8) -> UInt8 { byte >= 0x41 && byte <= 0x5A ? byte | 0x20 : byte }
}
