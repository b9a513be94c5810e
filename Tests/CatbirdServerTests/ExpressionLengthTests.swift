import CatbirdDomain
import CatbirdStorage
import CatbirdTestSupport
import Foundation
import XCTest

/// try9b F13 and F14: multi-megabyte regular expressions were accepted (compiled on the quick
/// lane at about 2 s per MB; a count, find or wait compiled a 4 MB one outside its 2-second
/// limit) and, once stored, recompiled before the server listened (18 of them kept a restart
/// down 62 s). A pattern's `regexp` and `wildcard` values are now at most 64 KiB together
/// (docs/matching.md#pattern-lengths), and stored expressions are compiled after listening.
/// The finding's 3 MB and 4 MB expressions are scaled to 100 KB: refused all the same.
final class ExpressionLengthTests: XCTestCase {
    private static let limit = 65536
    /// The repro's expression (`GET regexp "/xxxx…"`, a literal of n bytes), at n = 100,000.
    private static let long = "/" + String(repeating: "x", count: 99_999)

    private static func reason(_ parts: String, _ length: Int) -> String {
        "the pattern's regular expressions (regexp and wildcard values: \(parts)) are \(length) bytes together, longer than the "
            + "limit of 65536 bytes: each is compiled, taking time in its length; split the mock or match a shorter part of the "
            + "subject (docs/matching.md#pattern-lengths)"
    }

    private func update(_ client: RawHTTPClient, _ pattern: [String: Any], tenant: String) throws -> RawResponse {
        try client.json(
            "POST", "/catbird/api/mocks", E2E.jsonText(["type": "update", "pattern": pattern, "response": ["status": 200]]),
            headers: E2E.tenantHeader(tenant))
    }

    func testAnUpdateWhoseExpressionsAreLongerThan64KiBTogetherIsRefusedWith400AndNothingStored() throws {
        let server = try TestServer()
        defer { server.removeFiles() }
        let client = try server.client()
        let refused = try update(client, E2E.pattern(url: Self.long, kind: "regexp"), tenant: "rxa0")
        E2E.assertError(refused, status: 400)
        XCTAssertEqual(refused.object["reason"] as? String, Self.reason("the url's 100000", 100_000))
        XCTAssertEqual(try E2E.mocks(client, tenant: "rxa0").count, 0)

        // The bound is on all of them together: a header regexp and a body regexp of 40,000
        // and 30,000 bytes, each well under it.
        var pattern = E2E.pattern(url: "/p", headers: ["Accept": (kind: "regexp", value: String(repeating: "a", count: 40_000))])
        pattern["body"] = ["kind": "regexp", "value": String(repeating: "b", count: 30_000)]
        let both = try update(client, pattern, tenant: "rxa0")
        E2E.assertError(both, status: 400)
        XCTAssertEqual(both.object["reason"] as? String, Self.reason(#"header "Accept"'s 40000, the body's 30000"#, 70_000))

        // At the limit: accepted, and matched as before (either alternative).
        let atLimit = "^/p$|^/q/" + String(repeating: "y", count: Self.limit - 9)
        XCTAssertEqual(atLimit.utf8.count, Self.limit)
        XCTAssertEqual(try update(client, E2E.pattern(url: atLimit, kind: "regexp"), tenant: "rxa0").status, 201)
        XCTAssertEqual(try client.request("GET", "/p", headers: E2E.tenantHeader("rxa0")).status, 200)
        XCTAssertEqual(try client.request("GET", "/q/" + String(repeating: "Y", count: 8000), headers: E2E.tenantHeader("rxa0")).status, 404)
    }

    /// The F13 addendum's count, find and wait (timeout 0) with a 4 MB url regexp, scaled: 400
    /// before anything is compiled.
    func testACountFindOrWaitWithExpressionsLongerThan64KiBIsRefusedWith400() throws {
        let server = try TestServer()
        defer { server.removeFiles() }
        let client = try server.client()
        let pattern = E2E.pattern(url: Self.long, kind: "regexp")
        for (path, body) in [
            ("/catbird/api/requests/count", ["pattern": pattern]),
            ("/catbird/api/requests/find", ["pattern": pattern]),
            ("/catbird/api/requests/wait", ["pattern": pattern, "timeout": 0]),
        ] as [(String, [String: Any])] {
            let answer = try client.json("POST", path, E2E.jsonText(body), headers: E2E.tenantHeader("rxq"))
            E2E.assertError(answer, status: 400)
            XCTAssertEqual(answer.object["reason"] as? String, Self.reason("the url's 100000", 100_000), path)
        }
        // An invalid expression in a wait, compiled on the slow lane now, is still a 400.
        let invalid = try client.json(
            "POST", "/catbird/api/requests/wait", E2E.jsonText(["pattern": E2E.pattern(url: "(", kind: "regexp"), "timeout": 0]),
            headers: E2E.tenantHeader("rxq"))
        E2E.assertError(invalid, status: 400, reasonContains: "invalid regular expression")
    }

    /// F14's restart, scaled: mocks stored before the limit (written to the file as an older
    /// server stored them) load, are listed and served, and the server answers other tenants;
    /// an update as long is refused, and the old mock can still be removed.
    func testMocksStoredBeforeTheLimitStillLoadAndAreServedAfterARestart() throws {
        let first = try TestServer()
        defer { first.removeFiles() }
        var client = try first.client()
        // A 300 KB expression, the alternative `^/big$` first so a short request matches it.
        let stored = "^/big$|" + String(repeating: "x", count: 300_000)
        XCTAssertEqual(try update(client, E2E.pattern(url: "^/big$", kind: "regexp"), tenant: "rxa0").status, 201)
        for index in 0..<20 {
            let pattern = E2E.pattern(
                url: "^/api/v[0-9]+/items/\(index)(\\?.*)?$", kind: "regexp", headers: ["Accept": (kind: "regexp", value: "json")])
            XCTAssertEqual(try update(client, pattern, tenant: "gen").status, 201)
        }
        first.stop()
        let database = try Database(path: first.databasePath, mode: .readWrite)
        try database.run("UPDATE mocks SET url_value = ? WHERE tenant = 'rxa0'", [.text(stored)])
        database.close()

        let restarted = try TestServer { $0.databasePath = first.databasePath }
        defer { restarted.stop() }
        client = try restarted.client()
        XCTAssertEqual(try client.request("GET", "/catbird/api/health", headers: E2E.tenantHeader("other")).status, 200)
        XCTAssertEqual(try client.request("GET", "/api/v3/items/7?q=1", headers: [("Accept", "application/json")] + E2E.tenantHeader("gen")).status, 200)
        XCTAssertEqual(try client.request("GET", "/big", headers: E2E.tenantHeader("rxa0")).status, 200)
        XCTAssertEqual(try E2E.mocks(client, tenant: "rxa0").count, 1)
        E2E.assertError(try update(client, E2E.pattern(url: stored, kind: "regexp"), tenant: "rxa0"), status: 400)
        let remove = try client.json(
            "POST", "/catbird/api/mocks", E2E.jsonText(["type": "remove", "pattern": E2E.pattern(url: stored, kind: "regexp")]),
            headers: E2E.tenantHeader("rxa0"))
        XCTAssertEqual(remove.status, 204)
        XCTAssertEqual(try client.request("GET", "/big", headers: E2E.tenantHeader("rxa0")).status, 404)
    }
}
